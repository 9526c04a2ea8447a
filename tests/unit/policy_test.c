/* Unit tests of policy.c and the path helpers in util.c. */
#include <stdio.h>
#include <stdlib.h>

#include "policy.h"
#include "tap.h"
#include "util.h"

static void
test_paths(void)
{
	struct {
		const char *in, *cwd, *want;
	} cases[] = {
		{ "a", "/w", "/w/a" },
		{ "./a/", "/w", "/w/a" },
		{ ".", "/w", "/w" },
		{ "..", "/w", "/" },
		{ "../../..", "/w/x", "/" },
		{ "/a//b/./c/../d", "/w", "/a/b/d" },
		{ "/", "/w", "/" },
		{ "a b/\n", "/w", "/w/a b/\n" },
	};

	for (size_t i = 0; i < N_ELEMENTS(cases); i++) {
		char *got = util_path_absolute(cases[i].in, cases[i].cwd);

		is_str(got, cases[i].want, "util_path_absolute");
		free(got);
	}
	{
		const char *join[][3] = {
			{ "/run", "dbus", "/run/dbus" },
			{ "/", ".ssh", "/.ssh" },
			{ "/w/", ".git", "/w/.git" },
			{ "/h", ".config/gcloud", "/h/.config/gcloud" },
		};

		for (size_t i = 0; i < N_ELEMENTS(join); i++) {
			char *got = util_path_join(join[i][0], join[i][1]);

			is_str(got, join[i][2], "util_path_join");
			free(got);
		}
	}
	ok(util_path_depth("/") == 0, "depth of /");
	ok(util_path_depth("/a/b") == 2, "depth of /a/b");
	ok(util_path_within("/a/b", "/a"), "/a/b within /a");
	ok(util_path_within("/a", "/a"), "/a within /a");
	ok(!util_path_within("/ab", "/a"), "/ab not within /a");
	ok(util_path_within("/x", "/"), "everything within /");
}

/* A more specific mount sorts after a less specific one, whatever order. */
static void
test_order(void)
{
	struct policy p;
	struct sbox_error err = { 0 };

	policy_init(&p, "/w");
	policy_add_mount(&p, MOUNT_RO, "/w/.git", "/w/.git");
	policy_add_mount(&p, MOUNT_RW, "/w", "/w");
	policy_add_mount(&p, MOUNT_ROOT, "/", "/");
	policy_add_mount(&p, MOUNT_TMP, "/tmp", NULL);
	ok(policy_finish(&p, &err) == 0, "policy_finish accepts cwd under rw");
	is_str(p.mounts[0].dest, "/", "root first");
	is_str(p.mounts[1].dest, "/tmp",
	    "base mount before user mount of equal depth");
	is_str(p.mounts[2].dest, "/w", "rw dir next");
	is_str(p.mounts[3].dest, "/w/.git", "ro sub-path last");
	ok(policy_mount_for(&p, "/w/.git/hooks")->kind == MOUNT_RO,
	    "the sub-path decides below it");
	ok(policy_mount_for(&p, "/w/src")->kind == MOUNT_RW,
	    "the rw dir decides elsewhere");
	policy_free(&p);
	sbox_error_clear(&err);
}

static void
test_visible(void)
{
	struct policy p;
	struct sbox_error err = { 0 };

	policy_init(&p, "/tmp/work");
	policy_add_mount(&p, MOUNT_ROOT, "/", "/");
	policy_add_mount(&p, MOUNT_TMP, "/tmp", NULL);
	policy_add_mount(&p, MOUNT_HIDE_DIR, "/srv", NULL);
	policy_add_mount(&p, MOUNT_HIDE_FILE, "/etc/passwd", NULL);
	ok(!policy_path_visible(&p, "/tmp/work"), "under private /tmp: hidden");
	ok(policy_path_visible(&p, "/tmp"), "/tmp itself exists");
	ok(!policy_path_visible(&p, "/srv/x"), "under a hidden dir: hidden");
	ok(policy_path_visible(&p, "/srv"), "the hidden dir itself exists");
	ok(policy_path_visible(&p, "/usr/bin"), "host root: visible");
	ok(policy_finish(&p, &err) != 0 && err.status == SBOX_INVALID_POLICY,
	    "an invisible working directory is refused");
	policy_free(&p);
	sbox_error_clear(&err);

	/* Minimal: only what is bound; usrmerge links are followed. */
	policy_init(&p, "/");
	policy_add_mount(&p, MOUNT_SYSTEM, "/usr", "/usr");
	policy_add_mount(&p, MOUNT_SYMLINK, "/bin", "usr/bin");
	ok(policy_path_visible(&p, "/bin"), "a usrmerge link to a bound dir");
	ok(!policy_path_visible(&p, "/home"), "nothing else");
	ok(policy_path_visible(&p, "/"), "the root always exists");
	policy_free(&p);
}

/* A mount repeated later is made once, where its last mention puts it;
 * a different mount in between still yields to the last one. */
static void
test_repeated(void)
{
	struct policy p;
	struct sbox_error err = { 0 };
	size_t ro = 0, rw = 0;

	policy_init(&p, "/w");
	policy_add_mount(&p, MOUNT_ROOT, "/", "/");
	for (int i = 0; i < 5000; i++) {
		char dest[32];

		snprintf(dest, sizeof(dest), "/w/f%d", i % 100);
		policy_add_mount(&p, MOUNT_RO, dest, dest);
	}
	policy_add_mount(&p, MOUNT_RW, "/w/f1", "/w/f1");
	policy_add_mount(&p, MOUNT_RO, "/w/f2", "/w/f2");
	policy_add_mount(&p, MOUNT_RW, "/w/f2", "/w/f2");
	ok(policy_finish(&p, &err) == 0, "a long policy finishes");
	ok(p.nmounts == 1 + 100 + 2, "one mount per distinct one: %zu",
	    p.nmounts);
	for (size_t i = 0; i < p.nmounts; i++) {
		ro += p.mounts[i].kind == MOUNT_RO;
		rw += p.mounts[i].kind == MOUNT_RW;
	}
	ok(ro == 100 && rw == 2, "ro %zu, rw %zu", ro, rw);
	ok(policy_mount_for(&p, "/w/f1")->kind == MOUNT_RW,
	    "the later rw still decides /w/f1");
	ok(policy_mount_for(&p, "/w/f2")->kind == MOUNT_RW,
	    "the last of ro, ro, rw decides /w/f2");
	ok(policy_mount_for(&p, "/w/f3")->kind == MOUNT_RO, "ro once");
	policy_free(&p);
	sbox_error_clear(&err);
}

/* The command's PATH, for the lookup outside (sbox-exec(1), DESCRIPTION). */
static void
test_env_value(void)
{
	struct policy p;

	policy_init(&p, "/");
	is_str(policy_env_value(&p, "PATH", "/usr/bin"), "/usr/bin",
	    "no operation: the launcher's own");
	policy_add_env(&p, ENV_SET, "PATH", "/opt/bin");
	policy_add_env(&p, ENV_SET, "PATHX", "/no");
	is_str(policy_env_value(&p, "PATH", "/usr/bin"), "/opt/bin",
	    "--setenv PATH, another name left alone");
	policy_add_env(&p, ENV_UNSET, "PATH", NULL);
	ok(policy_env_value(&p, "PATH", "/usr/bin") == NULL, "--unsetenv PATH");
	policy_add_env(&p, ENV_SET, "PATH", "/a");
	policy_add_env(&p, ENV_CLEAR, NULL, NULL);
	ok(policy_env_value(&p, "PATH", "/usr/bin") == NULL,
	    "--clearenv after --setenv");
	policy_free(&p);
}

/* The loopback addresses served inside: at most 16, never the proxy's
 * own 127.0.0.1:3128 (other loopback addresses may use that port). */
static int
finish_with(const char *const *allow, size_t n, struct sbox_error *err)
{
	struct policy p;
	int rc;

	policy_init(&p, "/");
	policy_add_mount(&p, MOUNT_ROOT, "/", "/");
	for (size_t i = 0; i < n; i++)
		ok(netpolicy_add(&p.egress, allow[i], false) == NULL,
		    "allow %s", allow[i]);
	rc = policy_finish(&p, err);
	policy_free(&p);
	return rc;
}

static void
test_forwards(void)
{
	static const char *const proxy[] = { "127.0.0.1:3128" };
	static const char *const others[] = { "[::1]:3128", "127.0.0.2:3128",
		"127.0.0.1:80", "127.0.0.0/8:3128" };
	char many[17][32];
	const char *allow[17];
	struct sbox_error err = { 0 };

	ok(finish_with(proxy, 1, &err) < 0 &&
		err.status == SBOX_INVALID_POLICY &&
		strstr(err.detail, "its own proxy's") != NULL,
	    "127.0.0.1:3128 refused: %s", err.detail ? err.detail : "");
	sbox_error_clear(&err);
	ok(finish_with(others, N_ELEMENTS(others), &err) == 0,
	    "3128 of another loopback address, and entries not served inside");
	sbox_error_clear(&err);
	for (size_t i = 0; i < 17; i++) {
		snprintf(many[i], sizeof(many[i]), "127.0.0.1:%zu", 8000 + i);
		allow[i] = many[i];
	}
	ok(finish_with(allow, 16, &err) == 0, "16 served inside");
	sbox_error_clear(&err);
	ok(finish_with(allow, 17, &err) < 0 &&
		err.status == SBOX_INVALID_POLICY &&
		strstr(err.detail, "at most 16") != NULL,
	    "17 refused: %s", err.detail ? err.detail : "");
	sbox_error_clear(&err);
}

int
main(void)
{
	test_forwards();
	test_paths();
	test_order();
	test_visible();
	test_repeated();
	test_env_value();
	return tap_done();
}
