/*
 * pty.h - the sandbox's own terminal, relayed to the caller's.
 *
 * When any of descriptors 0-2 is a terminal, the sandbox gets the other
 * end of a pseudo-terminal in its place and the launcher relays between
 * the two; the caller's terminal never enters the sandbox.
 */
#ifndef SBOX_PTY_H
#define SBOX_PTY_H

#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

#include "sbox.h"

struct pty {
	int master;  /* the launcher's end; -1: no terminal, no relay */
	int slave;   /* the sandbox's end, until the fork */
	int in;	     /* the caller's terminal to read keys from, or -1 */
	int out;     /* the caller's terminal to write output to */
	int ctl;     /* the caller's terminal for settings and size */
	bool tty[3]; /* which of descriptors 0-2 were terminals */
	bool raw;    /* the caller's terminal is in our settings now */
	struct termios saved; /* the caller's settings, to restore */
};

void pty_none(struct pty *);
int pty_open(struct pty *, struct sbox_error *);
void pty_close(struct pty *);
int pty_child_stdio(const struct pty *);
bool pty_foreground(const struct pty *);
/* The room pty_enter_raw() needs for what a terminal holds: the kernel's
 * buffer of a terminal's input (N_TTY_BUF_SIZE). */
#define PTY_DRAIN_MAX 4096

size_t pty_enter_raw(struct pty *, char *, size_t);
void pty_restore(struct pty *);
void pty_pass_winsize(const struct pty *);
void pty_keep_fds(const struct pty *, int *, size_t *);

#endif
