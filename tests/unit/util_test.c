/*
 * Unit tests of util.c's answers kept while a launch is planned
 * (util_realpath_keep()): the same answer for a path asked again, only
 * for what exists, and none once the plan is made.  On real files in a
 * scratch directory.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "tap.h"

int
main(void)
{
	char tmpl[] = "/var/tmp/sbox-util-test.XXXXXX";
	char *dir = mkdtemp(tmpl) == NULL ? NULL : realpath(tmpl, NULL);
	char *a, *b, *c, *link, *gone, *r1, *r2, *r3;
	struct stat st;
	int fd;

	if (dir == NULL)
		return 1;
	a = util_path_join(dir, "a");
	b = util_path_join(dir, "b");
	c = util_path_join(dir, "c");
	link = util_path_join(dir, "link");
	gone = util_path_join(dir, "gone");
	if (mkdir(a, 0700) < 0 || mkdir(b, 0700) < 0 || mkdir(c, 0700) < 0 ||
	    symlink(a, link) < 0)
		return 1;

	util_realpath_keep(true);
	r1 = util_realpath(link);
	(void)unlink(link);
	(void)symlink(b, link);
	r2 = util_realpath(link);
	ok(r1 != NULL && strcmp(r1, a) == 0 && r2 != NULL && strcmp(r2, a) == 0,
	    "realpath: while planning, a path asked again has its first answer");
	ok(util_realpath(gone) == NULL, "realpath: a missing path is missing");
	fd = open(gone, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd >= 0)
		close(fd);
	r3 = util_realpath(gone);
	ok(r3 != NULL && strcmp(r3, gone) == 0,
	    "realpath: a path made during the plan is seen (misses are not kept)");
	ok(util_lstat(c, &st) == 0 && S_ISDIR(st.st_mode),
	    "lstat: a directory, while planning");
	(void)rmdir(c);
	ok(util_lstat(c, &st) == 0 && S_ISDIR(st.st_mode),
	    "lstat: asked again while planning, the first answer");
	free(r1);
	free(r2);
	free(r3);

	util_realpath_keep(false);
	r1 = util_realpath(link);
	ok(r1 != NULL && strcmp(r1, b) == 0,
	    "realpath: once the plan is made, the link is looked at again");
	ok(util_lstat(c, &st) < 0,
	    "lstat: once the plan is made, the host is asked again");
	free(r1);

	/* A plan made again (a replan) starts from nothing kept. */
	util_realpath_keep(true);
	r1 = util_realpath(link); /* the first plan kept A for it */
	ok(r1 != NULL && strcmp(r1, b) == 0,
	    "realpath: a new plan does not get the last plan's answers");
	util_realpath_keep(false);
	free(r1);

	(void)unlink(link);
	(void)unlink(gone);
	(void)rmdir(a);
	(void)rmdir(b);
	(void)rmdir(dir);
	free(a);
	free(b);
	free(c);
	free(link);
	free(gone);
	free(dir);
	return tap_done();
}
