/*
 * landlock.h - Landlock confinement of the command: writes only where the
 * sandbox shows writable places, and (ABI 6, Linux 6.12) no abstract
 * unix sockets or processes outside it.
 */
#ifndef SBOX_LANDLOCK_H
#define SBOX_LANDLOCK_H

#include <stddef.h>

#define LANDLOCK_SCOPE_ABI 6

int landlock_abi(void);
int landlock_confine(char *const *, size_t, const int *, size_t);

#endif
