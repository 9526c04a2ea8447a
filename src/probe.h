/*
 * probe.h - wait until the sandbox exists, or learn why it cannot.
 *
 * The sandbox reports in from inside (launch.c's stage two) over a control
 * socket; bwrap's own complaints arrive on a pipe that stands in for its
 * stderr until then.
 */
#ifndef SBOX_PROBE_H
#define SBOX_PROBE_H

#include <stdbool.h>
#include <sys/types.h>

#include "sbox.h"

struct probe_outcome {
	bool ready; /* the sandbox ran our stage two */
	bool timed_out;
	bool bwrap_ended; /* before stage two reported */
	pid_t cmd_pid;	  /* stage two's pid, as we see it */
	int wait_status;  /* bwrap's, when it ended */
	bool reaped;
	char *bwrap_stderr;
};

int probe_wait_ready(int, int, pid_t, long, struct probe_outcome *);
void probe_collect_failure(int, pid_t, struct probe_outcome *);
void probe_classify(const struct probe_outcome *, long, struct sbox_error *);
void probe_outcome_free(struct probe_outcome *);
const char *probe_errno_hint(int);

#endif
