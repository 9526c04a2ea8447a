/*
 * locate.c - the bwrap lookup order, the setuid rule and the rule of
 * trusted places.
 *
 * MUST: check the file that will be executed, not a path looked at
 * earlier: the candidate is opened (following symlinks) and fstat()ed, and
 * that descriptor is what launch.c executes.  MUST NOT search relative
 * PATH entries: the current directory is never searched.  MUST NOT run a
 * bwrap found by searching (PATH, the bundled copy) that someone but root
 * could have put there: the file and every directory above it must be
 * writable by root only (for the bundled copy, also by the owner of
 * sbox-exec's own executable, who could replace sbox-exec as well).  A
 * bwrap named with --bwrap or SBOX_EXEC_BWRAP is the caller's choice.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "fd.h"
#include "locate.h"
#include "procfs.h"
#include "sbox.h"
#include "util.h"

#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/sbox-exec"
#endif

void
locate_free(struct located *l)
{
	fd_close(&l->fd);
	free(l->path);
	free(l->caller_writable);
	l->fd = -1;
	l->path = NULL;
	l->caller_writable = NULL;
}

/* How far a candidate is checked: not at all (named by the caller), for
 * root alone, or for root and the owner of our executable. */
enum trust {
	TRUST_NAMED,
	TRUST_ROOT,
	TRUST_ROOT_OR_OWNER,
};

#define NOBODY ((uid_t)-1)

/*
 * The uid that stands for root here: 0, or in a user namespace the uid
 * mapped to its parent's root; when none is, root's files show as the
 * overflow uid (as do those of every user the namespace does not map,
 * which sbox-exec cannot tell apart).  The caller, root inside a
 * namespace of its own making, is then not trusted.
 */
static uid_t
root_uid(void)
{
	static uid_t root = NOBODY;
	char buf[4096];
	unsigned long overflow = 65534;

	if (root != NOBODY)
		return root;
	root = 0;
	if (util_read_small("/proc/self/uid_map", buf, sizeof(buf)) < 0)
		return root;
	if (procfs_uid_map_root(buf, &root))
		return root;
	if (util_read_small("/proc/sys/kernel/overflowuid", buf, sizeof(buf)) >
	    0)
		overflow = strtoul(buf, NULL, 10);
	return root = (uid_t)overflow;
}

static bool
trusted_uid(uid_t uid, uid_t also)
{
	return uid == root_uid() || (also != NOBODY && uid == also);
}

/*
 * Why DIR (with the entry below it, ENTRY) lets someone untrusted change
 * that entry, or NULL.  A directory others may write to is safe only when
 * it is sticky and the entry is a trusted user's: then nobody else may
 * rename or remove it (how /tmp and /var/tmp work).
 */
static const char *
dir_problem(const struct stat *dir, const struct stat *entry, uid_t also)
{
	if (!trusted_uid(dir->st_uid, also))
		return "is owned by a user other than root";
	if ((dir->st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
	    !((dir->st_mode & S_ISVTX) != 0 &&
		trusted_uid(entry->st_uid, also)))
		return (dir->st_mode & S_IWOTH) != 0 ?
		    "is writable by others" :
		    "is writable by its group";
	return NULL;
}

/*
 * Whether the file open on FD, and every directory from / down to it,
 * can be changed by root (or ALSO) only.  The kernel's name for the file
 * (symlinks resolved) is walked one step at a time without following
 * symlinks, and the last step must reach the very file on FD.  Returns
 * NULL when so; otherwise the first place that is not, and in *WHY what
 * is wrong with it.
 */
static char *
untrusted_place(int fd, uid_t also, const char **why, int *sys_errno)
{
	char link[64], real[PATH_MAX];
	struct stat file, dir, entry;
	cleanup_buf struct buf at = { 0 };
	ssize_t n;
	cleanup_fd int cur = -1;
	char *name, *save = NULL, *next;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	*sys_errno = 0;
	n = readlink(link, real, sizeof(real) - 1);
	*why = "cannot be checked";
	if (n <= 0 || fstat(fd, &file) < 0) {
		*sys_errno = n == 0 ? 0 : errno;
		return xstrdup("the file found");
	}
	real[n] = '\0';
	if (real[0] != '/')
		return xstrdup(real);
	cur = util_open("/", O_PATH | O_DIRECTORY, 0);
	if (cur < 0 || fstat(cur, &dir) < 0) {
		*sys_errno = errno;
		return xstrdup("/");
	}
	buf_adds(&at, "/");
	for (name = strtok_r(real + 1, "/", &save); name != NULL; name = next) {
		const char *problem;
		int sub;

		next = strtok_r(NULL, "/", &save);
		if (fstatat(cur, name, &entry, AT_SYMLINK_NOFOLLOW) < 0)
			break;
		problem = dir_problem(&dir, &entry, also);
		if (problem != NULL) {
			*why = problem;
			return buf_steal(&at);
		}
		if (at.len > 1)
			buf_addc(&at, '/');
		buf_adds(&at, name);
		if (next == NULL) {
			if (entry.st_dev != file.st_dev ||
			    entry.st_ino != file.st_ino) {
				*why =
				    "changed while sbox-exec was looking at it";
				return buf_steal(&at);
			}
			if (!trusted_uid(file.st_uid, also)) {
				*why = "is owned by a user other than root";
				return buf_steal(&at);
			}
			if ((file.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
				*why = "is writable by others or its group";
				return buf_steal(&at);
			}
			return NULL;
		}
		sub = openat(cur, name,
		    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			*sys_errno = errno;
		fd_close(&cur);
		cur = sub;
		if (cur < 0 || fstat(cur, &dir) < 0 ||
		    dir.st_dev != entry.st_dev || dir.st_ino != entry.st_ino) {
			*why = "changed while sbox-exec was looking at it";
			return buf_steal(&at);
		}
	}
	*why = "changed while sbox-exec was looking at it";
	return buf_steal(&at);
}

/*
 * Apply the rule of trusted places to the candidate open on OUT->fd;
 * -1 with ERR set when it fails.  A bundled copy that only its owner
 * (the caller) can change is noted for --check.
 */
static int
check_place(const char *path, enum trust trust, struct located *out,
    struct sbox_error *err)
{
	const char *why;
	cleanup_free char *place = NULL;
	struct stat self;
	int e;

	if (trust == TRUST_NAMED)
		return 0;
	place = untrusted_place(out->fd, NOBODY, &why, &e);
	if (place == NULL)
		return 0;
	if (e != 0 && sbox_errno_hint(e) != NULL) {
		/* Not a place found wanting: no means to look (a limit). */
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "cannot check where %s lies: %s", path, strerror(e));
		sbox_error_hint(err, "%s", sbox_errno_hint(e));
		return -1;
	}
	if (trust == TRUST_ROOT_OR_OWNER &&
	    stat("/proc/self/exe", &self) == 0) {
		const char *why2;
		char *place2 = untrusted_place(out->fd, self.st_uid, &why2, &e);

		if (place2 == NULL) {
			if (self.st_uid == util_uid())
				out->caller_writable = steal_pointer(&place);
			return 0;
		}
		free(place);
		place = place2;
		why = why2;
	}
	sbox_error_set(err, SBOX_BWRAP_UNTRUSTED,
	    "%s: %s %s, so someone other than root could have put this bwrap there; sbox-exec will not run it",
	    path, place, why);
	sbox_error_hint(err,
	    "install bubblewrap from the distribution (Debian and Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap), or name a bwrap you trust with --bwrap");
	return -1;
}

/*
 * Look in the bytes of a bwrap for "--disable-userns" and "--ro-bind-fd",
 * NUL included so that a longer option does not count, in one pass from
 * one '-' to the next.
 */
static void
scan_options(const char *map, size_t len, struct located *out)
{
	static const char userns[] = "--disable-userns";
	static const char bindfd[] = "--ro-bind-fd";
	const char *p = map, *end = map + len;

	while ((p = memchr(p, '-', (size_t)(end - p))) != NULL) {
		size_t left = (size_t)(end - p);

		if (left >= sizeof(userns) &&
		    memcmp(p, userns, sizeof(userns)) == 0)
			out->disable_userns = true;
		else if (left >= sizeof(bindfd) &&
		    memcmp(p, bindfd, sizeof(bindfd)) == 0)
			out->can_bind_fd = true;
		if (out->disable_userns && out->can_bind_fd)
			break;
		p++;
	}
}

/*
 * Which of the options sbox-exec may pass the bwrap behind FD knows.
 * bwrap compares each option with a string literal, so a known option is
 * in its read-only data; one scan of the file costs microseconds where
 * asking bwrap --version costs an exec.
 */
static void
bwrap_features(int fd, struct located *out)
{
	char path[64];
	struct stat st;
	void *map;
	int rfd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rfd = util_open(path, O_RDONLY, 0);
	if (rfd < 0)
		return;
	if (fstat(rfd, &st) == 0 && st.st_size > 0 &&
	    st.st_size < 64 * 1024 * 1024) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
		    rfd, 0);
		if (map != MAP_FAILED) {
			size_t len = (size_t)st.st_size;

			scan_options(map, len, out);
			munmap(map, len);
		}
	}
	close(rfd);
}

/* Errors that mean "no usable file at this path": the search goes on. */
static bool
absent_errno(int e)
{
	return e == ENOENT || e == ENOTDIR || e == EACCES || e == ELOOP ||
	    e == ENAMETOOLONG || e == EPERM;
}

/* What became of a candidate. */
enum candidate {
	CANDIDATE_USABLE,  /* open on OUT->fd */
	CANDIDATE_ABSENT,  /* ENOENT and the like: the search may go on */
	CANDIDATE_REFUSED, /* ERR says why */
};

/*
 * Whether DIR, a word strtok_r() cut from the copy of PATH at START, was
 * one of its words before: a directory named twice is looked in once.
 */
static bool
named_before(const char *start, const char *dir)
{
	for (const char *w = start; w < dir; w += strlen(w) + 1)
		if (strcmp(w, dir) == 0)
			return true;
	return false;
}

/* Open PATH and check it. */
static enum candidate
try_candidate(const char *path, enum trust trust, struct located *out,
    struct sbox_error *err)
{
	struct stat st;
	cleanup_fd int fd = util_open(path, O_PATH, 0);

	if (fd < 0 && !absent_errno(errno)) {
		/* Not "no such file": the search cannot go on truthfully. */
		int e = errno;

		sbox_error_set(err, SBOX_PROBE_FAILED, "cannot open %s: %s",
		    path, strerror(e));
		if (sbox_errno_hint(e) != NULL)
			sbox_error_hint(err, "%s", sbox_errno_hint(e));
		return CANDIDATE_REFUSED;
	}
	if (fd < 0)
		return CANDIDATE_ABSENT;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    faccessat(fd, "", X_OK, AT_EMPTY_PATH | AT_EACCESS) < 0)
		return CANDIDATE_ABSENT;
	if (st.st_mode & (S_ISUID | S_ISGID)) {
		sbox_error_set(err, SBOX_SETUID_REJECTED,
		    "%s is setuid or setgid; sbox-exec relies on unprivileged user namespaces only and will not run a privileged bwrap",
		    path);
		sbox_error_hint(err,
		    "install a bwrap without the setuid bit, or name one with --bwrap");
		return CANDIDATE_REFUSED;
	}
	out->fd = fd;
	if (check_place(path, trust, out, err) < 0) {
		out->fd = -1;
		return CANDIDATE_REFUSED;
	}
	out->path = xstrdup(path);
	out->disable_userns = out->can_bind_fd = false;
	bwrap_features(fd, out);
	out->fd = steal_fd(&fd);
	return CANDIDATE_USABLE;
}

static void
not_found(struct sbox_error *err, const char *what)
{
	sbox_error_set(err, SBOX_BWRAP_NOT_FOUND, "%s", what);
	sbox_error_hint(err,
	    "install bubblewrap (Debian and Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)");
}

/*
 * EXPLICIT (--bwrap or SBOX_EXEC_BWRAP) is the only candidate when set.
 * Otherwise: absolute PATH entries in order, then the bundled copy.
 */
int
locate_bwrap(const char *explicit, const char *path_env, struct located *out,
    struct sbox_error *err)
{
	cleanup_free char *exe = NULL, *copy = NULL;
	enum candidate r;

	out->fd = -1;
	out->path = NULL;
	out->caller_writable = NULL;
	out->source = BWRAP_SOURCE_FLAG;
	if (explicit != NULL) {
		r = try_candidate(explicit, TRUST_NAMED, out, err);
		if (r == CANDIDATE_ABSENT) {
			sbox_error_set(err, SBOX_BWRAP_NOT_FOUND,
			    "%s: not an executable file", explicit);
			sbox_error_hint(err,
			    "check the path given with --bwrap or SBOX_EXEC_BWRAP");
		}
		return r == CANDIDATE_USABLE ? 0 : -1;
	}

	if (path_env != NULL) {
		char *save = NULL;

		copy = xstrdup(path_env);
		for (char *dir = strtok_r(copy, ":", &save); dir != NULL;
		     dir = strtok_r(NULL, ":", &save)) {
			cleanup_free char *cand = NULL;

			if (dir[0] != '/' || named_before(copy, dir))
				continue;
			cand = util_path_join(dir, "bwrap");
			out->source = BWRAP_SOURCE_PATH;
			r = try_candidate(cand, TRUST_ROOT, out, err);
			if (r != CANDIDATE_ABSENT)
				return r == CANDIDATE_USABLE ? 0 : -1;
		}
	}

	out->source = BWRAP_SOURCE_BUNDLED;
	r = try_candidate(PKGLIBEXECDIR "/bwrap", TRUST_ROOT_OR_OWNER, out,
	    err);
	if (r != CANDIDATE_ABSENT)
		return r == CANDIDATE_USABLE ? 0 : -1;
	/* A relocated install: ../libexec/sbox-exec/bwrap beside bin/. */
	exe = util_exe_dir();
	if (exe != NULL) {
		cleanup_free char *cand = NULL;

		cand = xasprintf("%s/../libexec/sbox-exec/bwrap", exe);
		r = try_candidate(cand, TRUST_ROOT_OR_OWNER, out, err);
		if (r != CANDIDATE_ABSENT)
			return r == CANDIDATE_USABLE ? 0 : -1;
	}
	not_found(err, "no bwrap found on PATH or installed with sbox-exec");
	return -1;
}

/* The status's name for SOURCE (sbox-exec(1), STATUS: bwrap_source). */
const char *
locate_source_name(enum bwrap_source source)
{
	switch (source) {
	case BWRAP_SOURCE_FLAG:
		return "flag";
	case BWRAP_SOURCE_ENV:
		return "env";
	case BWRAP_SOURCE_PATH:
		return "path";
	case BWRAP_SOURCE_BUNDLED:
		return "bundled";
	}
	return "unknown";
}

/* The same in words, for --check. */
const char *
locate_source_words(enum bwrap_source source)
{
	switch (source) {
	case BWRAP_SOURCE_FLAG:
		return "named with --bwrap";
	case BWRAP_SOURCE_ENV:
		return "named by SBOX_EXEC_BWRAP";
	case BWRAP_SOURCE_PATH:
		return "found on PATH";
	case BWRAP_SOURCE_BUNDLED:
		return "the copy installed with sbox-exec; none on PATH";
	}
	return "found";
}

/*
 * NAME looked up as outside the sandbox, on PATH_ENV (NULL:
 * "/bin:/usr/bin", as stage two does), relative entries taken from CWD:
 * the first regular file with execute permission, written as stage two
 * writes what it found, or NULL.  Cheap (a stat() an entry), and only
 * advice: the launcher compares it with what the sandbox found
 * (sbox-exec(1), COMMAND LOOKUP).
 */
char *
locate_command(const char *name, const char *path_env, const char *cwd)
{
	const char *p = path_env != NULL ? path_env : "/bin:/usr/bin";

	if (name[0] == '\0' || strchr(name, '/') != NULL)
		return NULL;
	for (;;) {
		size_t len = strcspn(p, ":");
		cleanup_free char *cand = xasprintf("%.*s/%s",
		    len ? (int)len : 1, len ? p : ".", name);
		struct stat st;

		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0)
			return cand[0] == '/' ? steal_pointer(&cand) :
						xasprintf("%s/%s", cwd, cand);
		if (p[len] == '\0')
			return NULL;
		p += len + 1;
	}
}
