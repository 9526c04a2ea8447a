/* Unit tests of bounds.c: durations and limits as the user writes them
 * (TIMEOUT AND LIMITS in sbox-exec(1)), and their words for stage two and
 * the status. */
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "tap.h"

static void
duration(const char *s, long long want)
{
	long long ms = -1;
	int rc = bounds_parse_duration(s, &ms);

	if (want < 0)
		ok(rc < 0, "duration '%s' refused", s);
	else
		ok(rc == 0 && ms == want, "duration '%s' is %lld ms (got %lld)",
		    s, want, ms);
}

static void
test_durations(void)
{
	duration("30", 30000);
	duration("1.5", 1500);
	duration("0.5", 500);
	duration("0.0001", 1); /* rounded up, never to 0 */
	duration("10m", 600000);
	duration("2h", 7200000);
	duration("1d", 86400000);
	duration("1.5m", 90000);
	duration("45s", 45000);
	duration("365d", BOUNDS_MAX_DURATION_MS);
	duration("366d", -1);
	duration("8761h", -1);
	duration("99999999999999999999", -1);
	duration("0", -1);
	duration("0s", -1);
	duration("0.0", -1);
	duration("-1", -1);
	duration("+1", -1);
	duration("", -1);
	duration("s", -1);
	duration("10ms", -1);
	duration("1e3", -1);
	duration("0x10", -1);
	duration("1.", -1);
	duration(".5", -1);
	duration("1.5.3", -1);
	duration(" 1", -1);
	duration("1 ", -1);
	duration("1S", -1);
	duration("1w", -1);
	duration("01", -1);
	duration("inf", -1);
}

static void
limit(const char *arg, enum bound_res r, rlim_t want)
{
	struct bounds b = { 0 };
	char *why = bounds_parse_limit(arg, &b);

	ok(why == NULL && b.set[r] && b.value[r] == want,
	    "--limit=%s is %s=%llu (%s)", arg, bounds_name(r),
	    (unsigned long long)want, why ? why : "ok");
	free(why);
}

static void
bad_limit(const char *arg, const char *want)
{
	struct bounds b = { 0 };
	char *why = bounds_parse_limit(arg, &b);

	ok(why != NULL && strstr(why, want) != NULL &&
		strncmp(why, "--limit: ", 9) == 0,
	    "--limit=%s refused (%s)", arg, why ? why : "accepted");
	free(why);
}

static void
test_limits(void)
{
	limit("cpu=1", BOUND_CPU, 1);
	limit("fsize=1M", BOUND_FSIZE, 1048576);
	limit("fsize=0", BOUND_FSIZE, 0);
	limit("as=2G", BOUND_AS, 2147483648ULL);
	limit("stack=8K", BOUND_STACK, 8192);
	limit("data=123", BOUND_DATA, 123);
	limit("memlock=0", BOUND_MEMLOCK, 0);
	limit("core=0", BOUND_CORE, 0);
	limit("core=unlimited", BOUND_CORE, RLIM_INFINITY);
	limit("nofile=64", BOUND_NOFILE, 64);
	limit("nproc=50", BOUND_NPROC, 50);
	bad_limit("foo=1", "not a limit");
	bad_limit("CPU=1", "not a limit");
	bad_limit("=1", "not a limit");
	bad_limit("cpu", "no '=VALUE'");
	bad_limit("cpu=", "not a whole number");
	bad_limit("cpu=0", "unable to run");
	bad_limit("nproc=0", "unable to run");
	bad_limit("nofile=0", "unable to run");
	bad_limit("as=0", "unable to run");
	bad_limit("cpu=-1", "not a whole number");
	bad_limit("cpu=1.5", "not a whole number");
	bad_limit("nproc=1K", "not a whole number");
	bad_limit("fsize=1k", "not a number of bytes");
	bad_limit("fsize=1MB", "not a number of bytes");
	bad_limit("fsize=M", "not a number of bytes");
	bad_limit("fsize=01", "not a number of bytes");
	bad_limit("fsize= 1", "not a number of bytes");
	bad_limit("fsize=99999999999999999999", "not a number of bytes");
	bad_limit("fsize=17179869184G", "too large");
	bad_limit("fsize=18446744073709551615", "too large");
}

static void
test_words(void)
{
	struct bounds b = { 0 }, back;
	cleanup_buf struct buf w = { 0 }, json = { 0 }, none = { 0 };

	bounds_encode(&b, &none);
	ok(strcmp(none.s, "-") == 0 && bounds_decode("-", &back) == 0 &&
		!back.set[BOUND_CORE],
	    "no limits: \"-\"");
	bounds_set_defaults(&b);
	free(bounds_parse_limit("nproc=50", &b));
	free(bounds_parse_limit("stack=unlimited", &b));
	free(bounds_parse_limit("cpu=2", &b));
	bounds_encode(&b, &w);
	ok(strcmp(w.s, "cpu=2,nproc=50,stack=unlimited,core=0") == 0,
	    "encoded in table order: %s", w.s);
	ok(bounds_decode(w.s, &back) == 0 && back.set[BOUND_CPU] &&
		back.value[BOUND_CPU] == 2 && back.value[BOUND_NPROC] == 50 &&
		back.value[BOUND_STACK] == RLIM_INFINITY &&
		back.set[BOUND_CORE] && back.value[BOUND_CORE] == 0 &&
		!back.set[BOUND_AS],
	    "decoded back");
	bounds_render_json(&b, &json);
	ok(strcmp(json.s,
	       "{\"cpu\":2,\"nproc\":50,\"stack\":\"unlimited\",\"core\":0}") ==
		0,
	    "the status's object: %s", json.s);
	ok(bounds_decode("core=18446744073709551615", &back) < 0,
	    "decode: RLIM_INFINITY as a number refused");
	ok(bounds_decode("cpu=1,cpu=1", &back) < 0 &&
		bounds_decode("core=0,cpu=1", &back) < 0 &&
		bounds_decode("cpu=1,", &back) < 0 &&
		bounds_decode(",cpu=1", &back) < 0 &&
		bounds_decode("cpu=01", &back) < 0 &&
		bounds_decode("cpu=unlimitedx", &back) < 0 &&
		bounds_decode("cpu", &back) < 0 && bounds_decode("", &back) < 0,
	    "decode: what the encoder never writes is refused");
}

/* execve()'s room (sbox-exec(1), Policy size): the kernel's rule. */
static void
test_exec_room(void)
{
	char long_value[200];
	char *argv[] = { (char *)"bwrap", (char *)"--setenv", (char *)"V",
		long_value, NULL };
	char *envp[] = { (char *)"HOME=/root", NULL };
	struct exec_size es;

	ok(bounds_exec_limit(8u << 20) == 2u << 20, "a stack of 8 MiB: 2 MiB");
	ok(bounds_exec_limit(RLIM_INFINITY) == 6u << 20 &&
		bounds_exec_limit(64u << 20) == 6u << 20,
	    "unlimited or large: 6 MiB at most");
	ok(bounds_exec_limit(64u << 10) == 128u << 10 &&
		bounds_exec_limit(0) == 128u << 10,
	    "small: 128 KiB at least");
	memset(long_value, 'v', sizeof(long_value) - 1);
	long_value[sizeof(long_value) - 1] = '\0';
	bounds_exec_size("/dev/fd/3", argv, envp, &es);
	ok(es.bytes == 10 + 6 + 9 + 2 + 200 + 11 + 5 * sizeof(char *),
	    "strings, their NULs, their pointers and the program: %zu",
	    es.bytes);
	ok(es.longest == long_value && es.longest_len == 200,
	    "the longest string found: %zu", es.longest_len);
	bounds_exec_size("p", NULL, NULL, &es);
	ok(es.bytes == 2 && es.longest == NULL, "nothing but the program");
}

int
main(void)
{
	test_durations();
	test_limits();
	test_words();
	test_exec_room();
	return tap_done();
}
