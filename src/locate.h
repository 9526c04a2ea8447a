/*
 * locate.h - find the bwrap to run and make sure it is not setuid, and
 * that nobody but root could have put it where it was found.
 */
#ifndef SBOX_LOCATE_H
#define SBOX_LOCATE_H

#include <stdbool.h>

#include "sbox.h"

/* Where the bwrap in use came from: the status's bwrap_source
 * (sbox-exec(1), STATUS). */
enum bwrap_source {
	BWRAP_SOURCE_FLAG,    /* --bwrap */
	BWRAP_SOURCE_ENV,     /* SBOX_EXEC_BWRAP */
	BWRAP_SOURCE_PATH,    /* the PATH search */
	BWRAP_SOURCE_BUNDLED, /* the copy installed with sbox-exec */
};

struct located {
	int fd;		     /* O_PATH, close-on-exec: what will be executed */
	char *path;	     /* as found, for messages and the status */
	bool disable_userns; /* it knows --disable-userns */
	bool can_bind_fd;    /* it knows --bind-fd, --ro-bind-fd */
	char *caller_writable; /* a bundled copy the caller could replace:
				  the place it could write, or NULL */
	enum bwrap_source source;
};

int locate_bwrap(const char *, const char *, struct located *,
    struct sbox_error *);
void locate_free(struct located *);
const char *locate_source_name(enum bwrap_source);
const char *locate_source_words(enum bwrap_source);
char *locate_command(const char *, const char *, const char *);

#endif
