/*
 * bwrap_cmd.c - policy -> bwrap arguments, and the descriptors they name.
 *
 * MUST: create a new user namespace explicitly (--unshare-user: as root
 * inside a user namespace --unshare-all quietly skips it); drop every
 * capability, root included (root with CAP_SYS_ADMIN inside could remount
 * the read-only root writable); emit mounts in the policy's order, which
 * makes the more specific path win; close every descriptor it was given.
 * MUST NOT do I/O but in bwrap_cmd_child_setup() and the closing of its
 * descriptors; bwrap_cmd_child_setup() runs between vfork and exec:
 * async-signal-safe calls only, nothing allocated.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bwrap_cmd.h"
#include "fd.h"
#include "netproxy.h"

/* How many descriptors the hidden files of P are read from. */
size_t
bwrap_cmd_hidden_files(const struct policy *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nmounts; i++)
		if (p->mounts[i].kind == MOUNT_HIDE_FILE)
			n++;
	return n;
}

/*
 * A bind from the host: from the descriptor the launcher opened and
 * checked, when there is one, so that nothing swapped in at the path since
 * (a symlink planted by another sandbox) is bound instead.
 */
static void
add_bind(struct strv *sv, bool ro, const struct mount *m, int target)
{
	if (target >= 0) {
		strv_add(sv, ro ? "--ro-bind-fd" : "--bind-fd");
		strv_addf(sv, "%d", target);
	} else {
		strv_add(sv, ro ? "--ro-bind" : "--bind");
		strv_add(sv, m->src);
	}
	strv_add(sv, m->dest);
}

/* Mount M; TARGET is the number of its descriptor (a bind's source, a
 * hidden file's content), or -1. */
static void
add_mount(struct strv *sv, const struct mount *m, int target)
{
	switch (m->kind) {
	case MOUNT_ROOT:
	case MOUNT_SYSTEM:
	case MOUNT_RO:
		add_bind(sv, true, m, target);
		break;
	case MOUNT_RW:
		add_bind(sv, false, m, target);
		break;
	case MOUNT_SYMLINK:
		strv_add(sv, "--symlink");
		strv_add(sv, m->src);
		strv_add(sv, m->dest);
		break;
	case MOUNT_DEV:
		strv_add(sv, "--dev");
		strv_add(sv, m->dest);
		break;
	case MOUNT_PROC:
		strv_add(sv, "--proc");
		strv_add(sv, m->dest);
		/*
		 * Sysctls are not namespaced, and uid 0 inside is host root
		 * when sbox-exec runs as root: core_pattern alone would run
		 * a program as root outside.  bwrap leaves /proc/sys as is.
		 */
		strv_add(sv, "--ro-bind");
		strv_addf(sv, "%s/sys", m->dest);
		strv_addf(sv, "%s/sys", m->dest);
		break;
	case MOUNT_TMP:
	case MOUNT_HIDE_DIR:
		strv_add(sv, "--tmpfs");
		strv_add(sv, m->dest);
		break;
	case MOUNT_HIDE_FILE:
		if (target < 0) {
			/*
			 * No descriptor (a line for a shell, --print): the
			 * host's /dev/null, which reads empty.  A device
			 * bind, since bwrap's other binds forbid opening
			 * any device; what is written to it is lost.
			 */
			strv_add(sv, "--dev-bind");
			strv_add(sv, "/dev/null");
			strv_add(sv, m->dest);
			break;
		}
		/* An empty file: bwrap copies the descriptor's (no) data. */
		strv_add(sv, "--ro-bind-data");
		strv_addf(sv, "%d", target);
		strv_add(sv, m->dest);
		break;
	}
}

/*
 * NO_PROXY's list for NP, which goes direct to the sandbox's own loopback
 * (its own servers): without the host's loopback address of a family an
 * allow entry covers, and then without "localhost", which the proxy then
 * decides.  JAVA: Java's form, '|' between the names.
 */
static char *
no_proxy_list(const struct netpolicy *np, bool java)
{
	bool v4 = netpolicy_allows_loopback(np, AF_INET),
	     v6 = netpolicy_allows_loopback(np, AF_INET6);
	const char *names[] = { v4 || v6 ? NULL : "localhost",
		v4 ? NULL : "127.0.0.1", v6 || java ? NULL : "::1" };
	struct buf b = { 0 };

	for (size_t i = 0; i < N_ELEMENTS(names); i++)
		if (names[i] != NULL)
			buf_addf(&b, "%s%s",
			    b.len > 0 ? (java ? "|" : ",") : "", names[i]);
	return b.s != NULL ? b.s : xstrdup("");
}

/*
 * --allow-host, or the network off: where the proxy is, for every tool
 * that asks its environment (sbox-exec(1), NETWORK BY NAME).  After the
 * user's own operations, so that a --clearenv keeps them.  Java's
 * variable only with an allow-list: every JVM prints it, and a JVM with
 * the network off fails at once as it is.
 */
static void
add_proxy_env(struct strv *sv, const struct netpolicy *np)
{
	static const char *const names[] = { "HTTP_PROXY", "HTTPS_PROXY",
		"http_proxy", "https_proxy" };
	bool allowed = netpolicy_active(np);
	cleanup_free char *url = xasprintf("http://127.0.0.1:%d",
	    NETPROXY_PORT);
	cleanup_free char *socks = xasprintf("socks5h://127.0.0.1:%d",
	    NETPROXY_PORT);
	cleanup_free char *direct = no_proxy_list(np, false);
	cleanup_free char *java_direct = no_proxy_list(np, true);
	cleanup_free char *java = xasprintf(
	    "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=%d -Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=%d -Dhttp.nonProxyHosts=%s",
	    NETPROXY_PORT, NETPROXY_PORT, java_direct);
	const char *const pairs[][2] = {
		{ "ALL_PROXY", socks },
		{ "all_proxy", socks },
		{ "NO_PROXY", direct },
		{ "no_proxy", direct },
		{ "NODE_USE_ENV_PROXY", "1" },
		{ "JAVA_TOOL_OPTIONS", java },
	};

	for (size_t i = 0; i < N_ELEMENTS(names); i++) {
		strv_add(sv, "--setenv");
		strv_add(sv, names[i]);
		strv_add(sv, url);
	}
	for (size_t i = 0; i < N_ELEMENTS(pairs); i++) {
		if (!allowed && strcmp(pairs[i][0], "JAVA_TOOL_OPTIONS") == 0)
			continue;
		strv_add(sv, "--setenv");
		strv_add(sv, pairs[i][0]);
		strv_add(sv, pairs[i][1]);
	}
}

/* By name, and among one name's operations in the order given. */
static int
envop_cmp(const void *a, const void *b)
{
	const struct envop *const *x = a, *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	if (c != 0)
		return c;
	return *x < *y ? -1 : *x > *y;
}

/*
 * Which of P's environment operations still count (USED, one flag each):
 * every --clearenv, and of the --setenv and --unsetenv of one name only
 * the last.  A generated policy that sets PATH in each of its parts gives
 * bwrap one --setenv PATH, not one each (sbox-exec(1), Policy size).  By
 * sorting: n log n.
 */
static void
env_used(const struct policy *p, bool *used)
{
	cleanup_free const struct envop **v = NULL;
	size_t n = 0;

	v = xcalloc(p->nenv + 1, sizeof(*v));
	for (size_t i = 0; i < p->nenv; i++) {
		if (p->env[i].kind == ENV_CLEAR)
			used[i] = true;
		else
			v[n++] = &p->env[i];
	}
	qsort(v, n, sizeof(*v), envop_cmp);
	for (size_t i = 0; i < n; i++)
		if (i + 1 == n || strcmp(v[i]->name, v[i + 1]->name) != 0)
			used[v[i] - p->env] = true;
}

static void
add_env(struct strv *sv, const struct policy *p)
{
	cleanup_free bool *used = xcalloc(p->nenv + 1, sizeof(*used));

	env_used(p, used);
	for (size_t i = 0; i < p->nenv; i++) {
		const struct envop *e = &p->env[i];

		if (!used[i])
			continue;
		switch (e->kind) {
		case ENV_SET:
			strv_add(sv, "--setenv");
			strv_add(sv, e->name);
			strv_add(sv, e->value);
			break;
		case ENV_UNSET:
			strv_add(sv, "--unsetenv");
			strv_add(sv, e->name);
			break;
		case ENV_CLEAR:
			strv_add(sv, "--clearenv");
			break;
		}
	}
}

/*
 * Take IN's descriptors in a fixed order, whatever the order of the words
 * naming them: the hidden files' (3 and up, before anything else), the
 * filter's, the binds'.  Each mount's number goes to TARGETS, -1 for one
 * without a descriptor.
 */
static int
take_input_fds(struct bwrap_cmd *c, const struct policy *p,
    struct bwrap_input *in, int *targets)
{
	size_t hidden = 0;
	int seccomp;

	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount *m = &p->mounts[i];
		cleanup_free char *what = NULL;

		targets[i] = -1;
		if (m->kind != MOUNT_HIDE_FILE)
			continue;
		what = xasprintf("/dev/null, for the hidden file %s", m->dest);
		if (hidden < in->nhidden)
			targets[i] = bwrap_cmd_take_fd(c,
			    &in->hidden_fds[hidden++], what);
	}
	seccomp = bwrap_cmd_take_fd(c, &in->seccomp_fd,
	    "the seccomp filter's program, built by sbox-exec for this sandbox");
	for (size_t i = 0; i < in->nbind && i < p->nmounts; i++)
		if (in->bind_fds[i] >= 0)
			targets[i] = bwrap_cmd_take_fd(c, &in->bind_fds[i],
			    p->mounts[i].src);
	return seccomp;
}

/*
 * The words of the sandbox for P, up to and including the "--" after
 * which the command's words go; IN's descriptors become C's.
 */
void
bwrap_cmd_build(struct bwrap_cmd *c, const struct policy *p,
    struct bwrap_input *in)
{
	struct strv *sv = &c->argv;
	cleanup_free int *targets = xcalloc(p->nmounts, sizeof(int));
	int seccomp = take_input_fds(c, p, in, targets);

	strv_add(sv, in->program);
	strv_add(sv, "--unshare-user");
	strv_add(sv, "--unshare-pid");
	strv_add(sv, "--unshare-ipc");
	strv_add(sv, "--unshare-uts");
	strv_add(sv, "--unshare-cgroup-try");
	if (!p->net)
		strv_add(sv, "--unshare-net");
	if (in->disable_userns)
		strv_add(sv, "--disable-userns");
	strv_add(sv, "--cap-drop");
	strv_add(sv, "ALL");
	/* bwrap installs it on its init (pid 1 inside) and on stage two. */
	if (seccomp >= 0) {
		strv_add(sv, "--seccomp");
		strv_addf(sv, "%d", seccomp);
	}
	/*
	 * No controlling terminal of the caller's: the command could push
	 * keystrokes into it, and take its foreground.  With --tty stage two
	 * makes the sandbox's own terminal the controlling one instead.
	 */
	strv_add(sv, "--new-session");
	strv_add(sv, "--die-with-parent");

	for (size_t i = 0; i < p->nmounts; i++)
		add_mount(sv, &p->mounts[i], targets[i]);
	/*
	 * Hidden directories go read-only last: something granted below one
	 * needs its mount point made first.
	 */
	for (size_t i = 0; i < p->nmounts; i++)
		if (p->mounts[i].kind == MOUNT_HIDE_DIR) {
			strv_add(sv, "--remount-ro");
			strv_add(sv, p->mounts[i].dest);
		}
	add_env(sv, p);
	if (policy_proxied(p))
		add_proxy_env(sv, &p->egress);
	strv_add(sv, "--chdir");
	strv_add(sv, p->chdir);
	strv_add(sv, "--");
}

void
bwrap_cmd_add(struct bwrap_cmd *c, const char *arg)
{
	strv_add(&c->argv, arg);
}

void
bwrap_cmd_addf(struct bwrap_cmd *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strv_take(&c->argv, xvasprintf(fmt, ap));
	va_end(ap);
}

/* Append the NULL-terminated ARGS. */
void
bwrap_cmd_add_args(struct bwrap_cmd *c, char *const *args)
{
	for (; *args != NULL; args++)
		strv_add(&c->argv, *args);
}

static bool
target_kept(const struct bwrap_cmd *c, int target)
{
	for (size_t i = 0; i < c->nkept; i++)
		if (c->kept[i] == target)
			return true;
	return false;
}

/*
 * Taken numbers are handed out upwards from 3, stepping around the kept
 * ones, so every number below next_target is in use: a test in O(kept),
 * not O(descriptors), which kept 10 000 grants from costing O(n^2) each.
 */
static bool
target_used(const struct bwrap_cmd *c, int target)
{
	return (target >= 3 && target < c->next_target) ||
	    target_kept(c, target);
}

static void
add_fd(struct bwrap_cmd *c, int fd, int target, bool owned, const char *what)
{
	c->fds = util_grow(c->fds, c->nfds, &c->fds_cap, sizeof(*c->fds));
	c->fds[c->nfds++] = (struct bwrap_fd){
		.fd = fd,
		.target = target,
		.owned = owned,
		.what = what != NULL ? xstrdup(what) : NULL,
	};
}

/*
 * FD, not ours, survives exec as the number it is (a descriptor named
 * with --keep-fd, the bwrap executed from its descriptor).  Kept ones go
 * first: the numbers taken after them step around them.
 */
void
bwrap_cmd_keep_fd(struct bwrap_cmd *c, int fd, const char *what)
{
	if (target_used(c, fd))
		return;
	c->kept = util_grow(c->kept, c->nkept, &c->kept_cap, sizeof(*c->kept));
	c->kept[c->nkept++] = fd;
	add_fd(c, fd, fd, false, what);
}

/*
 * Take *FD (left -1), described by WHAT for a person; returns the number
 * bwrap will have it as, for the argument that names it.  -1 for -1.
 */
int
bwrap_cmd_take_fd(struct bwrap_cmd *c, int *fd, const char *what)
{
	int target = c->next_target > 3 ? c->next_target : 3;

	if (*fd < 0)
		return -1;
	while (target_kept(c, target))
		target++;
	c->next_target = target + 1;
	add_fd(c, steal_fd(fd), target, true, what);
	return target;
}

/* Ready C for bwrap_cmd_child_setup(), which may not allocate. */
void
bwrap_cmd_finish(struct bwrap_cmd *c)
{
	free(c->targets);
	free(c->scratch);
	c->targets = xcalloc(c->nfds, sizeof(int));
	c->scratch = xcalloc(c->nfds, sizeof(int));
	c->floor = 3;
	for (size_t i = 0; i < c->nfds; i++) {
		c->targets[i] = c->fds[i].target;
		if (c->fds[i].owned && c->fds[i].target >= c->floor)
			c->floor = c->fds[i].target + 1;
	}
	fd_sort(c->targets, c->nfds);
}

/*
 * In the child, between fork and exec: every descriptor to its number,
 * inheritable, and every other one above 2 closed.  The ones we own are
 * copied above all numbers first, so that none is overwritten before it
 * is moved, which needs as many free numbers above the highest one:
 * under a tight descriptor limit, EMFILE.  Returns -1 (errno set) on
 * failure.
 */
int
bwrap_cmd_child_setup(const struct bwrap_cmd *c)
{
	for (size_t i = 0; i < c->nfds; i++)
		if (c->fds[i].owned) {
			c->scratch[i] = util_dup(c->fds[i].fd, c->floor);
			/* EINVAL: the floor is beyond the descriptor limit. */
			if (c->scratch[i] < 0 && errno == EINVAL)
				errno = EMFILE;
			if (c->scratch[i] < 0)
				return -1;
		}
	for (size_t i = 0; i < c->nfds; i++) {
		if (c->fds[i].owned ?
			dup2(c->scratch[i], c->fds[i].target) < 0 :
			fd_set_inheritable(c->fds[i].fd) < 0)
			return -1;
	}
	fd_close_except(c->targets, c->nfds);
	return 0;
}

/* Close the descriptors C owns; the words stay.  The launcher's, once
 * bwrap has its copies. */
void
bwrap_cmd_close_fds(struct bwrap_cmd *c)
{
	for (size_t i = 0; i < c->nfds; i++)
		if (c->fds[i].owned)
			fd_close(&c->fds[i].fd);
}

void
bwrap_cmd_free(struct bwrap_cmd *c)
{
	bwrap_cmd_close_fds(c);
	for (size_t i = 0; i < c->nfds; i++)
		free(c->fds[i].what);
	free(c->fds);
	free(c->kept);
	free(c->targets);
	free(c->scratch);
	strv_clear(&c->argv);
	memset(c, 0, sizeof(*c));
}
