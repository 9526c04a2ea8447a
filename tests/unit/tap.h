/*
 * tap.h - the smallest TAP producer: ok(), is_str(), done().
 */
#ifndef SBOX_TAP_H
#define SBOX_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static void __attribute__((format(printf, 4, 5)))
tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass)
		printf("# failed at %s:%d\n", file, line);
}

#define is_str(got, want, name)                                                \
	do {                                                                   \
		const char *g__ = (got), *w__ = (want);                        \
		ok(g__ != NULL && strcmp(g__, w__) == 0, "%s", name);          \
		if (g__ == NULL || strcmp(g__, w__) != 0)                      \
			printf("#   got: %s\n#  want: %s\n",                   \
			    g__ ? g__ : "(null)", w__);                        \
	} while (0)

static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
