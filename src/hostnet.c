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
 * added for a whole network, with or without a source address of its
 * own): the route lookup of "ip route get", asked over netlink.  And
 * the host's own names, for a name passed on to an upstream proxy
 * unresolved: gethostname(), and the canonical name it resolves to here.
 * MUST NOT print or exit; MUST say when it could not find out (the
 * proxy then connects to nothing rather than to what it could not judge).
 */
#include "config.h"

#include <errno.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
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
 * 1 or 0, or -1 with errno when it cannot be asked.  The kernel's own
 * route lookup (RTM_GETROUTE, as "ip route get" asks it) says whether
 * the route it would take is a local one; an error in its answer means
 * no route there at all, so nothing would be connected either.
 */
int
hostnet_routes_here(int family, const unsigned char *a)
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		unsigned char dst[RTA_SPACE(16)];
	} req;
	union {
		struct nlmsghdr nh;
		unsigned char b[4096];
	} ans;
	struct rtattr *rta;
	size_t len;
	ssize_t n;
	struct timeval tv = { .tv_sec = 2 };
	cleanup_fd int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
	    NETLINK_ROUTE);

	if (fd < 0)
		return -1;
	if (family == AF_INET6 && memcmp(a, mapped, 12) == 0) {
		family = AF_INET;
		a += 12;
	}
	len = family == AF_INET ? 4 : 16;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.rt.rtm_family = (unsigned char)family;
	req.rt.rtm_dst_len = (unsigned char)(len * 8);
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.rt));
	rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	rta->rta_type = RTA_DST;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), a, len);
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_LENGTH(len);
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		return -1;
	do
		n = recv(fd, &ans, sizeof(ans), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (!NLMSG_OK(&ans.nh, (size_t)n)) {
		errno = EPROTO;
		return -1;
	}
	if (ans.nh.nlmsg_type == NLMSG_ERROR)
		return 0;
	if (ans.nh.nlmsg_type != RTM_NEWROUTE ||
	    ans.nh.nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg))) {
		errno = EPROTO;
		return -1;
	}
	return ((struct rtmsg *)NLMSG_DATA(&ans.nh))->rtm_type == RTN_LOCAL;
}

/*
 * This host's own names: its name (gethostname()) into NAME, and the
 * canonical name that resolves to here (its FQDN, where the resolver
 * knows one) into FQDN, each of SIZE bytes; an empty string for one
 * there is none of.
 */
void
hostnet_names(char *name, char *fqdn, size_t size)
{
	struct addrinfo hints = { .ai_flags = AI_CANONNAME }, *ai = NULL;

	name[0] = fqdn[0] = '\0';
	if (gethostname(name, size) < 0 || memchr(name, '\0', size) == NULL) {
		name[0] = '\0';
		return;
	}
	if (getaddrinfo(name, NULL, &hints, &ai) != 0)
		return;
	if (ai->ai_canonname != NULL)
		strlcpy(fqdn, ai->ai_canonname, size);
	freeaddrinfo(ai);
}
