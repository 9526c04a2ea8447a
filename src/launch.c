/*
 * launch.c - descriptors, the fork of bwrap, stage two, and the hand-over.
 *
 * MUST: every descriptor is close-on-exec from birth; the ones bwrap and
 * stage two need are made inheritable in the child only, from an explicit
 * list.  Between fork and exec: async-signal-safe calls and _exit only.
 * The command runs only after the launcher has checked the sandbox from
 * outside (verify.c) and reported success; it never runs outside the
 * sandbox.  The caller's terminal never reaches bwrap or the sandbox:
 * where 0-2 were terminals they get the sandbox's own (pty.c), which the
 * waiting loop relays; a stop of the launcher stops the sandbox too.
 * What the sandbox writes to its terminal reaches the caller's only
 * through termfilter.c, unless --tty-unfiltered.  Every process the
 * launcher started, and every one orphaned below it (it is a child
 * subreaper), is reaped before launch_sandbox() returns (ready.c gives
 * up on one it cannot end after a bounded wait).
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "bounds.h"
#include "bwrap_cmd.h"
#include "deadline.h"
#include "events.h"
#include "fd.h"
#include "netproxy.h"
#include "phase.h"
#include "watch.h"
#include "stage2.h"
#include "launch.h"
#include "lsprelay.h"
#include "ready.h"
#include "pty.h"
#include "seccomp.h"
#include "termfilter.h"
#include "sysctl.h"
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
};

/*
 * Signals the waiting loop acts on itself: held off but while it waits in
 * ppoll(), and noted here by their handler.
 */
static const int deferred[] = { SIGTSTP, SIGCONT, SIGWINCH };
static volatile sig_atomic_t got_deferred[3];

static volatile sig_atomic_t fwd_pidfd = -1;
static volatile sig_atomic_t fwd_pid = -1;
static volatile sig_atomic_t fwd_master = -1; /* the sandbox's terminal */
static volatile sig_atomic_t fwd_ctty;	      /* which it has as its own */
static volatile sig_atomic_t fwd_vintr, fwd_vquit;
static volatile sig_atomic_t fwd_pgrp = -1; /* the command's process group */

/*
 * The keyboard's interrupt and quit (the kernel's, not a kill()) go where
 * the keyboard's would unsandboxed: to the whole foreground job, which is
 * the command's process group, or with --tty the foreground group of the
 * sandbox's terminal.  Any other signal goes to the command.
 */
static void
forward_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno, master = (int)fwd_master;
	bool keyboard = si != NULL && si->si_code == SI_KERNEL &&
	    (sig == SIGINT || sig == SIGQUIT);

	(void)uc;
	if (keyboard && master >= 0) {
		struct termios t;

		/*
		 * A program that reads the keyboard raw (an editor) takes
		 * the interrupt key as a key: the key it is, then.  Else
		 * the signal goes to the terminal's foreground group, as
		 * the keyboard's would, where the command has the terminal.
		 */
		if (tcgetattr(master, &t) == 0 && !(t.c_lflag & ISIG)) {
			char c = (char)(sig == SIGINT ? fwd_vintr : fwd_vquit);

			(void)!write(master, &c, 1);
			errno = saved;
			return;
		}
		if (fwd_ctty && ioctl(master, TIOCSIG, sig) == 0) {
			errno = saved;
			return;
		}
	}
	if (keyboard && fwd_pgrp > 1 && kill(-(pid_t)fwd_pgrp, sig) == 0) {
		errno = saved;
		return;
	}
	/* A pidfd cannot hit a recycled pid; the bare pid is the fallback. */
	if (fwd_pidfd >= 0)
		(void)syscall(SYS_pidfd_send_signal, (int)fwd_pidfd, sig, NULL,
		    0);
	else if (fwd_pid > 0)
		(void)kill((pid_t)fwd_pid, sig);
	errno = saved;
}

static void
note_signal(int sig)
{
	for (size_t i = 0; i < N_ELEMENTS(deferred); i++)
		if (deferred[i] == sig)
			got_deferred[i] = 1;
}

/* A launch step that failed with errno: WHAT, and a hint where one is
 * known.  Returns -1. */
static int
failed(struct sbox_error *err, const char *what)
{
	int e = errno;
	const char *hint = sbox_errno_hint(e);

	sbox_error_set(err, SBOX_PROBE_FAILED, "%s: %s", what, strerror(e));
	if (hint != NULL)
		sbox_error_hint(err, "%s", hint);
	return -1;
}

/*
 * Everything one launch holds, with one owner: the bwrap command (its
 * words and the descriptors they name), the sandbox's terminal, and the
 * launcher's ends of what it shares with bwrap and stage two.  All
 * close-on-exec; launch_free() closes what is left.
 */
struct launch {
	struct bwrap_cmd cmd;
	struct pty t;
	int ctrl;	  /* the control socket, our end */
	int ctrl_stage2;  /* its other end, until the command takes it */
	int err_read;	  /* bwrap's stderr, our end */
	int err_write;	  /* bwrap's stderr, its end */
	int exe;	  /* our executable, for stage two, until taken */
	int saved_stderr; /* the command's stderr, until taken */
	int devnull;	  /* --check: bwrap's stdin and stdout */
	int bwrap_copy;	  /* the bwrap found, until the command takes it */
	int bwrap_target; /* its number in the child, executed there */
	int lsp_read;	  /* --lsp: the command's input, until bwrap has it */
	int lsp_write;	  /* --lsp: its other end, until the relay takes it */
	pid_t bwrap_pid;
	struct sigaction old_pipe; /* the caller's SIGPIPE, for the command */
	struct strv env;	   /* bwrap's environment: ours, marked */
};

#define LAUNCH_INIT                                                            \
	{                                                                      \
		.ctrl = -1, .ctrl_stage2 = -1, .err_read = -1,                 \
		.err_write = -1, .exe = -1, .saved_stderr = -1, .devnull = -1, \
		.bwrap_copy = -1, .bwrap_target = -1, .bwrap_pid = -1,         \
		.lsp_read = -1, .lsp_write = -1,                               \
		.t = { .master = -1,                                           \
			.slave = -1,                                           \
			.in = -1,                                              \
			.out = -1,                                             \
			.ctl = -1 },                                           \
	}

static void
launch_free(struct launch *l)
{
	bwrap_cmd_free(&l->cmd);
	pty_close(&l->t);
	fd_close(&l->ctrl);
	fd_close(&l->ctrl_stage2);
	fd_close(&l->lsp_read);
	fd_close(&l->lsp_write);
	fd_close(&l->err_read);
	fd_close(&l->err_write);
	fd_close(&l->exe);
	fd_close(&l->saved_stderr);
	fd_close(&l->devnull);
	fd_close(&l->bwrap_copy);
	strv_clear(&l->env);
}

/* Whether E ("NAME=value") is a proxy variable, which with --allow-host
 * points at the launcher's proxy inside (bwrap sets them) and whose
 * caller's value may hold the upstream proxy's credentials. */
static bool
proxy_var(const char *e)
{
	static const char *const names[] = { "HTTP_PROXY=", "HTTPS_PROXY=",
		"ALL_PROXY=", "NO_PROXY=" };

	for (size_t i = 0; i < N_ELEMENTS(names); i++)
		if (strncasecmp(e, names[i], strlen(names[i])) == 0)
			return true;
	return false;
}

/*
 * bwrap's environment, made before the fork: the caller's, with
 * SBOX_EXEC_SANDBOX=1, the mark the command inherits (sbox-exec(1),
 * ENVIRONMENT); with PROXY (--allow-host), without the proxy variables
 * bwrap sets anew.  The launcher's own environment keeps the caller's
 * word.
 */
static void
make_env(struct launch *l, bool proxy)
{
	for (char **e = environ; *e != NULL; e++)
		if (strncmp(*e, SBOX_SANDBOX_ENV "=",
			sizeof(SBOX_SANDBOX_ENV)) != 0 &&
		    !(proxy && proxy_var(*e)))
			strv_add(&l->env, *e);
	strv_add(&l->env, SBOX_SANDBOX_ENV "=1");
}

#define cleanup_launch __attribute__((cleanup(launch_free)))

/* The descriptors opened for bwrap_cmd_build(), closed unless taken. */
static void
input_free(struct bwrap_input *in)
{
	for (size_t i = 0; i < in->nhidden; i++)
		fd_close(&in->hidden_fds[i]);
	for (size_t i = 0; i < in->nbind; i++)
		fd_close(&in->bind_fds[i]);
	fd_close(&in->seccomp_fd);
	free(in->hidden_fds);
	free(in->bind_fds);
}

#define cleanup_input __attribute__((cleanup(input_free)))

/*
 * Open the source of grant M, without following a final symlink, and
 * check that it is still the path the policy was decided on: bwrap binds
 * the descriptor, so a swap after this point changes nothing, and a swap
 * before it is caught here.
 */
static int
open_bind_fd(const struct mount *m, int *out, struct sbox_error *err)
{
	char link[64], target[PATH_MAX];
	cleanup_fd int fd = util_open(m->src, O_PATH | O_NOFOLLOW, 0);
	struct stat st;
	ssize_t n;

	if (fd < 0) {
		sbox_error_set(err, SBOX_INVALID_POLICY, "%s: %s", m->src,
		    strerror(errno));
		return -1;
	}
	/* O_PATH|O_NOFOLLOW opens a symlink itself: one swapped in since
	 * the policy was decided is caught here too. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0 || fstat(fd, &st) < 0 || S_ISLNK(st.st_mode) ||
	    (target[n] = '\0', strcmp(target, m->src) != 0)) {
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "%s changed while sbox-exec was looking at it", m->src);
		return -1;
	}
	*out = steal_fd(&fd);
	return 0;
}

/* Every grant's source, opened and checked, into IN. */
static int
open_bind_fds(struct bwrap_input *in, const struct policy *p,
    struct sbox_error *err)
{
	in->bind_fds = xcalloc(p->nmounts, sizeof(int));
	in->nbind = p->nmounts;
	for (size_t i = 0; i < p->nmounts; i++)
		in->bind_fds[i] = -1;
	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount *m = &p->mounts[i];

		if ((m->kind == MOUNT_RO || m->kind == MOUNT_RW) &&
		    open_bind_fd(m, &in->bind_fds[i], err) < 0)
			return -1;
	}
	return 0;
}

/* /dev/null for each hidden file, into IN. */
static int
open_hidden_fds(struct bwrap_input *in, size_t n)
{
	in->hidden_fds = xcalloc(n, sizeof(int));
	in->nhidden = n;
	for (size_t i = 0; i < n; i++)
		in->hidden_fds[i] = -1;
	for (size_t i = 0; i < n; i++) {
		in->hidden_fds[i] = util_open("/dev/null", O_RDONLY, 0);
		if (in->hidden_fds[i] < 0)
			return -1;
	}
	return 0;
}

/* The launcher's own descriptors that bwrap gets or that are open beside
 * the grants' (stage two's, the control socket, the terminal...). */
#define LAUNCH_OWN_FDS 16

static bool
count_entry(void *ctx, const char *name, unsigned char type)
{
	(void)name;
	(void)type;
	++*(size_t *)ctx;
	return true;
}

/* How many descriptors above 2 are open now (--keep-fd's, the status
 * channels', the caller's), asked before the launcher opens its own: new
 * ones get numbers beside them, under the same limit.  0 when /proc
 * cannot tell. */
static size_t
open_descriptors(void)
{
	size_t n = 0;
	cleanup_fd int fd = util_open("/proc/self/fd", O_RDONLY | O_DIRECTORY,
	    0);

	if (fd < 0 || util_dir_each(fd, count_entry, &n) < 0)
		return 0;
	/* Less 0, 1 and 2 and the descriptor that reads the list. */
	return n > 4 ? n - 4 : 0;
}

/*
 * Descriptors, checked before any is opened (sbox-exec(1), Policy size): one
 * per grant bound from its descriptor and per hidden file, a handful of
 * the launcher's, and, while bwrap's child moves them to their numbers,
 * a second copy of each, beside those open already (--keep-fd's
 * among them).  Against the soft limit, which bwrap and the command
 * inherit as it is.
 */
static int
check_descriptors(const struct policy *p, bool by_fd, size_t open_now,
    struct sbox_error *err)
{
	struct rlimit rl;
	size_t n = bwrap_cmd_hidden_files(p) + LAUNCH_OWN_FDS, need;

	for (size_t i = 0; by_fd && i < p->nmounts; i++)
		if (p->mounts[i].kind == MOUNT_RO ||
		    p->mounts[i].kind == MOUNT_RW)
			n++;
	need = 2 * n + 3 + open_now;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    need <= rl.rlim_cur)
		return 0;
	sbox_error_set(err, SBOX_INVALID_POLICY,
	    "the sandbox needs %zu descriptors (%zu of them open already) to hand bwrap its %zu mounts, above the limit on open files (%llu)",
	    need, open_now, p->nmounts, (unsigned long long)rl.rlim_cur);
	sbox_error_hint(err,
	    "raise the limit (ulimit -n %zu), or grant fewer, wider paths",
	    need);
	return -1;
}

/* bwrap's limit on its arguments, checked before it is run
 * (sbox-exec(1), Policy size). */
static int
check_bwrap_words(const struct bwrap_cmd *cmd, struct sbox_error *err)
{
	size_t n = cmd->argv.n > 0 ? cmd->argv.n - 1 : 0;

	if (n <= BWRAP_MAX_ARGS)
		return 0;
	sbox_error_set(err, SBOX_INVALID_POLICY,
	    "the sandbox takes %zu arguments to bwrap, which accepts at most %d",
	    n, BWRAP_MAX_ARGS);
	sbox_error_hint(err,
	    "grant fewer, wider paths: each --ro, --rw or --hide takes three, each --setenv three");
	return -1;
}

/*
 * What execve(2) takes for bwrap, checked before it is started
 * (sbox-exec(1), Policy size): each string of its arguments and
 * environment within the kernel's limit for one, and all of them within
 * the room the stack limit, which bwrap inherits, gives them.  Long paths
 * and --setenv values reach these before bwrap's count of arguments.
 */
static int
check_exec_size(const struct launch *l, struct sbox_error *err)
{
	struct exec_size es;
	struct rlimit rl;
	size_t room;

	/* execveat() of a descriptor: the kernel names it /dev/fd/N. */
	bounds_exec_size("/dev/fd/2147483647", l->cmd.argv.v, l->env.v, &es);
	if (es.longest_len > BOUNDS_EXEC_STRING_MAX) {
		/* Named, never shown: a value may be a secret. */
		char *const *v = l->cmd.argv.v;
		const char *name = NULL;
		int len = 0;

		for (size_t i = 2; i < l->cmd.argv.n && v[i] != NULL; i++)
			if (v[i] == es.longest &&
			    strcmp(v[i - 2], "--setenv") == 0) {
				name = v[i - 1];
				len = (int)strlen(name);
			}
		if (name == NULL && strchr(es.longest, '=') != NULL) {
			name = es.longest;
			len = (int)strcspn(name, "=");
		}
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "%s%.*s takes %zu bytes, above the kernel's limit for one argument or variable of a program (%d bytes)",
		    name != NULL ? "the variable " : "an argument to bwrap",
		    len > 64 ? 64 : len, name != NULL ? name : "",
		    es.longest_len, BOUNDS_EXEC_STRING_MAX);
		sbox_error_hint(err,
		    "shorten its value; a long value belongs in a file the command reads");
		return -1;
	}
	if (getrlimit(RLIMIT_STACK, &rl) < 0)
		rl.rlim_cur = RLIM_INFINITY;
	room = bounds_exec_limit(rl.rlim_cur);
	if (es.bytes <= room)
		return 0;
	sbox_error_set(err, SBOX_INVALID_POLICY,
	    "bwrap's arguments and environment take %zu bytes, above the %zu the kernel gives a program's (ARG_MAX: a quarter of the stack limit, at most 6 MiB)",
	    es.bytes, room);
	sbox_error_hint(err,
	    "grant fewer, wider paths, or shorter ones; a smaller environment, or a higher stack limit (ulimit -s) below 24 MiB, leaves more room");
	return -1;
}

/*
 * The sandbox part of the bwrap command for INV, up to its "--": the
 * same for the launch and for --print.  BY_FD, the launch: grants bound
 * from descriptors opened and checked here, where BW can, hidden files
 * and the seccomp filter read from descriptors.  Without it, --print: a
 * line a shell runs as it is, naming no descriptor (grants by path,
 * hidden files from /dev/null, no filter).  The filter is built either
 * way: where there is none, nothing is launched, and nothing printed.
 * OPEN_NOW: the descriptors the caller left open (open_descriptors()).
 */
static int
build_sandbox(struct bwrap_cmd *cmd, const struct invocation *inv,
    const struct located *bw, bool by_fd, size_t open_now,
    struct sbox_error *err)
{
	const struct policy *p = &inv->policy;
	cleanup_input struct bwrap_input in = {
		.program = bw->path,
		.seccomp_fd = -1,
		.disable_userns = bw->disable_userns,
	};

	/* Each mount takes two of bwrap's words at least: that limit first,
	 * before a descriptor limit that raising would not get past. */
	if (2 * p->nmounts > BWRAP_MAX_ARGS) {
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "the sandbox's %zu mounts take more arguments to bwrap than the %d it accepts",
		    p->nmounts, BWRAP_MAX_ARGS);
		sbox_error_hint(err,
		    "grant fewer, wider paths: each --ro, --rw or --hide takes three");
		return -1;
	}
	if (check_descriptors(p, by_fd, open_now, err) < 0)
		return -1;
	for (size_t i = 0; i < p->nkeep; i++)
		bwrap_cmd_keep_fd(cmd, p->keep_fds[i], "named with --keep-fd");
	if (open_hidden_fds(&in, by_fd ? bwrap_cmd_hidden_files(p) : 0) < 0)
		return failed(err, "cannot prepare the launch");
	in.seccomp_fd = seccomp_program_fd(p->net, err);
	if (in.seccomp_fd < 0)
		return -1;
	if (!by_fd) {
		close(in.seccomp_fd);
		in.seccomp_fd = -1;
	}
	if (by_fd && bw->can_bind_fd && open_bind_fds(&in, p, err) < 0)
		return -1;
	bwrap_cmd_build(cmd, p, &in);
	return 0;
}

/* ARGV as a shell line on OUT; on stderr, made safe for a terminal. */
static void
print_argv(FILE *out, char *const *argv)
{
	cleanup_buf struct buf b = { 0 };
	cleanup_buf struct buf safe = { 0 };

	for (size_t i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			buf_addc(&b, ' ');
		util_shell_quote(&b, argv[i]);
	}
	if (out == stderr) {
		util_terminal_safe(&safe, b.s, b.len);
		fprintf(out, "%s\n", safe.s);
	} else {
		fprintf(out, "%s\n", b.s);
	}
}

/* What a sandbox made by the --print line lacks, on stderr. */
static void
print_missing(const struct invocation *inv)
{
	fputs("sbox-exec: --print: the line runs as printed, in a weaker "
	      "sandbox than a launch makes: no seccomp filter (setuid and "
	      "setgid bits, keyrings, io_uring and TIOCSTI stay allowed), "
	      "no second stage (no Landlock, no limits",
	    stderr);
	if (netpolicy_active(&inv->policy.egress))
		fputs(", no proxy: --allow-host reaches nothing", stderr);
	fputs("), no check of the sandbox from outside and no status; "
	      "grants are bound by path, and a hidden file is /dev/null, "
	      "which takes writes and loses them\n",
	    stderr);
}

/*
 * --print: the sandbox for the user's command, as a shell line on stdout
 * that runs as it is (the caller flushes stdout and checks it), and on
 * stderr what that sandbox lacks.  Built as the launch builds it, but
 * naming no descriptor.
 */
int
launch_print(const struct invocation *inv, const struct located *bw,
    struct sbox_error *err)
{
	cleanup_bwrap_cmd struct bwrap_cmd cmd = { 0 };

	if (build_sandbox(&cmd, inv, bw, false, open_descriptors(), err) < 0)
		return -1;
	bwrap_cmd_add_args(&cmd, inv->command);
	if (check_bwrap_words(&cmd, err) < 0)
		return -1;
	print_argv(stdout, cmd.argv.v);
	if (inv->verbosity >= 0)
		print_missing(inv);
	return 0;
}

/* The paths Landlock is to let the command write: the mounts say so. */
static char **
writable_paths(const struct policy *p, size_t *n)
{
	char **v = xcalloc(p->nmounts + 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < p->nmounts; i++)
		if (p->mounts[i].kind == MOUNT_RW)
			v[(*n)++] = p->mounts[i].dest;
	return v;
}

/* The command bwrap runs: stage two, with its descriptors taken into
 * L->cmd and its words after the sandbox's. */
static int
add_stage2(struct launch *l, const struct invocation *inv,
    struct sbox_error *err)
{
	const struct policy *p = &inv->policy;
	struct stage2_args s2 = { .userns = stage2_userns_id() };
	cleanup_free char **writable = writable_paths(p, &s2.nwritable);
	int exe;

	if (p->nkeep > N_ELEMENTS(s2.keep)) {
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "--keep-fd: at most %d descriptors",
		    STAGE2_ARGS_MAX_KEEP_FDS);
		return -1;
	}
	exe = bwrap_cmd_take_fd(&l->cmd, &l->exe, "sbox-exec, as stage two");
	s2.ctrl = bwrap_cmd_take_fd(&l->cmd, &l->ctrl_stage2,
	    "stage two's end of the control socket");
	s2.saved_stderr = bwrap_cmd_take_fd(&l->cmd, &l->saved_stderr,
	    "the command's standard error");
	for (size_t i = 0; i < p->nkeep; i++)
		s2.keep[s2.nkeep++] = p->keep_fds[i];
	s2.mode = inv->mode == MODE_CHECK ? STAGE2_CHECK :
	    p->tty			  ? STAGE2_RUN_TTY :
					    STAGE2_RUN;
	s2.limits = inv->bounds;
	if (policy_proxied(p)) {
		s2.proxy_port = NETPROXY_PORT;
		/* policy_finish() refused more. */
		s2.nfwd = netpolicy_forwards(&p->egress, s2.fwd,
		    N_ELEMENTS(s2.fwd));
		assert(s2.nfwd <= N_ELEMENTS(s2.fwd));
	}
	s2.writable = writable;
	s2.watch = inv->mode == MODE_RUN && inv->denials;
	s2.command = inv->command;
	bwrap_cmd_addf(&l->cmd, "/proc/self/fd/%d", exe);
	stage2_args_encode(&s2, &l->cmd.argv);
	return 0;
}

/* The launcher's own descriptors, the sandbox's terminal, and the bwrap
 * command with stage two in it. */
static int
prepare(struct launch *l, const struct launch_spec *spec,
    struct sbox_error *err)
{
	const struct invocation *inv = spec->inv;
	int ctrl[2], pipe[2], one = 1;
	size_t open_now = open_descriptors();

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctrl) < 0)
		return failed(err, "cannot prepare the launch");
	l->ctrl = ctrl[0];
	l->ctrl_stage2 = ctrl[1];
	if (setsockopt(l->ctrl, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) <
		0 ||
	    pipe2(pipe, O_CLOEXEC) < 0)
		return failed(err, "cannot prepare the launch");
	l->err_read = pipe[0];
	l->err_write = pipe[1];
	l->exe = util_open("/proc/self/exe", O_PATH, 0);
	l->devnull = util_open("/dev/null", O_RDWR, 0);
	if (l->exe < 0 || l->devnull < 0)
		return failed(err, "cannot prepare the launch");
	/* --check runs no command: no terminal for it. */
	if (inv->mode == MODE_CHECK)
		pty_none(&l->t);
	else if (pty_open(&l->t, err) < 0)
		return -1;
	/* --lsp: the command reads what the relay passes on, unless its
	 * input is the sandbox's terminal (no editor speaks LSP there). */
	if (inv->mode != MODE_CHECK && inv->policy.lsp &&
	    !(l->t.master >= 0 && l->t.tty[STDIN_FILENO])) {
		if (pipe2(pipe, O_CLOEXEC) < 0)
			return failed(err, "cannot prepare the launch");
		l->lsp_read = pipe[0];
		l->lsp_write = pipe[1];
	}
	/* The command's stderr, which stage two keeps for it: the sandbox's
	 * terminal where the caller's was one. */
	l->saved_stderr = util_dup(l->t.master >= 0 && l->t.tty[STDERR_FILENO] ?
		l->t.slave :
		STDERR_FILENO,
	    3);
	if (l->saved_stderr < 0)
		return failed(err, "cannot prepare the launch");
	if (build_sandbox(&l->cmd, inv, spec->located, true, open_now, err) <
		0 ||
	    add_stage2(l, inv, err) < 0 || check_bwrap_words(&l->cmd, err) < 0)
		return -1;
	/* bwrap is executed from its descriptor, which a script is read
	 * through: taken last, it moves no number the words name. */
	l->bwrap_copy = util_dup(spec->located->fd, 3);
	if (l->bwrap_copy < 0)
		return failed(err, "cannot prepare the launch");
	l->bwrap_target = bwrap_cmd_take_fd(&l->cmd, &l->bwrap_copy, "bwrap");
	bwrap_cmd_finish(&l->cmd);
	return 0;
}

/*
 * In the child: say WHAT failed and why on stderr, which is bwrap's error
 * pipe by then (the launcher classifies it as bwrap's words), and end.  A
 * table lookup: nothing may be allocated in a vfork child, whose memory
 * is the launcher's.  glibc's strerror() may allocate, hence
 * strerrordesc_np(); musl's is a lookup.
 */
static void SBOX_NORETURN
child_fail(const char *what)
{
#ifdef HAVE_STRERRORDESC_NP
	const char *why = strerrordesc_np(errno);
#else
	const char *why = strerror(errno);
#endif

	if (why == NULL)
		why = "unknown error";
	(void)!write(STDERR_FILENO, what, strlen(what));
	(void)!write(STDERR_FILENO, ": ", 2);
	(void)!write(STDERR_FILENO, why, strlen(why));
	(void)!write(STDERR_FILENO, "\n", 1);
	_exit(127);
}

/* The child: become bwrap with exactly the descriptors it needs. */
static void SBOX_NORETURN
exec_bwrap(const struct launch *l, const struct launch_spec *spec)
{
	if (dup2(l->err_write, STDERR_FILENO) < 0)
		_exit(127);
	/* --check runs no command: nothing of the caller's for it at all. */
	if (spec->inv->mode == MODE_CHECK &&
	    (dup2(l->devnull, STDIN_FILENO) < 0 ||
		dup2(l->devnull, STDOUT_FILENO) < 0))
		child_fail("cannot give bwrap /dev/null");
	/* The sandbox's own terminal where the caller's was. */
	if (l->t.master >= 0 && pty_child_stdio(&l->t) < 0)
		child_fail("cannot give bwrap the sandbox's terminal");
	if (l->lsp_read >= 0 && dup2(l->lsp_read, STDIN_FILENO) < 0)
		child_fail("cannot give bwrap the relayed input");
	/*
	 * Out of the caller's process group: its terminal's signals are
	 * ours to pass on (or to act on: a stop), not bwrap's to die of.
	 */
	(void)setpgid(0, 0);
	if (bwrap_cmd_child_setup(&l->cmd) < 0)
		child_fail("cannot hand bwrap its descriptors");
	(void)sigaction(SIGPIPE, &l->old_pipe, NULL);
	(void)syscall(SYS_execveat, l->bwrap_target, "", l->cmd.argv.v,
	    l->env.v, AT_EMPTY_PATH);
	child_fail("cannot execute bwrap");
}

/*
 * Start bwrap.  From here the launcher only waits and relays: what the
 * child was given is closed here, and SCHED_BATCH keeps the launcher's
 * wake-ups (stage two reporting in, a signal to pass on) from preempting
 * the command, which the kernel tends to start on the CPU the launcher is
 * woken on; measured here, about 0.1 ms of each launch.  Only this
 * thread: bwrap has been started already.  (musl leaves
 * sched_setscheduler() unimplemented, hence the system call.)
 */
static int
start_bwrap(struct launch *l, const struct launch_spec *spec,
    struct sbox_error *err)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct sched_param sp = { 0 };
	pid_t pid;

	/*
	 * A caller's SIGCHLD=SIG_IGN would reap bwrap before we could, and
	 * bwrap's own children before it could: default it for good.
	 */
	(void)sigaction(SIGPIPE, &ign, &l->old_pipe);
	(void)sigaction(SIGCHLD, &dfl, NULL);
	/* What bwrap leaves behind becomes ours to end (ready.c). */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	fflush(NULL);
	phase_mark("spawn");
	/*
	 * vfork: the child only rearranges descriptors and execs, and the
	 * launcher's memory need not be copied for that.
	 */
	pid = vfork();
	if (pid == 0)
		exec_bwrap(l, spec); /* does not return */
	if (pid < 0)
		return failed(err, "cannot start bwrap");
	l->bwrap_pid = pid;
	/* The sandbox's end of its terminal is the sandbox's alone: we read
	 * the master until it is closed there. */
	fd_close(&l->t.slave);
	fd_close(&l->err_write);
	fd_close(&l->lsp_read);
	bwrap_cmd_close_fds(&l->cmd);
	(void)syscall(SYS_sched_setscheduler, 0, SCHED_BATCH, &sp);
	return 0;
}

/*
 * From the moment the sandbox is up, signals meant for us go to the
 * command (stage two now, the command after its exec: the same process);
 * a stop, a continue and a window size change are the waiting loop's to
 * handle, and held off until it waits.
 */
static void
forward_signals_to(pid_t child, pid_t cmd, const struct pty *t, bool ctty)
{
	struct sigaction sa = { .sa_sigaction = forward_signal };
	struct sigaction note = { .sa_handler = note_signal };
	sigset_t held;

	/* Close-on-exec from birth, as the kernel makes every pidfd. */
	fwd_pidfd = cmd > 0 ? (int)syscall(SYS_pidfd_open, cmd, 0) : -1;
	fwd_pid = child;
	fwd_master = t->master;
	fwd_ctty = ctty;
	fwd_vintr = t->saved.c_cc[VINTR];
	fwd_vquit = t->saved.c_cc[VQUIT];
	sigemptyset(&held);
	for (size_t i = 0; i < N_ELEMENTS(deferred); i++)
		sigaddset(&held, deferred[i]);
	(void)sigprocmask(SIG_BLOCK, &held, NULL);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_SIGINFO;
	for (size_t i = 0; i < N_ELEMENTS(forwarded); i++)
		(void)sigaction(forwarded[i], &sa, NULL);
	sigemptyset(&note.sa_mask);
	for (size_t i = 0; i < N_ELEMENTS(deferred); i++)
		(void)sigaction(deferred[i], &note, NULL);
	if (t->master >= 0) {
		/* A background read then fails (EIO) instead of stopping us
		 * while the sandbox runs on. */
		struct sigaction ign = { .sa_handler = SIG_IGN };

		(void)sigaction(SIGTTIN, &ign, NULL);
	}
}

/* The most keys read from the caller at once. */
#define RELAY_KEYS 4096

/* What the waiting loop needs. */
struct relay {
	pid_t bwrap_pid; /* bwrap, the process */
	pid_t cmd;	 /* stage two, then the command */
	pid_t pgrp;	 /* the command's process group (bwrap's, inside) */
	pid_t init_pgrp; /* bwrap's first process inside, when not the same */
	pid_t init;	 /* that process, or -1 when not known */
	int err_fd;	 /* bwrap's stderr */
	bool ctty; /* --tty: the sandbox's terminal is the command's own */
	bool fg;   /* we may read the caller's terminal */
	struct pty *t;
	struct termfilter *filter;	   /* the output's filter; NULL: none */
	struct deadline *dl;		   /* --timeout */
	const struct protect_holds *holds; /* locks held for the run */
	int bwrap_fd; /* the bwrap found (locate.c), its owner's to close */
	int lsp_out;  /* --lsp: the command's input, for the relay */
	/* Read from the caller, not yet in the sandbox's: a read's worth,
	 * and what the caller's terminal held when it turned raw. */
	char keys[RELAY_KEYS + PTY_DRAIN_MAX];
	size_t nkeys, keys_off;
};

/* PID's state letter and parent, from /proc; -1 when it is gone. */
static int
proc_stat(pid_t pid, char *state, pid_t *ppid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (util_read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	/* "pid (comm) state ppid ...": comm may hold anything but ')'. */
	p = strrchr(buf, ')');
	if (p == NULL || p[1] == '\0' || p[2] == '\0' || p[3] == '\0')
		return -1;
	*state = p[2];
	*ppid = (pid_t)strtol(p + 4, NULL, 10);
	return 0;
}

/*
 * SIG to the whole sandbox as job control would reach it: the command's
 * process group and, where it has its terminal, the terminal's foreground
 * group (a job of a shell inside).  Both are the sandbox's alone: the
 * group of the session bwrap made, a terminal only the sandbox controls.
 */
static void
signal_sandbox(const struct relay *r, int sig)
{
	pid_t fg = -1;

	if (r->ctty && r->t->master >= 0)
		fg = tcgetpgrp(r->t->master);
	/* A job stopped inside resumes before the shell that would see it
	 * stopped; on a stop, the shell goes first for the same reason. */
	if (sig == SIGCONT && fg > 0 && fg != r->pgrp)
		(void)kill(-fg, sig);
	if (r->pgrp > 1)
		(void)kill(-r->pgrp, sig);
	else if (fwd_pidfd >= 0)
		(void)syscall(SYS_pidfd_send_signal, (int)fwd_pidfd, sig, NULL,
		    0);
	if (sig != SIGCONT && fg > 0 && fg != r->pgrp) {
		char state = 0;
		pid_t ppid;

		/*
		 * A shell inside must be stopped before its job, or it sees
		 * the job stop (its SIGCHLD may come before its SIGSTOP) and
		 * takes the terminal back: a moment's wait, bounded.
		 */
		for (int i = 0; i < 100 &&
		     proc_stat(r->cmd, &state, &ppid) == 0 && state != 'T';
		     i++)
			(void)nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		(void)kill(-fg, sig);
	}
	/* bwrap too, so that everything below us is stopped. */
	if (r->init_pgrp > 1)
		(void)kill(-r->init_pgrp, sig);
	(void)kill(r->bwrap_pid, sig);
}


/*
 * Ctrl-Z (or any SIGTSTP): the sandbox stops with us, the caller's
 * terminal gets its settings back, and we stop as the caller's shell
 * expects of its job.  A SIGCONT (fg, bg) then resumes everything.
 */
static void
suspend(struct relay *r)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, note;
	sigset_t tstp;

	signal_sandbox(r, SIGSTOP);
	pty_restore(r->t);
	(void)sigaction(SIGTSTP, &dfl, &note);
	sigemptyset(&tstp);
	sigaddset(&tstp, SIGTSTP);
	(void)kill(getpid(), SIGTSTP);
	/* Stopped here; an orphaned process group is not stopped at all. */
	(void)sigprocmask(SIG_UNBLOCK, &tstp, NULL);
	(void)sigprocmask(SIG_BLOCK, &tstp, NULL);
	(void)sigaction(SIGTSTP, &note, NULL);
	got_deferred[1] = 1;
}

/* The caller's terminal raw, and what it held queued behind the keys not
 * yet relayed (at most a read's worth: the loop reads no more until they
 * are gone). */
static void
enter_raw(struct relay *r)
{
	size_t left = r->nkeys - r->keys_off;

	memmove(r->keys, r->keys + r->keys_off, left);
	r->keys_off = 0;
	r->nkeys = left +
	    pty_enter_raw(r->t, r->keys + left, sizeof(r->keys) - left);
}

/* Continued: in the foreground (fg) the terminal is ours to relay again;
 * in the background (bg) the sandbox runs but cannot read it. */
static void
resume(struct relay *r)
{
	if (r->t->master >= 0) {
		r->fg = pty_foreground(r->t);
		if (r->fg)
			enter_raw(r);
		pty_pass_winsize(r->t);
	}
	signal_sandbox(r, SIGCONT);
}

static void
window_changed(const struct relay *r)
{
	pty_pass_winsize(r->t);
	/* Without its terminal the command hears of it from us alone. */
	if (!r->ctty || r->t->master < 0)
		forward_signal(SIGWINCH, NULL, NULL);
}

static void
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* the caller's terminal is gone: drop it */
		p += w;
		n -= (size_t)w;
	}
}

#define RELAY_CHUNK 65536

/* What the sandbox wrote to its terminal, to the caller's: filtered
 * unless --tty-unfiltered (sbox-exec(1), "The terminal"). */
static void
relay_output(struct relay *r, const char *p, size_t n)
{
	static unsigned char out[TERMFILTER_OUT_MAX(RELAY_CHUNK)];

	if (r->filter == NULL)
		write_all(r->t->out, p, n);
	else
		write_all(r->t->out, (const char *)out,
		    termfilter_run(r->filter, p, n, out));
}

/* The sandbox's output has ended: what the filter held back of a
 * sequence not yet whole is dropped, an open title cancelled. */
static void
relay_output_end(struct relay *r)
{
	unsigned char end[TERMFILTER_FINISH_MAX];

	if (r->filter != NULL && r->t->master >= 0)
		write_all(r->t->out, (const char *)end,
		    termfilter_finish(r->filter, end));
}

/* One round of the loop's I/O: PFD as prepared in relay_loop. */
static void
relay_io(struct relay *r, const struct pollfd *pfd, size_t n, bool *err_open,
    bool *master_open)
{
	static char chunk[RELAY_CHUNK];
	ssize_t got;

	for (size_t i = 0; i < n; i++) {
		if (pfd[i].revents == 0)
			continue;
		if (pfd[i].fd == netproxy_waiting()) {
			netproxy_serve();
		} else if (pfd[i].fd == r->err_fd) {
			got = read(r->err_fd, chunk, 1024);
			if (got > 0) {
				/* bwrap's late words, made safe: they may
				 * quote the project's paths. */
				cleanup_buf struct buf safe = { 0 };

				util_terminal_safe(&safe, chunk, (size_t)got);
				(void)!write(STDERR_FILENO, safe.s, safe.len);
			} else if (got == 0 || errno != EINTR)
				*err_open = false;
		} else if (pfd[i].fd == r->t->master) {
			if (pfd[i].revents & POLLOUT) {
				got = write(r->t->master, r->keys + r->keys_off,
				    r->nkeys - r->keys_off);
				if (got > 0)
					r->keys_off += (size_t)got;
			}
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) {
				size_t have = 0;

				/*
				 * A pty gives at most 4 KiB a read: gather
				 * what is there, for fewer, larger writes.
				 * EIO: closed in the sandbox, and drained.
				 */
				while (have < sizeof(chunk) &&
				    (got = read(r->t->master, chunk + have,
					 sizeof(chunk) - have)) > 0)
					have += (size_t)got;
				if (have > 0)
					relay_output(r, chunk, have);
				else if (got == 0 ||
				    (errno != EAGAIN && errno != EINTR))
					*master_open = false;
			}
		} else if (pfd[i].fd == r->t->in) {
			got = read(r->t->in, r->keys, RELAY_KEYS);
			if (got > 0) {
				r->nkeys = (size_t)got;
				r->keys_off = 0;
			} else if (got == 0 || errno == EIO) {
				/* Hung up, or we are in the background
				 * now: read no more until continued. */
				r->fg = false;
			}
		}
	}
}

/*
 * The sandbox's process groups, for a stop: the command's (bwrap's first
 * process inside made it, with a new session) and, with --tty, where the
 * command leads a session of its own, bwrap's first process's.  Never ours.
 */
static void
find_groups(struct relay *r)
{
	char state;
	pid_t init = -1;

	r->pgrp = r->cmd > 0 ? getpgid(r->cmd) : -1;
	r->init_pgrp = r->init = -1;
	if (r->cmd > 0 && proc_stat(r->cmd, &state, &init) == 0) {
		r->init_pgrp = getpgid(init);
		r->init = init;
	}
	/*
	 * Both read by pid: only while the command is still the process we
	 * have a pidfd of may they be trusted to be the sandbox's (a command
	 * that ended at once could have its pid taken by a host process).
	 */
	if (fwd_pidfd < 0 ||
	    syscall(SYS_pidfd_send_signal, (int)fwd_pidfd, 0, NULL, 0) < 0)
		r->pgrp = r->init_pgrp = r->init = -1;
	if (r->pgrp == getpgrp())
		r->pgrp = -1;
	if (r->init_pgrp == getpgrp() || r->init_pgrp == r->pgrp)
		r->init_pgrp = -1;
	fwd_pgrp = r->pgrp;
}

/* How long the sandbox's first process may take to end after bwrap. */
#define REAP_WAIT_MS 2000

/*
 * bwrap has been reaped.  It ends on its child's word of the command's
 * status, without waiting for that child (the sandbox's first process,
 * INIT, a bwrap too), which ends just after: at once, or, when it had
 * other processes of the sandbox to wait for, killed with bwrap
 * (--die-with-parent) once the kernel has ended them.  The launcher is a
 * child subreaper, so that child is ours by then: reaped here, not left
 * as a zombie for whoever reaps after us (a container's pid 1 may not).
 * INIT's pid is its own while it is an unreaped child of ours, so a
 * pidfd of it waits for exactly its end.  Anything else still below us
 * (nothing should be) is ended as after a refusal.
 */
static void
reap_sandbox(pid_t init)
{
	pid_t r;

	while (
	    (r = waitpid(-1, NULL, WNOHANG)) > 0 || (r < 0 && errno == EINTR))
		if (r == init)
			init = -1;
	if (r < 0)
		return; /* ECHILD: nothing left, as in most runs */
	if (init > 1) {
		struct pollfd pfd = { .events = POLLIN };

		pfd.fd = (int)syscall(SYS_pidfd_open, init, 0);
		if (pfd.fd >= 0) {
			while (
			    poll(&pfd, 1, REAP_WAIT_MS) < 0 && errno == EINTR)
				;
			close(pfd.fd);
		}
		while ((r = waitpid(-1, NULL, WNOHANG)) > 0 ||
		    (r < 0 && errno == EINTR))
			;
		if (r < 0)
			return;
	}
	ready_end_descendants();
}

/* What the relay loop polls, at most. */
#define RELAY_FDS 4

/* Into PFD, what the relay loop waits on: bwrap's stderr while ERR_OPEN,
 * the sandbox's terminal while MASTER_OPEN and ours in the foreground,
 * and the proxy's socket until its first connection starts its thread.
 * How many. */
static size_t
relay_fds(const struct relay *r, struct pollfd *pfd, bool err_open,
    bool master_open)
{
	const struct pty *t = r->t;
	size_t n = 0;

	if (err_open)
		pfd[n++] = (struct pollfd){ r->err_fd, POLLIN, 0 };
	if (master_open)
		pfd[n++] = (struct pollfd){ t->master,
			POLLIN | (r->keys_off < r->nkeys ? POLLOUT : 0), 0 };
	if (master_open && r->fg && t->in >= 0 && r->keys_off == r->nkeys)
		pfd[n++] = (struct pollfd){ t->in, POLLIN, 0 };
	if (err_open && netproxy_waiting() >= 0)
		pfd[n++] = (struct pollfd){ netproxy_waiting(), POLLIN, 0 };
	assert(n <= RELAY_FDS);
	return n;
}

/*
 * After the hand-over: relay between the terminals, pass bwrap's late
 * words on, act on stops, and end when bwrap has ended and the sandbox's
 * terminal has been drained; then mirror bwrap's end, once every process
 * below the launcher has been reaped.
 */
static int
relay_loop(struct relay *r)
{
	struct pty *t = r->t;
	bool err_open = true, master_open = t->master >= 0;
	sigset_t open_mask;
	int status;

	/* The groups were found before the command started (hand_over()):
	 * not again, when its first process may have ended already. */
	(void)sigprocmask(SIG_SETMASK, NULL, &open_mask);
	for (size_t i = 0; i < N_ELEMENTS(deferred); i++)
		sigdelset(&open_mask, deferred[i]);
	r->fg = t->master >= 0 && pty_foreground(t);
	if (r->fg)
		enter_raw(r);
	/*
	 * Relaying a terminal, a keystroke must not wait for the end of
	 * someone else's time slice (measured: milliseconds on a busy
	 * machine as SCHED_BATCH): back to the normal policy.
	 */
	if (t->master >= 0) {
		struct sched_param sp = { 0 };

		(void)syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &sp);
	}

	for (;;) {
		struct pollfd pfd[RELAY_FDS];
		struct timespec drain = { 0, 50 * 1000 * 1000 }, left;
		size_t n;
		int rc;

		if (got_deferred[0]) {
			got_deferred[0] = 0;
			suspend(r);
		}
		if (got_deferred[1]) {
			got_deferred[1] = 0;
			resume(r);
		}
		if (got_deferred[2]) {
			got_deferred[2] = 0;
			window_changed(r);
		}
		(void)deadline_check(r->dl);
		if (!err_open && !master_open)
			break;
		n = relay_fds(r, pfd, err_open, master_open);
		/* bwrap gone: what the sandbox wrote is in the terminal's
		 * buffer already; a descriptor of it smuggled out of the
		 * sandbox must not keep us waiting. */
		rc = ppoll(pfd, n,
		    err_open ? deadline_left(r->dl, &left) : &drain,
		    &open_mask);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0) {
			if (!err_open)
				break;
			continue;
		}
		relay_io(r, pfd, n, &err_open, &master_open);
	}
	relay_output_end(r);
	pty_restore(t);
	while (waitpid(r->bwrap_pid, &status, 0) < 0)
		if (errno != EINTR)
			return SBOX_EXIT_REFUSED;
	reap_sandbox(r->init);
	if (WIFSIGNALED(status))
		return SBOX_EXIT_SIGNAL_BASE + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * After the hand-over: hold nothing of the caller's but the terminal we
 * relay, then wait in the relay loop.
 *
 * MUST: every descriptor the launcher still names is either kept here or
 * closed (and forgotten) before the sweep.  One the sweep closes behind
 * its owner's back is closed again when the owner lets go, and by then
 * the number may be a connection the proxy's threads accepted: the second
 * close would cut it, or hand its next bytes to another.
 */
static int
proxy(struct relay *r, int devnull)
{
	/* Six of ours, the proxy's listeners, four of --watch's, four of
	 * the terminal's, and the locks. */
	size_t cap = 8 + NETPOLICY_MAX_FORWARDS + 4 + 4 + r->holds->n,
	       nkeep = 0;
	cleanup_free int *keep = xcalloc(cap, sizeof(*keep));
	int code, in = -1;

	/* --lsp: the caller's input is the relay's. */
	if (r->lsp_out >= 0) {
		in = util_dup(STDIN_FILENO, 3);
		keep[nkeep++] = in;
		keep[nkeep++] = r->lsp_out;
	}
	/* The command owns stdin and stdout now; we hold them no more
	 * (DEVNULL, the launcher's own, is taken and closed here). */
	if (devnull >= 0) {
		(void)dup3(devnull, STDIN_FILENO, 0);
		(void)dup3(devnull, STDOUT_FILENO, 0);
		fd_close(&devnull);
	}
	keep[nkeep++] = r->err_fd;
	keep[nkeep++] = r->bwrap_fd;
	keep[nkeep++] = (int)fwd_pidfd;
	keep[nkeep++] = r->dl->init_pidfd;
	if (events_fd() >= 0)
		keep[nkeep++] = events_fd();
	netproxy_keep_fds(keep, &nkeep);
	watch_keep_fds(keep, &nkeep);
	pty_keep_fds(r->t, keep, &nkeep);
	/* The placeholders' locks (protect.c), let go after the run. */
	for (size_t i = 0; i < r->holds->n; i++)
		keep[nkeep++] = r->holds->v[i].fd;
	assert(nkeep <= cap);
	fd_sort(keep, nkeep);
	/* --watch's thread may be at work on the command's first calls:
	 * what it holds open for a moment is not swept under it. */
	watch_hold();
	fd_close_except(keep, nkeep);
	watch_release();
	/* The command connects to a loopback address served inside without
	 * a word to the proxy's socket, which the relay loop watches. */
	if (netproxy_forwarding())
		netproxy_serve();
	/* A relay that cannot start leaves the command its end of input. */
	if (r->lsp_out >= 0 &&
	    lsprelay_start(in, r->lsp_out, (int)fwd_pidfd, r->dl->init_pidfd) <
		0)
		lsprelay_stop();
	code = relay_loop(r);
	lsprelay_stop();
	netproxy_stop();
	watch_stop();
	return code;
}

/*
 * Why bwrap gave up, from its words in OUT and what the host adds to them
 * (an AppArmor restriction the bwrap in use is not exempt from; a
 * sandbox of our own around us).
 */
static void
classify(const struct launch_spec *spec, const struct ready_outcome *out,
    struct sbox_error *err)
{
	char link[64];
	cleanup_free char *bwrap = NULL;
	struct reason_host host = { 0 };
	long restrict_userns = 0;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", spec->located->fd);
	bwrap = util_realpath(link);
	host.bwrap = bwrap;
	host.nmounts = spec->inv->policy.nmounts;
	if (sysctl_read_long("fs/mount-max", &host.mount_max) < 0)
		host.mount_max = 0;
	host.apparmor_restricts_userns =
	    sysctl_read_long("kernel/apparmor_restrict_unprivileged_userns",
		&restrict_userns) == 0 &&
	    restrict_userns == 1;
	host.nested = sysctl_inside_sbox_exec();
	reason_classify(out, spec->inv->probe_timeout_ms, &host, err);
}

/*
 * --allow-host, or the network off: the proxy's listening socket came
 * with stage two's report; take it, to serve it from the relay loop when
 * the command first connects (once the launcher holds nothing else).  A
 * proxy that cannot start is a refusal, never an open network.
 */
static int
start_proxy(const struct invocation *inv, struct ready_outcome *out,
    struct sbox_error *err)
{
	if (!policy_proxied(&inv->policy) || inv->mode == MODE_CHECK)
		return 0;
	if (out->net_fd < 0) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "the network proxy's socket did not come from the sandbox");
		return -1;
	}
	netproxy_set_idle_timeout(inv->net_idle_ms);
	netproxy_set_upstream(&inv->upstream);
	if (netproxy_start(steal_fd(&out->net_fd), &inv->policy.egress,
		!netpolicy_active(&inv->policy.egress), inv->verbosity > 0,
		err) < 0)
		return -1;
	/* Each loopback address served inside: all of them (but ::1 in a
	 * sandbox without IPv6, stage2.c), or nothing runs. */
	if (out->nfwd > netpolicy_forwards(&inv->policy.egress, NULL, 0)) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "%zu of the sandbox's loopback sockets came from it, for %zu loopback addresses",
		    out->nfwd,
		    netpolicy_forwards(&inv->policy.egress, NULL, 0));
		return -1;
	}
	while (out->nfwd > 0) {
		int fd = out->fwd_fd[--out->nfwd];

		if (netproxy_forward(fd, err) < 0)
			return -1;
	}
	return 0;
}

/*
 * Whether bwrap has ended (it is left to be reaped), waiting a moment for
 * it: when bwrap is killed, the processes it started can be gone from
 * /proc before its own end shows, so a look at them fails first.
 */
static bool
bwrap_ended_meanwhile(pid_t pid)
{
	long deadline = util_now_ms() + 250;

	for (;;) {
		siginfo_t si = { 0 };
		struct timespec pause = { 0, 1000000 };

		if (waitid(P_PID, (id_t)pid, &si,
			WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == pid)
			return true;
		if (util_now_ms() >= deadline)
			return false;
		nanosleep(&pause, NULL);
	}
}

/*
 * --watch (watch.h): serve the watch filter's listener, when stage two
 * sent one, before the command can make a call it watches.  From then on
 * every watched call waits for an answer, so a listener that cannot be
 * served is a refusal, never a command whose writes fail with ENOSYS.  A
 * kernel without the filter (no listener came) runs the command all the
 * same, unwatched.  The grants it suggests are shaped by the home
 * directory and the tools' cache directory.
 */
static int
start_watch(const struct invocation *inv, struct ready_outcome *out,
    struct sbox_error *err)
{
	static char cache_base[PATH_MAX];
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CACHE_HOME");

	if (out->watch_fd < 0) {
		if (inv->denials && inv->mode == MODE_RUN && inv->verbosity > 0)
			util_say(
			    "refused writes are not told in this run: the kernel gave no seccomp listener");
		return 0;
	}
	if (home != NULL && home[0] != '/')
		home = NULL;
	if (xdg != NULL && xdg[0] == '/')
		snprintf(cache_base, sizeof(cache_base), "%s", xdg);
	else if (home != NULL)
		snprintf(cache_base, sizeof(cache_base), "%s/.cache", home);
	if (watch_start(steal_fd(&out->watch_fd), out->cmd_pid, &inv->policy,
		home, cache_base[0] != '\0' ? cache_base : NULL,
		&inv->cred_masks) == 0)
		return 0;
	sbox_error_set(err, SBOX_PROBE_FAILED,
	    "cannot serve the filter that watches the command's writes (--watch): %s",
	    strerror(errno));
	return -1;
}

/*
 * Whether a path bwrap's words WORDS say it could not set up is gone from
 * the host: removed since the launch planned it (a socket under /run and
 * its directory, a credential file), which no sandbox needs hidden now.
 */
static bool
setup_path_gone(const char *words)
{
	cleanup_strv struct strv paths = { 0 };
	struct stat st;

	if (words == NULL)
		return false;
	reason_setup_paths(words, &paths);
	for (size_t i = 0; i < paths.n; i++)
		if (lstat(paths.v[i], &st) < 0 &&
		    (errno == ENOENT || errno == ENOTDIR))
			return true;
	return false;
}

/*
 * Wait for stage two to report in, then check from outside that what
 * answered is the sandbox asked for.  -1 with ERR set (and bwrap ended)
 * when it is not.
 */
static int
await_sandbox(struct launch *l, const struct launch_spec *spec,
    struct ready_outcome *out, struct sbox_error *err)
{
	const struct invocation *inv = spec->inv;
	/* Everything inside carries the launcher's filters and bwrap's. */
	int filters = verify_seccomp_filters() + 1;
	int verified;

	if (ready_wait(l->ctrl, l->err_read, l->bwrap_pid,
		inv->probe_timeout_ms, out) < 0) {
		bool gone;

		ready_collect_failure(l->err_read, l->bwrap_pid, out);
		classify(spec, out, err);
		gone = !out->timed_out && setup_path_gone(out->bwrap_stderr);
		ready_outcome_free(out);
		return gone ? LAUNCH_REPLAN : -1;
	}
	phase_mark("reported");
	verified = verify_sandbox(l->bwrap_pid, out->cmd_pid, inv->policy.net,
	    filters, out->watch_fd >= 0, err);
	if (verified < 0 && bwrap_ended_meanwhile(l->bwrap_pid)) {
		/* What vanished from /proc went with bwrap: its end is the
		 * cause, not a sandbox of the wrong kind. */
		sbox_error_clear(err);
		ready_collect_failure(l->err_read, l->bwrap_pid, out);
		classify(spec, out, err);
		ready_outcome_free(out);
		return -1;
	}
	if (verified < 0 || start_proxy(inv, out, err) < 0 ||
	    start_watch(inv, out, err) < 0) {
		kill(-l->bwrap_pid, SIGKILL);
		kill(l->bwrap_pid, SIGKILL);
		ready_collect_failure(l->err_read, l->bwrap_pid, out);
		ready_outcome_free(out);
		return -1;
	}
	phase_mark("verified");
	return 0;
}

/* --check: stage two ends on our word; the sandbox is good if bwrap is. */
static int
finish_check(struct launch *l, const struct launch_spec *spec,
    struct ready_outcome *out, struct sbox_error *err)
{
	char go = STAGE2_GO;
	bool good;

	(void)send(l->ctrl, &go, 1, MSG_NOSIGNAL);
	ready_collect_failure(l->err_read, l->bwrap_pid, out);
	good = out->reaped && WIFEXITED(out->wait_status) &&
	    WEXITSTATUS(out->wait_status) == 0;
	if (!good)
		classify(spec, out, err);
	else
		spec->ready(spec->ready_ctx, getpid(), NULL);
	ready_outcome_free(out);
	return good ? 0 : -1;
}

/*
 * Stage two found no command it could start (sbox-exec(1), STATUS), or
 * did not say what it found: it is told to stop, and ERR says why.
 * Nothing runs.
 */
static void
stop_command(struct launch *l, struct ready_outcome *out,
    struct sbox_error *err)
{
	char stop = STAGE2_STOP;

	(void)send(l->ctrl, &stop, 1, MSG_NOSIGNAL);
	watch_stop();
	if (out->lookup == STAGE2_NOT_FOUND) {
		sbox_error_set(err, SBOX_COMMAND_NOT_FOUND, "%s",
		    out->lookup_text);
		sbox_error_hint(err,
		    "grant the directory that holds it (--ro=DIR) and put it on the sandbox's PATH (--setenv PATH DIRS), or name it by its path");
	} else if (out->lookup == STAGE2_NOT_EXECUTABLE &&
	    strstr(out->lookup_text, strerror(E2BIG)) != NULL) {
		sbox_error_set(err, SBOX_COMMAND_NOT_EXECUTABLE, "%s",
		    out->lookup_text);
		sbox_error_hint(err,
		    "pass fewer or shorter arguments and variables, or allow a larger stack (--limit stack)");
	} else if (out->lookup == STAGE2_NOT_EXECUTABLE) {
		sbox_error_set(err, SBOX_COMMAND_NOT_EXECUTABLE, "%s",
		    out->lookup_text);
		sbox_error_hint(err,
		    "it must be a program or script the sandbox can execute: a regular file with execute permission whose interpreter is in the sandbox too");
	} else {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "the sandbox reported in without saying what command it would run");
	}
	ready_collect_failure(l->err_read, l->bwrap_pid, out);
	ready_outcome_free(out);
}


/* The status first, then the go-ahead: the command starts after.  Then
 * relay until bwrap ends; returns what sbox-exec exits with. */
static int
hand_over(struct launch *l, const struct launch_spec *spec,
    struct ready_outcome *out, struct deadline *dl)
{
	const struct policy *p = &spec->inv->policy;
	char go = STAGE2_GO;
	static struct termfilter filter;
	int devnull;
	struct relay r = {
		.bwrap_pid = l->bwrap_pid,
		.cmd = out->cmd_pid,
		.err_fd = l->err_read,
		.ctty = p->tty,
		.t = &l->t,
		.dl = dl,
		.holds = spec->holds,
		.bwrap_fd = spec->located->fd,
		.lsp_out = steal_fd(&l->lsp_write),
	};

	/* Only what goes through the relay is filtered: a pipe or a file
	 * is the command's own, untouched. */
	if (!spec->inv->tty_unfiltered && l->t.master >= 0) {
		termfilter_init(&filter);
		r.filter = &filter;
	}

	forward_signals_to(l->bwrap_pid, out->cmd_pid, &l->t, p->tty);
	/* The command's process group before it starts (stage two's, kept
	 * across its exec): an interrupt typed the moment it runs goes to
	 * the whole job, not to its first process alone. */
	find_groups(&r);
	deadline_watch(dl, out->cmd_pid, l->bwrap_pid, (int)fwd_pidfd);
	spec->ready(spec->ready_ctx, getpid(), out->lookup_text);
	(void)send(l->ctrl, &go, 1, MSG_NOSIGNAL);
	if (out->bwrap_stderr[0] != '\0') {
		/* bwrap's words may quote the project's paths: made safe. */
		cleanup_buf struct buf safe = { 0 };

		util_terminal_safe(&safe, out->bwrap_stderr,
		    strlen(out->bwrap_stderr));
		(void)!write(STDERR_FILENO, safe.s, safe.len);
	}
	(void)sigaction(SIGPIPE, &l->old_pipe, NULL);
	ready_outcome_free(out);
	fd_close(&l->ctrl);
	devnull = l->devnull;
	l->devnull = -1;
	return proxy(&r, devnull);
}

/* MS as seconds: "2s", "1.5s". */
static void
say_secs(char *buf, size_t size, long long ms)
{
	if (ms % 1000 == 0)
		snprintf(buf, size, "%llds", ms / 1000);
	else
		snprintf(buf, size, "%lld.%03llds", ms / 1000, ms % 1000);
}

/* The detail of exit status 124, unless -q. */
static void
timed_out(const struct invocation *inv, const struct deadline *dl)
{
	char after[32], grace[32];

	if (inv->verbosity < 0)
		return;
	say_secs(after, sizeof(after), dl->timeout_ms);
	say_secs(grace, sizeof(grace), dl->kill_after_ms);
	if (dl->phase == DEADLINE_KILLED)
		util_say(
		    "timed out after %s: the sandbox did not end within %s of SIGTERM and was killed",
		    after, grace);
	else
		util_say("timed out after %s: the sandbox ended after SIGTERM",
		    after);
}

/*
 * A command ended by the signal a limit raises: said on the event channel
 * with the limit (EVENTS in sbox-exec(1)).  bwrap reports the signal as
 * 128+N, which is all that can be known: a command that exits with such
 * a number itself looks the same.
 */
static void
say_limit_hit(const struct invocation *inv, int code)
{
	static const struct {
		int sig;
		const char *name;
		enum bound_res limit;
	} hits[] = {
		{ SIGXCPU, "SIGXCPU", BOUND_CPU },
		{ SIGXFSZ, "SIGXFSZ", BOUND_FSIZE },
		{ SIGKILL, "SIGKILL", BOUND_CPU },
	};
	struct event ev;

	for (size_t i = 0; i < N_ELEMENTS(hits); i++) {
		if (code != SBOX_EXIT_SIGNAL_BASE + hits[i].sig ||
		    !inv->bounds.set[hits[i].limit] ||
		    inv->bounds.value[hits[i].limit] == RLIM_INFINITY)
			continue;
		event_start(&ev, "killed");
		event_str(&ev, "signal", hits[i].name);
		/* SIGKILL has other senders than the cpu hard limit. */
		event_str(&ev,
		    hits[i].sig == SIGKILL ? "limit_if_any" : "limit",
		    bounds_name(hits[i].limit));
		event_int(&ev, "value",
		    (long long)inv->bounds.value[hits[i].limit]);
		event_emit(&ev);
		return;
	}
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
	cleanup_launch struct launch l = LAUNCH_INIT;
	struct ready_outcome out;
	struct deadline dl;
	int rc;

	/* From the start: creation counts (TIMEOUT AND LIMITS). */
	deadline_start(&dl,
	    spec->inv->mode == MODE_RUN ? spec->inv->timeout_ms : 0,
	    spec->inv->kill_after_ms);
	if (prepare(&l, spec, err) < 0)
		return -1;
	make_env(&l, policy_proxied(&spec->inv->policy));
	if (check_exec_size(&l, err) < 0)
		return -1;
	if (spec->inv->verbosity > 0) {
		fputs("sbox-exec: running: ", stderr);
		print_argv(stderr, l.cmd.argv.v);
	}
	if (start_bwrap(&l, spec, err) < 0)
		return -1;
	rc = await_sandbox(&l, spec, &out, err);
	if (rc < 0)
		return rc;
	if (spec->inv->mode == MODE_CHECK) {
		*exit_code = 0;
		return finish_check(&l, spec, &out, err);
	}
	if (out.lookup != STAGE2_FOUND) {
		stop_command(&l, &out, err);
		return -1;
	}
	*exit_code = hand_over(&l, spec, &out, &dl);
	if (dl.phase >= DEADLINE_TERMED) {
		timed_out(spec->inv, &dl);
		*exit_code = SBOX_EXIT_TIMEOUT;
	} else {
		say_limit_hit(spec->inv, *exit_code);
	}
	deadline_close(&dl);
	return 0;
}
