/*
 * bounds.h - what --timeout, --kill-after and --limit mean, as data.
 *
 * Durations and the resource limits stage two sets before the command
 * starts (TIMEOUT AND LIMITS in sbox-exec(1)): parsed from
 * the user's words, written for stage two and read back there, and
 * rendered for the status line.  Pure: no I/O, no exit.
 */
#ifndef SBOX_BOUNDS_H
#define SBOX_BOUNDS_H

#include <stdbool.h>
#include <sys/resource.h>

#include "util.h"

/* The limits --limit takes, in the order they are listed everywhere. */
enum bound_res {
	BOUND_CPU,
	BOUND_FSIZE,
	BOUND_NOFILE,
	BOUND_NPROC,
	BOUND_AS,
	BOUND_DATA,
	BOUND_STACK,
	BOUND_MEMLOCK,
	BOUND_CORE,
	BOUND_N
};

/* The longest duration taken: a year, in milliseconds. */
#define BOUNDS_MAX_DURATION_MS (365LL * 86400 * 1000)

/* The default --kill-after, in milliseconds. */
#define BOUNDS_DEFAULT_KILL_AFTER_MS 5000LL

/* The limits asked for; a value is RLIM_INFINITY for "unlimited". */
struct bounds {
	bool set[BOUND_N];
	rlim_t value[BOUND_N];
};

int bounds_parse_duration(const char *, long long *);
const char *bounds_name(enum bound_res);
int bounds_resource(enum bound_res);
char *bounds_parse_limit(const char *, struct bounds *);
void bounds_set_defaults(struct bounds *);
void bounds_encode(const struct bounds *, struct buf *);
int bounds_decode(const char *, struct bounds *);
void bounds_render_json(const struct bounds *, struct buf *);
void bounds_format(rlim_t, struct buf *);

/* What execve(2) accepts: each argument or environment string, with its
 * terminating NUL, at most BOUNDS_EXEC_STRING_MAX bytes (the kernel's
 * MAX_ARG_STRLEN, 32 pages of 4 KiB); all of them and their pointers
 * together at most bounds_exec_limit() of the stack limit. */
#define BOUNDS_EXEC_STRING_MAX (32 * 4096)

/* What execve(2) of PROGRAM with ARGV and ENVP needs, and its longest
 * string (*LONGEST, its length with the NUL in *LONGEST_LEN). */
struct exec_size {
	size_t bytes;
	const char *longest;
	size_t longest_len;
};

size_t bounds_exec_limit(rlim_t);
void bounds_exec_size(const char *, char *const *, char *const *,
    struct exec_size *);

#endif
