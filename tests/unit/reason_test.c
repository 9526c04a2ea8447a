/*
 * Unit tests of reason.c: bwrap's own words turned into a detail and the
 * right hint, one case per hint, with the messages bwrap writes.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "ready.h"
#include "sbox.h"
#include "tap.h"
#include "util.h"

/* Classify bwrap's STDERR; the hint must contain WANT (NULL: no hint). */
static void
hint_for(const char *stderr_text, const char *want, const char *name)
{
	struct ready_outcome o = { .bwrap_stderr = (char *)stderr_text,
		.reaped = true,
		.wait_status = 1 << 8 };
	struct sbox_error e = { 0 };

	reason_classify(&o, 10000, NULL, &e);
	if (want == NULL)
		ok(e.hint == NULL, "%s: no hint (got %s)", name,
		    e.hint ? e.hint : "none");
	else
		ok(e.hint != NULL && strstr(e.hint, want) != NULL,
		    "%s: hint about '%s' (got %s)", name, want,
		    e.hint ? e.hint : "none");
	sbox_error_clear(&e);
}

static void
test_hints(void)
{
	hint_for("bwrap: setting up uid map: Permission denied\n", "AppArmor",
	    "AppArmor's restriction on user namespaces");
	hint_for("bwrap: No permissions to creating new namespace, likely "
		 "because the kernel does not allow non-privileged user "
		 "namespaces. On e.g. debian this can be enabled with 'sysctl "
		 "kernel.unprivileged_userns_clone=1'.\n",
	    "unprivileged_userns_clone", "Debian's switch (bwrap 0.8)");
	hint_for("bwrap: No permissions to create a new namespace, likely "
		 "because the kernel does not allow non-privileged user "
		 "namespaces.\n",
	    "unprivileged_userns_clone", "Debian's switch (later bwrap)");
	hint_for("bwrap: Creating new namespace failed: No space left on "
		 "device\n",
	    "max_user_namespaces", "user namespaces used up");
	hint_for("bwrap: Creating new namespace failed: Operation not "
		 "permitted\n",
	    "not allowed", "user namespaces forbidden");
	hint_for("bwrap: loopback: Failed RTM_NEWADDR: Operation not "
		 "permitted\n",
	    "loopback", "no loopback in the network namespace");
	hint_for("bwrap: Can't find source path /x: No such file or "
		 "directory\n",
	    "could not be set up", "a missing path");
	hint_for("bwrap: Can't fork for pid 1: Resource temporarily "
		 "unavailable\n",
	    "limit on processes", "process limit at the fork for pid 1");
	hint_for("bwrap: Creating new namespace failed: Resource temporarily "
		 "unavailable\n",
	    "limit on processes", "process limit at clone");
	hint_for("bwrap: Can't open /proc/self/fd: Too many open files\n",
	    "limit on open files", "descriptor limit");
	hint_for("bwrap: Can't mount tmpfs on /newroot: Cannot allocate "
		 "memory\n",
	    "memory", "memory");
	hint_for("bwrap: something nobody foresaw\n", NULL, "unknown words");
}

static void
test_ends(void)
{
	struct ready_outcome o = { .bwrap_stderr = (char *)"",
		.reaped = true,
		.wait_status = SIGKILL };
	struct sbox_error e = { 0 };

	reason_classify(&o, 10000, NULL, &e);
	ok(strstr(e.detail, "killed by signal 9") != NULL &&
		strstr(e.detail, "before the sandbox was ready") != NULL,
	    "a killed bwrap is said to be killed: %s", e.detail);
	ok(e.hint == NULL, "no overload hint for a killed bwrap");
	sbox_error_clear(&e);

	o.reaped = false;
	o.timed_out = true;
	reason_classify(&o, 2500, NULL, &e);
	ok(strstr(e.detail, "not ready within 2.500 s") != NULL,
	    "a timeout says how long: %s", e.detail);
	ok(e.hint != NULL && strstr(e.hint, "--probe-timeout") != NULL,
	    "a timeout suggests --probe-timeout");
	sbox_error_clear(&e);

	{
		const struct reason_host many = { .bwrap = "/usr/bin/bwrap",
			.nmounts = REASON_MANY_MOUNTS + 1,
			.mount_max = 100000 };
		struct ready_outcome full = {
			.reaped = true,
			.bwrap_stderr =
			    "bwrap: Can't bind mount /oldroot/w/f9 on /newroot/w/f9: No space left on device\n"
		};

		reason_classify(&o, 10000, &many, &e);
		ok(e.hint != NULL && strstr(e.hint, "501 mounts") != NULL &&
			strstr(e.hint, "overloaded") == NULL,
		    "a timeout with many mounts names them: %s",
		    e.hint ? e.hint : "(none)");
		sbox_error_clear(&e);
		reason_classify(&full, 10000, &many, &e);
		ok(e.hint != NULL && strstr(e.hint, "fs.mount-max, 100000") &&
			strstr(e.hint, "user namespaces") == NULL,
		    "a mount without room names fs.mount-max: %s",
		    e.hint ? e.hint : "(none)");
		sbox_error_clear(&e);
	}

	ok(sbox_errno_hint(EAGAIN) != NULL &&
		strstr(sbox_errno_hint(EAGAIN), "processes") != NULL,
	    "EAGAIN: the process limit");
	ok(sbox_errno_hint(EMFILE) != NULL &&
		strstr(sbox_errno_hint(EMFILE), "open files") != NULL,
	    "EMFILE: the descriptor limit");
	ok(sbox_errno_hint(ENOENT) == NULL, "ENOENT: no hint");
}

/* Classify bwrap's STDERR on a host as HOST says; the detail and the hint
 * must hold DETAIL and HINT (NULL: not about AppArmor at all). */
static void
apparmor_case(const char *stderr_text, const struct reason_host *host,
    const char *detail, const char *hint, const char *name)
{
	struct ready_outcome o = { .bwrap_stderr = (char *)stderr_text,
		.reaped = true,
		.wait_status = 1 << 8 };
	struct sbox_error e = { 0 };

	reason_classify(&o, 10000, host, &e);
	if (detail == NULL)
		ok(strstr(e.detail, "bwrap-userns-restrict") == NULL,
		    "%s: not blamed on AppArmor's profile (%s)", name,
		    e.detail);
	else
		ok(strstr(e.detail, detail) != NULL && e.hint != NULL &&
			strstr(e.hint, hint) != NULL,
		    "%s: detail has '%s' (%s), hint has '%s' (%s)", name,
		    detail, e.detail, hint, e.hint ? e.hint : "none");
	sbox_error_clear(&e);
}

/* Ubuntu 23.10 and later: only /usr/bin/bwrap may create user
 * namespaces; a bundled copy is told why not and what to do. */
static void
test_apparmor(void)
{
	static const char
	    uidmap[] = "bwrap: setting up uid map: Permission denied\n";
	const struct reason_host bundled = { .apparmor_restricts_userns = true,
		.bwrap = "/opt/sbox/libexec/sbox-exec/bwrap" };
	const struct reason_host distro = { .apparmor_restricts_userns = true,
		.bwrap = "/usr/bin/bwrap" };
	const struct reason_host off = { .apparmor_restricts_userns = false,
		.bwrap = "/opt/sbox/libexec/sbox-exec/bwrap" };

	apparmor_case(uidmap, &bundled,
	    "bwrap: setting up uid map: Permission denied; AppArmor restricts unprivileged user namespaces here (kernel.apparmor_restrict_unprivileged_userns=1)",
	    "apt install bubblewrap", "the bundled bwrap: cause and remedy");
	apparmor_case(uidmap, &bundled,
	    "/opt/sbox/libexec/sbox-exec/bwrap, is not /usr/bin/bwrap",
	    "'abi <abi/4.0>,' 'include <tunables/global>' 'profile sbox-exec-bwrap \"/opt/sbox/libexec/sbox-exec/bwrap\" flags=(unconfined) {' '  userns,' '}' >/etc/apparmor.d/sbox-exec-bwrap && apparmor_parser -r /etc/apparmor.d/sbox-exec-bwrap",
	    "the bundled bwrap: the profile lines for its path");
	apparmor_case("bwrap: Creating new namespace failed: Permission "
		      "denied\n",
	    &bundled, "kernel.apparmor_restrict_unprivileged_userns=1",
	    "userns,", "refused at the namespace itself");
	apparmor_case(uidmap, &distro, NULL, NULL,
	    "/usr/bin/bwrap is covered: the general hint");
	hint_for(uidmap, "AppArmor", "the general hint stays");
	apparmor_case(uidmap, &off, NULL, NULL, "the restriction is off");
	apparmor_case("bwrap: Can't find source path /x: Permission denied\n",
	    &bundled, NULL, NULL, "a path, not a namespace");
	apparmor_case("bwrap: Creating new namespace failed: No space left "
		      "on device\n",
	    &bundled, NULL, NULL, "namespaces used up, not refused");
}

/* Inside an sbox-exec sandbox, whatever bwrap said, the refusal says
 * that (sbox-exec(1), ENVIRONMENT), not a sysctl to raise. */
static void
test_nested(void)
{
	const struct reason_host nested = { .bwrap = "/usr/bin/bwrap",
		.nested = true };
	const struct reason_host outside = { .bwrap = "/usr/bin/bwrap" };
	static const char *const said[] = {
		"bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)\n",
		"bwrap: setting up uid map: Permission denied\n",
		"bwrap: Creating new namespace failed: Operation not permitted\n",
	};

	for (size_t i = 0; i < N_ELEMENTS(said); i++) {
		struct ready_outcome o = { .bwrap_stderr = (char *)said[i],
			.reaped = true };
		struct sbox_error e = { 0 };

		reason_classify(&o, 10000, &nested, &e);
		ok(e.status == SBOX_PROBE_FAILED &&
			strstr(e.detail,
			    "running inside an sbox-exec sandbox") != NULL &&
			strstr(e.detail, "bwrap: ") != NULL && e.hint != NULL &&
			strstr(e.hint, "outside the sandbox") != NULL &&
			strstr(e.hint, "max_user_namespaces") == NULL,
		    "nested, bwrap said %zu: %s / %s", i, e.detail,
		    e.hint ? e.hint : "none");
		sbox_error_clear(&e);
		reason_classify(&o, 10000, &outside, &e);
		ok(strstr(e.detail, "inside an sbox-exec") == NULL,
		    "not nested, bwrap said %zu: not called nested", i);
		sbox_error_clear(&e);
	}
}

/* The lookup's refusal inside a sandbox (root's files look like another
 * user's there) is turned into the same plain words. */
static void
test_nested_lookup(void)
{
	struct sbox_error e = { 0 };

	sbox_error_set(&e, SBOX_BWRAP_UNTRUSTED, "x");
	sbox_error_hint(&e, "install bubblewrap");
	reason_nested("/usr/bin/bwrap: / is owned by a user other than root",
	    &e);
	ok(e.status == SBOX_PROBE_FAILED &&
		strcmp(e.detail,
		    "sbox-exec is running inside an sbox-exec sandbox, which allows no sandbox within it (/usr/bin/bwrap: / is owned by a user other than root)") ==
		    0 &&
		strstr(e.hint, "outside the sandbox") != NULL,
	    "the lookup's words in brackets, the hint replaced: %s / %s",
	    e.detail, e.hint);
	reason_nested(NULL, &e);
	ok(strcmp(e.detail,
	       "sbox-exec is running inside an sbox-exec sandbox, which allows no sandbox within it") ==
		0,
	    "nothing said: no brackets (%s)", e.detail);
	sbox_error_clear(&e);
}

/* The paths bwrap could not set up, from its words; WANT joined by '|'. */
static void
setup_paths(const char *text, const char *want)
{
	struct strv v = { 0 };
	struct buf b = { 0 };

	reason_setup_paths(text, &v);
	for (size_t i = 0; i < v.n; i++) {
		if (i > 0)
			buf_adds(&b, "|");
		buf_adds(&b, v.v[i]);
	}
	ok(strcmp(b.s ? b.s : "", want) == 0,
	    "setup paths of '%s': '%s' (got '%s')", text, want, b.s ? b.s : "");
	free(b.s);
	strv_clear(&v);
}

static void
test_setup_paths(void)
{
	setup_paths("bwrap: Can't mkdir /run/sbox-x: Read-only file system\n",
	    "/run/sbox-x");
	setup_paths(
	    "bwrap: Can't mkdir parents for /run/a b/s: Read-only file system\n",
	    "/run/a b/s");
	setup_paths(
	    "bwrap: Can't create file at /newroot/home/u/.netrc: No such file or directory\n",
	    "/home/u/.netrc");
	setup_paths(
	    "bwrap: Can't bind mount /oldroot/dev/null on /newroot/run/x/s: No such file or directory\n",
	    "/dev/null|/run/x/s");
	setup_paths("bwrap: Can't find source path /a:b: No such file\n",
	    "/a:b");
	setup_paths(
	    "first line\nbwrap: Can't mkdir /x: y\nbwrap: Can't mkdir /z: w",
	    "/x|/z");
	setup_paths(
	    "bwrap: Creating new namespace failed: No space left on device\n",
	    "");
	setup_paths("bwrap: Can't do it\n", "");
	setup_paths("", "");
}

int
main(void)
{
	test_setup_paths();
	test_nested();
	test_nested_lookup();
	test_hints();
	test_apparmor();
	test_ends();
	return tap_done();
}
