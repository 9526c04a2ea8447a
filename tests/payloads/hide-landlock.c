/*
 * hide-landlock - run a program on a kernel that seems to lack Landlock.
 *
 * Usage: hide-landlock [--openat2] PROGRAM [ARG...]
 *
 * Installs a seccomp filter under which landlock_create_ruleset() fails
 * with ENOSYS, as on a kernel built without Landlock, and executes
 * PROGRAM.  With --openat2, openat2() fails the same way, as on a kernel
 * before 5.6 (the launcher then resolves grants one step at a time).  The filter is inherited by everything PROGRAM starts, bwrap
 * included (it is not setuid), so sbox-exec and its stage two both see no
 * Landlock.  A test tool: it confines nothing.
 */
#include "config.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif

int
main(int argc, char **argv)
{
	bool openat2 = argc > 1 && strcmp(argv[1], "--openat2") == 0;
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_create_ruleset,
		    1, 0),
		/* Without --openat2 no call number matches this one. */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    openat2 ? SYS_openat2 : 0xffffffffU, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fprog = {
		.len = sizeof(prog) / sizeof(prog[0]),
		.filter = prog,
	};

	if (openat2) {
		argc--;
		argv++;
	}
	if (argc < 2) {
		fprintf(stderr,
		    "usage: hide-landlock [--openat2] PROGRAM [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) < 0) {
		fprintf(stderr, "hide-landlock: seccomp: %s\n",
		    strerror(errno));
		return 2;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "hide-landlock: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
