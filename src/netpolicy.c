/*
 * netpolicy.c - the allow-list behind --allow-host and --deny-host: the
 * patterns' syntax and the decisions (sbox-exec(1), NETWORK BY NAME).
 *
 * A request is decided twice: on the name the client asked for (is it
 * on the list, on that port, and not carved out by a deny pattern), then
 * on each address the launcher resolved it to.  MUST: refuse a resolved
 * address of any block of the IANA special-purpose registries (loopback,
 * link-local, private, documentation, benchmarking, reserved...),
 * multicast, or one of this host's own addresses or networks, unless an
 * address entry covers it (an allowed name that a resolver points at
 * 127.0.0.1 or 169.254.169.254 reaches nothing); let an IP literal
 * through only where an address entry covers it.  A name that means
 * this host by itself (localhost, the host's own name) is told apart
 * too, for the proxy to refuse where nothing is resolved here.
 * Pure: strings and bytes in, decisions out; no I/O, no exit.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "netpolicy.h"
#include "util.h"

/* A port as a user writes one: 1 to 65535, digits only. */
static int
parse_port(const char *s)
{
	long v = 0;

	if (s[0] == '\0' || s[0] == '0' || strlen(s) > 5)
		return -1;
	for (const char *p = s; *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v >= 1 && v <= 65535 ? (int)v : -1;
}

/* Whether S (lower case already) is a DNS name: labels of letters,
 * digits, '-' and '_', 1 to 63 bytes, not starting or ending with '-'. */
static bool
valid_name(const char *s)
{
	size_t len = strlen(s), label = 0;

	if (len == 0 || len > NETPOLICY_NAME_MAX)
		return false;
	for (size_t i = 0; i <= len; i++) {
		char c = s[i];

		if (c == '.' || c == '\0') {
			if (label == 0 || label > 63 || s[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!(islower((unsigned char)c) || isdigit((unsigned char)c) ||
			c == '-' || c == '_'))
			return false;
		if (label == 0 && c == '-')
			return false;
		label++;
	}
	return true;
}

/* TEXT as an address, with or without "/PREFIX", into E. */
static const char *
parse_addr(char *text, struct np_entry *e)
{
	char *slash = strchr(text, '/');
	int max;

	if (slash != NULL)
		*slash = '\0';
	if (inet_pton(AF_INET, text, e->addr) == 1)
		e->family = AF_INET;
	else if (inet_pton(AF_INET6, text, e->addr) == 1)
		e->family = AF_INET6;
	else
		return slash != NULL ? "not an address before '/'" : NULL;
	max = e->family == AF_INET ? 32 : 128;
	e->kind = NP_ADDR;
	e->prefix = max;
	if (slash != NULL) {
		int v = parse_port(slash + 1); /* the same digits rule */

		if (strcmp(slash + 1, "0") == 0)
			v = 0;
		if (v < 0 || v > max)
			return "the prefix length is out of range";
		e->prefix = v;
	}
	for (int bit = e->prefix; bit < max; bit++)
		if (e->addr[bit / 8] & (0x80 >> (bit % 8)))
			return "the network has host bits set";
	return "";
}

/* Split "HOST[:PORT]" or "[V6][:PORT]" at the port, into HOST. */
static const char *
split_port(char *host, struct np_entry *e)
{
	char *colon = NULL;

	e->port = 0;
	if (host[0] == '[') {
		char *close = strchr(host, ']');

		if (close == NULL)
			return "'[' without ']'";
		if (close[1] != '\0' && close[1] != ':')
			return "text after ']'";
		if (close[1] == ':')
			colon = close + 1;
		*close = '\0';
		memmove(host, host + 1, strlen(host + 1) + 1);
	} else if (strchr(host, ':') == strrchr(host, ':')) {
		colon = strchr(host, ':'); /* one colon: a port */
	}
	if (colon != NULL) {
		*colon = '\0';
		e->port = parse_port(colon + 1);
		if (e->port < 0)
			return "the port is not a number from 1 to 65535";
	}
	return NULL;
}

/*
 * TEXT, one --allow-host (or, DENY, --deny-host) value, into E.  Returns
 * NULL, or what is wrong with it.
 */
const char *
netpolicy_parse(const char *text, bool deny, struct np_entry *e)
{
	char host[NETPOLICY_NAME_MAX + 8];
	const char *why;
	char *name = host;

	memset(e, 0, sizeof(*e));
	e->deny = deny;
	if (strstr(text, "://") != NULL)
		return "a URL is not a host pattern";
	if (strpbrk(text, "/?#@") != NULL && netpolicy_suggest(text, NULL, 0))
		return "a host pattern has no path, query or user name";
	if (strlen(text) >= sizeof(host))
		return "the name is too long";
	for (size_t i = 0; i <= strlen(text); i++)
		host[i] = (char)tolower((unsigned char)text[i]);
	if ((why = split_port(host, e)) != NULL)
		return why;
	why = parse_addr(host, e);
	if (why != NULL)
		return why[0] == '\0' ? NULL : why;
	if (strncmp(name, "*.", 2) == 0) {
		e->kind = NP_SUFFIX;
		name += 2;
	}
	/* One final dot is the root, as DNS writes it. */
	if (name[0] != '\0' && name[strlen(name) - 1] == '.')
		name[strlen(name) - 1] = '\0';
	if (!valid_name(name))
		return strchr(name, '*') != NULL ?
		    "'*' only as the whole first label, as in *.example.org" :
		    "not a host name, address or network";
	strlcpy(e->name, name, sizeof(e->name));
	return NULL;
}

/*
 * When TEXT is a URL or a host with a path ("https://user@host:8080/p",
 * "host/p"), the pattern that was meant: the host and any port, into OUT
 * (of SIZE bytes; OUT may be NULL to ask only whether there is one).
 * False when TEXT is not such a thing or what it holds is no pattern.
 */
bool
netpolicy_suggest(const char *text, char *out, size_t size)
{
	const char *p = strstr(text, "://"), *at;
	char host[NETPOLICY_NAME_MAX + 8];
	struct np_entry e;
	size_t len;

	p = p != NULL ? p + 3 : text;
	len = strcspn(p, "/?#");
	/* A user name before the host ("user:secret@host") is not it. */
	at = memchr(p, '@', len);
	if (at != NULL) {
		len -= (size_t)(at + 1 - p);
		p = at + 1;
	}
	if (len == 0 || len >= sizeof(host) || (p == text && p[len] == '\0'))
		return false;
	memcpy(host, p, len);
	host[len] = '\0';
	if (netpolicy_parse(host, false, &e) != NULL)
		return false;
	/* "ADDRESS/PREFIX" is a network, right or wrong. */
	if (p == text && e.kind == NP_ADDR && p[len] == '/')
		return false;
	if (out != NULL)
		strlcpy(out, host, size);
	return true;
}

/* Whether A and B are one entry: the same pattern, port and side. */
static bool
same_entry(const struct np_entry *a, const struct np_entry *b)
{
	if (a->kind != b->kind || a->deny != b->deny || a->port != b->port)
		return false;
	if (a->kind == NP_ADDR)
		return a->family == b->family && a->prefix == b->prefix &&
		    memcmp(a->addr, b->addr, sizeof(a->addr)) == 0;
	return strcmp(a->name, b->name) == 0;
}

/* Add TEXT to NP; NULL or what is wrong.  An entry NP holds already is
 * not added again: policies put together from parts repeat hosts, and a
 * repeat does not count against the limit. */
const char *
netpolicy_add(struct netpolicy *np, const char *text, bool deny)
{
	struct np_entry e;
	const char *why = netpolicy_parse(text, deny, &e);

	if (why != NULL)
		return why;
	for (size_t i = 0; i < np->n; i++)
		if (same_entry(&np->v[i], &e))
			return NULL;
	if (np->n >= NETPOLICY_MAX_ENTRIES)
		return "too many --allow-host and --deny-host entries (at most 256)";
	np->v = util_grow(np->v, np->n, &np->cap, sizeof(*np->v));
	np->v[np->n++] = e;
	return NULL;
}

/* Whether NP allows anything, which is what turns the proxy on. */
bool
netpolicy_active(const struct netpolicy *np)
{
	for (size_t i = 0; i < np->n; i++)
		if (!np->v[i].deny)
			return true;
	return false;
}

void
netpolicy_free(struct netpolicy *np)
{
	free(np->v);
	memset(np, 0, sizeof(*np));
}

/*
 * A client's HOST, as it asked (a name, an address, "[v6]"), made the
 * form patterns are matched against into OUT: lower case, without a
 * final dot or brackets.  Returns 1 for an address, 0 for a name, -1
 * for neither.
 */
int
netpolicy_host(const char *host, char *out, size_t size)
{
	unsigned char a[16];
	size_t len = strlen(host);

	if (len == 0 || len >= size || len > NETPOLICY_NAME_MAX + 2)
		return -1;
	if (host[0] == '[' && host[len - 1] == ']') {
		memcpy(out, host + 1, len - 2);
		out[len - 2] = '\0';
		return inet_pton(AF_INET6, out, a) == 1 ? 1 : -1;
	}
	for (size_t i = 0; i <= len; i++)
		out[i] = (char)tolower((unsigned char)host[i]);
	if (inet_pton(AF_INET, out, a) == 1 || inet_pton(AF_INET6, out, a) == 1)
		return 1;
	if (len > 1 && out[len - 1] == '.')
		out[len - 1] = '\0';
	return valid_name(out) ? 0 : -1;
}

static bool
port_ok(const struct np_entry *e, int port)
{
	if (e->port != 0)
		return e->port == port;
	return e->deny || port == 80 || port == 443;
}

static bool
name_matches(const struct np_entry *e, const char *name)
{
	size_t n = strlen(name), s = strlen(e->name);

	if (e->kind == NP_NAME)
		return strcmp(e->name, name) == 0;
	if (e->kind != NP_SUFFIX || n <= s + 1)
		return false;
	return name[n - s - 1] == '.' && strcmp(name + n - s, e->name) == 0;
}

static bool
addr_matches(const struct np_entry *e, int family, const unsigned char *a)
{
	int full = e->prefix / 8, rest = e->prefix % 8;

	if (e->kind != NP_ADDR || e->family != family)
		return false;
	if (memcmp(e->addr, a, (size_t)full) != 0)
		return false;
	return rest == 0 ||
	    ((e->addr[full] ^ a[full]) & (0xff << (8 - rest)) & 0xff) == 0;
}

/* Whether E is served inside on its own address and port: an allow
 * entry for one loopback address (in 127.0.0.0/8, or ::1) with a port
 * that anyone may listen on (from NETPOLICY_FORWARD_MIN_PORT: the
 * sandbox's network namespace keeps the kernel's default, and nothing
 * in it holds CAP_NET_BIND_SERVICE). */
static bool
forward_entry(const struct np_entry *e)
{
	static const unsigned char v6[16] = { [15] = 1 };

	if (e->deny || e->kind != NP_ADDR ||
	    e->port < NETPOLICY_FORWARD_MIN_PORT)
		return false;
	if (e->family == AF_INET)
		return e->prefix == 32 && e->addr[0] == 127;
	return e->prefix == 128 && memcmp(e->addr, v6, 16) == 0;
}

/*
 * Whether an allow entry of NP that is not served inside on its own
 * address (netpolicy_forwards()) covers this host's loopback address of
 * FAMILY (127.0.0.1, ::1): a network, or an address without a port.  The
 * proxy variables then send that address, and "localhost", to the proxy
 * (sbox-exec(1), NETWORK BY NAME), where it is the host's loopback, not
 * the sandbox's.
 */
bool
netpolicy_allows_loopback(const struct netpolicy *np, int family)
{
	static const unsigned char v4[16] = { 127, 0, 0, 1 };
	static const unsigned char v6[16] = { [15] = 1 };

	for (size_t i = 0; i < np->n; i++)
		if (!np->v[i].deny &&
		    addr_matches(&np->v[i], family,
			family == AF_INET ? v4 : v6) &&
		    !(forward_entry(&np->v[i]) &&
			netpolicy_check_addr(np, family, np->v[i].addr,
			    np->v[i].port, false, NULL) == NULL))
			return true;
	return false;
}

/*
 * The loopback addresses and ports NP allows one by one (an address
 * entry with a port, not denied by a --deny-host entry), each once, into
 * OUT (at most MAX): the sandbox's own loopback serves each on the same
 * address and port, relayed to the host's.  How many there are, which
 * may be more than MAX.
 */
size_t
netpolicy_forwards(const struct netpolicy *np, struct np_forward *out,
    size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < np->n; i++) {
		const struct np_entry *e = &np->v[i];
		bool seen = false;

		if (!forward_entry(e) ||
		    netpolicy_check_addr(np, e->family, e->addr, e->port, false,
			NULL) != NULL)
			continue;
		/* An entry said twice is served once. */
		for (size_t j = 0; j < i && !seen; j++)
			seen = forward_entry(&np->v[j]) &&
			    np->v[j].family == e->family &&
			    np->v[j].port == e->port &&
			    memcmp(np->v[j].addr, e->addr, 16) == 0;
		if (seen)
			continue;
		if (n < max) {
			out[n].family = e->family;
			memcpy(out[n].addr, e->addr, 16);
			out[n].port = e->port;
		}
		n++;
	}
	return n;
}

/* Whether address A of FAMILY, port PORT, is one of NP's forwards. */
bool
netpolicy_forwarded(const struct netpolicy *np, int family,
    const unsigned char *a, int port)
{
	struct np_forward f[NETPOLICY_MAX_FORWARDS];
	size_t n = netpolicy_forwards(np, f, N_ELEMENTS(f));

	for (size_t i = 0; i < n && i < N_ELEMENTS(f); i++)
		if (f[i].family == family && f[i].port == port &&
		    memcmp(f[i].addr, a, family == AF_INET ? 4 : 16) == 0)
			return true;
	return false;
}

/*
 * The name HOST (netpolicy_host()'s form), port PORT: NULL when it may
 * be resolved and tried, or the reason it is refused.  An address is
 * decided by netpolicy_check_addr() alone.
 */
const char *
netpolicy_check_name(const struct netpolicy *np, const char *host, int port)
{
	bool other_port = false;

	for (size_t i = 0; i < np->n; i++)
		if (np->v[i].deny && name_matches(&np->v[i], host) &&
		    port_ok(&np->v[i], port))
			return "denied by --deny-host";
	for (size_t i = 0; i < np->n; i++) {
		if (np->v[i].deny || !name_matches(&np->v[i], host))
			continue;
		if (port_ok(&np->v[i], port))
			return NULL;
		other_port = true;
	}
	return other_port ? "port not in allow-list" : "not in allow-list";
}

/* Whether NAME is the name OWN, in any case, either with a final dot. */
static bool
same_name(const char *name, const char *own)
{
	size_t n = strlen(name), o = strlen(own);

	if (n > 0 && name[n - 1] == '.')
		n--;
	if (o > 0 && own[o - 1] == '.')
		o--;
	return o > 0 && n == o && strncasecmp(name, own, n) == 0;
}

/*
 * Whether the name HOST (netpolicy_host()'s form) means this host, by
 * itself, whatever it resolves to: "localhost" and every name below it
 * (RFC 6761, 6.3), a name whose first label is localhost, localhost4 or
 * localhost6 (the distributions' "localhost.localdomain",
 * "localhost6.localdomain6"), ip6-localhost and ip6-loopback, and the
 * N names in OWN (this host's name and its FQDN; an empty one is none).
 * The reason, as netpolicy_check_addr() words it for an address the
 * name might resolve to, or NULL.
 */
const char *
netpolicy_this_host(const char *host, const char *const *own, size_t n)
{
	static const char *const loopback[] = { "ip6-localhost",
		"ip6-loopback" };
	size_t first = strcspn(host, "."), len = strlen(host);

	if ((first == 9 || first == 10) && strncmp(host, "localhost", 9) == 0 &&
	    (first == 9 || host[9] == '4' || host[9] == '6'))
		return "loopback address";
	if (len > 10 && strcmp(host + len - 10, ".localhost") == 0)
		return "loopback address";
	for (size_t i = 0; i < N_ELEMENTS(loopback); i++)
		if (strcmp(host, loopback[i]) == 0)
			return "loopback address";
	for (size_t i = 0; i < n; i++)
		if (own[i] != NULL && same_name(host, own[i]))
			return "this host's own address";
	return NULL;
}

/* A block of addresses that a name may not lead to, and why. */
struct special {
	unsigned char net[16];
	int bits;
	const char *why;
};

/* Whether the first BITS bits of A and NET agree. */
static bool
in_prefix(const unsigned char *a, const unsigned char *net, int bits)
{
	int full = bits / 8, rest = bits % 8;

	if (memcmp(a, net, (size_t)full) != 0)
		return false;
	return rest == 0 ||
	    ((a[full] ^ net[full]) & (0xff << (8 - rest)) & 0xff) == 0;
}

static const char *
lookup(const struct special *t, size_t n, const unsigned char *a)
{
	for (size_t i = 0; i < n; i++)
		if (in_prefix(a, t[i].net, t[i].bits))
			return t[i].why;
	return NULL;
}

/*
 * The IANA IPv4 Special-Purpose Address Registry, every block of it
 * (globally reachable or not: the anycast ones, PCP's and TURN's in
 * 192.0.0.0/24, are answered by the nearest server, which may be the
 * local router), with multicast; the first match gives the reason.
 */
static const struct special special4_table[] = {
	{ { 0 }, 8, "unspecified address" },		/* "this network" */
	{ { 10 }, 8, "private address" },		/* RFC 1918 */
	{ { 100, 64 }, 10, "private address" },		/* shared, RFC 6598 */
	{ { 127 }, 8, "loopback address" },		/* RFC 1122 */
	{ { 169, 254 }, 16, "link-local address" },	/* RFC 3927 */
	{ { 172, 16 }, 12, "private address" },		/* RFC 1918 */
	{ { 192, 0, 0 }, 24, "reserved address" },	/* IETF, RFC 6890 */
	{ { 192, 0, 2 }, 24, "documentation address" }, /* TEST-NET-1 */
	{ { 192, 31, 196 }, 24, "special-purpose address" }, /* AS112 */
	{ { 192, 52, 193 }, 24, "special-purpose address" }, /* AMT */
	{ { 192, 88, 99 }, 24, "reserved address" }, /* 6to4 relay, RFC 7526 */
	{ { 192, 168 }, 16, "private address" },     /* RFC 1918 */
	{ { 192, 175, 48 }, 24, "special-purpose address" }, /* AS112 */
	{ { 198, 18 }, 15, "benchmarking address" },	     /* RFC 2544 */
	{ { 198, 51, 100 }, 24, "documentation address" },   /* TEST-NET-2 */
	{ { 203, 0, 113 }, 24, "documentation address" },    /* TEST-NET-3 */
	{ { 224 }, 4, "multicast address" },
	{ { 255, 255, 255, 255 }, 32, "broadcast address" },
	{ { 240 }, 4, "reserved address" }, /* RFC 1112 */
};

/*
 * The IANA IPv6 Special-Purpose Address Registry, every block but those
 * that carry an IPv4 address (judged as that address, below), and what
 * the IPv6 Address Space registry keeps out of global unicast.
 */
static const struct special special6_table[] = {
	{ { 0 }, 128, "unspecified address" },
	{ { [15] = 1 }, 128, "loopback address" },
	{ { 0, 0x64, 0xff, 0x9b, 0, 1 }, 48, "private address" }, /* RFC 8215 */
	{ { 0x01 }, 64,
	    "special-purpose address" }, /* discard-only, 100::/64 */
	{ { 0x01, 0, 0, 0, 0, 0, 0, 1 }, 64, "special-purpose address" },
	{ { 0x20, 0x01 }, 32, "reserved address" }, /* Teredo, RFC 4380 */
	{ { 0x20, 0x01, 0, 0x02 }, 48, "benchmarking address" }, /* RFC 5180 */
	{ { 0x20, 0x01 }, 23, "special-purpose address" }, /* IETF, RFC 2928 */
	{ { 0x20, 0x01, 0x0d, 0xb8 }, 32, "documentation address" },
	{ { 0x26, 0x20, 0, 0x4f, 0x80 }, 48,
	    "special-purpose address" },		 /* AS112 */
	{ { 0x3f, 0xff }, 20, "documentation address" }, /* RFC 9637 */
	{ { 0x5f }, 16, "reserved address" }, /* SRv6 SIDs, RFC 9602 */
	{ { 0xfc }, 7, "private address" },   /* unique local */
	{ { 0xfe, 0x80 }, 10, "link-local address" },
	{ { 0xfe, 0xc0 }, 10, "private address" }, /* site-local, deprecated */
	{ { 0xff }, 8, "multicast address" },
	/* Outside 2000::/3 nothing is global unicast (IPv4-compatible
	 * ::/96 among it, deprecated). */
	{ { 0 }, 3, "reserved address" },
	{ { 0x40 }, 2, "reserved address" },
	{ { 0x80 }, 1, "reserved address" },
};

static const unsigned char v4mapped[12] = { [10] = 0xff, [11] = 0xff };

/* The IPv4 address inside IPv6 address A (IPv4-mapped, well-known
 * NAT64, 6to4), or NULL. */
static const unsigned char *
inner_v4(const unsigned char *a)
{
	static const unsigned char nat64[12] = { 0, 0x64, 0xff, 0x9b };

	if (memcmp(a, v4mapped, 12) == 0 || memcmp(a, nat64, 12) == 0)
		return a + 12;
	if (a[0] == 0x20 && a[1] == 0x02) /* 6to4: 2002:AABB:CCDD::/48 */
		return a + 2;
	return NULL;
}

/*
 * What is special about address A of FAMILY, which a name may not lead
 * to: NULL for an ordinary (global) address.  An IPv4 address inside
 * IPv6 (inner_v4()) is judged as the IPv4 one.
 */
const char *
netpolicy_special(int family, const unsigned char *a)
{
	const unsigned char *v4;

	if (family == AF_INET)
		return lookup(special4_table, N_ELEMENTS(special4_table), a);
	if ((v4 = inner_v4(a)) != NULL)
		return netpolicy_special(AF_INET, v4);
	return lookup(special6_table, N_ELEMENTS(special6_table), a);
}

/*
 * Whether address A of FAMILY is one of this host's own (HOST->v's
 * entries with a full prefix) or on one of its networks (the others):
 * the reason, or NULL.  An IPv4 address inside an IPv6 one (inner_v4())
 * is judged as IPv4 too, as netpolicy_special() judges it: a network's
 * NAT64 gateway takes 64:ff9b::a.b.c.d to the host's a.b.c.d, or to a
 * neighbour's.
 */
const char *
netpolicy_local(const struct np_host *host, int family, const unsigned char *a)
{
	const unsigned char *v4;
	bool on_link = false;

	if (family == AF_INET6 && (v4 = inner_v4(a)) != NULL) {
		const char *inner = netpolicy_local(host, AF_INET, v4);

		/* A mapped address is its IPv4 one and nothing else; a
		 * NAT64 or 6to4 one is an IPv6 address too. */
		if (inner != NULL || memcmp(a, v4mapped, 12) == 0)
			return inner;
	}
	for (size_t i = 0; host != NULL && i < host->n; i++) {
		const struct np_hostnet *h = &host->v[i];

		if (h->family != family || !in_prefix(a, h->addr, h->prefix))
			continue;
		if (h->prefix == (family == AF_INET ? 32 : 128) && !h->peer)
			return "this host's own address";
		on_link = true;
	}
	return on_link ? "an address on this host's network" : NULL;
}

/*
 * Add HOST's address A of FAMILY with its network's PREFIX: the address
 * itself, and (a shorter PREFIX) its network.  PEER: A is the other end
 * of a point-to-point link, on the network but not ours.
 */
void
netpolicy_host_add(struct np_host *host, int family, const unsigned char *a,
    int prefix, bool peer)
{
	int max, pass;
	size_t len;

	/* An IPv4-mapped address is its IPv4 one, as netpolicy_local()
	 * judges it. */
	if (family == AF_INET6 && memcmp(a, v4mapped, 12) == 0 &&
	    prefix >= 96) {
		family = AF_INET;
		a += 12;
		prefix -= 96;
	}
	max = family == AF_INET ? 32 : 128;
	len = family == AF_INET ? 4 : 16;
	if (prefix < 0 || prefix > max)
		prefix = max;
	for (pass = 0; pass < 2; pass++) {
		struct np_hostnet *h;
		int bits = pass == 0 ? max : prefix;

		if (pass == 1 && bits == max)
			break;
		host->v = util_grow(host->v, host->n, &host->cap,
		    sizeof(*host->v));
		h = &host->v[host->n++];
		memset(h, 0, sizeof(*h));
		h->family = family;
		h->prefix = bits;
		h->peer = peer;
		memcpy(h->addr, a, len);
		for (int bit = bits; bit < max; bit++)
			h->addr[bit / 8] &= (unsigned char)~(0x80 >> (bit % 8));
	}
}

void
netpolicy_host_free(struct np_host *host)
{
	free(host->v);
	memset(host, 0, sizeof(*host));
}

/*
 * Address A of FAMILY, port PORT, reached for a name on the list
 * (BY_NAME) or asked for as an address: NULL when it may be connected
 * to, or the reason it may not.  HOST (may be NULL): this host's
 * addresses and networks, which a name may not lead to either.
 */
const char *
netpolicy_check_addr(const struct netpolicy *np, int family,
    const unsigned char *a, int port, bool by_name, const struct np_host *host)
{
	const char *special = netpolicy_special(family, a);
	const char *local = netpolicy_local(host, family, a);
	bool other_port = false;

	/* ::ffff:a.b.c.d is a.b.c.d on the wire: IPv4 entries decide it. */
	if (family == AF_INET6 && memcmp(a, v4mapped, 12) == 0) {
		family = AF_INET;
		a += 12;
	}
	for (size_t i = 0; i < np->n; i++)
		if (np->v[i].deny && addr_matches(&np->v[i], family, a) &&
		    port_ok(&np->v[i], port))
			return "denied by --deny-host";
	for (size_t i = 0; i < np->n; i++) {
		if (np->v[i].deny || !addr_matches(&np->v[i], family, a))
			continue;
		if (port_ok(&np->v[i], port))
			return NULL;
		other_port = true;
	}
	if (by_name)
		return special != NULL ? special : local;
	return other_port ? "port not in allow-list" :
			    "address not in allow-list";
}
