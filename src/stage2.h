/*
 * stage2.h - the first program inside the sandbox.
 *
 * Built twice from the same source: into sbox-exec itself, and as a small
 * static program of its own (against musl where available) that sbox-exec
 * carries and runs from a sealed memfd, because on some machines a glibc
 * program spends half a millisecond just starting.
 */
#ifndef SBOX_STAGE2_H
#define SBOX_STAGE2_H

#include <stdbool.h>
#include <stddef.h>

#define STAGE2_FLAG "--sbox-stage2"

bool stage2_is_invocation(int, char **);
int stage2_main(int, char **);
unsigned long stage2_userns_id(void);
void fd_sort(int *, size_t);
void fd_close_except(const int *, size_t);

#endif
