/*
 * resolve.c - what a parsed invocation means on this host: policy files
 * and profiles read, paths resolved, the sandbox's base mounts and the
 * host protection added, the result checked.
 *
 * Policy files are applied first, in the order they were named, then the
 * command line's other options in order, so that the command line has the
 * last word (sbox-exec(1), POLICY FILES).  Reads the host, never writes
 * it.  MUST NOT exit or print: the first problem goes to inv->err.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "cli.h"
#include "grant.h"
#include "load.h"
#include "policyfile.h"
#include "protect.h"
#include "resolve.h"
#include "stage2_args.h"
#include "util.h"

#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/sbox-exec"
#endif

#define MAX_INCLUDE_DEPTH 16
#define MAX_POLICY_BYTES (1 << 20)
#define MAX_POLICY_FILES 256 /* includes, counted over the whole parse */
#define N_ANCHORS 4	     /* the working directory, the project, homes */

/* Where the option being applied came from, for messages. */
struct origin {
	const char *file; /* NULL: the command line */
	unsigned long line;
	bool glob; /* from a file: '*', '?' or '[' in its own text */
};

static const struct origin cmdline = { 0 };

struct resolver {
	struct invocation *inv;
	struct {
		dev_t dev;
		ino_t ino;
	} stack[MAX_INCLUDE_DEPTH]; /* the files being read, for loops */
	size_t depth;
	int nfiles;
	char *anchors[N_ANCHORS]; /* for grants from files */
	bool anchors_set;
	char *project;		  /* its real path: ${PROJECT} */
	const char *project_wide; /* what it is when / or a home, or NULL */
	bool wide_named;	  /* ${PROJECT} was expanded while wide */
	bool tree_checked;	  /* ${PROJECT}'s work tree looked for */
	char *cache_root;	  /* ${CACHE}, once asked for */
	char *node_modules;	  /* ${COMMAND_NODE_MODULES}, once asked for */
	bool node_modules_set;
	struct strv config_files; /* the policy files read: real paths */
};

#define fail(rs, o, ...) cli_fail((rs)->inv, (o)->file, (o)->line, __VA_ARGS__)

static void apply_option(struct resolver *, enum opt_id, const char *,
    const char *, const struct origin *);

/*
 * Whether VALUE, a path that does not exist, was written as a wildcard
 * pattern: '*', '?' or '[' typed on the command line or in a policy
 * file's own text (not brought in by a ${NAME}).  sbox-exec takes every
 * path literally (sbox-exec(1), OPTIONS), so such a path is refused
 * rather than granted or hidden as the name it is not.
 */
static bool
written_as_pattern(const char *value, const struct origin *o)
{
	return o->file != NULL ? o->glob : strpbrk(value, "*?[") != NULL;
}

#define NOT_A_PATTERN                                                          \
	"--%s: %s does not exist, and sbox-exec does not expand '*', '?' or '[': name each path (the shell can expand a pattern on the command line)"

/*
 * The home directory from /etc/passwd, for when HOME is unset: read with
 * fgetpwent, which needs no name service and so works in a static binary.
 */
static char *
passwd_home(uid_t uid)
{
	/* Read once a launch: several steps ask. */
	static bool looked;
	static uid_t looked_for;
	static char *found;
	struct passwd *pw;
	FILE *f;

	if (!looked || looked_for != uid) {
		free(found);
		found = NULL;
		looked = true;
		looked_for = uid;
		f = fopen("/etc/passwd", "re");
		while (f != NULL && (pw = fgetpwent(f)) != NULL)
			if (pw->pw_uid == uid) {
				found = xstrdup(pw->pw_dir);
				break;
			}
		if (f != NULL)
			fclose(f);
	}
	return found != NULL ? xstrdup(found) : NULL;
}

/*
 * Home I ($HOME, then the password entry's) with symlinks resolved, or
 * NULL: resolved once a launch, for the several steps that compare with
 * it.
 */
static const char *
home_real(size_t i)
{
	static bool done[2];
	static char *real[2];

	if (!done[i]) {
		cleanup_free char *pw = i == 1 ? passwd_home(util_uid()) : NULL;
		const char *h = i == 0 ? getenv("HOME") : pw;

		if (h != NULL && h[0] == '/')
			real[i] = util_realpath(h);
		done[i] = true;
	}
	return real[i];
}

/* The caller's home in the password entry, or NULL. */
char *
resolve_passwd_home(void)
{
	return passwd_home(util_uid());
}

/* The home directory: HOME, or the password entry's when it is unset. */
static char *
home_dir(void)
{
	const char *home = getenv("HOME");

	return home != NULL && home[0] != '\0' ? xstrdup(home) :
						 passwd_home(util_uid());
}

/* Where a grant from a policy file may not pass a symlink: below the
 * working directory and below either home directory. */
static const char *const *
grant_anchors(struct resolver *rs)
{
	if (!rs->anchors_set) {
		const char *home = getenv("HOME");
		cleanup_free char *pw = passwd_home(util_uid());

		rs->anchors[0] = xstrdup(rs->inv->policy.cwd);
		if (home != NULL && home[0] == '/')
			rs->anchors[1] = util_path_absolute(home, "/");
		if (pw != NULL && pw[0] == '/')
			rs->anchors[2] = util_path_absolute(pw, "/");
		if (rs->project != NULL)
			rs->anchors[3] = xstrdup(rs->project);
		rs->anchors_set = true;
	}
	return (const char *const *)rs->anchors;
}

/*
 * The host path a grant names: as the shell would resolve it when typed,
 * without passing a planted symlink when it came from a policy file.
 * NULL when there is nothing to grant (a -try skipped, or an error
 * recorded).
 */
static char *
grant_source(struct resolver *rs, enum opt_id id, const char *value,
    const char *abs, const struct origin *o)
{
	bool try = id == OPT_RO_TRY || id == OPT_RW_TRY ||
	    id == OPT_RW_CREATE_TRY;
	char *src = NULL;

	if (o->file == NULL || id == OPT_HIDE) {
		src = util_realpath(value);
		if (src == NULL && (errno == ENOENT || errno == ENOTDIR) &&
		    written_as_pattern(value, o))
			fail(rs, o, NOT_A_PATTERN, options_name(id), value);
		else if (src == NULL && id == OPT_HIDE && errno == ENOENT)
			/* Nothing to hide where nothing is. */
			strv_addf(&rs->inv->notices,
			    "%s%s%.0lu%s--hide: %s does not exist; nothing hidden there",
			    o->file ? o->file : "", o->file ? ":" : "",
			    o->file ? o->line : 0, o->file ? ": " : "", value);
		else if (src == NULL && !try)
			fail(rs, o, "--%s: %s: %s", options_name(id), value,
			    strerror(errno));
		return src;
	}
	switch (grant_resolve(abs, grant_anchors(rs), N_ANCHORS, &src)) {
	case GRANT_OK:
		return src;
	case GRANT_LINK:
		if (!try)
			fail(rs, o,
			    "--%s: %s passes through a symlink, which a grant from a policy file does not follow; name the place it leads to on the command line",
			    options_name(id), value);
		break;
	case GRANT_MISSING:
		if (written_as_pattern(value, o)) {
			fail(rs, o, NOT_A_PATTERN, options_name(id), value);
			break;
		}
		/* fall through */
	case GRANT_ERROR:
		if (!try)
			fail(rs, o, "--%s: %s: %s", options_name(id), value,
			    strerror(errno));
		break;
	}
	free(src);
	return NULL;
}

static enum mount_kind
grant_kind(enum opt_id id, const struct stat *st)
{
	if (id == OPT_RW || id == OPT_RW_TRY || id == OPT_RW_CREATE ||
	    id == OPT_RW_CREATE_TRY)
		return MOUNT_RW;
	if (id == OPT_HIDE)
		return S_ISDIR(st->st_mode) ? MOUNT_HIDE_DIR : MOUNT_HIDE_FILE;
	return MOUNT_RO;
}

/*
 * --rw-create: DIR made when missing, before it is granted as --rw
 * grants it.  Only DIR itself is made, with the mode mkdir(1) would give
 * it, in a parent that exists; the parent is reached as the grant itself
 * would be (from a policy file, through no planted link), opened again
 * from the root through no link at all, and DIR is made in the directory
 * opened, so that nothing swapped in between leads the creation
 * elsewhere.  --print makes nothing, and shows the grant.
 * True when the grant is to be added as usual.
 */
static bool
create_missing(struct resolver *rs, const char *value, const char *dest,
    const struct origin *o)
{
	struct policy *p = &rs->inv->policy;
	const char *name = strrchr(dest, '/') + 1;
	cleanup_free char *parent = NULL, *src = NULL;
	struct stat st;
	int fd;

	if (name[0] == '\0' || util_lstat(dest, &st) == 0 || errno != ENOENT)
		return true;
	if (rs->inv->mode == MODE_PRINT) {
		struct mount *m = policy_add_mount(p, MOUNT_RW, dest, dest);

		m->from_file = o->file != NULL;
		return false;
	}
	parent = name - 1 == dest ? xstrdup("/") :
				    xstrndup(dest, (size_t)(name - dest - 1));
	src = grant_source(rs, OPT_RW_CREATE, parent, parent, o);
	if (src == NULL)
		return false;
	fd = grant_open_real(src);
	if (fd < 0 || (mkdirat(fd, name, 0777) < 0 && errno != EEXIST)) {
		fail(rs, o, "--rw-create: cannot create %s: %s", value,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	return true;
}

/*
 * --rw-create-try: DEST and its missing parents made, each in the one
 * above, opened without following a link, from the deepest that exists,
 * reached as a grant would be.  False, with nothing said, when any of it
 * cannot be done (a project the user cannot write, a link on the way):
 * the grant is skipped.  --print makes nothing, and shows the grant.
 */
static bool
create_missing_try(struct resolver *rs, const char *dest,
    const struct origin *o)
{
	cleanup_free char *top = xstrdup(dest), *src = NULL;
	char *slash;
	struct stat st;
	int fd;

	while (util_lstat(top, &st) < 0 && errno == ENOENT &&
	    (slash = strrchr(top, '/')) != NULL && slash != top)
		*slash = '\0';
	if (strcmp(top, dest) == 0)
		return true;
	if (rs->inv->mode == MODE_PRINT) {
		struct mount *m = policy_add_mount(&rs->inv->policy, MOUNT_RW,
		    dest, dest);

		m->from_file = o->file != NULL;
		return false;
	}
	/* The place found, reached through no link swapped in since (below
	 * it, each step is opened so too). */
	src = grant_source(rs, OPT_RW_CREATE_TRY, top, top, o);
	if (src == NULL || (fd = grant_open_real(src)) < 0)
		return false;
	for (const char *p = dest + strlen(top); fd >= 0 && *p == '/';) {
		const char *end = strchrnul(p + 1, '/');
		cleanup_free char *name = xstrndup(p + 1,
		    (size_t)(end - p - 1));
		int next = -1;

		if (name[0] != '\0' &&
		    (mkdirat(fd, name, 0777) == 0 || errno == EEXIST))
			next = openat(fd, name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
		p = end;
	}
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* --ro, --rw, --hide, the -try forms, --rw-create and --allow-socket. */
static void
add_path(struct resolver *rs, enum opt_id id, const char *value,
    const struct origin *o)
{
	struct policy *p = &rs->inv->policy;
	cleanup_free char *dest = NULL, *src = NULL;
	enum mount_kind kind;
	struct mount *m;
	struct stat st;

	/*
	 * The mount goes where the links lead: bwrap cannot create a mount
	 * point below a symlink, and the path as given still leads there
	 * through the same links, which the sandbox shows too.
	 */
	dest = util_path_absolute(value, p->cwd);
	if (id == OPT_RW_CREATE && !create_missing(rs, value, dest, o))
		return;
	if (id == OPT_RW_CREATE_TRY && !create_missing_try(rs, dest, o))
		return;
	src = grant_source(rs, id, value, dest, o);
	if (src == NULL)
		return;
	if (stat(src, &st) < 0) {
		fail(rs, o, "--%s: %s: %s", options_name(id), value,
		    strerror(errno));
		return;
	}
	if (id == OPT_ALLOW_SOCKET && !S_ISSOCK(st.st_mode)) {
		fail(rs, o, "--allow-socket: %s: not a unix socket", value);
		return;
	}
	kind = grant_kind(id, &st);
	m = policy_add_mount(p, kind, src,
	    kind == MOUNT_HIDE_DIR || kind == MOUNT_HIDE_FILE ? NULL : src);
	m->from_file = o->file != NULL;
	if (strcmp(dest, src) != 0)
		m->given = steal_pointer(&dest);
}

static void
add_keep_fd(struct resolver *rs, const char *value, const struct origin *o)
{
	struct policy *p = &rs->inv->policy;
	int fd;

	if (util_parse_fd(value, &fd) < 0) /* options_check_value() said */
		return;
	if (fcntl(fd, F_GETFD) < 0)
		fail(rs, o, "--keep-fd=%d: descriptor is not open", fd);
	else if (p->nkeep >= STAGE2_ARGS_MAX_KEEP_FDS)
		fail(rs, o, "--keep-fd: at most %d descriptors",
		    STAGE2_ARGS_MAX_KEEP_FDS);
	else
		policy_add_keep_fd(p, fd);
}

/* --cache: the project's private cache NAME, created, writable. */
static void
add_cache(struct resolver *rs, const char *name, const struct origin *o)
{
	struct policy *p = &rs->inv->policy;
	cleanup_free char *path = NULL, *err = NULL, *key = NULL;
	cleanup_free char *home = home_dir();
	struct mount *m;

	if (rs->project == NULL) /* refused already */
		return;
	key = cache_project_key(rs->project);
	if (rs->inv->mode == MODE_PRINT) {
		/* --print shows the sandbox and creates nothing; --check
		 * creates the cache as a run would, to tell whether it can. */
		cleanup_free char *root = cache_root(getenv("XDG_CACHE_HOME"),
		    home, key);

		if (root == NULL) {
			fail(rs, o,
			    "--cache=%s: neither XDG_CACHE_HOME nor HOME is an absolute path",
			    name);
			return;
		}
		path = util_path_join(root, name);
	} else if (cache_create(getenv("XDG_CACHE_HOME"), home, key, name,
		       &path, &err) < 0) {
		fail(rs, o, "%s", err);
		return;
	}
	m = policy_add_mount(p, MOUNT_RW, path, path);
	m->from_file = o->file != NULL;
}

static void
set_chdir(struct resolver *rs, const char *value, const struct origin *o)
{
	struct policy *p = &rs->inv->policy;

	free(p->chdir);
	/* Resolved like the mounts, so that they can be compared. */
	p->chdir = util_realpath(value);
	if (p->chdir == NULL && (errno == ENOENT || errno == ENOTDIR) &&
	    written_as_pattern(value, o))
		fail(rs, o, NOT_A_PATTERN, "chdir", value);
	if (p->chdir == NULL)
		p->chdir = util_path_absolute(value, p->cwd);
}

/* A policy file read may be applied: not one being read already, within
 * the limits of nesting and number. */
static bool
may_include(struct resolver *rs, const struct stat *st, const char *path,
    const char *opt, const struct origin *from)
{
	for (size_t i = 0; i < rs->depth; i++)
		if (rs->stack[i].dev == st->st_dev &&
		    rs->stack[i].ino == st->st_ino) {
			fail(rs, from, "%s: %s: includes itself", opt, path);
			return false;
		}
	if (rs->depth == MAX_INCLUDE_DEPTH) {
		fail(rs, from, "%s: %s: policy files nested more than %d deep",
		    opt, path, MAX_INCLUDE_DEPTH);
		return false;
	}
	if (++rs->nfiles > MAX_POLICY_FILES) {
		fail(rs, from, "%s: %s: more than %d policy files read in all",
		    opt, path, MAX_POLICY_FILES);
		return false;
	}
	return true;
}

/* ${CACHE}: where the project's private caches live (sbox-exec(1),
 * --cache); NULL when no cache directory can be named. */
static const char *
cache_root_of(struct resolver *rs)
{
	if (rs->cache_root == NULL && rs->project != NULL) {
		cleanup_free char *key = cache_project_key(rs->project);
		cleanup_free char *home = home_dir();

		rs->cache_root = cache_root(getenv("XDG_CACHE_HOME"), home,
		    key);
	}
	return rs->cache_root;
}

/* The real path of the command, found as execvp() would on the host. */
static char *
command_real(const struct invocation *inv)
{
	const char *cmd = inv->command ? inv->command[0] : NULL;
	const char *path = getenv("PATH");
	cleanup_free char *copy = NULL;
	char *save = NULL;

	if (cmd == NULL || cmd[0] == '\0')
		return NULL;
	if (strchr(cmd, '/') != NULL)
		return util_realpath(cmd);
	copy = xstrdup(path != NULL ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(copy, ":", &save); d != NULL;
	     d = strtok_r(NULL, ":", &save)) {
		cleanup_free char *cand = util_path_join(d[0] ? d : ".", cmd);
		struct stat st;

		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0)
			return util_realpath(cand);
	}
	return NULL;
}

/*
 * ${COMMAND_NODE_MODULES}: the node_modules directory nearest above the
 * command's real path, which holds a server npm or an editor installed
 * and its dependencies (sbox-exec(1), PROFILES); NULL when there is none.
 */
static const char *
command_node_modules(struct resolver *rs)
{
	static const char seg[] = "/node_modules/";

	if (!rs->node_modules_set) {
		cleanup_free char *real = command_real(rs->inv);
		char *last = NULL;

		for (char *p = real; p != NULL && (p = strstr(p, seg)) != NULL;
		     p++)
			last = p;
		if (last != NULL)
			rs->node_modules = xstrndup(real,
			    (size_t)(last - real) + sizeof(seg) - 2);
		rs->node_modules_set = true;
	}
	return rs->node_modules;
}

/*
 * The work tree ${PROJECT} lies in, when it is a subdirectory of one: the
 * nearest directory above it that holds a .git (a directory, or the file
 * of a linked worktree or submodule), looked for up to a home directory
 * or /, neither of which counts.  NULL when the project is a work tree's
 * root, or in none.
 */
static char *
enclosing_tree(const char *project)
{
	const char *real[2] = { home_real(0), home_real(1) };
	cleanup_free char *dir = xstrdup(project);
	char *slash, *found = NULL;

	while (found == NULL && (slash = strrchr(dir, '/')) != NULL &&
	    slash != dir) {
		cleanup_free char *git = NULL;
		struct stat st;

		*slash = '\0';
		if ((real[0] != NULL && strcmp(dir, real[0]) == 0) ||
		    (real[1] != NULL && strcmp(dir, real[1]) == 0))
			break;
		git = util_path_join(dir, ".git");
		if (lstat(git, &st) == 0)
			found = xstrdup(dir);
	}
	return found;
}

/*
 * A profile that names ${PROJECT}, started from a subdirectory of a work
 * tree, grants that subdirectory only: said (sbox-exec(1), --project),
 * the grant left as it is.  Not when --project named the directory.
 */
static void
note_project_tree(struct resolver *rs)
{
	cleanup_free char *tree = NULL;

	if (rs->tree_checked || rs->inv->project != NULL ||
	    rs->project_wide != NULL)
		return;
	rs->tree_checked = true;
	tree = enclosing_tree(rs->project);
	if (tree != NULL)
		strv_addf(&rs->inv->warnings,
		    "${PROJECT} is %s, a subdirectory of the work tree %s: the profile grants only the subdirectory; --project=%s would cover the work tree",
		    rs->project, tree, tree);
}

/* ${CWD}, ${PROJECT}, ${CACHE}, ${COMMAND_NODE_MODULES} and the
 * environment, for the lexer. */
static const char *
lookup_variable(const char *name, void *ctx)
{
	struct resolver *rs = ctx;

	if (strcmp(name, "CWD") == 0)
		return rs->inv->policy.cwd;
	if (strcmp(name, "PROJECT") == 0 && rs->project != NULL) {
		rs->wide_named = rs->wide_named || rs->project_wide != NULL;
		note_project_tree(rs);
		return rs->project;
	}
	if (strcmp(name, "CACHE") == 0)
		return cache_root_of(rs);
	if (strcmp(name, "COMMAND_NODE_MODULES") == 0)
		return command_node_modules(rs);
	return getenv(name);
}

/* Apply each option of TEXT, a policy file read from PATH. */
static void
apply_file(struct resolver *rs, const char *path, char *text)
{
	struct policyfile pf;
	struct policyfile_item it = { 0 };

	policyfile_init(&pf, text, lookup_variable, rs);
	while (policyfile_next(&pf, &it) > 0) {
		struct origin o = { .file = path,
			.line = pf.lineno,
			.glob = it.glob };

		if (rs->wide_named) {
			/* A tool started outside its project: the caller's
			 * mistake, which no grant should paper over. */
			fail(rs, &o,
			    "${PROJECT} is %s, which a policy file may not grant: start the tool in its project's directory or name it with --project=DIR",
			    rs->project_wide);
			rs->wide_named = false;
		} else if (it.error != NULL)
			fail(rs, &o, "%s", it.error);
		else
			apply_option(rs, it.id, it.value, it.value2, &o);
	}
	policyfile_item_clear(&it);
}

/* Read a policy file; OPT names the option that brought it in. */
static void
load_policy(struct resolver *rs, const char *path, const char *opt,
    const struct origin *from)
{
	cleanup_free char *text = NULL;
	struct stat st;

	switch (load_text(path, MAX_POLICY_BYTES, &text, &st)) {
	case LOAD_OK:
		break;
	case LOAD_ERRNO:
		if ((errno == ENOENT || errno == ENOTDIR) &&
		    strcmp(opt, "--policy") == 0 &&
		    written_as_pattern(path, from))
			fail(rs, from, NOT_A_PATTERN, "policy", path);
		else
			fail(rs, from, "%s: %s: %s", opt, path,
			    strerror(errno));
		return;
	case LOAD_NOT_REGULAR:
		fail(rs, from, "%s: %s: not a regular file", opt, path);
		return;
	case LOAD_TOO_BIG:
		fail(rs, from, "%s: %s: larger than %d bytes", opt, path,
		    MAX_POLICY_BYTES);
		return;
	case LOAD_NOT_TEXT:
		fail(rs, from, "%s: %s: not a text file", opt, path);
		return;
	}
	/* Another name of the same file would not be read-only inside
	 * (HOST PROTECTION in sbox-exec(1)). */
	if (strcmp(opt, "--policy") == 0 && st.st_nlink > 1) {
		fail(rs, from,
		    "--policy: %s has other hard links, through which a sandbox could change it; give it a file of its own",
		    path);
		return;
	}
	if (!may_include(rs, &st, path, opt, from))
		return;
	/* As given, so that a link on the way can be found (protect.c). */
	strv_take(&rs->config_files,
	    util_path_absolute(path, rs->inv->policy.cwd));
	rs->stack[rs->depth].dev = st.st_dev;
	rs->stack[rs->depth].ino = st.st_ino;
	rs->depth++;
	apply_file(rs, path, text);
	rs->depth--;
}

/*
 * A user's profile (CAND[0], taken as CAND[USED]) that has the name of a
 * shipped one, or of a shipped alias, replaces it: said at every launch
 * (but with -q), since a sandbox that could write the user's directory
 * may have put it there.
 */
static void
note_shadowing(struct resolver *rs, const char *name, char *const *cand,
    size_t n, size_t used, bool has_user)
{
	cleanup_free char *target = NULL;

	if (used != 0 || !has_user)
		return;
	for (size_t i = 1; i < n; i++)
		if (access(cand[i], F_OK) == 0) {
			strv_addf(&rs->inv->warnings,
			    "the user's profile %s replaces the shipped profile '%s' (%s)",
			    cand[0], name, cand[i]);
			return;
		}
	target = load_profile_alias(name);
	if (target != NULL)
		strv_addf(&rs->inv->warnings,
		    "the user's profile %s replaces the shipped profile '%s', which '%s' names",
		    cand[0], target, name);
}

/* An unknown profile NAME refused, with the nearest name or alias. */
static void
no_profile(struct resolver *rs, const char *name, const struct origin *o)
{
	cleanup_strv struct strv names = { 0 }, aliases = { 0 },
				 targets = { 0 };
	size_t shipped;
	const char *near;

	load_profile_names(&names);
	shipped = names.n;
	load_profile_aliases(&aliases, &targets);
	for (size_t i = 0; i < aliases.n; i++)
		strv_add(&names, aliases.v[i]);
	near = options_nearest(name, (const char *const *)names.v, names.n);
	for (size_t i = 0; near != NULL && i < aliases.n; i++)
		if (near == names.v[shipped + i]) {
			fail(rs, o,
			    "--profile: no profile named '%s'; did you mean '%s' (the profile '%s')?",
			    name, near, targets.v[i]);
			return;
		}
	if (near != NULL)
		fail(rs, o,
		    "--profile: no profile named '%s'; did you mean '%s'?",
		    name, near);
	else
		fail(rs, o,
		    "--profile: no profile named '%s' in the user's directory or in %s/profiles",
		    name, PKGDATADIR);
}

/* The first of the places a profile NAME may be that holds it, in
 * CAND[*I]; false when none does. */
static bool
find_profile(const char *name, char *cand[4], size_t *n, size_t *i,
    bool *has_user)
{
	*n = load_profile_candidates(name, cand, has_user);
	for (*i = 0; *i < *n && access(cand[*i], F_OK) != 0; (*i)++)
		;
	return *i < *n;
}

/*
 * --profile=NAME: the profile of that name, or else the one a shipped
 * alias names (a server's command: "pylsp" for python-lsp), so that a
 * user's profile named as the command still comes first.
 */
static void
load_profile(struct resolver *rs, const char *name, const struct origin *o)
{
	char *cand[4] = { NULL };
	cleanup_free char *target = NULL;
	const char *which = name;
	bool has_user, found;
	size_t n, i;

	found = find_profile(name, cand, &n, &i, &has_user);
	if (!found && (target = load_profile_alias(name)) != NULL) {
		for (i = 0; i < n; i++)
			free(cand[i]);
		which = target;
		found = find_profile(target, cand, &n, &i, &has_user);
	}
	if (found) {
		note_shadowing(rs, which, cand, n, i, has_user);
		load_policy(rs, cand[i], "--profile", o);
	} else if (target != NULL)
		fail(rs, o,
		    "--profile: no profile named '%s', which '%s' names, in the user's directory or in %s/profiles",
		    target, name, PKGDATADIR);
	else
		no_profile(rs, name, o);
	for (i = 0; i < n; i++)
		free(cand[i]);
}

/* --allow-host or --deny-host VALUE, onto the allow-list. */
static void
add_host(struct resolver *rs, enum opt_id id, const char *value,
    const struct origin *o)
{
	const char *why = netpolicy_add(&rs->inv->policy.egress, value,
	    id == OPT_DENY_HOST);

	if (why != NULL)
		fail(rs, o, "--%s: '%s': %s", options_name(id), value, why);
}

/* --timeout, --kill-after, --net-idle-timeout, --probe-timeout: their
 * form was checked by options_check_value(). */
static void
set_duration(struct invocation *inv, enum opt_id id, const char *value)
{
	if (id == OPT_PROBE_TIMEOUT) {
		(void)options_parse_seconds(value, &inv->probe_timeout_ms);
		inv->probe_timeout_given = true;
		return;
	}
	long long *to = id == OPT_TIMEOUT ? &inv->timeout_ms :
	    id == OPT_KILL_AFTER	  ? &inv->kill_after_ms :
					    &inv->net_idle_ms;

	(void)bounds_parse_duration(value, to);
	if (id == OPT_KILL_AFTER)
		inv->kill_after_given = true;
}

/* --net, --no-net, --tty, --lsp: a switch of the policy; --watch and
 * --no-watch, of the launcher (in order, so the command line's is the
 * last word; --learn watches whatever they say). */
static void
set_switch(struct invocation *inv, enum opt_id id)
{
	struct policy *p = &inv->policy;

	if (id == OPT_NET || id == OPT_NO_NET)
		p->net = id == OPT_NET;
	else if (id == OPT_TTY)
		p->tty = true;
	else if (id == OPT_LSP)
		p->lsp = true;
	else
		inv->denials = id == OPT_WATCH || inv->learn != NULL;
}

/* --setenv NAME VALUE, --unsetenv NAME, --clearenv. */
static void
add_env(struct policy *p, enum opt_id id, const char *name, const char *value)
{
	if (id == OPT_CLEARENV)
		policy_add_env(p, ENV_CLEAR, NULL, NULL);
	else
		policy_add_env(p, id == OPT_SETENV ? ENV_SET : ENV_UNSET, name,
		    value);
}

/* Apply one option, from argv or a file.  VALUE2 only for --setenv. */
static void
apply_option(struct resolver *rs, enum opt_id id, const char *value,
    const char *value2, const struct origin *o)
{
	struct policy *p = &rs->inv->policy;

	switch (id) {
	case OPT_FS: /* "host" or "minimal": options_check_value() */
		p->fs = strcmp(value, "minimal") == 0 ? FS_MINIMAL : FS_HOST;
		break;
	case OPT_RW:
	case OPT_RO:
	case OPT_HIDE:
	case OPT_RO_TRY:
	case OPT_RW_TRY:
	case OPT_RW_CREATE:
	case OPT_RW_CREATE_TRY:
	case OPT_ALLOW_SOCKET:
		add_path(rs, id, value, o);
		break;
	case OPT_NET:
	case OPT_NO_NET:
	case OPT_TTY:
	case OPT_LSP:
	case OPT_WATCH:
	case OPT_NO_WATCH:
		set_switch(rs->inv, id);
		break;
	case OPT_ALLOW_HOST:
	case OPT_DENY_HOST:
		add_host(rs, id, value, o);
		break;
	case OPT_CHDIR:
		set_chdir(rs, value, o);
		break;
	case OPT_CACHE:
		add_cache(rs, value, o);
		break;
	case OPT_SETENV:
	case OPT_UNSETENV:
	case OPT_CLEARENV:
		add_env(p, id, value, value2);
		break;
	case OPT_KEEP_FD:
		add_keep_fd(rs, value, o);
		break;
	case OPT_PROBE_TIMEOUT:
	case OPT_TIMEOUT:
	case OPT_KILL_AFTER:
	case OPT_NET_IDLE_TIMEOUT:
		set_duration(rs->inv, id, value);
		break;
	case OPT_LIMIT: /* its form: options_check_value() */
		free(bounds_parse_limit(value, &rs->inv->bounds));
		break;
	case OPT_POLICY:
		load_policy(rs, value, "--policy", o);
		break;
	case OPT_PROFILE:
		load_profile(rs, value, o);
		break;
	case OPT_NONE:
	case OPT_PROJECT:
	case OPT_LEARN:
	case OPT_UPSTREAM_PROXY:
	case OPT_UPSTREAM_PROXY_AUTH_FILE:
	case OPT_ALLOW_SETUID_FILES:
	case OPT_TTY_UNFILTERED:
	case OPT_CHECK:
	case OPT_PRINT:
	case OPT_JSON:
	case OPT_BWRAP:
	case OPT_STATUS_FD:
	case OPT_LOG_FD:
	case OPT_STATUS_SOCKET:
	case OPT_QUIET:
	case OPT_VERBOSE:
	case OPT_HELP:
	case OPT_VERSION:
	case OPT_END:
		break; /* the launcher's own: cli.c took them */
	}
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

static const char *
env_lookup(const char *name, void *ctx)
{
	(void)ctx;
	return getenv(name);
}

static void
add_protection(struct invocation *inv, struct protect_holds *holds,
    struct strv *config_files)
{
	cleanup_free char *pw_home = passwd_home(util_uid());
	struct creds_list cl = { 0 };
	struct creds_env cenv = {
		.homes = { getenv("HOME"), pw_home },
		.getenv = env_lookup,
	};
	struct protect_env env = {
		.homes = { getenv("HOME"), pw_home },
		.homes_real = { home_real(0), home_real(1) },
		.runtime_dir = getenv("XDG_RUNTIME_DIR"),
		.uid = util_uid(),
		.status_sockets = inv->status_sockets,
		.nstatus_sockets = inv->nstatus_sockets,
		.creds = &cl,
		.cenv = &cenv,
		.holds = holds,
		.warnings = &inv->warnings,
		.config_files = config_files,
	};
	struct sbox_error e = { 0 };

	/* --learn's file (made at launch when missing: main.c), read by the
	 * next launch like the policy files this one read. */
	if (inv->learn != NULL && inv->mode == MODE_RUN)
		strv_take(config_files,
		    util_path_absolute(inv->learn, inv->policy.cwd));
	if ((load_credentials(&cenv, &cl, &e) < 0 ||
		protect_add_defaults(&inv->policy, &env, &e) < 0) &&
	    inv->err.detail == NULL)
		inv->err = e;
	else
		sbox_error_clear(&e);
	/* Kept: a refused write's suggested grant must not reach them. */
	strv_clear(&inv->cred_masks);
	inv->cred_masks = cl.masks;
	cl.masks = (struct strv){ 0 };
	creds_list_clear(&cl);
}

/*
 * What --learn never grants and --watch never suggests (DENIALS in
 * sbox-exec(1)): the shipped never-learned list, for both homes, and
 * every directory on the caller's PATH but the project's own (a
 * project's bin directory put there by its tools is the project's, which
 * a grant of the project holds already).  0, or -1 with ERR set.
 */
int
resolve_never_learned(const struct invocation *inv, struct nolearn_list *out,
    struct sbox_error *err)
{
	cleanup_free char *pw_home = passwd_home(util_uid());
	struct creds_env cenv = {
		.homes = { getenv("HOME"), pw_home },
		.getenv = env_lookup,
	};
	struct nolearn_list path = { 0 };
	const char *env_path = getenv("PATH");
	cleanup_free char *dirs = xstrdup(env_path != NULL ? env_path : "");
	const char *mine[4] = { getenv("HOME"), pw_home, home_real(0),
		home_real(1) };
	char *save = NULL;
	struct passwd *pw;
	bool wide_project = inv->project_real != NULL &&
	    strcmp(inv->project_real, "/") == 0;
	FILE *f;

	if (load_never_learned(&cenv, out, err) < 0)
		return -1;
	/* PATH as written, and where each directory really is (a link
	 * followed by "..", which the text alone cannot tell). */
	nolearn_add_dirs(&path, env_path, "path");
	for (char *d = strtok_r(dirs, ":", &save); d != NULL;
	     d = strtok_r(NULL, ":", &save)) {
		cleanup_free char *real = d[0] == '/' ? util_realpath(d) : NULL;

		if (real != NULL)
			nolearn_add_dirs(&path, real, "path");
	}
	/* The project's own bin directories are the project's, but not when
	 * the project is / or holds a home: then every directory is. */
	for (size_t i = 0; i < N_ELEMENTS(mine) && wide_project == false; i++)
		wide_project = mine[i] != NULL && mine[i][0] == '/' &&
		    inv->project_real != NULL &&
		    util_path_within(mine[i], inv->project_real);
	for (size_t i = 0; i < path.n; i++)
		if (inv->project_real == NULL || wide_project ||
		    !util_path_within(path.v[i].path, inv->project_real))
			nolearn_add(out, NOLEARN_RUNS, path.v[i].path,
			    path.v[i].what, NULL);
	nolearn_clear(&path);
	/* Every other user's home: what runs from it runs as that user.
	 * Not one that holds the caller's own home or the project. */
	f = fopen("/etc/passwd", "re");
	while (f != NULL && (pw = fgetpwent(f)) != NULL) {
		cleanup_free char *home = NULL;
		bool ours = false;

		if (pw->pw_dir == NULL || pw->pw_dir[0] != '/')
			continue;
		home = util_path_absolute(pw->pw_dir, "/");
		for (size_t i = 0; i < N_ELEMENTS(mine); i++)
			ours = ours ||
			    (mine[i] != NULL && mine[i][0] == '/' &&
				util_path_within(mine[i], home));
		if (ours || strcmp(home, "/") == 0 ||
		    (inv->project_real != NULL &&
			util_path_within(inv->project_real, home)))
			continue;
		nolearn_add_home(out, home);
	}
	if (f != NULL)
		fclose(f);
	return 0;
}

/* Status descriptors must be open (one that is not is dropped: nothing
 * can be told there), and not also given to the command. */
static void
check_status_fds(struct invocation *inv)
{
	size_t kept = 0;

	for (size_t i = 0; i < inv->nstatus_fds; i++) {
		int fd = inv->status_fds[i];

		if (fcntl(fd, F_GETFD) < 0) {
			cli_fail(inv, NULL, 0,
			    "--status-fd=%d: descriptor is not open", fd);
			continue;
		}
		if (policy_keeps_fd(&inv->policy, fd))
			cli_fail(inv, NULL, 0,
			    "descriptor %d is both --status-fd and --keep-fd",
			    fd);
		inv->status_fds[kept++] = fd;
	}
	inv->nstatus_fds = kept;
}

/*
 * The event channel outlives the hand-over, so it must be open and be
 * none of the command's own descriptors: not its stdin or stdout (which
 * the launcher lets go of), not a --keep-fd, not a status descriptor
 * above 2 (closed once the status is said).  Standard error may carry
 * events.
 */
static void
check_log_fd(struct invocation *inv)
{
	int fd = inv->log_fd;

	if (fd < 0)
		return;
	if (fd == STDIN_FILENO || fd == STDOUT_FILENO)
		cli_fail(inv, NULL, 0,
		    "--log-fd=%d: the command's standard %s cannot carry events; use 2 or a descriptor of its own",
		    fd, fd == STDIN_FILENO ? "input" : "output");
	else if (fcntl(fd, F_GETFD) < 0)
		cli_fail(inv, NULL, 0, "--log-fd=%d: descriptor is not open",
		    fd);
	else if (policy_keeps_fd(&inv->policy, fd))
		cli_fail(inv, NULL, 0,
		    "descriptor %d is both --log-fd and --keep-fd", fd);
	for (size_t i = 0; i < inv->nstatus_fds; i++)
		if (inv->status_fds[i] == fd && fd > STDERR_FILENO)
			cli_fail(inv, NULL, 0,
			    "descriptor %d is both --log-fd and --status-fd",
			    fd);
}

/*
 * The working directory must exist where the sandbox takes it from the
 * host; bwrap would only fail later, and less clearly.
 */
static void
check_chdir(struct invocation *inv)
{
	const struct policy *p = &inv->policy;
	const struct mount *m = policy_mount_for(p, p->chdir);
	cleanup_free char *host = NULL;
	struct stat st;

	if (m == NULL || m->src == NULL || !policy_mount_from_host(m->kind))
		return;
	host = xasprintf("%s%s", m->src, p->chdir + strlen(m->dest));
	if (stat(host, &st) < 0)
		cli_fail(inv, NULL, 0, "--chdir: %s: %s", p->chdir,
		    strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		cli_fail(inv, NULL, 0, "--chdir: %s: %s", p->chdir,
		    strerror(ENOTDIR));
}

/* Whether DIR (real) is /, a home directory or above one: what it is,
 * or NULL. */
static const char *
wide_project(const char *dir)
{
	if (strcmp(dir, "/") == 0)
		return "/";
	for (size_t i = 0; i < 2; i++) {
		const char *real = home_real(i);

		if (real != NULL && strcmp(real, dir) == 0)
			return "the home directory";
		if (real != NULL && util_path_within(real, dir))
			return "a directory that holds the home directory";
	}
	return NULL;
}

/*
 * The project (sbox-exec(1), --project): --project's directory, or the
 * working directory; the command starts there when it was named.
 */
static void
resolve_project(struct resolver *rs)
{
	struct invocation *inv = rs->inv;
	const char *given = inv->project ? inv->project : inv->policy.cwd;
	struct stat st;

	rs->project = util_realpath(given);
	if (rs->project == NULL && (errno == ENOENT || errno == ENOTDIR) &&
	    inv->project != NULL && written_as_pattern(given, &cmdline)) {
		cli_fail(inv, NULL, 0, NOT_A_PATTERN, "project", given);
		return;
	}
	if (rs->project == NULL || stat(rs->project, &st) < 0) {
		cli_fail(inv, NULL, 0, "--project: %s: %s", given,
		    strerror(errno));
		free(steal_pointer(&rs->project));
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		cli_fail(inv, NULL, 0, "--project: %s: %s", given,
		    strerror(ENOTDIR));
		free(steal_pointer(&rs->project));
		return;
	}
	rs->project_wide = wide_project(rs->project);
	if (inv->project != NULL)
		inv->policy.chdir = xstrdup(rs->project);
}

/*
 * --kill-after means nothing alone; a limit above the caller's own hard
 * limit could not be set inside (TIMEOUT AND LIMITS in sbox-exec(1)): refused.
 */
#define NOFILE_MIN 3

static void
check_bounds(struct invocation *inv)
{
	const struct bounds *b = &inv->bounds;

	if (inv->kill_after_given && inv->timeout_ms == 0)
		cli_fail(inv, NULL, 0, "--kill-after needs --timeout");
	/* The kernel exempts the host's uid 0 from RLIMIT_NPROC, whatever
	 * its capabilities and namespace: the sandbox's processes are it. */
	if (util_uid() == 0 && b->set[BOUND_NPROC] &&
	    b->value[BOUND_NPROC] != RLIM_INFINITY)
		cli_fail(inv, NULL, 0,
		    "--limit: nproc cannot be enforced when sbox-exec runs as root: the kernel does not count root's processes against it");
	/* Below 3, the command would start without stdin, stdout, stderr. */
	if (b->set[BOUND_NOFILE] && b->value[BOUND_NOFILE] < NOFILE_MIN)
		cli_fail(inv, NULL, 0,
		    "--limit: nofile=%llu is too low: a command needs at least %d descriptors (stdin, stdout, stderr)",
		    (unsigned long long)b->value[BOUND_NOFILE], NOFILE_MIN);
	for (size_t r = 0; r < BOUND_N; r++) {
		struct rlimit rl;
		cleanup_buf struct buf want = { 0 }, hard = { 0 };

		if (!b->set[r] ||
		    getrlimit(bounds_resource((enum bound_res)r), &rl) < 0 ||
		    rl.rlim_max == RLIM_INFINITY || b->value[r] <= rl.rlim_max)
			continue;
		bounds_format(b->value[r], &want);
		bounds_format(rl.rlim_max, &hard);
		cli_fail(inv, NULL, 0,
		    "--limit: %s=%s is above sbox-exec's hard limit of %s; a sandbox cannot raise it",
		    bounds_name((enum bound_res)r), want.s, hard.s);
	}
}

/*
 * The upstream proxy's credentials from FILE (--upstream-proxy-auth-file)
 * into U's of both kinds.  The file must be the user's own and readable
 * by nobody else, as ssh asks of a key: its content is a password.
 */
static void
read_auth_file(struct invocation *inv, const char *file)
{
	char text[UPSTREAM_USERPASS_MAX + 4];
	cleanup_fd int fd = util_open(file, O_RDONLY | O_NOCTTY, 0);
	struct stat st;
	ssize_t n = 0;
	const char *why;
	char *auth = NULL;

	if (fd < 0 || fstat(fd, &st) < 0) {
		cli_fail(inv, NULL, 0, "--upstream-proxy-auth-file: %s: %s",
		    file, strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		cli_fail(inv, NULL, 0,
		    "--upstream-proxy-auth-file: %s is not a regular file",
		    file);
		return;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
		cli_fail(inv, NULL, 0,
		    "--upstream-proxy-auth-file: %s must be yours and readable by you alone (it is mode %04o, owner %u): chmod 600 it",
		    file, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
		return;
	}
	if (st.st_size > UPSTREAM_USERPASS_MAX + 2 ||
	    (n = read(fd, text, sizeof(text) - 1)) < 0 ||
	    (size_t)n > UPSTREAM_USERPASS_MAX + 2) {
		cli_fail(inv, NULL, 0, "--upstream-proxy-auth-file: %s: %s",
		    file, n < 0 ? strerror(errno) : "longer than 1 KiB");
		explicit_bzero(text, sizeof(text));
		return;
	}
	text[n] = '\0';
	why = memchr(text, '\0', (size_t)n) != NULL ?
	    "the file holds a NUL byte" :
	    upstream_userpass(text, &auth);
	explicit_bzero(text, sizeof(text));
	if (why != NULL) {
		cli_fail(inv, NULL, 0, "--upstream-proxy-auth-file: %s: %s",
		    file, why);
		return;
	}
	for (int i = 0; i < 2; i++) {
		struct upstream *u = i ? &inv->upstream.plain :
					 &inv->upstream.tunnel;

		if (u->host[0] == '\0')
			continue;
		if (u->auth != NULL) {
			explicit_bzero(u->auth, strlen(u->auth));
			free(u->auth);
		}
		u->auth = xstrdup(auth);
	}
	explicit_bzero(auth, strlen(auth));
	free(auth);
}

/* The first of NAMES set and not empty in the environment, or NULL;
 * its name in *WHICH. */
static const char *
proxy_env(const char *const names[2], const char **which)
{
	for (int i = 0; i < 2; i++) {
		const char *v = getenv(names[i]);

		if (v != NULL && v[0] != '\0') {
			*which = names[i];
			return v;
		}
	}
	return NULL;
}

/*
 * The upstream proxy in effect (sbox-exec(1), --upstream-proxy): the
 * option's, or else the environment's (tunnels from https_proxy or
 * HTTPS_PROXY, plain HTTP from http_proxy or HTTP_PROXY, each standing
 * in for the other when only one is set), and NO_PROXY's list; none with
 * --upstream-proxy=none or without --allow-host.  A malformed URL is a
 * refusal: a run that silently went direct would be a surprise in a
 * network that allows only the proxy.
 */
static void
resolve_upstream(struct invocation *inv)
{
	static const char *const tunnel_names[2] = { "https_proxy",
		"HTTPS_PROXY" };
	static const char *const plain_names[2] = { "http_proxy",
		"HTTP_PROXY" };
	struct upstream_conf *up = &inv->upstream;
	const char *which = NULL, *no_proxy;

	if (!netpolicy_active(&inv->policy.egress) ||
	    (inv->upstream_proxy != NULL &&
		strcmp(inv->upstream_proxy, "none") == 0))
		return;
	if (inv->upstream_proxy != NULL) {
		/* The form was checked by options_check_value(). */
		(void)upstream_parse(inv->upstream_proxy, false, &up->tunnel);
		upstream_copy(&up->plain, &up->tunnel);
		inv->upstream_from = "--upstream-proxy";
	} else {
		for (int i = 0; i < 2; i++) {
			const char *const *names = i ? plain_names :
						       tunnel_names;
			const char *v = proxy_env(names, &which);
			const char *why;

			if (v == NULL)
				continue;
			why = upstream_parse(v, true,
			    i ? &up->plain : &up->tunnel);
			if (why != NULL) {
				cli_fail(inv, NULL, 0,
				    "%s in the environment: %s (or give --upstream-proxy=none)",
				    which, why);
				return;
			}
			if (inv->upstream_from == NULL)
				inv->upstream_from = which;
		}
		if (up->tunnel.host[0] == '\0' && up->plain.host[0] != '\0')
			upstream_copy(&up->tunnel, &up->plain);
		else if (up->plain.host[0] == '\0' &&
		    up->tunnel.host[0] != '\0')
			upstream_copy(&up->plain, &up->tunnel);
	}
	if (up->tunnel.host[0] == '\0')
		return;
	no_proxy = getenv("no_proxy");
	if (no_proxy == NULL || no_proxy[0] == '\0')
		no_proxy = getenv("NO_PROXY");
	if (no_proxy != NULL && no_proxy[0] != '\0')
		up->no_proxy = xstrdup(no_proxy);
	if (inv->upstream_auth_file != NULL)
		read_auth_file(inv, inv->upstream_auth_file);
	strv_take(&inv->notices,
	    xasprintf(
		"network: allowed hosts through the upstream proxy %s (from %s)%s",
		up->tunnel.shown, inv->upstream_from,
		up->no_proxy != NULL ? ", but NO_PROXY's directly" : ""));
}

/* The requests of the command line: files first, then the rest. */
static void
apply_requests(struct resolver *rs)
{
	const struct invocation *inv = rs->inv;

	for (size_t i = 0; i < inv->nrequests; i++)
		if (options_scope(inv->requests[i].id) == SCOPE_INCLUDE)
			apply_option(rs, inv->requests[i].id,
			    inv->requests[i].value, NULL, &cmdline);
	for (size_t i = 0; i < inv->nrequests; i++)
		if (options_scope(inv->requests[i].id) != SCOPE_INCLUDE)
			apply_option(rs, inv->requests[i].id,
			    inv->requests[i].value, inv->requests[i].value2,
			    &cmdline);
}

int
resolve_invocation(struct invocation *inv, struct protect_holds *holds)
{
	struct resolver rs = { .inv = inv };
	cleanup_free char *cwd = getcwd(NULL, 0);
	const char *env_bwrap = getenv("SBOX_EXEC_BWRAP");

	/* Refused by cli_parse(): only the channels to tell it on matter. */
	if (inv->err.detail != NULL) {
		check_status_fds(inv);
		return -1;
	}
	policy_init(&inv->policy, cwd ? cwd : "/");
	if (cwd == NULL)
		cli_fail(inv, NULL, 0,
		    "cannot determine the working directory: %s",
		    strerror(errno));
	resolve_project(&rs);
	apply_requests(&rs);
	for (size_t i = 0; i < N_ANCHORS; i++)
		free(rs.anchors[i]);
	free(inv->project_real);
	free(inv->cache_root);
	inv->cache_root = NULL;
	/* For the refusals' suggestions, spelt out (DENIALS). */
	if (inv->denials && cache_root_of(&rs) != NULL)
		inv->cache_root = xstrdup(rs.cache_root);
	inv->project_real = steal_pointer(&rs.project);
	free(rs.cache_root);
	free(rs.node_modules);
	if (inv->bwrap == NULL && env_bwrap != NULL && env_bwrap[0] != '\0') {
		inv->bwrap = xstrdup(env_bwrap);
		inv->bwrap_from_env = true;
	}
	if (inv->bwrap != NULL && !inv->bwrap_from_env &&
	    access(inv->bwrap, F_OK) < 0 &&
	    (errno == ENOENT || errno == ENOTDIR) &&
	    written_as_pattern(inv->bwrap, &cmdline))
		cli_fail(inv, NULL, 0, NOT_A_PATTERN, "bwrap", inv->bwrap);
	check_status_fds(inv);
	check_bounds(inv);
	check_log_fd(inv);
	resolve_upstream(inv);
	if (inv->upstream_auth_file != NULL &&
	    inv->upstream.tunnel.host[0] == '\0' &&
	    netpolicy_active(&inv->policy.egress))
		cli_fail(inv, NULL, 0,
		    "--upstream-proxy-auth-file: no upstream proxy is in use (give --upstream-proxy=URL, or set HTTPS_PROXY)");
	add_base_mounts(&inv->policy);
	/* Refused already: no need to look further at the host. */
	if (inv->err.detail != NULL) {
		strv_clear(&rs.config_files);
		return -1;
	}
	add_protection(inv, holds, &rs.config_files);
	strv_clear(&rs.config_files);
	if (inv->err.detail == NULL &&
	    policy_finish(&inv->policy, &inv->err) == 0)
		check_chdir(inv);
	if (!inv->probe_timeout_given && inv->policy.nmounts > CLI_MANY_MOUNTS)
		inv->probe_timeout_ms += (long)(inv->policy.nmounts *
		    inv->policy.nmounts / CLI_MOUNTS_SQ_PER_MS);
	return inv->err.detail == NULL ? 0 : -1;
}
