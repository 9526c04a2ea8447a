/*
 * landlock.c - the two Landlock calls stage two makes before the command.
 *
 * The scoped field arrived after the headers most build machines have, so
 * the structure and flags are spelled out here, as the kernel's ABI
 * defines them.  MUST NOT print or exit.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

#define RULESET_VERSION_FLAG	(1U << 0)
#define SCOPE_ABSTRACT_UNIX	(1ULL << 0)
#define SCOPE_SIGNAL		(1ULL << 1)

struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

/* The kernel's Landlock ABI version, or -1 when it has none. */
int
landlock_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    RULESET_VERSION_FLAG);

	return v < 0 ? -1 : (int)v;
}

/*
 * Confine this process and its descendants: no connecting to abstract
 * unix sockets created outside, no signals to processes outside.  Nothing
 * on the file system or network is restricted by this ruleset.
 */
int
landlock_scope_self(void)
{
	struct ruleset_attr attr = {
		.scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL,
	};
	long fd;
	int r, saved;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	fd = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return -1;
	r = (int)syscall(SYS_landlock_restrict_self, (int)fd, 0);
	saved = errno;
	close((int)fd);
	errno = saved;
	return r;
}
