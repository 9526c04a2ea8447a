/*
 * stage2.h - the first program inside the sandbox: sbox-exec itself, run
 * from a descriptor of its own executable with the words of stage2_args.h.
 * It starts on every launch, which is why sbox-exec is built against musl
 * where it can be (configure.ac says why).
 */
#ifndef SBOX_STAGE2_H
#define SBOX_STAGE2_H

#include <stdbool.h>
#include <stddef.h>

#include "stage2_args.h"

bool stage2_is_invocation(int, char **);
int stage2_main(int, char **);
unsigned long stage2_userns_id(void);

#endif
