/*
 * policy.c - the policy model and its consistency checks.
 *
 * Data only: no I/O, no printing, no exit().  Paths arrive resolved
 * (resolve.c does that against the host); here they are ordered and
 * checked.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netproxy.h"
#include "policy.h"
#include "util.h"

/* Mounts the launcher adds sort before every mount the user asked for. */
#define SEQ_USER (SIZE_MAX / 2)

void
policy_init(struct policy *p, const char *cwd)
{
	memset(p, 0, sizeof(*p));
	p->fs = FS_HOST;
	p->cwd = xstrdup(cwd);
}

void
policy_free(struct policy *p)
{
	for (size_t i = 0; i < p->nmounts; i++) {
		free(p->mounts[i].dest);
		free(p->mounts[i].src);
		free(p->mounts[i].given);
	}
	for (size_t i = 0; i < p->nenv; i++) {
		free(p->env[i].name);
		free(p->env[i].value);
	}
	free(p->mounts);
	free(p->env);
	free(p->keep_fds);
	free(p->cwd);
	free(p->chdir);
	netpolicy_free(&p->egress);
	memset(p, 0, sizeof(*p));
}

static bool
mount_is_base(enum mount_kind kind)
{
	switch (kind) {
	case MOUNT_ROOT:
	case MOUNT_SYSTEM:
	case MOUNT_SYMLINK:
	case MOUNT_DEV:
	case MOUNT_PROC:
	case MOUNT_TMP:
		return true;
	case MOUNT_RO:
	case MOUNT_RW:
	case MOUNT_HIDE_DIR:
	case MOUNT_HIDE_FILE:
		break;
	}
	return false;
}

static struct mount *
add_mount(struct policy *p, enum mount_kind kind, const char *dest,
    const char *src, bool by_user)
{
	struct mount *m;

	p->mounts = util_grow(p->mounts, p->nmounts, &p->mounts_cap,
	    sizeof(*p->mounts));
	m = &p->mounts[p->nmounts];
	m->kind = kind;
	m->dest = xstrdup(dest);
	m->src = src ? xstrdup(src) : NULL;
	m->seq = (by_user ? SEQ_USER : 0) + p->nmounts;
	m->protection = !by_user && !mount_is_base(kind);
	m->given = NULL;
	m->from_file = false;
	p->nmounts++;
	return m;
}

/* A mount of the base layout, or one the user asked for. */
struct mount *
policy_add_mount(struct policy *p, enum mount_kind kind, const char *dest,
    const char *src)
{
	return add_mount(p, kind, dest, src, !mount_is_base(kind));
}

/*
 * A host-protection mount: it yields to whatever the user names at the
 * same path, and covers what the user grants above it.
 */
void
policy_add_protection(struct policy *p, enum mount_kind kind, const char *dest,
    const char *src)
{
	(void)add_mount(p, kind, dest, src, false);
}

/* Whether the user named exactly PATH (--ro, --rw, --hide...), not a
 * link that leads there. */
bool
policy_user_named(const struct policy *p, const char *path)
{
	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount *m = &p->mounts[i];
		const char *named = m->given ? m->given : m->dest;

		if (m->seq >= SEQ_USER && strcmp(named, path) == 0)
			return true;
	}
	return false;
}

/*
 * Whether a grant the user asked for shows host files at or below ABOVE
 * on the way to PATH (ABOVE itself, or a directory between the two): a
 * mask on ABOVE then does not keep PATH out of sight, since naming a
 * masked path lifts its mask and a grant below one shows what it holds.
 * BELOW: a grant inside PATH counts too (a walk of PATH must enter it).
 */
bool
policy_user_shows(const struct policy *p, const char *above, const char *path,
    bool below)
{
	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount *m = &p->mounts[i];

		if (m->seq >= SEQ_USER && policy_mount_from_host(m->kind) &&
		    util_path_within(m->dest, above) &&
		    (util_path_within(path, m->dest) ||
			(below && util_path_within(m->dest, path))))
			return true;
	}
	return false;
}

void
policy_add_env(struct policy *p, enum env_kind kind, const char *name,
    const char *value)
{
	struct envop *e;

	p->env = util_grow(p->env, p->nenv, &p->env_cap, sizeof(*p->env));
	e = &p->env[p->nenv++];
	e->kind = kind;
	e->name = name ? xstrdup(name) : NULL;
	e->value = value ? xstrdup(value) : NULL;
}

void
policy_add_keep_fd(struct policy *p, int fd)
{
	if (policy_keeps_fd(p, fd))
		return;
	p->keep_fds = util_grow(p->keep_fds, p->nkeep, &p->keep_cap,
	    sizeof(*p->keep_fds));
	p->keep_fds[p->nkeep++] = fd;
}

bool
policy_keeps_fd(const struct policy *p, int fd)
{
	for (size_t i = 0; i < p->nkeep; i++)
		if (p->keep_fds[i] == fd)
			return true;
	return false;
}

/*
 * bwrap applies mounts in argument order, a later one covering an earlier
 * one.  Sorting by depth first makes the more specific path win whatever
 * the option order; among equals the one given last wins.
 */
static int
mount_cmp(const void *a, const void *b)
{
	const struct mount *x = a, *y = b;
	size_t dx = util_path_depth(x->dest), dy = util_path_depth(y->dest);

	if (dx != dy)
		return dx < dy ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

/*
 * The value the command's environment gives NAME, INITIAL being the
 * launcher's own: --setenv, --unsetenv and --clearenv applied in order.
 */
const char *
policy_env_value(const struct policy *p, const char *name, const char *initial)
{
	const char *v = initial;

	for (size_t i = 0; i < p->nenv; i++) {
		const struct envop *e = &p->env[i];

		if (e->kind == ENV_CLEAR ||
		    (e->kind == ENV_UNSET && strcmp(e->name, name) == 0))
			v = NULL;
		else if (e->kind == ENV_SET && strcmp(e->name, name) == 0)
			v = e->value;
	}
	return v;
}

/* The mount that decides what the sandbox shows at PATH, or NULL. */
const struct mount *
policy_mount_for(const struct policy *p, const char *path)
{
	const struct mount *best = NULL;

	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount *m = &p->mounts[i];

		if (!util_path_within(path, m->dest))
			continue;
		if (best == NULL || mount_cmp(m, best) > 0)
			best = m;
	}
	return best;
}

/* Whether a mount of this kind shows host files (not a fresh one). */
bool
policy_mount_from_host(enum mount_kind kind)
{
	switch (kind) {
	case MOUNT_ROOT:
	case MOUNT_SYSTEM:
	case MOUNT_RO:
	case MOUNT_RW:
		return true;
	case MOUNT_SYMLINK:
	case MOUNT_DEV:
	case MOUNT_PROC:
	case MOUNT_TMP:
	case MOUNT_HIDE_DIR:
	case MOUNT_HIDE_FILE:
		break;
	}
	return false;
}

/* Whether directory PATH (absolute, normalised) can be entered inside. */
bool
policy_path_visible(const struct policy *p, const char *path)
{
	const struct mount *m = policy_mount_for(p, path);

	/* bwrap's own root always exists, even when nothing is bound on it. */
	if (strcmp(path, "/") == 0)
		return m == NULL || m->kind != MOUNT_HIDE_FILE;
	if (m == NULL)
		return false;
	switch (m->kind) {
	case MOUNT_ROOT:
	case MOUNT_SYSTEM:
	case MOUNT_RO:
	case MOUNT_RW:
		return true;
	case MOUNT_SYMLINK: {
		/* Follow the recreated link once, as the kernel would. */
		cleanup_free char *dir = NULL, *target = NULL;
		const char *rest = path + strlen(m->dest);
		bool ok;

		dir = xstrdup(m->dest);
		*strrchr(dir, '/') = '\0';
		target = xasprintf("%s/%s%s", dir[0] ? dir : "", m->src, rest);
		{
			cleanup_free char *norm = util_path_absolute(target,
			    "/");
			const struct mount *t = policy_mount_for(p, norm);

			ok = t != NULL && t->kind != MOUNT_SYMLINK &&
			    policy_path_visible(p, norm);
		}
		return ok;
	}
	case MOUNT_DEV:
	case MOUNT_PROC:
	case MOUNT_TMP:
	case MOUNT_HIDE_DIR:
		return strcmp(path, m->dest) == 0;
	case MOUNT_HIDE_FILE:
		return false;
	}
	return false;
}

static int
same_mount_cmp(const void *a, const void *b)
{
	const struct mount *x = *(const struct mount *const *)a;
	const struct mount *y = *(const struct mount *const *)b;
	int r = strcmp(x->dest, y->dest);

	if (r == 0)
		r = (int)x->kind - (int)y->kind;
	if (r == 0)
		r = strcmp(x->src ? x->src : "", y->src ? y->src : "");
	if (r == 0 && x->protection != y->protection)
		r = x->protection ? -1 : 1;
	if (r == 0 && x->seq != y->seq)
		r = x->seq < y->seq ? -1 : 1;
	return r;
}

static bool
same_mount(const struct mount *x, const struct mount *y)
{
	return x->kind == y->kind && x->protection == y->protection &&
	    strcmp(x->dest, y->dest) == 0 &&
	    strcmp(x->src ? x->src : "", y->src ? y->src : "") == 0;
}

/*
 * Drop every mount that a later, identical one (same kind, source and
 * place) covers: the sandbox is the same, and a generated policy that
 * names a file many times costs one mount, one descriptor and three of
 * bwrap's arguments for it, not one per mention.  O(n log n).
 */
static void
drop_repeated_mounts(struct policy *p)
{
	cleanup_free struct mount **by = xcalloc(p->nmounts, sizeof(*by));
	cleanup_free bool *drop = xcalloc(p->nmounts, sizeof(*drop));
	size_t kept = 0;

	for (size_t i = 0; i < p->nmounts; i++)
		by[i] = &p->mounts[i];
	qsort(by, p->nmounts, sizeof(*by), same_mount_cmp);
	for (size_t i = 0; i + 1 < p->nmounts; i++)
		if (same_mount(by[i], by[i + 1]))
			drop[by[i] - p->mounts] = true;
	for (size_t i = 0; i < p->nmounts; i++) {
		if (drop[i]) {
			free(p->mounts[i].dest);
			free(p->mounts[i].src);
			free(p->mounts[i].given);
			continue;
		}
		p->mounts[kept++] = p->mounts[i];
	}
	p->nmounts = kept;
}

/*
 * The loopback addresses and ports served inside the sandbox on the same
 * address and port (netpolicy_forwards()): at most
 * NETPOLICY_MAX_FORWARDS, and never the proxy's own.
 */
static int
check_forwards(const struct policy *p, struct sbox_error *err)
{
	struct np_forward f[NETPOLICY_MAX_FORWARDS];
	size_t n = netpolicy_forwards(&p->egress, f, N_ELEMENTS(f));

	if (n > N_ELEMENTS(f)) {
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "--allow-host: at most %d loopback addresses with a port, each served on the sandbox's own loopback",
		    NETPOLICY_MAX_FORWARDS);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (f[i].family == AF_INET && f[i].port == NETPROXY_PORT &&
		    memcmp(f[i].addr, "\x7f\0\0\x01", 4) == 0) {
			sbox_error_set(err, SBOX_INVALID_POLICY,
			    "--allow-host=127.0.0.1:%d: that port of the sandbox's loopback is its own proxy's; a proxy on the host is named with --upstream-proxy",
			    NETPROXY_PORT);
			return -1;
		}
	return 0;
}

/* Order the mounts and check what can only be checked on the whole. */
int
policy_finish(struct policy *p, struct sbox_error *err)
{
	if (p->nmounts > 0) {
		qsort(p->mounts, p->nmounts, sizeof(*p->mounts), mount_cmp);
		drop_repeated_mounts(p);
	}
	if (p->egress.n > 0 && p->net) {
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "--allow-host and --deny-host do not go with --net: the allow-list is the sandbox's only way out");
		return -1;
	}
	if (p->egress.n > 0 && !netpolicy_active(&p->egress)) {
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "--deny-host without --allow-host: there is nothing to carve it out of");
		return -1;
	}
	if (!p->net && check_forwards(p, err) < 0)
		return -1;
	if (p->chdir == NULL)
		p->chdir = xstrdup(p->cwd);
	if (!policy_path_visible(p, p->chdir)) {
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "working directory %s is not visible inside the sandbox (grant it with --ro or --rw, or choose another with --chdir)",
		    p->chdir);
		return -1;
	}
	return 0;
}

/*
 * Whether the launcher serves its proxy inside P's sandbox and points the
 * proxy variables at it: with --allow-host, and with the network off,
 * where it refuses every request and names the host (sbox-exec(1),
 * NETWORK BY NAME).  Not with --net.
 */
bool
policy_proxied(const struct policy *p)
{
	return !p->net;
}
