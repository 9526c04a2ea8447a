/*
 * inject - make another process execute one system call, through ptrace.
 *
 * Usage: inject PID chmod PATH     chmod(PATH, 04755)
 *        inject PID keyctl         keyctl(KEYCTL_GET_KEYRING_ID, user keyring)
 *        inject PID tiocsti TEXT   ioctl(0, TIOCSTI, c) for each byte of TEXT
 *
 * The attack on a sandbox's init process: attach (PTRACE_SEIZE and
 * PTRACE_INTERRUPT), save the registers, point the instruction pointer
 * at the system-call instruction the process is stopped behind, load
 * the call's number and arguments, single-step, read the result, and put
 * everything back.  Strings go on the process's stack, below its red
 * zone.
 *
 * Prints "result N" (N: the call's return value, -errno on failure) and
 * exits 0 when the call succeeded, 1 when the process ran it and it
 * failed, 2 when the injection itself could not be done, and 77 on an
 * architecture this tool has no register layout for.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PTRACE_SEIZE
#define PTRACE_SEIZE 0x4206
#endif
#ifndef PTRACE_INTERRUPT
#define PTRACE_INTERRUPT 0x4207
#endif
#define KEYCTL_GET_KEYRING_ID 0
#define KEY_SPEC_USER_KEYRING (-4)

#if defined(__x86_64__) && !defined(__ILP32__)
static void
die(const char *what)
{
	fprintf(stderr, "inject: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Copy LEN bytes to ADDR in the traced process, a word at a time. */
static void
poke(pid_t pid, unsigned long addr, const void *data, size_t len)
{
	for (size_t off = 0; off < len; off += sizeof(long)) {
		long word = 0;

		memcpy(&word, (const char *)data + off,
		    len - off < sizeof(long) ? len - off : sizeof(long));
		if (ptrace(PTRACE_POKEDATA, pid, (void *)(addr + off),
			(void *)word) < 0)
			die("PTRACE_POKEDATA");
	}
}

/* Run system call NR with arguments A in PID, stopped at SAVED. */
static long
run_call(pid_t pid, const struct user_regs_struct *saved, unsigned long insn,
    long nr, const unsigned long a[3])
{
	struct user_regs_struct regs = *saved;
	int status;

	regs.rip = insn;
	regs.rax = (unsigned long)nr;
	regs.orig_rax = (unsigned long)-1; /* no restart of the old call */
	regs.rdi = a[0];
	regs.rsi = a[1];
	regs.rdx = a[2];
	if (ptrace(PTRACE_SETREGS, pid, NULL, &regs) < 0)
		die("PTRACE_SETREGS");
	if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0)
		die("PTRACE_SINGLESTEP");
	if (waitpid(pid, &status, __WALL) < 0)
		die("waitpid");
	if (!WIFSTOPPED(status)) {
		fprintf(stderr, "inject: the process ended (status %#x)\n",
		    status);
		exit(2);
	}
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0)
		die("PTRACE_GETREGS");
	return (long)regs.rax;
}

int
main(int argc, char **argv)
{
	struct user_regs_struct saved;
	unsigned long insn, scratch;
	long word, result = 0;
	pid_t pid;
	int status;

	if (argc < 3) {
		fprintf(stderr,
		    "usage: inject PID chmod PATH | keyctl | "
		    "tiocsti TEXT\n");
		return 2;
	}
	pid = (pid_t)atol(argv[1]);
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) < 0)
		die("PTRACE_SEIZE");
	if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) < 0)
		die("PTRACE_INTERRUPT");
	if (waitpid(pid, &status, __WALL) < 0)
		die("waitpid");
	if (ptrace(PTRACE_GETREGS, pid, NULL, &saved) < 0)
		die("PTRACE_GETREGS");
	/* Stopped in a system call: the instruction just behind is one. */
	insn = saved.rip - 2;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, pid, (void *)insn, NULL);
	if (errno != 0)
		die("PTRACE_PEEKTEXT");
	if ((word & 0xffff) != 0x050f) {
		fprintf(stderr, "inject: no syscall instruction before %#lx\n",
		    (unsigned long)saved.rip);
		return 2;
	}
	scratch = (saved.rsp - 1024) & ~15UL;

	if (strcmp(argv[2], "chmod") == 0 && argc == 4) {
		unsigned long a[3] = { scratch, 04755, 0 };

		poke(pid, scratch, argv[3], strlen(argv[3]) + 1);
		result = run_call(pid, &saved, insn, SYS_chmod, a);
	} else if (strcmp(argv[2], "keyctl") == 0) {
		unsigned long a[3] = { KEYCTL_GET_KEYRING_ID,
			(unsigned long)(long)KEY_SPEC_USER_KEYRING, 0 };

		result = run_call(pid, &saved, insn, SYS_keyctl, a);
	} else if (strcmp(argv[2], "tiocsti") == 0 && argc == 4) {
		for (const char *c = argv[3]; *c != '\0' && result >= 0; c++) {
			unsigned long a[3] = { 0, TIOCSTI, scratch };

			poke(pid, scratch, c, 1);
			result = run_call(pid, &saved, insn, SYS_ioctl, a);
		}
	} else {
		fprintf(stderr, "inject: unknown call %s\n", argv[2]);
		result = -EINVAL;
	}

	if (ptrace(PTRACE_SETREGS, pid, NULL, &saved) < 0)
		die("PTRACE_SETREGS (restore)");
	if (ptrace(PTRACE_DETACH, pid, NULL, NULL) < 0)
		die("PTRACE_DETACH");
	printf("result %ld\n", result);
	if (result < 0)
		fprintf(stderr, "inject: the call failed in %ld: %s\n",
		    (long)pid, strerror((int)-result));
	return result < 0 ? 1 : 0;
}
#else
int
main(void)
{
	fprintf(stderr,
	    "inject: system-call injection is written for x86_64 "
	    "only; this test needs it\n");
	return 77;
}
#endif
