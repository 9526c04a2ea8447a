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

/*
 * Stage two's report on the control socket, one message: 'R' then, in the
 * run modes, what the lookup of the command found: STAGE2_FOUND and the
 * path that will be executed, or STAGE2_NOT_FOUND / STAGE2_NOT_EXECUTABLE
 * and a sentence saying why.  --check sends 'R' alone.  The launcher
 * answers STAGE2_GO or STAGE2_STOP.
 */
#define STAGE2_FOUND 'F'
#define STAGE2_NOT_FOUND 'N'
#define STAGE2_NOT_EXECUTABLE 'X'
#define STAGE2_GO 'G'
#define STAGE2_STOP 'S'
#define STAGE2_REPORT_MAX 8192
/* The most descriptors a report carries: the proxy's listening socket,
 * one for each loopback address served inside, the watch listener. */
#define STAGE2_MAX_FDS (2 + NETPOLICY_MAX_FORWARDS)

bool stage2_is_invocation(int, char **);
int stage2_main(int, char **);
unsigned long stage2_userns_id(void);

#endif
