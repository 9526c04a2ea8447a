/*
 * nolearn.h - the places --learn never grants and --watch never suggests
 * (the shipped data file never-learned; DENIALS in sbox-exec(1)): where
 * code runs outside the sandbox later, and the package caches that tools
 * outside the sandbox share.
 */
#ifndef SBOX_NOLEARN_H
#define SBOX_NOLEARN_H

#include <stddef.h>

#include "creds.h"
#include "sbox.h"

enum nolearn_kind {
	NOLEARN_RUNS,  /* code from here runs later, outside */
	NOLEARN_CACHE, /* a shared cache: --cache=NAME serves instead */
};

struct nolearn_entry {
	enum nolearn_kind kind;
	char *path;   /* absolute, normalised */
	char *what;   /* NOLEARN_RUNS: the class's words; _CACHE: NAME */
	char *setenv; /* NOLEARN_CACHE: "VAR PREFIX${CACHE}/NAME" */
};

struct nolearn_list {
	struct nolearn_entry *v;
	size_t n, cap;
};

int nolearn_parse_text(char *, const char *, const struct creds_env *,
    struct nolearn_list *, struct sbox_error *);
void nolearn_add(struct nolearn_list *, enum nolearn_kind, const char *,
    const char *, const char *);
void nolearn_add_dirs(struct nolearn_list *, const char *, const char *);
void nolearn_add_home(struct nolearn_list *, const char *);
const struct nolearn_entry *nolearn_find(const struct nolearn_list *,
    const char *, const char *);
void nolearn_clear(struct nolearn_list *);

#endif
