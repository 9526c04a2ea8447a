/*
 * sysctl.h - the kernel settings, and the sandbox around us, that
 * sbox-exec reads to explain a refusal.
 */
#ifndef SBOX_SYSCTL_H
#define SBOX_SYSCTL_H

#include <stdbool.h>

/* The variable every sandbox's command inherits (sbox-exec(1),
 * ENVIRONMENT). */
#define SBOX_SANDBOX_ENV "SBOX_EXEC_SANDBOX"

int sysctl_read_long(const char *, long *);
bool sysctl_inside_sbox_exec(void);

#endif
