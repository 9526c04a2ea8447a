/*
 * lsprelay.c - --lsp: the caller's input to the command, through the
 * launcher (sbox-exec(1), "Language servers").
 *
 * An editor sends its own pid as processId in initialize; servers built
 * on vscode-languageserver exit when kill(processId, 0) fails, which it
 * does for every host pid inside the sandbox's pid namespace.  So the
 * first message, when it is such a request, reaches the command with
 * processId null (lsp.c), and the launcher does the server's check from
 * outside, on the host's pid: a pidfd of the process named, opened when
 * the message arrives.  When that process ends (or had ended already),
 * the command gets SIGTERM and, LSPRELAY_GRACE_MS later, the sandbox's
 * first process SIGKILL, which ends the whole pid namespace.  Every
 * other byte, and the end of the input, pass unchanged.
 *
 * MUST: signal only through the pidfds handed over (the command's, the
 * sandbox's first process's), never a bare pid; nothing of the host is
 * shown to the sandbox (the pid it was given is taken away, not
 * replaced).  Everything it opens is close-on-exec.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd.h"
#include "lsp.h"
#include "lsprelay.h"
#include "util.h"

#define CHUNK 65536

static struct {
	pthread_t thread;
	bool running;
	int in, out;	  /* the caller's input; the command's */
	int stop[2];	  /* a byte: end now */
	int cmd, init;	  /* pidfds: the command, the sandbox's first */
	int editor;	  /* pidfd of the process processId named */
	bool passing;	  /* past the first message */
	struct buf first; /* the first message, until whole */
	struct buf pend;  /* read, not yet written */
	size_t off;
} r = { .in = -1,
	.out = -1,
	.stop = { -1, -1 },
	.cmd = -1,
	.init = -1,
	.editor = -1 };

/* The editor named in initialize has ended: so does the sandbox. */
static void
end_sandbox(void)
{
	struct pollfd pfd = { .fd = r.cmd, .events = POLLIN };

	(void)syscall(SYS_pidfd_send_signal, r.cmd, SIGTERM, NULL, 0);
	while (poll(&pfd, 1, LSPRELAY_GRACE_MS) < 0 && errno == EINTR)
		;
	if (pfd.revents == 0)
		(void)syscall(SYS_pidfd_send_signal, r.init, SIGKILL, NULL, 0);
	fd_close(&r.editor);
}

/* The first message is whole (or will never be): on its way, rewritten
 * where it is an initialize request naming a process. */
static void
first_done(size_t hlen, size_t len)
{
	pid_t pid = 0;

	r.passing = true;
	if (len > 0 && lsp_rewrite_first(r.first.s, hlen, len, &r.pend, &pid)) {
		buf_add(&r.pend, r.first.s + len, r.first.len - len);
		r.editor = (int)syscall(SYS_pidfd_open, pid, 0);
		if (r.editor < 0 && errno == ESRCH)
			end_sandbox(); /* as the server would, at once */
	} else {
		buf_add(&r.pend, r.first.s, r.first.len);
	}
	buf_clear(&r.first);
}

/* N bytes read from the caller at P. */
static void
got_input(const char *p, size_t n)
{
	size_t hlen = 0, blen = 0;

	if (r.passing) {
		buf_add(&r.pend, p, n);
		return;
	}
	buf_add(&r.first, p, n);
	switch (lsp_frame(r.first.s, r.first.len, &hlen, &blen)) {
	case LSP_FRAME_OK:
		first_done(hlen, hlen + blen);
		break;
	case LSP_FRAME_BAD:
		first_done(0, 0);
		break;
	case LSP_FRAME_MORE:
		break;
	}
}

/* Write what is pending; false when the command's input is gone. */
static bool
flush_some(void)
{
	ssize_t w = write(r.out, r.pend.s + r.off, r.pend.len - r.off);

	if (w < 0)
		return errno == EINTR || errno == EAGAIN;
	r.off += (size_t)w;
	if (r.off == r.pend.len) {
		r.pend.len = 0;
		r.off = 0;
	}
	return true;
}

static void *
relay_main(void *arg)
{
	static char chunk[CHUNK];
	bool in_open = true;

	(void)arg;
	for (;;) {
		struct pollfd pfd[3] = { { r.stop[0], POLLIN, 0 },
			{ r.editor, POLLIN, 0 }, { -1, 0, 0 } };

		if (r.out >= 0 && r.off < r.pend.len)
			pfd[2] = (struct pollfd){ r.out, POLLOUT, 0 };
		else if (r.out >= 0 && in_open)
			pfd[2] = (struct pollfd){ r.in, POLLIN, 0 };
		else
			fd_close(&r.out); /* the end of the input, passed on */
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents != 0)
			break;
		if (pfd[1].revents != 0)
			end_sandbox();
		if (pfd[2].fd == r.out && pfd[2].revents != 0 && !flush_some())
			fd_close(&r.out);
		else if (pfd[2].fd == r.in && pfd[2].revents != 0) {
			ssize_t n = read(r.in, chunk, sizeof(chunk));

			if (n > 0)
				got_input(chunk, (size_t)n);
			else if (n == 0 ||
			    (errno != EINTR && errno != EAGAIN)) {
				in_open = false;
				if (!r.passing)
					first_done(0, 0);
			}
		}
	}
	return NULL;
}

/*
 * Relay IN (the caller's input) to OUT (the command's), both taken;
 * CMD and INIT are pidfds of the command and of the sandbox's first
 * process, copied.  -1 (errno set) when the thread cannot start: the
 * caller ends the sandbox then.
 */
int
lsprelay_start(int in, int out, int cmd, int init)
{
	sigset_t all, old;
	int rc;

	r.in = in;
	r.out = out;
	r.cmd = util_dup(cmd, 3);
	r.init = init >= 0 ? util_dup(init, 3) : -1;
	if (r.in < 0 || r.cmd < 0 || pipe2(r.stop, O_CLOEXEC) < 0 ||
	    fcntl(r.out, F_SETFL, O_NONBLOCK) < 0)
		return -1;
	/* A write to a command that closed its input fails (EPIPE) in
	 * this thread instead of killing the launcher. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&r.thread, NULL, relay_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	r.running = true;
	return 0;
}

/* Stop relaying, and let go of everything. */
void
lsprelay_stop(void)
{
	if (r.running) {
		(void)!write(r.stop[1], "", 1);
		pthread_join(r.thread, NULL);
		r.running = false;
	}
	fd_close(&r.in);
	fd_close(&r.out);
	fd_close(&r.stop[0]);
	fd_close(&r.stop[1]);
	fd_close(&r.cmd);
	fd_close(&r.init);
	fd_close(&r.editor);
	buf_clear(&r.first);
	buf_clear(&r.pend);
}
