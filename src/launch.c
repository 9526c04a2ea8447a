/*
 * launch.c - descriptors, the fork of bwrap, stage two, and the hand-over.
 *
 * MUST: every descriptor is close-on-exec from birth; the ones bwrap and
 * stage two need are made inheritable in the child only, from an explicit
 * list.  Between fork and exec: async-signal-safe calls and _exit only.
 * The command runs only after the launcher has checked the sandbox from
 * outside (verify.c) and reported success; it never runs outside the
 * sandbox.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bwrap_argv.h"
#include "stage2.h"
#include "launch.h"
#include "probe.h"
#include "seccomp.h"
#include "util.h"
#include "verify.h"

extern char **environ;

/* Signals the launcher passes on to the command instead of dying. */
static const int forwarded[] = {
	SIGHUP,
	SIGINT,
	SIGQUIT,
	SIGTERM,
	SIGUSR1,
	SIGUSR2,
	SIGALRM,
	SIGWINCH,
	SIGCONT,
};

static volatile sig_atomic_t fwd_pidfd = -1;
static volatile sig_atomic_t fwd_pid = -1;

static void
forward_signal(int sig)
{
	int saved = errno;

	/* A pidfd cannot hit a recycled pid; the bare pid is the fallback. */
	if (fwd_pidfd >= 0)
		(void)syscall(SYS_pidfd_send_signal, (int)fwd_pidfd, sig, NULL,
		    0);
	else if (fwd_pid > 0)
		(void)kill((pid_t)fwd_pid, sig);
	errno = saved;
}

static int
set_inheritable(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	if (flags < 0)
		return -1;
	return fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
}

/* Everything the launch needs open; all close-on-exec in the launcher. */
struct fdset {
	int ctrl[2];	  /* [0] launcher, [1] stage two */
	int err[2];	  /* bwrap's stderr: [0] read, [1] write */
	int exe;	  /* our executable, for stage two */
	int saved_stderr; /* the caller's stderr, for the command */
	int devnull;
	int seccomp; /* the filter program for bwrap, or -1 */
	int *empty;  /* /dev/null, one per hidden file */
	size_t nempty;
	int *bind; /* per mount: its source, or -1 */
	size_t nbind;
};

static void
fdset_close(struct fdset *f)
{
	int *all[] = { &f->ctrl[0], &f->ctrl[1], &f->err[0], &f->err[1],
		&f->exe, &f->saved_stderr, &f->devnull, &f->seccomp };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (*all[i] >= 0) {
			close(*all[i]);
			*all[i] = -1;
		}
	for (size_t i = 0; i < f->nempty; i++)
		if (f->empty[i] >= 0)
			close(f->empty[i]);
	for (size_t i = 0; i < f->nbind; i++)
		if (f->bind[i] >= 0)
			close(f->bind[i]);
	free(f->empty);
	free(f->bind);
	f->empty = f->bind = NULL;
	f->nempty = f->nbind = 0;
}

/*
 * Open the source of every grant, without following a final symlink, and
 * check that it is still the path the policy was decided on: bwrap binds
 * the descriptor, so a swap after this point changes nothing, and a swap
 * before it is caught here.
 */
static int
open_bind_fds(struct fdset *f, const struct policy *p, struct sbox_error *err)
{
	f->bind = xcalloc(p->nmounts, sizeof(int));
	f->nbind = p->nmounts;
	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount *m = &p->mounts[i];
		char link[64], target[PATH_MAX];
		struct stat st;
		ssize_t n;

		f->bind[i] = -1;
		if (m->kind != MOUNT_RO && m->kind != MOUNT_RW)
			continue;
		f->bind[i] = open(m->src, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (f->bind[i] < 0) {
			sbox_error_set(err, SBOX_INVALID_POLICY, "%s: %s",
			    m->src, strerror(errno));
			return -1;
		}
		/* O_PATH|O_NOFOLLOW opens a symlink itself: one swapped in
		 * since the policy was decided is caught here too. */
		snprintf(link, sizeof(link), "/proc/self/fd/%d", f->bind[i]);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0 || fstat(f->bind[i], &st) < 0 ||
		    S_ISLNK(st.st_mode) ||
		    (target[n] = '\0', strcmp(target, m->src) != 0)) {
			sbox_error_set(err, SBOX_INVALID_POLICY,
			    "%s changed "
			    "while sbox-exec was looking at it",
			    m->src);
			return -1;
		}
	}
	return 0;
}

static int
open_empty_fds(struct fdset *f, size_t n)
{
	f->empty = xcalloc(n, sizeof(int));
	f->nempty = n;
	for (size_t i = 0; i < n; i++) {
		f->empty[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (f->empty[i] < 0)
			return -1;
	}
	return 0;
}

static int
fdset_open(struct fdset *f, size_t nempty, bool net, struct sbox_error *err)
{
	int one = 1;

	memset(f, 0, sizeof(*f));
	f->ctrl[0] = f->ctrl[1] = f->err[0] = f->err[1] = -1;
	f->exe = f->saved_stderr = f->devnull = f->seccomp = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, f->ctrl) <
		0 ||
	    setsockopt(f->ctrl[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) <
		0 ||
	    pipe2(f->err, O_CLOEXEC) < 0 ||
	    (f->exe = open("/proc/self/exe", O_PATH | O_CLOEXEC)) < 0 ||
	    (f->saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (f->devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 ||
	    open_empty_fds(f, nempty) < 0 ||
	    /* -2: no filter for this architecture (the status says so) */
	    ((f->seccomp = seccomp_program_fd(net)) < 0 && f->seccomp != -2)) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "cannot prepare the launch: %s", strerror(errno));
		fdset_close(f);
		return -1;
	}
	return 0;
}

/* "3,7,9" or "-": the descriptors the command keeps. */
static char *
keep_list(const struct policy *p)
{
	struct buf b = { 0 };

	for (size_t i = 0; i < p->nkeep; i++)
		buf_addf(&b, "%s%d", i ? "," : "", p->keep_fds[i]);
	if (b.len == 0)
		buf_addc(&b, '-');
	return buf_steal(&b);
}

static void
build_argv(const struct launch_spec *spec, const struct fdset *f,
    struct strv *argv)
{
	const struct invocation *inv = spec->inv;
	const struct located *bw = spec->bwrap;
	cleanup_strv struct strv cmd = { 0 };
	const struct policy *p = &inv->policy;
	struct bwargv_input in = {
		.bwrap = bw->path,
		.empty_fds = f->empty,
		.nempty = f->nempty,
		.disable_userns = bw->disable_userns,
		.bind_fds = f->bind,
		.seccomp = f->seccomp >= 0,
		.seccomp_fd = f->seccomp,
	};

	strv_addf(&cmd, "/proc/self/fd/%d", f->exe);
	strv_add(&cmd, STAGE2_FLAG);
	strv_addf(&cmd, "%lu", stage2_userns_id());
	strv_addf(&cmd, "%d", f->ctrl[1]);
	strv_addf(&cmd, "%d", f->saved_stderr);
	strv_take(&cmd, keep_list(p));
	strv_addf(&cmd, "%s%s", inv->mode == MODE_CHECK ? "check" : "run",
	    inv->policy.tty ? "-tty" : "");
	/* Where Landlock is to let the command write: the mounts say so. */
	for (size_t i = 0; i < p->nmounts; i++)
		if (p->mounts[i].kind == MOUNT_RW)
			strv_add(&cmd, p->mounts[i].dest);
	strv_add(&cmd, "--");
	for (char **a = inv->command; *a != NULL; a++)
		strv_add(&cmd, *a);
	in.command = cmd.v;
	bwargv_build(p, &in, argv);
}

static void
print_argv(FILE *out, char *const *argv)
{
	cleanup_buf struct buf b = { 0 };

	for (size_t i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			buf_addc(&b, ' ');
		util_shell_quote(&b, argv[i]);
	}
	fprintf(out, "%s\n", b.s);
}

/* --print: the sandbox for the user's command, as a shell line (the
 * caller flushes stdout and checks it). */
void
launch_print(const struct invocation *inv, const struct located *bw)
{
	cleanup_strv struct strv argv = { 0 };
	size_t n = bwargv_empty_fds_needed(&inv->policy);
	cleanup_free int *fds = xcalloc(n, sizeof(int));
	struct bwargv_input in = {
		.bwrap = bw->path,
		.empty_fds = fds,
		.nempty = n,
		.command = inv->command,
		.disable_userns = bw->disable_userns,
		.seccomp = seccomp_supported(),
		.seccomp_fd = 3 + (int)n,
	};

	/* Hidden files read from descriptors the caller opens on /dev/null;
	 * the filter program from the one after them. */
	for (size_t i = 0; i < n; i++)
		fds[i] = 3 + (int)i;
	bwargv_build(&inv->policy, &in, &argv);
	print_argv(stdout, argv.v);
}

/* The child: become bwrap with exactly the descriptors it needs. */
static void SBOX_NORETURN
exec_bwrap(const struct invocation *inv, const struct located *bw,
    const struct fdset *f, char *const *argv, const int *keep, size_t nkeep,
    const struct sigaction *old_pipe)
{
	static const char msg[] = "cannot execute bwrap: ";
	struct sigaction ign_sa = { .sa_handler = SIG_IGN };

	if (dup2(f->err[1], STDERR_FILENO) < 0)
		_exit(127);
	/* --check runs no command: nothing of the caller's for it at all. */
	if (inv->mode == MODE_CHECK &&
	    (dup2(f->devnull, STDIN_FILENO) < 0 ||
		dup2(f->devnull, STDOUT_FILENO) < 0))
		_exit(127);
	if (!inv->policy.tty) {
		/* Out of the caller's process group: its terminal signals
		 * are ours to forward, not bwrap's to die of. */
		(void)setpgid(0, 0);
	} else {
		/*
		 * With --tty the sandbox stays in the terminal's foreground
		 * group, so that the command reads the terminal and job
		 * control works; the keyboard's SIGINT and SIGQUIT reach it
		 * directly and must not kill bwrap (stage two restores them).
		 */
		(void)sigaction(SIGINT, &ign_sa, NULL);
		(void)sigaction(SIGQUIT, &ign_sa, NULL);
	}
	fd_close_except(keep, nkeep);
	/* bwrap's own descriptor too: a wrapper script is run through it. */
	for (size_t i = 0; i < nkeep; i++)
		if (set_inheritable(keep[i]) < 0)
			_exit(127);
	(void)sigaction(SIGPIPE, old_pipe, NULL);
	(void)syscall(SYS_execveat, bw->fd, "", argv, environ, AT_EMPTY_PATH);
	{
		/*
		 * A table lookup: nothing may be allocated in a vfork child,
		 * whose memory is the launcher's.  glibc's strerror() may
		 * allocate, hence strerrordesc_np(); musl's is a lookup.
		 */
#ifdef HAVE_STRERRORDESC_NP
		const char *why = strerrordesc_np(errno);
#else
		const char *why = strerror(errno);
#endif

		if (why == NULL)
			why = "unknown error";
		(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
		(void)!write(STDERR_FILENO, why, strlen(why));
		(void)!write(STDERR_FILENO, "\n", 1);
	}
	_exit(127);
}

/*
 * From the moment the sandbox is up, signals meant for us go to the
 * command (stage two now, the command after its exec: the same process).
 */
static void
forward_signals_to(pid_t child, pid_t cmd, bool tty)
{
	struct sigaction sa = { .sa_handler = forward_signal };

	fwd_pidfd = cmd > 0 ? (int)syscall(SYS_pidfd_open, cmd, 0) : -1;
	if (fwd_pidfd >= 0)
		(void)fcntl((int)fwd_pidfd, F_SETFD, FD_CLOEXEC);
	fwd_pid = child;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		(void)sigaction(forwarded[i], &sa, NULL);
	if (tty) {
		/* The terminal sends these to the command itself. */
		struct sigaction ign = { .sa_handler = SIG_IGN };

		(void)sigaction(SIGINT, &ign, NULL);
		(void)sigaction(SIGQUIT, &ign, NULL);
	}
}

/* After the hand-over: pass bwrap's late words on, wait, mirror its end. */
static int
proxy(pid_t child, int err_fd)
{
	int status, devnull, pidfd = (int)fwd_pidfd;
	char chunk[1024];
	ssize_t n;

	/* The command owns stdin and stdout now; we hold them no more. */
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		(void)dup3(devnull, STDIN_FILENO, 0);
		(void)dup3(devnull, STDOUT_FILENO, 0);
		close(devnull);
	}
	{
		int keep[2] = { err_fd, pidfd };

		fd_sort(keep, 2);
		fd_close_except(keep, 2);
	}

	for (;;) {
		n = read(err_fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		(void)!write(STDERR_FILENO, chunk, (size_t)n);
	}
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return SBOX_EXIT_REFUSED;
	if (WIFSIGNALED(status))
		return SBOX_EXIT_SIGNAL_BASE + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * Create the sandbox and run the command in it (or, for --check, only
 * create it).  Returns -1 with ERR set when the sandbox could not be
 * created; otherwise 0 with *EXIT_CODE what sbox-exec should exit with.
 */
int
launch_sandbox(const struct launch_spec *spec, int *exit_code,
    struct sbox_error *err)
{
	const struct invocation *inv = spec->inv;
	const struct policy *p = &inv->policy;
	cleanup_strv struct strv argv = { 0 };
	cleanup_free int *keep = NULL;
	struct probe_outcome out;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_pipe;
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct fdset f;
	size_t nkeep = 0;
	pid_t child;
	char go = 'G';
	/* Everything inside carries the launcher's filters and bwrap's. */
	int filters = verify_seccomp_filters() + 1;

	if (fdset_open(&f, bwargv_empty_fds_needed(p), p->net, err) < 0)
		return -1;
	if (spec->bwrap->bind_fd && open_bind_fds(&f, p, err) < 0) {
		fdset_close(&f);
		return -1;
	}
	build_argv(spec, &f, &argv);
	if (inv->verbosity > 0) {
		fputs("sbox-exec: running: ", stderr);
		print_argv(stderr, argv.v);
	}

	/* The child's inheritable set: bwrap's needs and the kept fds. */
	keep = xcalloc(p->nkeep + f.nempty + f.nbind + 5, sizeof(int));
	keep[nkeep++] = f.ctrl[1];
	keep[nkeep++] = f.exe;
	keep[nkeep++] = f.saved_stderr;
	keep[nkeep++] = spec->bwrap->fd;
	if (f.seccomp >= 0)
		keep[nkeep++] = f.seccomp;
	for (size_t i = 0; i < f.nempty; i++)
		keep[nkeep++] = f.empty[i];
	for (size_t i = 0; i < f.nbind; i++)
		if (f.bind[i] >= 0)
			keep[nkeep++] = f.bind[i];
	for (size_t i = 0; i < p->nkeep; i++)
		keep[nkeep++] = p->keep_fds[i];
	fd_sort(keep, nkeep);

	/*
	 * A caller's SIGCHLD=SIG_IGN would reap bwrap before we could, and
	 * bwrap's own children before it could: default it for good.
	 */
	(void)sigaction(SIGPIPE, &ign, &old_pipe);
	(void)sigaction(SIGCHLD, &dfl, NULL);
	fflush(NULL);
	/*
	 * vfork: the child only rearranges descriptors and execs, and the
	 * launcher's memory need not be copied for that.
	 */
	child = vfork();
	if (child < 0) {
		sbox_error_set(err, SBOX_PROBE_FAILED, "vfork: %s",
		    strerror(errno));
		fdset_close(&f);
		return -1;
	}
	if (child == 0)
		exec_bwrap(inv, spec->bwrap, &f, argv.v, keep, nkeep,
		    &old_pipe);

	/*
	 * From here the launcher only waits and relays.  SCHED_BATCH keeps
	 * its wake-ups (stage two reporting in, a signal to pass on) from
	 * preempting the command, which the kernel tends to start on the
	 * CPU the launcher is woken on; measured here, about 0.1 ms of each
	 * launch.  Only this thread: bwrap has been started already.  (musl
	 * leaves sched_setscheduler() unimplemented, hence the system call.)
	 */
	{
		struct sched_param sp = { 0 };

		(void)syscall(SYS_sched_setscheduler, 0, SCHED_BATCH, &sp);
	}
	close(f.ctrl[1]);
	f.ctrl[1] = -1;
	close(f.err[1]);
	f.err[1] = -1;

	if (probe_wait_ready(f.ctrl[0], f.err[0], child, inv->probe_timeout_ms,
		&out) < 0) {
		probe_collect_failure(f.err[0], child, &out);
		probe_classify(&out, inv->probe_timeout_ms, err);
		probe_outcome_free(&out);
		fdset_close(&f);
		return -1;
	}
	/* Whatever answered: is it the sandbox asked for? */
	if (verify_sandbox(child, out.cmd_pid, p->net,
		f.seccomp >= 0 ? filters : 0, err) < 0) {
		kill(-child, SIGKILL);
		kill(child, SIGKILL);
		probe_collect_failure(f.err[0], child, &out);
		probe_outcome_free(&out);
		fdset_close(&f);
		return -1;
	}

	if (inv->mode == MODE_CHECK) {
		/* Stage two ends on our word; the sandbox is good if bwrap
		 * is. */
		(void)send(f.ctrl[0], &go, 1, MSG_NOSIGNAL);
		probe_collect_failure(f.err[0], child, &out);
		if (!out.reaped || !WIFEXITED(out.wait_status) ||
		    WEXITSTATUS(out.wait_status) != 0) {
			probe_classify(&out, inv->probe_timeout_ms, err);
			probe_outcome_free(&out);
			fdset_close(&f);
			return -1;
		}
		spec->ready(spec->ready_ctx, getpid());
		probe_outcome_free(&out);
		fdset_close(&f);
		*exit_code = 0;
		return 0;
	}

	/* The status first, then the go-ahead: the command starts after. */
	forward_signals_to(child, out.cmd_pid, p->tty);
	spec->ready(spec->ready_ctx, getpid());
	(void)send(f.ctrl[0], &go, 1, MSG_NOSIGNAL);
	if (out.bwrap_stderr[0] != '\0')
		(void)!write(STDERR_FILENO, out.bwrap_stderr,
		    strlen(out.bwrap_stderr));
	(void)sigaction(SIGPIPE, &old_pipe, NULL);
	probe_outcome_free(&out);
	{
		int err_fd = steal_fd(&f.err[0]);

		fdset_close(&f);
		*exit_code = proxy(child, err_fd);
	}
	return 0;
}
