/*
 * procfs.h - the few lines of the kernel's /proc files sbox-exec reads,
 * parsed from their text.
 *
 * Pure: text in, fields out; the files are read by verify.c and locate.c.
 */
#ifndef SBOX_PROCFS_H
#define SBOX_PROCFS_H

#include <stdbool.h>
#include <sys/types.h>

/* What /proc/PID/status says of a process's parent and seccomp mode. */
struct proc_status {
	pid_t ppid;
	int seccomp; /* the mode: 2 for a filter */
	int filters; /* how many filters, or -1 (before Linux 5.9) */
};

int procfs_status(const char *, struct proc_status *);
bool procfs_uid_map_root(const char *, uid_t *);

#endif
