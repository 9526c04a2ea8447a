/*
 * try-syscall - make one system call, given by name, and say what the
 * kernel answered.
 *
 * Usage: try-syscall [--for SECONDS] NAME [ARG...]
 *
 * Each ARG is a number (decimal, 0x hexadecimal or 0 octal; negative
 * numbers and all 64 bits are allowed) or else a string, passed as a
 * pointer to its bytes; "s:TEXT" is always the string TEXT.  At most six.
 *
 * Prints "ok RESULT" and exits 0 when the call returned RESULT, or
 * "refused: MESSAGE (ENAME)" and exits 1 when it failed; exits 2 on a
 * usage error or a NAME it does not know.  With --for, the call is made
 * again and again for SECONDS, whatever it answers, and the last answer
 * is reported.
 *
 * The numbers come from <sys/syscall.h>, so a test names the call, never
 * an architecture's number.  A test tool: it confines nothing.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
/* Linux 6.6; new system calls have one number on every architecture. */
#define SYS_fchmodat2 452
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif

#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

static const struct call {
	const char *name;
	long nr;
} calls[] = {
#define CALL(n)                                                                \
	{                                                                      \
#n, SYS_##n                                                    \
	}
	CALL(add_key),
	CALL(fchmodat),
	CALL(fchmodat2),
	CALL(ioctl),
	CALL(keyctl),
	CALL(kill),
	CALL(landlock_create_ruleset),
	CALL(mknodat),
	CALL(openat),
	CALL(ptrace),
	CALL(renameat2),
	CALL(setns),
	CALL(unshare),
#ifdef SYS_chmod
	CALL(chmod),
#endif
#ifdef SYS_creat
	CALL(creat),
#endif
#ifdef SYS_mknod
	CALL(mknod),
#endif
#ifdef SYS_open
	CALL(open),
#endif
#undef CALL
};

static const struct name {
	int err;
	const char *name;
} errnames[] = {
#define ERR(e)                                                                 \
	{                                                                      \
		e, #e                                                          \
	}
	ERR(EPERM),
	ERR(ENOENT),
	ERR(ESRCH),
	ERR(EINTR),
	ERR(EIO),
	ERR(EBADF),
	ERR(EAGAIN),
	ERR(ENOMEM),
	ERR(EACCES),
	ERR(EFAULT),
	ERR(EBUSY),
	ERR(EEXIST),
	ERR(EXDEV),
	ERR(ENODEV),
	ERR(ENOTDIR),
	ERR(EISDIR),
	ERR(EINVAL),
	ERR(ENOTTY),
	ERR(ENOSPC),
	ERR(EROFS),
	ERR(ENOSYS),
	ERR(EOPNOTSUPP),
	ERR(EAFNOSUPPORT),
	ERR(ENOKEY),
	ERR(EKEYREVOKED),
	ERR(EDQUOT),
#undef ERR
};

static const char *
errname(int err)
{
	static char buf[32];

	for (size_t i = 0; i < N_ELEMENTS(errnames); i++)
		if (errnames[i].err == err)
			return errnames[i].name;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* ARG as a system call argument: a number, or a pointer to the string. */
static long
argument(const char *arg)
{
	char *end;
	long long v;

	if (strncmp(arg, "s:", 2) == 0)
		return (long)(arg + 2);
	errno = 0;
	v = strtoll(arg, &end, 0);
	if (errno == 0 && end != arg && *end == '\0')
		return (long)v;
	errno = 0;
	if (arg[0] != '-') {
		unsigned long long u = strtoull(arg, &end, 0);

		if (errno == 0 && end != arg && *end == '\0')
			return (long)u;
	}
	return (long)arg;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	const struct call *call = NULL;
	double seconds = 0, end;
	long a[6] = { 0 }, r;
	int i, n, err;

	if (argc > 2 && strcmp(argv[1], "--for") == 0) {
		seconds = strtod(argv[2], NULL);
		argv += 2;
		argc -= 2;
	}
	if (argc < 2 || argc > 8) {
		fprintf(stderr,
		    "usage: try-syscall [--for SECONDS] NAME [ARG...]\n");
		return 2;
	}
	for (size_t j = 0; j < N_ELEMENTS(calls); j++)
		if (strcmp(calls[j].name, argv[1]) == 0)
			call = &calls[j];
	if (call == NULL) {
		fprintf(stderr, "try-syscall: unknown system call %s\n",
		    argv[1]);
		return 2;
	}
	n = argc - 2;
	for (i = 0; i < n; i++)
		a[i] = argument(argv[i + 2]);

	end = now() + seconds;
	do {
		errno = 0;
		r = syscall(call->nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		err = errno;
	} while (seconds > 0 && now() < end);
	if (r == -1 && err != 0) {
		printf("refused: %s (%s)\n", strerror(err), errname(err));
		return 1;
	}
	printf("ok %ld\n", r);
	return 0;
}
