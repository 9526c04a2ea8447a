/*
 * options.c - the tables and the help text made from SBOX_OPTIONS, and
 * the parsers of option values that need nothing but the value.
 *
 * Pure: MUST NOT look at the host (files, environment, descriptors).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "cache.h"
#include "netpolicy.h"
#include "upstream.h"
#include "options.h"
#include "util.h"

struct opt_info {
	const char *name;
	char letter;
	int arg;
	enum opt_scope scope;
	enum opt_section section;
	const char *help;
};

static const struct opt_info table[] = {
#define SBOX_OPTION_INFO(id, name, letter, arg, scope, section, help)          \
	[OPT_##id - OPT_NONE - 1] = { name, letter, arg, scope, section, help },
	SBOX_OPTIONS(SBOX_OPTION_INFO)
#undef SBOX_OPTION_INFO
};

static const struct option long_options[] = {
#define SBOX_OPTION_LONG(id, name, letter, arg, ...)                           \
	{ name, arg, NULL, OPT_##id },
	SBOX_OPTIONS(SBOX_OPTION_LONG)
#undef SBOX_OPTION_LONG
	    { NULL, 0, NULL, 0 },
};

static const char *const section_titles[] = {
	[SECTION_FILESYSTEM] = "Filesystem:",
	[SECTION_NETWORK] = "Network:",
	[SECTION_PROCESS] = "Process:",
	[SECTION_LAUNCHER] = "Launcher:",
};

/* The column where --help starts an option's description. */
#define HELP_COLUMN 27

static const struct opt_info *
info(enum opt_id id)
{
	if (id <= OPT_NONE || id >= OPT_END)
		return NULL;
	return &table[id - OPT_NONE - 1];
}

const struct option *
options_getopt_long(void)
{
	return long_options;
}

/* Leading '+': stop at the command.  Leading ':': we word the errors. */
const char *
options_getopt_short(void)
{
	static char s[3 + 2 * N_ELEMENTS(table)];

	if (s[0] == '\0') {
		size_t n = 0;

		s[n++] = '+';
		s[n++] = ':';
		for (size_t i = 0; i < N_ELEMENTS(table); i++) {
			if (table[i].letter == 0)
				continue;
			s[n++] = table[i].letter;
			if (table[i].arg == required_argument)
				s[n++] = ':';
		}
		s[n] = '\0';
	}
	return s;
}

/* The id of what getopt_long returned: a long option's id, or a letter. */
enum opt_id
options_from_getopt(int c)
{
	if (c > OPT_NONE && c < OPT_END)
		return (enum opt_id)c;
	for (size_t i = 0; c > 0 && i < N_ELEMENTS(table); i++)
		if (table[i].letter == c)
			return (enum opt_id)(OPT_NONE + 1 + i);
	return OPT_NONE;
}

/* A word of a policy file: "--name" or "-x".  *HAS_ARG says whether it
 * takes a value.  OPT_NONE when there is no such option. */
enum opt_id
options_lookup(const char *word, bool *has_arg)
{
	for (size_t i = 0; i < N_ELEMENTS(table); i++) {
		const struct opt_info *o = &table[i];

		if ((word[0] == '-' && word[1] == '-' &&
			strcmp(word + 2, o->name) == 0) ||
		    (word[0] == '-' && o->letter != 0 && word[1] == o->letter &&
			word[2] == '\0')) {
			*has_arg = o->arg == required_argument;
			return (enum opt_id)(OPT_NONE + 1 + i);
		}
	}
	return OPT_NONE;
}

/* The edit distance (insertions, deletions, substitutions) between A and
 * B, counted up to a cap: words longer than 64 bytes are never close. */
static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[65];

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j],
			       best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/*
 * The one of the N names CAND nearest to WORD, when it is near enough to
 * be what was meant, else NULL: a few letters off (at most a third of the
 * word, and at least one), or a name of three letters or more that WORD
 * starts with ("no-network" for "no-net").  A tie between two names at the
 * same distance suggests neither.
 */
const char *
options_nearest(const char *word, const char *const *cand, size_t n)
{
	size_t len = strlen(word), bound = len / 3 > 1 ? len / 3 : 1;
	size_t best_d = SIZE_MAX;
	const char *best = NULL;
	bool tie = false;

	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, cand[i]), clen = strlen(cand[i]);
		bool prefix = clen >= 3 && clen < len &&
		    strncmp(word, cand[i], clen) == 0;

		/* SIZE_MAX: too long to be near anything. */
		if (d == 0 || d == SIZE_MAX || (d > bound && !prefix))
			continue;
		if (d < best_d) {
			best_d = d;
			best = cand[i];
			tie = false;
		} else if (d == best_d && strcmp(best, cand[i]) != 0) {
			tie = true;
		}
	}
	return tie ? NULL : best;
}

/* The long option nearest to WORD ("--no-network", "no-network=1" or
 * "rw" in a policy file), for "did you mean"; NULL when none is near. */
const char *
options_suggest(const char *word)
{
	const char *names[N_ELEMENTS(table)];
	cleanup_free char *bare = NULL;

	word += strspn(word, "-");
	bare = xstrndup(word, strcspn(word, "="));
	for (size_t i = 0; i < N_ELEMENTS(table); i++) {
		/* The name itself with the dashes wrong ("rw", "---rw"). */
		if (strcmp(bare, table[i].name) == 0)
			return table[i].name;
		names[i] = table[i].name;
	}
	return bare[0] == '\0' ?
	    NULL :
	    options_nearest(bare, names, N_ELEMENTS(names));
}

const char *
options_name(enum opt_id id)
{
	const struct opt_info *o = info(id);

	return o ? o->name : "?";
}

enum opt_scope
options_scope(enum opt_id id)
{
	const struct opt_info *o = info(id);

	return o ? o->scope : SCOPE_ARGV;
}

/* One line of --help for option O written as LINE ("ARG\tTEXT"). */
static void
help_line(FILE *f, const struct opt_info *o, const char *line, size_t len)
{
	const char *tab = memchr(line, '\t', len);
	size_t arglen = tab ? (size_t)(tab - line) : 0;
	int width;

	if (o->letter != 0)
		width = fprintf(f, "  -%c, --%s%.*s", o->letter, o->name,
		    (int)arglen, line);
	else
		width = fprintf(f, "      --%s%.*s", o->name, (int)arglen,
		    line);
	if (tab == NULL)
		tab = line + len - 1;
	fprintf(f, "%*s%.*s\n", width < HELP_COLUMN ? HELP_COLUMN - width : 2,
	    "", (int)(line + len - tab - 1), tab + 1);
}

void
options_help(FILE *f)
{
	fputs(
	    "Usage: sbox-exec [OPTION]... [--] COMMAND [ARG]...\n"
	    "       sbox-exec --check [OPTION]...\n"
	    "       sbox-exec --print [OPTION]... [--] COMMAND [ARG]...\n"
	    "Run COMMAND inside a bubblewrap sandbox, or refuse (exit 125).\n",
	    f);
	for (size_t s = 0; s < N_ELEMENTS(section_titles); s++) {
		fprintf(f, "%s%s\n", s == 0 ? "\n" : "", section_titles[s]);
		for (size_t i = 0; i < N_ELEMENTS(table); i++) {
			const char *line = table[i].help;

			if (table[i].section != s)
				continue;
			while (*line != '\0') {
				size_t len = strcspn(line, "\n");

				help_line(f, &table[i], line, len);
				line += len + (line[len] == '\n');
			}
		}
	}
	fputs(
	    "\n"
	    "Exit status: the command's (128+N if killed by signal N); 125 if\n"
	    "sbox-exec refused; 126 if COMMAND cannot be executed; 127 if it is not\n"
	    "found; 124 if --timeout ended it.  With --check: 0 if the sandbox\n"
	    "can be created, else 125.\n"
	    "\n"
	    "Paths are taken literally: a missing one written with '*', '?' or '['\n"
	    "is refused, not expanded.\n"
	    "\n"
	    "See sbox-exec(1) for the status format and policy files.\n",
	    f);
}

/* Decimal digits, with at most one '.' and digits after it: what
 * strtod() takes besides (hexadecimal, exponents, "inf", blanks) is not
 * a duration. */
static bool
plain_decimal(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (s[n] == '.') {
		s += n + 1;
		n = strspn(s, "0123456789");
	}
	return n > 0 && s[n] == '\0';
}

/* A number of seconds above 0 and at most a day, into milliseconds. */
int
options_parse_seconds(const char *value, long *ms)
{
	char *end;
	double secs;

	errno = 0;
	secs = strtod(value, &end);
	if (!plain_decimal(value) || *end != '\0' || errno != 0 ||
	    !isfinite(secs) || secs <= 0 || secs > 86400)
		return -1;
	*ms = (long)ceil(secs * 1000);
	return 0;
}

/* A name --setenv and --unsetenv take: not empty, no '='. */
bool
options_env_name(const char *name)
{
	return name[0] != '\0' && strchr(name, '=') == NULL;
}

static bool
profile_name(const char *name)
{
	return name[0] != '\0' && strchr(name, '/') == NULL &&
	    strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* The numbers among the values: descriptors and durations. */
static char *
check_number(enum opt_id id, const char *name, const char *value)
{
	long long dur;
	long ms;
	int fd;

	if (id == OPT_PROBE_TIMEOUT)
		return options_parse_seconds(value, &ms) == 0 ?
		    NULL :
		    xasprintf(
			"--probe-timeout: '%s' is not a number of seconds between 0 and 86400",
			value);
	if (id == OPT_TIMEOUT || id == OPT_KILL_AFTER ||
	    id == OPT_NET_IDLE_TIMEOUT)
		return bounds_parse_duration(value, &dur) == 0 ?
		    NULL :
		    xasprintf(
			"--%s: '%s' is not a duration (a number of seconds above 0, or with s, m, h or d; at most 365d)",
			name, value);
	return util_parse_fd(value, &fd) == 0 ?
	    NULL :
	    xasprintf("--%s: '%s' is not a descriptor number", name, value);
}

/* --allow-host and --deny-host: a pattern; for a URL or a host with a
 * path, the refusal names the pattern meant. */
static char *
check_host(enum opt_id id, const char *name, const char *value)
{
	struct np_entry e;
	const char *why = netpolicy_parse(value, id == OPT_DENY_HOST, &e);
	char meant[NETPOLICY_NAME_MAX + 8];

	if (why == NULL)
		return NULL;
	if (netpolicy_suggest(value, meant, sizeof(meant)))
		return xasprintf("--%s: '%s': %s; use --%s=%s", name, value,
		    why, name, meant);
	return xasprintf("--%s: '%s': %s", name, value, why);
}

/* --upstream-proxy: "none" or a proxy URL without credentials.  The
 * refusal never quotes the value: it may hold a password. */
static char *
check_upstream(const char *value)
{
	struct upstream u;
	const char *why;

	if (strcmp(value, "none") == 0)
		return NULL;
	if ((why = upstream_parse(value, false, &u)) != NULL)
		return xasprintf("--upstream-proxy: %s", why);
	upstream_free(&u);
	return NULL;
}

/* --cache's NAME: NULL, or what is wrong with it. */
static char *
check_cache(const char *value)
{
	if (cache_name_ok(value))
		return NULL;
	return xasprintf(
	    "--cache: '%s' is not a cache name (letters, digits, '.', '_', '-', not starting with '.')",
	    value);
}

/*
 * Whether VALUE has the form option ID takes, wherever it was given:
 * NULL, or what is wrong, worded for the user (to be freed).  What the
 * value names on the host is resolve.c's to check.
 */
char *
options_check_value(enum opt_id id, const char *value)
{
	const char *name = options_name(id);

	switch (id) {
	case OPT_FS:
		if (strcmp(value, "host") != 0 && strcmp(value, "minimal") != 0)
			return xasprintf(
			    "--fs: '%s' is not 'host' or 'minimal'", value);
		return NULL;
	case OPT_RW:
	case OPT_RO:
	case OPT_HIDE:
	case OPT_RO_TRY:
	case OPT_RW_TRY:
	case OPT_RW_CREATE:
	case OPT_RW_CREATE_TRY:
	case OPT_ALLOW_SOCKET:
	case OPT_CHDIR:
	case OPT_BWRAP:
	case OPT_PROJECT:
	case OPT_LEARN:
	case OPT_UPSTREAM_PROXY_AUTH_FILE:
		return value[0] == '\0' ? xasprintf("--%s: empty path", name) :
					  NULL;
	case OPT_POLICY:
		return value[0] == '\0' ?
		    xasprintf("--policy: empty file name") :
		    NULL;
	case OPT_PROFILE:
		return profile_name(value) ?
		    NULL :
		    xasprintf("--profile: '%s' is not a profile name", value);
	case OPT_CACHE:
		return check_cache(value);
	case OPT_SETENV:
	case OPT_UNSETENV:
		return options_env_name(value) ?
		    NULL :
		    xasprintf("--%s: '%s' is not a variable name", name, value);
	case OPT_ALLOW_HOST:
	case OPT_DENY_HOST:
		return check_host(id, name, value);
	case OPT_UPSTREAM_PROXY:
		return check_upstream(value);
	case OPT_KEEP_FD:
	case OPT_STATUS_FD:
	case OPT_LOG_FD:
	case OPT_PROBE_TIMEOUT:
	case OPT_TIMEOUT:
	case OPT_KILL_AFTER:
	case OPT_NET_IDLE_TIMEOUT:
		return check_number(id, name, value);
	case OPT_LIMIT: {
		struct bounds b = { 0 };

		return bounds_parse_limit(value, &b);
	}
	case OPT_NONE:
	case OPT_WATCH:
	case OPT_NO_WATCH:
	case OPT_ALLOW_SETUID_FILES:
	case OPT_NO_NET:
	case OPT_NET:
	case OPT_CLEARENV:
	case OPT_TTY:
	case OPT_LSP:
	case OPT_TTY_UNFILTERED:
	case OPT_CHECK:
	case OPT_PRINT:
	case OPT_JSON:
	case OPT_STATUS_SOCKET:
	case OPT_QUIET:
	case OPT_VERBOSE:
	case OPT_HELP:
	case OPT_VERSION:
	case OPT_END:
		break;
	}
	return NULL;
}
