/*
 * bwrap_argv.h - turn a policy into bwrap's argument vector.
 *
 * The only place that knows bwrap's flags.  A pure function of its inputs:
 * no I/O, so --print, the probe and the launch all see the same sandbox.
 */
#ifndef SBOX_BWRAP_ARGV_H
#define SBOX_BWRAP_ARGV_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"
#include "util.h"

struct bwargv_input {
	const char *bwrap;    /* argv[0] */
	const int *empty_fds; /* one per hidden file, read to EOF */
	size_t nempty;
	char *const *command; /* NULL-terminated */
	bool disable_userns;  /* bwrap supports --disable-userns */
	const int *bind_fds;  /* per mount: its source, opened; or -1 */
	bool seccomp;	      /* a filter program is on seccomp_fd */
	int seccomp_fd;
};

size_t bwargv_empty_fds_needed(const struct policy *);
void bwargv_build(const struct policy *, const struct bwargv_input *,
    struct strv *);

#endif
