/*
 * sbox.c - the names of the outcomes in sbox.h, the error value that
 * carries a refusal from where it is found to main.c, and the hints for
 * the limits a launch can run into.
 *
 * Pure: no I/O.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "sbox.h"
#include "util.h"

const char *
sbox_status_name(enum sbox_status s)
{
	switch (s) {
	case SBOX_SUCCESS:
		return "success";
	case SBOX_BWRAP_NOT_FOUND:
		return "bwrap-not-found";
	case SBOX_SETUID_REJECTED:
		return "setuid-rejected";
	case SBOX_PROBE_FAILED:
		return "sandbox-probe-failed";
	case SBOX_INVALID_POLICY:
		return "invalid-policy";
	case SBOX_BWRAP_UNTRUSTED:
		return "bwrap-untrusted";
	case SBOX_COMMAND_NOT_FOUND:
		return "command-not-found";
	case SBOX_COMMAND_NOT_EXECUTABLE:
		return "command-not-executable";
	}
	return "invalid-policy";
}

/* What sbox-exec exits with when it reports S instead of running the
 * command (sbox-exec(1), EXIT STATUS): what a shell would say of a
 * command it cannot start, and 125 for every other refusal. */
int
sbox_status_exit(enum sbox_status s)
{
	switch (s) {
	case SBOX_COMMAND_NOT_FOUND:
		return SBOX_EXIT_NOT_FOUND;
	case SBOX_COMMAND_NOT_EXECUTABLE:
		return SBOX_EXIT_CANNOT_EXEC;
	case SBOX_SUCCESS:
	case SBOX_BWRAP_NOT_FOUND:
	case SBOX_SETUID_REJECTED:
	case SBOX_PROBE_FAILED:
	case SBOX_INVALID_POLICY:
	case SBOX_BWRAP_UNTRUSTED:
		break;
	}
	return SBOX_EXIT_REFUSED;
}

void
sbox_error_set(struct sbox_error *err, enum sbox_status status, const char *fmt,
    ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	sbox_error_clear(err);
	err->status = status;
	err->detail = s ? s : xstrdup("out of memory");
}

/* What to do about the refusal already set; replaces any earlier hint. */
void
sbox_error_hint(struct sbox_error *err, const char *fmt, ...)
{
	va_list ap;

	free(err->hint);
	va_start(ap, fmt);
	err->hint = xvasprintf(fmt, ap);
	va_end(ap);
}

void
sbox_error_clear(struct sbox_error *err)
{
	free(err->detail);
	free(err->hint);
	err->detail = err->hint = NULL;
	err->status = SBOX_SUCCESS;
}

/* A hint for a step that failed with errno E itself (a limit reached),
 * or NULL. */
const char *
sbox_errno_hint(int e)
{
	switch (e) {
	case EAGAIN:
		return "the limit on processes was reached (ulimit -u, or the cgroup's pids.max); raise it, or end some processes";
	case EMFILE:
	case ENFILE:
		return "the limit on open files was reached (ulimit -n); raise it";
	case ENOMEM:
		return "memory ran out (ulimit -v, or the cgroup's memory.max); raise the limit or free memory";
	default:
		return NULL;
	}
}
