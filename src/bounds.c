/*
 * bounds.c - durations and resource limits: parsed, written for stage two,
 * read back there, and rendered for the status (bounds.h).
 *
 * MUST: take only what the manual page's TIMEOUT AND LIMITS section
 * documents and refuse everything else with a message naming the option;
 * bounds_decode() refuses every word bounds_encode() would not write,
 * since stage two acts on it.  MUST NOT do I/O, print or exit.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"

static const struct {
	const char *name;
	int resource;
	bool size;    /* takes K, M and G */
	bool zero_ok; /* 0 means something */
} table[BOUND_N] = {
	[BOUND_CPU] = { "cpu", RLIMIT_CPU, false, false },
	[BOUND_FSIZE] = { "fsize", RLIMIT_FSIZE, true, true },
	[BOUND_NOFILE] = { "nofile", RLIMIT_NOFILE, false, false },
	[BOUND_NPROC] = { "nproc", RLIMIT_NPROC, false, false },
	[BOUND_AS] = { "as", RLIMIT_AS, true, false },
	[BOUND_DATA] = { "data", RLIMIT_DATA, true, false },
	[BOUND_STACK] = { "stack", RLIMIT_STACK, true, false },
	[BOUND_MEMLOCK] = { "memlock", RLIMIT_MEMLOCK, true, true },
	[BOUND_CORE] = { "core", RLIMIT_CORE, true, true },
};

const char *
bounds_name(enum bound_res r)
{
	return table[r].name;
}

int
bounds_resource(enum bound_res r)
{
	return table[r].resource;
}

/* Digits only, no sign, no leading zero but "0"; into *V.  -1 when there
 * are none or they overflow. */
static int
parse_digits(const char *s, size_t len, unsigned long long *v)
{
	*v = 0;
	if (len == 0 || (s[0] == '0' && len > 1))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' ||
		    *v > (ULLONG_MAX - (unsigned)(s[i] - '0')) / 10)
			return -1;
		*v = *v * 10 + (unsigned)(s[i] - '0');
	}
	return 0;
}

/*
 * A duration: a decimal number of seconds ("30", "1.5"), or one with a
 * unit: s, m (minutes), h or d.  Above 0 and at most a year; into
 * milliseconds, rounded up.  -1 for anything else ("10ms" included: m is
 * minutes here, and a reader might take it otherwise).
 */
int
bounds_parse_duration(const char *s, long long *ms)
{
	static const struct {
		char unit;
		long long ms;
	} units[] = { { 's', 1000 }, { 'm', 60000 }, { 'h', 3600000 },
		{ 'd', 86400000 } };
	size_t whole = strspn(s, "0123456789"), frac = 0;
	const char *rest = s + whole;
	unsigned long long w, f = 0, scale = 1;
	long long unit = 1000, total;

	if (whole == 0 || whole > 12 || parse_digits(s, whole, &w) < 0)
		return -1;
	if (*rest == '.') {
		frac = strspn(rest + 1, "0123456789");
		if (frac == 0 || frac > 9)
			return -1;
		for (size_t i = 0; i < frac; i++) {
			f = f * 10 + (unsigned)(rest[1 + i] - '0');
			scale *= 10;
		}
		rest += 1 + frac;
	}
	if (*rest != '\0') {
		size_t i;

		for (i = 0; i < N_ELEMENTS(units); i++)
			if (rest[0] == units[i].unit && rest[1] == '\0')
				break;
		if (i == N_ELEMENTS(units))
			return -1;
		unit = units[i].ms;
	}
	/* W is below 10^12 and UNIT at most 8.64e7: no overflow before the
	 * bound is checked. */
	if (w > (unsigned long long)(BOUNDS_MAX_DURATION_MS / unit))
		return -1;
	total = (long long)w * unit +
	    (long long)((f * (unsigned long long)unit + scale - 1) / scale);
	if (total <= 0 || total > BOUNDS_MAX_DURATION_MS)
		return -1;
	*ms = total;
	return 0;
}

/* VALUE of limit R: "unlimited", or digits with, for a size, K, M or G
 * (binary multiples).  NULL, or what is wrong. */
static char *
parse_value(enum bound_res r, const char *value, rlim_t *out)
{
	static const char suffixes[] = "KMG";
	size_t len = strlen(value);
	unsigned long long v, mult = 1;
	const char *suffix;

	if (strcmp(value, "unlimited") == 0) {
		*out = RLIM_INFINITY;
		return NULL;
	}
	if (len > 0 && table[r].size &&
	    (suffix = strchr(suffixes, value[len - 1])) != NULL &&
	    value[len - 1] != '\0') {
		mult = 1ULL << (10 * (suffix - suffixes + 1));
		len--;
	}
	if (parse_digits(value, len, &v) < 0)
		return xasprintf(table[r].size ?
			"--limit: %s: '%s' is not a number of bytes (digits, then K, M or G, or 'unlimited')" :
			"--limit: %s: '%s' is not a whole number (or 'unlimited')",
		    table[r].name, value);
	if (v > (unsigned long long)(RLIM_INFINITY - 1) / mult)
		return xasprintf("--limit: %s: '%s' is too large",
		    table[r].name, value);
	if (v == 0 && !table[r].zero_ok)
		return xasprintf(
		    "--limit: %s: 0 would leave the command unable to run",
		    table[r].name);
	*out = (rlim_t)(v * mult);
	return NULL;
}

/* "NAME=VALUE" of --limit, into B (a later one replaces an earlier one).
 * NULL, or what is wrong, worded for the user (to be freed). */
char *
bounds_parse_limit(const char *arg, struct bounds *b)
{
	const char *eq = strchr(arg, '=');
	size_t nlen = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
	char *why;
	rlim_t v = 0;

	for (size_t r = 0; r < BOUND_N; r++) {
		if (strlen(table[r].name) != nlen ||
		    strncmp(arg, table[r].name, nlen) != 0)
			continue;
		if (eq == NULL)
			return xasprintf("--limit: '%s' has no '=VALUE'", arg);
		why = parse_value((enum bound_res)r, eq + 1, &v);
		if (why != NULL)
			return why;
		b->set[r] = true;
		b->value[r] = v;
		return NULL;
	}
	return xasprintf(
	    "--limit: '%.*s' is not a limit (cpu, fsize, nofile, nproc, as, data, stack, memlock, core)",
	    (int)nlen, arg);
}

/* What every sandbox gets unless asked otherwise: no core dumps. */
void
bounds_set_defaults(struct bounds *b)
{
	b->set[BOUND_CORE] = true;
	b->value[BOUND_CORE] = 0;
}

void
bounds_format(rlim_t v, struct buf *out)
{
	if (v == RLIM_INFINITY)
		buf_adds(out, "unlimited");
	else
		buf_addf(out, "%llu", (unsigned long long)v);
}

/* "name=value,..." in table order, values in plain digits or
 * "unlimited"; "-" for none. */
void
bounds_encode(const struct bounds *b, struct buf *out)
{
	size_t start = out->len;

	for (size_t r = 0; r < BOUND_N; r++) {
		if (!b->set[r])
			continue;
		buf_addf(out, "%s%s=", out->len > start ? "," : "",
		    table[r].name);
		bounds_format(b->value[r], out);
	}
	if (out->len == start)
		buf_addc(out, '-');
}

/* bounds_encode()'s word back into B: -1 for anything else (a name out
 * of order or twice, a suffix, a leading zero). */
int
bounds_decode(const char *s, struct bounds *b)
{
	size_t next = 0;

	memset(b, 0, sizeof(*b));
	if (strcmp(s, "-") == 0)
		return 0;
	for (;;) {
		size_t len = strcspn(s, ","), r;
		const char *eq = memchr(s, '=', len);
		unsigned long long v;

		if (eq == NULL)
			return -1;
		for (r = next; r < BOUND_N; r++)
			if (strlen(table[r].name) == (size_t)(eq - s) &&
			    strncmp(s, table[r].name, (size_t)(eq - s)) == 0)
				break;
		if (r == BOUND_N)
			return -1;
		if ((size_t)(s + len - eq - 1) == strlen("unlimited") &&
		    strncmp(eq + 1, "unlimited", strlen("unlimited")) == 0)
			b->value[r] = RLIM_INFINITY;
		else if (parse_digits(eq + 1, (size_t)(s + len - eq - 1), &v) <
			0 ||
		    v >= (unsigned long long)RLIM_INFINITY)
			return -1;
		else
			b->value[r] = (rlim_t)v;
		b->set[r] = true;
		next = r + 1;
		if (s[len] == '\0')
			return 0;
		s += len + 1;
	}
}

/* The status's "limits": {"core":0,"nproc":50}, "unlimited" as a string. */
void
bounds_render_json(const struct bounds *b, struct buf *out)
{
	bool first = true;

	buf_addc(out, '{');
	for (size_t r = 0; r < BOUND_N; r++) {
		if (!b->set[r])
			continue;
		buf_addf(out, "%s\"%s\":", first ? "" : ",", table[r].name);
		if (b->value[r] == RLIM_INFINITY)
			buf_adds(out, "\"unlimited\"");
		else
			bounds_format(b->value[r], out);
		first = false;
	}
	buf_addc(out, '}');
}

/*
 * The room execve(2) gives a program's arguments and environment under
 * the stack limit STACK (the kernel's bprm_stack_limits()): a quarter of
 * the stack, at most 6 MiB (three quarters of the usual 8 MiB stack) and
 * at least 128 KiB.
 */
size_t
bounds_exec_limit(rlim_t stack)
{
	const size_t most = 6u << 20, least = 128u << 10;
	size_t limit = stack == RLIM_INFINITY || stack / 4 > most ?
	    most :
	    (size_t)(stack / 4);

	return limit < least ? least : limit;
}

static void
exec_size_add(struct exec_size *es, const char *s)
{
	size_t len = strlen(s) + 1;

	es->bytes += len + sizeof(char *);
	if (len > es->longest_len) {
		es->longest = s;
		es->longest_len = len;
	}
}

/* What execve(2) of PROGRAM with ARGV and ENVP takes of that room: every
 * string with its NUL and a pointer to it (PROGRAM's name too, which the
 * kernel copies beside them), for comparison with bounds_exec_limit(). */
void
bounds_exec_size(const char *program, char *const *argv, char *const *envp,
    struct exec_size *es)
{
	*es = (struct exec_size){ 0 };
	es->bytes = strlen(program) + 1;
	for (size_t i = 0; argv != NULL && argv[i] != NULL; i++)
		exec_size_add(es, argv[i]);
	for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
		exec_size_add(es, envp[i]);
}
