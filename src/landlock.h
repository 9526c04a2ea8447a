/*
 * landlock.h - Landlock scoping: keep the sandbox from reaching abstract
 * unix sockets and processes outside it, where the kernel can (ABI 6,
 * Linux 6.12).
 */
#ifndef SBOX_LANDLOCK_H
#define SBOX_LANDLOCK_H

#define LANDLOCK_SCOPE_ABI 6

int	 landlock_abi(void);
int	 landlock_scope_self(void);

#endif
