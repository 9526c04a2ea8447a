/*
 * seen.c - which names a few host directories hold, listed once a launch.
 *
 * Host protection looks for about a hundred paths in the home directory
 * (the credential list) and a score below /run, and most of them do not
 * exist.  One listing of the directory that would hold them answers that
 * for all at once: a path whose name is missing from its directory's
 * listing does not exist, as lstat() would have said.  A name that is
 * there proves nothing (the caller still looks at it, with lstat(),
 * stat() or realpath(), as before): so a listing can only spare a lookup
 * of something absent, never stand for one of something present.
 *
 * Only below the roots given (seen_root()), and only through directories
 * whose listing succeeded: a directory the user cannot read, one that is
 * too large, or a path not below a root is answered "maybe", and the
 * caller asks the file system.  A root is listed when first asked about;
 * a directory below it only when asked about a third time, since a
 * listing (open, two getdents, close) costs more than two lookups.
 * Directories are opened by path, following symlinks as the lookup of a
 * path below them would.
 *
 * MUST: say "absent" only when the name was missing from a listing made
 * in this launch; create nothing, change nothing.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seen.h"
#include "util.h"

struct seen_dir {
	char *path;	/* normalised, no trailing slash ("/" for the root) */
	unsigned asked; /* paths asked for below it so far */
	bool listed;	/* ... and succeeded: NAMES is every name */
	struct strv names; /* sorted */
};

struct seen {
	struct seen_dir *v;
	size_t n, cap;
	struct strv roots;
};

struct seen *
seen_new(void)
{
	return xcalloc(1, sizeof(struct seen));
}

/* Paths below DIR may be answered from listings. */
void
seen_root(struct seen *s, const char *dir)
{
	if (dir != NULL && dir[0] == '/')
		strv_take(&s->roots, util_path_absolute(dir, "/"));
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One more name of a listing; false once there are too many. */
static bool
add_name(void *ctx, const char *name, unsigned char type)
{
	struct strv *names = ctx;

	(void)type;
	if (names->n >= SEEN_NAMES_MAX)
		return false;
	strv_add(names, name);
	return true;
}

/* Every name in D->path, or D->listed false. */
static void
list_dir(struct seen_dir *d)
{
	cleanup_fd int fd = -1;

	fd = util_open(d->path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0 || util_dir_each(fd, add_name, &d->names) < 0 ||
	    d->names.n >= SEEN_NAMES_MAX)
		return;
	if (d->names.n > 1)
		qsort(d->names.v, d->names.n, sizeof(char *), by_name);
	d->listed = true;
}

/* Asks below a directory under a root before it is listed. */
#define SEEN_ASKS 3

/* PATH's entry, listed now if it is due (a root, or asked about enough). */
static struct seen_dir *
dir_for(struct seen *s, const char *path, bool root)
{
	struct seen_dir *d = NULL;

	for (size_t i = 0; i < s->n && d == NULL; i++)
		if (strcmp(s->v[i].path, path) == 0)
			d = &s->v[i];
	if (d == NULL) {
		s->v = util_grow(s->v, s->n, &s->cap, sizeof(*s->v));
		d = &s->v[s->n++];
		*d = (struct seen_dir){ .path = xstrdup(path) };
	}
	if (++d->asked == (root ? 1 : SEEN_ASKS))
		list_dir(d);
	return d;
}

/* Whether the listing D holds NAME. */
static bool
holds(const struct seen_dir *d, const char *name)
{
	/* An empty directory's listing has no array at all. */
	return d->names.n > 0 &&
	    bsearch(&name, d->names.v, d->names.n, sizeof(char *), by_name) !=
	    NULL;
}

/*
 * Whether PATH (absolute, normalised) is certainly absent: some name on
 * the way to it, below a root, is missing from its directory's listing.
 * False means "maybe there": ask the file system.
 */
bool
seen_absent(struct seen *s, const char *path)
{
	const char *root = NULL;
	cleanup_free char *walk = NULL;
	size_t top, at;

	for (size_t i = 0; i < s->roots.n && root == NULL; i++)
		if (util_path_within(path, s->roots.v[i]) &&
		    strcmp(path, s->roots.v[i]) != 0)
			root = s->roots.v[i];
	if (root == NULL)
		return false;
	/*
	 * One copy of PATH, cut in place: WALK up to AT is the directory,
	 * the name after it runs to the next slash.
	 */
	walk = xstrdup(path);
	top = at = strcmp(root, "/") == 0 ? 0 : strlen(root);
	while (walk[at] == '/') {
		char *name = walk + at + 1, *end = strchrnul(name, '/');
		size_t len = (size_t)(end - name);
		char after = *end;
		const struct seen_dir *d;
		bool there;

		if (len == 0 || (len == 1 && name[0] == '.') ||
		    (len == 2 && name[0] == '.' && name[1] == '.'))
			return false; /* not normalised: no answer */
		walk[at] = '\0';
		d = dir_for(s, at == 0 ? "/" : walk, at == top);
		walk[at] = '/';
		if (!d->listed)
			return false;
		*end = '\0';
		there = holds(d, name);
		*end = after;
		if (!there)
			return true;
		at = (size_t)(end - walk);
	}
	return false;
}

void
seen_free(struct seen *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].path);
		strv_clear(&s->v[i].names);
	}
	free(s->v);
	strv_clear(&s->roots);
	free(s);
}
