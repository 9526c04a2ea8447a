/*
 * Unit tests of grant_open_real() (grant.c): a resolved path opened from
 * the root through no symlink, so that a directory swapped for a link
 * after it was resolved leads nothing elsewhere.  On real files in a
 * scratch directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grant.h"
#include "tap.h"
#include "util.h"

/* Whether FD is open on the directory PATH. */
static bool
same_dir(int fd, const char *path)
{
	struct stat a, b;

	return fd >= 0 && fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int
main(void)
{
	char tmpl[] = "/var/tmp/sbox-grant-test.XXXXXX";
	char *dir = mkdtemp(tmpl) == NULL ? NULL : realpath(tmpl, NULL);
	char *a, *ab, *c, *cb, *link, *via, *moved, *movedb, *missing;
	int fd;

	if (dir == NULL)
		return 1;
	a = util_path_join(dir, "a");
	ab = util_path_join(a, "b");
	c = util_path_join(dir, "c");
	cb = util_path_join(c, "b");
	link = util_path_join(dir, "link");
	via = util_path_join(link, "b");
	moved = util_path_join(dir, "a.moved");
	if (mkdir(a, 0700) < 0 || mkdir(ab, 0700) < 0 || mkdir(c, 0700) < 0 ||
	    symlink(a, link) < 0)
		return 1;

	fd = grant_open_real(ab);
	ok(same_dir(fd, ab), "a resolved path opens");
	if (fd >= 0)
		close(fd);
	fd = grant_open_real("/");
	ok(same_dir(fd, "/"), "the root opens");
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = grant_open_real(via);
	ok(fd < 0 && errno == ELOOP, "a path through a link is refused (%s)",
	    strerror(errno));
	if (fd >= 0)
		close(fd);
	/* The control: the same path followed as open(2) follows it. */
	fd = open(via, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ok(same_dir(fd, ab), "control: open(2) follows the link");
	if (fd >= 0)
		close(fd);
	/* Resolved, then a directory on the way swapped for a link to
	 * another that has the same names below it. */
	if (mkdir(cb, 0700) < 0 || rename(a, moved) < 0 || symlink(c, a) < 0)
		return 1;
	fd = open(ab, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ok(same_dir(fd, cb),
	    "control: O_NOFOLLOW alone follows the swapped directory above");
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = grant_open_real(ab);
	ok(fd < 0 && errno == ELOOP,
	    "a directory on the way swapped for a link since it was resolved is refused (%s)",
	    strerror(errno));
	if (fd >= 0)
		close(fd);
	missing = util_path_join(dir, "missing");
	errno = 0;
	fd = grant_open_real(missing);
	ok(fd < 0 && errno == ENOENT, "a missing path: ENOENT");

	movedb = util_path_join(moved, "b");
	(void)unlink(a);
	(void)unlink(link);
	(void)rmdir(movedb);
	(void)rmdir(moved);
	(void)rmdir(cb);
	(void)rmdir(c);
	(void)rmdir(dir);
	free(a);
	free(ab);
	free(c);
	free(cb);
	free(link);
	free(via);
	free(moved);
	free(movedb);
	free(missing);
	free(dir);
	return tap_done();
}
