/*
 * stage2.c - inside the sandbox: report in, confine, hand over.
 *
 * argv: PROG --sbox-stage2 USERNS CTRL STDERR KEEP MODE [PATH...] --
 * COMMAND...  where the PATHs are the writable places the sandbox shows.
 * MODE is "check" (report in, wait for the launcher's word and end) or
 * "run" (wait for the launcher's go-ahead, sent once it has checked the
 * sandbox from outside and reported the status), with "-tty" appended
 * for --tty.  The seccomp filter is bwrap's to install (--seccomp), on
 * its init process as on this one; the launcher checks that it did.
 *
 * MUST: refuse to run outside a sandbox of sbox-exec's making (this is
 * never a way to run a command unsandboxed); apply Landlock before
 * reporting in, failing closed; never run the command before the
 * launcher's go-ahead; leave the command descriptors 0-2 and the kept
 * ones only.  Small on purpose: it runs before every command and starts
 * from main() without the launcher's parsing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"
#include "sbox.h"
#include "stage2.h"
#include "util.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define MAX_KEEP 1024

bool
stage2_is_invocation(int argc, char **argv)
{
	return argc > 1 && strcmp(argv[1], STAGE2_FLAG) == 0;
}

/* The identity of our user namespace (its inode number), or 0. */
unsigned long
stage2_userns_id(void)
{
	struct stat st;

	return stat("/proc/self/ns/user", &st) == 0 ? (unsigned long)st.st_ino :
						      0;
}

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

void
fd_sort(int *fds, size_t n)
{
	if (n > 1)
		qsort(fds, n, sizeof(*fds), int_cmp);
}

/*
 * Close descriptors LO to HI.  Before Linux 5.9 there is no close_range():
 * then one close() each, up to the descriptor limit (prlimit64 is a plain
 * system call, safe here too).
 */
static void
close_span(unsigned int lo, unsigned int hi)
{
	struct rlimit rl;

	if (syscall(SYS_close_range, lo, hi, 0) == 0 || errno != ENOSYS)
		return;
	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) == 0 &&
	    rl.rlim_cur < hi)
		hi = rl.rlim_cur == 0 ? 0 : (unsigned int)rl.rlim_cur - 1;
	for (unsigned int fd = lo; fd <= hi && fd < (1U << 20); fd++)
		(void)close((int)fd);
}

/*
 * Close every descriptor above 2 but the SORTED list KEEP.
 * Async-signal-safe: the launcher calls it between vfork and exec.
 */
void
fd_close_except(const int *keep, size_t n)
{
	unsigned int lo = 3;

	for (size_t i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned int)keep[i] < lo)
			continue;
		if ((unsigned int)keep[i] > lo)
			close_span(lo, (unsigned int)keep[i] - 1);
		lo = (unsigned int)keep[i] + 1;
	}
	close_span(lo, ~0U);
}

/* A descriptor number: decimal digits only, within int. */
static int
parse_fd(const char *s, int *fd)
{
	char *end;
	long v;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > INT_MAX)
		return -1;
	*fd = (int)v;
	return 0;
}

/* "3,7,9" or "-". */
static int
parse_keep(const char *s, int *keep, size_t max, size_t *n)
{
	char buf[16];

	*n = 0;
	if (strcmp(s, "-") == 0)
		return 0;
	while (*s != '\0') {
		size_t len = strcspn(s, ",");

		if (len == 0 || len >= sizeof(buf) || *n == max)
			return -1;
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (parse_fd(buf, &keep[*n]) < 0)
			return -1;
		(*n)++;
		s += len;
		if (*s == ',')
			s++;
	}
	return 0;
}

/*
 * Whether the other end of CTRL belongs to a process outside our pid
 * namespace, as the launcher is for stage two: the kernel then reports
 * its pid as 0.  Run by hand on the host, any socket's peer has a pid.
 */
static bool
peer_outside(int ctrl)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return getsockopt(ctrl, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
	    cred.pid == 0;
}

/* Whether PATH's first line has no NUL byte: a script, not a binary the
 * kernel does not know (which sh would try to read as commands). */
static bool
looks_like_text(const char *path)
{
	char head[128];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, head, sizeof(head));
	close(fd);
	for (ssize_t i = 0; i < n && head[i] != '\n'; i++)
		if (head[i] == '\0')
			return false;
	return n >= 0;
}

/*
 * Execute the file PATH with ARGV.  A file without a "#!" line that the
 * kernel will not run (ENOEXEC) is a script for sh, as for a shell and
 * for glibc's execvp(); musl's execvp() does not do this, so it is done
 * here.  Returns only on failure, with errno set.
 */
static void
exec_file(const char *path, char **argv)
{
	size_t n = 0;
	char **sh;

	execv(path, argv);
	if (errno != ENOEXEC)
		return;
	if (!looks_like_text(path)) {
		errno = ENOEXEC;
		return;
	}
	while (argv[n] != NULL)
		n++;
	sh = calloc(n + 2, sizeof(*sh));
	if (sh != NULL) {
		sh[0] = (char *)"/bin/sh";
		sh[1] = (char *)path;
		memcpy(sh + 2, argv + 1, n * sizeof(*sh)); /* with the NULL */
		execv("/bin/sh", sh);
		free(sh);
	}
	errno = ENOEXEC;
}

/*
 * Execute ARGV[0] as a shell would look it up, and when that fails say why
 * with the exit code a shell uses: 127 when no such command exists, 126
 * when one exists but cannot be executed.  Unlike execvp(), a directory on
 * PATH that cannot be searched does not turn "not found" into 126.
 */
static int
exec_command(char **argv)
{
	const char *name = argv[0], *path = getenv("PATH");
	int found_errno = 0;

	if (name[0] == '\0') {
		errno = ENOENT;
	} else if (strchr(name, '/') != NULL) {
		exec_file(name, argv);
		if (errno != ENOENT && errno != ENOTDIR)
			found_errno = errno;
	} else {
		const char *p = path != NULL ? path : "/bin:/usr/bin";

		for (;;) {
			/* An empty entry is the current directory. */
			size_t len = strcspn(p, ":");
			char cand[PATH_MAX];
			struct stat st;
			int n = snprintf(cand, sizeof(cand), "%.*s/%s",
			    len ? (int)len : 1, len ? p : ".", name);

			if (n > 0 && (size_t)n < sizeof(cand)) {
				exec_file(cand, argv);
				if (errno == EACCES && stat(cand, &st) < 0)
					; /* an unsearchable directory */
				else if (errno != ENOENT && errno != ENOTDIR &&
				    errno != ELOOP && errno != ENAMETOOLONG &&
				    found_errno == 0)
					found_errno = errno;
			}
			if (p[len] == '\0')
				break;
			p += len + 1;
		}
	}
	fprintf(stderr, "sbox-exec: %s: %s\n", name,
	    strerror(found_errno ? found_errno : ENOENT));
	return found_errno ? SBOX_EXIT_CANNOT_EXEC : SBOX_EXIT_NOT_FOUND;
}

/*
 * Make the first terminal among 0, 1 and SAVED_STDERR our controlling
 * terminal.  It is the one the launcher made for the sandbox, never the
 * caller's (which bwrap's new session has left behind); the command then
 * leads its foreground process group.  No terminal: nothing to do.
 */
static void
take_terminal(int saved_stderr)
{
	const int fds[] = { STDIN_FILENO, STDOUT_FILENO, saved_stderr };

	for (size_t i = 0; i < N_ELEMENTS(fds); i++)
		if (isatty(fds[i])) {
			if (getsid(0) != getpid())
				(void)setsid();
			(void)ioctl(fds[i], TIOCSCTTY, 0);
			return;
		}
}

int
stage2_main(int argc, char **argv)
{
	int ctrl, saved_stderr, keep[MAX_KEEP], out_fds[MAX_KEEP + 2], dashdash;
	size_t nkeep;
	char byte = 'R';
	ssize_t n;

	/* Between MODE and "--": the writable paths, all absolute. */
	for (dashdash = 7; dashdash < argc && argv[dashdash][0] == '/';
	     dashdash++)
		;
	if (dashdash >= argc || strcmp(argv[dashdash], "--") != 0 ||
	    (dashdash + 1 >= argc && strncmp(argv[6], "check", 5) != 0) ||
	    parse_fd(argv[3], &ctrl) < 0 ||
	    parse_fd(argv[4], &saved_stderr) < 0 ||
	    parse_keep(argv[5], keep, MAX_KEEP, &nkeep) < 0 ||
	    strtoul(argv[2], NULL, 10) == stage2_userns_id() ||
	    !peer_outside(ctrl)) {
		fprintf(stderr,
		    "sbox-exec: %s is for sbox-exec's own use, "
		    "inside the sandbox it creates\n",
		    STAGE2_FLAG);
		return SBOX_EXIT_REFUSED;
	}

	/* The command's own output descriptors, and the kept ones. */
	out_fds[0] = STDOUT_FILENO;
	out_fds[1] = saved_stderr;
	memcpy(out_fds + 2, keep, nkeep * sizeof(int));

	/* --tty: the sandbox's terminal becomes ours, job control and all. */
	if (strstr(argv[6], "-tty") != NULL)
		take_terminal(saved_stderr);

	/* The launcher promised these in the status; fail closed. */
	if (landlock_confine(argv + 7, (size_t)(dashdash - 7), out_fds,
		nkeep + 2) < 0) {
		fprintf(stderr, "cannot apply Landlock: %s\n", strerror(errno));
		return SBOX_EXIT_REFUSED;
	}

	do
		n = send(ctrl, &byte, 1, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		return SBOX_EXIT_REFUSED;

	/* The launcher looks at this process from outside, then answers;
	 * --check too, so that it is still here to be looked at. */
	do
		n = recv(ctrl, &byte, 1, 0);
	while (n < 0 && errno == EINTR);
	if (n != 1 || byte != 'G')
		return SBOX_EXIT_REFUSED;
	if (strncmp(argv[6], "check", 5) == 0)
		return 0;

	if (dup2(saved_stderr, STDERR_FILENO) < 0)
		return SBOX_EXIT_REFUSED;
	fd_sort(keep, nkeep);
	fd_close_except(keep, nkeep);
	return exec_command(argv + dashdash + 1);
}
