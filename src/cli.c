/*
 * cli.c - getopt_long over argv, and the same options read from policy
 * files (--policy, --profile), into a struct invocation.
 *
 * Paths are resolved against the host here, once: what the policy holds is
 * what bwrap will be told.  MUST NOT exit or print; the first problem is
 * recorded and parsing continues so that status channels are still known.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "grant.h"
#include "protect.h"
#include "util.h"

#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/sbox-exec"
#endif

#define MAX_INCLUDE_DEPTH 16
#define MAX_POLICY_BYTES (1 << 20)
#define MAX_KEEP_FDS 1000    /* stage two takes them as one argument */
#define MAX_POLICY_FILES 256 /* includes, counted over the whole parse */
#define N_ANCHORS 3

enum opt_id {
	OPT_FS = 256,
	OPT_RW = 'w',
	OPT_RO = 'r',
	OPT_HIDE = 257,
	OPT_RO_TRY,
	OPT_RW_TRY,
	OPT_ALLOW_SOCKET,
	OPT_NET,
	OPT_NO_NET,
	OPT_CHDIR = 'C',
	OPT_SETENV = 270,
	OPT_UNSETENV,
	OPT_CLEARENV,
	OPT_KEEP_FD,
	OPT_TTY,
	OPT_BWRAP,
	OPT_STATUS_FD,
	OPT_STATUS_SOCKET,
	OPT_PROBE_TIMEOUT,
	OPT_POLICY,
	OPT_PROFILE,
	OPT_JSON,
	OPT_CHECK,
	OPT_PRINT,
	OPT_ALLOW_SETUID_FILES,
	OPT_QUIET = 'q',
	OPT_VERBOSE = 'v',
	OPT_HELP = 'h',
	OPT_VERSION = 'V',
};

static const struct option long_options[] = {
	{ "fs", required_argument, NULL, OPT_FS },
	{ "rw", required_argument, NULL, OPT_RW },
	{ "ro", required_argument, NULL, OPT_RO },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "ro-try", required_argument, NULL, OPT_RO_TRY },
	{ "rw-try", required_argument, NULL, OPT_RW_TRY },
	{ "allow-socket", required_argument, NULL, OPT_ALLOW_SOCKET },
	{ "net", no_argument, NULL, OPT_NET },
	{ "no-net", no_argument, NULL, OPT_NO_NET },
	{ "chdir", required_argument, NULL, OPT_CHDIR },
	{ "setenv", required_argument, NULL, OPT_SETENV },
	{ "unsetenv", required_argument, NULL, OPT_UNSETENV },
	{ "clearenv", no_argument, NULL, OPT_CLEARENV },
	{ "keep-fd", required_argument, NULL, OPT_KEEP_FD },
	{ "tty", no_argument, NULL, OPT_TTY },
	{ "bwrap", required_argument, NULL, OPT_BWRAP },
	{ "status-fd", required_argument, NULL, OPT_STATUS_FD },
	{ "status-socket", required_argument, NULL, OPT_STATUS_SOCKET },
	{ "probe-timeout", required_argument, NULL, OPT_PROBE_TIMEOUT },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "print", no_argument, NULL, OPT_PRINT },
	{ "allow-setuid-files", no_argument, NULL, OPT_ALLOW_SETUID_FILES },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* Leading '+': stop at the command.  Leading ':': we word the errors. */
static const char short_options[] = "+:w:r:C:qvhV";

/* Where the option being applied came from, for messages. */
struct origin {
	const char *file; /* NULL: the command line */
	unsigned long line;
};

struct include {
	dev_t dev;
	ino_t ino;
};

struct parser {
	struct invocation *inv;
	struct include stack[MAX_INCLUDE_DEPTH];
	size_t depth;
	int nfiles;
	bool mode_set;
	char *anchors[3]; /* for grants from files: cwd and both homes */
	bool anchors_set;
};

static char *passwd_home(uid_t);

static int apply_option(struct parser *, int, const char *, const char *,
    const struct origin *);

/* Record the first problem only; later ones are usually its echoes. */
static void SBOX_PRINTF(3, 4)
    fail(struct parser *ps, const struct origin *o, const char *fmt, ...)
{
	cleanup_free char *msg = NULL;
	va_list ap;

	if (ps->inv->err.detail != NULL)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (o != NULL && o->file != NULL)
		sbox_error_set(&ps->inv->err, SBOX_INVALID_POLICY, "%s:%lu: %s",
		    o->file, o->line, msg ? msg : "?");
	else
		sbox_error_set(&ps->inv->err, SBOX_INVALID_POLICY, "%s",
		    msg ? msg : "?");
}

static const char *
opt_name(int id)
{
	for (const struct option *o = long_options; o->name != NULL; o++)
		if (o->val == id)
			return o->name;
	return "?";
}

/* Options that describe the invocation, not the sandbox: argv only. */
static bool
opt_argv_only(int id)
{
	switch (id) {
	case OPT_BWRAP:
	case OPT_STATUS_FD:
	case OPT_STATUS_SOCKET:
	case OPT_JSON:
	case OPT_CHECK:
	case OPT_PRINT:
	case OPT_ALLOW_SETUID_FILES: /* a file must not weaken it unseen */
	case OPT_QUIET:
	case OPT_VERBOSE:
	case OPT_HELP:
	case OPT_VERSION:
		return true;
	default:
		return false;
	}
}

static void
set_mode(struct parser *ps, enum cli_mode mode, const struct origin *o)
{
	struct invocation *inv = ps->inv;

	/*
	 * --help and --version act where they stand, as in GNU tools: a
	 * usage error before them is reported, nothing after them counts.
	 */
	if (inv->mode == MODE_HELP || inv->mode == MODE_VERSION)
		return;
	if (mode == MODE_HELP || mode == MODE_VERSION) {
		if (inv->err.detail == NULL)
			inv->mode = mode;
		return;
	}
	if (ps->mode_set && inv->mode != mode) {
		fail(ps, o, "--check and --print cannot be combined");
		return;
	}
	inv->mode = mode;
	ps->mode_set = true;
}

/* Where a grant from a policy file may not pass a symlink: below the
 * working directory and below either home directory. */
static const char *const *
grant_anchors(struct parser *ps)
{
	if (!ps->anchors_set) {
		const char *home = getenv("HOME");
		cleanup_free char *pw = passwd_home(getuid());

		ps->anchors[0] = xstrdup(ps->inv->policy.cwd);
		if (home != NULL && home[0] == '/')
			ps->anchors[1] = util_path_absolute(home, "/");
		if (pw != NULL && pw[0] == '/')
			ps->anchors[2] = util_path_absolute(pw, "/");
		ps->anchors_set = true;
	}
	return (const char *const *)ps->anchors;
}

/*
 * The host path a grant names: as the shell would resolve it when typed,
 * without passing a planted symlink when it came from a policy file.
 * NULL when there is nothing to grant (a -try skipped, or an error
 * recorded).
 */
static char *
grant_source(struct parser *ps, int id, const char *value, const char *abs,
    const struct origin *o)
{
	bool try = id == OPT_RO_TRY || id == OPT_RW_TRY;
	char *src = NULL;

	if (o->file == NULL || id == OPT_HIDE) {
		src = realpath(value, NULL);
		/* Nothing to hide where nothing is. */
		if (src == NULL && !try && !(id == OPT_HIDE && errno == ENOENT))
			fail(ps, o, "--%s: %s: %s", opt_name(id), value,
			    strerror(errno));
		return src;
	}
	switch (grant_resolve(abs, grant_anchors(ps), N_ANCHORS, &src)) {
	case GRANT_OK:
		return src;
	case GRANT_LINK:
		if (!try)
			fail(ps, o,
			    "--%s: %s passes through a symlink, which a grant "
			    "from a policy file does not follow; name the "
			    "place it leads to on the command line",
			    opt_name(id), value);
		break;
	case GRANT_MISSING:
	case GRANT_ERROR:
		if (!try)
			fail(ps, o, "--%s: %s: %s", opt_name(id), value,
			    strerror(errno));
		break;
	}
	free(src);
	return NULL;
}

/* --ro, --rw, --hide, the -try forms and --allow-socket. */
static void
add_path(struct parser *ps, int id, const char *value, const struct origin *o)
{
	struct policy *p = &ps->inv->policy;
	cleanup_free char *dest = NULL, *src = NULL;
	struct mount *m;
	struct stat st;

	if (value[0] == '\0') {
		fail(ps, o, "--%s: empty path", opt_name(id));
		return;
	}
	/*
	 * The mount goes where the links lead: bwrap cannot create a mount
	 * point below a symlink, and the path as given still leads there
	 * through the same links, which the sandbox shows too.
	 */
	dest = util_path_absolute(value, p->cwd);
	src = grant_source(ps, id, value, dest, o);
	if (src == NULL)
		return;
	if (stat(src, &st) < 0) {
		fail(ps, o, "--%s: %s: %s", opt_name(id), value,
		    strerror(errno));
		return;
	}
	if (id == OPT_ALLOW_SOCKET && !S_ISSOCK(st.st_mode)) {
		fail(ps, o, "--allow-socket: %s: not a unix socket", value);
		return;
	}
	switch (id) {
	case OPT_RW:
	case OPT_RW_TRY:
		m = policy_add_mount(p, MOUNT_RW, src, src);
		break;
	case OPT_RO:
	case OPT_RO_TRY:
	case OPT_ALLOW_SOCKET:
		m = policy_add_mount(p, MOUNT_RO, src, src);
		break;
	default:
		m = policy_add_mount(p,
		    S_ISDIR(st.st_mode) ? MOUNT_HIDE_DIR : MOUNT_HIDE_FILE, src,
		    NULL);
		break;
	}
	m->from_file = o->file != NULL;
	if (strcmp(dest, src) != 0)
		m->given = steal_pointer(&dest);
}

static bool
valid_env_name(const char *name)
{
	return name[0] != '\0' && strchr(name, '=') == NULL;
}

static void
add_fd_option(struct parser *ps, int id, const char *value,
    const struct origin *o)
{
	struct invocation *inv = ps->inv;
	int fd;

	if (util_parse_fd(value, &fd) < 0) {
		fail(ps, o, "--%s: '%s' is not a descriptor number",
		    opt_name(id), value);
		return;
	}
	if (fcntl(fd, F_GETFD) < 0) {
		fail(ps, o, "--%s=%d: descriptor is not open", opt_name(id),
		    fd);
		return;
	}
	if (id == OPT_KEEP_FD) {
		if (inv->policy.nkeep >= MAX_KEEP_FDS)
			fail(ps, o, "--keep-fd: at most %d descriptors",
			    MAX_KEEP_FDS);
		else
			policy_add_keep_fd(&inv->policy, fd);
		return;
	}
	for (size_t i = 0; i < inv->nstatus_fds; i++)
		if (inv->status_fds[i] == fd)
			return;
	inv->status_fds = xreallocarray(inv->status_fds, inv->nstatus_fds + 1,
	    sizeof(int));
	inv->status_fds[inv->nstatus_fds++] = fd;
}

/* Decimal digits, with at most one '.' and digits after it: what
 * strtod() takes besides (hexadecimal, exponents, "inf", blanks) is not
 * a duration. */
static bool
plain_decimal(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (s[n] == '.') {
		s += n + 1;
		n = strspn(s, "0123456789");
	}
	return n > 0 && s[n] == '\0';
}

static void
set_timeout(struct parser *ps, const char *value, const struct origin *o)
{
	char *end;
	double secs;

	errno = 0;
	secs = strtod(value, &end);
	if (!plain_decimal(value) || *end != '\0' || errno != 0 ||
	    !isfinite(secs) || secs <= 0 || secs > 86400) {
		fail(ps, o,
		    "--probe-timeout: '%s' is not a number of seconds "
		    "between 0 and 86400",
		    value);
		return;
	}
	ps->inv->probe_timeout_ms = (long)ceil(secs * 1000);
}

/*
 * Expand ${NAME} and ${CWD} in IN.  Returns 0, or -1 for a syntax error,
 * or -2 for an unset variable (its name in *missing).
 */
static int
expand(const char *in, const char *cwd, char **out, char **missing)
{
	struct buf b = { 0 };

	*missing = NULL;
	buf_adds(&b, "");
	for (const char *p = in; *p != '\0'; p++) {
		const char *end, *val;
		cleanup_free char *name = NULL;

		if (p[0] != '$' || p[1] != '{') {
			buf_addc(&b, *p);
			continue;
		}
		end = strchr(p + 2, '}');
		if (end == NULL || end == p + 2) {
			buf_clear(&b);
			return -1;
		}
		name = xstrndup(p + 2, (size_t)(end - p - 2));
		val = strcmp(name, "CWD") == 0 ? cwd : getenv(name);
		if (val == NULL) {
			buf_clear(&b);
			*missing = steal_pointer(&name);
			return -2;
		}
		buf_adds(&b, val);
		p = end;
	}
	*out = buf_steal(&b);
	return 0;
}

static int
option_lookup(const char *word, int *has_arg)
{
	if (word[0] == '-' && word[1] == '-') {
		for (const struct option *o = long_options; o->name; o++)
			if (strcmp(o->name, word + 2) == 0) {
				*has_arg = o->has_arg;
				return o->val;
			}
		return -1;
	}
	if (word[0] == '-' && word[1] != '\0' && word[2] == '\0' &&
	    word[1] != ':' && word[1] != '+') {
		const char *s = strchr(short_options, word[1]);

		if (s == NULL)
			return -1;
		*has_arg = s[1] == ':' ? required_argument : no_argument;
		return (unsigned char)word[1];
	}
	return -1;
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* One line of a policy file, as SPEC words it. */
static void
parse_line(struct parser *ps, char *line, const struct origin *o)
{
	cleanup_free char *word = NULL, *value = NULL, *name = NULL;
	cleanup_free char *missing = NULL;
	char *p = line, *end;
	int id, has_arg = 0, r;

	while (is_blank(*p))
		p++;
	if (*p == '\0' || *p == '#')
		return;
	end = p;
	while (*end != '\0' && *end != '=' && !is_blank(*end))
		end++;
	word = xstrndup(p, (size_t)(end - p));
	if (*end == '=')
		end++;
	else
		while (is_blank(*end))
			end++;
	p = end;
	end = p + strlen(p);
	while (end > p && is_blank(end[-1]))
		*--end = '\0';

	id = option_lookup(word, &has_arg);
	if (id < 0) {
		fail(ps, o, "'%s' is not an option", word);
		return;
	}
	if (opt_argv_only(id)) {
		fail(ps, o,
		    "%s belongs on the command line, not in a policy "
		    "file",
		    word);
		return;
	}
	if (has_arg == no_argument) {
		if (*p != '\0')
			fail(ps, o, "%s takes no value", word);
		else
			(void)apply_option(ps, id, NULL, NULL, o);
		return;
	}
	if (*p == '\0') {
		fail(ps, o, "%s needs a value", word);
		return;
	}
	if (id == OPT_SETENV) {
		char *sep = p;

		while (*sep != '\0' && !is_blank(*sep))
			sep++;
		name = xstrndup(p, (size_t)(sep - p));
		while (is_blank(*sep))
			sep++;
		r = expand(sep, ps->inv->policy.cwd, &value, &missing);
	} else {
		r = expand(p, ps->inv->policy.cwd, &value, &missing);
	}
	if (r == -1) {
		fail(ps, o, "%s: malformed ${...} in '%s'", word, p);
		return;
	}
	if (r == -2) {
		if (id == OPT_RO_TRY || id == OPT_RW_TRY)
			return;
		fail(ps, o, "%s: environment variable %s is not set", word,
		    missing);
		return;
	}
	(void)apply_option(ps, id, name ? name : value, name ? value : NULL, o);
}

/*
 * Read the SIZE bytes fstat() reported, no more: a file that claims no
 * size but never ends (/proc/kmsg) reads as empty instead of hanging.
 */
static int
read_file(int fd, size_t size, char **out, size_t *lenp)
{
	char *buf = xmalloc(size + 1);
	size_t len = 0;

	while (len < size) {
		ssize_t n = read(fd, buf + len, size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*lenp = len;
	*out = buf;
	return 0;
}

/* Read a policy file; OPT names the option that brought it in. */
static void
load_policy(struct parser *ps, const char *path, const char *opt,
    const struct origin *from)
{
	cleanup_fd int fd = -1;
	cleanup_free char *text = NULL;
	struct stat st;
	size_t len, lineno = 0;
	char *line, *next;

	if (path[0] == '\0') {
		fail(ps, from, "%s: empty file name", opt);
		return;
	}
	/* O_NONBLOCK: a FIFO must not hang us before we can look at it. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fail(ps, from, "%s: %s: %s", opt, path, strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		fail(ps, from, "%s: %s: not a regular file", opt, path);
		return;
	}
	for (size_t i = 0; i < ps->depth; i++)
		if (ps->stack[i].dev == st.st_dev &&
		    ps->stack[i].ino == st.st_ino) {
			fail(ps, from, "%s: %s: includes itself", opt, path);
			return;
		}
	if (ps->depth == MAX_INCLUDE_DEPTH) {
		fail(ps, from, "%s: %s: policy files nested more than %d deep",
		    opt, path, MAX_INCLUDE_DEPTH);
		return;
	}
	if (++ps->nfiles > MAX_POLICY_FILES) {
		fail(ps, from, "%s: %s: more than %d policy files read in all",
		    opt, path, MAX_POLICY_FILES);
		return;
	}
	if (st.st_size > MAX_POLICY_BYTES) {
		fail(ps, from, "%s: %s: larger than %d bytes", opt, path,
		    MAX_POLICY_BYTES);
		return;
	}
	if (read_file(fd, (size_t)st.st_size, &text, &len) < 0) {
		fail(ps, from, "%s: %s: %s", opt, path, strerror(errno));
		return;
	}
	if (memchr(text, '\0', len) != NULL) {
		fail(ps, from, "%s: %s: not a text file", opt, path);
		return;
	}

	ps->stack[ps->depth].dev = st.st_dev;
	ps->stack[ps->depth].ino = st.st_ino;
	ps->depth++;
	for (line = text; line != NULL && *line != '\0'; line = next) {
		struct origin o = { .file = path, .line = ++lineno };

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		parse_line(ps, line, &o);
	}
	ps->depth--;
}

/*
 * A user's profile (CAND[0], taken as CAND[USED]) that has the name of a
 * shipped one replaces it: said with -v and --check, since a sandbox that
 * could write the user's directory may have put it there.
 */
static void
note_shadowing(struct parser *ps, const char *name, char *const *cand, size_t n,
    size_t used, bool has_user)
{
	if (used != 0 || !has_user)
		return;
	for (size_t i = 1; i < n; i++)
		if (access(cand[i], F_OK) == 0) {
			strv_addf(&ps->inv->notices,
			    "the user's profile %s replaces the shipped "
			    "profile '%s' (%s)",
			    cand[0], name, cand[i]);
			return;
		}
}

/*
 * --profile NAME: the user's directory, then the shipped one; then, for a
 * relocated install or a build tree, the same relative to the executable.
 */
static void
load_profile(struct parser *ps, const char *name, const struct origin *o)
{
	cleanup_free char *exe_dir = util_exe_dir();
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *cand[4] = { NULL };
	size_t n = 0;
	bool has_user;

	if (name[0] == '\0' || strchr(name, '/') != NULL ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		fail(ps, o, "--profile: '%s' is not a profile name", name);
		return;
	}
	if (xdg != NULL && xdg[0] == '/')
		cand[n++] = xasprintf("%s/sbox-exec/profiles/%s.policy", xdg,
		    name);
	else if (home != NULL && home[0] == '/')
		cand[n++] = xasprintf("%s/.config/sbox-exec/profiles/%s.policy",
		    home, name);
	has_user = n > 0;
	cand[n++] = xasprintf("%s/profiles/%s.policy", PKGDATADIR, name);
	if (exe_dir != NULL) {
		cand[n++] = xasprintf(
		    "%s/../share/sbox-exec/profiles/%s.policy", exe_dir, name);
		cand[n++] = xasprintf("%s/../profiles/%s.policy", exe_dir,
		    name);
	}

	for (size_t i = 0; i < n; i++)
		if (access(cand[i], F_OK) == 0) {
			note_shadowing(ps, name, cand, n, i, has_user);
			load_policy(ps, cand[i], "--profile", o);
			break;
		} else if (i == n - 1) {
			fail(ps, o,
			    "--profile: no profile named '%s' in the "
			    "user's directory or in %s/profiles",
			    name, PKGDATADIR);
		}
	for (size_t i = 0; i < n; i++)
		free(cand[i]);
}

/* Apply one option, from argv or a file.  VALUE2 only for --setenv. */
static int
apply_option(struct parser *ps, int id, const char *value, const char *value2,
    const struct origin *o)
{
	struct invocation *inv = ps->inv;
	struct policy *p = &inv->policy;

	switch ((enum opt_id)id) {
	case OPT_FS:
		if (strcmp(value, "host") == 0)
			p->fs = FS_HOST;
		else if (strcmp(value, "minimal") == 0)
			p->fs = FS_MINIMAL;
		else
			fail(ps, o, "--fs: '%s' is not 'host' or 'minimal'",
			    value);
		break;
	case OPT_RW:
	case OPT_RO:
	case OPT_HIDE:
	case OPT_RO_TRY:
	case OPT_RW_TRY:
	case OPT_ALLOW_SOCKET:
		add_path(ps, id, value, o);
		break;
	case OPT_NET:
		p->net = true;
		break;
	case OPT_NO_NET:
		p->net = false;
		break;
	case OPT_CHDIR:
		if (value[0] == '\0') {
			fail(ps, o, "--chdir: empty path");
			break;
		}
		free(p->chdir);
		/* Resolved like the mounts, so that they can be compared. */
		p->chdir = realpath(value, NULL);
		if (p->chdir == NULL)
			p->chdir = util_path_absolute(value, p->cwd);
		break;
	case OPT_SETENV:
		if (!valid_env_name(value))
			fail(ps, o, "--setenv: '%s' is not a variable name",
			    value);
		else
			policy_add_env(p, ENV_SET, value, value2);
		break;
	case OPT_UNSETENV:
		if (!valid_env_name(value))
			fail(ps, o, "--unsetenv: '%s' is not a variable name",
			    value);
		else
			policy_add_env(p, ENV_UNSET, value, NULL);
		break;
	case OPT_CLEARENV:
		policy_add_env(p, ENV_CLEAR, NULL, NULL);
		break;
	case OPT_KEEP_FD:
	case OPT_STATUS_FD:
		add_fd_option(ps, id, value, o);
		break;
	case OPT_TTY:
		p->tty = true;
		break;
	case OPT_BWRAP:
		if (value[0] == '\0') {
			fail(ps, o, "--bwrap: empty path");
			break;
		}
		free(inv->bwrap);
		inv->bwrap = xstrdup(value);
		break;
	case OPT_STATUS_SOCKET:
		inv->status_sockets = xreallocarray(inv->status_sockets,
		    inv->nstatus_sockets + 1, sizeof(char *));
		inv->status_sockets[inv->nstatus_sockets++] = xstrdup(value);
		break;
	case OPT_PROBE_TIMEOUT:
		set_timeout(ps, value, o);
		break;
	case OPT_POLICY:
		load_policy(ps, value, "--policy", o);
		break;
	case OPT_PROFILE:
		load_profile(ps, value, o);
		break;
	case OPT_JSON:
		inv->json = true;
		break;
	case OPT_CHECK:
		set_mode(ps, MODE_CHECK, o);
		break;
	case OPT_PRINT:
		set_mode(ps, MODE_PRINT, o);
		break;
	case OPT_ALLOW_SETUID_FILES:
		inv->allow_setuid_files = true;
		break;
	case OPT_QUIET:
		inv->verbosity = -1;
		break;
	case OPT_VERBOSE:
		inv->verbosity = 1;
		break;
	case OPT_HELP:
		set_mode(ps, MODE_HELP, o);
		break;
	case OPT_VERSION:
		set_mode(ps, MODE_VERSION, o);
		break;
	}
	return 0;
}

/* The mounts every sandbox starts from, before the user's own. */
static void
add_base_mounts(struct policy *p)
{
	static const char *const system_dirs[] = {
		"/usr",
		"/etc",
		"/bin",
		"/sbin",
		"/lib",
		"/lib32",
		"/lib64",
		"/libx32",
	};

	if (p->fs == FS_HOST) {
		policy_add_mount(p, MOUNT_ROOT, "/", "/");
	} else {
		for (size_t i = 0; i < N_ELEMENTS(system_dirs); i++) {
			const char *d = system_dirs[i];
			char target[PATH_MAX];
			struct stat st;
			ssize_t n;

			if (lstat(d, &st) < 0)
				continue;
			if (S_ISLNK(st.st_mode)) {
				n = readlink(d, target, sizeof(target) - 1);
				if (n <= 0)
					continue;
				target[n] = '\0';
				policy_add_mount(p, MOUNT_SYMLINK, d, target);
			} else if (S_ISDIR(st.st_mode)) {
				policy_add_mount(p, MOUNT_SYSTEM, d, d);
			}
		}
	}
	policy_add_mount(p, MOUNT_DEV, "/dev", NULL);
	policy_add_mount(p, MOUNT_PROC, "/proc", NULL);
	policy_add_mount(p, MOUNT_TMP, "/tmp", NULL);
}

/*
 * The home directory from /etc/passwd, for when HOME is unset: read with
 * fgetpwent, which needs no name service and so works in a static binary.
 */
static char *
passwd_home(uid_t uid)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw;
	char *home = NULL;

	if (f == NULL)
		return NULL;
	while ((pw = fgetpwent(f)) != NULL)
		if (pw->pw_uid == uid) {
			home = xstrdup(pw->pw_dir);
			break;
		}
	fclose(f);
	return home;
}

static const char *
env_lookup(const char *name, void *ctx)
{
	(void)ctx;
	return getenv(name);
}

/*
 * The credential lists: the shipped one, which must be there, then the
 * user's, which may only add to it.
 */
static int
load_credentials(const struct creds_env *cenv, struct creds_list *cl,
    struct sbox_error *e)
{
	cleanup_free char *shipped = creds_shipped_path();
	cleanup_free char *user = creds_user_path(getenv("XDG_CONFIG_HOME"),
	    getenv("HOME"));

	if (creds_load(shipped, true, cenv, cl, e) < 0)
		return -1;
	if (user != NULL && creds_load(user, false, cenv, cl, e) < 0)
		return -1;
	return 0;
}

static void
add_protection(struct invocation *inv)
{
	cleanup_free char *pw_home = passwd_home(getuid());
	struct creds_list cl = { 0 };
	struct creds_env cenv = {
		.homes = { getenv("HOME"), pw_home },
		.getenv = env_lookup,
	};
	struct protect_env env = {
		.homes = { getenv("HOME"), pw_home },
		.runtime_dir = getenv("XDG_RUNTIME_DIR"),
		.uid = getuid(),
		.status_sockets = inv->status_sockets,
		.nstatus_sockets = inv->nstatus_sockets,
		.creds = &cl,
		.cenv = &cenv,
	};

	struct sbox_error e = { 0 };

	/* Refused already, or no sandbox: no need to look at the host. */
	if (inv->mode == MODE_HELP || inv->mode == MODE_VERSION ||
	    inv->err.detail != NULL)
		return;
	if ((load_credentials(&cenv, &cl, &e) < 0 ||
		protect_add_defaults(&inv->policy, &env, &e) < 0) &&
	    inv->err.detail == NULL)
		inv->err = e;
	else
		sbox_error_clear(&e);
	creds_list_clear(&cl);
}

static void
check_combinations(struct parser *ps)
{
	struct invocation *inv = ps->inv;
	const struct origin none = { 0 };

	for (size_t i = 0; i < inv->nstatus_fds; i++)
		if (policy_keeps_fd(&inv->policy, inv->status_fds[i]))
			fail(ps, &none,
			    "descriptor %d is both --status-fd and "
			    "--keep-fd",
			    inv->status_fds[i]);
	switch (inv->mode) {
	case MODE_RUN:
		if (inv->command[0] == NULL)
			fail(ps, &none, "no command given (see --help)");
		if (inv->json)
			fail(ps, &none, "--json goes with --check");
		break;
	case MODE_CHECK:
		if (inv->command[0] != NULL)
			fail(ps, &none, "--check takes no command, got '%s'",
			    inv->command[0]);
		break;
	case MODE_PRINT:
		if (inv->command[0] == NULL)
			fail(ps, &none, "--print needs a command");
		if (inv->json)
			fail(ps, &none, "--json goes with --check");
		break;
	case MODE_HELP:
	case MODE_VERSION:
		break;
	}
}

/*
 * The working directory must exist where the sandbox takes it from the
 * host; bwrap would only fail later, and less clearly.
 */
static void
check_chdir(struct parser *ps)
{
	const struct policy *p = &ps->inv->policy;
	const struct mount *m = policy_mount_for(p, p->chdir);
	cleanup_free char *host = NULL;
	const struct origin none = { 0 };
	struct stat st;

	if (m == NULL || m->src == NULL || !policy_mount_from_host(m->kind))
		return;
	host = xasprintf("%s%s", m->src, p->chdir + strlen(m->dest));
	if (stat(host, &st) < 0)
		fail(ps, &none, "--chdir: %s: %s", p->chdir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		fail(ps, &none, "--chdir: %s: %s", p->chdir, strerror(ENOTDIR));
}

/* A command-line option kept for after the policy files. */
/* An option to apply after the files, or (id 0) a usage error, in order. */
struct deferred {
	int id;
	const char *value;
	const char *value2;
	char *error;
};

static void
defer(struct deferred **v, size_t *n, int id, const char *value,
    const char *value2)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[*n] = (struct deferred){ id, value, value2, NULL };
	(*n)++;
}

static void SBOX_PRINTF(3, 4)
    defer_error(struct deferred **v, size_t *n, const char *fmt, ...)
{
	va_list ap;

	defer(v, n, 0, NULL, NULL);
	va_start(ap, fmt);
	(*v)[*n - 1].error = xvasprintf(fmt, ap);
	va_end(ap);
}

int
cli_parse(struct invocation *inv, int argc, char **argv)
{
	struct parser ps = { .inv = inv };
	struct deferred *later = NULL;
	size_t nlater = 0;
	const struct origin cmdline = { 0 };
	cleanup_free char *cwd = NULL;
	const char *env_bwrap;
	int c;

	memset(inv, 0, sizeof(*inv));
	inv->probe_timeout_ms = CLI_DEFAULT_TIMEOUT_MS;
	cwd = getcwd(NULL, 0);
	policy_init(&inv->policy, cwd ? cwd : "/");
	if (cwd == NULL)
		fail(&ps, &cmdline,
		    "cannot determine the working directory: "
		    "%s",
		    strerror(errno));

	opterr = 0;
	optind = 0; /* full re-initialisation, for tests that parse twice */
	while ((c = getopt_long(argc, argv, short_options, long_options,
		    NULL)) != -1) {
		/* The word at fault: the last one when a value is missing at
		 * the end (musl then leaves optind past argc). */
		const char
		    *bad = argv[optind - 1 < argc ? optind - 1 : argc - 1];

		if (c == '?') {
			/* getopt sets optopt to a long option's value when
			 * it was given one ("--quiet=1"); a short option
			 * unknown inside a cluster leaves BAD at the word
			 * before it. */
			if (optopt >= 256 ||
			    (optopt != 0 && strncmp(bad, "--", 2) == 0 &&
				strchr(bad, '=') != NULL))
				defer_error(&later, &nlater,
				    "option '%s' takes no value", bad);
			else if (optopt != 0)
				defer_error(&later, &nlater,
				    "unknown option '-%c'", optopt);
			else
				defer_error(&later, &nlater,
				    "unknown option '%s'", bad);
			continue;
		}
		if (c == ':') {
			defer_error(&later, &nlater,
			    "option '%s' needs a value", bad);
			continue;
		}
		if (c == OPT_SETENV) {
			if (optind >= argc) {
				defer_error(&later, &nlater,
				    "--setenv needs NAME and VALUE");
				continue;
			}
			defer(&later, &nlater, c, optarg, argv[optind++]);
			continue;
		}
		/* Files first: the command line is applied after them. */
		if (c == OPT_POLICY || c == OPT_PROFILE)
			apply_option(&ps, c, optarg, NULL, &cmdline);
		else
			defer(&later, &nlater, c, optarg, NULL);
	}
	for (size_t i = 0; i < nlater; i++) {
		if (later[i].error != NULL) {
			fail(&ps, &cmdline, "%s", later[i].error);
			free(later[i].error);
		} else {
			apply_option(&ps, later[i].id, later[i].value,
			    later[i].value2, &cmdline);
		}
	}
	free(later);
	for (size_t i = 0; i < N_ANCHORS; i++)
		free(ps.anchors[i]);
	/* musl leaves optind past argc after a value missing at the end. */
	inv->command = argv + (optind < argc ? optind : argc);

	env_bwrap = getenv("SBOX_EXEC_BWRAP");
	if (inv->bwrap == NULL && env_bwrap != NULL && env_bwrap[0] != '\0')
		inv->bwrap = xstrdup(env_bwrap);

	add_base_mounts(&inv->policy);
	add_protection(inv);
	check_combinations(&ps);
	if (inv->err.detail == NULL && inv->mode != MODE_HELP &&
	    inv->mode != MODE_VERSION &&
	    policy_finish(&inv->policy, &inv->err) == 0)
		check_chdir(&ps);
	return inv->err.detail == NULL ? 0 : -1;
}

void
cli_free(struct invocation *inv)
{
	policy_free(&inv->policy);
	for (size_t i = 0; i < inv->nstatus_sockets; i++)
		free(inv->status_sockets[i]);
	free(inv->status_sockets);
	free(inv->status_fds);
	free(inv->bwrap);
	strv_clear(&inv->notices);
	sbox_error_clear(&inv->err);
}

void
cli_help(FILE *f)
{
	fputs(
	    "Usage: sbox-exec [OPTION]... [--] COMMAND [ARG]...\n"
	    "       sbox-exec --check [OPTION]...\n"
	    "       sbox-exec --print [OPTION]... [--] COMMAND [ARG]...\n"
	    "Run COMMAND inside a bubblewrap sandbox, or refuse (exit 125).\n"
	    "\n"
	    "Filesystem:\n"
	    "      --fs=host            host filesystem read-only (default)\n"
	    "      --fs=minimal         only the system directories, read-only\n"
	    "  -w, --rw=PATH            make PATH writable, at the same path\n"
	    "  -r, --ro=PATH            make PATH readable, not writable\n"
	    "      --hide=PATH          put an empty directory or file over PATH\n"
	    "      --ro-try=PATH        as --ro, skipped when PATH is missing\n"
	    "      --rw-try=PATH        as --rw, skipped when PATH is missing\n"
	    "      --allow-socket=PATH  expose this host unix socket\n"
	    "      --allow-setuid-files as root, allow --rw over setuid files\n"
	    "Network:\n"
	    "      --no-net             only loopback inside (default)\n"
	    "      --net                share the host network\n"
	    "Process:\n"
	    "  -C, --chdir=DIR          working directory inside (default: the current one)\n"
	    "      --setenv NAME VALUE  set NAME in the command's environment\n"
	    "      --unsetenv NAME      remove NAME from the command's environment\n"
	    "      --clearenv           start from an empty environment\n"
	    "      --keep-fd=N          pass inherited descriptor N to the command\n"
	    "      --tty                own terminal with job control, for interactive use\n"
	    "Launcher:\n"
	    "      --check              only tell whether this sandbox can be created\n"
	    "      --print              print the bwrap command line, run nothing\n"
	    "      --json               with --check: print the status on stdout\n"
	    "      --bwrap=PATH         use exactly this bwrap (also SBOX_EXEC_BWRAP)\n"
	    "      --status-fd=N        write the status line to descriptor N\n"
	    "      --status-socket=ADDR send the status to unix socket ADDR (@name: abstract)\n"
	    "      --probe-timeout=SECONDS  give up creating the sandbox after this (10)\n"
	    "      --policy=FILE        read more options from FILE\n"
	    "      --profile=NAME       read options from the profile NAME\n"
	    "  -q, --quiet              say less on stderr\n"
	    "  -v, --verbose            say more on stderr, with the bwrap command line\n"
	    "  -h, --help               show this help and exit\n"
	    "  -V, --version            show the version and exit\n"
	    "\n"
	    "Exit status: the command's (128+N if killed by signal N); 125 if\n"
	    "sbox-exec refused; 126 if COMMAND cannot be executed; 127 if it is not\n"
	    "found.  With --check: 0 if the sandbox can be created, else 125.\n"
	    "\n"
	    "See sbox-exec(1) for the status format and policy files.\n",
	    f);
}
