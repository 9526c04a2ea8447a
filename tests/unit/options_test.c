/*
 * Unit tests of options.c: the tables made from SBOX_OPTIONS agree with
 * each other and with --help.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "util.h"
#include "tap.h"

static char *
help_text(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	options_help(f);
	fclose(f);
	return text;
}

int
main(void)
{
	const struct option *lo = options_getopt_long();
	const char *so = options_getopt_short();
	cleanup_free char *help = help_text();
	size_t n = 0;
	bool all_ok = true;

	for (; lo[n].name != NULL; n++) {
		enum opt_id id = (enum opt_id)lo[n].val;
		char word[64], brief[64];
		bool has_arg = false;

		snprintf(word, sizeof(word), "--%s", lo[n].name);
		snprintf(brief, sizeof(brief), "  --%s", lo[n].name);
		if (id <= OPT_NONE || id >= OPT_END ||
		    strcmp(options_name(id), lo[n].name) != 0 ||
		    options_lookup(word, &has_arg) != id ||
		    has_arg != (lo[n].has_arg == required_argument) ||
		    options_from_getopt(lo[n].val) != id) {
			ok(0, "%s: id, name and lookup agree", word);
			all_ok = false;
		}
		if (strstr(help, word) == NULL) {
			ok(0, "%s is in --help", word);
			all_ok = false;
		}
	}
	ok(all_ok, "every long option: id, name, lookup and --help agree");
	ok(n == OPT_END - OPT_NONE - 1, "one getopt entry per option (%zu)", n);
	ok(strncmp(so, "+:", 2) == 0, "getopt stops at the command, quietly");
	for (const char *p = so + 2; *p != '\0'; p++) {
		char word[3] = { '-', *p, '\0' };
		bool has_arg = false;
		enum opt_id id;

		if (*p == ':')
			continue;
		id = options_lookup(word, &has_arg);
		ok(id != OPT_NONE && options_from_getopt(*p) == id &&
			has_arg == (p[1] == ':'),
		    "-%c is the option it stands for", *p);
	}
	ok(options_from_getopt('?') == OPT_NONE &&
		options_from_getopt(':') == OPT_NONE &&
		options_from_getopt('x') == OPT_NONE,
	    "getopt's '?' and ':' and unknown letters are no option");
	ok(options_lookup("-", &(bool){ 0 }) == OPT_NONE &&
		options_lookup("--", &(bool){ 0 }) == OPT_NONE &&
		options_lookup("-wx", &(bool){ 0 }) == OPT_NONE &&
		options_lookup("--r", &(bool){ 0 }) == OPT_NONE,
	    "no option for '-', '--', '-wx' or a prefix");
	ok(options_scope(OPT_STATUS_FD) == SCOPE_ARGV &&
		options_scope(OPT_RW) == SCOPE_ANYWHERE &&
		options_scope(OPT_POLICY) == SCOPE_INCLUDE,
	    "scopes");
	ok(strstr(help, "  -w, --rw=PATH            make PATH writable") !=
		    NULL &&
		strstr(help, "      --fs=minimal         only the system") !=
		    NULL &&
		strstr(help,
		    "      --probe-timeout=SECONDS  give up creating") != NULL,
	    "help lines: letters, both forms of --fs, long names");
	{
		long ms = 0;

		ok(options_parse_seconds("0.25", &ms) == 0 && ms == 250 &&
			options_parse_seconds("86400", &ms) == 0 &&
			options_parse_seconds("0", &ms) < 0 &&
			options_parse_seconds("0x10", &ms) < 0 &&
			options_parse_seconds("1e3", &ms) < 0 &&
			options_parse_seconds(" 1", &ms) < 0 &&
			options_parse_seconds("1.", &ms) < 0 &&
			options_parse_seconds("86400.001", &ms) < 0 &&
			options_parse_seconds("inf", &ms) < 0,
		    "seconds: plain decimals above 0, at most a day");
	}
	ok(options_env_name("A_1") && !options_env_name("") &&
		!options_env_name("A=B"),
	    "variable names");
	/* The nearest option or profile (sbox-exec(1), OPTIONS). */
	is_str(options_suggest("--no-network"), "no-net", "--no-network");
	is_str(options_suggest("--no-network=1"), "no-net", "with a value");
	is_str(options_suggest("--prifile"), "profile", "one letter off");
	is_str(options_suggest("--alow-host"), "allow-host", "one missing");
	is_str(options_suggest("--ro_try"), "ro-try", "'_' for '-'");
	is_str(options_suggest("--network"), "net", "a longer word");
	ok(options_suggest(
	       "--no-net-and-then-a-very-long-tail-that-goes-on-past-64-bytes-xxxxxx") ==
		NULL,
	    "a word past 64 bytes: no suggestion, even after a name");
	ok(options_suggest("--xyzzy") == NULL &&
		options_suggest("--") == NULL &&
		options_suggest("--zz") == NULL,
	    "nothing near: no suggestion");
	is_str(options_suggest("rw"), "rw", "a name without its dashes");
	is_str(options_suggest("---rw"), "rw", "a name with three dashes");
	{
		static const char *const profiles[] = { "clangd", "npm", "pip",
			"cargo", "gopls", "clangd" };
		static const char *const tie[] = { "ab1", "ab2" };

		is_str(options_nearest("clang", profiles, 6), "clangd",
		    "--profile=clang: clangd (listed twice)");
		is_str(options_nearest("np", profiles, 6), "npm",
		    "short names: one letter");
		ok(options_nearest("xyz", profiles, 6) == NULL,
		    "no profile near");
		ok(options_nearest("ab", tie, 2) == NULL, "a tie: neither");
		ok(options_nearest("x", profiles, 0) == NULL, "no names");
	}
	return tap_done();
}
