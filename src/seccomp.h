/*
 * seccomp.h - the system-call filter bwrap installs on everything in the
 * sandbox: no setuid/setgid bits on files, no kernel keyrings, no
 * keystroke injection into a terminal, and without --net no socket
 * families beyond unix, IPv4, IPv6 and netlink.
 */
#ifndef SBOX_SECCOMP_H
#define SBOX_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>

#include "sbox.h"

struct sock_filter;

bool seccomp_supported(void);
size_t seccomp_build(struct sock_filter *, size_t, bool);
int seccomp_program_fd(bool, struct sbox_error *);

#endif
