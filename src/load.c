/*
 * load.c - find and read the files sbox-exec takes its policy from.
 *
 * MUST NOT write, print or exit.  A file is read whole, once, through a
 * descriptor opened without following it into a FIFO's wait, and no
 * further than the size fstat() reported, so that /proc/kmsg or a pipe
 * cannot hang the launch.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"
#include "util.h"

#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/sbox-exec"
#endif

#define CREDS_FILE "credentials"
#define MAX_CREDS_BYTES (1 << 20)
#define NOLEARN_FILE "never-learned"
#define MAX_ALIASES_BYTES (64 * 1024)

/* Read the SIZE bytes fstat() reported, no more. */
static int
read_whole(int fd, size_t size, char **out)
{
	cleanup_free char *buf = xmalloc(size + 1);
	size_t len = 0;

	while (len < size) {
		ssize_t n = read(fd, buf + len, size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (memchr(buf, '\0', len) != NULL) {
		errno = EINVAL;
		return 1;
	}
	*out = steal_pointer(&buf);
	return 0;
}

/*
 * The text of the regular file PATH, of at most MAX bytes, into *TEXT
 * (NUL-terminated; to be freed); *ST is its fstat(), for callers that
 * compare files.
 */
enum load_result
load_text(const char *path, size_t max, char **text, struct stat *st)
{
	cleanup_fd int fd = -1;
	int r;

	/* O_NONBLOCK: a FIFO must not hang us before we can look at it. */
	fd = util_open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0);
	if (fd < 0 || fstat(fd, st) < 0)
		return LOAD_ERRNO;
	if (!S_ISREG(st->st_mode))
		return LOAD_NOT_REGULAR;
	if ((size_t)st->st_size > max)
		return LOAD_TOO_BIG;
	r = read_whole(fd, (size_t)st->st_size, text);
	return r < 0 ? LOAD_ERRNO : r > 0 ? LOAD_NOT_TEXT : LOAD_OK;
}

/*
 * Where a profile NAME may be, in order: the user's directory, then the
 * shipped one; then, for a relocated install or a build tree, the same
 * relative to the executable.  Returns how many; *HAS_USER when the first
 * is the user's.
 */
size_t
load_profile_candidates(const char *name, char *cand[4], bool *has_user)
{
	cleanup_free char *exe_dir = util_exe_dir();
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	size_t n = 0;

	if (xdg != NULL && xdg[0] == '/')
		cand[n++] = xasprintf("%s/sbox-exec/profiles/%s.policy", xdg,
		    name);
	else if (home != NULL && home[0] == '/')
		cand[n++] = xasprintf("%s/.config/sbox-exec/profiles/%s.policy",
		    home, name);
	*has_user = n > 0;
	cand[n++] = xasprintf("%s/profiles/%s.policy", PKGDATADIR, name);
	if (exe_dir != NULL) {
		cand[n++] = xasprintf(
		    "%s/../share/sbox-exec/profiles/%s.policy", exe_dir, name);
		cand[n++] = xasprintf("%s/../profiles/%s.policy", exe_dir,
		    name);
	}
	return n;
}

/*
 * The names of the profiles there are, in every place
 * load_profile_candidates() looks, into NAMES (duplicates and all): what
 * an unknown --profile is compared with.  A directory that cannot be read
 * adds nothing.
 */
void
load_profile_names(struct strv *names)
{
	char *dirs[4] = { NULL };
	bool has_user;
	size_t n = load_profile_candidates("", dirs, &has_user);

	for (size_t i = 0; i < n; i++) {
		DIR *d;
		struct dirent *e;

		/* "DIR/.policy": the directory is what comes before. */
		*strrchr(dirs[i], '/') = '\0';
		d = opendir(dirs[i]);
		while (
		    d != NULL && (e = readdir(d)) != NULL && names->n < 1000) {
			size_t len = strlen(e->d_name);

			if (len > 7 && e->d_name[0] != '.' &&
			    strcmp(e->d_name + len - 7, ".policy") == 0)
				strv_take(names, xstrndup(e->d_name, len - 7));
		}
		if (d != NULL)
			closedir(d);
		free(dirs[i]);
	}
}

/*
 * The aliases of the shipped profiles (profiles/aliases: "COMMAND PROFILE"
 * a line, '#' comments) into ALIASES and TARGETS, one pair by index: from
 * the first of the shipped profile directories that has the file.  A line
 * of another form, and a missing or unreadable file, add nothing.
 */
void
load_profile_aliases(struct strv *aliases, struct strv *targets)
{
	char *dirs[4] = { NULL };
	bool has_user, done = false;
	size_t n = load_profile_candidates("", dirs, &has_user);

	for (size_t i = has_user ? 1 : 0; i < n; i++) {
		cleanup_free char *path = NULL, *text = NULL;
		struct stat st;
		char *line, *next;

		*strrchr(dirs[i], '/') = '\0';
		path = xasprintf("%s/aliases", dirs[i]);
		if (done ||
		    load_text(path, MAX_ALIASES_BYTES, &text, &st) != LOAD_OK)
			continue;
		done = true;
		for (line = text; line != NULL; line = next) {
			char *a, *t, *save = NULL;

			next = strchr(line, '\n');
			if (next != NULL)
				*next++ = '\0';
			a = strtok_r(line, " \t", &save);
			t = a != NULL && a[0] != '#' ?
			    strtok_r(NULL, " \t", &save) :
			    NULL;
			if (t == NULL || strtok_r(NULL, " \t", &save) != NULL ||
			    strchr(a, '/') != NULL || strchr(t, '/') != NULL)
				continue;
			strv_add(aliases, a);
			strv_add(targets, t);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
}

/*
 * The profile the alias NAME stands for (to be freed), or NULL when NAME
 * is no alias.
 */
char *
load_profile_alias(const char *name)
{
	cleanup_strv struct strv aliases = { 0 }, targets = { 0 };

	load_profile_aliases(&aliases, &targets);
	for (size_t i = 0; i < aliases.n; i++)
		if (strcmp(aliases.v[i], name) == 0)
			return xstrdup(targets.v[i]);
	return NULL;
}

/*
 * The shipped data file NAME (the credential list, the never-learned
 * list): in PKGDATADIR, then, for a relocated install or a build tree,
 * relative to the executable, as the profiles are found.  The first that
 * exists, or the installed path when none does.
 */
static char *
shipped_data(const char *name)
{
	cleanup_free char *exe_dir = util_exe_dir();
	char *cand[3] = { NULL };
	size_t n = 0;
	char *found = NULL;

	cand[n++] = xasprintf("%s/%s", PKGDATADIR, name);
	if (exe_dir != NULL) {
		cand[n++] = xasprintf("%s/../share/sbox-exec/%s", exe_dir,
		    name);
		cand[n++] = xasprintf("%s/../data/%s", exe_dir, name);
	}
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (found == NULL && util_lstat(cand[i], &st) == 0)
			found = util_path_absolute(cand[i], "/");
		free(cand[i]);
	}
	return found ? found : xasprintf("%s/%s", PKGDATADIR, name);
}

/* The user's list is theirs to have or not: missing, or (HOME being
 * another user's) one this user cannot reach, is no list. */
static bool
user_file_absent(const char *path, int e)
{
	struct stat st;

	if (e == ENOENT || e == ENOTDIR)
		return true;
	return e == EACCES && (lstat(path, &st) < 0 || st.st_uid != util_uid());
}

/*
 * Read the list at PATH into OUT.  A missing file is an error when
 * REQUIRED (the shipped one), nothing otherwise (the user's).
 */
static int
load_creds_file(const char *path, bool required, const struct creds_env *env,
    struct creds_list *out, struct sbox_error *err)
{
	const char *what = required ? "the shipped credential list" :
				      "the user's credential list";
	cleanup_free char *text = NULL;
	struct stat st;
	const char *limit;
	int e;

	switch (load_text(path, MAX_CREDS_BYTES, &text, &st)) {
	case LOAD_OK:
		return creds_parse_text(text, path, env, out, err);
	case LOAD_NOT_REGULAR:
	case LOAD_TOO_BIG:
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "cannot read %s %s: not a regular file of at most %d bytes",
		    what, path, MAX_CREDS_BYTES);
		return -1;
	case LOAD_NOT_TEXT:
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "%s %s: not a text file", what, path);
		return -1;
	case LOAD_ERRNO:
		break;
	}
	e = errno;
	if (!required && user_file_absent(path, e))
		return 0;
	limit = sbox_errno_hint(e);
	/* A limit reached is the machine's state, not the install's. */
	sbox_error_set(err, limit ? SBOX_PROBE_FAILED : SBOX_INVALID_POLICY,
	    "cannot read %s %s: %s", what, path, strerror(e));
	if (limit != NULL)
		sbox_error_hint(err, "%s", limit);
	else if (required)
		sbox_error_hint(err,
		    "reinstall sbox-exec: without this file it protects less, so it refuses");
	return -1;
}

/*
 * The credential lists: the shipped one, which must be there, then the
 * user's, which may only add to it.
 */
int
load_credentials(const struct creds_env *cenv, struct creds_list *cl,
    struct sbox_error *e)
{
	cleanup_free char *shipped = shipped_data(CREDS_FILE);
	cleanup_free char *user = creds_user_path(getenv("XDG_CONFIG_HOME"),
	    getenv("HOME"));

	if (load_creds_file(shipped, true, cenv, cl, e) < 0)
		return -1;
	if (user != NULL && load_creds_file(user, false, cenv, cl, e) < 0)
		return -1;
	return 0;
}

/*
 * The never-learned list (DENIALS in sbox-exec(1)): the shipped file,
 * which must be there, into OUT.  0, or -1 with ERR set: the caller then
 * suggests no grant at all.
 */
int
load_never_learned(const struct creds_env *cenv, struct nolearn_list *out,
    struct sbox_error *err)
{
	cleanup_free char *path = shipped_data(NOLEARN_FILE);
	cleanup_free char *text = NULL;
	struct stat st;

	switch (load_text(path, MAX_CREDS_BYTES, &text, &st)) {
	case LOAD_OK:
		return nolearn_parse_text(text, path, cenv, out, err);
	case LOAD_ERRNO:
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "cannot read the list of what is never learned %s: %s",
		    path, strerror(errno));
		return -1;
	case LOAD_NOT_REGULAR:
	case LOAD_TOO_BIG:
	case LOAD_NOT_TEXT:
		break;
	}
	sbox_error_set(err, SBOX_INVALID_POLICY,
	    "cannot read the list of what is never learned %s: not a text file of at most %d bytes",
	    path, MAX_CREDS_BYTES);
	return -1;
}
