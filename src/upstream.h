/*
 * upstream.h - the upstream proxy the launcher's proxy chains to
 * (sbox-exec(1), --upstream-proxy, NETWORK BY NAME): its URL, its
 * credentials and the NO_PROXY list that bypasses it.
 */
#ifndef SBOX_UPSTREAM_H
#define SBOX_UPSTREAM_H

#include <stdbool.h>

#define UPSTREAM_HOST_MAX 256
#define UPSTREAM_USERPASS_MAX 1024 /* "user:password", decoded */

struct upstream {
	char host[UPSTREAM_HOST_MAX]; /* a name or an address, no brackets */
	int port;
	char shown[UPSTREAM_HOST_MAX + 8]; /* "host:port": never credentials */
	char *auth; /* Proxy-Authorization's value ("Basic ..."), or NULL */
};

/* What the launcher's proxy does with an allowed request's name. */
struct upstream_conf {
	struct upstream tunnel; /* CONNECT, SOCKS5; host "": none */
	struct upstream plain;	/* plain HTTP; host "": none */
	char *no_proxy;		/* NO_PROXY's list, or NULL */
};

const char *upstream_parse(const char *, bool, struct upstream *);
const char *upstream_userpass(const char *, char **);
bool upstream_bypass(const char *, const char *);
void upstream_copy(struct upstream *, const struct upstream *);
void upstream_free(struct upstream *);
void upstream_conf_free(struct upstream_conf *);

#endif
