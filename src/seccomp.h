/*
 * seccomp.h - the system-call filter stage two installs before the
 * command: no setuid/setgid bits on files, no kernel keyrings, no
 * keystroke injection into a terminal.
 */
#ifndef SBOX_SECCOMP_H
#define SBOX_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>

struct sock_filter;

bool seccomp_supported(void);
size_t seccomp_build(struct sock_filter *, size_t);
int seccomp_install(void);

#endif
