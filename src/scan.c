/*
 * scan.c - bounded walks of host directories, done at launch.
 *
 * MUST: never follow a symlink; stay within the bounds in scan.h and say
 * so when they were reached, so that the caller can fail closed; change
 * nothing on the host.  Reports paths only: what to do with them is
 * protect.c's business.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "scan.h"
#include "util.h"

struct walk {
	const struct scan_sockets_cb *cb;
	size_t entries;
	size_t found;
};

/* One more to mask, or a bound reached. */
static enum scan_result
report(struct walk *w, const char *path)
{
	if (++w->found > SCAN_SOCKET_FOUND)
		return SCAN_BOUND;
	w->cb->found(w->cb->ctx, path);
	return SCAN_DONE;
}

/* What one directory of a socket walk holds. */
struct walk_entries {
	struct walk *w;
	const char *dir;
	struct strv *subdirs, *sockets;
	enum scan_result r;
};

static bool
walk_entry(void *ctx, const char *name, unsigned char type)
{
	struct walk_entries *we = ctx;

	if (++we->w->entries > SCAN_SOCKET_ENTRIES) {
		we->r = SCAN_BOUND;
		return false;
	}
	if (type == DT_UNKNOWN) {
		cleanup_free char *path = util_path_join(we->dir, name);
		struct stat st;

		if (lstat(path, &st) < 0)
			return true;
		type = S_ISSOCK(st.st_mode) ? DT_SOCK :
		    S_ISDIR(st.st_mode)	    ? DT_DIR :
					      DT_REG;
	}
	if (type == DT_SOCK)
		strv_take(we->sockets, util_path_join(we->dir, name));
	else if (type == DT_DIR)
		strv_take(we->subdirs, util_path_join(we->dir, name));
	return true;
}

/*
 * DIR, DEPTH levels below the root.  A directory below the root that
 * holds a socket is reported whole: a service makes its sockets in its
 * own directory, often again after a restart, and a mask on the
 * directory covers those too and cannot vanish under bwrap as a socket
 * can.  In the root itself each socket is reported.
 */
static enum scan_result
walk_dir(struct walk *w, const char *dir, int depth)
{
	cleanup_strv struct strv subdirs = { 0 };
	struct strv sockets = { 0 };
	struct walk_entries we = { w, dir, &subdirs, &sockets, SCAN_DONE };
	enum scan_result r;
	int fd;

	if (w->cb->skip(w->cb->ctx, dir))
		return SCAN_DONE;
	/* As opendir() would, less its allocation (util_dir_each()). */
	fd = util_open(dir, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0) {
		/*
		 * Enterable but not listable (mode 0711, say): a socket in it
		 * can be connected to by whoever knows its name, so the whole
		 * directory goes.
		 */
		if (errno == EACCES && access(dir, X_OK) == 0)
			return report(w, dir);
		return SCAN_DONE;
	}
	/* A listing cut short shows what it read, as readdir() did. */
	(void)util_dir_each(fd, walk_entry, &we);
	close(fd);
	r = we.r;
	if (r == SCAN_DONE && sockets.n > 0 && depth > 0) {
		strv_clear(&sockets);
		return report(w, dir);
	}
	for (size_t i = 0; r == SCAN_DONE && i < sockets.n; i++)
		r = report(w, sockets.v[i]);
	strv_clear(&sockets);
	for (size_t i = 0; r == SCAN_DONE && i < subdirs.n; i++)
		r = depth + 1 >= SCAN_SOCKET_DEPTH ?
		    SCAN_BOUND :
		    walk_dir(w, subdirs.v[i], depth + 1);
	return r;
}

/*
 * The unix sockets below ROOT, at most SCAN_SOCKET_DEPTH directories
 * down, SCAN_SOCKET_ENTRIES entries and SCAN_SOCKET_FOUND reports in all.
 * Mount points are crossed: a socket on a file system mounted below ROOT
 * is as reachable.
 */
enum scan_result
scan_sockets(const char *root, const struct scan_sockets_cb *cb)
{
	struct walk w = { .cb = cb };

	return walk_dir(&w, root, 0);
}

/* A setuid walk in progress. */
struct suid_walk {
	size_t entries;
	char *found;
};

static bool
is_setid(mode_t mode)
{
	return S_ISREG(mode) &&
	    ((mode & S_ISUID) || ((mode & S_ISGID) && (mode & S_IXGRP)));
}

/*
 * Whether the executable NAME in DIR carries file capabilities: like a
 * setuid bit, they survive a rewrite through a shared mapping.
 */
static bool
has_file_caps(const char *dir, const char *name, const struct stat *st)
{
	cleanup_free char *full = NULL;

	if (!S_ISREG(st->st_mode) || (st->st_mode & 0111) == 0)
		return false;
	full = util_path_join(dir, name);
	return lgetxattr(full, "security.capability", NULL, 0) > 0;
}

/* What one directory of a setuid walk holds. */
struct suid_entries {
	struct suid_walk *w;
	int dirfd;
	const char *path;
	struct strv *subdirs;
	int r;
};

static bool
suid_entry(void *ctx, const char *name, unsigned char type)
{
	struct suid_entries *se = ctx;
	struct stat st;

	if (++se->w->entries > SCAN_SETUID_ENTRIES) {
		se->r = -1;
		return false;
	}
	/* Only files and directories matter; d_type saves a stat. */
	if (type != DT_UNKNOWN && type != DT_REG && type != DT_DIR)
		return true;
	if (fstatat(se->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return true;
	if (is_setid(st.st_mode) || has_file_caps(se->path, name, &st)) {
		se->w->found = util_path_join(se->path, name);
		se->r = 1;
		return false;
	}
	if (S_ISDIR(st.st_mode))
		strv_add(se->subdirs, name);
	return true;
}

/*
 * Below the directory open at DIRFD (named PATH, for the report); takes
 * DIRFD.  Returns 0 (nothing), 1 (found), -1 (a bound reached).  Entries
 * are looked at relative to their directory, which saves the kernel
 * walking each full path again; a directory's entries are all looked at
 * before its subdirectories, so that no listing's buffer is held through
 * the levels below it (util_dir_each()).
 */
static int
suid_dir(struct suid_walk *w, int dirfd, const char *path, int depth)
{
	cleanup_strv struct strv subdirs = { 0 };
	struct suid_entries se = { w, dirfd, path, &subdirs, 0 };

	/* A listing cut short is looked through as far as it went. */
	(void)util_dir_each(dirfd, suid_entry, &se);
	if (se.r == 0 && subdirs.n > 0 && depth + 1 >= SCAN_SETUID_DEPTH)
		se.r = -1;
	for (size_t i = 0; se.r == 0 && i < subdirs.n; i++) {
		cleanup_free char *sub = NULL;
		int fd = openat(dirfd, subdirs.v[i],
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd < 0)
			continue;
		sub = util_path_join(path, subdirs.v[i]);
		se.r = suid_dir(w, fd, sub, depth + 1);
	}
	close(dirfd);
	return se.r;
}

/*
 * The first setuid or setgid (and group-executable) regular file below
 * ROOT, in *FOUND.  Returns 0 when there is none, 1 when there is, -1
 * when the walk gave up (SCAN_SETUID_ENTRIES entries, SCAN_SETUID_DEPTH
 * directories deep).  Symlinks are not followed; mount points below ROOT
 * are crossed, since a grant binds them too.  A directory that cannot be
 * read holds nothing the command could open either.
 */
int
scan_setuid(const char *root, char **found)
{
	struct suid_walk w = { 0 };
	struct stat st;
	int fd, r;

	*found = NULL;
	fd = util_open(root, O_RDONLY | O_NOFOLLOW, 0);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		bool bad = fstat(fd, &st) == 0 && is_setid(st.st_mode);

		close(fd);
		if (bad)
			*found = xstrdup(root);
		return bad ? 1 : 0;
	}
	r = suid_dir(&w, fd, root, 0);
	*found = w.found;
	return r;
}
