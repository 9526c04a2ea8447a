/*
 * Unit tests of policyfile.c: policy-file text lexed from strings, with
 * variables from a table, never from the host.
 */
#include <stdlib.h>
#include <string.h>

#include "policyfile.h"
#include "util.h"
#include "tap.h"

static const char *
lookup(const char *name, void *ctx)
{
	static const char *const vars[][2] = {
		{ "CWD", "/work/proj" },
		{ "HOME", "/home/u" },
		{ "EMPTY", "" },
	};

	(void)ctx;
	for (size_t i = 0; i < N_ELEMENTS(vars); i++)
		if (strcmp(vars[i][0], name) == 0)
			return vars[i][1];
	return NULL;
}

static const char *
star_lookup(const char *name, void *ctx)
{
	(void)ctx;
	return strcmp(name, "STAR") == 0 ? "/a*[b]?" : NULL;
}

/* Lex TEXT; the items as "id|value|value2|error|line" lines. */
static char *
lex(const char *text)
{
	cleanup_free char *copy = xstrdup(text);
	struct buf out = { 0 };
	struct policyfile pf;
	struct policyfile_item it = { 0 };

	buf_adds(&out, "");
	policyfile_init(&pf, copy, lookup, NULL);
	while (policyfile_next(&pf, &it) > 0)
		buf_addf(&out, "%s|%s|%s|%s|%lu\n",
		    it.error ? "-" : options_name(it.id),
		    it.value ? it.value : "", it.value2 ? it.value2 : "",
		    it.error ? it.error : "", pf.lineno);
	policyfile_item_clear(&it);
	return buf_steal(&out);
}

static void
check(const char *text, const char *want, const char *name)
{
	char *got = lex(text);

	is_str(got, want, name);
	free(got);
}

/* Whether the one item of TEXT was written as a pattern. */
static bool
glob_of(const char *text)
{
	cleanup_free char *copy = xstrdup(text);
	struct policyfile pf;
	struct policyfile_item it = { 0 };
	bool glob;

	policyfile_init(&pf, copy, lookup, NULL);
	glob = policyfile_next(&pf, &it) > 0 && it.error == NULL && it.glob;
	policyfile_item_clear(&it);
	return glob;
}

int
main(void)
{
	ok(glob_of("--hide **/.env\n") && glob_of("--ro ${HOME}/a?\n") &&
		glob_of("--rw-try [ab]\n"),
	    "'*', '?', '[' in the file's own text: a pattern");
	ok(!glob_of("--ro ${HOME}/x\n") && !glob_of("--ro /a\n"),
	    "no such character: no pattern");
	{
		char text[] = "--ro ${STAR}\n--ro x\n";
		struct policyfile pf;
		struct policyfile_item it = { 0 };
		bool first, second;

		policyfile_init(&pf, text, star_lookup, NULL);
		first = policyfile_next(&pf, &it) > 0 && it.glob;
		second = policyfile_next(&pf, &it) > 0 && it.glob;
		policyfile_item_clear(&it);
		ok(!first && !second,
		    "a variable's '*' is no pattern, and the mark does not carry over");
	}
	check("", "", "empty text: nothing");
	check("\n\n# comment\n   # indented comment\n\t\n", "",
	    "blank lines and comments: nothing");
	check("--rw .\n--ro=/etc\n  --hide   /x  \n",
	    "rw|.|||1\nro|/etc|||2\nhide|/x|||3\n",
	    "space, '=' and surrounding blanks");
	check("--net\r\n--tty\r\n", "net||||1\ntty||||2\n", "CRLF line ends");
	check("-w src\n-C /tmp\n", "rw|src|||1\nchdir|/tmp|||2\n",
	    "short options");
	check("--rw ${CWD}/build\n--ro ${HOME}/.cache/x${EMPTY}\n",
	    "rw|/work/proj/build|||1\nro|/home/u/.cache/x|||2\n",
	    "${CWD} and variables expanded");
	check("--setenv A  x ${HOME} y \n", "setenv|A|x /home/u y||1\n",
	    "--setenv: a name, then the rest expanded, trailing blanks cut");
	check("--setenv ${HOME} v\n", "setenv|${HOME}|v||1\n",
	    "--setenv's name is not expanded");
	check("--rw-try ${NOPE}/x\n--ro-try ${NOPE}\n--net\n", "net||||3\n",
	    "a -try grant of an unset variable is skipped");
	check("--rw ${NOPE}/x\n",
	    "-|||--rw: environment variable NOPE is not set|1\n",
	    "an unset variable elsewhere is an error");
	check("--rw ${HOME\n--rw ${}\n",
	    "-|||--rw: malformed ${...} in '${HOME'|1\n"
	    "-|||--rw: malformed ${...} in '${}'|2\n",
	    "malformed ${...}");
	check("--bogus\nrw .\n---rw .\n",
	    "-|||'--bogus' is not an option|1\n"
	    "-|||'rw' is not an option; did you mean '--rw'?|2\n"
	    "-|||'---rw' is not an option; did you mean '--rw'?|3\n",
	    "unknown words");
	check("--status-fd 3\n--check\n--bwrap /b\n--allow-setuid-files\n",
	    "-|||--status-fd belongs on the command line, not in a policy file|1\n"
	    "-|||--check belongs on the command line, not in a policy file|2\n"
	    "-|||--bwrap belongs on the command line, not in a policy file|3\n"
	    "-|||--allow-setuid-files belongs on the command line, not in a policy file|4\n",
	    "launcher options are argv only");
	check("--net yes\n--rw\n--rw=\n",
	    "-|||--net takes no value|1\n-|||--rw needs a value|2\n"
	    "-|||--rw needs a value|3\n",
	    "a value where none belongs, none where one must be");
	check("--policy other.policy\n--profile=rust\n",
	    "policy|other.policy|||1\nprofile|rust|||2\n",
	    "includes are options like the rest");
	check("--fs other\n--keep-fd x\n--setenv A=B v\n--profile ../p\n"
	      "--probe-timeout 0x10\n",
	    "-|||--fs: 'other' is not 'host' or 'minimal'|1\n"
	    "-|||--keep-fd: 'x' is not a descriptor number|2\n"
	    "-|||--setenv: 'A=B' is not a variable name|3\n"
	    "-|||--profile: '../p' is not a profile name|4\n"
	    "-|||--probe-timeout: '0x10' is not a number of seconds between 0 and 86400|5\n",
	    "values of the wrong form, as on the command line");
	check("--rw a\n--rw b", "rw|a|||1\nrw|b|||2\n",
	    "a last line without a newline");
	return tap_done();
}
