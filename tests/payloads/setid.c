/*
 * setid - try every way of giving a file a setuid or setgid bit.
 *
 * Usage: setid chmod DIR     change the mode of files it creates in DIR
 *        setid create DIR    create files in DIR with such a mode
 *
 * Each attempt prints one line, "NAME=ok" or "NAME=fail MESSAGE", and the
 * program exits 0 whatever they answered.  The files are named a, b, c...
 * in the order of the attempts below; the first attempt of each kind
 * (chmod: fchmodat on DIR/a; create: openat of DIR/a) is the one a
 * test's control looks for.  System calls an architecture lacks (the
 * old chmod, open, creat, mknod of x86_64) are tried where it has them.
 * A test tool: it confines nothing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
/* Linux 6.6; new system calls have one number on every architecture. */
#define SYS_fchmodat2 452
#endif

static const char *dir;
static char pathbuf[4096];

/* DIR/NAME, in a buffer the next call reuses. */
static const char *
path(const char *name)
{
	snprintf(pathbuf, sizeof(pathbuf), "%s/%s", dir, name);
	return pathbuf;
}

/* Print NAME=ok when R (a system call's result) is not negative. */
static void
report(const char *name, long r)
{
	if (r < 0)
		printf("%s=fail %s\n", name, strerror(errno));
	else
		printf("%s=ok\n", name);
	fflush(stdout);
}

/* DIR/NAME as a new empty file of mode 0755; its path. */
static const char *
made(const char *name)
{
	const char *p = path(name);
	int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0 || fchmod(fd, 0755) < 0) {
		fprintf(stderr, "setid: %s: %s\n", p, strerror(errno));
		exit(2);
	}
	close(fd);
	return p;
}

/* chmod u+s PATH, by chmod(1); fails when it does. */
static long
chmod_command(const char *p)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, 2);
		execlp("chmod", "chmod", "u+s", p, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

static void
try_chmod(void)
{
	long r;
	int fd;

	report("fchmodat", fchmodat(AT_FDCWD, made("a"), 04755, 0));
	report("fchmodat-setgid", fchmodat(AT_FDCWD, made("b"), 02755, 0));
	fd = open(made("c"), O_RDONLY | O_CLOEXEC);
	r = fd < 0 ? -1 : fchmod(fd, 04755);
	report("fchmod", r);
	if (fd >= 0)
		close(fd);
	report("fchmodat2",
	    syscall(SYS_fchmodat2, AT_FDCWD, made("d"), 04755, 0));
	report("chmod-u+s", chmod_command(made("e")));
#ifdef SYS_chmod
	report("chmod-syscall", syscall(SYS_chmod, made("f"), 04755));
#endif
}

/* An unnamed file of mode 04755 in DIR, then linked in as DIR/tmpfile. */
static long
tmpfile_linked(void)
{
	char proc[64];
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 04755);
	long r;

	if (fd < 0)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	r = linkat(AT_FDCWD, proc, AT_FDCWD, path("tmpfile"),
	    AT_SYMLINK_FOLLOW);
	close(fd);
	return r;
}

/* The descriptor R is closed when it is one; R is passed on. */
static long
closed(long r)
{
	if (r >= 0)
		close((int)r);
	return r;
}

static void
try_create(void)
{
	int flags = O_CREAT | O_WRONLY | O_CLOEXEC;

	umask(022);
	report("openat", closed(openat(AT_FDCWD, path("a"), flags, 04755)));
	report("openat-setgid",
	    closed(openat(AT_FDCWD, path("b"), flags, 02755)));
	report("mknodat", mknodat(AT_FDCWD, path("c"), S_IFREG | 04755, 0));
	report("o_tmpfile", tmpfile_linked());
#ifdef SYS_open
	report("open-syscall",
	    closed(syscall(SYS_open, path("d"), flags, 04755)));
#endif
#ifdef SYS_creat
	report("creat-syscall", closed(syscall(SYS_creat, path("e"), 04755)));
#endif
#ifdef SYS_mknod
	report("mknod-syscall",
	    syscall(SYS_mknod, path("f"), S_IFREG | 04755, 0));
#endif
}

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: setid chmod|create DIR\n");
		return 2;
	}
	dir = argv[2];
	if (strcmp(argv[1], "chmod") == 0)
		try_chmod();
	else if (strcmp(argv[1], "create") == 0)
		try_create();
	else {
		fprintf(stderr, "usage: setid chmod|create DIR\n");
		return 2;
	}
	return 0;
}
