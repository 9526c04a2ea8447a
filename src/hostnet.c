/*
 * hostnet.c - this host's addresses and networks, read for each decision
 * of the proxy of --allow-host (sbox-exec(1), NETWORK BY NAME), so that
 * a name that resolves to one of them is refused BEFORE anything is
 * connected: a service listening there never sees the connection, and
 * the refusal is the same whether something listens or not.
 *
 * Two sources, both asked again each time (interfaces come and go):
 * getifaddrs(), for every interface's address and the network its
 * netmask gives (and a point-to-point link's other end); and the
 * kernel's routing decision, for an address it delivers locally without
 * it being on an interface (a "local" route, such as 127.0.0.0/8 or one
 * added for a whole network): a datagram socket connected to it, which
 * sends nothing, takes that same address as its source.
 * MUST NOT print or exit; MUST say when it could not find out (the
 * proxy then connects to nothing rather than to what it could not judge).
 */
#include "config.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hostnet.h"
#include "util.h"

/* SA's address bytes, or NULL for a family other than IPv4 and IPv6. */
static const unsigned char *
bytes(const struct sockaddr *sa)
{
	if (sa == NULL)
		return NULL;
	if (sa->sa_family == AF_INET)
		return (const unsigned char *)&((const struct sockaddr_in *)sa)
		    ->sin_addr;
	if (sa->sa_family == AF_INET6)
		return (const unsigned char *)&((const struct sockaddr_in6 *)sa)
		    ->sin6_addr;
	return NULL;
}

/* The number of leading one bits of the netmask MASK (LEN bytes). */
static int
prefix_of(const unsigned char *mask, size_t len)
{
	int bits = 0;

	for (size_t i = 0; i < len; i++) {
		for (int b = 7; b >= 0 && (mask[i] >> b) & 1; b--)
			bits++;
		if (mask[i] != 0xff)
			break;
	}
	return bits;
}

/* This host's addresses and its interfaces' networks, into HOST; -1
 * with errno when they cannot be read. */
int
hostnet_read(struct np_host *host)
{
	struct ifaddrs *all = NULL;

	if (getifaddrs(&all) < 0)
		return -1;
	for (const struct ifaddrs *i = all; i != NULL; i = i->ifa_next) {
		const unsigned char *a = bytes(i->ifa_addr);
		const unsigned char *mask = bytes(i->ifa_netmask);
		int family, max;

		if (a == NULL)
			continue;
		family = i->ifa_addr->sa_family;
		max = family == AF_INET ? 32 : 128;
		netpolicy_host_add(host, family, a,
		    mask != NULL && i->ifa_netmask->sa_family == family ?
			prefix_of(mask, (size_t)max / 8) :
			max,
		    false);
		if ((i->ifa_flags & IFF_POINTOPOINT) &&
		    bytes(i->ifa_dstaddr) != NULL &&
		    i->ifa_dstaddr->sa_family == family)
			netpolicy_host_add(host, family, bytes(i->ifa_dstaddr),
			    max, true);
	}
	freeifaddrs(all);
	return 0;
}

/*
 * Whether the kernel delivers address A of FAMILY to this host itself:
 * 1 or 0, or -1 with errno when it cannot be asked.  connect() on a
 * datagram socket only looks the route up (no route at all: not here);
 * for a local destination the source it picks is the destination.
 */
int
hostnet_routes_here(int family, const unsigned char *a)
{
	struct sockaddr_storage to = { 0 }, self = { 0 };
	socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in) :
					    sizeof(struct sockaddr_in6);
	socklen_t sl = sizeof(self);
	cleanup_fd int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	to.ss_family = (sa_family_t)family;
	if (family == AF_INET) {
		((struct sockaddr_in *)&to)->sin_port = htons(9);
		memcpy(&((struct sockaddr_in *)&to)->sin_addr, a, 4);
	} else {
		((struct sockaddr_in6 *)&to)->sin6_port = htons(9);
		memcpy(&((struct sockaddr_in6 *)&to)->sin6_addr, a, 16);
	}
	if (connect(fd, (struct sockaddr *)&to, len) < 0)
		return 0;
	if (getsockname(fd, (struct sockaddr *)&self, &sl) < 0)
		return -1;
	return self.ss_family == family &&
	    memcmp(bytes((struct sockaddr *)&self), a,
		family == AF_INET ? 4 : 16) == 0;
}
