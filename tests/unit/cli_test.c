/*
 * Unit tests of cli.c and resolve.c: argv parsed into an invocation, then
 * resolved against this host as main.c does (no sandbox run).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "resolve.h"
#include "util.h"
#include "tap.h"

#define ARGV(...) ((char *[]){ "sbox-exec", __VA_ARGS__ __VA_OPT__(, ) NULL })

static int
parse(struct invocation *inv, char **argv)
{
	int argc = 0, r;

	while (argv[argc] != NULL)
		argc++;
	r = cli_parse(inv, argc, argv);
	if (inv->mode == MODE_HELP || inv->mode == MODE_VERSION)
		return r;
	return resolve_invocation(inv, NULL);
}

static void
test_basic(void)
{
	struct invocation inv;

	ok(parse(&inv, ARGV("--rw", ".", "--net", "--", "make", "-k")) == 0,
	    "plain run parses");
	ok(inv.mode == MODE_RUN && inv.policy.net, "mode and --net");
	is_str(inv.command[0], "make", "command after --");
	is_str(inv.command[1], "-k", "its arguments untouched");
	cli_free(&inv);

	ok(parse(&inv, ARGV("-w", ".", "make", "--rw", "x")) == 0,
	    "parsing stops at the first non-option");
	is_str(inv.command[1], "--rw", "later options belong to the command");
	cli_free(&inv);

	ok(parse(&inv, ARGV("--setenv", "A", "x y", "--unsetenv=B", "true")) ==
		    0 &&
		inv.policy.nenv == 2,
	    "--setenv takes two words");
	is_str(inv.policy.env[0].value, "x y", "value kept whole");
	cli_free(&inv);

	ok(parse(&inv, ARGV("--check", "--json")) == 0 &&
		inv.mode == MODE_CHECK && inv.json,
	    "--check --json");
	cli_free(&inv);
	ok(parse(&inv, ARGV("--probe-timeout=0.25", "true")) == 0 &&
		inv.probe_timeout_ms == 250,
	    "fractional timeout");
	cli_free(&inv);
}

static void
test_errors(void)
{
	static char *bad[][5] = {
		{ "--fs=other", "true" },
		{ "--rw=", "true" },
		{ "--keep-fd=x", "true" },
		{ "--keep-fd=-3", "true" },
		{ "--keep-fd=987654", "true" },
		{ "--probe-timeout=0", "true" },
		{ "--probe-timeout=nan", "true" },
		{ "--probe-timeout=1e9", "true" },
		{ "--setenv", "A" },
		{ "--setenv", "A=1", "x", "true" },
		{ "--unsetenv=", "true" },
		{ "--bogus", "true" },
		{ "-Z", "true" },
		{ "--check", "true" },
		{ "--print" },
		{ "--json", "true" },
		{ "--check", "--print" },
		{ "--profile=../x" },
	};

	for (size_t i = 0; i < N_ELEMENTS(bad); i++) {
		struct invocation inv;
		char *argv[7] = { "sbox-exec" };

		for (size_t j = 0; j < 5 && bad[i][j] != NULL; j++)
			argv[j + 1] = bad[i][j];
		ok(parse(&inv, argv) < 0 &&
			inv.err.status == SBOX_INVALID_POLICY &&
			inv.err.detail != NULL,
		    "refused: %s %s", bad[i][0], bad[i][1] ? bad[i][1] : "");
		cli_free(&inv);
	}
	{
		struct invocation inv;

		ok(parse(&inv, ARGV()) < 0, "no command is a usage error");
		cli_free(&inv);
		ok(parse(&inv, ARGV("--help", "--bogus")) < 0 &&
			inv.mode == MODE_HELP,
		    "--help still wins over errors");
		cli_free(&inv);
	}
}

/* cli_parse() alone reads argv only: what names the host is kept for
 * resolve_invocation(), in order. */
static void
test_pure(void)
{
	struct invocation inv;
	char *argv[] = { "sbox-exec", "--rw=/no/such/dir", "--net",
		"--policy=/no/such.policy", "--status-fd=987", "--", "true",
		NULL };

	ok(cli_parse(&inv, 6 + 1, argv) == 0 && inv.nrequests == 3 &&
		inv.requests[0].id == OPT_RW && inv.requests[1].id == OPT_NET &&
		inv.requests[2].id == OPT_POLICY && inv.nstatus_fds == 1 &&
		inv.status_fds[0] == 987 && inv.policy.nmounts == 0,
	    "cli_parse keeps paths, files and descriptors unlooked-at");
	ok(resolve_invocation(&inv, NULL) < 0 && inv.err.detail != NULL,
	    "resolve_invocation finds what is missing");
	cli_free(&inv);
}

/* The words a summary repeats (DENIALS in sbox-exec(1)): every option's
 * but those that only run the launcher, a cluster of letters whole. */
static void
test_again(void)
{
	struct invocation inv;
	char **argv = ARGV("--watch", "--learn", "f.policy", "-qv",
	    "--status-fd=2", "--setenv", "A", "x y", "--log-fd", "2", "-w.",
	    "--rw", "/a", "--", "make", "-k");
	int argc = 0;

	while (argv[argc] != NULL)
		argc++;
	ok(cli_parse(&inv, argc, argv) == 0, "parses");
	ok(inv.again.n == 7, "seven words kept");
	if (inv.again.n == 7) {
		is_str(inv.again.v[0], "-qv", "a cluster whole");
		is_str(inv.again.v[1], "--setenv", "--setenv");
		is_str(inv.again.v[2], "A", "its name");
		is_str(inv.again.v[3], "x y", "its value");
		is_str(inv.again.v[4], "-w.", "a letter with its value");
		is_str(inv.again.v[5], "--rw", "--rw");
		is_str(inv.again.v[6], "/a", "its value, and no --");
	}
	ok(inv.given.n == 3, "three given with values");
	if (inv.given.n == 3) {
		is_str(inv.given.v[0], "--setenv=A x y", "--setenv's two");
		is_str(inv.given.v[1], "--rw=.", "a letter by its name");
		is_str(inv.given.v[2], "--rw=/a", "--rw");
	}
	cli_free(&inv);
}

/*
 * resolve_invocation refuses a working directory the sandbox would not
 * show, and its /tmp is private: from a build tree under /tmp, parse
 * where tests/helpers.bash runs the bats files.
 */
static void
leave_tmp(void)
{
	char *cwd = getcwd(NULL, 0);
	const char *scratch = getenv("SBOX_TEST_SCRATCH");

	if (cwd != NULL && strncmp(cwd, "/tmp/", 5) == 0 &&
	    chdir(scratch != NULL ? scratch : "/var/tmp") != 0)
		exit(99);
	free(cwd);
}

int
main(void)
{
	leave_tmp();
	test_pure();
	test_basic();
	test_errors();
	test_again();
	return tap_done();
}
