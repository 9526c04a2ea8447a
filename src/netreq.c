/*
 * netreq.c - the proxy's requests, parsed (sbox-exec(1), NETWORK BY
 * NAME): an HTTP CONNECT, a plain HTTP request in absolute form (its Host
 * header checked against the URL, the request passed on in origin form
 * with "Connection: close" so that every request on the connection is
 * for the host decided on), and SOCKS5's greeting and request.
 *
 * MUST: accept nothing longer than NETREQ_HEAD_MAX; never read past the
 * bytes given.  Pure: bytes in, a request or a refusal out; no I/O.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "netreq.h"

static enum netreq_state
bad(struct netreq *r, const char *why, unsigned char reply)
{
	r->why = why;
	r->reply = reply;
	return NETREQ_BAD;
}

/* Where the head of IN ends (after its empty line), or 0. */
static size_t
head_end(const char *in, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (in[i] != '\n')
			continue;
		if (in[i + 1] == '\n')
			return i + 2;
		if (in[i + 1] == '\r' && i + 2 < len && in[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

static int
parse_port(const char *s, size_t n)
{
	long v = 0;

	if (n == 0 || n > 5 || s[0] == '0')
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= 65535 ? (int)v : -1;
}

/* "host[:port]" or "[v6][:port]" (N bytes of S) into R; DEFPORT where
 * none is given (0: a port is required). */
static int
authority(const char *s, size_t n, int defport, struct netreq *r)
{
	size_t hostlen = n;
	const char *colon = NULL;

	if (n > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', n);

		if (close == NULL)
			return -1;
		hostlen = (size_t)(close - s) + 1;
		if (hostlen < n && s[hostlen] != ':')
			return -1;
		if (hostlen < n)
			colon = s + hostlen;
	} else {
		for (size_t i = 0; i < n; i++)
			if (s[i] == ':')
				colon = s + i;
		if (colon != NULL)
			hostlen = (size_t)(colon - s);
	}
	if (hostlen == 0 || hostlen >= sizeof(r->host) ||
	    memchr(s, '@', n) != NULL)
		return -1;
	memcpy(r->host, s, hostlen);
	r->host[hostlen] = '\0';
	r->port = colon != NULL ?
	    parse_port(colon + 1, (size_t)(s + n - colon - 1)) :
	    defport;
	return r->port > 0 ? 0 : -1;
}

/* Whether the N bytes of LINE are printable ASCII and tabs. */
static bool
printable(const char *line, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 && line[i] != '\t')
			return false;
		else if ((unsigned char)line[i] >= 0x7f)
			return false;
	return true;
}

static bool
header_is(const char *line, size_t n, const char *name)
{
	size_t len = strlen(name);

	return n > len && line[len] == ':' && strncasecmp(line, name, len) == 0;
}

/*
 * What is wrong with the shape of header LINE (N bytes), or NULL: a
 * folded line, or a name with whitespace in or after it, which servers
 * read in different ways (one takes "Host :" for Host, another not).
 */
static const char *
header_shape(const char *line, size_t n)
{
	const char *colon = memchr(line, ':', n);

	if (line[0] == ' ' || line[0] == '\t')
		return "a folded header line";
	if (colon == NULL || colon == line)
		return "a header line without a name and a colon";
	for (const char *p = line; p < colon; p++)
		if (*p == ' ' || *p == '\t')
			return "whitespace before a header's colon";
	return NULL;
}

/* Whether the Host value V (N bytes) names what R's URL named. */
static bool
same_host(const char *v, size_t n, const struct netreq *r)
{
	char want[300];
	int w;

	while (n > 0 && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	w = snprintf(want, sizeof(want), "%s:%d", r->host, r->port);
	if (w > 0 && (size_t)w == n && strncasecmp(v, want, n) == 0)
		return true;
	return r->port == 80 && strlen(r->host) == n &&
	    strncasecmp(v, r->host, n) == 0;
}

/*
 * The Content-Length value V (N bytes, blanks around it) into R's body:
 * digits only, and the same as any earlier one.  -1 when malformed.
 */
static int
content_length(const char *v, size_t n, struct netreq *r)
{
	long long len = 0;
	size_t digits = 0;

	while (n > 0 && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	for (; digits < n; digits++) {
		if (v[digits] < '0' || v[digits] > '9' || len > LLONG_MAX / 10)
			return -1;
		len = len * 10 + (v[digits] - '0');
	}
	if (digits == 0 || (r->body >= 0 && r->body != len))
		return -1;
	r->body = len;
	return 0;
}

/* The header lines of IN (from FROM to END) onto R's head: the Host
 * checked, the hop-by-hop and proxy headers dropped. */
static enum netreq_state
headers(const char *in, size_t from, size_t end, struct netreq *r)
{
	bool host = false;

	for (size_t at = from; at < end;) {
		const char *line = in + at, *nl = memchr(line, '\n', end - at);
		size_t n = (size_t)(nl - line), len = n;

		at += n + 1;
		if (len > 0 && line[len - 1] == '\r')
			len--;
		if (len == 0)
			break;
		if (!printable(line, len))
			return bad(r, "a header holds control characters", 0);
		if (header_shape(line, len) != NULL)
			return bad(r, header_shape(line, len), 0);
		if (header_is(line, len, "host")) {
			if (host || !same_host(line + 5, len - 5, r))
				return bad(r,
				    "the Host header does not match the URL",
				    0);
			host = true;
		}
		/* The body's end is where the request's end must be: no
		 * second request may follow it on the connection. */
		if (header_is(line, len, "transfer-encoding"))
			return bad(r,
			    "a body sent in chunks (Transfer-Encoding) is not passed on; give its Content-Length, or use https",
			    0);
		if (header_is(line, len, "content-length") &&
		    content_length(line + 15, len - 15, r) < 0)
			return bad(r, "the Content-Length header is malformed",
			    0);
		if (header_is(line, len, "proxy-connection") ||
		    header_is(line, len, "proxy-authorization") ||
		    header_is(line, len, "connection") ||
		    header_is(line, len, "keep-alive"))
			continue;
		buf_add(&r->head, line, len);
		buf_adds(&r->head, "\r\n");
	}
	if (r->body < 0)
		r->body = 0;
	if (!host)
		buf_addf(&r->head, "Host: %s:%d\r\n", r->host, r->port);
	buf_adds(&r->head, "Connection: close\r\n\r\n");
	return NETREQ_DONE;
}

/* The request line's three words: METHOD, TARGET, VERSION. */
static int
words(const char *line, size_t n, const char *w[3], size_t wl[3])
{
	size_t at = 0;

	for (int i = 0; i < 3; i++) {
		const char *sp = memchr(line + at, ' ', n - at);
		size_t end = i < 2 ? (sp != NULL ? (size_t)(sp - line) : n) : n;

		if (i < 2 && sp == NULL)
			return -1;
		w[i] = line + at;
		wl[i] = end - at;
		if (wl[i] == 0)
			return -1;
		at = end + 1;
	}
	return 0;
}

/* The head of an absolute-form request whose words are W into R. */
static enum netreq_state
absolute(const char *in, size_t line_len, const char *w[3], size_t wl[3],
    struct netreq *r)
{
	const char *auth = w[1] + 7, *path;
	size_t alen;

	if (wl[1] < 8 || strncasecmp(w[1], "http://", 7) != 0)
		return bad(r,
		    "not a proxy request (CONNECT, or a URL starting with http://)",
		    0);
	alen = strcspn(auth, "/?# \r\n");
	if (alen > wl[1] - 7)
		alen = wl[1] - 7;
	if (authority(auth, alen, 80, r) < 0)
		return bad(r, "the URL's host or port is malformed", 0);
	path = auth + alen;
	/* TRACE (and TRACK) echo the request as received, which through an
	 * upstream proxy carries its credentials. */
	if ((wl[0] == 5 && strncasecmp(w[0], "TRACE", 5) == 0) ||
	    (wl[0] == 5 && strncasecmp(w[0], "TRACK", 5) == 0))
		return bad(r, "TRACE is not passed on", 0);
	r->kind = NETREQ_HTTP;
	r->body = -1;
	buf_add(&r->head, w[0], wl[0]);
	buf_addc(&r->head, ' ');
	if (path == w[1] + wl[1] || *path != '/')
		buf_addc(&r->head, '/');
	buf_add(&r->head, path, (size_t)(w[1] + wl[1] - path));
	buf_addc(&r->head, ' ');
	buf_add(&r->head, w[2], wl[2]);
	buf_adds(&r->head, "\r\n");
	return headers(in, line_len, r->used, r);
}

/*
 * An HTTP request in the LEN bytes of IN: CONNECT host:port, or a method
 * with an http:// URL.  NETREQ_MORE until its head is complete.
 */
enum netreq_state
netreq_http(const char *in, size_t len, struct netreq *r)
{
	size_t end = head_end(in, len), n;
	const char *nl, *w[3];
	size_t wl[3];

	if (end == 0)
		return len >= NETREQ_HEAD_MAX ?
		    bad(r, "the request head is too long", 0) :
		    NETREQ_MORE;
	if (end > NETREQ_HEAD_MAX)
		return bad(r, "the request head is too long", 0);
	r->used = end;
	nl = memchr(in, '\n', end);
	n = (size_t)(nl - in);
	if (n > 0 && in[n - 1] == '\r')
		n--;
	if (!printable(in, n) || words(in, n, w, wl) < 0 || wl[2] != 8 ||
	    strncmp(w[2], "HTTP/1.", 7) != 0)
		return bad(r, "not an HTTP/1 request line", 0);
	if (wl[0] == 7 && memcmp(w[0], "CONNECT", 7) == 0) {
		r->kind = NETREQ_CONNECT;
		if (authority(w[1], wl[1], 0, r) < 0)
			return bad(r, "CONNECT wants host:port", 0);
		return NETREQ_DONE;
	}
	return absolute(in, (size_t)(nl - in) + 1, w, wl, r);
}

/* SOCKS5's greeting; *USED its length.  Only "no authentication". */
enum netreq_state
netreq_socks_hello(const unsigned char *in, size_t len, size_t *used)
{
	if (len < 2)
		return NETREQ_MORE;
	if (in[0] != 5 || in[1] == 0)
		return NETREQ_BAD;
	if (len < 2 + (size_t)in[1])
		return NETREQ_MORE;
	*used = 2 + (size_t)in[1];
	return memchr(in + 2, 0, in[1]) != NULL ? NETREQ_DONE : NETREQ_BAD;
}

/* SOCKS5's CONNECT request, after the greeting. */
enum netreq_state
netreq_socks(const unsigned char *in, size_t len, struct netreq *r)
{
	size_t need, alen;

	r->kind = NETREQ_SOCKS5;
	if (len < 5)
		return NETREQ_MORE;
	if (in[0] != 5 || in[2] != 0)
		return bad(r, "not a SOCKS5 request", 1);
	if (in[1] != 1)
		return bad(r, "only SOCKS5 CONNECT is served", 7);
	alen = in[3] == 1 ? 4 : in[3] == 4 ? 16 : in[3] == 3 ? in[4] : 0;
	if (alen == 0)
		return bad(r, "an unknown SOCKS5 address type", 8);
	need = 4 + (in[3] == 3 ? 1 : 0) + alen + 2;
	if (len < need)
		return NETREQ_MORE;
	if (in[3] == 3) {
		if (memchr(in + 5, '\0', alen) != NULL)
			return bad(r, "a NUL byte in the SOCKS5 name", 1);
		memcpy(r->host, in + 5, alen);
		r->host[alen] = '\0';
	} else {
		char text[INET6_ADDRSTRLEN];

		inet_ntop(in[3] == 1 ? AF_INET : AF_INET6, in + 4, text,
		    sizeof(text));
		snprintf(r->host, sizeof(r->host), in[3] == 1 ? "%s" : "[%s]",
		    text);
	}
	r->port = in[need - 2] << 8 | in[need - 1];
	r->used = need;
	return r->port > 0 ? NETREQ_DONE : bad(r, "SOCKS5 port 0", 1);
}

void
netreq_free(struct netreq *r)
{
	buf_clear(&r->head);
}
