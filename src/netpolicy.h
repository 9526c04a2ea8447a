/*
 * netpolicy.h - the egress allow-list of --allow-host and --deny-host
 * (sbox-exec(1), NETWORK BY NAME): the patterns' syntax and the decisions
 * taken on a name a sandboxed client asked for and on the addresses the
 * launcher resolved it to.
 */
#ifndef SBOX_NETPOLICY_H
#define SBOX_NETPOLICY_H

#include <stdbool.h>
#include <stddef.h>

#define NETPOLICY_MAX_ENTRIES 256
#define NETPOLICY_NAME_MAX 253 /* a DNS name, without the final dot */

enum np_kind {
	NP_NAME,   /* exactly this name */
	NP_SUFFIX, /* "*.NAME": any name below NAME, not NAME itself */
	NP_ADDR,   /* an IPv4/IPv6 address or network */
};

struct np_entry {
	enum np_kind kind;
	bool deny;
	char name[NETPOLICY_NAME_MAX + 1]; /* lower case; NP_SUFFIX: no "*." */
	int family;			   /* NP_ADDR: AF_INET or AF_INET6 */
	unsigned char addr[16];
	int prefix;
	int port; /* 0: allow 80 and 443, deny every port */
};

struct netpolicy {
	struct np_entry *v;
	size_t n, cap;
};

/* An address of this host (prefix 32 or 128) or one of its networks. */
struct np_hostnet {
	int family;
	unsigned char addr[16];
	int prefix;
	bool peer; /* a point-to-point link's other end: not ours */
};

/* An allowed loopback address and port, served on the same address and
 * port of the sandbox's own loopback (netproxy.c), so that a client that
 * ignores the proxy variables reaches the host's service too. */
struct np_forward {
	int family;
	unsigned char addr[16];
	int port;
};

#define NETPOLICY_MAX_FORWARDS 16
#define NETPOLICY_FORWARD_MIN_PORT 1024

struct np_host {
	struct np_hostnet *v;
	size_t n, cap;
};

#define cleanup_host __attribute__((cleanup(netpolicy_host_free)))

const char *netpolicy_parse(const char *, bool, struct np_entry *);
const char *netpolicy_add(struct netpolicy *, const char *, bool);
bool netpolicy_suggest(const char *, char *, size_t);
bool netpolicy_active(const struct netpolicy *);
bool netpolicy_allows_loopback(const struct netpolicy *, int);
size_t netpolicy_forwards(const struct netpolicy *, struct np_forward *,
    size_t);
bool netpolicy_forwarded(const struct netpolicy *, int, const unsigned char *,
    int);
void netpolicy_free(struct netpolicy *);

int netpolicy_host(const char *, char *, size_t);
const char *netpolicy_check_name(const struct netpolicy *, const char *, int);
const char *netpolicy_check_addr(const struct netpolicy *, int,
    const unsigned char *, int, bool, const struct np_host *);
const char *netpolicy_this_host(const char *, const char *const *, size_t);
const char *netpolicy_special(int, const unsigned char *);
const char *netpolicy_local(const struct np_host *, int, const unsigned char *);
void netpolicy_host_add(struct np_host *, int, const unsigned char *, int,
    bool);
void netpolicy_host_free(struct np_host *);

#endif
