/*
 * phase.h - where a launch spends its time, for scripts/bench.
 *
 * Only a build made with -DSBOX_PHASE_TIMING (make src/sbox-exec-phases,
 * never installed) writes anything: one line at each phase boundary,
 * "sbox-phase NAME SECONDS" on the monotonic clock, to FD.  Every other
 * build compiles the marks to nothing, so that no setting of the caller's
 * changes what a release binary does.  The clock is the same in and out
 * of the sandbox (bwrap makes no time namespace), so that stage two's
 * marks line up with the launcher's.
 */
#ifndef SBOX_PHASE_H
#define SBOX_PHASE_H

#ifdef SBOX_PHASE_TIMING
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static inline void
phase_mark_to(int fd, const char *name)
{
	struct timespec ts;
	char line[96];
	int n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(line, sizeof(line), "sbox-phase %s %lld.%09ld\n", name,
	    (long long)ts.tv_sec, ts.tv_nsec);
	if (n > 0 && (size_t)n < sizeof(line))
		(void)!write(fd, line, (size_t)n);
}
#else
#define phase_mark_to(fd, name) ((void)(fd), (void)(name))
#endif

#define phase_mark(name) phase_mark_to(STDERR_FILENO, name)

#endif
