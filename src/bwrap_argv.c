/*
 * bwrap_argv.c - policy -> bwrap arguments.
 *
 * MUST: create a new user namespace explicitly (--unshare-user: as root
 * inside a user namespace --unshare-all quietly skips it); drop every
 * capability, root included (root with CAP_SYS_ADMIN inside could remount
 * the read-only root writable); emit mounts in the policy's order, which
 * makes the more specific path win.  MUST NOT do I/O.
 */
#include "config.h"

#include <string.h>

#include "bwrap_argv.h"

size_t
bwargv_empty_fds_needed(const struct policy *p)
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
add_bind(struct strv *sv, bool ro, const struct mount *m, int fd)
{
	if (fd >= 0) {
		strv_add(sv, ro ? "--ro-bind-fd" : "--bind-fd");
		strv_addf(sv, "%d", fd);
	} else {
		strv_add(sv, ro ? "--ro-bind" : "--bind");
		strv_add(sv, m->src);
	}
	strv_add(sv, m->dest);
}

static void
add_mount(struct strv *sv, const struct mount *m, int bind_fd,
    const int **empty, const int *empty_end)
{
	switch (m->kind) {
	case MOUNT_ROOT:
	case MOUNT_SYSTEM:
	case MOUNT_RO:
		add_bind(sv, true, m, bind_fd);
		break;
	case MOUNT_RW:
		add_bind(sv, false, m, bind_fd);
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
		/* An empty file: bwrap copies the descriptor's (no) data. */
		strv_add(sv, "--ro-bind-data");
		strv_addf(sv, "%d", *empty < empty_end ? *(*empty)++ : -1);
		strv_add(sv, m->dest);
		break;
	}
}

void
bwargv_build(const struct policy *p, const struct bwargv_input *in,
    struct strv *sv)
{
	const int *empty = in->empty_fds;
	const int *empty_end = in->empty_fds + in->nempty;

	strv_add(sv, in->bwrap);
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
	if (in->seccomp) {
		strv_add(sv, "--seccomp");
		strv_addf(sv, "%d", in->seccomp_fd);
	}
	/*
	 * No controlling terminal of the caller's: the command could push
	 * keystrokes into it, and take its foreground.  With --tty stage two
	 * makes the sandbox's own terminal the controlling one instead.
	 */
	strv_add(sv, "--new-session");
	strv_add(sv, "--die-with-parent");

	for (size_t i = 0; i < p->nmounts; i++)
		add_mount(sv, &p->mounts[i],
		    in->bind_fds ? in->bind_fds[i] : -1, &empty, empty_end);
	/*
	 * Hidden directories go read-only last: something granted below one
	 * needs its mount point made first.
	 */
	for (size_t i = 0; i < p->nmounts; i++)
		if (p->mounts[i].kind == MOUNT_HIDE_DIR) {
			strv_add(sv, "--remount-ro");
			strv_add(sv, p->mounts[i].dest);
		}

	for (size_t i = 0; i < p->nenv; i++) {
		const struct envop *e = &p->env[i];

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

	strv_add(sv, "--chdir");
	strv_add(sv, p->chdir);
	strv_add(sv, "--");
	for (char *const *a = in->command; *a != NULL; a++)
		strv_add(sv, *a);
}
