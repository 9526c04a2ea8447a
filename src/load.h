/*
 * load.h - sbox-exec's own files on the host: policy files, profiles and
 * the credential lists, found and read.
 *
 * Reads the host, never writes it, never prints.  What the text of these
 * files means is for the pure parsers: policyfile.c and creds.c.
 */
#ifndef SBOX_LOAD_H
#define SBOX_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "creds.h"
#include "nolearn.h"
#include "sbox.h"
#include "util.h"

enum load_result {
	LOAD_OK,
	LOAD_ERRNO,	  /* open, fstat or read failed: errno says why */
	LOAD_NOT_REGULAR, /* a directory, a FIFO, a device... */
	LOAD_TOO_BIG,	  /* larger than the limit given */
	LOAD_NOT_TEXT,	  /* holds a NUL byte */
};

enum load_result load_text(const char *, size_t, char **, struct stat *);
size_t load_profile_candidates(const char *, char *[4], bool *);
void load_profile_names(struct strv *);
void load_profile_aliases(struct strv *, struct strv *);
char *load_profile_alias(const char *);
int load_credentials(const struct creds_env *, struct creds_list *,
    struct sbox_error *);
int load_never_learned(const struct creds_env *, struct nolearn_list *,
    struct sbox_error *);

#endif
