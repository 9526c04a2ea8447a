/*
 * sbox.h - the outcomes sbox-exec reports and the exit codes it uses.
 *
 * This table is the public contract (see the man page); change it only with
 * a NEWS entry.
 */
#ifndef SBOX_SBOX_H
#define SBOX_SBOX_H

enum sbox_status {
	SBOX_SUCCESS = 0,
	SBOX_BWRAP_NOT_FOUND,
	SBOX_SETUID_REJECTED,
	SBOX_PROBE_FAILED,
	SBOX_INVALID_POLICY,
	SBOX_BWRAP_UNTRUSTED,
	SBOX_COMMAND_NOT_FOUND,	     /* in the sandbox's view */
	SBOX_COMMAND_NOT_EXECUTABLE, /* found there, cannot run */
};

/* Exit codes, as env(1) and timeout(1) use them. */
enum {
	SBOX_EXIT_TIMEOUT = 124,     /* --timeout expired, as timeout(1) */
	SBOX_EXIT_REFUSED = 125,     /* any status but success; usage */
	SBOX_EXIT_CANNOT_EXEC = 126, /* command found, not executable */
	SBOX_EXIT_NOT_FOUND = 127,   /* command not found */
	SBOX_EXIT_SIGNAL_BASE = 128, /* killed by signal N: 128 + N */
};

/* A refusal: which status, why, and what to do about it (may be NULL). */
struct sbox_error {
	enum sbox_status status;
	char *detail;
	char *hint;
};

const char *sbox_status_name(enum sbox_status);
int sbox_status_exit(enum sbox_status);
void sbox_error_set(struct sbox_error *, enum sbox_status, const char *, ...)
    __attribute__((format(printf, 3, 4)));
void sbox_error_hint(struct sbox_error *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
void sbox_error_clear(struct sbox_error *);
const char *sbox_errno_hint(int);

#endif
