/*
 * fuzz_status.c - libFuzzer target for status_render().
 *
 * The input's first byte picks the status and which fields are present;
 * the rest is split at NUL bytes into the detail, hint and bwrap strings,
 * arbitrary bytes all.  Whatever they hold, the line must be what status.c
 * promises: at most STATUS_MAX bytes, exactly one '\n' and that one last,
 * valid UTF-8 (checked here by a validator of our own, not status.c's),
 * no raw control byte, and a JSON object.  Built and run by scripts/fuzz.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Strict UTF-8 (RFC 3629): no overlong forms, surrogates or > U+10FFFF. */
static bool
utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		size_t len;
		uint32_t cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			len = 2;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (n - i < len)
			return false;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

static void
check_line(const char *line)
{
	size_t len = strlen(line);

	if (len == 0 || len > STATUS_MAX)
		abort();
	if (line[len - 1] != '\n' || memchr(line, '\n', len - 1) != NULL)
		abort();
	if (!utf8_valid((const unsigned char *)line, len))
		abort();
	for (size_t i = 0; i + 1 < len; i++)
		if ((unsigned char)line[i] < 0x20 ||
		    (unsigned char)line[i] == 0x7f)
			abort();
	if (strncmp(line, "{\"version\":1,\"status\":\"", 23) != 0 || len < 3 ||
	    line[len - 2] != '}')
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy, *field[3] = { NULL, NULL, NULL };
	struct status_report r = { 0 };
	size_t start = 1, k = 0;
	char *line;

	if (size == 0 || size > (1 << 16))
		return 0;
	copy = malloc(size + 1);
	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	/* detail, hint, bwrap: NUL-separated after the control byte. */
	for (size_t i = 1; i <= size && k < 3; i++)
		if (copy[i] == '\0') {
			field[k++] = copy + start;
			start = i + 1;
		}

	r.status = (enum sbox_status)(data[0] % 5);
	if (data[0] & 0x08)
		r.detail = field[0];
	if (data[0] & 0x10)
		r.hint = field[1];
	if (data[0] & 0x20)
		r.bwrap = field[2];
	r.pid = (data[0] & 0x40) ? 4242 : 0;
	if (data[0] & 0x80) {
		r.abstract_unix = "blocked";
		r.abstract_names = "shared";
		r.nested_userns = "allowed";
	}
	line = status_render(&r);
	check_line(line);
	free(line);
	free(copy);
	return 0;
}
