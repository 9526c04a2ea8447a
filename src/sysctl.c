/*
 * sysctl.c - kernel settings, read from /proc/sys.
 *
 * The one function that reads them, so that a test can point it at a
 * prepared tree: SBOX_TEST_SYSROOT, when set to an absolute path, is the
 * root the settings are read below (tests/README).  Test-only: only the
 * diagnosis of a failed launch (the refusal's detail and hint) reads
 * these settings.  MUST NOT decide anything the sandbox allows or refuses
 * from what is read here.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
