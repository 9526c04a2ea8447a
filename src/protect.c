/*
 * protect.c - host protection, applied to every policy.
 *
 * MUST: mask only what exists (sbox-exec creates nothing on the host but
 * the placeholders of git_hold(), which git reads as absent and the
 * launch removes again); yield to an explicit --ro/--rw/--allow-socket/--hide of the same path;
 * never widen what the policy shows.  The reason for each entry is in the
 * manual page, section HOST PROTECTION.  The credential stores and the
 * places to look for sockets come from the credential list (creds.c), the
 * sockets themselves from a walk at launch (scan.c).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "creds.h"
#include "gitconfig.h"
#include "protect.h"
#include "scan.h"
#include "seen.h"
#include "util.h"

#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/sbox-exec"
#endif
#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/sbox-exec"
#endif

/*
 * Sockets under /run through which a program can reach a service that
 * acts for it outside the sandbox: a read-only mount of a socket is still
 * connectable, so these are hidden, not made read-only.
 */
static const char *const run_services[] = {
	"dbus",	       /* the D-Bus system bus */
	"docker.sock", /* docker: root on the host */
	"docker", "containerd", "podman", "crio", "libvirt", "snapd.socket",
	"snapd-snap.socket",
	"systemd",	/* systemd's private and notify sockets */
	"lxd", "incus", /* system containers: root on the host */
	"k3s", "cri-dockerd.sock", "buildkit",
	"screen", /* attaching a screen session runs as the user */
	"sudo",	  /* sudo's timestamps */
	"postgresql", "mysqld", "redis", /* peer authentication as the user */
};

/* Engines whose sockets live elsewhere than /run. */
static const char *const var_services[] = {
	"/var/lib/lxd",
	"/var/snap/lxd/common/lxd",
	"/var/lib/incus",
};

/* Kept visible under a hidden /run/systemd: name resolution needs it. */
static const char *const run_keep[] = {
	"systemd/resolve",
};

enum want {
	WANT_HIDE,     /* masked: an empty directory or file */
	WANT_READONLY, /* read-only where the user made it writable */
	WANT_KEEP,     /* shown read-only below a masked directory */
	WANT_PIN,      /* bound onto itself, so it cannot be renamed */
};

/* Submodules of submodules, and no deeper. */
#define GIT_DEPTH 3

struct candidate {
	enum want want;
	char *path;
};

struct plan {
	struct candidate *v;
	size_t n, cap;
	unsigned git_files;	     /* git files and directories read so far */
	bool git_overflow;	     /* more than GIT_FILES_MAX: refuse */
	struct protect_holds *holds; /* a run: placeholders may be made */
	const struct policy *policy; /* what the user named, or NULL */
	struct seen *seen;	     /* listings that spare lookups, or NULL */
	struct strv *warnings;	     /* said on stderr, or NULL */
	char *config_link; /* the refusal: a policy file reached by a link */
};

/*
 * Git metadata read for one launch (or one audit), at the most: files
 * opened and directories listed.  A repository may be hostile: includes
 * that fan out, modules/ entries that link back.  Past this, the launch
 * is refused rather than protected in part.
 */
#define GIT_FILES_MAX 512
/* A git file larger than this is not read (git's own are small). */
#define GIT_FILE_BYTES (1 << 20)

/* Count one more git file or directory read; false once over budget. */
static bool
git_budget(struct plan *pl)
{
	if (++pl->git_files > GIT_FILES_MAX)
		pl->git_overflow = true;
	return !pl->git_overflow;
}

/*
 * Open FILE of a repository for reading, only when it is a regular file
 * of a sane size reached without a final symlink: a FIFO would block,
 * /dev/zero would never end, and /proc/self/fd/0 would read the caller's
 * terminal.  NULL otherwise.
 */
static FILE *
git_fopen(struct plan *pl, const char *file)
{
	struct stat st;
	FILE *f;
	int fd;

	if (!git_budget(pl))
		return NULL;
	fd = util_open(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW, 0);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > GIT_FILE_BYTES || (f = fdopen(fd, "re")) == NULL) {
		close(fd);
		return NULL;
	}
	return f;
}

static void
plan_add(struct plan *pl, enum want want, char *path)
{
	if (path == NULL)
		return;
	for (size_t i = 0; i < pl->n; i++)
		if (pl->v[i].want == want && strcmp(pl->v[i].path, path) == 0) {
			free(path);
			return;
		}
	pl->v = util_grow(pl->v, pl->n, &pl->cap, sizeof(*pl->v));
	pl->v[pl->n].want = want;
	pl->v[pl->n].path = path;
	pl->n++;
}

static void
plan_run_dir(struct plan *pl, const char *run)
{
	for (size_t i = 0; i < N_ELEMENTS(run_services); i++)
		plan_add(pl, WANT_HIDE, util_path_join(run, run_services[i]));
	for (size_t i = 0; i < N_ELEMENTS(run_keep); i++)
		plan_add(pl, WANT_KEEP, util_path_join(run, run_keep[i]));
}

/*
 * The first line of FILE, "KEY: PATH" or a bare path (commondir), as an
 * absolute path; a relative one is taken from BASE.  NULL if unreadable.
 */
static char *
git_pointer(struct plan *pl, const char *file, const char *base)
{
	char line[PATH_MAX + 16];
	FILE *f = git_fopen(pl, file);
	bool ok;

	if (f == NULL)
		return NULL;
	ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	return ok ? gitconfig_pointer(line, base) : NULL;
}

/*
 * The mark of a placeholder: whichever launch holds it last removes it,
 * the one that made it or another that found it (where the file system
 * keeps user attributes; elsewhere only the maker does).
 */
#define HOLD_MARK "user.sbox-exec.placeholder"

/*
 * A shared lock on FD, waited for a little: a launch removing the file
 * holds it exclusively for a moment.  A sandbox cannot hold it so (its
 * own launcher holds it shared), but nothing else that could must hang
 * the launch either: without the lock the file is bound all the same,
 * and not removed.
 */
static bool
hold_lock(int fd)
{
	const struct timespec pause = { 0, 20 * 1000 * 1000 };

	for (int i = 0; i < 50; i++) {
		if (flock(fd, LOCK_SH | LOCK_NB) == 0)
			return true;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return false;
		nanosleep(&pause, NULL);
	}
	return false;
}

/* Keep PATH (made or found) and a shared lock on it, open as FD. */
static bool
hold_keep(struct plan *pl, const char *path, int fd, bool made)
{
	struct protect_holds *h = pl->holds;
	struct stat st;

	if (made)
		(void)fsetxattr(fd, HOLD_MARK, "1", 1, 0);
	else
		made = fgetxattr(fd, HOLD_MARK, NULL, 0) == 1;
	if (!hold_lock(fd))
		made = false;
	if (fstat(fd, &st) < 0 || st.st_nlink == 0) {
		/* Removed by the launch that made it, just now: again. */
		close(fd);
		return false;
	}
	h->v = util_grow(h->v, h->n, &h->cap, sizeof(*h->v));
	h->v[h->n++] = (struct protect_hold){ .path = xstrdup(path),
		.fd = fd,
		.made = made,
		.dev = st.st_dev,
		.ino = st.st_ino };
	return true;
}

/*
 * A name in a writable git directory that redirects git when it exists
 * (sbox-exec(1), HOST PROTECTION): held for the run, so that the sandbox
 * can neither create nor change it.  A mount needs something to mount
 * on, and a mount point cannot be made in the sandbox's view alone: where
 * there is nothing, a placeholder that git reads as the absence of the
 * name is made (a directory, or a file holding TEXT: "." for commondir,
 * the git directory itself), bound read-only like an existing one, and
 * removed after the run unless another launch holds it.  Only for a run.
 */
static void
git_hold(struct plan *pl, const char *path, bool dir, const char *text)
{
	if (pl->holds == NULL)
		return;
	/* Once: a second lock of ours would keep the first from removing it. */
	for (size_t i = 0; i < pl->holds->n; i++)
		if (strcmp(pl->holds->v[i].path, path) == 0)
			return;
	for (int tries = 0; tries < 3; tries++) {
		int fd = util_open(path,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			(dir ? O_DIRECTORY : 0),
		    0);
		bool made = false;

		if (fd < 0 && errno != ENOENT)
			return; /* something else: bound as it is, or not */
		if (fd < 0 && dir) {
			made = mkdir(path, 0755) == 0;
			if (!made && errno != EEXIST)
				return;
			fd = util_open(path,
			    O_RDONLY | O_NOFOLLOW | O_DIRECTORY, 0);
		} else if (fd < 0) {
			size_t len = strlen(text);

			fd = util_open(path,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
			if (fd < 0 && errno != EEXIST)
				return;
			made = fd >= 0;
			if (made && write(fd, text, len) != (ssize_t)len) {
				(void)unlink(path);
				close(fd);
				return;
			}
		}
		if (fd >= 0 && hold_keep(pl, path, fd, made))
			return;
	}
}

/*
 * DIR/modules, the git directories of submodules, when DIR is writable:
 * read-only unless --rw names it, so that no entry can be made in it (a
 * git directory for a submodule not yet cloned, which a later `git
 * submodule update` would take).  A submodule's own git directory is
 * writable only where --rw names it, as when its work tree is found.
 */
static void
plan_git_modules(struct plan *pl, const char *dir)
{
	char *mods = util_path_join(dir, "modules");

	/* Named by --rw: the user's to write, nothing to hold. */
	if (pl->policy == NULL || !policy_user_named(pl->policy, mods))
		git_hold(pl, mods, true, NULL);
	plan_add(pl, WANT_READONLY, mods);
}

/*
 * PATH (taken), an entry of a git directory, read-only.  One that is a
 * symbolic link (a hooks directory kept in the work tree, the repo
 * tool's links into its own store) is planned where it leads, which git
 * follows and bwrap can make a mount point of; where that does not
 * exist yet, the place it names, for the audit after the run to look at.
 * LINKS_ONLY: the directory is read-only whole, and only a link can lead
 * out of it.
 */
static void
plan_git_entry(struct plan *pl, char *path, bool links_only)
{
	char buf[PATH_MAX];
	struct stat st;
	char *to, *parent;
	ssize_t n;

	if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode)) {
		if (links_only)
			free(path);
		else
			plan_add(pl, WANT_READONLY, path);
		return;
	}
	to = util_realpath(path);
	if (to == NULL && (n = readlink(path, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		parent = util_path_absolute("..", path);
		to = util_path_absolute(buf, parent);
		free(parent);
	}
	free(path);
	if (to != NULL)
		plan_add(pl, WANT_READONLY, to);
}

static void plan_git_dir(struct plan *, const char *, int, bool);

/* Directories a submodule's name may put between modules/ and its git
 * directory ("libs/sub" is modules/libs/sub), at the most. */
#define GIT_NAME_DEPTH 8

/*
 * The git directories in SUB, a modules/ (MODULES) or worktrees/ of a git
 * directory DEPTH levels from the bound: each planned with
 * plan_git_dir(), writable with its parent for a worktree, and for a
 * submodule where --rw names it.  A modules/ entry that is no git
 * directory (no HEAD) is a part of a submodule's name: looked into,
 * LEVELS deep.  PIN: each directory found is bound onto itself.
 */
struct git_nested {
	struct plan *pl;
	const char *sub;
	bool modules, writable, pin;
	int depth, levels;
};

static void plan_git_nested(struct plan *, const char *, bool, int, bool, bool,
    int);

static bool
git_nested_entry(void *ctx, const char *name, unsigned char type)
{
	const struct git_nested *g = ctx;
	cleanup_free char *child = NULL, *head = NULL;
	struct stat st;

	(void)type;
	if (g->pl->git_overflow)
		return false;
	if (name[0] == '.')
		return true;
	child = util_path_join(g->sub, name);
	if (lstat(child, &st) < 0 || !S_ISDIR(st.st_mode))
		return true;
	if (g->pin)
		plan_add(g->pl, WANT_PIN, xstrdup(child));
	head = util_path_join(child, "HEAD");
	if (g->modules && g->levels > 1 && lstat(head, &st) < 0)
		plan_git_nested(g->pl, child, true, g->depth, g->writable,
		    g->pin, g->levels - 1);
	else
		plan_git_dir(g->pl, child, g->depth - 1,
		    g->writable &&
			(!g->modules ||
			    (g->pl->policy != NULL &&
				policy_user_named(g->pl->policy, child))));
	return true;
}

static void
plan_git_nested(struct plan *pl, const char *sub, bool modules, int depth,
    bool writable, bool pin, int levels)
{
	struct git_nested g = { pl, sub, modules, writable, pin, depth,
		levels };
	int fd;

	if (!git_budget(pl) ||
	    (fd = util_open(sub, O_RDONLY | O_DIRECTORY, 0)) < 0)
		return;
	(void)util_dir_each(fd, git_nested_entry, &g);
	close(fd);
}

/*
 * What git runs or reads as configuration in the git directory DIR, in
 * the common directory it may point to (linked worktrees), and in the git
 * directories of its submodules and worktrees; DEPTH bounds the descent.
 * WRITABLE: DIR is writable in the sandbox, and the names that redirect
 * git are held there (git_hold()) and modules/ made read-only.
 */
static void
plan_git_dir(struct plan *pl, const char *dir, int depth, bool writable)
{
	static const char *const entries[] = {
		"hooks",
		"config",
		"config.worktree",
		"commondir",
		"gitdir",
	};
	static const char *const nested[] = { "modules", "worktrees" };
	cleanup_free char *common_file = util_path_join(dir, "commondir");
	cleanup_free char *common = NULL;
	cleanup_free char *wt_file = util_path_join(dir, "config.worktree");

	if (writable) {
		git_hold(pl, common_file, false, ".\n");
		git_hold(pl, wt_file, false, "");
		plan_git_modules(pl, dir);
	}
	common = git_pointer(pl, common_file, dir);
	for (size_t i = 0; i < N_ELEMENTS(entries); i++) {
		plan_git_entry(pl, util_path_join(dir, entries[i]), false);
		if (common != NULL && i < 2)
			plan_git_entry(pl, util_path_join(common, entries[i]),
			    false);
	}
	if (depth == 0)
		return;
	for (size_t i = 0; i < N_ELEMENTS(nested); i++) {
		cleanup_free char *sub = util_path_join(dir, nested[i]);
		struct stat st;
		/*
		 * What can be renamed in it is pinned: a linked worktree's or
		 * a submodule's git directory renamed away could be replaced
		 * by one of the command's making, whose commondir or config
		 * git would follow.  worktrees/ is writable with DIR;
		 * modules/ only where --rw names it.
		 */
		bool pin = writable &&
		    (i == 1 ||
			(pl->policy != NULL &&
			    policy_user_named(pl->policy, sub)));

		/* Real directories only: an entry may link anywhere. */
		if (lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (pin && i == 1)
			plan_add(pl, WANT_PIN, xstrdup(sub));
		plan_git_nested(pl, sub, i == 0, depth, writable, pin,
		    GIT_NAME_DEPTH);
	}
}

/* Include files followed from one configuration file, at the most. */
#define GIT_INCLUDE_DEPTH 4

/*
 * The places git takes code or configuration from that FILE names:
 * core.hooksPath (relative to TOP, the work tree) and the files of
 * include.path and includeIf.*.path (relative to FILE's directory, and
 * followed DEPTH deep).  Read-only where they lie in a writable grant,
 * like .git/hooks.  A minimal reading of git's syntax: sections, keys
 * case-insensitive, quotes and comments.
 */
static void
plan_git_config(struct plan *pl, const char *file, const char *top,
    const char *home, int depth)
{
	cleanup_free char *dir = NULL;
	struct gitconfig_lexer lx = { "" };
	char line[PATH_MAX + 64];
	FILE *f;

	if (depth < 0 || (f = git_fopen(pl, file)) == NULL)
		return;
	dir = util_path_absolute("..", file);
	while (fgets(line, sizeof(line), f) != NULL) {
		cleanup_free char *target = NULL;
		char *value = NULL;

		switch (gitconfig_line(&lx, line, &value)) {
		case GITCONFIG_HOOKS_PATH:
			target = gitconfig_path(value, top, home);
			plan_add(pl, WANT_READONLY, steal_pointer(&target));
			break;
		case GITCONFIG_INCLUDE_PATH:
			target = gitconfig_path(value, dir, home);
			if (target == NULL)
				break;
			plan_git_config(pl, target, top, home, depth - 1);
			plan_add(pl, WANT_READONLY, steal_pointer(&target));
			break;
		case GITCONFIG_OTHER:
			break;
		}
	}
	fclose(f);
}

/* The user's and the system's git configuration, and what they include. */
static const char *const git_global_files[] = {
	"/etc/gitconfig",
	"~/.gitconfig",
	"~/.config/git/config",
};

/*
 * PATH (taken) read-only where it really is: through a symlinked
 * directory (a ~/.config that links elsewhere), the mount goes on the
 * place the link leads to, which bwrap can make a mount point of.  A
 * PATH that does not exist is planned as it is, and dropped where the
 * plan is taken (nothing to mount).
 */
static void
plan_readonly_real(struct plan *pl, char *path)
{
	char *real = util_realpath(path);

	if (real != NULL) {
		free(path);
		path = real;
	}
	plan_add(pl, WANT_READONLY, path);
}

/*
 * Configuration that git reads for every repository: a writable home must
 * not let the command set core.fsmonitor for all of them.
 */
static void
plan_git_globals(struct plan *pl, const struct protect_env *env)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");

	for (size_t h = 0; h < 2; h++) {
		const char *home = env->homes[h];

		if (home == NULL || home[0] != '/')
			continue;
		plan_readonly_real(pl, util_path_join(home, ".gitconfig"));
		plan_readonly_real(pl, util_path_absolute(".config/git", home));
	}
	if (xdg != NULL && xdg[0] == '/')
		plan_readonly_real(pl, util_path_join(xdg, "git"));
}

/* The configuration files of the git directory DIR (and its common one). */
static void
plan_repo_configs(struct plan *pl, const char *dir, const char *top,
    const struct protect_env *env)
{
	static const char *const files[] = { "config", "config.worktree" };
	const char *xdg = getenv("XDG_CONFIG_HOME");
	cleanup_free char *common_file = util_path_join(dir, "commondir");
	cleanup_free char *common = git_pointer(pl, common_file, dir);
	const char *home = env->homes[0] ? env->homes[0] : env->homes[1];

	for (size_t i = 0; i < N_ELEMENTS(files); i++) {
		cleanup_free char *a = util_path_join(dir, files[i]);
		cleanup_free char *b = common ?
		    util_path_join(common, files[i]) :
		    NULL;

		plan_git_config(pl, a, top, home, GIT_INCLUDE_DEPTH);
		if (b != NULL)
			plan_git_config(pl, b, top, home, GIT_INCLUDE_DEPTH);
	}
	for (size_t i = 0; i < N_ELEMENTS(git_global_files); i++) {
		cleanup_free char *g = NULL;

		if (strncmp(git_global_files[i], "~/", 2) != 0)
			g = xstrdup(git_global_files[i]);
		else if (home != NULL && home[0] == '/')
			g = util_path_absolute(git_global_files[i] + 2, home);
		if (g != NULL)
			plan_git_config(pl, g, top, home, GIT_INCLUDE_DEPTH);
	}
	if (xdg != NULL && xdg[0] == '/') {
		cleanup_free char *g = util_path_join(xdg, "git/config");

		plan_git_config(pl, g, top, home, GIT_INCLUDE_DEPTH);
	}
}

/*
 * TOP/.git (to free), or where it leads when it is a symbolic link (git
 * follows one): the git directory or file git uses there, with its
 * status in ST; NULL when there is none.  The link itself no mount can
 * hold; the audit after the run names it if it changed.
 */
static char *
repo_git_entry(const char *top, struct stat *st)
{
	char *git = util_path_join(top, ".git");
	char *real;

	if (lstat(git, st) < 0) {
		free(git);
		return NULL;
	}
	if (!S_ISLNK(st->st_mode))
		return git;
	real = util_realpath(git);
	free(git);
	if (real != NULL && stat(real, st) == 0)
		return real;
	free(real);
	return NULL;
}

/*
 * A repository whose work tree is TOP.  Its whole .git directory is
 * read-only unless the user granted TOP/.git by name: then what git runs
 * or reads as configuration stays read-only inside it, as before, and
 * .git is bound onto itself so that it cannot be renamed away.  A .git
 * that is a symbolic link is judged where it leads.
 */
static void
plan_repo(struct plan *pl, const struct policy *p,
    const struct protect_env *env, const char *top)
{
	struct stat st;
	cleanup_free char *git = repo_git_entry(top, &st);
	cleanup_free char *entry = util_path_join(top, ".git");
	cleanup_free char *dir = NULL;

	if (git == NULL)
		return;
	if (S_ISDIR(st.st_mode)) {
		/* Named as the link or as where it leads. */
		if (policy_user_named(p, git) || policy_user_named(p, entry)) {
			plan_add(pl, WANT_PIN, xstrdup(git));
			plan_git_dir(pl, git, GIT_DEPTH, true);
		} else {
			static const char *const out[] = { "hooks", "config",
				"config.worktree", "commondir" };

			plan_add(pl, WANT_READONLY, xstrdup(git));
			/* Read-only whole, but for links that lead out. */
			for (size_t i = 0; i < N_ELEMENTS(out); i++)
				plan_git_entry(pl, util_path_join(git, out[i]),
				    true);
		}
		dir = xstrdup(git);
	} else if (S_ISREG(st.st_mode)) {
		/* A worktree or submodule: "gitdir: PATH". */
		dir = git_pointer(pl, git, top);
		plan_add(pl, WANT_READONLY, xstrdup(git));
		if (dir != NULL && !policy_user_named(p, dir)) {
			cleanup_free char *cf = util_path_join(dir,
			    "commondir");
			cleanup_free char *common = git_pointer(pl, cf, dir);

			plan_add(pl, WANT_READONLY, xstrdup(dir));
			if (common != NULL && !policy_user_named(p, common))
				plan_add(pl, WANT_READONLY,
				    steal_pointer(&common));
		} else if (dir != NULL) {
			plan_git_dir(pl, dir, GIT_DEPTH, true);
		}
	}
	if (dir != NULL)
		plan_repo_configs(pl, dir, top, env);
}

/* A writable grant TOP: a repository at its top, and in every directory
 * right below it (a tree of projects). */
struct repos_in {
	struct plan *pl;
	const struct policy *p;
	const struct protect_env *env;
	const char *top;
};

static bool
repos_in_entry(void *ctx, const char *name, unsigned char type)
{
	const struct repos_in *r = ctx;
	cleanup_free char *sub = NULL, *git = NULL;
	struct stat st;

	if (type != DT_DIR && type != DT_UNKNOWN)
		return true;
	/* One lstat an entry, however many: no entry goes unlooked. */
	sub = util_path_join(r->top, name);
	git = util_path_join(sub, ".git");
	if (lstat(git, &st) == 0)
		plan_repo(r->pl, r->p, r->env, sub);
	return true;
}

static void
plan_repos_in(struct plan *pl, const struct policy *p,
    const struct protect_env *env, const char *top)
{
	struct repos_in r = { pl, p, env, top };
	int fd;

	plan_repo(pl, p, env, top);
	fd = util_open(top, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return;
	(void)util_dir_each(fd, repos_in_entry, &r);
	close(fd);
}

/* The user's configuration, as a credential-list pattern. */
#define CONFIG_DIR "${XDG_CONFIG_HOME:-~/.config}/sbox-exec"

/*
 * PATH with symlinks resolved, or NULL when it does not exist.  Most
 * listed paths do not: the listing of their directory answers that for
 * all of them (seen.c), and otherwise one lstat(), where realpath() may
 * look at every component first.
 */
static char *
existing_realpath(struct plan *pl, const char *path)
{
	struct stat st;
	char *real;

	if (util_realpath_known(path, &real))
		return real;
	if ((pl->seen != NULL && seen_absent(pl->seen, path)) ||
	    util_lstat(path, &st) < 0)
		return NULL;
	return util_realpath(path);
}

/* Home H resolved (to free), or NULL: as the caller resolved it once. */
static char *
home_real(const struct protect_env *env, size_t h)
{
	if (env->homes_real[h] != NULL)
		return xstrdup(env->homes_real[h]);
	if (env->homes[h] == NULL || env->homes[h][0] != '/')
		return NULL;
	return util_realpath(env->homes[h]);
}

/*
 * Whether one of the first N hides planned keeps PATH (or PATH itself) out
 * of sight: not when a grant of the user's shows it through the hide.
 * BELOW, for a walk of the directory PATH: nor when a grant shows a place
 * inside it.
 */
static bool
plan_hides_in(const struct plan *pl, size_t n, const char *path, bool below)
{
	for (size_t i = 0; i < n; i++)
		if (pl->v[i].want == WANT_HIDE &&
		    util_path_within(path, pl->v[i].path) &&
		    (pl->policy == NULL ||
			!policy_user_shows(pl->policy, pl->v[i].path, path,
			    below)))
			return true;
	return false;
}

static bool
plan_hides(const struct plan *pl, const char *path)
{
	return plan_hides_in(pl, pl->n, path, false);
}

/*
 * Whether PATH lies below a directory already planned hidden, and not
 * below something kept inside it: a mask there would only add a mount.
 */
static bool
plan_covers(const struct plan *pl, const char *path)
{
	if (!plan_hides(pl, path))
		return false;
	for (size_t i = 0; i < pl->n; i++)
		if (pl->v[i].want == WANT_KEEP &&
		    util_path_within(path, pl->v[i].path))
			return false;
	return true;
}

struct socket_scan {
	struct plan *pl;
	size_t first; /* the plan's size when this scan began */
};

static bool
scan_skip(void *ctx, const char *dir)
{
	const struct socket_scan *s = ctx;

	/* Masked whole: nothing below needs a mask of its own. */
	return plan_hides_in(s->pl, s->first, dir, true);
}

static void
scan_found(void *ctx, const char *path)
{
	struct socket_scan *s = ctx;

	plan_add(s->pl, WANT_HIDE, xstrdup(path));
}

/*
 * The unix sockets below ROOT, found now: each is masked.  When the scan
 * reaches its bounds, ROOT is masked whole instead, less what must stay.
 * DONE lists the roots scanned already (/var/run is often /run).
 */
static void
plan_socket_scan(struct plan *pl, const char *root, struct strv *done)
{
	cleanup_free char *real = existing_realpath(pl, root);
	struct socket_scan s = { .pl = pl, .first = pl->n };
	const struct scan_sockets_cb cb = { scan_skip, scan_found, &s };
	struct stat st;

	if (real == NULL || util_lstat(real, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    plan_hides_in(pl, pl->n, real, true))
		return;
	for (size_t i = 0; i < done->n; i++)
		if (util_path_within(real, done->v[i]))
			return;
	strv_add(done, real);
	if (scan_sockets(real, &cb) == SCAN_BOUND) {
		for (size_t i = s.first; i < pl->n; i++)
			free(pl->v[i].path);
		pl->n = s.first;
		plan_add(pl, WANT_HIDE, xstrdup(real));
	}
}

/* Every directory above PATH pinned: none can be renamed away. */
static void
plan_pin_above(struct plan *pl, const char *path)
{
	cleanup_free char *dir = xstrdup(path);
	char *slash;

	while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		plan_add(pl, WANT_PIN, xstrdup(dir));
	}
}

/*
 * The first symbolic link on the way to PATH that lies in a writable
 * grant (a copy), or NULL: no mount can keep it (bwrap's follows it), so
 * the command could point it elsewhere and a later launch would read
 * what it leads to then.
 */
static char *
link_in_grant(struct plan *pl, const char *path)
{
	cleanup_free char *at = xstrdup(path);
	size_t len = strlen(at);
	struct stat st;

	if (pl->policy == NULL || at[0] != '/')
		return NULL;
	for (size_t i = 1; i <= len; i++) {
		cleanup_free char *parent = NULL, *real = NULL;
		const struct mount *m;
		char c = at[i];

		if (c != '/' && c != '\0')
			continue;
		at[i] = '\0';
		if (util_lstat(at, &st) < 0)
			return NULL;
		if (S_ISLNK(st.st_mode)) {
			parent = util_path_absolute("..", at);
			real = util_realpath(parent);
			m = real != NULL ? policy_mount_for(pl->policy, real) :
					   NULL;
			if (m != NULL && m->kind == MOUNT_RW &&
			    !plan_hides(pl, real))
				return xstrdup(at);
		}
		at[i] = c;
	}
	return NULL;
}

/* A link on the way to PATH (WHAT: whose files lie there) that the
 * command could replace: said on stderr (sbox-exec(1), HOST
 * PROTECTION). */
static void
note_links_on(struct plan *pl, const char *path, const char *what)
{
	cleanup_free char *at = NULL;

	if (pl->warnings != NULL && (at = link_in_grant(pl, path)) != NULL)
		strv_addf(pl->warnings,
		    "%s is a symbolic link the command can replace (it lies in a writable grant), and with it %s in %s; grant less, or make the link a directory",
		    at, what, path);
}

/*
 * The user's sbox-exec directory DIR (its profiles and credential list):
 * read-only, and every directory above it pinned, as sbox-exec's own
 * files are, so that neither it nor ~/.config can be renamed away and
 * another put in its place.  When DIR does not exist, the nearest
 * directory above it that does is pinned with those above it: what
 * cannot be kept from being created is named at launch instead
 * (sbox-exec(1), PROFILES).
 */
static void
plan_config_dir(struct plan *pl, const char *dir)
{
	cleanup_free char *at = xstrdup(dir);
	char *real, *slash;

	while ((real = existing_realpath(pl, at)) == NULL &&
	    (slash = strrchr(at, '/')) != NULL && slash != at)
		*slash = '\0';
	if (real == NULL || plan_hides(pl, real)) {
		free(real);
		return;
	}
	plan_pin_above(pl, real);
	plan_add(pl, strcmp(at, dir) == 0 ? WANT_READONLY : WANT_PIN, real);
	note_links_on(pl, dir, "the user's profiles and credential list");
}

/*
 * The credential list (creds.c) and the sockets it says where to look
 * for; the user's sbox-exec configuration, read-only; as root, what only
 * root can read.
 */
static void
plan_listed(struct plan *pl, const struct policy *p,
    const struct protect_env *env)
{
	const struct creds_list *cl = env->creds;

	if (env->uid == 0) {
		const char *wd = p->chdir ? p->chdir : p->cwd;
		const struct mount *m = policy_mount_for(p, wd);
		cleanup_free char *home = home_real(env, 1);

		plan_add(pl, WANT_HIDE, xstrdup("/etc/shadow"));
		plan_add(pl, WANT_HIDE, xstrdup("/etc/gshadow"));
		plan_add(pl, WANT_HIDE, xstrdup("/etc/shadow-"));
		plan_add(pl, WANT_HIDE, xstrdup("/etc/gshadow-"));
		/*
		 * The project below root's home stays, read-only; run in the
		 * home itself, only the credential stores in it go.
		 */
		if (home != NULL && strcmp(home, "/") != 0 &&
		    strcmp(home, wd) != 0) {
			if (util_path_within(wd, home) && m != NULL &&
			    m->kind == MOUNT_ROOT)
				plan_add(pl, WANT_KEEP, xstrdup(wd));
			plan_add(pl, WANT_HIDE, steal_pointer(&home));
		}
	}
	if (cl != NULL) {
		for (size_t i = 0; i < cl->masks.n; i++) {
			char *real = existing_realpath(pl, cl->masks.v[i]);

			if (real != NULL && plan_covers(pl, real))
				free(real);
			else
				plan_add(pl, WANT_HIDE, real);
		}
	}
	if (env->cenv != NULL) {
		cleanup_strv struct strv cfg = { 0 };
		enum creds_kind k;
		const char *why;

		/* Profiles and lists that later runs would trust. */
		if (creds_parse_line(CONFIG_DIR, env->cenv, &k, &cfg, &why) < 0)
			strv_clear(&cfg);
		for (size_t i = 0; i < cfg.n; i++)
			plan_config_dir(pl, cfg.v[i]);
	}
	if (cl != NULL) {
		cleanup_strv struct strv done = { 0 };

		for (size_t i = 0; i < cl->socket_roots.n; i++)
			plan_socket_scan(pl, cl->socket_roots.v[i], &done);
		/* The runtime directory, wherever it is: masked whole, but a
		 * grant that names it or a directory in it leaves its
		 * sockets (the session bus, agents) masked, as under /run. */
		if (env->runtime_dir != NULL && env->runtime_dir[0] == '/')
			plan_socket_scan(pl, env->runtime_dir, &done);
	}
}

/*
 * sbox-exec's own files: its executable, the bundled bwrap, the shipped
 * profiles, credential list and never-learned list, where installed and where a relocated
 * install (or a build tree) keeps them.  A command that could change one
 * would choose what the next sandbox is, or run outside it (sbox-exec(1),
 * HOST PROTECTION): each is read-only in a writable grant, and the
 * directories above it are pinned, so that it cannot be renamed away
 * and replaced.  Not where a mask already keeps it out of sight.
 */
static void
plan_own_files(struct plan *pl)
{
	cleanup_free char *dir = util_exe_dir();
	char *places[10];
	size_t n = 0;

	places[n++] = xstrdup("/proc/self/exe");
	places[n++] = xstrdup(PKGLIBEXECDIR "/bwrap");
	places[n++] = xstrdup(PKGDATADIR "/profiles");
	places[n++] = xstrdup(PKGDATADIR "/credentials");
	places[n++] = xstrdup(PKGDATADIR "/never-learned");
	if (dir != NULL) {
		places[n++] = xasprintf("%s/../libexec/sbox-exec/bwrap", dir);
		places[n++] = xasprintf("%s/../share/sbox-exec", dir);
		places[n++] = xasprintf("%s/../profiles", dir);
		places[n++] = xasprintf("%s/../data/credentials", dir);
		places[n++] = xasprintf("%s/../data/never-learned", dir);
	}
	for (size_t i = 0; i < n; i++) {
		char *real = existing_realpath(pl, places[i]);

		if (real == NULL || plan_hides(pl, real)) {
			free(places[i]);
			free(real);
			continue;
		}
		if (i > 0)
			note_links_on(pl, places[i], "sbox-exec's own files");
		free(places[i]);
		plan_pin_above(pl, real);
		plan_add(pl, WANT_READONLY, real);
	}
}

/*
 * The policy files this launch read and --learn's file: what the next
 * launch reads to choose its sandbox.  Read-only wherever a grant would
 * make one writable, with the directories above it pinned, as
 * sbox-exec's own files are (sbox-exec(1), HOST PROTECTION): a command
 * that could edit one would choose its next sandbox itself.
 */
static void
plan_config_files(struct plan *pl, const struct strv *files)
{
	for (size_t i = 0; files != NULL && i < files->n; i++) {
		char *real = existing_realpath(pl, files->v[i]);

		if (real == NULL || plan_hides(pl, real)) {
			free(real);
			continue;
		}
		if (pl->config_link == NULL) {
			cleanup_free char *at = link_in_grant(pl, files->v[i]);

			if (at != NULL)
				pl->config_link = xasprintf(
				    "%s is a symbolic link the command could replace (it lies in a writable grant), and with it the policy file %s that a later launch reads; name the file by its real path, or grant less",
				    at, files->v[i]);
		}
		plan_pin_above(pl, real);
		plan_add(pl, WANT_READONLY, real);
	}
}

/* Everything we would like to protect, before looking at the policy. */
static void
plan_defaults(struct plan *pl, const struct policy *p,
    const struct protect_env *env)
{
	struct stat st;

	if (env->runtime_dir != NULL && env->runtime_dir[0] == '/')
		plan_add(pl, WANT_HIDE,
		    util_path_absolute(env->runtime_dir, "/"));
	plan_add(pl, WANT_HIDE,
	    xasprintf("/run/user/%lu", (unsigned long)env->uid));

	plan_run_dir(pl, "/run");
	for (size_t i = 0; i < N_ELEMENTS(var_services); i++)
		plan_add(pl, WANT_HIDE, xstrdup(var_services[i]));
	/* Where /var/run is a directory of its own, not a link to /run. */
	if (util_lstat("/var/run", &st) == 0 && S_ISDIR(st.st_mode))
		plan_run_dir(pl, "/var/run");

	plan_listed(pl, p, env);
	plan_own_files(pl);
	plan_config_files(pl, env->config_files);

	/* The status socket: the command must not be able to forge one. */
	for (size_t i = 0; i < env->nstatus_sockets; i++)
		if (env->status_sockets[i][0] != '@')
			plan_add(pl, WANT_HIDE,
			    util_realpath(env->status_sockets[i]));

	plan_git_globals(pl, env);
	/* Repositories at the top of a writable dir, and just below it. */
	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount *m = &p->mounts[i];

		if (m->kind == MOUNT_RW && !m->protection)
			plan_repos_in(pl, p, env, m->dest);
	}
}

/* Whether PATH is one of the status sockets, masked but not a store. */
static bool
is_status_socket(const struct protect_env *env, const char *path)
{
	for (size_t i = 0; i < env->nstatus_sockets; i++) {
		cleanup_free char *s = NULL;

		if (env->status_sockets[i][0] == '@')
			continue;
		s = util_realpath(env->status_sockets[i]);
		if (s != NULL && strcmp(s, path) == 0)
			return true;
	}
	return false;
}

/*
 * Another user's home directory at DIR or below it, from the password
 * file (fgetpwent: no name service, as in a static binary): its path, to
 * free, or NULL.  Only a home that exists and belongs to its user counts,
 * so that a system account's "home" (/bin, /usr/sbin, /) does not.  As
 * root, a grant of /home would let the command rename another user's
 * home away and put one of its making in its place.
 */
static char *
other_home_within(const char *dir)
{
	struct passwd *pw;
	char *found = NULL;
	FILE *f = fopen("/etc/passwd", "re");

	while (f != NULL && found == NULL && (pw = fgetpwent(f)) != NULL) {
		cleanup_free char *real = NULL;
		struct stat st;

		if (pw->pw_uid == util_uid() || pw->pw_dir == NULL ||
		    pw->pw_dir[0] != '/' || strcmp(pw->pw_dir, "/") == 0 ||
		    !util_path_within(pw->pw_dir, dir))
			continue;
		real = util_realpath(pw->pw_dir);
		if (real != NULL && util_path_within(real, dir) &&
		    stat(real, &st) == 0 && S_ISDIR(st.st_mode) &&
		    st.st_uid == pw->pw_uid)
			found = xasprintf("%s (%s's)", real, pw->pw_name);
	}
	if (f != NULL)
		fclose(f);
	return found;
}

/*
 * What a grant M would open up that only a typed path may: the whole
 * host, a home directory or one above it, or a directory holding a
 * masked place.  NULL
 * when nothing of the kind; otherwise a description to free.
 */
static char *
wide_grant(const struct mount *m, const struct plan *pl,
    const struct protect_env *env)
{
	char *home[2] = { NULL, NULL };
	char *what = NULL;
	bool inside_own = false;

	if (strcmp(m->dest, "/") == 0)
		return xstrdup("the whole file system");
	for (size_t h = 0; h < 2; h++)
		home[h] = home_real(env, h);
	for (size_t h = 0; h < 2 && what == NULL; h++)
		if (home[h] != NULL && strcmp(home[h], m->dest) == 0)
			what = xstrdup("a home directory");
	for (size_t i = 0; i < pl->n && what == NULL; i++) {
		const struct candidate *c = &pl->v[i];
		struct stat st;

		if (c->want == WANT_HIDE && strcmp(c->path, m->dest) != 0 &&
		    util_path_within(c->path, m->dest) &&
		    lstat(c->path, &st) == 0 && !is_status_socket(env, c->path))
			what = xasprintf(
			    "a directory that holds the protected %s", c->path);
	}
	/* Above a home: what it holds is the home's, masked places or not. */
	for (size_t h = 0; h < 2 && what == NULL; h++)
		if (home[h] != NULL && util_path_within(home[h], m->dest))
			what = xasprintf("a directory that holds the home %s",
			    home[h]);
	/* Another user's home, or what holds one; not looked for inside
	 * the caller's own home, where none lies. */
	for (size_t h = 0; h < 2; h++)
		inside_own = inside_own ||
		    (home[h] != NULL && util_path_within(m->dest, home[h]));
	if (what == NULL && !inside_own) {
		cleanup_free char *other = other_home_within(m->dest);

		if (other != NULL)
			what = xasprintf("a directory that holds the home %s",
			    other);
	}
	free(home[0]);
	free(home[1]);
	return what;
}

/*
 * A grant that reaches that far is honoured only when its exact path was
 * typed on the command line: not from a policy file or profile, and not
 * through a symlink that led there.
 */
static int
check_wide_grants(const struct policy *p, const struct plan *pl,
    const struct protect_env *env, struct sbox_error *err)
{
	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount *m = &p->mounts[i];
		cleanup_free char *what = NULL;

		if ((m->kind != MOUNT_RO && m->kind != MOUNT_RW) ||
		    m->protection || (!m->from_file && m->given == NULL))
			continue;
		what = wide_grant(m, pl, env);
		if (what == NULL)
			continue;
		if (m->from_file)
			sbox_error_set(err, SBOX_INVALID_POLICY,
			    "a policy file grants %s, %s; only a path typed on the command line may grant that much",
			    m->dest, what);
		else
			sbox_error_set(err, SBOX_INVALID_POLICY,
			    "%s leads through a symlink to %s, %s; name %s itself to grant it",
			    m->given, m->dest, what, m->dest);
		return -1;
	}
	return 0;
}

/*
 * The mount that protects C, or MOUNT_ROOT when none is taken: the path
 * exists, the sandbox would show it from the host (writable, for the
 * read-only and pinned ones), and the user did not name it.
 */
static enum mount_kind
plan_kind(struct plan *pl, const struct candidate *c)
{
	const struct mount *m = policy_mount_for(pl->policy, c->path);
	struct stat st;

	/* What the policy decides first, the host after: read-only and
	 * pinned places matter only in a writable grant. */
	if (m == NULL || !policy_mount_from_host(m->kind) ||
	    ((c->want == WANT_READONLY || c->want == WANT_PIN) &&
		m->kind != MOUNT_RW) ||
	    policy_user_named(pl->policy, c->path))
		return MOUNT_ROOT;
	/* Below a mask (a git entry or include that leads into ~/.ssh): a
	 * bind would show what the mask hides. */
	if ((c->want == WANT_READONLY || c->want == WANT_PIN) &&
	    plan_hides(pl, c->path))
		return MOUNT_ROOT;
	/* Only a mask is spared the lookup: nothing else planned (git's
	 * placeholders) may have been made since the listing. */
	if ((c->want == WANT_HIDE && seen_absent(pl->seen, c->path)) ||
	    stat(c->path, &st) < 0)
		return MOUNT_ROOT;
	switch (c->want) {
	case WANT_HIDE:
		return S_ISDIR(st.st_mode) ? MOUNT_HIDE_DIR : MOUNT_HIDE_FILE;
	case WANT_READONLY:
		return MOUNT_RO;
	case WANT_KEEP:
		return MOUNT_RO;
	case WANT_PIN:
		return MOUNT_RW;
	}
	return MOUNT_ROOT;
}

/*
 * Add the protections that apply (plan_kind()).  Decided on the policy
 * as the user left it.
 */
int
protect_add_defaults(struct policy *p, const struct protect_env *env,
    struct sbox_error *err)
{
	struct plan pl = { .holds = env->holds,
		.policy = p,
		.warnings = env->warnings };
	enum mount_kind *kind;

	/* Where most of what is looked for is not: listed once. */
	pl.seen = seen_new();
	for (size_t h = 0; h < 2; h++)
		seen_root(pl.seen, env->homes[h]);
	seen_root(pl.seen, "/run");
	plan_defaults(&pl, p, env);
	if (pl.config_link != NULL)
		sbox_error_set(err, SBOX_INVALID_POLICY, "%s", pl.config_link);
	else if (pl.git_overflow)
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "a writable grant holds more git metadata than sbox-exec reads to protect it (%d files and directories, includes and submodules counted)",
		    GIT_FILES_MAX);
	else
		(void)check_wide_grants(p, &pl, env, err);
	kind = xcalloc(pl.n, sizeof(*kind));
	for (size_t i = 0; i < pl.n; i++)
		kind[i] = plan_kind(&pl, &pl.v[i]);
	/*
	 * A grant that only a symlink led into a protected place (planted,
	 * perhaps, by an earlier sandboxed run) is refused, not honoured.
	 */
	for (size_t i = 0; i < pl.n && err->detail == NULL; i++) {
		if (kind[i] != MOUNT_HIDE_DIR && kind[i] != MOUNT_HIDE_FILE)
			continue;
		for (size_t j = 0; j < p->nmounts; j++) {
			const struct mount *u = &p->mounts[j];

			if (u->given != NULL &&
			    util_path_within(u->dest, pl.v[i].path) &&
			    !util_path_within(u->given, pl.v[i].path)) {
				sbox_error_set(err, SBOX_INVALID_POLICY,
				    "%s leads through a symlink to %s, inside the protected %s; name %s itself to grant it",
				    u->given, u->dest, pl.v[i].path, u->dest);
				break;
			}
		}
	}
	for (size_t i = 0; i < pl.n; i++) {
		if (kind[i] != MOUNT_ROOT) {
			bool bind = kind[i] == MOUNT_RO || kind[i] == MOUNT_RW;
			cleanup_free char *src = bind ?
			    util_realpath(pl.v[i].path) :
			    NULL;
			const char *dest = pl.v[i].path;

			/* Through a symlink (a .git file's gitdir that links
			 * elsewhere): bound where it leads, which bwrap cannot
			 * take as the link's path, and judged there. */
			if (src != NULL && strcmp(src, dest) != 0) {
				struct candidate real = { .path = src,
					.want = pl.v[i].want };

				dest = plan_kind(&pl, &real) != MOUNT_ROOT ?
				    src :
				    NULL;
			}
			if (dest != NULL && (!bind || src != NULL))
				policy_add_protection(p, kind[i], dest, src);
		}
	}
	/* Only now: plan_kind() above looks at every candidate's path. */
	for (size_t i = 0; i < pl.n; i++)
		free(pl.v[i].path);
	free(kind);
	free(pl.v);
	seen_free(pl.seen);
	free(pl.config_link);
	return err->detail == NULL ? 0 : -1;
}

/* The after-run audit of git metadata in writable grants. */
struct audit {
	struct timespec start;
	size_t budget; /* directory entries still to look at */
	const struct protect_env *env;
	protect_report_fn report;
	void *ctx;
	struct strv told; /* reported already: each path once */
};

/* Report PATH, once. */
static void
audit_tell(struct audit *a, const char *path)
{
	for (size_t i = 0; i < a->told.n; i++)
		if (strcmp(a->told.v[i], path) == 0)
			return;
	strv_add(&a->told, path);
	a->report(a->ctx, path);
}

/*
 * How far the audit looks for repositories below a writable grant: this
 * many directory levels, and this many entries over all grants.  It runs
 * as the command ends, so it must stay cheap (the manual page says what
 * lies beyond).
 */
#define AUDIT_DEPTH 4
#define AUDIT_BUDGET 50000

static bool
changed_since(const struct audit *a, const struct stat *st)
{
	return st->st_ctim.tv_sec > a->start.tv_sec ||
	    (st->st_ctim.tv_sec == a->start.tv_sec &&
		st->st_ctim.tv_nsec >= a->start.tv_nsec);
}

/* PATH, or for a directory anything directly in it, changed during the
 * run: report it. */
struct audit_dir {
	struct audit *a;
	const char *dir;
};

static bool
audit_path_entry(void *ctx, const char *name, unsigned char type)
{
	const struct audit_dir *ad = ctx;
	cleanup_free char *child = util_path_join(ad->dir, name);
	struct stat st;

	(void)type;
	if (lstat(child, &st) == 0 && changed_since(ad->a, &st)) {
		audit_tell(ad->a, child);
		return false;
	}
	return true;
}

static void
audit_path(struct audit *a, const char *path)
{
	struct audit_dir ad = { a, path };
	struct stat st;
	int fd;

	if (lstat(path, &st) < 0)
		return;
	if (changed_since(a, &st)) {
		audit_tell(a, path);
		return;
	}
	if (!S_ISDIR(st.st_mode) ||
	    (fd = util_open(path, O_RDONLY | O_DIRECTORY, 0)) < 0)
		return;
	(void)util_dir_each(fd, audit_path_entry, &ad);
	close(fd);
}

/* The repository whose .git entry is GIT, in the work tree TOP. */
static void
audit_repo(struct audit *a, const char *git, const char *top)
{
	struct plan pl = { 0 };
	cleanup_free char *dir = NULL, *real = NULL;
	struct stat st;

	if (lstat(git, &st) < 0)
		return;
	if (S_ISLNK(st.st_mode)) {
		/* Pointed elsewhere, or made, during the run; and what it
		 * leads to, as a .git there. */
		audit_path(a, git);
		real = util_realpath(git);
		if (real == NULL || stat(real, &st) < 0)
			return;
		git = real;
	}
	if (S_ISREG(st.st_mode)) {
		audit_path(a, git);
		dir = git_pointer(&pl, git, top);
	} else if (S_ISDIR(st.st_mode)) {
		dir = xstrdup(git);
	}
	if (dir == NULL)
		return;
	plan_git_dir(&pl, dir, GIT_DEPTH, false);
	plan_repo_configs(&pl, dir, top, a->env);
	if (pl.git_overflow)
		a->budget = 0; /* not looked through: say so */
	for (size_t i = 0; i < pl.n; i++) {
		audit_path(a, pl.v[i].path);
		free(pl.v[i].path);
	}
	free(pl.v);
}

/* Look for repositories below DIR (on device DEV, not through links),
 * DEPTH levels down. */
struct audit_level {
	struct audit *a;
	const char *dir;
	dev_t dev;
	int depth;
};

static void audit_tree(struct audit *, const char *, dev_t, int);

static bool
audit_tree_entry(void *ctx, const char *name, unsigned char type)
{
	const struct audit_level *l = ctx;
	cleanup_free char *child = NULL;
	struct stat st;

	if (l->a->budget == 0)
		return false;
	l->a->budget--;
	if (type != DT_DIR && type != DT_UNKNOWN && strcmp(name, ".git") != 0)
		return true;
	child = util_path_join(l->dir, name);
	if (strcmp(name, ".git") == 0) {
		audit_repo(l->a, child, l->dir);
		return true;
	}
	if (l->depth > 1 && lstat(child, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_dev == l->dev)
		audit_tree(l->a, child, l->dev, l->depth - 1);
	return true;
}

static void
audit_tree(struct audit *a, const char *dir, dev_t dev, int depth)
{
	struct audit_level l = { a, dir, dev, depth };
	int fd = util_open(dir, O_RDONLY | O_DIRECTORY, 0);

	if (fd < 0)
		return;
	(void)util_dir_each(fd, audit_tree_entry, &l);
	close(fd);
}

/*
 * After the run: every repository in a writable grant whose hooks,
 * configuration or redirect files (or an in-tree hooks directory or
 * included file its configuration names) changed or appeared since START
 * is reported through REPORT, a .git file or directory made during the
 * run included.  Returns false when the walk stopped at its bound.
 */
bool
protect_audit_git(const struct policy *p, const struct protect_env *env,
    const struct timespec *start, protect_report_fn report, void *ctx)
{
	struct audit a = {
		.start = *start,
		.budget = AUDIT_BUDGET,
		.env = env,
		.report = report,
		.ctx = ctx,
	};

	/*
	 * First the repositories that are known without a walk, outside the
	 * walk's budget: a tree that the command filled with entries must
	 * not hide them.
	 */
	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount *m = &p->mounts[i];
		cleanup_free char *git = NULL;

		if (m->kind != MOUNT_RW || m->protection)
			continue;
		git = util_path_join(m->dest, ".git");
		audit_repo(&a, git, m->dest);
	}
	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount *m = &p->mounts[i];
		const char *base = strrchr(m->dest, '/');
		bool inner = false;
		struct stat st;

		if (m->kind != MOUNT_RW || m->protection ||
		    stat(m->dest, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		/* A grant inside another is walked with it. */
		for (size_t j = 0; j < p->nmounts && !inner; j++)
			inner = j != i && p->mounts[j].kind == MOUNT_RW &&
			    !p->mounts[j].protection &&
			    strcmp(p->mounts[j].dest, m->dest) != 0 &&
			    util_path_within(m->dest, p->mounts[j].dest);
		if (inner)
			continue;
		if (base != NULL && strcmp(base, "/.git") == 0) {
			cleanup_free char *top = util_path_absolute("..",
			    m->dest);

			audit_repo(&a, m->dest, top);
		} else {
			audit_tree(&a, m->dest, st.st_dev, AUDIT_DEPTH);
		}
	}
	strv_clear(&a.told);
	return a.budget > 0;
}

/*
 * As root, a setuid or setgid file in a writable grant is root's (or its
 * group's) on the host: rewritten through a shared mapping it keeps its
 * bit, and any local user then runs what the command wrote.  Refused, the
 * first such file named, unless --allow-setuid-files.
 */
int
protect_check_setuid(const struct policy *p, struct sbox_error *err)
{
	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount *m = &p->mounts[i];
		cleanup_free char *found = NULL;
		int r;

		if (m->kind != MOUNT_RW || m->src == NULL || m->protection)
			continue;
		r = scan_setuid(m->src, &found);
		if (r == 1) {
			sbox_error_set(err, SBOX_INVALID_POLICY,
			    "--rw %s holds a setuid or setgid file (or one with file capabilities), %s, which the command could rewrite and keep its privilege (as root)",
			    m->dest, found);
			sbox_error_hint(err,
			    "remove the bit (chmod u-s,g-s; setcap -r for capabilities), grant that directory with --ro, or give --allow-setuid-files");
			return -1;
		}
		if (r < 0) {
			sbox_error_set(err, SBOX_INVALID_POLICY,
			    "--rw %s: more than %d entries or %d levels deep, too many to check for setuid files (as root)",
			    m->dest, SCAN_SETUID_ENTRIES, SCAN_SETUID_DEPTH);
			sbox_error_hint(err,
			    "grant a smaller directory, or give --allow-setuid-files");
			return -1;
		}
	}
	return 0;
}

/*
 * After the run (or a refusal): the placeholders this launch made are
 * removed, unless another launch holds one too (its sandbox has it
 * mounted; the last one leaves it, which git reads as absent), or it is
 * no longer what was made; every lock is let go.
 */
void
protect_release(struct protect_holds *h)
{
	for (size_t i = 0; i < h->n; i++) {
		struct protect_hold *o = &h->v[i];
		struct stat st;

		if (o->made && flock(o->fd, LOCK_EX | LOCK_NB) == 0 &&
		    lstat(o->path, &st) == 0 && st.st_dev == o->dev &&
		    st.st_ino == o->ino) {
			if (S_ISDIR(st.st_mode))
				(void)rmdir(o->path);
			else if (st.st_size <= 2)
				(void)unlink(o->path);
		}
		close(o->fd);
		free(o->path);
	}
	free(h->v);
	*h = (struct protect_holds){ 0 };
}
