/*
 * ready.h - wait until the sandbox reports in, or learn why it cannot.
 *
 * Stage two (stage2.c) reports in from inside the sandbox over a control
 * socket, with its credentials; bwrap's own complaints arrive on a pipe
 * that stands in for its stderr until then.
 */
#ifndef SBOX_READY_H
#define SBOX_READY_H

#include <stdbool.h>
#include <sys/types.h>

#include "netpolicy.h"
#include "sbox.h"

struct strv;

struct ready_outcome {
	bool ready; /* stage two reported in */
	bool timed_out;
	bool bwrap_ended; /* before stage two reported */
	pid_t cmd_pid;	  /* stage two's pid, as we see it */
	int net_fd;	  /* the proxy's socket sent with the report, or -1 */
	int fwd_fd[NETPOLICY_MAX_FORWARDS]; /* the loopback's, after it */
	size_t nfwd;
	int watch_fd;	 /* the watch filter's listener (watch.h), or -1 */
	int wait_status; /* bwrap's, when it ended */
	bool reaped;
	char *bwrap_stderr;
	char lookup;	   /* the run modes: STAGE2_FOUND, ... (stage2.h) */
	char *lookup_text; /* the command's path, or why there is none */
};

int ready_wait(int, int, pid_t, long, struct ready_outcome *);
void ready_collect_failure(int, pid_t, struct ready_outcome *);
void ready_outcome_free(struct ready_outcome *);
void ready_end_descendants(void);

/* What the host adds to bwrap's words: read by launch.c, for reason.c. */
struct reason_host {
	bool apparmor_restricts_userns; /* kernel.apparmor_restrict_
					   unprivileged_userns is 1 */
	const char *bwrap; /* the real path of the bwrap in use, or NULL */
	size_t nmounts;	   /* the mounts bwrap was asked to set up */
	long mount_max;	   /* fs.mount-max, or 0 when unknown */
	bool nested;	   /* this launcher runs inside an sbox-exec sandbox */
};

/* Above this many mounts, bwrap's setup time (which grows with the
 * square of their number) is the likely cause of a slow sandbox. */
#define REASON_MANY_MOUNTS 500

/* reason.c */
void reason_classify(const struct ready_outcome *, long,
    const struct reason_host *, struct sbox_error *);
void reason_nested(const char *, struct sbox_error *);
void reason_setup_paths(const char *, struct strv *);

#endif
