/*
 * netreq.h - the requests the proxy understands (sbox-exec(1), NETWORK
 * BY NAME): HTTP CONNECT, plain HTTP in absolute form, and SOCKS5 with
 * names, all on one port.  Parsed from the bytes read so far.
 */
#ifndef SBOX_NETREQ_H
#define SBOX_NETREQ_H

#include <stddef.h>

#include "util.h"

#define NETREQ_HEAD_MAX 16384 /* bytes of a request before its end */

enum netreq_kind {
	NETREQ_CONNECT,
	NETREQ_HTTP,
	NETREQ_SOCKS5,
};

enum netreq_state {
	NETREQ_MORE = 0, /* not complete yet: read on */
	NETREQ_DONE = 1,
	NETREQ_BAD = -1, /* refused: WHY (and, for SOCKS5, REPLY) say why */
};

struct netreq {
	enum netreq_kind kind;
	char host[260]; /* as asked: a name, an address, or "[v6]" */
	int port;
	size_t used;	 /* bytes of the input that were the request */
	struct buf head; /* NETREQ_HTTP: the request to send on */
	long long body;	 /* NETREQ_HTTP: its body's length (Content-Length) */
	const char *why;
	unsigned char reply; /* SOCKS5: the reply code for a refusal */
};

enum netreq_state netreq_http(const char *, size_t, struct netreq *);
enum netreq_state netreq_socks_hello(const unsigned char *, size_t, size_t *);
enum netreq_state netreq_socks(const unsigned char *, size_t, struct netreq *);
void netreq_free(struct netreq *);

#endif
