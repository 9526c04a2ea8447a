/*
 * denial.c - the denials of one run: said once each on stderr, counted,
 * summed up at the end, and written as a policy file for --learn.
 *
 * Reports come from the watch thread and the proxy's threads while the
 * command runs; the summary and --learn come from main() after it ended,
 * when no reporter is left.  A line on stderr is written whole with one
 * write(2) outside the lock, so that a stderr nobody reads holds up only
 * the thread that met the denial, never the others' bookkeeping.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cache.h"
#include "denial.h"
#include "events.h"
#include "nolearn.h"
#include "netproxy.h"
#include "util.h"

struct entry {
	enum denial_kind kind;
	size_t hash; /* of what, to find a repeat without comparing each */
	char *what;  /* a path, or HOST:PORT */
	char *call;  /* the system call, or the proxy's reason */
	char *option, *value, *setenv, *note;
	bool wide;
};

static struct {
	pthread_mutex_t lock;
	struct entry e[DENIAL_KEEP];
	size_t n;	 /* kept */
	size_t total;	 /* every report, repeats included */
	size_t failed;	 /* of those, an allowed host not resolved or reached */
	size_t distinct; /* kept, and those past DENIAL_KEEP */
	size_t lines;	 /* said on stderr */
	int verbosity;
	bool quiet;	   /* the command ended: nothing more on stderr */
	const char *home;  /* never a grant, whatever asked for it */
	char *project;	   /* nor what holds it: its real path */
	const char *cache; /* ${CACHE}, for a command line, or NULL */
	struct nolearn_list *never; /* nor these (NULL: nothing learned) */
	bool never_real;	    /* their real forms added */
	char *homes[4];	   /* both homes, normalised and resolved (or NULL) */
	bool closed;	   /* the run ended: reports are no longer taken */
	bool project_wide; /* the project is / or holds a home */
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * VERBOSITY: -q (-1) says nothing on stderr; HOME: the home directory
 * (or NULL); PROJECT: the project's real path (or NULL); CACHE: what
 * ${CACHE} names in a policy file (or NULL); NEVER: the
 * never-learned list, with the caller's PATH (NULL when it could not be
 * read: then no grant is suggested or learned).  Set before any reporter
 * starts.
 */
void
denial_setup(int verbosity, const char *const homes[2], const char *project,
    const char *cache, struct nolearn_list *never)
{
	st.cache = cache;
	st.verbosity = verbosity;
	st.home = homes[0];
	for (size_t i = 0; i < 2; i++) {
		free(st.homes[2 * i]);
		st.homes[2 * i] = homes[i] != NULL && homes[i][0] == '/' ?
		    util_path_absolute(homes[i], "/") :
		    NULL;
	}
	free(st.project);
	st.project = project != NULL ? xstrdup(project) : NULL;
	st.project_wide = project == NULL || strcmp(project, "/") == 0;
	for (size_t i = 0; i < 2 && !st.project_wide; i++)
		st.project_wide = homes[i] != NULL && homes[i][0] == '/' &&
		    util_path_within(homes[i], project);
	st.never = never;
}

/* PATH as the host resolves it, or, when PATH is missing, its parent's
 * real path with its name; NULL when neither can be had. */
static char *
real_form(const char *path)
{
	char *real = util_realpath(path);
	cleanup_free char *parent = NULL, *rparent = NULL;
	const char *name = strrchr(path, '/');

	if (real != NULL || name == NULL || name == path)
		return real;
	parent = xstrndup(path, (size_t)(name - path));
	rparent = util_realpath(parent);
	return rparent != NULL ? util_path_join(rparent, name + 1) : NULL;
}

/*
 * The first time a grant is judged: the list's entries where the host's
 * links lead too, since a refused path comes resolved (a home reached
 * through /home -> /var/home, a ~/.bashrc kept in a dotfiles
 * repository).  Only when something was refused, so that a launch pays
 * nothing for it.  Called by the one thread that judges, or by main()
 * once that thread has ended.
 */
static void
never_prepare(void)
{
	size_t n;

	if (st.never_real)
		return;
	st.never_real = true;
	for (size_t i = 0; i < 2; i++)
		if (st.homes[2 * i] != NULL)
			st.homes[2 * i + 1] = util_realpath(st.homes[2 * i]);
	if (st.never == NULL)
		return;
	n = st.never->n;
	for (size_t i = 0; i < n; i++) {
		const struct nolearn_entry *e = &st.never->v[i];
		cleanup_free char *real = real_form(e->path);

		if (real != NULL && strcmp(real, e->path) != 0)
			nolearn_add(st.never, e->kind, real, e->what,
			    e->setenv);
	}
}

/*
 * Why a grant of PATH (absolute) is too wide to suggest or learn: /, a
 * top-level directory, the home directory or one above it, or a
 * directory that holds the project (and so its siblings).  NULL when it
 * is none of these.
 */
const char *
denial_too_wide(const char *path)
{
	never_prepare();
	if (strchr(path + 1, '/') == NULL)
		return "/ or a top-level directory";
	for (size_t i = 0; i < N_ELEMENTS(st.homes); i++)
		if (st.homes[i] != NULL && util_path_within(st.homes[i], path))
			return "it holds the home directory";
	if (st.project != NULL && util_path_within(st.project, path) &&
	    strcmp(st.project, path) != 0)
		return "it holds the project and its siblings";
	return NULL;
}

/* Whether PATH lies in NAME directly in DIR, a name that starts with a
 * dot or is node_modules. */
static bool
walked_up_in(const char *path, const char *dir)
{
	size_t len = strlen(dir);
	const char *name;

	if (!util_path_within(path, dir) || strcmp(path, dir) == 0)
		return false;
	name = path + (strcmp(dir, "/") == 0 ? 1 : len + 1);
	return name[0] == '.' ||
	    (strncmp(name, "node_modules", 12) == 0 &&
		(name[12] == '/' || name[12] == '\0'));
}

/*
 * Whether PATH (absolute) lies in a file or directory, directly in the
 * home or in a directory above the project, whose name starts with a dot
 * or is node_modules: a tool's own in the home, which the same tool
 * outside the sandbox reads, or a place that tools in the projects
 * below find by looking up (git's .git, cargo's .cargo, node's
 * node_modules).  Said, never learned.
 */
bool
denial_walked_up(const char *path)
{
	never_prepare();
	for (size_t i = 0; i < N_ELEMENTS(st.homes); i++)
		if (st.homes[i] != NULL && walked_up_in(path, st.homes[i]))
			return true;
	if (st.project == NULL)
		return false;
	for (cleanup_free char *dir = xstrdup(st.project);;) {
		char *slash = strrchr(dir, '/');

		if (slash == NULL)
			return false;
		if (slash == dir) {
			dir[1] = '\0';
			return walked_up_in(path, dir);
		}
		*slash = '\0';
		if (walked_up_in(path, dir))
			return true;
	}
}

/*
 * The never-learned entry that keeps a grant of PATH (absolute) from
 * being suggested or learned (nolearn_find()), or NULL.  *UNREAD: true
 * when the list could not be read, which keeps every grant out.
 */
const struct nolearn_entry *
denial_never(const char *path, bool *unread)
{
	*unread = st.never == NULL;
	if (st.never == NULL)
		return NULL;
	never_prepare();
	return nolearn_find(st.never, path,
	    st.project_wide ? NULL : st.project);
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static const char *
kind_word(enum denial_kind k)
{
	switch (k) {
	case DENIAL_WRITE:
		return "write";
	case DENIAL_SOCKET:
		return "connect";
	case DENIAL_READ:
		return "read";
	case DENIAL_HOST:
		return "network";
	case DENIAL_UNRESOLVED:
		return "resolve";
	case DENIAL_UNREACHED:
		return "reach";
	case DENIAL_UPSTREAM:
		return "upstream";
	}
	return "?";
}

/* "--rw=/x" for E's grant, into B. */
static void
add_option(struct buf *b, const struct entry *e)
{
	buf_addf(b, "--%s=%s", e->option, e->value);
}

static void add_word(struct buf *, const char *);

/*
 * E's --setenv NAME VALUE as a command line says it, into *NAME and
 * *VALUE (the caller frees them): ${CACHE}, which only a policy file
 * expands, as the directory it names.  False when E has none, or it
 * cannot be said.
 */
static bool
setenv_words(const struct entry *e, char **name, char **value)
{
	const char *sp = e->setenv != NULL ? strchr(e->setenv, ' ') : NULL;
	const char *v = sp != NULL ? sp + 1 : NULL;

	if (v == NULL)
		return false;
	if (strncmp(v, "${CACHE}", 8) == 0 && st.cache != NULL)
		*value = xasprintf("%s%s", st.cache, v + 8);
	else if (strstr(v, "${") == NULL)
		*value = xstrdup(v);
	else
		return false;
	*name = xstrndup(e->setenv, (size_t)(sp - e->setenv));
	return true;
}

/* E's grant as shell words: the option, and its --setenv if any. */
static void
add_grant_words(struct buf *b, const struct entry *e, bool option, bool env)
{
	cleanup_buf struct buf opt = { 0 };
	cleanup_free char *name = NULL, *value = NULL;

	if (option) {
		add_option(&opt, e);
		add_word(b, opt.s);
	}
	if (env && setenv_words(e, &name, &value)) {
		buf_adds(b, option ? " --setenv " : "--setenv ");
		add_word(b, name);
		buf_addc(b, ' ');
		add_word(b, value);
	}
}

/* The stderr line for a new denial E (DENIALS in sbox-exec(1)). */
static char *
render_line(const struct entry *e)
{
	cleanup_buf struct buf b = { 0 }, safe = { 0 };

	switch (e->kind) {
	case DENIAL_WRITE:
		buf_addf(&b, "refused: write to %s (%s)", e->what, e->call);
		break;
	case DENIAL_SOCKET:
		buf_addf(&b,
		    "refused: connect to %s (a socket hidden in the sandbox)",
		    e->what);
		break;
	case DENIAL_READ:
		buf_addf(&b, "hidden: %s of %s", e->call, e->what);
		break;
	case DENIAL_HOST:
		buf_addf(&b, "refused %s (%s)", e->what, e->call);
		break;
	case DENIAL_UNRESOLVED:
		buf_addf(&b, "could not resolve %s, which is allowed (%s)",
		    e->what, e->call);
		break;
	case DENIAL_UNREACHED:
		buf_addf(&b, "could not reach %s, which is allowed (%s)",
		    e->what, e->call);
		break;
	case DENIAL_UPSTREAM:
		buf_addf(&b,
		    "could not reach %s, which is allowed, through the upstream proxy (%s)",
		    e->what, e->call);
		break;
	}
	if (e->option != NULL) {
		buf_adds(&b, "; to allow: ");
		add_grant_words(&b, e, true, true);
		if (e->note != NULL)
			buf_addf(&b, " (%s)", e->note);
	} else if (e->note != NULL) {
		buf_addf(&b, "; %s", e->note);
	}
	buf_adds(&safe, "sbox-exec: ");
	util_line_safe(&safe, b.s, b.len);
	buf_addc(&safe, '\n');
	return buf_steal(&safe);
}

/*
 * LINE on stderr, whole, if that cannot block: a refused call waits for
 * its reporter (watch.c), and a stderr nobody reads must not hold it up.
 * A pipe with room takes a line under PIPE_BUF whole; a line that cannot
 * go is still in the summary.
 */
static void
say(const char *line)
{
	struct pollfd pfd = { STDERR_FILENO, POLLOUT, 0 };

	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLOUT) != 0)
		(void)!write(STDERR_FILENO, line, strlen(line));
}

/* Whether a new refusal would get a line of its own on stderr; the
 * caller holds st.lock. */
static bool
lines_left_locked(void)
{
	return st.verbosity >= 0 && !st.quiet && st.lines < DENIAL_LINES;
}

/* Whether a new refusal would be more than counted (denial_wanted());
 * the caller holds st.lock. */
static bool
wanted_locked(void)
{
	return st.n < DENIAL_KEEP || lines_left_locked() || events_wanted();
}

/* The event for a file-system denial E; the proxy says its own. */
static void
emit_event(const struct entry *e)
{
	struct event ev;

	if ((e->kind != DENIAL_WRITE && e->kind != DENIAL_SOCKET &&
		e->kind != DENIAL_READ) ||
	    !events_wanted())
		return;
	event_start(&ev,
	    e->kind == DENIAL_WRITE	 ? "fs-denied" :
		e->kind == DENIAL_SOCKET ? "socket-denied" :
					   "hidden-read");
	event_str(&ev, "path", e->what);
	if (e->kind != DENIAL_SOCKET)
		event_str(&ev, "call", e->call);
	if (e->option != NULL) {
		cleanup_buf struct buf opt = { 0 };

		add_option(&opt, e);
		event_str(&ev, "allow", opt.s);
	}
	event_emit_nowait(&ev);
}

/*
 * Record a denial of KIND: WHAT (a path, or HOST:PORT), CALL (the system
 * call, or the proxy's reason), G the option that would allow it (or
 * NULL).  A repeat is only counted.
 */
void
denial_report(enum denial_kind kind, const char *what, const char *call,
    const struct denial_grant *g)
{
	struct denial_grant none = { 0 };
	struct entry e, *kept = NULL;
	cleanup_free char *line = NULL;
	size_t hash = util_text_hash(what);
	bool more = false, said;

	if (g == NULL)
		g = &none;
	pthread_mutex_lock(&st.lock);
	/* Past the end of the run (a proxy thread finishing late): the
	 * summary and --learn read what is kept without the lock. */
	if (st.closed) {
		pthread_mutex_unlock(&st.lock);
		return;
	}
	st.total++;
	if (kind == DENIAL_UNRESOLVED || kind == DENIAL_UNREACHED ||
	    kind == DENIAL_UPSTREAM)
		st.failed++;
	for (size_t i = 0; i < st.n; i++)
		if (st.e[i].hash == hash && st.e[i].kind == kind &&
		    strcmp(st.e[i].what, what) == 0) {
			pthread_mutex_unlock(&st.lock);
			return;
		}
	st.distinct++;
	said = lines_left_locked();
	/* Past what is kept, said and sent, a refusal is only counted. */
	if (!wanted_locked()) {
		pthread_mutex_unlock(&st.lock);
		return;
	}
	e = (struct entry){ kind, hash, xstrdup(what), xstrdup(call),
		dup_or_null(g->option), dup_or_null(g->value),
		dup_or_null(g->setenv), dup_or_null(g->note), g->wide };
	if (st.n < DENIAL_KEEP)
		kept = &st.e[st.n++];
	if (said) {
		line = render_line(&e);
		more = ++st.lines == DENIAL_LINES;
	}
	emit_event(&e);
	if (kept != NULL) {
		*kept = e;
	} else {
		free(e.what);
		free(e.call);
		free(e.option);
		free(e.value);
		free(e.setenv);
		free(e.note);
	}
	pthread_mutex_unlock(&st.lock);
	if (line != NULL)
		say(line);
	if (more) {
		static const char msg[] =
		    "sbox-exec: more refusals are not shown one by one; the summary at the end counts them\n";

		say(msg);
	}
}

/* Whether a new refusal would be more than counted: kept for the summary
 * and --learn, given a line, or sent as an event; a refusal past all
 * three needs no grant worked out for it. */
bool
denial_wanted(void)
{
	bool wanted;

	pthread_mutex_lock(&st.lock);
	wanted = wanted_locked();
	pthread_mutex_unlock(&st.lock);
	return wanted;
}

/* Whether a new refusal would still get a line of its own on stderr. */
bool
denial_lines_left(void)
{
	bool left;

	pthread_mutex_lock(&st.lock);
	left = lines_left_locked();
	pthread_mutex_unlock(&st.lock);
	return left;
}

/* An --allow-host value for HOST (a name or an address) and PORT: the
 * host alone for 80 and 443, which an entry without a port allows. */
static char *
host_value(const char *host, int port)
{
	return port == 80 || port == 443 ?
	    xstrdup(host) :
	    xasprintf(strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}

/*
 * The proxy's word on HOST, port PORT: REFUSED by the allow-list (WHY its
 * reason), or allowed but not resolved or not reached (WHY says which).
 * OWN_NAME: refused as a name of this host on the way to an upstream
 * proxy, which no address entry allows.  ADDR: the address HOST resolved
 * to that was refused, or "".
 */
void
denial_net(const char *host, int port, bool refused, bool own_name,
    const char *why, const char *addr)
{
	struct denial_grant g = { 0 };
	cleanup_free char *what = xasprintf("%s:%d", host, port);
	cleanup_free char *value = NULL;
	enum denial_kind kind = DENIAL_HOST;

	if (!refused && strncmp(why, "the upstream proxy ", 19) == 0) {
		kind = DENIAL_UPSTREAM;
		g.note =
		    "nothing to allow: see the upstream proxy and its credentials (--upstream-proxy)";
	} else if (!refused) {
		kind = strncmp(why, "cannot resolve", 14) == 0 ?
		    DENIAL_UNRESOLVED :
		    DENIAL_UNREACHED;
		g.note =
		    "nothing to allow: see that the name and the port are right";
	} else if (strcmp(why, "not in allow-list") == 0 ||
	    strcmp(why, "port not in allow-list") == 0 ||
	    strcmp(why, NETPROXY_OFF) == 0) {
		value = host_value(host, port);
		g.option = "allow-host";
		g.value = value;
	} else if (own_name) {
		g.note =
		    "a name of this host does not go to the upstream proxy: NO_PROXY and an address entry (--allow-host=ADDRESS) would connect it directly";
	} else if (strcmp(why,
		       "resolves to an address denied by --deny-host") == 0) {
		g.note = "not allowed by any option";
	} else if (strncmp(why, "resolves to", 11) == 0 && addr != NULL &&
	    addr[0] != '\0') {
		/* Said, never learned: an address entry lets every name
		 * that leads there through, whatever listens there. */
		value = host_value(addr, port);
		g.option = "allow-host";
		g.value = value;
		g.note =
		    "an address entry, for the address the name resolves to here; --learn leaves it out";
		g.wide = true;
	} else if (strncmp(why, "resolves to", 11) == 0) {
		g.note =
		    "an address entry (--allow-host=ADDRESS) would allow it";
	} else {
		g.note = "not allowed by any option";
	}
	denial_report(kind, what, why, &g);
}

/* The run ended: no more reports are taken, so that the summary and
 * --learn read a list nothing changes any more. */
void
denial_close(void)
{
	pthread_mutex_lock(&st.lock);
	st.closed = true;
	pthread_mutex_unlock(&st.lock);
}

/* The command ended: no more lines on stderr (the summary follows). */
void
denial_quiet(void)
{
	pthread_mutex_lock(&st.lock);
	st.quiet = true;
	pthread_mutex_unlock(&st.lock);
}

size_t
denial_count(void)
{
	return st.total;
}

static bool offerable(const struct entry *);

/* Whether VALUE, a path grant's, lies within the path grant WORD
 * ("--rw=DIR" or "--rw-create=DIR"), which serves it then. */
static bool
within_grant(const char *word, const char *value)
{
	const char *dir = NULL;

	if (strncmp(word, "--rw=", 5) == 0)
		dir = word + 5;
	else if (strncmp(word, "--rw-create=", 12) == 0)
		dir = word + 12;
	return dir != NULL && dir[0] == '/' && util_path_within(value, dir);
}

static bool
path_grant(const struct entry *e)
{
	return strcmp(e->option, "rw") == 0 ||
	    strcmp(e->option, "rw-create") == 0;
}

static bool
has_word(const struct strv *v, const char *w)
{
	for (size_t i = 0; v != NULL && i < v->n; i++)
		if (strcmp(v->v[i], w) == 0)
			return true;
	return false;
}

/*
 * Whether kept entry I's grant is said already: by an earlier entry, by
 * the command line (GIVEN: its options as --NAME=VALUE), or, for a path,
 * by a grant that holds it (one of another entry, or of the command
 * line), so that each option is said once.
 */
static bool
grant_said(size_t i, const struct strv *given)
{
	const struct entry *e = &st.e[i];
	cleanup_free char *word = xasprintf("--%s=%s", e->option, e->value);

	if (has_word(given, word))
		return true;
	for (size_t j = 0; path_grant(e) && given != NULL && j < given->n; j++)
		if (within_grant(given->v[j], e->value))
			return true;
	for (size_t j = 0; j < st.n; j++) {
		const struct entry *o = &st.e[j];
		bool same;

		if (j == i || !offerable(o))
			continue;
		same = strcmp(o->option, e->option) == 0 &&
		    strcmp(o->value, e->value) == 0;
		if (same && j < i)
			return true;
		if (!same && path_grant(e) && path_grant(o) &&
		    util_path_within(e->value, o->value) &&
		    (strcmp(e->value, o->value) != 0 || j < i))
			return true;
	}
	return false;
}

/* Whether kept entry I's --setenv is said already, by an earlier entry
 * or by the command line (GIVEN), or cannot be said; true when it has
 * none. */
static bool
setenv_said(size_t i, const struct strv *given)
{
	const struct entry *e = &st.e[i];
	cleanup_free char *name = NULL, *value = NULL, *word = NULL;

	if (!setenv_words(e, &name, &value))
		return true;
	word = xasprintf("--setenv=%s %s", name, value);
	if (has_word(given, word))
		return true;
	for (size_t j = 0; j < i; j++)
		if (offerable(&st.e[j]) && st.e[j].setenv != NULL &&
		    strcmp(st.e[j].setenv, e->setenv) == 0)
			return true;
	return false;
}

/*
 * One shell word, quoted where it needs to be, into B: in single quotes,
 * or, holding a control character (which a line of stderr cannot show),
 * in the $'...' form of bash, zsh, ksh and POSIX.1-2024.
 */
static void
add_word(struct buf *b, const char *w)
{
	bool control = false;

	for (const char *p = w; *p != '\0'; p++)
		control = control || (unsigned char)*p < 0x20 || *p == 0x7f;
	if (w[0] != '\0' &&
	    strspn(w,
		"abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"0123456789-_./=:@,+%") == strlen(w)) {
		buf_adds(b, w);
		return;
	}
	buf_adds(b, control ? "$'" : "'");
	for (const char *p = w; *p != '\0'; p++)
		if (*p == '\'')
			buf_adds(b, control ? "\\'" : "'\\''");
		else if (control && *p == '\\')
			buf_adds(b, "\\\\");
		else if (control && ((unsigned char)*p < 0x20 || *p == 0x7f))
			buf_addf(b, "\\x%02x", (unsigned)(unsigned char)*p);
		else
			buf_addc(b, *p);
	buf_addc(b, '\'');
}

/* The options that would allow the kept denials, each once and none the
 * command line GIVEN has, as shell words into B; how many. */
static size_t
add_grants(struct buf *b, const struct strv *given)
{
	size_t grants = 0;

	for (size_t i = 0; i < st.n; i++) {
		bool option, env;

		if (!offerable(&st.e[i]))
			continue;
		option = !grant_said(i, given);
		env = !setenv_said(i, given);
		if (!option && !env)
			continue;
		buf_addc(b, ' ');
		add_grant_words(b, &st.e[i], option, env);
		grants++;
	}
	return grants;
}

#define SUMMARY_NAMES 5

/*
 * After the command's own output: how many denials, the first few, and a
 * command line that runs the command again with the options that would
 * have allowed them: SELF (sbox-exec as it was called), the options that
 * would allow them, each once and none GIVEN already (the command line's
 * options as --NAME=VALUE), AGAIN (the command line's option words but
 * those that only run the launcher) and COMMAND whole, each word quoted
 * for a shell.  Nothing when there were none or with -q.
 */
void
denial_summary(const char *self, const struct strv *again,
    const struct strv *given, char **command)
{
	cleanup_buf struct buf b = { 0 }, cmd = { 0 }, safe = { 0 };
	size_t grants;

	if (st.total == 0 || st.verbosity < 0)
		return;
	if (st.failed == 0)
		buf_addf(&b, "%zu refused", st.total);
	else if (st.failed == st.total)
		buf_addf(&b, "%zu failed", st.total);
	else
		buf_addf(&b, "%zu refused, %zu failed", st.total - st.failed,
		    st.failed);
	buf_addf(&b, " (%zu distinct):", st.distinct);
	for (size_t i = 0; i < st.n && i < SUMMARY_NAMES; i++)
		buf_addf(&b, "%s %s %s", i ? "," : "", kind_word(st.e[i].kind),
		    st.e[i].what);
	if (st.distinct > SUMMARY_NAMES)
		buf_adds(&b, ", ...");
	add_word(&cmd, self != NULL ? self : "sbox-exec");
	grants = add_grants(&cmd, given);
	for (size_t i = 0; again != NULL && i < again->n; i++) {
		buf_addc(&cmd, ' ');
		add_word(&cmd, again->v[i]);
	}
	buf_adds(&cmd, " --");
	for (size_t i = 0; command != NULL && command[i] != NULL; i++) {
		buf_addc(&cmd, ' ');
		add_word(&cmd, command[i]);
	}
	if (grants > 0)
		buf_addf(&b, "; to allow what an option can: %s", cmd.s);
	else
		buf_adds(&b, "; no option is suggested for these");
	buf_adds(&safe, "sbox-exec: ");
	util_line_safe(&safe, b.s, b.len);
	buf_addc(&safe, '\n');
	(void)!write(STDERR_FILENO, safe.s, safe.len);
}

/* Whether the policy-file line "--OPTION VALUE" (or "--OPTION=VALUE") is
 * in TEXT already. */
static bool
has_line(const char *text, const char *option, const char *value)
{
	size_t olen = strlen(option), vlen = strlen(value);

	for (const char *l = text; l != NULL && *l != '\0';) {
		const char *end = strchr(l, '\n'), *p = l;
		size_t len;

		if (end == NULL)
			end = l + strlen(l);
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "--", 2) == 0 &&
		    strncmp(p + 2, option, olen) == 0 &&
		    (p[2 + olen] == '=' || p[2 + olen] == ' ' ||
			p[2 + olen] == '\t')) {
			p += 3 + olen;
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			len = (size_t)(end - p);
			while (len > 0 &&
			    (p[len - 1] == ' ' || p[len - 1] == '\t' ||
				p[len - 1] == '\r'))
				len--;
			if (len == vlen && strncmp(p, value, vlen) == 0)
				return true;
		}
		l = *end != '\0' ? end + 1 : NULL;
	}
	return false;
}

/* Whether VALUE can stand in a policy file as it is (POLICY FILES in
 * sbox-exec(1)): no ${ to expand, no line break, no blank at an end. */
static bool
writable_value(const char *v)
{
	size_t len = strlen(v);

	return len > 0 && strstr(v, "${") == NULL &&
	    strpbrk(v, "\n\r") == NULL && v[0] != ' ' && v[0] != '\t' &&
	    v[len - 1] != ' ' && v[len - 1] != '\t';
}

/* Whether a path grant of VALUE must not be written: too wide, or a
 * place of the never-learned list (the watch thread said so already;
 * this is the last look before the file). */
static bool
too_wide(const char *value)
{
	bool unread;
	const struct nolearn_entry *e;

	if (value[0] != '/' || denial_too_wide(value) != NULL ||
	    denial_walked_up(value))
		return true;
	e = denial_never(value, &unread);
	return unread || (e != NULL && e->kind == NOLEARN_RUNS) ||
	    (e != NULL && e->kind == NOLEARN_CACHE);
}

/* Whether the grant of E may be offered on a command line: never a
 * wide one, a socket's, or a path grant too wide or never learned. */
static bool
offerable(const struct entry *e)
{
	return e->option != NULL && !e->wide &&
	    strcmp(e->option, "allow-socket") != 0 &&
	    !(path_grant(e) && too_wide(e->value));
}

/* Whether the grant of E may be written by --learn: one a command line
 * may offer, that a policy file can say. */
static bool
learnable(const struct entry *e)
{
	return offerable(e) && writable_value(e->value);
}

/* The lines --learn adds for kept entry E to OUT, given the file's TEXT
 * (and what OUT holds already). */
static void
learn_entry(struct buf *out, const char *text, const struct entry *e)
{
	cleanup_buf struct buf comment = { 0 }, safe = { 0 };
	bool grant = learnable(e);

	if (grant &&
	    (has_line(text, e->option, e->value) ||
		has_line(out->s, e->option, e->value)))
		return;
	buf_addf(&comment, "# %s %s (%s)", kind_word(e->kind), e->what,
	    e->call);
	if (e->note != NULL)
		buf_addf(&comment, ": %s", e->note);
	if (e->option != NULL && !grant && !e->wide)
		buf_addf(&comment, "; --%s=%s is not written here: %s",
		    e->option, e->value,
		    writable_value(e->value) ? "too wide" :
					       "a policy file cannot say it");
	util_line_safe(&safe, comment.s, comment.len);
	if (strstr(text, safe.s) != NULL ||
	    (out->s != NULL && strstr(out->s, safe.s) != NULL))
		return;
	buf_addf(out, "%s\n", safe.s);
	if (!grant)
		return;
	buf_addf(out, "--%s %s\n", e->option, e->value);
	if (e->setenv != NULL)
		buf_addf(out, "--setenv %s\n", e->setenv);
}

#define LEARN_MAX (1 << 20)

static int
write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The text of the policy file PATH, or "" when it does not exist; NULL
 * (errno set) when it cannot be read or is not a regular file. */
char *
denial_learn_read(const char *path)
{
	cleanup_buf struct buf b = { 0 };
	struct stat st_;
	char chunk[4096];
	ssize_t n;
	int fd = util_open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0);

	if (fd < 0)
		return errno == ENOENT ? xstrdup("") : NULL;
	if (fstat(fd, &st_) < 0 || !S_ISREG(st_.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	buf_adds(&b, "");
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 &&
	    b.len + (size_t)n <= LEARN_MAX)
		buf_add(&b, chunk, (size_t)n);
	close(fd);
	if (n != 0) {
		errno = n < 0 ? errno : EFBIG;
		return NULL;
	}
	return buf_steal(&b);
}

/* The mark a learner leaves on the file it wrote: the SHA-256 of its
 * text, in an extended attribute, which nothing inside a sandbox that
 * read the file can set (it is read-only there). */
#define LEARN_MARK "user.sbox-exec.learned"

static void
learn_digest(const char *a, size_t alen, const char *b, size_t blen,
    char out[2 * CACHE_SHA256_LEN + 1])
{
	cleanup_free char *all = xmalloc(alen + blen + 1);
	uint8_t d[CACHE_SHA256_LEN];

	memcpy(all, a, alen);
	memcpy(all + alen, b, blen);
	cache_sha256(all, alen + blen, d);
	for (size_t i = 0; i < CACHE_SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* Whether TEXT, the file PATH's, is as a learner left it. */
static bool
learner_wrote(const char *path, const char *text)
{
	char want[2 * CACHE_SHA256_LEN + 1], mark[2 * CACHE_SHA256_LEN + 1];
	ssize_t n = getxattr(path, LEARN_MARK, mark, sizeof(mark) - 1);

	if (n != 2 * CACHE_SHA256_LEN)
		return false;
	mark[n] = '\0';
	learn_digest(text, strlen(text), "", 0, want);
	return strcmp(want, mark) == 0;
}

/*
 * TEXT with ADD after it, into a new file beside PATH that takes PATH's
 * mode and owner (ST), renamed over PATH.  Every signal that could end
 * the launcher waits meanwhile, so that no temporary file is left behind
 * but by SIGKILL.  0, or -1 with errno set.
 */
static int
replace_file(const char *path, const struct stat *st_, const char *text,
    const struct buf *add)
{
	cleanup_free char *tmp = xasprintf("%s.XXXXXX", path);
	size_t len = strlen(text);
	bool newline = len > 0 && text[len - 1] != '\n';
	char mark[2 * CACHE_SHA256_LEN + 1];
	sigset_t all, old;
	int fd, rc = -1, saved;

	{
		cleanup_buf struct buf whole = { 0 };

		buf_adds(&whole, text);
		if (newline)
			buf_addc(&whole, '\n');
		learn_digest(whole.s, whole.len, add->s, add->len, mark);
	}

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	fd = mkstemp(tmp);
	if (fd >= 0) {
		bool written = fchmod(fd, st_->st_mode & 07777) == 0 &&
		    (geteuid() != 0 ||
			fchown(fd, st_->st_uid, st_->st_gid) == 0) &&
		    write_all(fd, text, len) == 0 &&
		    (!newline || write_all(fd, "\n", 1) == 0) &&
		    write_all(fd, add->s, add->len) == 0;

		/* Where the file system keeps no such attribute, a learner
		 * that ends later says that it cannot merge. */
		if (written)
			(void)fsetxattr(fd, LEARN_MARK, mark, strlen(mark), 0);
		if (written && fsync(fd) == 0 && close(steal_fd(&fd)) == 0 &&
		    rename(tmp, path) == 0)
			rc = 0;
		saved = errno;
		if (fd >= 0)
			close(fd);
		if (rc < 0)
			(void)unlink(tmp);
		errno = saved;
	}
	saved = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return rc;
}

/*
 * PATH opened and locked, as the file the name leads to now: a learner
 * that held the lock may have renamed a new file over the one this
 * waited on, so the lock is taken again on that one.  For NFS, whose
 * locks want a descriptor open for writing, read-write when it may be.
 * The descriptor, or -1 with errno set.
 */
static int
lock_learned(const char *path)
{
	for (int tries = 0; tries < 100; tries++) {
		struct stat a, b;
		int fd = util_open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK, 0);

		if (fd < 0 && errno == EACCES)
			fd = util_open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK,
			    0);
		if (fd < 0)
			return -1;
		if (flock(fd, LOCK_EX) < 0 || fstat(fd, &a) < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		if (lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			return fd;
		close(fd);
	}
	errno = EAGAIN;
	return -1;
}

/*
 * --learn=PATH: the grants the kept denials ask for, added to the policy
 * file PATH with a comment each.  BASE is PATH's text when the run began
 * (main.c made PATH then, and the sandbox could not write it): another
 * learner may have added to it since, and that is merged with, but a
 * file whose text no longer starts with BASE was changed otherwise
 * during the run and is left as it is.  Learners of one directory take
 * turns, under a lock on it; the file is written whole beside PATH and
 * renamed over it, keeping its mode and owner.  0, or -1 with *WHY set.
 */
int
denial_learn(const char *path, const char *base, char **why)
{
	cleanup_free char *text = NULL;
	cleanup_buf struct buf add = { 0 };
	cleanup_fd int fd = lock_learned(path);
	struct stat st_;

	if (fd < 0 || fstat(fd, &st_) < 0 || !S_ISREG(st_.st_mode) ||
	    st_.st_nlink != 1) {
		*why = fd < 0 && errno != ENOENT && errno != ELOOP ?
		    xasprintf("cannot lock %s: %s", path, strerror(errno)) :
		    xasprintf(
			"%s was removed, replaced or linked to during the run: nothing learned is written",
			path);
		return -1;
	}
	text = denial_learn_read(path);
	if (text == NULL) {
		*why = xasprintf("cannot read %s: %s", path,
		    errno == EINVAL ? "not a regular file" : strerror(errno));
		return -1;
	}
	/* Changed since launch: only another learner's additions, which
	 * it marked, are merged with. */
	if (strcmp(text, base) != 0 &&
	    (strncmp(text, base, strlen(base)) != 0 ||
		!learner_wrote(path, text))) {
		*why = xasprintf(
		    "%s was changed during the run by something other than sbox-exec --learn: it is left as it is, and nothing learned is written",
		    path);
		return -1;
	}
	buf_adds(&add, "");
	if (text[0] == '\0')
		buf_adds(&add,
		    "# Written by sbox-exec --learn: each grant below is one that a refusal\n"
		    "# asked for, under a comment naming it.  Read it before you use it.\n");
	for (size_t i = 0; i < st.n; i++)
		learn_entry(&add, text, &st.e[i]);
	if (text[0] != '\0' && add.len == 0)
		return 0;
	if (st.n == 0 && text[0] == '\0')
		return 0;
	if (replace_file(path, &st_, text, &add) < 0) {
		*why = xasprintf("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Forget everything (for the unit tests). */
void
denial_reset(void)
{
	for (size_t i = 0; i < st.n; i++) {
		free(st.e[i].what);
		free(st.e[i].call);
		free(st.e[i].option);
		free(st.e[i].value);
		free(st.e[i].setenv);
		free(st.e[i].note);
	}
	st.n = st.total = st.failed = st.distinct = st.lines = 0;
	st.quiet = false;
	st.never_real = false;
	st.cache = NULL;
	for (size_t i = 0; i < N_ELEMENTS(st.homes); i++) {
		free(st.homes[i]);
		st.homes[i] = NULL;
	}
	free(st.project);
	st.project = NULL;
	st.closed = false;
}
