/*
 * grant.h - resolving the path of a grant that came from a policy file,
 * so that it cannot be led elsewhere by a symlink.
 *
 * A grant typed on the command line is the user's own word and follows
 * links as the shell would.  One read from a policy file or a profile
 * names a place relative to an anchor (the working directory, the home
 * directory), and below that anchor anything, a cloned repository or an
 * earlier sandboxed run, can have put a symlink: such a grant is not
 * followed through links (see the manual page, POLICY FILES).
 */
#ifndef SBOX_GRANT_H
#define SBOX_GRANT_H

#include <stddef.h>

enum grant_result {
	GRANT_OK,      /* *REAL holds the resolved path */
	GRANT_MISSING, /* nothing there (errno says why) */
	GRANT_LINK,    /* a symlink on the way (*REAL: where it was) */
	GRANT_ERROR,   /* some other failure, errno set */
};

enum grant_result grant_resolve(const char *, const char *const *, size_t,
    char **);
int grant_open_real(const char *);

#endif
