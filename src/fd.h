/*
 * fd.h - descriptor hygiene shared by the launcher and stage two: sorting
 * a list of descriptors, closing all but a list, making one inheritable,
 * closing one for good.
 */
#ifndef SBOX_FD_H
#define SBOX_FD_H

#include <stddef.h>

void fd_sort(int *, size_t);
void fd_close_except(const int *, size_t);
int fd_set_inheritable(int);
void fd_close(int *);

#endif
