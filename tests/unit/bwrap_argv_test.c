/* Unit tests of bwrap_argv.c: the policy -> argv mapping. */
#include <stdlib.h>

#include "bwrap_argv.h"
#include "tap.h"

static char *
joined(const struct strv *sv)
{
	struct buf b = { 0 };

	for (size_t i = 0; i < sv->n; i++) {
		if (i)
			buf_addc(&b, ' ');
		buf_adds(&b, sv->v[i]);
	}
	return buf_steal(&b);
}

static void
test_host(void)
{
	struct policy p;
	struct sbox_error err = { 0 };
	struct strv sv = { 0 };
	char *cmd[] = { "make", "-j2", NULL };
	int empty[] = { 9 };
	struct bwargv_input in = { .bwrap = "/usr/bin/bwrap",
		.command = cmd,
		.empty_fds = empty,
		.nempty = 1 };
	char *s;

	policy_init(&p, "/w");
	/* Given in the "wrong" order on purpose. */
	policy_add_mount(&p, MOUNT_RO, "/w/.git", "/w/.git");
	policy_add_mount(&p, MOUNT_HIDE_FILE, "/w/.env", NULL);
	policy_add_mount(&p, MOUNT_HIDE_DIR, "/w/secret", NULL);
	policy_add_mount(&p, MOUNT_RW, "/w", "/real/w");
	policy_add_mount(&p, MOUNT_ROOT, "/", "/");
	policy_add_mount(&p, MOUNT_DEV, "/dev", NULL);
	policy_add_mount(&p, MOUNT_PROC, "/proc", NULL);
	policy_add_mount(&p, MOUNT_TMP, "/tmp", NULL);
	policy_add_env(&p, ENV_SET, "A", "1");
	policy_add_env(&p, ENV_CLEAR, NULL, NULL);
	policy_add_env(&p, ENV_UNSET, "B", NULL);
	ok(policy_finish(&p, &err) == 0, "policy accepted");
	ok(bwargv_empty_fds_needed(&p) == 1, "one hidden file needs one fd");
	bwargv_build(&p, &in, &sv);
	s = joined(&sv);
	is_str(s,
	    "/usr/bin/bwrap --unshare-user --unshare-pid --unshare-ipc "
	    "--unshare-uts --unshare-cgroup-try --unshare-net --cap-drop ALL "
	    "--new-session --die-with-parent "
	    "--ro-bind / / --dev /dev --proc /proc "
	    "--ro-bind /proc/sys /proc/sys --tmpfs /tmp "
	    "--bind /real/w /w "
	    "--ro-bind /w/.git /w/.git --ro-bind-data 9 /w/.env "
	    "--tmpfs /w/secret --remount-ro /w/secret "
	    "--setenv A 1 --clearenv --unsetenv B "
	    "--chdir /w -- make -j2",
	    "host policy, specific paths last, env in order");
	ok(sv.v[sv.n] == NULL, "argv is NULL-terminated");
	free(s);
	strv_clear(&sv);

	p.net = true;
	in.disable_userns = true;
	bwargv_build(&p, &in, &sv);
	s = joined(&sv);
	ok(strstr(s, "--unshare-net") == NULL, "--net shares the network");
	ok(strstr(s, " --disable-userns ") != NULL,
	    "nested user namespaces denied where bwrap can");
	ok(strstr(s, "--unshare-user ") != NULL, "user namespace explicit");
	free(s);
	strv_clear(&sv);
	policy_free(&p);
}

static void
test_minimal(void)
{
	struct policy p;
	struct sbox_error err = { 0 };
	struct strv sv = { 0 };
	char *cmd[] = { "true", NULL };
	struct bwargv_input in = { .bwrap = "bwrap", .command = cmd };
	char *s;

	policy_init(&p, "/");
	policy_add_mount(&p, MOUNT_SYSTEM, "/usr", "/usr");
	policy_add_mount(&p, MOUNT_SYMLINK, "/bin", "usr/bin");
	policy_add_mount(&p, MOUNT_DEV, "/dev", NULL);
	policy_add_mount(&p, MOUNT_PROC, "/proc", NULL);
	policy_add_mount(&p, MOUNT_TMP, "/tmp", NULL);
	ok(policy_finish(&p, &err) == 0, "minimal policy accepted from /");
	bwargv_build(&p, &in, &sv);
	s = joined(&sv);
	ok(strstr(s, "--ro-bind / /") == NULL, "no host root in minimal");
	ok(strstr(s, "--ro-bind /usr /usr --symlink usr/bin /bin") != NULL,
	    "system dirs bound, usrmerge links recreated");
	ok(strstr(s, "--seccomp") == NULL, "no filter, no --seccomp");
	free(s);
	strv_clear(&sv);
	in.seccomp = true;
	in.seccomp_fd = 7;
	bwargv_build(&p, &in, &sv);
	s = joined(&sv);
	ok(strstr(s, " --cap-drop ALL --seccomp 7 ") != NULL,
	    "the filter program named by its descriptor");
	free(s);
	strv_clear(&sv);
	policy_free(&p);
}

int
main(void)
{
	test_host();
	test_minimal();
	return tap_done();
}
