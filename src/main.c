/*
 * main.c - sbox-exec: parse, check, locate, validate, report, launch.
 *
 * The only file that exits (but for xdie() when memory runs out), and the
 * one that prints the status, refusals, notices, --help and --version
 * (cli_help() writes where it is told).  Elsewhere only: --print's line
 * and -v's (launch.c), bwrap's late words relayed (launch.c), and stage
 * two's own refusal or the command's failure to start (stage2.c, on the
 * command's stderr, returned through main()).  MUST: report exactly one
 * status on every channel given, before the command starts or instead of
 * it; never run the command outside the sandbox.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "landlock.h"
#include "launch.h"
#include "locate.h"
#include "phase.h"
#include "protect.h"
#include "ready.h"
#include "resolve.h"
#include "sbox.h"
#include "stage2.h"
#include "denial.h"
#include "events.h"
#include "status.h"
#include "sysctl.h"
#include "util.h"

/* Launches of one run at most, when paths vanish as it plans (below). */
#define LAUNCH_TRIES 5

struct reporter {
	const struct invocation *inv;
	int *sockets; /* connected, or -1 when unreachable */
	const struct located *bw;
	const char *bwrap_path;	  /* the status's "bwrap", or NULL */
	const char *bwrap_source; /* the status's "bwrap_source", or NULL */
	bool sent;
	bool stdout_failed; /* --check --json could not write its line */
	struct protect_holds *holds; /* the run's placeholders (protect.c) */
	const char *learn_made;	     /* --learn's file, made by this launch */
};

/*
 * Flush stdout and say so on stderr when what was written to it did not
 * arrive (a closed pipe, a full disk).  musl forgets a failed write once
 * its buffer is gone: ferror() remembers it.
 */
static int
flush_stdout(void)
{
	int e;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	e = errno;
	fprintf(stderr, "sbox-exec: cannot write to standard output%s%s\n",
	    e ? ": " : "", e ? strerror(e) : "");
	return -1;
}

static void
warn_delivery(const struct invocation *inv, const char *where, int e)
{
	if (inv->verbosity >= 0)
		util_say("cannot deliver the status to %s: %s", where,
		    e == ETIMEDOUT ?
			"no room for the whole line within the delivery time (2 s)" :
			strerror(e));
}

/* Send one status line on every channel, then close the descriptors. */
static void
report(struct reporter *r, const struct status_report *sr)
{
	const struct invocation *inv = r->inv;
	cleanup_free char *line = NULL;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;

	if (r->sent)
		return;
	r->sent = true;
	/* Nobody to tell: the common case, and worth not rendering for. */
	if (inv->nstatus_fds == 0 && inv->nstatus_sockets == 0 &&
	    !(inv->json && inv->mode == MODE_CHECK))
		return;
	line = status_render(sr);
	(void)sigaction(SIGPIPE, &ign, &old);
	for (size_t i = 0; i < inv->nstatus_fds; i++) {
		int fd = inv->status_fds[i];
		char where[32];

		snprintf(where, sizeof(where), "descriptor %d", fd);
		if (status_write_fd(fd, line) < 0)
			warn_delivery(inv, where, errno);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	for (size_t i = 0; i < inv->nstatus_sockets; i++) {
		if (r->sockets[i] < 0)
			continue;
		if (status_send_socket(r->sockets[i], line) < 0)
			warn_delivery(inv, inv->status_sockets[i], errno);
		close(r->sockets[i]);
		r->sockets[i] = -1;
	}
	(void)sigaction(SIGPIPE, &old, NULL);
	if (inv->json && inv->mode == MODE_CHECK) {
		fputs(line, stdout);
		if (flush_stdout() < 0)
			r->stdout_failed = true;
	}
}

static void
warn_git_change(void *ctx, const char *path)
{
	const struct reporter *r = ctx;
	const struct protect_holds *holds = r->holds;
	struct event ev;

	/* A placeholder of this launch's, read-only inside: not the command's. */
	for (size_t i = 0; i < holds->n; i++)
		if (holds->v[i].made && strcmp(holds->v[i].path, path) == 0)
			return;
	if (r->inv->verbosity >= 0)
		util_say(
		    "warning: the command changed %s, where git finds programs to run; review it before using git there",
		    path);
	event_start(&ev, "git-changed");
	event_str(&ev, "path", path);
	event_emit(&ev);
}

/*
 * After the run: say which git metadata in a writable grant the command
 * changed (a .git it created, a hook, a redirect).  Not a protection in
 * itself: what git must not take from the sandbox is read-only already
 * (see HOST PROTECTION in the manual page).
 */
static void
audit_git(const struct reporter *r, const struct timespec *start)
{
	static const int ending[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
	const struct invocation *inv = r->inv;
	struct protect_env env = { .homes = { getenv("HOME"), NULL } };

	/* The command is gone: nothing to forward to, a signal ends us. */
	for (size_t i = 0; i < N_ELEMENTS(ending); i++)
		(void)signal(ending[i], SIG_DFL);
	if (inv->verbosity < 0 && !events_wanted())
		return;
	if (!protect_audit_git(&inv->policy, &env, start, warn_git_change,
		(void *)r) &&
	    inv->verbosity >= 0)
		util_say(
		    "warning: the writable directories hold too much to look through for git metadata the command changed (see HOST PROTECTION in sbox-exec(1))");
}

/* The last event: how the command ended, as our exit status says it. */
static void
say_exit(int code)
{
	struct event ev;

	event_start(&ev, "exit");
	event_int(&ev, "code", code);
	event_emit_last(&ev);
}

/*
 * What --net cannot protect, said at each launch with it (sbox-exec(1),
 * --net; the status's abstract_unix and abstract_names say the same).
 */
static void
warn_net_exposure(bool scoped)
{
	if (scoped)
		util_say(
		    "warning: --net shares the host's abstract unix socket names: the command can list them (/proc/net/unix) and bind free ones, which host programs may then connect to; it cannot connect to the host's");
	else
		util_say(
		    "warning: --net shares the host's abstract unix socket names: the command can connect to the host's (this kernel has no Landlock scoping, ABI 6, Linux 6.12), list them (/proc/net/unix) and bind free ones, which host programs may then connect to");
}

/*
 * The command found in the sandbox, FOUND, is not the one the same PATH
 * finds outside it (a directory the sandbox hides, such as ~/.cargo/bin
 * as root): say which runs instead, before it runs (sbox-exec(1),
 * DESCRIPTION).
 */
static void
warn_other_command(const struct invocation *inv, const char *found)
{
	const struct policy *p = &inv->policy;
	const char *path = policy_env_value(p, "PATH", getenv("PATH"));
	cleanup_free char *outside = NULL;

	if (inv->mode != MODE_RUN || inv->verbosity < 0 || found == NULL)
		return;
	outside = locate_command(inv->command[0], path,
	    p->chdir ? p->chdir : p->cwd);
	if (outside != NULL && strcmp(outside, found) != 0)
		util_say(
		    "warning: %s is %s in the sandbox, not %s as outside it, which the sandbox does not show",
		    inv->command[0], found, outside);
}

static void
on_ready(void *ctx, pid_t pid, const char *command)
{
	struct reporter *r = ctx;
	int abi = landlock_abi();
	char landlock[16] = "none";
	struct status_report sr = {
		.status = SBOX_SUCCESS,
		.bwrap = r->bwrap_path,
		.bwrap_source = r->bwrap_source,
		.pid = r->inv->mode == MODE_RUN ? pid : 0,
		.command = command,
		.net = r->inv->policy.net ?
		    "host" :
		    (netpolicy_active(&r->inv->policy.egress) ? "allow-list" :
								"none"),
		.abstract_unix = !r->inv->policy.net ||
			abi >= LANDLOCK_SCOPE_ABI ?
		    "blocked" :
		    "reachable",
		/* Abstract names live in the network namespace: with --net
		 * the host's; no kernel keeps the command from listing them
		 * or binding free ones there (--net in sbox-exec(1)). */
		.abstract_names = r->inv->policy.net ? "shared" : "private",
		.nested_userns = r->bw->disable_userns ? "blocked" : "allowed",
		.landlock = landlock,
		/* Without the filter nothing is launched (seccomp.c). */
		.seccomp = "filter",
	};

	cleanup_buf struct buf limits = { 0 };

	if (abi > 0)
		snprintf(landlock, sizeof(landlock), "abi-%d", abi);
	if (r->inv->policy.net && r->inv->verbosity >= 0)
		warn_net_exposure(abi >= LANDLOCK_SCOPE_ABI);
	/* Set by stage two before it reported in (TIMEOUT AND LIMITS). */
	bounds_render_json(&r->inv->bounds, &limits);
	sr.limits = limits.s;
	report(r, &sr);
	warn_other_command(r->inv, command);
}

static int SBOX_NORETURN
refuse(struct reporter *r, const struct sbox_error *err)
{
	struct status_report sr = {
		.status = err->status,
		.bwrap = r->bwrap_path,
		.bwrap_source = r->bwrap_source,
		.detail = err->detail,
		.hint = err->hint,
	};

	protect_release(r->holds);
	/* What this launch made and nothing wrote to goes again. */
	if (r->learn_made != NULL) {
		struct stat st;

		if (lstat(r->learn_made, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size == 0)
			(void)unlink(r->learn_made);
	}
	/* --print reports nothing but on stderr, refusals included. */
	if (r->inv->mode != MODE_PRINT)
		report(r, &sr);
	if (r->inv->verbosity >= 0 || r->inv->mode == MODE_RUN) {
		util_say("%s", err->detail);
		if (err->hint != NULL && r->inv->verbosity >= 0)
			util_say("hint: %s", err->hint);
	}
	exit(sbox_status_exit(err->status));
}

/* Connect the status sockets; a bad address is a usage error. */
static void
open_sockets(struct reporter *r, struct invocation *inv)
{
	r->sockets = xcalloc(inv->nstatus_sockets, sizeof(int));
	for (size_t i = 0; i < inv->nstatus_sockets; i++) {
		struct sbox_error e = { 0 };
		int rc = status_socket_open(inv->status_sockets[i],
		    &r->sockets[i], &e);

		if (rc == -1 && inv->err.detail == NULL)
			inv->err = e;
		else
			sbox_error_clear(&e);
		if (rc == -2)
			warn_delivery(inv, inv->status_sockets[i], errno);
	}
}

/* Whether we run setuid or setgid: we want no privilege. */
static bool
privileged(void)
{
	struct stat st;

	return getauxval(AT_SECURE) != 0 || getuid() != geteuid() ||
	    getgid() != getegid() ||
	    (stat("/proc/self/exe", &st) == 0 &&
		(st.st_mode & (S_ISUID | S_ISGID)) != 0);
}

/* The bwrap to run, into BW; a refusal when there is none. */
static void
locate(struct reporter *rep, struct located *bw)
{
	const struct invocation *inv = rep->inv;
	struct sbox_error err = { 0 };

	if (locate_bwrap(inv->bwrap, getenv("PATH"), bw, &err) < 0) {
		if (bw->path == NULL && err.status == SBOX_SETUID_REJECTED)
			rep->bwrap_path = NULL;
		/* Inside our sandbox, files of root's look like someone
		 * else's: that, not the bwrap, is what to say. */
		if (sysctl_inside_sbox_exec()) {
			cleanup_free char *said = xstrdup(err.detail);

			reason_nested(said, &err);
		}
		refuse(rep, &err);
	}
	if (inv->bwrap_from_env)
		bw->source = BWRAP_SOURCE_ENV;
	rep->bwrap_path = bw->path;
	rep->bwrap_source = locate_source_name(bw->source);
	rep->bw = bw;
	if (inv->mode == MODE_CHECK && !inv->json &&
	    inv->verbosity >= VERBOSITY_NORMAL)
		util_say("bwrap: %s (%s)", bw->path,
		    locate_source_words(bw->source));
	if (inv->mode == MODE_CHECK && bw->caller_writable != NULL &&
	    inv->verbosity >= 0)
		util_say(
		    "note: %s can be replaced by this user (%s is theirs to write); whatever runs as this user could put another program in its place",
		    bw->path, bw->caller_writable);
}

/*
 * Before anything touches a file: no privilege of our own, descriptors
 * 0-2 open (or our own would take their place), and death with whoever
 * started us, even if that was just now (a parent gone before the prctl
 * would go unnoticed).  -1: refuse.
 */
static int
settle_process(void)
{
	pid_t ppid;

	if (privileged()) {
		fputs(
		    "sbox-exec: sbox-exec must not be installed setuid or setgid\n",
		    stderr);
		return -1;
	}
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (fcntl(fd, F_GETFD) < 0 &&
		    open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			return -1;
	ppid = getppid();
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	return getppid() == ppid ? 0 : -1;
}

/*
 * --learn=FILE, before anything else looks at the host: FILE made (empty)
 * when missing, so that the launch pins it read-only as it does the
 * policy files it reads (HOST PROTECTION in sbox-exec(1)), and so that
 * --learn=FILE --policy=FILE works on the first run; its text now, which
 * the merge after the run expects to find at its start.  Refused up
 * front when FILE could not be written after the run (its directory
 * missing or not writable, FILE not a regular file), so that a long run
 * does not end in nothing learned.
 */
static int
learn_open(const char *file, char **text, bool *made, struct sbox_error *err)
{
	cleanup_free char *dir = xstrdup(file);
	char *slash = strrchr(dir, '/');
	struct stat st;
	int fd;

	if (slash == dir)
		slash[1] = '\0';
	else if (slash != NULL)
		*slash = '\0';
	else
		strcpy(dir, ".");
	if (access(dir, W_OK | X_OK) < 0) {
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "--learn: cannot write in %s: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(file, &st) == 0 && !S_ISREG(st.st_mode)) {
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "--learn: %s is not a regular file", file);
		return -1;
	}
	fd = util_open(file,
	    O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK, 0666);
	*made = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = util_open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0);
	if (fd < 0) {
		sbox_error_set(err, SBOX_INVALID_POLICY, "--learn: %s: %s",
		    file, strerror(errno));
		return -1;
	}
	/* Another name of the same file would not be read-only inside. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink > 1) {
		int e = errno;

		close(fd);
		if (!S_ISREG(st.st_mode) || st.st_nlink <= 1)
			sbox_error_set(err, SBOX_INVALID_POLICY,
			    "--learn: %s: %s", file,
			    S_ISREG(st.st_mode) ? strerror(e) :
						  "not a regular file");
		else
			sbox_error_set(err, SBOX_INVALID_POLICY,
			    "--learn: %s has other hard links, through which a sandbox could change it; give it a file of its own",
			    file);
		return -1;
	}
	close(fd);
	*text = denial_learn_read(file);
	if (*text == NULL) {
		sbox_error_set(err, SBOX_INVALID_POLICY, "--learn: %s: %s",
		    file,
		    errno == EINVAL ? "not a regular file" : strerror(errno));
		return -1;
	}
	return 0;
}

/* --learn's file made and read before the launch looks at the host (the
 * first problem kept in INV, as parsing keeps it); its text in *BASE. */
static void
learn_start(struct reporter *rep, struct invocation *inv, char **base)
{
	struct sbox_error err = { 0 };
	bool made = false;

	if (inv->mode != MODE_RUN || inv->learn == NULL ||
	    inv->err.detail != NULL)
		return;
	if (learn_open(inv->learn, base, &made, &err) < 0)
		inv->err = err;
	if (made)
		rep->learn_made = inv->learn;
}

/* What the user should know of the policy, refused or not (with -v, or
 * --check), and what the user must hear at every launch (unless -q). */
static void
say_notices(const struct invocation *inv)
{
	if (inv->verbosity > 0 ||
	    (inv->mode == MODE_CHECK && inv->verbosity >= 0))
		for (size_t i = 0; i < inv->notices.n; i++)
			util_say("%s", inv->notices.v[i]);
	if (inv->verbosity >= 0)
		for (size_t i = 0; i < inv->warnings.n; i++)
			util_say("warning: %s", inv->warnings.v[i]);
}

/*
 * What refusals are told with: the home, the project and, when writes
 * are watched, the never-learned list, which must be read (fail closed:
 * without it no grant could be judged safe).  NEVER is filled here and
 * read until the end of the run.
 */
static void
denials_setup(struct reporter *rep, const struct invocation *inv,
    struct nolearn_list *never)
{
	struct sbox_error err = { 0 };
	cleanup_free char *pw_home = resolve_passwd_home();
	const char *homes[2] = { getenv("HOME"), pw_home };

	if (inv->mode == MODE_RUN && inv->denials &&
	    resolve_never_learned(inv, never, &err) < 0)
		refuse(rep, &err);
	denial_setup(inv->verbosity, homes, inv->project_real, inv->cache_root,
	    never);
}

/* After the run: --learn's policy file (DENIALS in sbox-exec(1)), from
 * BASE, its text at launch. */
static void
learn(const struct invocation *inv, const char *base)
{
	cleanup_free char *why = NULL;

	if (inv->learn == NULL || base == NULL)
		return;
	if (denial_learn(inv->learn, base, &why) < 0)
		util_say("--learn: %s", why);
	else if (inv->verbosity > 0)
		util_say("--learn: %s written", inv->learn);
}

/*
 * A command that failed (CODE, an exit status from 1 to 125: not a
 * signal's, nor a command not found, nor --timeout's 124) in a run that
 * did not watch its writes: the one line that says how to learn what
 * the sandbox refused (DENIALS), unless -q.
 */
static void
say_unwatched(const struct invocation *inv, int code)
{
	/* 124 with --timeout: the timeout's, said already. */
	if (inv->denials || inv->verbosity < 0 || code < 1 ||
	    code > SBOX_EXIT_REFUSED ||
	    (code == SBOX_EXIT_TIMEOUT && inv->timeout_ms > 0))
		return;
	util_say(
	    "the command exited %d; --watch names the writes the sandbox kept from it, --learn=FILE makes a policy of them",
	    code);
}

/* After the command: what it changed in git, what the sandbox refused,
 * the placeholders let go, and the last event. */
static void
after_run(struct reporter *rep, int code, char **argv,
    const struct timespec *start, const char *learn_base)
{
	const struct invocation *inv = rep->inv;
	sigset_t ending, old;

	/* The command has ended: a signal that would end the launcher now
	 * waits until what the run learned is written. */
	sigemptyset(&ending);
	sigaddset(&ending, SIGHUP);
	sigaddset(&ending, SIGINT);
	sigaddset(&ending, SIGQUIT);
	sigaddset(&ending, SIGTERM);
	sigprocmask(SIG_BLOCK, &ending, &old);
	audit_git(rep, start);
	denial_close();
	denial_summary(argv[0], &inv->again, &inv->given, inv->command);
	say_unwatched(inv, code);
	learn(inv, learn_base);
	protect_release(rep->holds);
	sigprocmask(SIG_SETMASK, &old, NULL);
	say_exit(code);
}

/* Where the plan keeps the placeholders it makes: only a run makes any
 * (--check and --print change nothing on the host). */
static struct protect_holds *
run_holds(struct reporter *rep, const struct invocation *inv)
{
	return inv->mode == MODE_RUN ? rep->holds : NULL;
}

/*
 * The launch, planned again when bwrap could not set up a path removed
 * from the host after the plan named it (LAUNCH_REPLAN): a socket that
 * came and went under /run, or a credential file deleted, must not fail
 * a launch.  Nothing ran; a few tries at most, and the last refusal
 * stands.  The notices and warnings were said already.
 */
static void
launch_planned(struct reporter *rep, struct invocation *inv,
    const struct launch_spec *spec, int argc, char **argv, int *code)
{
	struct sbox_error err = { 0 };

	for (int tries = 1;; tries++) {
		int rc = launch_sandbox(spec, code, &err);

		if (rc == 0)
			return;
		if (rc == LAUNCH_REPLAN && tries == LAUNCH_TRIES)
			sbox_error_hint(&err,
			    "what the sandbox masks (a socket, a file) was removed from the host while the sandbox was set up, on each of %d tries; run it again once that is done",
			    LAUNCH_TRIES);
		if (rc != LAUNCH_REPLAN || tries == LAUNCH_TRIES)
			refuse(rep, &err);
		sbox_error_clear(&err);
		protect_release(rep->holds);
		cli_free(inv);
		(void)cli_parse(inv, argc, argv);
		(void)resolve_invocation(inv, run_holds(rep, inv));
		if (inv->err.detail != NULL)
			refuse(rep, &inv->err);
	}
}

/* --print: the bwrap command line on stdout, and nothing run. */
static int
print_only(struct reporter *rep, struct invocation *inv, struct located *bw)
{
	struct sbox_error err = { 0 };
	int code;

	if (launch_print(inv, bw, &err) < 0)
		refuse(rep, &err);
	code = flush_stdout() == 0 ? 0 : SBOX_EXIT_REFUSED;
	locate_free(bw);
	cli_free(inv);
	free(rep->sockets);
	return code;
}

int
main(int argc, char **argv)
{
	struct invocation inv;
	struct protect_holds holds = { 0 };
	struct reporter rep = { .inv = &inv, .holds = &holds };
	struct located bw = { .fd = -1 };
	struct sbox_error err = { 0 };
	struct launch_spec spec;
	struct nolearn_list never = { 0 };
	char *learn_base = NULL;
	struct timespec start;
	int code;

	if (stage2_is_invocation(argc, argv))
		return stage2_main(argc, argv);
	phase_mark("start");
	if (settle_process() < 0)
		return SBOX_EXIT_REFUSED;

	(void)cli_parse(&inv, argc, argv);
	phase_mark("parsed");
	/* Paths resolved once while planning (util.c), forgotten before
	 * anything runs. */
	util_realpath_keep(true);
	if (inv.mode == MODE_HELP || inv.mode == MODE_VERSION) {
		if (inv.mode == MODE_HELP)
			cli_help(stdout);
		else
			printf("%s %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		cli_free(&inv);
		return flush_stdout() == 0 ? 0 : SBOX_EXIT_REFUSED;
	}
	learn_start(&rep, &inv, &learn_base);
	(void)resolve_invocation(&inv, run_holds(&rep, &inv));
	phase_mark("resolved");
	say_notices(&inv);
	open_sockets(&rep, &inv);
	if (inv.err.detail != NULL)
		refuse(&rep, &inv.err);
	if (inv.mode == MODE_RUN)
		events_open(inv.log_fd);

	locate(&rep, &bw);

	/* As root, after the cheaper checks: it walks every --rw tree. */
	if (util_uid() == 0 && !inv.allow_setuid_files &&
	    protect_check_setuid(&inv.policy, &err) < 0)
		refuse(&rep, &err);
	phase_mark("located");
	util_realpath_keep(false);

	if (inv.mode == MODE_PRINT)
		return print_only(&rep, &inv, &bw);

	spec = (struct launch_spec){
		.inv = &inv,
		.located = &bw,
		.holds = &holds,
		.ready = on_ready,
		.ready_ctx = &rep,
	};
	denials_setup(&rep, &inv, &never);
	/* The clock file times come from: nothing changed later is older. */
	clock_gettime(CLOCK_REALTIME_COARSE, &start);
	launch_planned(&rep, &inv, &spec, argc, argv, &code);
	phase_mark("ended");
	if (inv.mode == MODE_RUN)
		after_run(&rep, code, argv, &start, learn_base);
	phase_mark("done");
	/* --check --json: the answer is the line on stdout. */
	if (rep.stdout_failed)
		code = SBOX_EXIT_REFUSED;
	locate_free(&bw);
	nolearn_clear(&never);
	free(learn_base);
	cli_free(&inv);
	free(rep.sockets);
	return code;
}
