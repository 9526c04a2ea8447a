/*
 * landlock.c - the Landlock domain stage two puts itself (and so the
 * command) in before the command runs.
 *
 * Two things, as far as the kernel's ABI reaches:
 * - writes only below the paths the sandbox shows writable (the --rw
 *   grants, /tmp, /dev, /proc): the mounts already say so, but a file the
 *   caller handed over as a descriptor (stdin opened read-only, say) could
 *   otherwise be reopened for writing through /proc/self/fd;
 * - no connecting to abstract unix sockets, and no signals, outside the
 *   sandbox (ABI 6).
 * The structures and flags are spelled out here, as the kernel's ABI
 * defines them, because build machines' headers lag behind.  MUST NOT
 * print or exit; MUST fail rather than confine less than asked.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"
#include "util.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

#define RULESET_VERSION_FLAG (1U << 0)
#define RULE_PATH_BENEATH 1

#define FS_WRITE_FILE (1ULL << 1)
#define FS_REMOVE_DIR (1ULL << 4)
#define FS_REMOVE_FILE (1ULL << 5)
#define FS_MAKE_CHAR (1ULL << 6)
#define FS_MAKE_DIR (1ULL << 7)
#define FS_MAKE_REG (1ULL << 8)
#define FS_MAKE_SOCK (1ULL << 9)
#define FS_MAKE_FIFO (1ULL << 10)
#define FS_MAKE_BLOCK (1ULL << 11)
#define FS_MAKE_SYM (1ULL << 12)
#define FS_REFER (1ULL << 13)	 /* ABI 2 */
#define FS_TRUNCATE (1ULL << 14) /* ABI 3 */

#define SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)

struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* The kernel's Landlock ABI version, or -1 when it has none. */
int
landlock_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    RULESET_VERSION_FLAG);

	return v < 0 ? -1 : (int)v;
}

/* Every right that changes the file system, as far as ABI knows them. */
static uint64_t
write_rights(int abi)
{
	uint64_t r = FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE |
	    FS_MAKE_CHAR | FS_MAKE_DIR | FS_MAKE_REG | FS_MAKE_SOCK |
	    FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM;

	if (abi >= 2)
		r |= FS_REFER;
	if (abi >= 3)
		r |= FS_TRUNCATE;
	return r;
}

/* Allow writing below PATH (or to it, a file); a missing path is none. */
static int
allow_writes(int ruleset, const char *path, uint64_t rights)
{
	struct path_beneath_attr attr;
	struct stat st;
	cleanup_fd int fd = util_open(path, O_PATH, 0);

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	/* Only file rights apply to a file. */
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		rights &= FS_WRITE_FILE | FS_TRUNCATE;
	attr.allowed_access = rights;
	attr.parent_fd = fd;
	return (int)syscall(SYS_landlock_add_rule, ruleset, RULE_PATH_BENEATH,
	    &attr, 0);
}

/*
 * A file the caller handed over open for writing (a log as stdout, say)
 * stays writable when reopened by name, as in "> /dev/stderr": the
 * descriptor granted that already.  One opened read-only grants nothing.
 */
static int
allow_fd_writes(int ruleset, int fd, uint64_t rights)
{
	char path[64];
	struct stat st;
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY ||
	    fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return allow_writes(ruleset, path, rights);
}

/*
 * Confine this process and its descendants: writes only below the N
 * paths WRITABLE, /tmp, /dev and /proc, and to the files behind the NFDS
 * descriptors FDS where they are open for writing; and, from ABI 6, no
 * abstract sockets or signals outside.  Nothing is done without Landlock.
 */
int
landlock_confine(char *const *writable, size_t n, const int *fds, size_t nfds)
{
	static const char *const always[] = { "/tmp", "/dev", "/proc" };
	int abi = landlock_abi();
	struct ruleset_attr attr = { 0 };
	uint64_t rights;
	cleanup_fd int fd = -1;
	int r = 0;

	if (abi < 1)
		return 0;
	rights = write_rights(abi);
	attr.handled_access_fs = rights;
	if (abi >= LANDLOCK_SCOPE_ABI)
		attr.scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL;
	/* Older kernels reject a structure longer than they know. */
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr,
	    abi >= 6	 ? sizeof(attr) :
		abi >= 4 ? 2 * sizeof(uint64_t) :
			   sizeof(uint64_t),
	    0);
	if (fd < 0)
		return -1;
	for (size_t i = 0; r == 0 && i < N_ELEMENTS(always); i++)
		r = allow_writes(fd, always[i], rights);
	for (size_t i = 0; r == 0 && i < n; i++)
		r = allow_writes(fd, writable[i], rights);
	for (size_t i = 0; r == 0 && i < nfds; i++)
		r = allow_fd_writes(fd, fds[i], rights);
	if (r == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		r = -1;
	if (r == 0)
		r = (int)syscall(SYS_landlock_restrict_self, fd, 0);
	return r;
}
