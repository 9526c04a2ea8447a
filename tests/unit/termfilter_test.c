/*
 * Unit tests of the terminal output filter (termfilter.c): what passes
 * unchanged, what is dropped (sbox-exec(1), "The terminal"), sequences
 * split at every point, and the bounds on a sequence that never ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "termfilter.h"
#include "tap.h"

/* IN (N bytes) filtered in pieces of STEP bytes (0: all at once), then
 * finished; the output, NUL-terminated, in a buffer the caller frees. */
static char *
filter(const char *in, size_t n, size_t step, size_t *outlen)
{
	struct termfilter f;
	size_t len = 0, chunk = step ? step : n;
	char *out = malloc(3 * n + TERMFILTER_HOLD + 16);

	termfilter_init(&f);
	for (size_t i = 0; i < n; i += chunk) {
		size_t m = n - i < chunk ? n - i : chunk;

		len += termfilter_run(&f, in + i, m,
		    (unsigned char *)out + len);
	}
	len += termfilter_finish(&f, (unsigned char *)out + len);
	out[len] = '\0';
	if (outlen != NULL)
		*outlen = len;
	return out;
}

/* IN gives WANT, whole, byte by byte, and split in two at every point. */
static void
gives(const char *name, const char *in, const char *want)
{
	size_t n = strlen(in), wn = strlen(want), len;
	char *got = filter(in, n, 0, &len);
	int same = len == wn && memcmp(got, want, wn) == 0;

	ok(same, "%s", name);
	if (!same) {
		printf("#   got:");
		for (size_t i = 0; i < len; i++)
			printf(" %02x", (unsigned char)got[i]);
		printf("\n");
	}
	free(got);
	got = filter(in, n, 1, &len);
	ok(len == wn && memcmp(got, want, wn) == 0, "%s, byte by byte", name);
	free(got);
	same = 1;
	for (size_t cut = 1; cut < n && same; cut++) {
		struct termfilter f;
		unsigned char *out = malloc(3 * n + TERMFILTER_HOLD + 16);

		termfilter_init(&f);
		len = termfilter_run(&f, in, cut, out);
		len += termfilter_run(&f, in + cut, n - cut, out + len);
		len += termfilter_finish(&f, out + len);
		same = len == wn && memcmp(out, want, wn) == 0;
		if (!same)
			printf("# differs when split at %zu\n", cut);
		free(out);
	}
	ok(same, "%s, split at every point", name);
}

#define passes(name, in) gives(name, in, in)

static void
test_passes(void)
{
	passes("plain text and line ends", "hello, world\r\n\tnext line\n");
	passes("UTF-8 text",
	    "gr\xc3\xbc\xc3\x9f \xd0\x9b\xd0\xb5\xd1\x81 "
	    "\xe2\x82\xac \xf0\x9f\x98\x80\n");
	passes("SGR colours",
	    "\x1b[1;31mred\x1b[0m \x1b[38;5;208mo\x1b[m "
	    "\x1b[38;2;1;2;3mrgb\x1b[39;49m");
	passes("cursor movement and erasing",
	    "\x1b[H\x1b[2J\x1b[10;20H\x1b[3A\x1b[2B\x1b[K\x1b[?25l\x1b[?25h");
	passes("insert mode, line feed mode, private mode 12",
	    "\x1b[4h\x1b[4l\x1b[20h\x1b[20l\x1b[?12h\x1b[?2l\x1b[22h");
	passes("modes: alternate screen, bracketed paste, mouse",
	    "\x1b[?1049h\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b[?1049l");
	passes("cursor save/restore, keypad, charset, reset",
	    "\x1b"
	    "7\x1b"
	    "8\x1b=\x1b>\x1b(0q\x1b(B\x1b"
	    "c");
	passes("window title, BEL-ended", "\x1b]0;my title\x07text");
	passes("window title, ST-ended", "\x1b]2;t\xc3\xaftle\x1b\\text");
	passes("hyperlink",
	    "\x1b]8;;https://example.org/\x1b\\link"
	    "\x1b]8;;\x1b\\");
	passes("colour set and reset",
	    "\x1b]11;#102030\x07\x1b]4;1;rgb:ff/"
	    "00/00\x1b\\\x1b]104\x07\x1b]110\x07");
	passes("title stack push and pop", "\x1b[22;0t\x1b[23;0t");
	passes("cursor style, soft reset", "\x1b[2 q\x1b[!p");
	passes("sixel graphics", "\x1bPq#0;2;0;0;0#0~~@@vv\x1b\\after");
	passes("keyboard protocol push and pop", "\x1b[>1u\x1b[<u");
	passes("BEL, backspace, CAN alone",
	    "a\x07"
	    "b\x08"
	    "c\x18");
	passes("a C1 SGR as one byte",
	    "\x9b"
	    "1m");
}

static void
test_drops(void)
{
	gives("OSC 52, clipboard write, BEL",
	    "a\x1b]52;c;c2VjcmV0Cg==\x07"
	    "b",
	    "ab");
	gives("OSC 52, clipboard write, ST", "a\x1b]52;c;c2VjcmV0Cg==\x1b\\b",
	    "ab");
	gives("OSC 52, clipboard read",
	    "a\x1b]52;c;?\x07"
	    "b",
	    "ab");
	gives("OSC 52 as a C1 OSC and ST",
	    "a\x9d"
	    "52;c;eA==\x9c"
	    "b",
	    "ab");
	gives("OSC 52 as U+009D and U+009C",
	    "a\xc2\x9d"
	    "52;c;eA==\xc2\x9c"
	    "b",
	    "ab");
	gives("title report", "a\x1b[21tb", "ab");
	gives("icon label report", "a\x1b[20tb", "ab");
	gives("window reports", "\x1b[14t\x1b[18t\x1b[19t\x1b[11t\x1b[13;2t",
	    "");
	gives("window moved, resized, iconified",
	    "\x1b[3;0;0t\x1b[8;1;1t\x1b[2t\x1b[t", "");
	gives("title report as a C1 CSI",
	    "a\x9b"
	    "21tb",
	    "ab");
	gives("title report as U+009B",
	    "a\xc2\x9b"
	    "21tb",
	    "ab");
	gives("DECRQSS", "a\x1bP$qm\x1b\\b\x1bP$q\"p\x1b\\", "ab");
	gives("DECRQSS as a C1 DCS",
	    "a\x90$qm\x9c"
	    "b",
	    "ab");
	gives("XTGETTCAP", "a\x1bP+q544e\x1b\\b", "ab");
	gives("DECUDK, a key defined", "a\x1bP0;1|17/726d\x1b\\b", "ab");
	/* Its last ST is left alone, an ST on its own. */
	gives("tmux passthrough", "a\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\b",
	    "a\x1b\\b");
	gives("device attributes", "a\x1b[c\x1b[0c\x1b[>c\x1b[=cb", "ab");
	gives("DECID", "a\x1bZb", "ab");
	gives("status and cursor position reports",
	    "a\x1b[5n\x1b[6n\x1b[?6n\x1b[?996nb", "ab");
	gives("mode reports", "a\x1b[?2026$p\x1b[4$pb", "ab");
	gives("screen checksum", "a\x1b[1;1;1;1;10;10*yb", "ab");
	gives("terminal parameters, version, modifier keys",
	    "a\x1b[x\x1b[>q\x1b[?4m\x1b[?1;1;0Sb", "ab");
	gives("keyboard protocol query", "a\x1b[?ub", "ab");
	gives("state reports", "a\x1b[1$w\x1b[1$u\x1b[&u\x1b[\"vb", "ab");
	gives("colour queries",
	    "a\x1b]11;?\x07\x1b]10;?\x1b\\\x1b]4;1;?\x07"
	    "\x1b]12;#fff;?\x07"
	    "b",
	    "ab");
	gives("font set and query",
	    "a\x1b]50;?\x07\x1b]50;fixed\x07"
	    "b",
	    "ab");
	gives("other OSCs: cwd, notifications, iTerm2, kitty",
	    "a\x1b]7;file:///x\x07\x1b]9;hi\x07\x1b]777;notify;a;b\x07"
	    "\x1b]1337;File=x\x07\x1b]99;;x\x07\x1b]5522;x\x07"
	    "b",
	    "ab");
	gives("OSC without a number",
	    "a\x1b]l title\x1b\\\x1b];x\x07"
	    "b",
	    "ab");
	gives("APC, PM, SOS",
	    "a\x1b_Gf=100;AAAA\x1b\\\x1b^pm\x1b\\\x1bXs"
	    "\x1b\\b",
	    "ab");
	gives("ENQ, the answerback",
	    "a\x05"
	    "b",
	    "ab");
	gives("ENQ inside a control sequence", "a\x1b[1\x05mb", "a\x1b[1mb");
	gives("character set switch (out of UTF-8)", "a\x1b%@\x1b%Gb", "ab");
	gives("8-bit controls switched on", "a\x1b G\x1b Fb", "ab");
	gives("media copy", "a\x1b[5i\x1b[?5i\x1b[ib", "ab");
	gives("Linux console settings", "a\x1b[12;1]b", "ab");
	gives("keyboard lock and local echo (KAM, SRM)",
	    "a\x1b[2h\x1b[12l\x1b[4;12hb\x1b[2l", "ab");
}

static void
test_edges(void)
{
	gives("a passed title ends at a control, the next OSC is judged",
	    "\x1b]0;x\n\x1b]52;c;eA==\x07"
	    "b",
	    "\x1b]0;x\n"
	    "b\x18");
	gives("a passed title ends at ESC: a title report after it",
	    "\x1b]2;x\x1b[21t", "\x1b]2;x\x18");
	gives("a title ended by ST, nothing to cancel", "\x1b]2;x\x1b\\",
	    "\x1b]2;x\x1b\\");
	gives("a title never ended is cancelled at the end", "\x1b]2;x",
	    "\x1b]2;x\x18");
	gives("a sequence not whole at the end is dropped", "a\x1b[2", "a");
	gives("a UTF-8 character not whole at the end is dropped", "a\xe2\x82",
	    "a");
	gives("ESC ends a control sequence", "\x1b[2\x1b[21t\x1b[1m",
	    "\x1b[1m");
	gives("CAN cancels a control sequence", "\x1b[21\x18t", "\x18t");
	gives("a control character inside a CSI goes out first", "\x1b[3\n1m",
	    "\n\x1b[31m");
	gives("bytes that are not UTF-8 are replaced",
	    "a\xff"
	    "b\xe9s\xc0\xaf",
	    "a\xef\xbf\xbd"
	    "b\xef\xbf\xbds"
	    "\xef\xbf\xbd\xef\xbf\xbd");
	gives("a broken character: the byte after it is read on its own",
	    "\xe2\x9b"
	    "21t",
	    "\xef\xbf\xbd");
	gives("an overlong CSI is not read through",
	    "\xe0\x9b"
	    "21t",
	    "\xef\xbf\xbd");
	gives("a C1 control ends a dropped string",
	    "\x1b]52;c;\x9b"
	    "1mx",
	    "\x9b"
	    "1mx");
	gives("a C1 control ends a held colour",
	    "\x1b]11;#00\x9b"
	    "21tx",
	    "x");
	gives("a sequence inside a run of eight text bytes",
	    "0123456\x1b[21t789abcdef\x7fghijklmn\x05op",
	    "0123456789abcdef\x7fghijklmnop");
	gives("UTF-8 across the end of a run",
	    "abcdefg\xc3\xa9hijklmn\xe2\x82\xac\xc2\x9b"
	    "21t",
	    "abcdefg\xc3\xa9hijklmn\xe2\x82\xac");
	gives("a colour query's '?' late in it",
	    "\x1b]4;1;#000000;2;?\x07"
	    "b",
	    "b");
}

/* A sequence never ended: dropped up to a bound, then text again. */
static void
test_bounds(void)
{
	size_t n = TERMFILTER_DROP_MAX + 4096, len;
	char *in = malloc(n + 1), *out;
	size_t i;

	memcpy(in, "\x1b]52;c;", 7);
	for (i = 7; i < n; i++)
		in[i] = 'A';
	in[n] = '\0';
	out = filter(in, n, 4096, &len);
	ok(len > 0 && len < 8192 && strspn(out, "A") == len,
	    "an OSC 52 never ended: dropped up to the bound, then text (%zu "
	    "bytes out)",
	    len);
	free(out);

	memcpy(in, "\x1b[", 2);
	for (i = 2; i < 65536; i++)
		in[i] = i % 2 ? ';' : '1';
	in[65535] = 't';
	out = filter(in, 65536, 4096, &len);
	ok(len == 0, "a CSI too long to hold is dropped whole (%zu bytes out)",
	    len);
	free(out);

	memcpy(in, "\x1b]2;", 4);
	for (i = 4; i < n; i++)
		in[i] = 'T';
	out = filter(in, n, 65536, &len);
	ok(len == n + 1 && out[n] == '\x18',
	    "a long title is passed on as it comes, then cancelled");
	free(out);

	memcpy(in, "\x1b]11;", 5);
	for (i = 5; i < n; i++)
		in[i] = '0';
	out = filter(in, n, 4096, &len);
	ok(len < 8192 && strspn(out, "0") == len,
	    "a colour too long to hold is dropped (%zu bytes out)", len);
	free(out);
	free(in);
	ok(sizeof(struct termfilter) < TERMFILTER_HOLD + 128,
	    "the state is of fixed size (%zu bytes)",
	    sizeof(struct termfilter));
}

int
main(void)
{
	test_passes();
	test_drops();
	test_edges();
	test_bounds();
	return tap_done();
}
