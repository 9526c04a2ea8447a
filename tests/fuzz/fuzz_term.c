/*
 * fuzz_term.c - libFuzzer target for the terminal output filter
 * (termfilter.c).
 *
 * The input's first byte picks the size of the pieces the rest is fed in;
 * the rest is what a command writes to its terminal.  Whatever it holds,
 * the filter must give the same output fed whole as fed in pieces, stay
 * within TERMFILTER_OUT_MAX, and leave nothing it would drop: its output,
 * filtered again, comes out unchanged.  Built and run by scripts/fuzz.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "termfilter.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* DATA (N bytes) filtered in pieces of STEP (0: whole) into a new buffer;
 * its length in *LEN. */
static unsigned char *
filter(const uint8_t *data, size_t n, size_t step, size_t *len)
{
	struct termfilter f;
	size_t chunk = step ? step : n ? n : 1, out_len = 0;
	unsigned char *out = malloc(
	    TERMFILTER_OUT_MAX(n) + TERMFILTER_FINISH_MAX);

	if (out == NULL)
		abort();
	termfilter_init(&f);
	for (size_t i = 0; i < n; i += chunk) {
		size_t m = n - i < chunk ? n - i : chunk;
		size_t got = termfilter_run(&f, data + i, m, out + out_len);

		if (got > TERMFILTER_OUT_MAX(m))
			abort();
		out_len += got;
	}
	out_len += termfilter_finish(&f, out + out_len);
	*len = out_len;
	return out;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t step, whole_len, split_len, again_len;
	unsigned char *whole, *split, *again;

	if (size < 1)
		return 0;
	step = (size_t)data[0] % 17 + 1;
	data++;
	size--;
	whole = filter(data, size, 0, &whole_len);
	split = filter(data, size, step, &split_len);
	if (whole_len != split_len || memcmp(whole, split, whole_len) != 0)
		abort(); /* pieces must not change the output */
	again = filter(whole, whole_len, 0, &again_len);
	if (again_len != whole_len || memcmp(again, whole, whole_len) != 0)
		abort(); /* something left that a second pass drops */
	free(whole);
	free(split);
	free(again);
	return 0;
}
