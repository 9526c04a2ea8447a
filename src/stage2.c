/*
 * stage2.c - inside the sandbox: report in, confine, hand over.
 *
 * Its arguments are stage2_args.h's.  In check mode it reports in, waits
 * for the launcher's word and ends; in the run modes it looks the command
 * up in the sandbox's view (its report says what it found: the file to
 * execute, or why there is none) and waits for the launcher's go-ahead,
 * sent once the launcher has checked the sandbox from outside and
 * reported the status.  The seccomp filter is bwrap's to
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

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bounds.h"
#include "fd.h"
#include "landlock.h"
#include "phase.h"
#include "sbox.h"
#include "stage2.h"
#include "stage2_args.h"
#include "watch.h"
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

#ifndef AT_EXECVE_CHECK
#define AT_EXECVE_CHECK 0x10000 /* Linux 6.14; older kernels: EINVAL */
#endif

/* How much of a file's start is read to tell its format: a "#!" line,
 * an ELF header, a text or a binary. */
#define HEAD_MAX 256

/* The kernel's nesting of interpreters: a "#!" script may be run by a
 * script, and so on, 5 deep, the last interpreter an ELF program
 * (fs/exec.c's recursion limit); a sixth script is ELOOP. */
#define SCRIPT_NEST_MAX 5

/* Whether the first line of the N bytes at HEAD has no NUL byte: a
 * script, not a binary the kernel does not know (which sh would try to
 * read as commands). */
static bool
head_is_text(const char *head, ssize_t n)
{
	for (ssize_t i = 0; i < n && head[i] != '\n'; i++)
		if (head[i] == '\0')
			return false;
	return n >= 0;
}

/* Whether PATH's first line has no NUL byte (head_is_text). */
static bool
looks_like_text(const char *path)
{
	char head[HEAD_MAX];
	cleanup_fd int fd = util_open(path, O_RDONLY, 0);

	if (fd < 0)
		return false;
	return head_is_text(head, read(fd, head, sizeof(head)));
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

/* What the lookup of the command found (sbox-exec(1), STATUS): the file
 * that will be executed, or why there is none. */
struct lookup {
	char kind; /* STAGE2_FOUND, _NOT_FOUND or _NOT_EXECUTABLE */
	char path[PATH_MAX];
	char why[STAGE2_REPORT_MAX - 2];
};

/* What check_file() says of a file. */
enum {
	RUNS,
	ABSENT,
	HIDDEN,
	REFUSED
};

/* The ELF machine of the header H (at least 20 bytes). */
static int
elf_machine(const unsigned char *h)
{
	return h[5] == 2 ? h[18] << 8 | h[19] : h[19] << 8 | h[18];
}

/* Whether the kernel runs programs for the ELF machine M: this program's
 * own, or the 32-bit one it has a compatible mode for.  Unknown: yes. */
static bool
machine_runs(int m)
{
	unsigned char h[20];
	cleanup_fd int fd = util_open("/proc/self/exe", O_RDONLY, 0);
	int own;

	if (fd < 0 || read(fd, h, sizeof(h)) != (ssize_t)sizeof(h) ||
	    memcmp(h, "\177ELF", 4) != 0)
		return true;
	own = elf_machine(h);
	return m == own || (own == 62 && m == 3) || /* x86-64: i386 */
	    (own == 183 && m == 40);		    /* AArch64: ARM */
}

/* Whether PATH is a file that execve() may start: a regular file,
 * executable for us, on a mount that allows it, and where the kernel has
 * AT_EXECVE_CHECK, allowed by it.  WHY says what is wrong. */
static int
check_access(const char *path, char *why, size_t len)
{
	/* An argv of its own: the kernel warns of an empty one. */
	char *const argv1[] = { (char *)path, NULL }, *const none[] = { NULL };
	struct stat st;

	if (stat(path, &st) < 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return errno == EACCES ? HIDDEN : ABSENT;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s: %s", path,
		    S_ISDIR(st.st_mode) ? "is a directory" :
					  "is not a regular file");
		return REFUSED;
	}
	if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) < 0 ||
	    (syscall(SYS_execveat, AT_FDCWD, path, argv1, none,
		 AT_EXECVE_CHECK) < 0 &&
		errno != EINVAL)) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return REFUSED;
	}
	return RUNS;
}

/* The unsigned number of SIZE bytes at P, in the byte order of the ELF
 * header H. */
static uint64_t
elf_num(const unsigned char *h, const unsigned char *p, size_t size)
{
	uint64_t v = 0;

	for (size_t i = 0; i < size; i++)
		v |= (uint64_t)p[h[5] == 2 ? size - 1 - i : i] << (8 * i);
	return v;
}

/*
 * The ELF program at PATH, open as FD, its header at H (N bytes): runs
 * when its loader (PT_INTERP) does, as the kernel opens it.  Program
 * headers out of reach (a file the kernel would refuse) are execve()'s
 * to judge.
 */
static int
check_loader(int fd, const unsigned char *h, ssize_t n, const char *path,
    char *why, size_t len)
{
	bool wide = h[4] == 2; /* ELFCLASS64 */
	unsigned char ph[56];
	char interp[PATH_MAX];
	uint64_t off, size, phoff, phentsize, phnum;

	if (n < (wide ? 64 : 52))
		return RUNS;
	phoff = elf_num(h, h + (wide ? 32 : 28), wide ? 8 : 4);
	phentsize = elf_num(h, h + (wide ? 54 : 42), 2);
	phnum = elf_num(h, h + (wide ? 56 : 44), 2);
	if (phentsize < (wide ? 56u : 32u) || phnum > 1024 ||
	    phoff > (uint64_t)INT64_MAX / 2)
		return RUNS;
	for (uint64_t i = 0; i < phnum; i++) {
		if (pread(fd, ph, wide ? 56 : 32,
			(off_t)(phoff + i * phentsize)) != (wide ? 56 : 32))
			return RUNS;
		if (elf_num(h, ph, 4) != 3) /* PT_INTERP */
			continue;
		off = elf_num(h, ph + (wide ? 8 : 4), wide ? 8 : 4);
		size = elf_num(h, ph + (wide ? 32 : 16), wide ? 8 : 4);
		if (size < 2 || size > sizeof(interp) ||
		    off > (uint64_t)INT64_MAX ||
		    pread(fd, interp, size, (off_t)off) != (ssize_t)size ||
		    interp[size - 1] != '\0')
			return RUNS;
		switch (check_access(interp, why, len)) {
		case RUNS:
			return RUNS;
		case ABSENT:
		case HIDDEN:
			snprintf(why, len,
			    "%s: its loader %s is not in the sandbox", path,
			    interp);
			return REFUSED;
		default:
			return REFUSED;
		}
	}
	return RUNS; /* static */
}

static int check_file(const char *, int, char *, size_t);
static void lookup_command(const char *, const char *, struct lookup *);

/*
 * The bounds of one lookup.  "#!/usr/bin/env NAME" looks NAME up on PATH,
 * and NAME may be such a script too: without them, each level would
 * repeat the whole PATH search of the next, its cost the number of PATH
 * entries to the power of the depth.  So the lookup of a NAME through env
 * is done once and remembered, env's nesting is followed ENV_NEST_MAX
 * deep, and past CHECKS_MAX files read, a file that is there and may be
 * executed is taken to run without reading it: the lookup is advisory,
 * execve() has the last word.  Whether a file is there is never guessed
 * (a PATH of 2 000 entries must not find a file that does not exist).
 */
#define ENV_NEST_MAX 8
#define ENV_SEEN_MAX 8
#define CHECKS_MAX 1024

static struct {
	int nested;   /* env lookups under way */
	int checks;   /* check_file() calls */
	size_t nseen; /* entries of seen[] */
	struct {
		char name[NAME_MAX + 1];
		struct lookup lk;
	} seen[ENV_SEEN_MAX];
} lookup_state;

/* The lookup of NAME through env: remembered, or done and remembered. */
static void
env_lookup(const char *name, struct lookup *lk)
{
	for (size_t i = 0; i < lookup_state.nseen; i++)
		if (strcmp(lookup_state.seen[i].name, name) == 0) {
			*lk = lookup_state.seen[i].lk;
			return;
		}
	lookup_state.nested++;
	lookup_command(name, getenv("PATH"), lk);
	lookup_state.nested--;
	if (lookup_state.nseen < ENV_SEEN_MAX &&
	    strlen(name) < sizeof(lookup_state.seen[0].name)) {
		strcpy(lookup_state.seen[lookup_state.nseen].name, name);
		lookup_state.seen[lookup_state.nseen++].lk = *lk;
	}
}

/*
 * "#!/usr/bin/env NAME", the usual first line of a script run by node or
 * python3: whether NAME is on the PATH the script gets, as env will look
 * for it.  ARG is the rest of the "#!" line; one that starts with an
 * option or an assignment is env's business, not checked.
 */
static int
check_env_target(const char *path, char *arg, char *why, size_t len)
{
	struct lookup *lk;
	size_t end = strcspn(arg, "\n");
	int r = RUNS;

	/* The kernel passes the rest of the line as one argument, without
	 * its trailing blanks: "sh -e" is a name env will not find. */
	while (end > 0 && (arg[end - 1] == ' ' || arg[end - 1] == '\t'))
		end--;
	arg[end] = '\0';
	if (arg[0] == '\0' || arg[0] == '-' || strchr(arg, '=') != NULL)
		return RUNS;
	if (strpbrk(arg, " \t") != NULL) {
		snprintf(why, len,
		    "%s: its \"#!\" line gives env the one name \"%s\", blanks and all (\"#!/usr/bin/env -S\" splits it)",
		    path, arg);
		return REFUSED;
	}
	if (strchr(arg, '/') != NULL || lookup_state.nested >= ENV_NEST_MAX)
		return RUNS;
	lk = malloc(sizeof(*lk));
	if (lk == NULL)
		return RUNS;
	env_lookup(arg, lk);
	if (lk->kind == STAGE2_NOT_FOUND)
		snprintf(why, len,
		    "%s: its interpreter %s (run by env) is not on the sandbox's PATH",
		    path, arg);
	else if (lk->kind == STAGE2_NOT_EXECUTABLE) /* what is missing */
		snprintf(why, len, "%s", lk->why);
	if (lk->kind != STAGE2_FOUND)
		r = REFUSED;
	free(lk);
	return r;
}

/* A "#!" script at PATH, its first line at HEAD: runs when its
 * interpreter does, as the kernel reads it (one word after "#!"). */
static int
check_script(const char *path, char *head, int depth, char *why, size_t len)
{
	char *interp = head + 2 + strspn(head + 2, " \t");
	size_t end = strcspn(interp, " \t\n");
	char *arg = interp[end] == '\n' || interp[end] == '\0' ?
	    interp + end :
	    interp + end + 1 + strspn(interp + end + 1, " \t");

	interp[end] = '\0';
	if (interp[0] == '\0') {
		snprintf(why, len, "%s: its \"#!\" line names no interpreter",
		    path);
		return REFUSED;
	}
	switch (check_file(interp, depth + 1, why, len)) {
	case RUNS:
		if (strcmp(interp, "/usr/bin/env") == 0 ||
		    strcmp(interp, "/bin/env") == 0)
			return check_env_target(path, arg, why, len);
		return RUNS;
	case ABSENT:
	case HIDDEN:
		snprintf(why, len,
		    "%s: its interpreter %s is not in the sandbox", path,
		    interp);
		return REFUSED;
	default:
		return REFUSED;
	}
}

/*
 * Whether execve() of PATH would start a program, checked without running
 * anything: the file (a regular file, executable for us, on a mount that
 * allows it, and where the kernel has AT_EXECVE_CHECK, allowed by it) and
 * its format (an ELF program for this machine, a "#!" script whose
 * interpreter runs, or a text file that exec_file() gives to sh).  WHY
 * says what is wrong.  DEPTH counts interpreters, which the kernel nests
 * only so deep.
 */
static int
check_file(const char *path, int depth, char *why, size_t len)
{
	char head[HEAD_MAX];
	struct stat st;
	ssize_t n;
	int r;
	cleanup_fd int fd = -1;

	if (depth > SCRIPT_NEST_MAX) {
		snprintf(why, len,
		    "%s: %s (more than %d nested \"#!\" scripts)", path,
		    strerror(ELOOP), SCRIPT_NEST_MAX);
		return REFUSED;
	}
	if ((r = check_access(path, why, len)) != RUNS)
		return r;
	/*
	 * The budget bounds only what follows (reading the file, looking
	 * its interpreter up): whether a file is there is always asked, so
	 * that a long PATH never makes a missing file look found.
	 */
	if (++lookup_state.checks > CHECKS_MAX)
		return RUNS;
	/* Not blocking: a file replaced by a FIFO since stat() is no file. */
	fd = util_open(path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return RUNS; /* execute-only: the kernel can still read it */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return RUNS; /* changed under us: execve() will say */
	n = read(fd, head, sizeof(head) - 1);
	head[n > 0 ? n : 0] = '\0';
	if (n >= 2 && head[0] == '#' && head[1] == '!')
		return check_script(path, head, depth, why, len);
	if (n >= 20 && memcmp(head, "\177ELF", 4) == 0) {
		if (machine_runs(elf_machine((unsigned char *)head)))
			return check_loader(fd, (unsigned char *)head, n, path,
			    why, len);
	} else if (head_is_text(head, n)) {
		if (check_file("/bin/sh", depth + 1, why, len) == RUNS)
			return RUNS;
		snprintf(why, len,
		    "%s: a script without \"#!\", and /bin/sh is not in the sandbox to run it",
		    path);
		return REFUSED;
	}
	snprintf(why, len, "%s: %s", path, strerror(ENOEXEC));
	return REFUSED;
}

/* The lookup found CAND: the path to execute, made absolute. */
static void
lookup_found(struct lookup *lk, const char *cand)
{
	char cwd[PATH_MAX];

	lk->kind = STAGE2_FOUND;
	if (cand[0] != '/' && getcwd(cwd, sizeof(cwd)) != NULL &&
	    snprintf(lk->path, sizeof(lk->path), "%s/%s", cwd, cand) <
		(int)sizeof(lk->path))
		return;
	snprintf(lk->path, sizeof(lk->path), "%s", cand);
}

/*
 * Look NAME up as execvp() and a shell do, with PATH_ENV (the command's
 * own PATH) or, without one, "/bin:/usr/bin": a name with a slash is the
 * file itself; otherwise the first file on PATH that runs, and when none
 * does, the first one found (not executable) or nothing (not found).
 * Unlike execvp(), a directory on PATH that cannot be searched does not
 * turn "not found" into "not executable".
 */
static void
lookup_command(const char *name, const char *path_env, struct lookup *lk)
{
	const char *p = path_env != NULL ? path_env : "/bin:/usr/bin";
	char why[sizeof(lk->why)];
	/* The first directory that could not be searched, for the reason. */
	const char *closed = NULL;
	size_t closed_len = 0;

	if (lookup_state.nested == 0) { /* a lookup of its own */
		lookup_state.checks = 0;
		lookup_state.nseen = 0;
	}
	lk->kind = STAGE2_NOT_FOUND;
	if (name[0] == '\0') {
		snprintf(lk->why, sizeof(lk->why),
		    "the command's name is empty");
		return;
	}
	if (strchr(name, '/') != NULL) {
		int r = check_file(name, 0, lk->why, sizeof(lk->why));

		if (r == RUNS)
			lookup_found(lk, name);
		else if (r != ABSENT)
			lk->kind = STAGE2_NOT_EXECUTABLE;
		return;
	}
	for (;;) {
		/* An empty entry is the current directory. */
		size_t len = strcspn(p, ":");
		char cand[PATH_MAX];
		int n = snprintf(cand, sizeof(cand), "%.*s/%s",
		    len ? (int)len : 1, len ? p : ".", name);

		if (n > 0 && (size_t)n < sizeof(cand)) {
			int r = check_file(cand, 0, why, sizeof(why));

			if (r == RUNS) {
				lookup_found(lk, cand);
				return;
			}
			if (r == HIDDEN && closed == NULL) {
				closed = len ? p : ".";
				closed_len = len ? len : 1;
			}
			if (r == REFUSED && lk->kind == STAGE2_NOT_FOUND) {
				lk->kind = STAGE2_NOT_EXECUTABLE;
				memcpy(lk->why, why, sizeof(why));
			}
		}
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	if (lk->kind == STAGE2_NOT_FOUND && closed != NULL)
		/* Passed over as by a shell, but said: execvp() would
		 * answer "Permission denied" here. */
		snprintf(lk->why, sizeof(lk->why),
		    "%s: not found on the sandbox's PATH, whose %.*s cannot be searched (%s) (%s)",
		    name, (int)closed_len, closed, strerror(EACCES),
		    path_env != NULL ? path_env : "unset: /bin:/usr/bin");
	else if (lk->kind == STAGE2_NOT_FOUND)
		snprintf(lk->why, sizeof(lk->why),
		    "%s: not found on the sandbox's PATH (%s)", name,
		    path_env != NULL ? path_env : "unset: /bin:/usr/bin");
}

/*
 * Whether execve() of LK's file with ARGV and our environment fits in the
 * room the kernel gives them under the stack limit the command gets
 * (--limit stack, or ours): a command the status names must be one that
 * starts, never one whose execve() then fails with E2BIG.
 */
static void
check_exec_room(struct lookup *lk, char **argv, const struct bounds *b)
{
	extern char **environ;
	struct exec_size es;
	struct rlimit rl = { .rlim_cur = RLIM_INFINITY };
	size_t room;

	if (lk->kind != STAGE2_FOUND)
		return;
	if (b->set[BOUND_STACK])
		rl.rlim_cur = b->value[BOUND_STACK];
	else if (getrlimit(RLIMIT_STACK, &rl) < 0)
		rl.rlim_cur = RLIM_INFINITY;
	room = bounds_exec_limit(rl.rlim_cur);
	bounds_exec_size(lk->path, argv, environ, &es);
	if (es.bytes <= room && es.longest_len <= BOUNDS_EXEC_STRING_MAX)
		return;
	lk->kind = STAGE2_NOT_EXECUTABLE;
	if (es.longest_len > BOUNDS_EXEC_STRING_MAX)
		snprintf(lk->why, sizeof(lk->why),
		    "%s: %s (one of its arguments or variables takes %zu bytes, above the kernel's %d for one)",
		    lk->path, strerror(E2BIG), es.longest_len,
		    BOUNDS_EXEC_STRING_MAX);
	else
		snprintf(lk->why, sizeof(lk->why),
		    "%s: %s (its arguments and environment take %zu bytes, above the %zu the kernel gives them under %s stack limit)",
		    lk->path, strerror(E2BIG), es.bytes, room,
		    b->set[BOUND_STACK] ? "--limit's" : "the");
}

/*
 * Execute LK's file with ARGV; the lookup was advisory (the file may have
 * changed since), so a failure is still said, with the exit code a shell
 * uses: 127 when the file is gone, 126 when it cannot be executed.
 */
static int
exec_command(const struct lookup *lk, char **argv)
{
	if (lk->kind != STAGE2_FOUND)
		return lk->kind == STAGE2_NOT_FOUND ? SBOX_EXIT_NOT_FOUND :
						      SBOX_EXIT_CANNOT_EXEC;
	exec_file(lk->path, argv);
	fprintf(stderr, "sbox-exec: %s: %s\n", lk->path, strerror(errno));
	return errno == ENOENT || errno == ENOTDIR ? SBOX_EXIT_NOT_FOUND :
						     SBOX_EXIT_CANNOT_EXEC;
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

/*
 * --allow-host: a listening socket on ADDR (of FAMILY), port PORT, of the
 * sandbox's own network namespace (bwrap brought its loopback up), for
 * the launcher to serve from outside: the proxy's on 127.0.0.1, and one
 * for each loopback address the sandbox serves on its own loopback.
 * Made before Landlock, which may govern TCP binds.  -1 when it cannot
 * be: nothing runs then.
 */
static int
listen_on(int family, const unsigned char *addr, int port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len = family == AF_INET ? sizeof(*sin) : sizeof(*sin6);
	int one = 1, fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ss.ss_family = (sa_family_t)family;
	if (family == AF_INET) {
		sin->sin_port = htons((uint16_t)port);
		memcpy(&sin->sin_addr, addr, 4);
	} else {
		sin6->sin6_port = htons((uint16_t)port);
		memcpy(&sin6->sin6_addr, addr, 16);
	}
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (family == AF_INET6 &&
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) <
		    0) ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 512) < 0) {
		int saved = errno;

		fd_close(&fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* The proxy's socket, then one for each of A's forwards, into FDS;
 * how many, or -1 (said on stderr, all closed) when one cannot be made
 * (but ::1 where the sandbox has no IPv6). */
static int
listen_all(const struct stage2_args *a, int *fds)
{
	static const unsigned char lo[16] = { 127, 0, 0, 1 };
	int n = 0;

	if (a->proxy_port == 0)
		return 0;
	for (size_t i = 0; i <= a->nfwd; i++) {
		int family = i == 0 ? AF_INET : a->fwd[i - 1].family;
		const unsigned char *addr = i == 0 ? lo : a->fwd[i - 1].addr;
		int port = i == 0 ? a->proxy_port : a->fwd[i - 1].port;
		char text[INET6_ADDRSTRLEN];

		if ((fds[n] = listen_on(family, addr, port)) >= 0) {
			n++;
			continue;
		}
		/* A sandbox without IPv6 has no ::1 to serve: nothing can
		 * connect there either. */
		if (family == AF_INET6 &&
		    (errno == EAFNOSUPPORT || errno == EADDRNOTAVAIL))
			continue;
		inet_ntop(family, addr, text, sizeof(text));
		fprintf(stderr,
		    i == 0 ?
			"cannot start the network proxy on %s port %d inside the sandbox: %s\n" :
			"cannot serve %s port %d on the sandbox's loopback: %s\n",
		    text, port, strerror(errno));
		while (n > 0)
			fd_close(&fds[--n]);
		return -1;
	}
	return n;
}

/*
 * Report in on CTRL: 'R', and with LK what the lookup found (stage2.h),
 * with the NNET listening sockets NET (the proxy's, then the forwards')
 * and the watch filter's listener WATCH attached where there are; then
 * wait for the launcher's word.  0 on its go-ahead.
 */
static int
report_in(int ctrl, const struct lookup *lk, const int *net, int nnet,
    int watch)
{
	char report[STAGE2_REPORT_MAX] = { 'R' };
	size_t len = 1;
	union {
		char buf[CMSG_SPACE(STAGE2_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	int fds[STAGE2_MAX_FDS], nfds = 0;
	struct iovec iov = { .iov_base = report };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (lk != NULL) {
		const char *text = lk->kind == STAGE2_FOUND ? lk->path :
							      lk->why;
		size_t tlen = strnlen(text, sizeof(report) - 2);

		report[len++] = lk->kind;
		memcpy(report + len, text, tlen);
		len += tlen;
	}
	iov.iov_len = len;
	for (int i = 0; i < nnet; i++)
		fds[nfds++] = net[i];
	if (watch >= 0)
		fds[nfds++] = watch;
	if (nfds > 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	do
		n = sendmsg(ctrl, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len)
		return -1;
	/* The launcher looks at this process from outside, then answers;
	 * --check too, so that it is still here to be looked at. */
	do
		n = recv(ctrl, report, 1, 0);
	while (n < 0 && errno == EINTR);
	return n == 1 && report[0] == STAGE2_GO ? 0 : -1;
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
	struct lookup lk;
	int out_fds[STAGE2_ARGS_MAX_KEEP_FDS + 2];
	const char *failed = NULL;
	int net[1 + NETPOLICY_MAX_FORWARDS], nnet, watch = -1;

	if (stage2_args_decode(argc, argv, &a, &err) < 0 ||
	    check_placed(&a, &err) < 0) {
		fprintf(stderr,
		    "sbox-exec: %s is for sbox-exec's own use, inside the sandbox it creates: %s\n",
		    STAGE2_FLAG, err.detail);
		sbox_error_clear(&err);
		return SBOX_EXIT_REFUSED;
	}
	phase_mark_to(a.saved_stderr, "stage2");

	/* The command's own output descriptors, and the kept ones. */
	out_fds[0] = STDOUT_FILENO;
	out_fds[1] = a.saved_stderr;
	memcpy(out_fds + 2, a.keep, a.nkeep * sizeof(int));

	/* --tty: the sandbox's terminal becomes ours, job control and all. */
	if (a.mode == STAGE2_RUN_TTY)
		take_terminal(a.saved_stderr);

	if ((nnet = listen_all(&a, net)) < 0)
		return SBOX_EXIT_REFUSED;

	/* The launcher promised these in the status; fail closed. */
	if (landlock_confine(a.writable, a.nwritable, out_fds, a.nkeep + 2) <
	    0) {
		fprintf(stderr, "cannot apply Landlock: %s\n", strerror(errno));
		return SBOX_EXIT_REFUSED;
	}
	/* In the sandbox's view, with the command's environment; before
	 * the limits, which are the command's, not the lookup's. */
	if (a.mode != STAGE2_CHECK) {
		lookup_command(a.command[0], getenv("PATH"), &lk);
		check_exec_room(&lk, (char **)a.command, &a.limits);
	}
	/* Last before the report: nothing of ours makes a watched call
	 * before the launcher serves the listener.  A kernel without it
	 * runs the command all the same, with no denials told. */
	if (a.watch)
		watch = watch_install();
	phase_mark_to(a.saved_stderr, "report");
	if (report_in(a.ctrl, a.mode == STAGE2_CHECK ? NULL : &lk, net, nnet,
		watch) < 0)
		return SBOX_EXIT_REFUSED;
	while (nnet > 0) /* the launcher's now */
		fd_close(&net[--nnet]);
	fd_close(&watch);
	if (a.mode == STAGE2_CHECK)
		return 0;

	if (dup2(a.saved_stderr, STDERR_FILENO) < 0) {
		dprintf(a.saved_stderr,
		    "sbox-exec: cannot restore stderr: %s\n", strerror(errno));
		return SBOX_EXIT_REFUSED;
	}
	fd_sort(a.keep, a.nkeep);
	fd_close_except(a.keep, a.nkeep);
	/* Last, so that nothing of ours runs under them.  The status says
	 * they are set: set, or nothing runs. */
	if (apply_limits(&a.limits, &failed) < 0) {
		fprintf(stderr, "sbox-exec: cannot set the limit %s: %s\n",
		    failed, strerror(errno));
		return SBOX_EXIT_REFUSED;
	}
	phase_mark("exec");
	return exec_command(&lk, (char **)a.command);
}
