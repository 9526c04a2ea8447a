/*
 * termfilter.c - what the command writes to a terminal, filtered.
 *
 * Owns the judgement of each escape sequence the command writes to the
 * caller's terminal: passed on whole, or dropped whole.  Pure: bytes in,
 * bytes out, no I/O; the relay in launch.c feeds it.
 *
 * MUST: never hand the terminal the start of a sequence it then drops
 * (a sequence is held back until it is judged, and a string passed on
 * as it comes ends, for the filter, at the first byte any terminal could
 * end it at); keep its state of fixed size; read the output as the
 * terminal would, UTF-8, with C1 controls both as single bytes and as
 * the characters U+0080-U+009F.  The manual page's "The terminal" lists
 * what is dropped and why: keep the two the same.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "termfilter.h"

enum {
	S_GROUND,
	S_ESC,	    /* ESC and perhaps intermediate bytes: held */
	S_CSI,	    /* a control sequence up to its final byte: held */
	S_CSI_DROP, /* one too long to hold: dropped up to its final byte */
	S_OSC,	    /* an operating system command: held while judged */
	S_OSC_ESC,  /* ESC in one, perhaps its end (ESC \) */
	S_DCS,	    /* a device control string up to its final byte: held */
	S_PASS,	    /* a string judged harmless, passed on as it comes */
	S_DROP,	    /* a string dropped up to its end */
	S_DROP_ESC, /* ESC in one, perhaps its end */
};

/* A character that is neither ASCII nor a C1 control. */
#define HIGH 0x100u

#define BEL 0x07
#define ENQ 0x05
#define CAN 0x18
#define SUB 0x1a
#define ESC 0x1b
#define DEL 0x7f
#define ST8 0x9c /* the string terminator as a C1 control */

static const unsigned char replacement[] = { 0xef, 0xbf, 0xbd }; /* U+FFFD */

struct sink {
	unsigned char *p;
	size_t len;
};

static void unit(struct termfilter *, unsigned, const unsigned char *, size_t,
    struct sink *);

void
termfilter_init(struct termfilter *f)
{
	memset(f, 0, sizeof(*f));
	f->state = S_GROUND;
}

static void
emit(struct sink *k, const unsigned char *b, size_t n)
{
	memcpy(k->p + k->len, b, n);
	k->len += n;
}

/* A new sequence begins with B (ESC, or a C1 control). */
static void
begin(struct termfilter *f, int state, const unsigned char *b, size_t n)
{
	f->state = (unsigned char)state;
	f->marker = f->inter = f->ninter = 0;
	f->bad = f->p0_done = f->param_seen = f->lock_or_echo = false;
	f->p0 = f->cur = 0;
	f->dropped = 0;
	memcpy(f->held, b, n);
	f->nheld = n;
}

static bool
hold(struct termfilter *f, const unsigned char *b, size_t n)
{
	if (f->nheld + n > sizeof(f->held))
		return false;
	memcpy(f->held + f->nheld, b, n);
	f->nheld += n;
	return true;
}

static void
release(struct termfilter *f, struct sink *k)
{
	emit(k, f->held, f->nheld);
	f->nheld = 0;
	f->state = S_GROUND;
}

static void
discard(struct termfilter *f, int state)
{
	f->nheld = 0;
	f->dropped = 0;
	f->state = (unsigned char)state;
}

/*
 * Operating system commands passed on as they come: window and icon
 * titles (0, 1, 2), hyperlinks (8), the pointer's shape (22) and the
 * marks a shell puts around its prompt (133).  None makes the terminal
 * answer or reach beyond its own window.
 */
static bool
osc_streamed(unsigned long n)
{
	return n <= 2 || n == 8 || n == 22 || n == 133;
}

/* Colours set (4, 5, 10-19) or reset (104, 105, 110-119): held whole,
 * since a '?' anywhere in one makes it a query. */
static bool
osc_colour(unsigned long n)
{
	return n == 4 || n == 5 || (n >= 10 && n <= 19) || n == 104 ||
	    n == 105 || (n >= 110 && n <= 119);
}

/*
 * A control sequence ending in FINAL that is a query or report (the
 * terminal's answer is typed into the input), prints, or reaches beyond
 * the terminal's screen.  The manual page, "The terminal", says why each.
 */
static bool
csi_dropped(const struct termfilter *f, unsigned final)
{
	unsigned char m = f->marker, i = f->ninter ? f->inter : 0;

	if (f->bad || f->ninter > 1)
		return true;
	switch (final) {
	case 'c': /* DA1, DA2, DA3: device attributes */
	case 'x': /* DECREQTPARM */
		return i == 0;
	case 'n': /* DSR: status, cursor position, ... */
		return i == 0 && (m == 0 || m == '?');
	case 'p': /* DECRQM (mode report), DECSCL (conformance level) */
		return i == '$' || i == '"';
	case 't': /* window operations and reports but the title stack */
		return i == 0 && !(m == 0 && (f->p0 == 22 || f->p0 == 23));
	case 'y': /* DECRQCRA: a checksum of what is on the screen */
		return i == '*';
	case 'w': /* DECRQPSR: cursor and tab stop report */
		return i == '$';
	case 'u': /* DECRQTSR, DECRQUPSS; the keyboard protocol's query */
		return i == '$' || i == '&' || (i == 0 && m == '?');
	case 'v': /* DECRQDE: displayed extent report */
		return i == '"';
	case 'S': /* XTSMGRAPHICS: graphics attributes */
	case 'm': /* XTQMODKEYS: modifier key report */
		return m == '?';
	case 'q': /* XTVERSION */
		return m == '>';
	case 'R': /* XTREPORTCOLORS */
		return i == '#';
	case '|': /* XTREPORTSGR; DECRQLP: locator position */
		return i == '#' || i == '\'';
	case 'h': /* SM, RM: KAM locks the keyboard, SRM echoes */
	case 'l': /* what is typed (passwords too) on the screen */
		return m == 0 && i == 0 && f->lock_or_echo;
	case 'i': /* MC: media copy, to a printer */
	case ']': /* the Linux console's own settings */
		return true;
	default:
		return false;
	}
}

/* A control character inside a sequence still held: the terminal acts on
 * it there and then, so it goes out before the sequence. */
static void
control_in_sequence(struct termfilter *f, unsigned c, const unsigned char *b,
    size_t n, struct sink *k)
{
	if (c == ESC) {
		begin(f, S_ESC, b, n);
	} else if (c == CAN || c == SUB) {
		discard(f, S_GROUND);
		f->open = false;
		emit(k, b, n);
	} else if (c != ENQ && f->state != S_DCS) {
		emit(k, b, n);
	}
}

/*
 * The final byte of an escape sequence, already held; for a C1 control,
 * the 7-bit form's final byte.
 */
static void
esc_end(struct termfilter *f, unsigned final, struct sink *k)
{
	if (f->ninter == 0) {
		switch (final) {
		case '[':
			f->state = S_CSI;
			return;
		case ']':
			f->state = S_OSC;
			return;
		case 'P':
			f->state = S_DCS;
			return;
		case 'X': /* SOS */
		case '^': /* PM */
		case '_': /* APC: kitty's graphics, which reads files */
			discard(f, S_DROP);
			return;
		case 'Z': /* DECID: the terminal identifies itself */
			discard(f, S_GROUND);
			return;
		case '\\':
			f->open = false;
			break;
		default:
			break;
		}
	} else if (f->inter == '%' || f->inter == ' ') {
		/* The character set (out of UTF-8) or the form of C1
		 * controls: either changes what this filter must read. */
		discard(f, S_GROUND);
		return;
	}
	release(f, k);
}

/* A parameter has ended: note the ANSI modes that lock the keyboard
 * (KAM, 2) or echo what is typed on the screen (SRM, 12). */
static void
param_end(struct termfilter *f)
{
	if (f->cur == 2 || f->cur == 12)
		f->lock_or_echo = true;
	f->cur = 0;
}

/* A parameter byte (0x30-0x3f) of a CSI or DCS. */
static void
parameter(struct termfilter *f, unsigned c)
{
	if (f->ninter > 0) {
		f->bad = true; /* a parameter after an intermediate */
	} else if (c >= '<') {
		if (f->marker != 0 || f->param_seen)
			f->bad = true;
		else
			f->marker = (unsigned char)c;
	} else if (c >= '0' && c <= '9') {
		f->param_seen = true;
		if (!f->p0_done && f->p0 < 100000)
			f->p0 = f->p0 * 10 + (c - '0');
		if (f->cur < 100000)
			f->cur = f->cur * 10 + (c - '0');
	} else {
		param_end(f);
		f->param_seen = f->p0_done = true;
	}
}

static void
intermediate(struct termfilter *f, unsigned c)
{
	if (f->ninter == 0)
		f->inter = (unsigned char)c;
	if (f->ninter < 255)
		f->ninter++;
}

/* An OSC ends with TERMINATOR (B, N bytes): passed on or dropped. */
static void
osc_end(struct termfilter *f, const unsigned char *b, size_t n, struct sink *k)
{
	bool pass = f->p0_done ||
	    (f->param_seen && (osc_streamed(f->p0) || osc_colour(f->p0)));

	if (pass) {
		release(f, k);
		emit(k, b, n);
	} else {
		discard(f, S_GROUND);
	}
}

static void
osc(struct termfilter *f, unsigned c, const unsigned char *b, size_t n,
    struct sink *k)
{
	if (c == BEL || c == ST8) {
		osc_end(f, b, n, k);
	} else if (c == ESC) {
		f->state = S_OSC_ESC;
	} else if (c == CAN || c == SUB) {
		discard(f, S_GROUND);
	} else if (c >= 0x80 && c < 0xa0) {
		discard(f, S_GROUND);
		unit(f, c, b, n, k);
	} else if (c < 0x20 || c >= DEL) {
		discard(f, S_DROP);
	} else if (!f->p0_done) {
		/* The number. */
		if (c >= '0' && c <= '9' && f->p0 < 100000 && hold(f, b, n)) {
			f->p0 = f->p0 * 10 + (c - '0');
			f->param_seen = true;
		} else if (c == ';' && f->param_seen && hold(f, b, n)) {
			f->p0_done = true;
			if (osc_streamed(f->p0)) {
				release(f, k);
				f->state = S_PASS;
				f->open = true;
			} else if (!osc_colour(f->p0)) {
				discard(f, S_DROP);
			}
		} else {
			discard(f, S_DROP);
		}
	} else if (c == '?' || !hold(f, b, n)) {
		discard(f, S_DROP); /* a colour query, or too long */
	}
}

static void
dcs(struct termfilter *f, unsigned c, const unsigned char *b, size_t n,
    struct sink *k)
{
	if (c < 0x20 || c == DEL) {
		control_in_sequence(f, c, b, n, k);
	} else if (c >= 0x80) {
		discard(f, S_GROUND);
		unit(f, c, b, n, k);
	} else if (!hold(f, b, n)) {
		discard(f, S_DROP);
	} else if (c < 0x30) {
		intermediate(f, c);
	} else if (c < 0x40) {
		parameter(f, c);
	} else if (c == 'q' && !f->bad && f->marker == 0 && f->ninter == 0) {
		/* Sixel graphics: drawn in the window, nothing answered. */
		release(f, k);
		f->state = S_PASS;
		f->open = true;
	} else {
		discard(f, S_DROP);
	}
}

static void
csi(struct termfilter *f, unsigned c, const unsigned char *b, size_t n,
    struct sink *k)
{
	if (c < 0x20 || c == DEL) {
		control_in_sequence(f, c, b, n, k);
	} else if (c >= 0x80) {
		discard(f, S_GROUND);
		unit(f, c, b, n, k);
	} else if (!hold(f, b, n)) {
		discard(f, c >= 0x40 ? S_GROUND : S_CSI_DROP);
	} else if (c < 0x30) {
		intermediate(f, c);
	} else if (c < 0x40) {
		parameter(f, c);
	} else {
		param_end(f);
		if (csi_dropped(f, c))
			discard(f, S_GROUND);
		else
			release(f, k);
	}
}

/* After ESC (or a C1 control), perhaps with intermediate bytes. */
static void
esc(struct termfilter *f, unsigned c, const unsigned char *b, size_t n,
    struct sink *k)
{
	if (c < 0x20 || c == DEL) {
		control_in_sequence(f, c, b, n, k);
	} else if (c >= 0x80 || !hold(f, b, n)) {
		discard(f, S_GROUND);
		unit(f, c, b, n, k);
	} else if (c < 0x30) {
		intermediate(f, c);
	} else {
		esc_end(f, c, k);
	}
}

/* A string judged harmless: text only passes as part of it; at anything
 * else the string may have ended, and that is read afresh. */
static void
string_pass(struct termfilter *f, unsigned c, const unsigned char *b, size_t n,
    struct sink *k)
{
	if ((c >= 0x20 && c < DEL) || c == HIGH) {
		emit(k, b, n);
	} else if (c == BEL) {
		emit(k, b, n);
		f->open = false;
		f->state = S_GROUND;
	} else {
		f->state = S_GROUND;
		unit(f, c, b, n, k);
	}
}

/* A string dropped: up to the first byte that may end it, or up to
 * TERMFILTER_DROP_MAX bytes. */
static void
string_drop(struct termfilter *f, unsigned c, const unsigned char *b, size_t n,
    struct sink *k)
{
	if (c == BEL || c == ST8 || c == CAN || c == SUB) {
		discard(f, S_GROUND);
	} else if (c == ESC) {
		f->state = S_DROP_ESC;
	} else if (c >= 0x80 && c < 0xa0) {
		discard(f, S_GROUND);
		unit(f, c, b, n, k);
	} else if ((f->dropped += n) > TERMFILTER_DROP_MAX) {
		discard(f, S_GROUND); /* never ended: text again */
	}
}

/*
 * One character (or one byte that is not UTF-8, or a C1 control) in the
 * current state.  C is its value: ASCII, a C1 control (0x80-0x9f), or
 * HIGH; B and N its bytes.
 */
static void
unit(struct termfilter *f, unsigned c, const unsigned char *b, size_t n,
    struct sink *k)
{
	switch (f->state) {
	case S_GROUND:
		if (c == ESC) {
			begin(f, S_ESC, b, n);
		} else if (c >= 0x80 && c < 0xa0) {
			begin(f, S_ESC, b, n);
			esc_end(f, c - 0x40, k);
		} else if (c != ENQ) { /* ENQ: the answerback message */
			if (c == CAN || c == SUB)
				f->open = false;
			emit(k, b, n);
		}
		break;
	case S_ESC:
		esc(f, c, b, n, k);
		break;
	case S_CSI:
		csi(f, c, b, n, k);
		break;
	case S_CSI_DROP:
		if (c < 0x20 || c == DEL) {
			control_in_sequence(f, c, b, n, k);
		} else if (c >= 0x80) {
			discard(f, S_GROUND);
			unit(f, c, b, n, k);
		} else if (c >= 0x40 ||
		    (f->dropped += n) > TERMFILTER_DROP_MAX) {
			discard(f, S_GROUND);
		}
		break;
	case S_OSC:
		osc(f, c, b, n, k);
		break;
	case S_OSC_ESC:
		if (c == '\\') {
			osc_end(f, (const unsigned char *)"\x1b\\", 2, k);
		} else {
			begin(f, S_ESC, (const unsigned char *)"\x1b", 1);
			unit(f, c, b, n, k);
		}
		break;
	case S_DCS:
		dcs(f, c, b, n, k);
		break;
	case S_PASS:
		string_pass(f, c, b, n, k);
		break;
	case S_DROP:
		string_drop(f, c, b, n, k);
		break;
	case S_DROP_ESC:
		if (c == '\\') {
			discard(f, S_GROUND);
		} else {
			begin(f, S_ESC, (const unsigned char *)"\x1b", 1);
			unit(f, c, b, n, k);
		}
		break;
	default:
		discard(f, S_GROUND);
		break;
	}
}

/* A byte that is not part of a UTF-8 character: a C1 control if it can
 * be one, else replaced, so that no terminal can read it otherwise. */
static void
lone(struct termfilter *f, unsigned char c, struct sink *k)
{
	if (c >= 0x80 && c < 0xa0)
		unit(f, c, &c, 1, k);
	else
		unit(f, HIGH, replacement, sizeof(replacement), k);
}

/* Whether C may be the next byte of the UTF-8 character begun. */
static bool
continues(const struct termfilter *f, unsigned char c)
{
	if (c < 0x80 || c > 0xbf)
		return false;
	if (f->u8_have > 1)
		return true;
	switch (f->u8[0]) {
	case 0xe0:
		return c >= 0xa0; /* not overlong */
	case 0xed:
		return c <= 0x9f; /* not a surrogate */
	case 0xf0:
		return c >= 0x90; /* not overlong */
	case 0xf4:
		return c <= 0x8f; /* not past U+10FFFF */
	default:
		return true;
	}
}

static void
byte(struct termfilter *f, unsigned char c, struct sink *k)
{
	if (f->u8_need > 0) {
		unsigned char u8[4], have = f->u8_have;

		if (continues(f, c)) {
			f->u8[f->u8_have++] = c;
			if (f->u8_have < f->u8_need)
				return;
			f->u8_need = 0;
			memcpy(u8, f->u8, sizeof(u8));
			/* U+0080-U+009F are the C1 controls. */
			unit(f,
			    have == 1 && u8[0] == 0xc2 && c < 0xa0 ? c : HIGH,
			    u8, have + 1u, k);
			return;
		}
		/* Not a whole character: the lead byte replaced, each
		 * byte after it read on its own. */
		f->u8_need = 0;
		memcpy(u8, f->u8, sizeof(u8));
		unit(f, HIGH, replacement, sizeof(replacement), k);
		for (unsigned char i = 1; i < have; i++)
			lone(f, u8[i], k);
	}
	if (c < 0x80) {
		unit(f, c, &c, 1, k);
	} else if (c >= 0xc2 && c <= 0xf4) {
		f->u8[0] = c;
		f->u8_have = 1;
		f->u8_need = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	} else {
		lone(f, c, k);
	}
}

/*
 * How many bytes from P (N of them) are text that passes as it is, read
 * at once: printable ASCII, tab and line ends, and the common UTF-8
 * characters that cannot be C1 controls (two bytes led by C3-DF, three by
 * E1-EC or EE-EF).  Everything else goes byte by byte.
 */
static size_t
plain_text(const unsigned char *p, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, highs = ones * 0x80;
	size_t i = 0;

	while (i < n) {
		unsigned char c = p[i];
		uint64_t w;

		/* Eight printable ASCII bytes at a time: none below 0x20,
		 * none at or above 0x7f. */
		if (i + 8 <= n) {
			memcpy(&w, p + i, 8);
			if ((((w - ones * 0x20) | (w + ones) | w) & highs) ==
			    0) {
				i += 8;
				continue;
			}
		}
		if ((c >= 0x20 && c < DEL) || c == '\n' || c == '\r' ||
		    c == '\t') {
			i++;
		} else if (c >= 0xc3 && c <= 0xdf && i + 1 < n &&
		    (p[i + 1] & 0xc0) == 0x80) {
			i += 2;
		} else if (((c >= 0xe1 && c <= 0xec) || c == 0xee ||
			       c == 0xef) &&
		    i + 2 < n && (p[i + 1] & 0xc0) == 0x80 &&
		    (p[i + 2] & 0xc0) == 0x80) {
			i += 3;
		} else {
			break;
		}
	}
	return i;
}

/*
 * Filter N bytes from IN into OUT, which has room for
 * TERMFILTER_OUT_MAX(N) bytes; returns how many bytes OUT holds.  What
 * may yet be a sequence stays in F until the bytes that decide it.
 */
size_t
termfilter_run(struct termfilter *f, const void *in, size_t n,
    unsigned char *out)
{
	const unsigned char *p = in;
	struct sink k = { out, 0 };
	size_t i = 0;

	while (i < n) {
		size_t text = 0;

		if (f->state == S_GROUND && f->u8_need == 0)
			text = plain_text(p + i, n - i);
		if (text > 0) {
			emit(&k, p + i, text);
			i += text;
		} else {
			byte(f, p[i++], &k);
		}
	}
	return k.len;
}

/*
 * The output has ended: a sequence not yet whole is dropped, and a
 * string passed on that may still be open is cancelled (CAN), so that
 * what the terminal shows next is read as text.  OUT has room for
 * TERMFILTER_FINISH_MAX bytes; returns how many it holds.  F starts
 * afresh.
 */
size_t
termfilter_finish(struct termfilter *f, unsigned char *out)
{
	size_t n = 0;

	if (f->open || f->state == S_PASS)
		out[n++] = CAN;
	termfilter_init(f);
	return n;
}
