/*
 * ready.c - waiting for the sandbox to report in, and collecting what
 * bwrap said when it does not (reason.c says what that means).
 *
 * The launch itself is the test of whether the sandbox can be made: there
 * is no separate trial run.  What fails here is reported as
 * sandbox-probe-failed, the status's name for it (sbox-exec(1), STATUS).
 * MUST: never let bwrap's output reach the caller's stdout (its stderr is
 * ours until the sandbox reports in; its stdout is never touched by
 * --check, which runs no command).  MUST NOT exit or print.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ready.h"
#include "stage2.h"
#include "util.h"

/* At most this many descendants are looked for in one pass. */
#define DESCENDANTS_MAX 65536
/* How long a refusal waits for every descendant to be gone. */
#define DESCENDANTS_WAIT_MS 2000

/* bwrap's messages are short; more than this is kept only in part. */
#define STDERR_KEEP 8192

/* Read what is there on FD into B; returns 0 at EOF, 1 otherwise. */
static int
drain_some(int fd, struct buf *b)
{
	char chunk[1024];
	ssize_t n;

	n = read(fd, chunk, sizeof(chunk));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	if (b->len < STDERR_KEEP)
		buf_add(b, chunk, (size_t)n);
	return 1;
}

/* The descriptors passed in C: the first socket to OUT->net_fd and the
 * other sockets (the loopback addresses served inside) to OUT->fwd_fd,
 * the first other one (the watch filter's listener) to OUT->watch_fd,
 * each unless it holds one already; the rest closed. */
static void
take_rights(struct cmsghdr *c, struct ready_outcome *out)
{
	size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

	for (size_t i = 0; i < n; i++) {
		struct stat st;
		int got, *to;
		bool sock;

		memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
		sock = fstat(got, &st) == 0 && S_ISSOCK(st.st_mode);
		if (sock && out->net_fd >= 0 &&
		    out->nfwd < N_ELEMENTS(out->fwd_fd)) {
			out->fwd_fd[out->nfwd++] = got;
			continue;
		}
		to = sock ? &out->net_fd : &out->watch_fd;
		if (*to < 0)
			*to = got;
		else
			close(got);
	}
}

/*
 * One message from stage two: 'R', perhaps what the lookup of the
 * command found (stage2.h), its credentials attached, and with
 * --allow-host the proxy's listening socket (to OUT->net_fd).
 */
static int
read_ready(int ctrl, pid_t *pid, struct ready_outcome *out)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred)) +
		    CMSG_SPACE((STAGE2_MAX_FDS + 2) * sizeof(int))];
		struct cmsghdr align;
	} u;
	char report[STAGE2_REPORT_MAX + 1] = { 0 };
	struct iovec iov = { .iov_base = report, .iov_len = sizeof(report) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	ssize_t n;

	do
		n = recvmsg(ctrl, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	/* Descriptors first: whatever the report, none is left open. */
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL && n >= 0;
	     c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			take_rights(c, out);
	if (n < 1 || n > STAGE2_REPORT_MAX || report[0] != 'R' ||
	    (msg.msg_flags & MSG_CTRUNC) != 0 ||
	    (msg.msg_flags & MSG_TRUNC) != 0 ||
	    memchr(report, '\0', (size_t)n) != NULL)
		return -1;
	if (n > 1) {
		report[n] = '\0';
		out->lookup = report[1];
		out->lookup_text = xstrdup(report + 2);
	}
	*pid = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL;
	     c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred cred;

			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			*pid = cred.pid;
		}
	return 0;
}

/*
 * Kill what is left of a sandbox whose bwrap is gone or being killed: the
 * launcher is a child subreaper (launch.c), so a sandbox process that
 * bwrap left behind before it armed its parent-death signal is our child
 * now, and killing it (the sandbox's pid 1) ends everything in its pid
 * namespace.  Besides bwrap we start no children, so every one is the
 * sandbox's.
 */
static void
kill_orphans(pid_t child)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children",
	    (int)getpid());
	fd = util_open(path, O_RDONLY, 0);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (char *p = buf, *end; *p != '\0'; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0 && pid != child)
			(void)kill((pid_t)pid, SIGKILL);
	}
}

/* bwrap and everything it started: killed. */
static void
kill_sandbox(pid_t child)
{
	/*
	 * The whole process group: a sandbox caught before it armed its
	 * parent-death signal would outlive bwrap.
	 */
	kill(-child, SIGKILL);
	kill(child, SIGKILL);
	kill_orphans(child);
}

/*
 * Wait up to TIMEOUT_MS for stage two to report in on CTRL, collecting
 * bwrap's stderr from ERR meanwhile and watching bwrap itself: when bwrap
 * ends first, a sandbox it left half made is torn down at once (nothing
 * else would end it: its processes hold our descriptors).  Returns 0 when
 * ready, -1 otherwise (bwrap ended or gave up, or time ran out: then bwrap
 * has been killed).
 */
int
ready_wait(int ctrl, int err, pid_t child, long timeout_ms,
    struct ready_outcome *out)
{
	struct buf b = { 0 };
	long deadline = util_now_ms() + timeout_ms;
	int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	struct pollfd pfd[3] = {
		{ .fd = ctrl, .events = POLLIN },
		{ .fd = err, .events = POLLIN },
		{ .fd = pidfd, .events = POLLIN },
	};

	memset(out, 0, sizeof(*out));
	out->net_fd = -1;
	out->watch_fd = -1;
	for (;;) {
		long left = deadline - util_now_ms();
		int r;

		if (left <= 0) {
			out->timed_out = true;
			kill_sandbox(child);
			break;
		}
		r = poll(pfd, 3, (int)(left > 60000 ? 60000 : left));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			kill_sandbox(child);
			break;
		}
		if (pfd[1].revents != 0 && !drain_some(err, &b))
			pfd[1].fd = -1;
		if (pfd[0].revents != 0) {
			if (read_ready(ctrl, &out->cmd_pid, out) == 0)
				out->ready = true;
			else /* a broken report: nothing of it may go on */
				kill_sandbox(child);
			break;
		}
		if (pfd[2].revents != 0) {
			/* bwrap ended and stage two never reported. */
			out->bwrap_ended = true;
			kill_sandbox(child);
			break;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	out->bwrap_stderr = buf_steal(&b);
	return out->ready ? 0 : -1;
}

/* The children of PID (every thread's) into *V, *N of them. */
static void
children_of(pid_t pid, pid_t **v, size_t *n, size_t *cap)
{
	char path[64];
	DIR *tasks;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	tasks = opendir(path);
	if (tasks == NULL)
		return;
	while ((de = readdir(tasks)) != NULL) {
		cleanup_buf struct buf list = { 0 };
		char file[320], chunk[4096];
		ssize_t got;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "/proc/%d/task/%s/children",
		    (int)pid, de->d_name);
		fd = util_open(file, O_RDONLY, 0);
		if (fd < 0)
			continue;
		while ((got = read(fd, chunk, sizeof(chunk))) > 0)
			buf_add(&list, chunk, (size_t)got);
		close(fd);
		for (char *p = list.s, *end; p != NULL && *p != '\0'; p = end) {
			long child = strtol(p, &end, 10);

			if (end == p)
				break;
			*v = util_grow(*v, *n, cap, sizeof(**v));
			(*v)[(*n)++] = (pid_t)child;
		}
	}
	closedir(tasks);
}

/*
 * SIGKILL to every descendant of ours, found by walking the tree of
 * children from the launcher down, whatever session or process group
 * each has moved to.  Returns how many were found.
 */
static size_t
kill_descendants(void)
{
	cleanup_free pid_t *v = NULL;
	size_t n = 0, cap = 0;

	children_of(getpid(), &v, &n, &cap);
	for (size_t i = 0; i < n && i < DESCENDANTS_MAX; i++) {
		(void)kill(v[i], SIGKILL);
		children_of(v[i], &v, &n, &cap);
	}
	return n;
}

/*
 * After a refusal, nothing the launcher started may outlive it or keep
 * the caller's descriptors (sbox-exec(1), EXIT STATUS): not bwrap's
 * children, not what they detached with setsid() or a double fork.  The
 * launcher is a child subreaper, so whatever loses its parent becomes
 * ours: kill every descendant, reap, and again until there is no child
 * left (or DESCENDANTS_WAIT_MS has passed: a process of another user's
 * cannot be killed).
 */
void
ready_end_descendants(void)
{
	long deadline = util_now_ms() + DESCENDANTS_WAIT_MS;

	for (;;) {
		struct timespec pause = { 0, 1000000 };
		pid_t r;

		(void)kill_descendants();
		do
			r = waitpid(-1, NULL, WNOHANG);
		while (r > 0 || (r < 0 && errno == EINTR));
		if (r < 0 && errno == ECHILD)
			return;
		if (util_now_ms() >= deadline)
			return;
		nanosleep(&pause, NULL);
	}
}

/* After a failure: reap bwrap and read the rest of what it said. */
void
ready_collect_failure(int err, pid_t child, struct ready_outcome *out)
{
	struct buf b = { 0 };
	struct pollfd pfd = { .fd = err, .events = POLLIN };
	long deadline;

	buf_adds(&b, out->bwrap_stderr);
	while (!out->reaped) {
		if (waitpid(child, &out->wait_status, 0) == child)
			out->reaped = true;
		else if (errno != EINTR)
			break;
	}
	if (out->reaped)
		ready_end_descendants();
	/* Whatever still holds the pipe dies with bwrap; do not hang on it. */
	deadline = util_now_ms() + 1000;
	while (util_now_ms() < deadline) {
		int r = poll(&pfd, 1, 100);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || !drain_some(err, &b))
			break;
	}
	free(out->bwrap_stderr);
	out->bwrap_stderr = buf_steal(&b);
}

void
ready_outcome_free(struct ready_outcome *o)
{
	free(o->bwrap_stderr);
	o->bwrap_stderr = NULL;
	free(o->lookup_text);
	o->lookup_text = NULL;
	if (o->net_fd >= 0)
		close(o->net_fd);
	o->net_fd = -1;
	if (o->watch_fd >= 0)
		close(o->watch_fd);
	o->watch_fd = -1;
	while (o->nfwd > 0)
		if (o->fwd_fd[--o->nfwd] >= 0)
			close(o->fwd_fd[o->nfwd]);
}
