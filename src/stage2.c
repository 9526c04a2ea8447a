/*
 * stage2.c - inside the sandbox: report in, confine, hand over.
 *
 * Its arguments are stage2_args.h's.  In check mode it reports in, waits
 * for the launcher's word and ends; in the run modes it waits for the
 * launcher's go-ahead, sent once the launcher has checked the sandbox
 * from outside and reported the status.  The seccomp filter is bwrap's to
 * install (--seccomp), on its init process as on this one; the launcher
 * checks that it did, and launches nothing where it has no filter.
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

#include "fd.h"
#include "landlock.h"
#include "sbox.h"
#include "stage2.h"
#include "stage2_args.h"
#include "util.h"

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
	cleanup_fd int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, head, sizeof(head));
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

/* Whether we run where the launcher put us: in a user namespace other
 * than the one A names, with the launcher outside our pid namespace. */
static int
check_placed(const struct stage2_args *a, struct sbox_error *err)
{
	if (a->userns == stage2_userns_id() || !peer_outside(a->ctrl)) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "not started by sbox-exec's launcher");
		return -1;
	}
	return 0;
}

/* One byte each way on CTRL: 'R' for ready, then the launcher's 'G'. */
static int
report_in(int ctrl)
{
	char byte = 'R';
	ssize_t n;

	do
		n = send(ctrl, &byte, 1, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		return -1;
	/* The launcher looks at this process from outside, then answers;
	 * --check too, so that it is still here to be looked at. */
	do
		n = recv(ctrl, &byte, 1, 0);
	while (n < 0 && errno == EINTR);
	return n == 1 && byte == 'G' ? 0 : -1;
}

/*
 * The limits of TIMEOUT AND LIMITS in sbox-exec(1), soft and hard alike so that the
 * command cannot raise them; -1 (errno set, *FAILED naming the limit)
 * when one cannot be set.  Two exceptions: cpu's hard limit is a second
 * above the soft one, so that the command hears SIGXCPU before the
 * kernel's SIGKILL; and core=0 is set as 1 byte, which writes no core
 * file either (none is smaller than a page) and, unlike 0, also stops
 * the kernel from handing the crash to a core_pattern pipe on the host.
 */
static int
apply_limits(const struct bounds *b, const char **failed)
{
	for (size_t r = 0; r < BOUND_N; r++) {
		int res = bounds_resource((enum bound_res)r);
		struct rlimit rl;

		if (!b->set[r])
			continue;
		*failed = bounds_name((enum bound_res)r);
		if (getrlimit(res, &rl) < 0)
			return -1;
		rl.rlim_cur = b->value[r];
		if (r == BOUND_CORE && rl.rlim_cur == 0 && rl.rlim_max != 0)
			rl.rlim_cur = 1;
		if (rl.rlim_cur > rl.rlim_max && rl.rlim_max != RLIM_INFINITY) {
			errno = EPERM;
			return -1;
		}
		if (r == BOUND_CPU && rl.rlim_cur != RLIM_INFINITY &&
		    (rl.rlim_max == RLIM_INFINITY ||
			rl.rlim_cur + 1 <= rl.rlim_max))
			rl.rlim_max = rl.rlim_cur + 1;
		else
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(res, &rl) < 0)
			return -1;
	}
	return 0;
}

int
stage2_main(int argc, char **argv)
{
	struct stage2_args a;
	struct sbox_error err = { 0 };
	int out_fds[STAGE2_ARGS_MAX_KEEP_FDS + 2];
	const char *failed = NULL;

	if (stage2_args_decode(argc, argv, &a, &err) < 0 ||
	    check_placed(&a, &err) < 0) {
		fprintf(stderr,
		    "sbox-exec: %s is for sbox-exec's own use, inside the sandbox it creates: %s\n",
		    STAGE2_FLAG, err.detail);
		sbox_error_clear(&err);
		return SBOX_EXIT_REFUSED;
	}

	/* The command's own output descriptors, and the kept ones. */
	out_fds[0] = STDOUT_FILENO;
	out_fds[1] = a.saved_stderr;
	memcpy(out_fds + 2, a.keep, a.nkeep * sizeof(int));

	/* --tty: the sandbox's terminal becomes ours, job control and all. */
	if (a.mode == STAGE2_RUN_TTY)
		take_terminal(a.saved_stderr);

	/* The launcher promised these in the status; fail closed. */
	if (landlock_confine(a.writable, a.nwritable, out_fds, a.nkeep + 2) <
	    0) {
		fprintf(stderr, "cannot apply Landlock: %s\n", strerror(errno));
		return SBOX_EXIT_REFUSED;
	}
	/* The status will say they are set: set, or nothing runs. */
	if (apply_limits(&a.limits, &failed) < 0) {
		fprintf(stderr, "cannot set the limit %s: %s\n", failed,
		    strerror(errno));
		return SBOX_EXIT_REFUSED;
	}
	if (report_in(a.ctrl) < 0)
		return SBOX_EXIT_REFUSED;
	if (a.mode == STAGE2_CHECK)
		return 0;

	if (dup2(a.saved_stderr, STDERR_FILENO) < 0)
		return SBOX_EXIT_REFUSED;
	fd_sort(a.keep, a.nkeep);
	fd_close_except(a.keep, a.nkeep);
	return exec_command((char **)a.command);
}
