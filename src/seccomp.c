/*
 * seccomp.c - a small classic-BPF filter, written out by hand.
 *
 * Why each rule:
 * - chmod family and file creation with S_ISUID/S_ISGID in the mode: when
 *   sbox-exec runs as root, root inside is root outside without
 *   capabilities, and a setuid-root file left in a writable directory
 *   would give any local user root later.
 * - add_key, request_key, keyctl: the kernel keyrings (session, user) are
 *   not namespaced; they hold Kerberos tickets and other secrets.
 * - io_uring: its requests open and create files (with any mode) without
 *   passing through the system calls above.
 * - TIOCSTI, TIOCLINUX: pushing keystrokes into a terminal.  Only the low
 *   32 bits of the ioctl request are compared, as the kernel does, so
 *   setting high bits does not slip past (CVE-2019-10063).
 * - other architectures' system calls (x32, i386 on x86_64): their numbers
 *   differ, so they are refused rather than mis-filtered.
 * MUST NOT print or exit.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp.h"

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
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define DENY(e) RET(SECCOMP_RET_ERRNO | ((e)&SECCOMP_RET_DATA))

bool
seccomp_supported(void)
{
#ifdef NATIVE_ARCH
	return true;
#else
	return false;
#endif
}

#ifdef NATIVE_ARCH
/* A system call whose argument ARG is a mode to check for 06000. */
struct mode_rule {
	long nr;
	unsigned int arg;
};

static const struct mode_rule mode_rules[] = {
	{ SYS_fchmod, 1 },
	{ SYS_fchmodat, 2 },
	{ SYS_fchmodat2, 2 },
	{ SYS_openat, 3 },
	{ SYS_mknodat, 2 },
#ifdef SYS_chmod
	{ SYS_chmod, 1 },
#endif
#ifdef SYS_open
	{ SYS_open, 2 },
#endif
#ifdef SYS_creat
	{ SYS_creat, 1 },
#endif
#ifdef SYS_mknod
	{ SYS_mknod, 1 },
#endif
};

static const long denied[] = {
	SYS_add_key,
	SYS_request_key,
	SYS_keyctl,
	/* io_uring opens and chmods files where this filter cannot look. */
	SYS_io_uring_setup,
	SYS_io_uring_enter,
	SYS_io_uring_register,
};
#endif

/*
 * Write the program into OUT (room for MAX instructions); returns its
 * length, or 0 when it does not fit or the architecture is unknown.
 */
size_t
seccomp_build(struct sock_filter *out, size_t max)
{
#ifdef NATIVE_ARCH
	size_t n = 0, nmode = sizeof(mode_rules) / sizeof(*mode_rules);
	size_t ndenied = sizeof(denied) / sizeof(*denied);
	size_t need = 6 + 5 * nmode + 2 * ndenied + 2 + 7;

#define EMIT(insn) (out[n++] = (struct sock_filter)insn)
	if (max < need)
		return 0;
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch)));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0));
	EMIT(DENY(ENOSYS));
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr)));
#ifdef X32_BIT
	EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_BIT, 0, 1));
	EMIT(DENY(ENOSYS));
#endif
	for (size_t i = 0; i < nmode; i++) {
		/* Five instructions: not this call, on to the next rule. */
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    (unsigned int)mode_rules[i].nr, 0, 4));
		EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    ARG_LO(mode_rules[i].arg)));
		EMIT(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, S_ISUID | S_ISGID, 0,
		    1));
		EMIT(DENY(EPERM));
		EMIT(RET(SECCOMP_RET_ALLOW));
	}
	for (size_t i = 0; i < ndenied; i++) {
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    (unsigned int)denied[i], 0, 1));
		EMIT(DENY(EPERM));
	}
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1));
	EMIT(DENY(ENOSYS)); /* its mode hides in a struct: callers fall back */
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 5));
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 2, 0));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCLINUX, 1, 0));
	EMIT(RET(SECCOMP_RET_ALLOW));
	EMIT(DENY(EPERM));
	EMIT(RET(SECCOMP_RET_ALLOW));
#undef EMIT
	return n;
#else
	(void)out;
	(void)max;
	return 0;
#endif
}

/* Install the filter on this process (and so on the command). */
int
seccomp_install(void)
{
	struct sock_filter prog[160];
	struct sock_fprog fprog;
	size_t n = seccomp_build(prog, sizeof(prog) / sizeof(*prog));

	if (n == 0) {
		errno = ENOSYS;
		return -1;
	}
	fprog.len = (unsigned short)n;
	fprog.filter = prog;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog);
}
