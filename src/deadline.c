/*
 * deadline.c - --timeout: SIGTERM to every process of the sandbox, then
 * SIGKILL to its pid namespace (TIMEOUT AND LIMITS in sbox-exec(1)).
 *
 * The sandbox's processes are the members of its pid namespace: a
 * process that left the command's process group or session (a daemon)
 * is still one.  Each is reached through a pidfd opened before its
 * namespace is checked, so that a pid recycled by a host process in
 * between is never signalled.  SIGKILL goes to the namespace's first
 * process: when it dies, the kernel kills every other member, whatever
 * they ignore.
 *
 * MUST: never signal a process outside the sandbox's pid namespace.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "deadline.h"
#include "events.h"
#include "fd.h"
#include "util.h"
#include "verify.h"

static int
pidfd_open_cloexec(pid_t pid)
{
	/* Close-on-exec from birth: the kernel makes every pidfd so. */
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int
pidfd_signal(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

static void
add_ms(struct timespec *t, long long ms)
{
	t->tv_sec += (time_t)(ms / 1000);
	t->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* Start the clock: TIMEOUT_MS from now (0: no timeout), then KILL_MS. */
void
deadline_start(struct deadline *d, long long timeout_ms, long long kill_ms)
{
	memset(d, 0, sizeof(*d));
	d->init_pidfd = -1;
	d->bwrap_pid = -1;
	d->timeout_ms = timeout_ms;
	d->kill_after_ms = kill_ms;
	if (timeout_ms <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &d->at);
	add_ms(&d->at, timeout_ms);
	d->phase = DEADLINE_ARMED;
}

/* PID's parent, from /proc; -1 when it is gone. */
static pid_t
parent_of(pid_t pid)
{
	struct proc_status ps;

	return verify_read_status(pid, &ps) == 0 ? ps.ppid : -1;
}

static int
ns_of(pid_t pid, struct stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	return stat(path, st);
}

/*
 * At the hand-over, with stage two (CMD, of which CMD_PIDFD is a pidfd, or
 * -1) waiting for the go-ahead: note its pid namespace and a pidfd of
 * that namespace's first process, bwrap's child, CMD's parent.  Both read
 * by pid, and trusted only if CMD is still the process of CMD_PIDFD.
 */
void
deadline_watch(struct deadline *d, pid_t cmd, pid_t bwrap, int cmd_pidfd)
{
	struct stat st, init_st;
	pid_t init;

	d->bwrap_pid = bwrap;
	if (d->phase == DEADLINE_OFF || cmd <= 0)
		return;
	init = parent_of(cmd);
	if (ns_of(cmd, &st) < 0 || init <= 1)
		return;
	d->init_pidfd = pidfd_open_cloexec(init);
	if (d->init_pidfd >= 0 &&
	    (ns_of(init, &init_st) < 0 || init_st.st_ino != st.st_ino ||
		init_st.st_dev != st.st_dev))
		fd_close(&d->init_pidfd);
	if (cmd_pidfd < 0 || pidfd_signal(cmd_pidfd, 0) < 0) {
		fd_close(&d->init_pidfd);
		return;
	}
	d->ns_dev = st.st_dev;
	d->ns_ino = st.st_ino;
	d->have_ns = true;
}

/* How long the loop may sleep before the next step, into BUF; NULL when
 * no step is due. */
struct timespec *
deadline_left(const struct deadline *d, struct timespec *buf)
{
	struct timespec now;

	if (d->phase != DEADLINE_ARMED && d->phase != DEADLINE_TERMED)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &now);
	buf->tv_sec = d->at.tv_sec - now.tv_sec;
	buf->tv_nsec = d->at.tv_nsec - now.tv_nsec;
	if (buf->tv_nsec < 0) {
		buf->tv_sec--;
		buf->tv_nsec += 1000000000L;
	}
	if (buf->tv_sec < 0)
		buf->tv_sec = buf->tv_nsec = 0;
	return buf;
}

/*
 * SIG to every member of the sandbox's pid namespace.  False when the
 * members could not all be reached: /proc unreadable, or no descriptor
 * left for a pidfd (the launcher at its RLIMIT_NOFILE).
 */
static bool
signal_members(const struct deadline *d, int sig)
{
	DIR *dir;
	struct dirent *e;
	bool all = true;

	if (!d->have_ns)
		return true;
	if ((dir = opendir("/proc")) == NULL)
		return false;
	while ((e = readdir(dir)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		struct stat st;
		int pidfd;

		if (*end != '\0' || pid <= 0 || pid == getpid())
			continue;
		pidfd = pidfd_open_cloexec((pid_t)pid);
		if (pidfd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOMEM)
				all = false;
			continue;
		}
		if (ns_of((pid_t)pid, &st) == 0 && st.st_ino == d->ns_ino &&
		    st.st_dev == d->ns_dev)
			(void)pidfd_signal(pidfd, sig);
		close(pidfd);
	}
	closedir(dir);
	return all;
}

/*
 * The whole namespace, at once: its first process killed, the kernel
 * kills the rest.  Without that pidfd, each member and bwrap itself,
 * whose child then dies with it (bwrap's --die-with-parent).
 */
static void
kill_namespace(const struct deadline *d)
{
	if (d->init_pidfd >= 0 && pidfd_signal(d->init_pidfd, SIGKILL) == 0)
		return;
	(void)signal_members(d, SIGKILL);
	if (d->bwrap_pid > 0)
		(void)kill(d->bwrap_pid, SIGKILL);
}

/* The event channel's word of a step (EVENTS in sbox-exec(1)). */
static void
say_step(const char *sig, long long after_ms)
{
	struct event ev;

	event_start(&ev, "timeout");
	event_str(&ev, "signal", sig);
	event_int(&ev, "after_ms", after_ms);
	event_emit(&ev);
}

/* Take the step that is due, if one is; returns the phase now. */
enum deadline_phase
deadline_check(struct deadline *d)
{
	struct timespec left;

	if (deadline_left(d, &left) == NULL || left.tv_sec > 0 ||
	    left.tv_nsec > 0)
		return d->phase;
	if (d->phase == DEADLINE_ARMED) {
		/* Members that cannot be told get no grace: better killed
		 * now than left running past the deadline. */
		if (!signal_members(d, SIGTERM)) {
			kill_namespace(d);
			d->phase = DEADLINE_KILLED;
			say_step("SIGKILL", d->timeout_ms);
			return d->phase;
		}
		if (!d->have_ns && d->bwrap_pid > 0)
			(void)kill(d->bwrap_pid, SIGTERM);
		d->phase = DEADLINE_TERMED;
		add_ms(&d->at, d->kill_after_ms);
		say_step("SIGTERM", d->timeout_ms);
	} else {
		kill_namespace(d);
		d->phase = DEADLINE_KILLED;
		say_step("SIGKILL", d->timeout_ms + d->kill_after_ms);
	}
	return d->phase;
}

void
deadline_close(struct deadline *d)
{
	fd_close(&d->init_pidfd);
}
