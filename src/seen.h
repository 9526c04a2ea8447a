/*
 * seen.h - the names in a few host directories, read once a launch, so
 * that many paths that do not exist cost one listing, not a lookup each.
 */
#ifndef SBOX_SEEN_H
#define SBOX_SEEN_H

#include <stdbool.h>

/* A directory holding more names than this is not kept: lstat() asks. */
#define SEEN_NAMES_MAX 4096

struct seen;

struct seen *seen_new(void);
void seen_root(struct seen *, const char *);
bool seen_absent(struct seen *, const char *);
void seen_free(struct seen *);

#endif
