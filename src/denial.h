/*
 * denial.h - what the sandbox refused while the command ran, told as it
 * happens and summed up at the end (DENIALS in sbox-exec(1)).
 *
 * A denial is a write outside the grants, a read of a hidden credential
 * or a connection to a hidden socket (seen by watch.c), or a host the proxy refused or could not
 * reach (netproxy.c).  Each distinct one is said once on stderr, with the
 * option that would allow it, up to DENIAL_LINES lines a run; each is an
 * event on --log-fd; at most DENIAL_KEEP are kept for the summary and for
 * --learn, the rest only counted.  Any thread may report; nothing here
 * changes what the command sees.
 */
#ifndef SBOX_DENIAL_H
#define SBOX_DENIAL_H

#include <stdbool.h>
#include <stddef.h>

#define DENIAL_LINES 20 /* lines on stderr a run, summary apart */
#define DENIAL_KEEP 256 /* distinct denials remembered */

enum denial_kind {
	DENIAL_WRITE,	   /* a write the file system refused */
	DENIAL_SOCKET,	   /* a connection to a hidden unix socket */
	DENIAL_READ,	   /* a hidden credential opened or listed */
	DENIAL_HOST,	   /* a host the allow-list refused */
	DENIAL_UNRESOLVED, /* an allowed name that did not resolve */
	DENIAL_UNREACHED,  /* an allowed host that could not be reached */
	DENIAL_UPSTREAM,   /* an allowed host the upstream proxy failed */
};

/*
 * The option that would allow a denial: OPTION and VALUE ("rw" and a
 * path), or none (OPTION NULL) with NOTE saying why.  NOTE may also
 * qualify a grant (what a protected place holds).  SETENV: a second line
 * --learn writes with it ("XDG_CACHE_HOME ${CACHE}/NAME" for a cache).
 */
struct denial_grant {
	const char *option;
	const char *value;
	const char *setenv;
	const char *note;
	bool wide; /* said, but never written by --learn */
};

struct nolearn_list;
struct strv;
struct nolearn_entry;

void denial_setup(int, const char *const[2], const char *, const char *,
    struct nolearn_list *);
const char *denial_too_wide(const char *);
bool denial_walked_up(const char *);
const struct nolearn_entry *denial_never(const char *, bool *);
void denial_report(enum denial_kind, const char *, const char *,
    const struct denial_grant *);
void denial_net(const char *, int, bool, bool, const char *, const char *);
bool denial_lines_left(void);
bool denial_wanted(void);
void denial_quiet(void);
void denial_close(void);
size_t denial_count(void);
void denial_summary(const char *, const struct strv *, const struct strv *,
    char **);
char *denial_learn_read(const char *);
int denial_learn(const char *, const char *, char **);
void denial_reset(void);

#endif
