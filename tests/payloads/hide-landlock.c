/*
 * hide-landlock - run a program on a kernel that seems to lack Landlock.
 *
 * Usage: hide-landlock [--openat2] [--listen] PROGRAM [ARG...]
 *
 * Installs a seccomp filter under which landlock_create_ruleset() fails
 * with ENOSYS, as on a kernel built without Landlock, and executes
 * PROGRAM.  With --openat2, openat2() fails the same way, as on a kernel
 * before 5.6 (the launcher then resolves grants one step at a time).
 * With --listen, listen() fails with EACCES, as under a security policy
 * that forbids listening: the second stage cannot make the proxy's
 * socket for --allow-host.  The filter is inherited by everything PROGRAM starts, bwrap
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
	bool openat2 = false, no_listen = false;

	for (; argc > 1 && strncmp(argv[1], "--", 2) == 0; argc--, argv++) {
		if (strcmp(argv[1], "--openat2") == 0)
			openat2 = true;
		else if (strcmp(argv[1], "--listen") == 0)
			no_listen = true;
		else
			break;
	}
	if (argc < 2) {
		fprintf(stderr,
		    "usage: hide-landlock [--openat2] [--listen] PROGRAM [ARG...]\n");
		return 2;
	}

	/* A call number that is not asked for is one that matches nothing. */
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_create_ruleset,
		    3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    openat2 ? SYS_openat2 : 0xffffffffU, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    no_listen ? SYS_listen : 0xffffffffU, 2, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
	};
	struct sock_fprog fprog = {
		.len = sizeof(prog) / sizeof(prog[0]),
		.filter = prog,
	};

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
