/*
 * stage2_args.h - the words the launcher hands stage two, written and read
 * in one place.
 *
 *   PROG --sbox-stage2 USERNS CTRL STDERR KEEP MODE LIMITS [WRITABLE...]
 *       -- [COMMAND...]
 *
 * USERNS is the launcher's user namespace (its inode number), which stage
 * two must not be in; CTRL is stage two's end of the control socket and
 * STDERR the command's standard error, both descriptors above 2; KEEP is
 * "-" or the descriptors named with --keep-fd, "3,7,9", each at most once;
 * MODE is "check", "run" or "run-tty", followed by "+watch" when stage two
 * is to install the filter that reports refused calls to the launcher
 * (watch.h), then by ":PORT" when stage two
 * is to make the --allow-host proxy's listening socket on 127.0.0.1:PORT
 * and pass it out with its report (netproxy.h), each followed by
 * "/ADDRESS#PORT" for a loopback address and port the sandbox serves on
 * its own loopback (netpolicy_forwards()), whose listening socket stage
 * two passes out after the proxy's; LIMITS is "-" or the
 * resource limits stage two sets before it reports in, "core=0,nproc=50"
 * in bounds.h's order (bounds_encode()); the WRITABLE paths, all absolute,
 * are where Landlock lets the command write; COMMAND, for the run modes
 * only, is what stage two executes.  Anything else is refused.
 */
#ifndef SBOX_STAGE2_ARGS_H
#define SBOX_STAGE2_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "bounds.h"
#include "netpolicy.h"
#include "sbox.h"
#include "util.h"

#define STAGE2_FLAG "--sbox-stage2"
#define STAGE2_WATCH "+watch"

/* How many descriptors --keep-fd may name: the launcher's limit, and the
 * most stage two accepts. */
#define STAGE2_ARGS_MAX_KEEP_FDS 1000

enum stage2_mode {
	STAGE2_CHECK,	/* report in, wait for the launcher's word, end */
	STAGE2_RUN,	/* report in, wait for the go-ahead, run COMMAND */
	STAGE2_RUN_TTY, /* the same, the sandbox's terminal made its own */
};

struct stage2_args {
	unsigned long userns;
	int ctrl;
	int saved_stderr;
	int keep[STAGE2_ARGS_MAX_KEEP_FDS];
	size_t nkeep;
	enum stage2_mode mode;
	struct bounds limits;
	int proxy_port;				       /* 0: no proxy */
	struct np_forward fwd[NETPOLICY_MAX_FORWARDS]; /* with the proxy */
	size_t nfwd;
	bool watch;	       /* install watch.h's filter, pass its listener */
	char *const *writable; /* NWRITABLE absolute paths */
	size_t nwritable;
	char *const *command; /* NULL-terminated; NULL for STAGE2_CHECK */
};

void stage2_args_encode(const struct stage2_args *, struct strv *);
int stage2_args_decode(int, char **, struct stage2_args *, struct sbox_error *);

#endif
