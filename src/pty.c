/*
 * pty.c - the sandbox's own terminal, and the caller's kept out of it.
 *
 * Owns: finding out which of descriptors 0-2 are terminals, a new
 * pseudo-terminal with the caller's settings and window size, the caller's
 * terminal in raw mode while the launcher relays keys and output, and the
 * caller's settings put back.
 *
 * MUST: never hand a descriptor of the caller's terminal to the child (it
 * gets the pseudo-terminal's other end in each place a terminal was);
 * change the caller's terminal settings only while the launcher is its
 * foreground job and relaying its input, and put them back on every way
 * out; never set O_NONBLOCK on the caller's descriptors (their open file
 * descriptions are shared with the caller's shell).  pty_child_stdio runs
 * between vfork and exec: async-signal-safe calls only.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "fd.h"
#include "pty.h"
#include "util.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

/* The other end of MASTER: from the master itself where the kernel can
 * (4.13 and later), so that no path is looked up; else by its number. */
static int
open_peer(int master)
{
	unsigned int n;
	char path[32];
	int fd;

	fd = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 || (errno != EINVAL && errno != ENOTTY))
		return fd;
	if (ioctl(master, TIOCGPTN, &n) < 0)
		return -1;
	snprintf(path, sizeof(path), "/dev/pts/%u", n);
	return util_open(path, O_RDWR | O_NOCTTY, 0);
}

void
pty_close(struct pty *t)
{
	fd_close(&t->master);
	fd_close(&t->slave);
	fd_close(&t->in);
	fd_close(&t->out);
	fd_close(&t->ctl);
}

/* No terminal: nothing to relay. */
void
pty_none(struct pty *t)
{
	memset(t, 0, sizeof(*t));
	t->master = t->slave = t->in = t->out = t->ctl = -1;
}

/*
 * Find the caller's terminal among descriptors 0-2 and, if there is one,
 * make a pseudo-terminal set up like it.  T->master is -1 when none of
 * 0-2 is a terminal: then there is nothing to relay.
 */
int
pty_open(struct pty *t, struct sbox_error *err)
{
	int unlock = 0, ctl = -1;
	struct winsize ws;

	pty_none(t);
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		t->tty[fd] = isatty(fd) == 1;
		if (t->tty[fd] && ctl < 0)
			ctl = fd;
	}
	if (ctl < 0)
		return 0;
	if (tcgetattr(ctl, &t->saved) < 0)
		goto fail;
	t->master = util_open("/dev/ptmx", O_RDWR | O_NOCTTY | O_NONBLOCK, 0);
	if (t->master < 0 || ioctl(t->master, TIOCSPTLCK, &unlock) < 0 ||
	    (t->slave = open_peer(t->master)) < 0 ||
	    tcsetattr(t->slave, TCSANOW, &t->saved) < 0)
		goto fail;
	if (ioctl(ctl, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(t->master, TIOCSWINSZ, &ws);
	/* Our own copies: 0 and 1 go to /dev/null once the command runs. */
	t->ctl = util_dup(ctl, 3);
	if (t->tty[STDIN_FILENO])
		t->in = util_dup(STDIN_FILENO, 3);
	t->out = util_dup(t->tty[STDOUT_FILENO] ? STDOUT_FILENO :
		t->tty[STDERR_FILENO]		? STDERR_FILENO :
						  STDIN_FILENO,
	    3);
	if (t->ctl < 0 || t->out < 0 || (t->tty[STDIN_FILENO] && t->in < 0))
		goto fail;
	return 0;
fail:
	sbox_error_set(err, SBOX_PROBE_FAILED,
	    "cannot make a terminal for the sandbox: %s", strerror(errno));
	pty_close(t);
	return -1;
}

/*
 * In the child: the sandbox's terminal in place of each of 0 and 1 that
 * was the caller's.  (Descriptor 2 is bwrap's error pipe there; stage two
 * is handed the terminal for the command's stderr separately.)
 */
int
pty_child_stdio(const struct pty *t)
{
	for (int fd = STDIN_FILENO; fd <= STDOUT_FILENO; fd++)
		if (t->tty[fd] && dup2(t->slave, fd) < 0)
			return -1;
	return 0;
}

/* Whether the launcher is the caller's terminal's foreground job. */
bool
pty_foreground(const struct pty *t)
{
	return t->ctl >= 0 && tcgetpgrp(t->ctl) == getpgrp();
}

/* Whether a canonical read's LINE of N bytes ended at a line's end, not
 * at an end of input (which the read leaves out) or at the read's size. */
static bool
line_ended(const struct termios *tio, const char *line, size_t n)
{
	const unsigned char last = (unsigned char)line[n - 1];

	return last == '\n' ||
	    (tio->c_cc[VEOL] != _POSIX_VDISABLE && last == tio->c_cc[VEOL]) ||
	    (tio->c_cc[VEOL2] != _POSIX_VDISABLE && last == tio->c_cc[VEOL2]);
}

/*
 * What the caller's terminal holds already, read in its own canonical
 * mode into KEYS (ROOM bytes, PTY_DRAIN_MAX at least): the lines typed
 * ahead as they are, and each end of input as the end of input of the
 * sandbox's terminal, its VEOF character.  Left there, an end of input
 * would become a NUL byte at the change to raw mode (the kernel keeps it
 * as a marked NUL, read as a plain one once the terminal is not
 * canonical), which the command would read instead of its end (script(1)
 * types one when its own input ends).  VEOF is switched off first, so
 * that none can be kept between this look and the change: one typed
 * from now on comes through as the key it is.  A line not yet ended
 * stays, and is read raw.  Returns the bytes put in KEYS.
 */
static size_t
drain_canonical(struct pty *t, char *keys, size_t room)
{
	struct termios noeof = t->saved;
	const char eof = (char)t->saved.c_cc[VEOF];
	size_t n = 0;

	if (!(t->saved.c_lflag & ICANON) ||
	    t->saved.c_cc[VEOF] == _POSIX_VDISABLE)
		return 0;
	noeof.c_cc[VEOF] = _POSIX_VDISABLE;
	(void)tcsetattr(t->ctl, TCSANOW, &noeof);
	/* Each round adds a byte at least: bounded by ROOM. */
	while (n + 1 < room) {
		struct pollfd pfd = { .fd = t->in, .events = POLLIN };
		size_t want = room - n - 1;
		ssize_t got;

		if (poll(&pfd, 1, 0) != 1 || pfd.revents != POLLIN)
			break;
		got = read(t->in, keys + n, want);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		n += (size_t)got;
		if (got == 0 ||
		    ((size_t)got < want &&
			!line_ended(&t->saved, keys + n - got, (size_t)got)))
			keys[n++] = eof;
	}
	return n;
}

/*
 * Raw mode, but with ISIG: the keyboard's interrupt, quit and suspend
 * characters still signal the caller's foreground job, which is us, and
 * the launcher passes them on.  Output processing is the sandbox
 * terminal's to do.  Only when we relay keys and are in the foreground:
 * a background job must leave the terminal to whoever is.  What the
 * terminal held before the change is put in KEYS (drain_canonical()), to
 * be relayed first; returns its size.
 */
size_t
pty_enter_raw(struct pty *t, char *keys, size_t room)
{
	struct termios raw = t->saved;
	size_t n;

	if (t->master < 0 || t->in < 0 || !pty_foreground(t))
		return 0;
	n = drain_canonical(t, keys, room);
	cfmakeraw(&raw);
	raw.c_lflag |= ISIG;
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	/* Raw or not, the settings are no longer the caller's. */
	(void)tcsetattr(t->ctl, TCSANOW, &raw);
	t->raw = true;
	return n;
}

/*
 * The caller's settings back.  SIGTTOU is held off meanwhile: were we
 * moved to the background while the terminal is raw, leaving it raw would
 * be worse than restoring it from there.
 */
void
pty_restore(struct pty *t)
{
	sigset_t ttou, old;

	if (!t->raw)
		return;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	(void)sigprocmask(SIG_BLOCK, &ttou, &old);
	while (tcsetattr(t->ctl, TCSANOW, &t->saved) < 0 && errno == EINTR)
		;
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	t->raw = false;
}

/* The caller's window size to the sandbox's terminal; the kernel tells
 * the terminal's foreground group when it changed. */
void
pty_pass_winsize(const struct pty *t)
{
	struct winsize ws;

	if (t->master >= 0 && ioctl(t->ctl, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(t->master, TIOCSWINSZ, &ws);
}

/* Append the descriptors the relay needs to FDS (room for four). */
void
pty_keep_fds(const struct pty *t, int *fds, size_t *n)
{
	const int all[] = { t->master, t->in, t->out, t->ctl };

	for (size_t i = 0; i < N_ELEMENTS(all); i++)
		if (all[i] >= 0)
			fds[(*n)++] = all[i];
}
