/*
 * creds.h - the list of credential stores and socket places, read from
 * the shipped data file and the user's own.
 */
#ifndef SBOX_CREDS_H
#define SBOX_CREDS_H

#include <stdbool.h>

#include "sbox.h"
#include "util.h"

enum creds_kind {
	CREDS_NONE,    /* a blank line or a comment */
	CREDS_MASK,    /* PATH: masked */
	CREDS_SOCKETS, /* sockets PATH: every unix socket below is masked */
};

/* What a pattern is expanded with; GETENV(NAME, CTX) may return NULL. */
struct creds_env {
	const char *homes[2];
	const char *(*getenv)(const char *, void *);
	void *ctx;
};

/* Everything the files list, expanded to absolute paths. */
struct creds_list {
	struct strv masks;
	struct strv socket_roots;
};

int creds_parse_line(const char *, const struct creds_env *, enum creds_kind *,
    struct strv *, const char **);
bool creds_env_name(const char *, size_t);
char *creds_user_path(const char *, const char *);
int creds_parse_text(char *, const char *, const struct creds_env *,
    struct creds_list *, struct sbox_error *);
void creds_list_clear(struct creds_list *);

#endif
