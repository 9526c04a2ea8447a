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

/*
 * For the two filters (this one and watch.h's), in files that include
 * <linux/audit.h>, <linux/seccomp.h> and <sys/syscall.h>: the native
 * architecture the filters are built for (none elsewhere), the x32 bit
 * of x86-64's numbers, numbers older headers lack, and where the low 32
 * bits of argument N lie in struct seccomp_data.
 */
#if defined(__x86_64__) && !defined(__ILP32__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define X32_BIT 0x40000000U
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

#define ARG_LO(n)                                                              \
	(offsetof(struct seccomp_data, args) + 8 * (n) +                       \
	    (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 4 : 0))

bool seccomp_supported(void);
size_t seccomp_build(struct sock_filter *, size_t, bool);
int seccomp_program_fd(bool, struct sbox_error *);

#endif
