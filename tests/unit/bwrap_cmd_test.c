/* Unit tests of bwrap_cmd.c: the policy -> argv mapping, and the numbers
 * the descriptors it is given get. */
#include <stdlib.h>

#include <fcntl.h>
#include <unistd.h>

#include "bwrap_cmd.h"
#include "tap.h"

static int
devnull(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

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
	cleanup_bwrap_cmd struct bwrap_cmd c = { 0 };
	char *cmd[] = { "make", "-j2", NULL };
	int hidden[] = { devnull() };
	struct bwrap_input in = { .program = "/usr/bin/bwrap",
		.hidden_fds = hidden,
		.nhidden = 1,
		.seccomp_fd = -1 };
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
	ok(bwrap_cmd_hidden_files(&p) == 1, "one hidden file needs one fd");
	bwrap_cmd_build(&c, &p, &in);
	bwrap_cmd_add_args(&c, cmd);
	ok(hidden[0] == -1, "the hidden file's descriptor taken");
	s = joined(&c.argv);
	is_str(s,
	    "/usr/bin/bwrap --unshare-user --unshare-pid --unshare-ipc "
	    "--unshare-uts --unshare-cgroup-try --unshare-net --cap-drop ALL "
	    "--new-session --die-with-parent "
	    "--ro-bind / / --dev /dev --proc /proc "
	    "--ro-bind /proc/sys /proc/sys --tmpfs /tmp "
	    "--bind /real/w /w "
	    "--ro-bind /w/.git /w/.git --ro-bind-data 3 /w/.env "
	    "--tmpfs /w/secret --remount-ro /w/secret "
	    "--setenv A 1 --clearenv --unsetenv B "
	    /* The network off: the launcher's proxy all the same, after
	     * the user's operations (no Java variable without a list). */
	    "--setenv HTTP_PROXY http://127.0.0.1:3128 "
	    "--setenv HTTPS_PROXY http://127.0.0.1:3128 "
	    "--setenv http_proxy http://127.0.0.1:3128 "
	    "--setenv https_proxy http://127.0.0.1:3128 "
	    "--setenv ALL_PROXY socks5h://127.0.0.1:3128 "
	    "--setenv all_proxy socks5h://127.0.0.1:3128 "
	    "--setenv NO_PROXY localhost,127.0.0.1,::1 "
	    "--setenv no_proxy localhost,127.0.0.1,::1 "
	    "--setenv NODE_USE_ENV_PROXY 1 "
	    "--chdir /w -- make -j2",
	    "host policy, specific paths last, env in order");
	ok(c.argv.v[c.argv.n] == NULL, "argv is NULL-terminated");
	free(s);
	bwrap_cmd_free(&c);

	p.net = true;
	in.disable_userns = true;
	bwrap_cmd_build(&c, &p, &in);
	s = joined(&c.argv);
	ok(strstr(s, "--unshare-net") == NULL, "--net shares the network");
	ok(strstr(s, " --disable-userns ") != NULL,
	    "nested user namespaces denied where bwrap can");
	ok(strstr(s, "--unshare-user ") != NULL, "user namespace explicit");
	free(s);
	bwrap_cmd_free(&c);

	/* Repeats: only what still counts reaches bwrap, in order. */
	for (int i = 0; i < 10000; i++) {
		char v[16];

		snprintf(v, sizeof(v), "%d", i);
		policy_add_env(&p, ENV_SET, "PATH", v);
		policy_add_env(&p, i % 2 ? ENV_SET : ENV_UNSET, "C", "c");
	}
	policy_add_env(&p, ENV_UNSET, "PATH", NULL);
	policy_add_env(&p, ENV_SET, "PATH", "/bin");
	bwrap_cmd_build(&c, &p, &in);
	s = joined(&c.argv);
	ok(strstr(s,
	       " --clearenv --unsetenv B --setenv C c --setenv PATH "
	       "/bin --chdir") != NULL,
	    "20 002 operations: the last of each name: %s",
	    strstr(s, "--clearenv"));
	ok(strstr(s, "--setenv A 1 --clearenv --unsetenv B --setenv C") != NULL,
	    "the others as they were");
	free(s);
	policy_free(&p);
}

static void
test_minimal(void)
{
	struct policy p;
	struct sbox_error err = { 0 };
	cleanup_bwrap_cmd struct bwrap_cmd c = { 0 };
	struct bwrap_input in = { .program = "bwrap", .seccomp_fd = -1 };
	char *s;

	policy_init(&p, "/");
	policy_add_mount(&p, MOUNT_SYSTEM, "/usr", "/usr");
	policy_add_mount(&p, MOUNT_SYMLINK, "/bin", "usr/bin");
	policy_add_mount(&p, MOUNT_DEV, "/dev", NULL);
	policy_add_mount(&p, MOUNT_PROC, "/proc", NULL);
	policy_add_mount(&p, MOUNT_TMP, "/tmp", NULL);
	ok(policy_finish(&p, &err) == 0, "minimal policy accepted from /");
	bwrap_cmd_build(&c, &p, &in);
	s = joined(&c.argv);
	ok(strstr(s, "--ro-bind / /") == NULL, "no host root in minimal");
	ok(strstr(s, "--ro-bind /usr /usr --symlink usr/bin /bin") != NULL,
	    "system dirs bound, usrmerge links recreated");
	ok(strstr(s, "--seccomp") == NULL, "no filter, no --seccomp");
	free(s);
	bwrap_cmd_free(&c);
	in.seccomp_fd = devnull();
	bwrap_cmd_build(&c, &p, &in);
	s = joined(&c.argv);
	ok(strstr(s, " --cap-drop ALL --seccomp 3 ") != NULL,
	    "the filter program named by its number");
	free(s);
	policy_free(&p);
}

/*
 * Numbers: the hidden files' from 3, then the filter's, then the binds',
 * stepping around the descriptors kept as they are, whatever the order of
 * the words; the child gets exactly those numbers.
 */
static void
test_numbers(void)
{
	struct policy p;
	struct sbox_error err = { 0 };
	cleanup_bwrap_cmd struct bwrap_cmd c = { 0 };
	int hidden[] = { devnull(), devnull() };
	int bind[3] = { -1, -1, -1 };
	struct bwrap_input in = { .program = "bwrap",
		.hidden_fds = hidden,
		.nhidden = 2,
		.bind_fds = bind,
		.nbind = 3 };
	int extra = devnull(), t;
	char *s;

	policy_init(&p, "/");
	policy_add_mount(&p, MOUNT_RO, "/r", "/r");
	policy_add_mount(&p, MOUNT_HIDE_FILE, "/a", NULL);
	policy_add_mount(&p, MOUNT_HIDE_FILE, "/b", NULL);
	ok(policy_finish(&p, &err) == 0, "policy accepted");
	in.seccomp_fd = devnull();
	for (size_t i = 0; i < p.nmounts; i++)
		if (p.mounts[i].kind == MOUNT_RO)
			bind[i] = devnull();
	bwrap_cmd_keep_fd(&c, 4, "kept");
	bwrap_cmd_keep_fd(&c, 4, "kept twice");
	bwrap_cmd_build(&c, &p, &in);
	t = bwrap_cmd_take_fd(&c, &extra, "one more");
	s = joined(&c.argv);
	ok(strstr(s, "--seccomp 6 ") != NULL,
	    "the filter after the hidden files");
	ok(strstr(s, "--ro-bind-data 3 /a --ro-bind-data 5 /b") != NULL,
	    "hidden files from 3, stepping around a kept 4");
	ok(strstr(s, "--ro-bind-fd 7 /r") != NULL, "the bind after the filter");
	ok(t == 8 && extra == -1, "one taken afterwards: the next number");
	ok(c.nfds == 6, "six descriptors, the kept one once");
	free(s);
	bwrap_cmd_finish(&c);
	ok(c.floor == 9, "copies go above every number");
	ok(c.targets[0] == 3 && c.targets[1] == 4 && c.targets[5] == 8,
	    "the numbers that survive exec, sorted");
	bwrap_cmd_close_fds(&c);
	ok(c.fds[1].fd == -1 && c.fds[0].fd == 4,
	    "closing closes ours, not the kept one");
	policy_free(&p);
}

/* No descriptors at all (--print's line): a hidden file is the host's
 * /dev/null, bound so that it can be opened, and nothing names a number. */
static void
test_for_shell(void)
{
	struct policy p;
	struct sbox_error err = { 0 };
	cleanup_bwrap_cmd struct bwrap_cmd c = { 0 };
	struct bwrap_input in = { .program = "bwrap", .seccomp_fd = -1 };
	char *s;

	policy_init(&p, "/");
	policy_add_mount(&p, MOUNT_ROOT, "/", "/");
	policy_add_mount(&p, MOUNT_HIDE_FILE, "/w/.env", NULL);
	policy_add_mount(&p, MOUNT_HIDE_FILE, "/etc/shadow", NULL);
	ok(policy_finish(&p, &err) == 0, "policy accepted");
	bwrap_cmd_build(&c, &p, &in);
	s = joined(&c.argv);
	ok(strstr(s, "--dev-bind /dev/null /etc/shadow") != NULL &&
		strstr(s, "--dev-bind /dev/null /w/.env") != NULL,
	    "hidden files without descriptors: /dev/null bound over them");
	ok(strstr(s, "--ro-bind-data") == NULL &&
		strstr(s, "--seccomp") == NULL,
	    "no descriptor named");
	ok(c.nfds == 0, "no descriptor taken");
	free(s);
	policy_free(&p);
}

int
main(void)
{
	test_host();
	test_minimal();
	test_numbers();
	test_for_shell();
	return tap_done();
}
