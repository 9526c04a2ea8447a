/*
 * verify.c - the launcher's own look at the sandbox, from outside.
 *
 * Whatever answers on the control socket is not taken at its word: the
 * process that reported in (its pid comes with the message, from the
 * kernel, as SCM_CREDENTIALS) must descend from the bwrap the launcher
 * started, live in user, mount and pid namespaces other than the
 * launcher's (and a network namespace too without --net), and it and
 * every process between it and that bwrap (bwrap's init, pid 1 inside)
 * must carry the seccomp filter the launcher handed over.  A bwrap that
 * ignored an option, or a program posing as one, fails here.
 *
 * MUST: read only the kernel's view (/proc), never what the sandbox says;
 * refuse when something cannot be read.  MUST NOT print or exit.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "procfs.h"
#include "verify.h"

/* A bwrap puts its init between itself and the command: a few steps. */
#define MAX_DEPTH 8
/*
 * How long bwrap's init may take to install the filter, at most: it does
 * so just after it forks the process that reports in, which on a loaded
 * machine can run first for seconds (200 launches at once on two
 * processors under the sanitizers: over 2 s).  Nothing of the command
 * runs meanwhile; the default --probe-timeout.
 */
#define INIT_WAIT_MS 10000

/* The fields of /proc/PID/status (PID 0: ourselves) sbox-exec reads. */
int
verify_read_status(pid_t pid, struct proc_status *ps)
{
	char path[64], buf[16384];

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/status");
	else
		snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	/* Whole: with many groups the lines wanted come late. */
	if (util_read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	return procfs_status(buf, ps);
}

/* Whether PS shows the filter asked for (FILTERS in all; 0: none asked
 * for, which anything passes). */
static bool
filtered(const struct proc_status *ps, int filters)
{
	return filters == 0 ||
	    (ps->seccomp == 2 && (ps->filters < 0 || ps->filters == filters));
}

/* How many seccomp filters the launcher itself runs under (0 when it
 * cannot tell); the sandbox has these and the one bwrap adds. */
int
verify_seccomp_filters(void)
{
	struct proc_status ps;

	return verify_read_status(0, &ps) == 0 && ps.filters > 0 ? ps.filters :
								   0;
}

/* Whether PID's namespace NAME is the launcher's own: 1 yes, 0 no, -1
 * unknown. */
static int
same_ns(pid_t pid, const char *name)
{
	char path[64];
	struct stat mine, theirs;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	if (stat(path, &mine) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/ns/%s", (long)pid, name);
	if (stat(path, &theirs) < 0)
		return -1;
	return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino;
}

static int
check_sandbox(pid_t child, pid_t pid, bool net, int filters, int own_extra,
    struct sbox_error *err)
{
	static const char *const ns[] = { "user", "mnt", "pid", "net" };
	pid_t at = pid;
	int depth;

	if (pid <= 0) {
		sbox_error_set(err, SBOX_BWRAP_UNTRUSTED,
		    "the sandbox reported in without its credentials: nothing shows it is one");
		return -1;
	}
	for (depth = 0; at != child; depth++) {
		struct proc_status ps;

		/* The launcher itself: what reported in lost its bwrap and
		 * was handed to us (a child subreaper), not a sandbox. */
		if (depth == MAX_DEPTH || at <= 1 || at == getpid() ||
		    verify_read_status(at, &ps) < 0) {
			sbox_error_set(err, SBOX_BWRAP_UNTRUSTED,
			    "the process that reported in (pid %ld) is not one the bwrap started",
			    (long)pid);
			return -1;
		}
		/* bwrap's init installs the filter just after it forks the
		 * process that reports in: give it a moment, looking again
		 * after 0.1 ms, then twice as long each time, up to 10 ms. */
		for (long deadline = util_now_ms() + INIT_WAIT_MS,
			  step = 100000;
		     at != pid && !filtered(&ps, filters) &&
		     util_now_ms() < deadline;
		     step = step < 10000000 ? step * 2 : step) {
			struct timespec pause = { 0, step };

			nanosleep(&pause, NULL);
			if (verify_read_status(at, &ps) < 0)
				break;
		}
		if (!filtered(&ps, at == pid ? filters + own_extra : filters)) {
			sbox_error_set(err, SBOX_BWRAP_UNTRUSTED,
			    "%s (pid %ld) inside the sandbox runs without the seccomp filter sbox-exec handed to bwrap",
			    at == pid ? "the process that reported in" :
					"a process",
			    (long)at);
			return -1;
		}
		at = ps.ppid;
	}
	for (size_t i = 0; i < N_ELEMENTS(ns); i++) {
		int same;

		if (net && strcmp(ns[i], "net") == 0)
			continue;
		same = same_ns(pid, ns[i]);
		if (same < 0) {
			sbox_error_set(err, SBOX_BWRAP_UNTRUSTED,
			    "cannot read the %s namespace of the process that reported in (pid %ld): %s",
			    ns[i], (long)pid, strerror(errno));
			return -1;
		}
		if (same > 0) {
			sbox_error_set(err, SBOX_BWRAP_UNTRUSTED,
			    "the process that reported in (pid %ld) shares sbox-exec's %s namespace: it is not in the sandbox asked for",
			    (long)pid, ns[i]);
			return -1;
		}
	}
	return 0;
}

/*
 * Check the process PID that reported in for the bwrap CHILD: see the
 * top of this file.  NET: the sandbox keeps the host's network.
 * FILTERS: how many seccomp filters each process inside must have (0:
 * no filter was asked for); OWN_EXTRA: how many more PID itself
 * installed (the watch filter, watch.h).  Returns 0, or -1 with ERR set.
 */
int
verify_sandbox(pid_t child, pid_t pid, bool net, int filters, int own_extra,
    struct sbox_error *err)
{
	if (check_sandbox(child, pid, net, filters, own_extra, err) == 0)
		return 0;
	sbox_error_hint(err,
	    "this bwrap did not build the sandbox sbox-exec asked for; use the bubblewrap of the distribution, or name a genuine one with --bwrap");
	return -1;
}
