/*
 * termfilter.h - the command's output to a terminal, without the escape
 * sequences that write the clipboard or make the terminal answer.
 *
 * A streaming filter: bytes go in as they were read, in pieces of any
 * size, and what may reach the caller's terminal comes out.  The manual
 * page's "The terminal" lists what is taken out and why.  Its state is of
 * fixed size: a sequence is held back only up to TERMFILTER_HOLD bytes,
 * and one being dropped is dropped up to TERMFILTER_DROP_MAX bytes, after
 * which what follows is read as text again.
 */
#ifndef SBOX_TERMFILTER_H
#define SBOX_TERMFILTER_H

#include <stdbool.h>
#include <stddef.h>

#define TERMFILTER_HOLD 1024
#define TERMFILTER_DROP_MAX (1024 * 1024)
/* Room termfilter_run() needs for N bytes in (a byte that is not UTF-8
 * becomes U+FFFD, three bytes). */
#define TERMFILTER_OUT_MAX(n) (3 * (n) + TERMFILTER_HOLD + 8)
/* Room termfilter_finish() needs. */
#define TERMFILTER_FINISH_MAX 1

struct termfilter {
	unsigned char state;
	unsigned char u8[4];   /* a UTF-8 character begun, not yet whole */
	unsigned char u8_have; /* its bytes so far */
	unsigned char u8_need; /* its length */
	unsigned char marker;  /* CSI or DCS: private marker (<=>?), or 0 */
	unsigned char inter;   /* its first intermediate byte, or 0 */
	unsigned char ninter;  /* how many intermediate bytes */
	bool bad;	       /* a form no terminal acts on: dropped */
	bool p0_done;	       /* the first parameter has ended */
	bool param_seen;       /* a parameter byte (OSC: a digit) seen */
	bool open;	       /* a string passed on may not have ended */
	bool lock_or_echo;     /* CSI: a parameter 2 or 12 */
	unsigned long p0;      /* the first parameter (OSC: the number) */
	unsigned long cur;     /* CSI: the parameter being read */
	size_t dropped;	       /* bytes dropped of the current sequence */
	size_t nheld;
	unsigned char held[TERMFILTER_HOLD]; /* the sequence being judged */
};

void termfilter_init(struct termfilter *);
size_t termfilter_run(struct termfilter *, const void *, size_t,
    unsigned char *);
size_t termfilter_finish(struct termfilter *, unsigned char *);

#endif
