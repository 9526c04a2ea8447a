/*
 * locate.c - the bwrap lookup order and the setuid rule.
 *
 * MUST: check the file that will be executed, not a path looked at
 * earlier: the candidate is opened (following symlinks) and fstat()ed, and
 * that descriptor is what launch.c executes.  MUST NOT search relative
 * PATH entries: the current directory is never searched.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "locate.h"
#include "probe.h"
#include "util.h"

#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/sbox-exec"
#endif

void
locate_free(struct located *l)
{
	if (l->fd >= 0)
		close(l->fd);
	free(l->path);
	l->fd = -1;
	l->path = NULL;
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
			out->bind_fd = true;
		if (out->disable_userns && out->bind_fd)
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
	rfd = open(path, O_RDONLY | O_CLOEXEC);
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

/*
 * Open PATH and check it: 0 usable, 1 absent (ENOENT and the like: the
 * search may go on), -1 refused with ERR set.
 */
static int
try_candidate(const char *path, struct located *out, struct sbox_error *err)
{
	struct stat st;
	int fd;

	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0 && !absent_errno(errno)) {
		/* Not "no such file": the search cannot go on truthfully. */
		int e = errno;

		sbox_error_set(err, SBOX_PROBE_FAILED, "cannot open %s: %s",
		    path, strerror(e));
		if (probe_errno_hint(e) != NULL)
			err->hint = xstrdup(probe_errno_hint(e));
		return -1;
	}
	if (fd < 0)
		return 1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    faccessat(fd, "", X_OK, AT_EMPTY_PATH | AT_EACCESS) < 0) {
		close(fd);
		return 1;
	}
	if (st.st_mode & (S_ISUID | S_ISGID)) {
		close(fd);
		sbox_error_set(err, SBOX_SETUID_REJECTED,
		    "%s is setuid or setgid; sbox-exec relies on unprivileged "
		    "user namespaces only and will not run a privileged bwrap",
		    path);
		err->hint = xstrdup("install a bwrap without the setuid bit, "
				    "or name one with --bwrap");
		return -1;
	}
	out->fd = fd;
	out->path = xstrdup(path);
	out->disable_userns = out->bind_fd = false;
	bwrap_features(fd, out);
	return 0;
}

static void
not_found(struct sbox_error *err, const char *what)
{
	sbox_error_set(err, SBOX_BWRAP_NOT_FOUND, "%s", what);
	err->hint = xstrdup(
	    "install bubblewrap (Debian and Ubuntu: "
	    "apt install bubblewrap; Fedora: dnf install bubblewrap)");
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
	int r;

	out->fd = -1;
	out->path = NULL;
	if (explicit != NULL) {
		r = try_candidate(explicit, out, err);
		if (r == 1) {
			sbox_error_set(err, SBOX_BWRAP_NOT_FOUND,
			    "%s: not an executable file", explicit);
			err->hint = xstrdup("check the path given with --bwrap "
					    "or SBOX_EXEC_BWRAP");
		}
		return r == 0 ? 0 : -1;
	}

	if (path_env != NULL) {
		char *save = NULL;

		copy = xstrdup(path_env);
		for (char *dir = strtok_r(copy, ":", &save); dir != NULL;
		     dir = strtok_r(NULL, ":", &save)) {
			cleanup_free char *cand = NULL;

			if (dir[0] != '/')
				continue;
			cand = util_path_join(dir, "bwrap");
			r = try_candidate(cand, out, err);
			if (r <= 0)
				return r;
		}
	}

	r = try_candidate(PKGLIBEXECDIR "/bwrap", out, err);
	if (r <= 0)
		return r;
	/* A relocated install: ../libexec/sbox-exec/bwrap beside bin/. */
	exe = util_exe_dir();
	if (exe != NULL) {
		cleanup_free char *cand = NULL;

		cand = xasprintf("%s/../libexec/sbox-exec/bwrap", exe);
		r = try_candidate(cand, out, err);
		if (r <= 0)
			return r;
	}
	not_found(err, "no bwrap found on PATH or installed with sbox-exec");
	return -1;
}

/* Refuse to run setuid or setgid ourselves: we want no privilege. */
int
locate_self_check(struct sbox_error *err)
{
	struct stat st;

	if (getauxval(AT_SECURE) != 0 || getuid() != geteuid() ||
	    getgid() != getegid() ||
	    (stat("/proc/self/exe", &st) == 0 &&
		(st.st_mode & (S_ISUID | S_ISGID)) != 0)) {
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "sbox-exec must not be installed setuid or setgid");
		return -1;
	}
	return 0;
}
