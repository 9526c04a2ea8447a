/*
 * sysctl.c - kernel settings, read from /proc/sys.
 *
 * The one function that reads them, so that a test can point it at a
 * prepared tree: SBOX_TEST_SYSROOT, when set to an absolute path, is the
 * root the settings are read below (tests/README).  Test-only: only the
 * diagnosis of a failed launch (the refusal's detail and hint) reads
 * these settings, and whether a sandbox of ours is around us.  MUST NOT
 * decide anything the sandbox allows or refuses from what is read here.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysctl.h"
#include "util.h"

/*
 * The kernel setting NAME ("kernel/apparmor_restrict_unprivileged_userns",
 * the path below /proc/sys) as a number into *VALUE; -1 when it does not
 * exist or is not a number.
 */
int
sysctl_read_long(const char *name, long *value)
{
	const char *root = getenv("SBOX_TEST_SYSROOT");
	cleanup_free char *path = NULL;
	char buf[64], *end;

	if (root == NULL || root[0] != '/')
		root = "";
	path = xasprintf("%s/proc/sys/%s", root, name);
	if (util_read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	*value = strtol(buf, &end, 10);
	if (end == buf || errno != 0 || (*end != '\0' && *end != '\n'))
		return -1;
	return 0;
}

/*
 * Whether this launcher runs inside a sandbox sbox-exec made, told two
 * ways: the mark in the caller's environment (which --clearenv or
 * --unsetenv may have dropped), or, whatever the environment, the
 * sandbox's first process: bwrap with stage two on its command line.
 */
bool
sysctl_inside_sbox_exec(void)
{
	static const char stage2[] = "\0--sbox-stage2\0";
	cleanup_fd int fd = -1;
	char buf[16384];
	ssize_t n;

	if (getenv(SBOX_SANDBOX_ENV) != NULL)
		return true;
	fd = util_open("/proc/1/cmdline", O_RDONLY | O_NOCTTY, 0);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	return n > 0 &&
	    memmem(buf, (size_t)n, stage2, sizeof(stage2) - 1) != NULL;
}
