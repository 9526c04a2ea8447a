/* Unit tests of cli.c: argv parsing into an invocation (no sandbox run). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"
#include "tap.h"

#define ARGV(...) ((char *[]){ "sbox-exec", __VA_ARGS__ __VA_OPT__(, ) NULL })

static int
parse(struct invocation *inv, char **argv)
{
	int argc = 0;

	while (argv[argc] != NULL)
		argc++;
	return cli_parse(inv, argc, argv);
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

/*
 * cli_parse refuses a working directory the sandbox would not show, and
 * its /tmp is private: from a build tree under /tmp, parse where
 * tests/helpers.bash runs the bats files.
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
	test_basic();
	test_errors();
	return tap_done();
}
