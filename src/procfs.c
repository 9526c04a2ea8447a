/*
 * procfs.c - parse /proc/PID/status and /proc/self/uid_map.
 *
 * Pure: MUST NOT look at the host.  A field missing or malformed is left
 * unknown (-1), never guessed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"

/* The number after a "Key:" at the start of LINE, or -1. */
static long
field(const char *line, const char *key)
{
	size_t n = strlen(key);
	char *end;
	long v;

	if (strncmp(line, key, n) != 0)
		return -1;
	v = strtol(line + n, &end, 10);
	return end == line + n || v < 0 ? -1 : v;
}

/*
 * The fields of TEXT, a /proc/PID/status, into PS.  -1 when PPid or
 * Seccomp is missing (Seccomp_filters is newer: it may be).
 */
int
procfs_status(const char *text, struct proc_status *ps)
{
	ps->ppid = -1;
	ps->seccomp = -1;
	ps->filters = -1;
	for (const char *line = text; *line != '\0';) {
		const char *end = strchrnul(line, '\n');
		long v;

		if ((v = field(line, "PPid:")) >= 0)
			ps->ppid = (pid_t)v;
		else if ((v = field(line, "Seccomp:")) >= 0)
			ps->seccomp = (int)v;
		else if ((v = field(line, "Seccomp_filters:")) >= 0)
			ps->filters = (int)v;
		line = *end != '\0' ? end + 1 : end;
	}
	return ps->ppid < 0 || ps->seccomp < 0 ? -1 : 0;
}

/*
 * The user inside that TEXT, a uid_map, maps to root outside, into *UID;
 * false when the map has none.
 */
bool
procfs_uid_map_root(const char *text, uid_t *uid)
{
	for (const char *line = text; *line != '\0';) {
		const char *end = strchrnul(line, '\n');
		unsigned long in, out, count;

		if (sscanf(line, "%lu %lu %lu", &in, &out, &count) == 3 &&
		    out == 0 && count > 0) {
			*uid = (uid_t)in;
			return true;
		}
		line = *end != '\0' ? end + 1 : end;
	}
	return false;
}
