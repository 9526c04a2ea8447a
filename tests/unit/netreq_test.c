/* Unit tests of netreq.c: the proxy's requests (sbox-exec(1), NETWORK
 * BY NAME), bytes in, a request or a refusal out. */
#include <stdlib.h>
#include <string.h>

#include "netreq.h"
#include "tap.h"

static enum netreq_state
http(const char *in, struct netreq *r)
{
	memset(r, 0, sizeof(*r));
	return netreq_http(in, strlen(in), r);
}

static void
test_connect(void)
{
	struct netreq r;

	ok(http(
	       "CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n",
	       &r) == NETREQ_DONE &&
		r.kind == NETREQ_CONNECT &&
		strcmp(r.host, "example.org") == 0 && r.port == 443 &&
		r.used == 59,
	    "CONNECT host:port");
	netreq_free(&r);
	ok(http("CONNECT [::1]:8443 HTTP/1.1\r\n\r\nTLS", &r) == NETREQ_DONE &&
		strcmp(r.host, "[::1]") == 0 && r.port == 8443 && r.used == 31,
	    "CONNECT [v6]:port, what follows left");
	netreq_free(&r);
	ok(http("CONNECT example.org:443 HTTP/1.1\r\nHost: x", &r) ==
		NETREQ_MORE,
	    "incomplete");
	netreq_free(&r);
	ok(http("CONNECT example.org HTTP/1.1\r\n\r\n", &r) == NETREQ_BAD,
	    "CONNECT without a port");
	netreq_free(&r);
	ok(http("CONNECT example.org:0 HTTP/1.1\r\n\r\n", &r) == NETREQ_BAD,
	    "port 0");
	netreq_free(&r);
	ok(http("CONNECT user@example.org:443 HTTP/1.1\r\n\r\n", &r) ==
		NETREQ_BAD,
	    "userinfo");
	netreq_free(&r);
	ok(http("CONNECT example.org:443\r\n\r\n", &r) == NETREQ_BAD,
	    "no version");
	netreq_free(&r);
}

static void
test_absolute(void)
{
	struct netreq r;

	ok(http(
	       "GET http://Example.org/a/b?c HTTP/1.1\r\nHost: example.org\r\nProxy-Connection: keep-alive\r\nAccept: */*\r\n\r\nBODY",
	       &r) == NETREQ_DONE &&
		r.kind == NETREQ_HTTP && r.port == 80,
	    "absolute form");
	is_str(r.head.s,
	    "GET /a/b?c HTTP/1.1\r\nHost: example.org\r\nAccept: */*\r\nConnection: close\r\n\r\n",
	    "origin form on, hop-by-hop headers out");
	netreq_free(&r);
	ok(http("GET http://example.org:8080 HTTP/1.0\r\n\r\n", &r) ==
		NETREQ_DONE,
	    "no path, no Host");
	is_str(r.head.s,
	    "GET / HTTP/1.0\r\nHost: example.org:8080\r\nConnection: close\r\n\r\n",
	    "a path and a Host added");
	netreq_free(&r);
	ok(http(
	       "GET http://example.org/ HTTP/1.1\r\nHost: evil.example\r\n\r\n",
	       &r) == NETREQ_BAD &&
		strstr(r.why, "Host") != NULL,
	    "a Host header that is not the URL's");
	netreq_free(&r);
	ok(http(
	       "GET http://example.org/ HTTP/1.1\r\nHost: example.org\r\nHost: example.org\r\n\r\n",
	       &r) == NETREQ_BAD,
	    "two Host headers");
	netreq_free(&r);
	ok(http("GET https://example.org/ HTTP/1.1\r\n\r\n", &r) == NETREQ_BAD,
	    "https:// in absolute form");
	netreq_free(&r);
	ok(http("GET /index.html HTTP/1.1\r\n\r\n", &r) == NETREQ_BAD,
	    "origin form is not a proxy request");
	netreq_free(&r);
	ok(http("GET http://example.org/ HTTP/1.1\r\nX: a\x01\r\n\r\n", &r) ==
		NETREQ_BAD,
	    "a control character in a header");
	netreq_free(&r);
	ok(http(
	       "GET http://example.org/ HTTP/1.1\r\nHost : evil.example\r\n\r\n",
	       &r) == NETREQ_BAD &&
		strstr(r.why, "colon") != NULL,
	    "whitespace before a header's colon");
	netreq_free(&r);
	ok(http("GET http://example.org/ HTTP/1.1\r\nX-A: b\r\n c\r\n\r\n",
	       &r) == NETREQ_BAD &&
		strstr(r.why, "folded") != NULL,
	    "a folded header line");
	netreq_free(&r);
	ok(http("GET http://example.org/ HTTP/1.1\r\nno colon here\r\n\r\n",
	       &r) == NETREQ_BAD,
	    "a header line without a colon");
	netreq_free(&r);
}

static void
test_bounds(void)
{
	struct netreq r;
	size_t n = NETREQ_HEAD_MAX + 10;
	char *big = malloc(n + 1);

	memset(big, 'a', n);
	memcpy(big, "GET http://example.org/", 23);
	big[n] = '\0';
	memset(&r, 0, sizeof(r));
	ok(netreq_http(big, n, &r) == NETREQ_BAD, "a head without end");
	netreq_free(&r);
	free(big);
}

static void
test_socks(void)
{
	static const unsigned char hello[] = { 5, 2, 2, 0 };
	static const unsigned char no_auth[] = { 5, 1, 2 };
	static const unsigned char name[] = { 5, 1, 0, 3, 11, 'e', 'x', 'a',
		'm', 'p', 'l', 'e', '.', 'o', 'r', 'g', 1, 187 };
	static const unsigned char v4[] = { 5, 1, 0, 1, 127, 0, 0, 1, 0, 80 };
	static const unsigned char bind[] = { 5, 2, 0, 1, 127, 0, 0, 1, 0, 80 };
	struct netreq r;
	size_t used = 0;

	ok(netreq_socks_hello(hello, 3, &used) == NETREQ_MORE, "hello, part");
	ok(netreq_socks_hello(hello, 4, &used) == NETREQ_DONE && used == 4,
	    "hello");
	ok(netreq_socks_hello(no_auth, 3, &used) == NETREQ_BAD,
	    "no method without authentication");
	memset(&r, 0, sizeof(r));
	ok(netreq_socks(name, sizeof(name) - 1, &r) == NETREQ_MORE,
	    "request, part");
	ok(netreq_socks(name, sizeof(name), &r) == NETREQ_DONE &&
		strcmp(r.host, "example.org") == 0 && r.port == 443 &&
		r.used == sizeof(name),
	    "CONNECT by name");
	ok(netreq_socks(v4, sizeof(v4), &r) == NETREQ_DONE &&
		strcmp(r.host, "127.0.0.1") == 0 && r.port == 80,
	    "CONNECT by address");
	ok(netreq_socks(bind, sizeof(bind), &r) == NETREQ_BAD && r.reply == 7,
	    "BIND refused");
}

/* Where a plain request's body ends: its Content-Length, or nothing;
 * chunks and TRACE refused. */
static void
test_body(void)
{
	struct netreq r;

	ok(http(
	       "GET http://example.org/ HTTP/1.1\r\n\r\nGET http://evil.example/ HTTP/1.1\r\n\r\n",
	       &r) == NETREQ_DONE &&
		r.body == 0 && strstr(r.head.s, "evil") == NULL,
	    "no Content-Length: no body, and what follows is not the request");
	netreq_free(&r);
	ok(http(
	       "POST http://example.org/ HTTP/1.1\r\nContent-Length: 12\r\n\r\n",
	       &r) == NETREQ_DONE &&
		r.body == 12,
	    "Content-Length: 12 (got %lld)", r.body);
	netreq_free(&r);
	ok(http(
	       "POST http://example.org/ HTTP/1.1\r\nContent-Length: 12\r\ncontent-length:  12 \r\n\r\n",
	       &r) == NETREQ_DONE &&
		r.body == 12,
	    "the same length twice");
	netreq_free(&r);
	ok(http(
	       "POST http://example.org/ HTTP/1.1\r\nContent-Length: 12\r\nContent-Length: 13\r\n\r\n",
	       &r) == NETREQ_BAD,
	    "two different lengths");
	netreq_free(&r);
	ok(http(
	       "POST http://example.org/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
	       &r) == NETREQ_BAD,
	    "a negative length");
	netreq_free(&r);
	ok(http(
	       "POST http://example.org/ HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
	       &r) == NETREQ_BAD,
	    "a length past any integer");
	netreq_free(&r);
	ok(http(
	       "POST http://example.org/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
	       &r) == NETREQ_BAD &&
		strstr(r.why, "chunks") != NULL,
	    "a body in chunks");
	netreq_free(&r);
	ok(http("TRACE http://example.org/ HTTP/1.1\r\nMax-Forwards: 0\r\n\r\n",
	       &r) == NETREQ_BAD &&
		strstr(r.why, "TRACE") != NULL,
	    "TRACE");
	netreq_free(&r);
}

int
main(void)
{
	test_body();
	test_connect();
	test_absolute();
	test_bounds();
	test_socks();
	return tap_done();
}
