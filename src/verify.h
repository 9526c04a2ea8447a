/*
 * verify.h - check from outside that the process which reported in lives
 * in the sandbox asked for, before its success is reported.
 */
#ifndef SBOX_VERIFY_H
#define SBOX_VERIFY_H

#include <stdbool.h>
#include <sys/types.h>

#include "procfs.h"
#include "sbox.h"

int verify_read_status(pid_t, struct proc_status *);
int verify_seccomp_filters(void);
int verify_sandbox(pid_t, pid_t, bool, int, int, struct sbox_error *);

#endif
