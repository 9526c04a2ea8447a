/*
 * locate.h - find the bwrap to run and make sure it is not setuid, and
 * that nobody but root could have put it where it was found.
 */
#ifndef SBOX_LOCATE_H
#define SBOX_LOCATE_H

#include <stdbool.h>

#include "sbox.h"

struct located {
	int fd;		     /* O_PATH, close-on-exec: what will be executed */
	char *path;	     /* as found, for messages and the status */
	bool disable_userns; /* it knows --disable-userns */
	bool can_bind_fd;    /* it knows --bind-fd, --ro-bind-fd */
	char *caller_writable; /* a bundled copy the caller could replace:
				  the place it could write, or NULL */
};

int locate_bwrap(const char *, const char *, struct located *,
    struct sbox_error *);
void locate_free(struct located *);

#endif
