/*
 * Unit tests of procfs.c: /proc/PID/status and uid_map text parsed from
 * strings.
 */
#include <stdlib.h>

#include "procfs.h"
#include "util.h"
#include "tap.h"

int
main(void)
{
	struct proc_status ps;
	uid_t uid = 12345;

	ok(procfs_status("Name:\tsh\nPPid:\t41\nUid:\t0 0 0 0\n"
			 "Seccomp:\t2\nSeccomp_filters:\t3\n",
	       &ps) == 0 &&
		ps.ppid == 41 && ps.seccomp == 2 && ps.filters == 3,
	    "status: PPid, Seccomp and Seccomp_filters");
	ok(procfs_status("PPid:\t1\nSeccomp:\t0", &ps) == 0 && ps.ppid == 1 &&
		ps.seccomp == 0 && ps.filters == -1,
	    "status: no Seccomp_filters (before Linux 5.9), no last newline");
	ok(procfs_status("Name:\tsh\nSeccomp:\t2\n", &ps) < 0,
	    "status: no PPid is no answer");
	ok(procfs_status("PPid:\t7\n", &ps) < 0 && ps.ppid == 7,
	    "status: no Seccomp is no answer");
	ok(procfs_status("PPid:\tx\nSeccomp:\t-2\n", &ps) < 0 &&
		ps.ppid == -1 && ps.seccomp == -1,
	    "status: values that are not numbers stay unknown");
	ok(procfs_status("", &ps) < 0, "status: empty");
	ok(procfs_uid_map_root("         0          0 4294967295\n", &uid) &&
		uid == 0,
	    "uid_map: the initial namespace maps 0 to 0");
	ok(procfs_uid_map_root("      1000       1000          1\n"
			       "         0     100000      65536\n"
			       "     65534          0          1\n",
	       &uid) &&
		uid == 65534,
	    "uid_map: the line whose outside id is 0 gives root inside");
	uid = 12345;
	ok(!procfs_uid_map_root("      1000       1000          1\n", &uid) &&
		uid == 12345,
	    "uid_map: root not mapped: no answer, nothing written");
	ok(!procfs_uid_map_root("         0          0          0\n", &uid),
	    "uid_map: a range of none maps nothing");
	return tap_done();
}
