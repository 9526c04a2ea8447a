/*
 * grant.c - resolve a policy file's grant without following planted links.
 *
 * Below an anchor (the working directory or a home directory) no symlink
 * is followed at all: openat2() with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS,
 * or a walk one component at a time with O_NOFOLLOW where the kernel has
 * no openat2().  Elsewhere a symlink is followed only where it lies in a
 * directory that nobody but root can write (the system's own /lib -> usr/lib
 * and the like).  The anchors themselves are the user's settings and are
 * resolved as they are.
 *
 * MUST NOT print or exit.  What is returned is checked again at launch
 * (launch.c binds from a descriptor opened on exactly this path).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "grant.h"
#include "util.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* REST (relative, no "." or "..") below DIRFD, one component at a time,
 * never through a symlink: the fallback for kernels without openat2(). */
static int
walk_nofollow(int dirfd, const char *rest)
{
	cleanup_free char *copy = xstrdup(rest);
	char *save = NULL;
	int fd = util_dup(dirfd, 3);

	for (char *c = strtok_r(copy, "/", &save); c != NULL && fd >= 0;
	     c = strtok_r(NULL, "/", &save)) {
		struct stat st;
		int next = openat(fd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		int saved = errno;

		close(fd);
		fd = next;
		errno = saved;
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
			close(fd);
			fd = -1;
			errno = ELOOP;
		}
	}
	return fd;
}

/* Open REST below DIRFD without following any symlink (ELOOP at one). */
static int
open_beneath(int dirfd, const char *rest)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, dirfd, rest, &how, sizeof(how));

	if (fd >= 0 || errno != ENOSYS)
		return fd;
	return walk_nofollow(dirfd, rest);
}

/*
 * REAL, an absolute path as grant_resolve() or realpath() gives it (no
 * "." or "..", no symlink), opened from the root without following any
 * symlink on the way (O_PATH): one swapped in for a component since REAL
 * was resolved fails with ELOOP, instead of leading what is then made in
 * the directory elsewhere.  -1 with errno set.
 */
int
grant_open_real(const char *real)
{
	cleanup_fd int root = util_open("/", O_PATH | O_DIRECTORY, 0);

	if (root < 0)
		return -1;
	while (*real == '/')
		real++;
	if (*real == '\0')
		return util_dup(root, 3);
	return open_beneath(root, real);
}

static enum grant_result
missing_or_error(void)
{
	return errno == ENOENT || errno == ENOTDIR ? GRANT_MISSING :
						     GRANT_ERROR;
}

/* ABS below the anchor whose resolved path is ANCHOR_REAL; REST is the
 * part of ABS after the anchor. */
static enum grant_result
resolve_beneath(const char *abs, const char *anchor_real, const char *rest,
    char **real)
{
	cleanup_fd int dir = -1, fd = -1;

	while (*rest == '/')
		rest++;
	if (*rest == '\0') {
		*real = xstrdup(anchor_real);
		return GRANT_OK;
	}
	dir = util_open(anchor_real, O_PATH | O_DIRECTORY, 0);
	if (dir < 0)
		return missing_or_error();
	fd = open_beneath(dir, rest);
	if (fd < 0) {
		if (errno != ELOOP && errno != EXDEV)
			return missing_or_error();
		*real = xstrdup(abs);
		return GRANT_LINK;
	}
	*real = util_path_join(anchor_real, rest);
	return GRANT_OK;
}

/* Whether a symlink in the directory DIR is the system's: DIR belongs to
 * root and nobody else may write it. */
static bool
trusted_dir(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 && st.st_uid == 0 &&
	    (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* ABS below no anchor: symlinks are followed in trusted directories only. */
static enum grant_result
resolve_trusted(const char *abs, char **real)
{
	cleanup_free char *copy = xstrdup(abs);
	char *cur = xstrdup("/"), *save = NULL;

	for (char *c = strtok_r(copy, "/", &save); c != NULL;
	     c = strtok_r(NULL, "/", &save)) {
		char *cand = util_path_join(cur, c);
		struct stat st;

		if (lstat(cand, &st) < 0) {
			free(cand);
			free(cur);
			return missing_or_error();
		}
		if (S_ISLNK(st.st_mode)) {
			char *to;

			if (!trusted_dir(cur)) {
				free(cur);
				*real = cand;
				return GRANT_LINK;
			}
			to = util_realpath(cand);
			free(cand);
			if (to == NULL) {
				free(cur);
				return missing_or_error();
			}
			cand = to;
		}
		free(cur);
		cur = cand;
	}
	*real = cur;
	return GRANT_OK;
}

/*
 * Resolve ABS (absolute, lexically normal) for a grant from a policy file.
 * ANCHORS (N of them, absolute; NULL entries skipped) are where nothing
 * below may be a symlink; the longest one that holds ABS applies.
 */
enum grant_result
grant_resolve(const char *abs, const char *const *anchors, size_t n,
    char **real)
{
	const char *best = NULL;
	cleanup_free char *best_real = NULL;

	*real = NULL;
	for (size_t i = 0; i < n; i++)
		if (anchors[i] != NULL && anchors[i][0] == '/' &&
		    util_path_within(abs, anchors[i]) &&
		    (best == NULL || strlen(anchors[i]) > strlen(best)))
			best = anchors[i];
	if (best == NULL)
		return resolve_trusted(abs, real);
	best_real = util_realpath(best);
	if (best_real == NULL)
		return missing_or_error();
	return resolve_beneath(abs, best_real,
	    abs + (strcmp(best, "/") == 0 ? 0 : strlen(best)), real);
}
