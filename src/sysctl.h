/*
 * sysctl.h - the kernel settings sbox-exec reads to explain a refusal.
 */
#ifndef SBOX_SYSCTL_H
#define SBOX_SYSCTL_H

int sysctl_read_long(const char *, long *);

#endif
