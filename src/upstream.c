/*
 * upstream.c - the upstream proxy's URL, credentials and NO_PROXY list
 * (sbox-exec(1), --upstream-proxy, NETWORK BY NAME).
 *
 * A proxy URL is "http://[USER:PASSWORD@]HOST[:PORT][/]"; the scheme may
 * be left out (as HTTPS_PROXY often is), the port defaults to 80.
 * "https://" is refused: speaking TLS to the proxy needs a TLS library,
 * and sbox-exec links none.  MUST: a reason returned never quotes the
 * URL (it may hold a password); the credentials leave this file only as
 * a Proxy-Authorization value.
 * Pure: strings in, values out; no I/O.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "netpolicy.h"
#include "upstream.h"
#include "util.h"

/* "Basic " and the base64 of the N bytes of S. */
static char *
basic(const char *s, size_t n)
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *u = (const unsigned char *)s;
	char *out = xmalloc(6 + (n + 2) / 3 * 4 + 1), *o = out;

	memcpy(o, "Basic ", 6);
	o += 6;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)u[i] << 16 |
		    (i + 1 < n ? (unsigned)u[i + 1] << 8 : 0) |
		    (i + 2 < n ? u[i + 2] : 0);

		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? b64[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

static int
hex(int c)
{
	if (isdigit(c))
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The N bytes of S, percent-decoded into OUT (SIZE bytes); -1 for a
 * malformed escape, a control character or too long a text. */
static int
unescape(const char *s, size_t n, char *out, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];

		if (c == '%') {
			int hi, lo;

			if (i + 2 >= n)
				return -1;
			hi = hex((unsigned char)s[i + 1]);
			lo = hex((unsigned char)s[i + 2]);
			if (hi < 0 || lo < 0)
				return -1;
			c = hi * 16 + lo;
			i += 2;
		}
		if (c < 0x20 || c == 0x7f || o + 1 >= size)
			return -1;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return 0;
}

/* "user:password" checked, into AUTH as a Proxy-Authorization value. */
static const char *
userpass(const char *s, size_t n, char **auth)
{
	if (n == 0 || n >= UPSTREAM_USERPASS_MAX)
		return "the credentials are empty or longer than 1023 bytes";
	if (memchr(s, ':', n) == NULL)
		return "the credentials are not USER:PASSWORD";
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return "the credentials hold a control character";
	*auth = basic(s, n);
	return NULL;
}

/*
 * TEXT, the content of an --upstream-proxy-auth-file: "USER:PASSWORD"
 * on its first line (a final newline, and nothing after it).  NULL and
 * *AUTH set, or what is wrong (never quoting TEXT).
 */
const char *
upstream_userpass(const char *text, char **auth)
{
	size_t n = strcspn(text, "\r\n"), rest = n;

	while (text[rest] == '\r' || text[rest] == '\n')
		rest++;
	if (text[rest] != '\0')
		return "the file holds more than one line";
	return userpass(text, n, auth);
}

/* Whether the N bytes of S are a host name's or an address's letters. */
static bool
host_chars(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '-' && s[i] != '_')
			return false;
	return n > 0;
}

/*
 * URL, a proxy's address, into U.  USERINFO: whether credentials may be
 * in it (HTTPS_PROXY's may, an option's may not).  NULL, or what is
 * wrong.
 */
const char *
upstream_parse(const char *url, bool userinfo, struct upstream *u)
{
	const char *s = url, *at, *end, *hostend, *colon = NULL;
	char dec[UPSTREAM_USERPASS_MAX];
	long port = 80;

	memset(u, 0, sizeof(*u));
	if (strncasecmp(s, "https://", 8) == 0)
		return "an https:// proxy is reached over TLS, and sbox-exec links no TLS library: give the proxy's http:// address";
	if (strncasecmp(s, "http://", 7) == 0)
		s += 7;
	else if (strstr(s, "://") != NULL)
		return "not an http:// URL (the only scheme of a proxy served)";
	end = s + strcspn(s, "/?#");
	if (*end == '?' || *end == '#' || (*end == '/' && end[1] != '\0'))
		return "a proxy's URL has no path, query or fragment";
	at = memchr(s, '@', (size_t)(end - s));
	if (at != NULL) {
		const char *why;

		if (!userinfo)
			return "credentials do not go on the command line, where ps shows them: give them with --upstream-proxy-auth-file";
		if (unescape(s, (size_t)(at - s), dec, sizeof(dec)) < 0)
			return "the credentials are malformed";
		why = userpass(dec, strlen(dec), &u->auth);
		explicit_bzero(dec, sizeof(dec));
		if (why != NULL)
			return why;
		s = at + 1;
	}
	if (*s == '[') {
		const char *close = memchr(s, ']', (size_t)(end - s));
		unsigned char a[16];

		if (close == NULL || (size_t)(close - s - 1) >= sizeof(u->host))
			goto bad_host;
		memcpy(u->host, s + 1, (size_t)(close - s - 1));
		u->host[close - s - 1] = '\0';
		if (inet_pton(AF_INET6, u->host, a) != 1)
			goto bad_host;
		hostend = close + 1;
		if (hostend < end && *hostend != ':')
			goto bad_host;
		if (hostend < end)
			colon = hostend;
	} else {
		colon = memchr(s, ':', (size_t)(end - s));
		hostend = colon != NULL ? colon : end;
		if (!host_chars(s, (size_t)(hostend - s)) ||
		    (size_t)(hostend - s) >= sizeof(u->host))
			goto bad_host;
		memcpy(u->host, s, (size_t)(hostend - s));
		u->host[hostend - s] = '\0';
	}
	if (colon != NULL) {
		port = 0;
		if (colon + 1 == end || end - colon > 6 || colon[1] == '0')
			goto bad_port;
		for (const char *p = colon + 1; p < end; p++) {
			if (!isdigit((unsigned char)*p))
				goto bad_port;
			port = port * 10 + (*p - '0');
		}
		if (port > 65535)
			goto bad_port;
	}
	u->port = (int)port;
	snprintf(u->shown, sizeof(u->shown),
	    strchr(u->host, ':') != NULL ? "[%s]:%d" : "%s:%d", u->host,
	    u->port);
	return NULL;
bad_port:
	upstream_free(u);
	return "the proxy's port is not a number from 1 to 65535";
bad_host:
	upstream_free(u);
	return "the proxy's host is not a name or an address";
}

/* Whether address HOST is in the network ENTRY ("a.b.c.d/n"). */
static bool
in_network(const char *host, const char *entry)
{
	struct np_entry e;
	struct netpolicy np = { .v = &e, .n = 1, .cap = 1 };
	unsigned char a[16];
	int family = inet_pton(AF_INET, host, a) == 1 ? AF_INET :
	    inet_pton(AF_INET6, host, a) == 1	      ? AF_INET6 :
							0;

	if (family == 0 || netpolicy_parse(entry, false, &e) != NULL ||
	    e.kind != NP_ADDR)
		return false;
	e.port = 0;
	/* Any port: a NO_PROXY entry names hosts, not ports. */
	return netpolicy_check_addr(&np, family, a, 80, false, NULL) == NULL;
}

/*
 * Whether HOST (as netpolicy_host() made it: lower case, no brackets) is
 * on the NO_PROXY list LIST: "*", a name (which also covers the names
 * below it; a leading "." or "*." changes nothing), an address, or a
 * network "ADDRESS/BITS".  Entries are separated by commas or blanks; a
 * name's ":PORT" is ignored.
 */
bool
upstream_bypass(const char *list, const char *host)
{
	size_t hl = strlen(host);

	if (list == NULL)
		return false;
	for (const char *p = list; *p != '\0';) {
		size_t n = strcspn(p, ", \t");
		char e[300];
		size_t el;

		if (n == 0 || n >= sizeof(e)) {
			p += n + (p[n] != '\0');
			continue;
		}
		for (size_t i = 0; i < n; i++)
			e[i] = (char)tolower((unsigned char)p[i]);
		e[n] = '\0';
		p += n + (p[n] != '\0');
		if (strcmp(e, "*") == 0)
			return true;
		if (strchr(e, '/') != NULL) {
			if (in_network(host, e))
				return true;
			continue;
		}
		if (e[0] == '[' && strchr(e, ']') != NULL)
			*strchr(e, ']') = '\0', memmove(e, e + 1, strlen(e));
		else if (strchr(e, ':') == strrchr(e, ':') &&
		    strchr(e, ':') != NULL)
			*strchr(e, ':') = '\0';
		el = strlen(e);
		if (el > 0 && e[el - 1] == '.')
			e[--el] = '\0';
		if (strncmp(e, "*.", 2) == 0)
			memmove(e, e + 1, el--);
		if (e[0] == '.')
			memmove(e, e + 1, el--);
		if (el == 0)
			continue;
		if (strcmp(host, e) == 0 ||
		    (hl > el && host[hl - el - 1] == '.' &&
			strcmp(host + hl - el, e) == 0))
			return true;
	}
	return false;
}

void
upstream_copy(struct upstream *to, const struct upstream *from)
{
	*to = *from;
	to->auth = from->auth != NULL ? xstrdup(from->auth) : NULL;
}

void
upstream_free(struct upstream *u)
{
	if (u->auth != NULL) {
		explicit_bzero(u->auth, strlen(u->auth));
		free(u->auth);
	}
	memset(u, 0, sizeof(*u));
}

void
upstream_conf_free(struct upstream_conf *c)
{
	upstream_free(&c->tunnel);
	upstream_free(&c->plain);
	free(c->no_proxy);
	c->no_proxy = NULL;
}
