/* Unit tests of stage2_args.c: the words the launcher hands stage two,
 * encoded and decoded, and every malformed form refused. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "stage2_args.h"
#include "tap.h"

/* ARGV as the launcher's argv for stage two: PROG, then A's words. */
static void
encode(const struct stage2_args *a, struct strv *sv)
{
	strv_add(sv, "/proc/self/fd/5");
	stage2_args_encode(a, sv);
}

static bool
same(const struct stage2_args *x, const struct stage2_args *y)
{
	size_t n = 0;

	if (x->userns != y->userns || x->ctrl != y->ctrl ||
	    x->proxy_port != y->proxy_port || x->nfwd != y->nfwd ||
	    x->saved_stderr != y->saved_stderr || x->nkeep != y->nkeep ||
	    x->mode != y->mode || x->nwritable != y->nwritable ||
	    (x->command == NULL) != (y->command == NULL))
		return false;
	for (size_t i = 0; i < x->nkeep; i++)
		if (x->keep[i] != y->keep[i])
			return false;
	for (size_t i = 0; i < x->nfwd; i++)
		if (x->fwd[i].family != y->fwd[i].family ||
		    x->fwd[i].port != y->fwd[i].port ||
		    memcmp(x->fwd[i].addr, y->fwd[i].addr, 16) != 0)
			return false;
	for (size_t r = 0; r < BOUND_N; r++)
		if (x->limits.set[r] != y->limits.set[r] ||
		    (x->limits.set[r] &&
			x->limits.value[r] != y->limits.value[r]))
			return false;
	for (size_t i = 0; i < x->nwritable; i++)
		if (strcmp(x->writable[i], y->writable[i]) != 0)
			return false;
	if (x->command == NULL)
		return true;
	for (; x->command[n] != NULL || y->command[n] != NULL; n++)
		if (x->command[n] == NULL || y->command[n] == NULL ||
		    strcmp(x->command[n], y->command[n]) != 0)
			return false;
	return true;
}

static void
round_trip(const struct stage2_args *a, const char *name)
{
	cleanup_strv struct strv sv = { 0 };
	struct sbox_error err = { 0 };
	struct stage2_args b;
	int rc;

	encode(a, &sv);
	rc = stage2_args_decode((int)sv.n, sv.v, &b, &err);
	ok(rc == 0 && same(a, &b), "round trip: %s%s%s", name,
	    err.detail ? ": " : "", err.detail ? err.detail : "");
	sbox_error_clear(&err);
}

static void
test_round_trips(void)
{
	static char *cmd[] = { "sh", "-c", "echo hi", NULL };
	static char *odd_cmd[] = { "--", "-", "/x", "", NULL };
	static char *paths[] = { "/w", "/tmp", "/a b/--/c" };
	struct stage2_args a = { .userns = 4026531837UL,
		.ctrl = 7,
		.saved_stderr = 8,
		.mode = STAGE2_RUN,
		.command = cmd };

	round_trip(&a, "run, nothing kept, no writable paths");
	a.proxy_port = 3128;
	round_trip(&a, "run with the proxy's port (--allow-host)");
	a.fwd[0] = (struct np_forward){ AF_INET, { 127, 0, 0, 1 }, 8080 };
	a.fwd[1] = (struct np_forward){ AF_INET6, { [15] = 1 }, 65535 };
	a.nfwd = 2;
	round_trip(&a, "the proxy's port and two loopback addresses served");
	for (size_t i = 0; i < NETPOLICY_MAX_FORWARDS; i++)
		a.fwd[i] = (struct np_forward){ AF_INET,
			{ 127, 0, 0, (unsigned char)(i + 1) }, 1 + (int)i };
	a.nfwd = NETPOLICY_MAX_FORWARDS;
	round_trip(&a, "the most loopback addresses served");
	a.nfwd = 0;
	a.proxy_port = 0;
	a.mode = STAGE2_RUN_TTY;
	a.keep[0] = 0;
	a.keep[1] = 9;
	a.keep[2] = 3;
	a.nkeep = 3;
	a.writable = paths;
	a.nwritable = N_ELEMENTS(paths);
	round_trip(&a, "run-tty, three kept, three writable paths");
	bounds_set_defaults(&a.limits);
	round_trip(&a, "the default limits");
	a.limits.set[BOUND_CPU] = a.limits.set[BOUND_STACK] = true;
	a.limits.value[BOUND_CPU] = 1;
	a.limits.value[BOUND_STACK] = RLIM_INFINITY;
	round_trip(&a, "limits, one unlimited");
	a.command = odd_cmd;
	round_trip(&a, "a command of odd words (\"--\", \"-\", a path, \"\")");
	a.mode = STAGE2_CHECK;
	a.command = NULL;
	a.nkeep = 0;
	a.userns = 0;
	round_trip(&a, "check, no command");
	a.mode = STAGE2_RUN;
	a.command = cmd;
	a.userns = ~0UL;
	for (size_t i = 0; i < STAGE2_ARGS_MAX_KEEP_FDS; i++)
		a.keep[i] = 10 + (int)i;
	a.nkeep = STAGE2_ARGS_MAX_KEEP_FDS;
	round_trip(&a, "the most kept descriptors, the largest namespace");
}

/* ARGV (NULL-terminated, without PROG) must be refused. */
static void
refused(const char *name, const char *want, ...)
{
	cleanup_strv struct strv sv = { 0 };
	struct sbox_error err = { 0 };
	struct stage2_args b;
	va_list ap;
	int rc;

	strv_add(&sv, "/proc/self/fd/5");
	va_start(ap, want);
	for (const char *w; (w = va_arg(ap, const char *)) != NULL;)
		strv_add(&sv, w);
	va_end(ap);
	rc = stage2_args_decode((int)sv.n, sv.v, &b, &err);
	ok(rc < 0 && err.detail != NULL && strstr(err.detail, want) != NULL,
	    "refused: %s (%s)", name, err.detail ? err.detail : "accepted");
	sbox_error_clear(&err);
}

#define F STAGE2_FLAG

static void
test_malformed(void)
{
	refused("nothing", "too few", NULL);
	refused("the flag alone", "too few", F, NULL);
	refused("no mode", "too few", F, "1", "7", "8", "-", NULL);
	refused("not the flag", "too few", "--sbox-stage3", "1", "7", "8", "-",
	    "run", "-", "--", "true", NULL);
	refused("no \"--\"", "no \"--\"", F, "1", "7", "8", "-", "run", "-",
	    NULL);
	refused("no \"--\" after paths", "no \"--\"", F, "1", "7", "8", "-",
	    "run", "-", "/w", NULL);
	refused("an extra word before \"--\"", "not an absolute path", F, "1",
	    "7", "8", "-", "run", "-", "extra", "--", "true", NULL);
	refused("a relative writable path", "not an absolute path", F, "1", "7",
	    "8", "-", "run", "-", "/w", "w", "--", "true", NULL);
	refused("run without a command", "no command", F, "1", "7", "8", "-",
	    "run", "-", "--", NULL);
	refused("check with a command", "in check mode", F, "1", "7", "8", "-",
	    "check", "-", "--", "true", NULL);
	refused("an unknown mode", "not a mode", F, "1", "7", "8", "-", "go",
	    "-", "--", "true", NULL);
	refused("a mode with a suffix", "not a mode", F, "1", "7", "8", "-",
	    "check-tty", "-", "--", NULL);
	refused("a proxy port of 0", "not a mode", F, "1", "7", "8", "-",
	    "run:0", "-", "--", "true", NULL);
	refused("a proxy port too large", "not a mode", F, "1", "7", "8", "-",
	    "run:65536", "-", "--", "true", NULL);
	refused("a proxy port with a leading zero", "not a mode", F, "1", "7",
	    "8", "-", "run:03128", "-", "--", "true", NULL);
	refused("an empty proxy port", "not a mode", F, "1", "7", "8", "-",
	    "run:", "-", "--", "true", NULL);
	refused("a proxy port with junk", "not a mode", F, "1", "7", "8", "-",
	    "run:3128x", "-", "--", "true", NULL);
	refused("a forward without the proxy's port", "not a mode", F, "1", "7",
	    "8", "-", "run/127.0.0.1#80", "-", "--", "true", NULL);
	refused("a forward of another address", "not a mode", F, "1", "7", "8",
	    "-", "run:3128/10.0.0.1#80", "-", "--", "true", NULL);
	refused("a forward of an IPv6 address not ::1", "not a mode", F, "1",
	    "7", "8", "-", "run:3128/::2#80", "-", "--", "true", NULL);
	refused("a forward without a port", "not a mode", F, "1", "7", "8", "-",
	    "run:3128/127.0.0.1", "-", "--", "true", NULL);
	refused("a forward to port 0", "not a mode", F, "1", "7", "8", "-",
	    "run:3128/127.0.0.1#0", "-", "--", "true", NULL);
	refused("a forward with junk", "not a mode", F, "1", "7", "8", "-",
	    "run:3128/127.0.0.1#80x", "-", "--", "true", NULL);
	refused("a forward's address too long", "not a mode", F, "1", "7", "8",
	    "-", "run:3128/0000:0000:0000:0000:0000:0000:0000:0000:0001#80",
	    "-", "--", "true", NULL);
	refused("a forward with a trailing /", "not a mode", F, "1", "7", "8",
	    "-", "run:3128/127.0.0.1#8080/", "-", "--", "true", NULL);
	refused("a forward's port too large", "not a mode", F, "1", "7", "8",
	    "-", "run:3128/127.0.0.1#65536", "-", "--", "true", NULL);
	refused("a forward's port with a leading zero", "not a mode", F, "1",
	    "7", "8", "-", "run:3128/127.0.0.1#08080", "-", "--", "true", NULL);
	refused("a forward of a mapped address", "not a mode", F, "1", "7", "8",
	    "-", "run:3128/::ffff:127.0.0.1#8080", "-", "--", "true", NULL);
	refused("an empty forward", "not a mode", F, "1", "7", "8", "-",
	    "run:3128/", "-", "--", "true", NULL);
	refused("seventeen forwards", "not a mode", F, "1", "7", "8", "-",
	    "run:3128/127.0.0.1#1/127.0.0.1#2/127.0.0.1#3/127.0.0.1#4/127.0.0.1#5/127.0.0.1#6/127.0.0.1#7/127.0.0.1#8/127.0.0.1#9/127.0.0.1#10/127.0.0.1#11/127.0.0.1#12/127.0.0.1#13/127.0.0.1#14/127.0.0.1#15/127.0.0.1#16/127.0.0.1#17",
	    "-", "--", "true", NULL);
	refused("a mode prefix", "not a mode", F, "1", "7", "8", "-", "runs",
	    "-", "--", "true", NULL);
	refused("an empty mode", "not a mode", F, "1", "7", "8", "-", "", "-",
	    "--", "true", NULL);
	refused("a namespace not a number", "not a user namespace", F, "x", "7",
	    "8", "-", "run", "-", "--", "true", NULL);
	refused("a signed namespace", "not a user namespace", F, "-1", "7", "8",
	    "-", "run", "-", "--", "true", NULL);
	refused("a namespace too large", "not a user namespace", F,
	    "99999999999999999999999", "7", "8", "-", "run", "-", "--", "true",
	    NULL);
	refused("an empty namespace", "not a user namespace", F, "", "7", "8",
	    "-", "run", "-", "--", "true", NULL);
	refused("a control socket not a number", "not a descriptor above 2", F,
	    "1", "seven", "8", "-", "run", "-", "--", "true", NULL);
	refused("a control socket of 2", "not a descriptor above 2", F, "1",
	    "2", "8", "-", "run", "-", "--", "true", NULL);
	refused("a negative stderr", "not a descriptor above 2", F, "1", "7",
	    "-8", "-", "run", "-", "--", "true", NULL);
	refused("a stderr beyond int", "not a descriptor above 2", F, "1", "7",
	    "2147483648", "-", "run", "-", "--", "true", NULL);
	refused("a stderr with a sign", "not a descriptor above 2", F, "1", "7",
	    "+8", "-", "run", "-", "--", "true", NULL);
	refused("a stderr with trailing junk", "not a descriptor above 2", F,
	    "1", "7", "8x", "-", "run", "-", "--", "true", NULL);
	refused("a namespace with a leading zero", "not a user namespace", F,
	    "01", "7", "8", "-", "run", "-", "--", "true", NULL);
	refused("a control socket with a leading zero",
	    "not a descriptor above 2", F, "1", "07", "8", "-", "run", "-",
	    "--", "true", NULL);
	refused("a kept descriptor with a leading zero", "not a descriptor", F,
	    "1", "7", "8", "3,05", "run", "-", "--", "true", NULL);
	refused("control socket and stderr the same", "named twice", F, "1",
	    "7", "7", "-", "run", "-", "--", "true", NULL);
	refused("an empty keep list", "not a list", F, "1", "7", "8", "", "run",
	    "-", "--", "true", NULL);
	refused("a keep list with an empty item", "not a list", F, "1", "7",
	    "8", "3,,4", "run", "-", "--", "true", NULL);
	refused("a keep list ending in a comma", "not a list", F, "1", "7", "8",
	    "3,", "run", "-", "--", "true", NULL);
	refused("a keep list with a word", "not a descriptor", F, "1", "7", "8",
	    "3,x", "run", "-", "--", "true", NULL);
	refused("a negative kept descriptor", "not a descriptor", F, "1", "7",
	    "8", "-3", "run", "-", "--", "true", NULL);
	refused("a kept descriptor beyond int", "not a descriptor", F, "1", "7",
	    "8", "3,4294967299", "run", "-", "--", "true", NULL);
	refused("a kept descriptor named twice", "named twice", F, "1", "7",
	    "8", "3,4,3", "run", "-", "--", "true", NULL);
	refused("the control socket kept", "named twice", F, "1", "7", "8",
	    "3,7", "run", "-", "--", "true", NULL);
	refused("no limits word", "too few", F, "1", "7", "8", "-", "run",
	    NULL);
	refused("an unknown limit", "not a list of limits", F, "1", "7", "8",
	    "-", "run", "foo=1", "--", "true", NULL);
	refused("limits out of order", "not a list of limits", F, "1", "7", "8",
	    "-", "run", "core=0,cpu=1", "--", "true", NULL);
	refused("a limit twice", "not a list of limits", F, "1", "7", "8", "-",
	    "run", "cpu=1,cpu=2", "--", "true", NULL);
	refused("a limit with a suffix", "not a list of limits", F, "1", "7",
	    "8", "-", "run", "fsize=1M", "--", "true", NULL);
	refused("a limit with a leading zero", "not a list of limits", F, "1",
	    "7", "8", "-", "run", "nproc=050", "--", "true", NULL);
	refused("a limit without a value", "not a list of limits", F, "1", "7",
	    "8", "-", "run", "nproc=", "--", "true", NULL);
	refused("an empty limits word", "not a list of limits", F, "1", "7",
	    "8", "-", "run", "", "--", "true", NULL);
	refused("limits ending in a comma", "not a list of limits", F, "1", "7",
	    "8", "-", "run", "core=0,", "--", "true", NULL);
	refused("stderr kept", "named twice", F, "1", "7", "8", "8", "run", "-",
	    "--", "true", NULL);
}

static void
test_over_the_limit(void)
{
	cleanup_strv struct strv sv = { 0 };
	cleanup_buf struct buf keep = { 0 };
	struct sbox_error err = { 0 };
	struct stage2_args b;

	for (int i = 0; i <= STAGE2_ARGS_MAX_KEEP_FDS; i++)
		buf_addf(&keep, "%s%d", i ? "," : "", 10 + i);
	strv_add(&sv, "/proc/self/fd/5");
	strv_add(&sv, STAGE2_FLAG);
	strv_add(&sv, "1");
	strv_add(&sv, "7");
	strv_add(&sv, "8");
	strv_add(&sv, keep.s);
	strv_add(&sv, "run");
	strv_add(&sv, "-");
	strv_add(&sv, "--");
	strv_add(&sv, "true");
	ok(stage2_args_decode((int)sv.n, sv.v, &b, &err) < 0 &&
		strstr(err.detail, "more than") != NULL,
	    "refused: one kept descriptor over the limit (%s)",
	    err.detail ? err.detail : "accepted");
	sbox_error_clear(&err);
}

int
main(void)
{
	test_round_trips();
	test_malformed();
	test_over_the_limit();
	return tap_done();
}
