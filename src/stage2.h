/*
 * stage2.h - the first program inside the sandbox: sbox-exec itself, run
 * from a descriptor of its own executable with STAGE2_FLAG.  It starts on
 * every launch, which is why sbox-exec is built against musl where it can
 * be (configure.ac says why).
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
