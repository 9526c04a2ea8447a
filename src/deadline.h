/*
 * deadline.h - --timeout and --kill-after: when to end the sandbox, and
 * ending all of it (TIMEOUT AND LIMITS in sbox-exec(1)).
 *
 * The clock starts with the launch; the sandbox is found (its pid
 * namespace, and that namespace's first process) at the hand-over, while
 * stage two is known to be alive and waiting.  The waiting loop asks how
 * long it may sleep and calls deadline_check() when it wakes.
 */
#ifndef SBOX_DEADLINE_H
#define SBOX_DEADLINE_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

enum deadline_phase {
	DEADLINE_OFF,	 /* no --timeout */
	DEADLINE_ARMED,	 /* waiting for the timeout */
	DEADLINE_TERMED, /* SIGTERM sent; waiting for --kill-after */
	DEADLINE_KILLED, /* SIGKILL sent */
};

struct deadline {
	enum deadline_phase phase;
	long long timeout_ms, kill_after_ms;
	struct timespec at; /* CLOCK_MONOTONIC: the next step */
	int init_pidfd;	    /* the namespace's first process, or -1 */
	dev_t ns_dev;	    /* the sandbox's pid namespace */
	ino_t ns_ino;
	bool have_ns;
	pid_t bwrap_pid;
};

void deadline_start(struct deadline *, long long, long long);
void deadline_watch(struct deadline *, pid_t, pid_t, int);
struct timespec *deadline_left(const struct deadline *, struct timespec *);
enum deadline_phase deadline_check(struct deadline *);
void deadline_close(struct deadline *);

#endif
