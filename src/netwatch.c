/*
 * netwatch.c - under --watch, a TCP connect() the command makes itself to
 * an IP address, named (sbox-exec(1), DENIALS): a client that ignores the
 * proxy variables connects directly, and without --net nothing but the
 * sandbox's own loopback answers.  Without this, such a refusal is only
 * the tool's "connection refused" or "network unreachable".
 *
 * A connect to the sandbox's loopback is named only when nothing listens
 * on that port inside (the command's own servers are reached, and said
 * nothing of); the option is --allow-host of that address, said and never
 * learned: a service on the host's loopback acts for the user outside.  A
 * connect to any other address is named with why no option serves: the
 * connection is direct, and --allow-host opens the proxy only.
 *
 * MUST: read only the kernel's view of the calling process (its memory,
 * its socket's /proc link, its network namespace's /proc files), never
 * hold a descriptor of its, and decide nothing:
 * the call goes on unchanged whatever is said.  UDP (a resolver's
 * connect() to its name server) is never named.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "denial.h"
#include "netproxy.h"
#include "netwatch.h"
#include "util.h"

/* The address at ADDR (LEN bytes) in PID's memory into C: 0 when it is an
 * IPv4 or IPv6 one, an IPv4-mapped IPv6 address made IPv4. */
int
netwatch_read(pid_t pid, unsigned long long addr, unsigned long long len,
    struct netwatch_conn *c)
{
	struct sockaddr_in6 sa = { 0 };
	struct iovec local = { &sa, sizeof(sa) };
	struct iovec remote = { (void *)(uintptr_t)addr, sizeof(sa) };
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };

	ssize_t got;

	if (addr == 0 || len < sizeof(struct sockaddr_in))
		return -1;
	if (len < remote.iov_len)
		remote.iov_len = local.iov_len = (size_t)len;
	got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (got < (ssize_t)sizeof(struct sockaddr_in))
		return -1;
	memset(c, 0, sizeof(*c));
	if (sa.sin6_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)&sa;

		c->family = AF_INET;
		memcpy(c->addr, &in->sin_addr, 4);
		c->port = ntohs(in->sin_port);
	} else if (sa.sin6_family == AF_INET6 &&
	    got >= (ssize_t)offsetof(struct sockaddr_in6, sin6_scope_id)) {
		/* The scope is not read: RFC 2133's 24 bytes end before it. */
		c->family = AF_INET6;
		memcpy(c->addr, &sa.sin6_addr, 16);
		c->port = ntohs(sa.sin6_port);
		if (memcmp(c->addr, mapped, sizeof(mapped)) == 0) {
			c->family = AF_INET;
			memmove(c->addr, c->addr + 12, 4);
		}
	} else {
		return -1;
	}
	return c->port > 0 ? 0 : -1;
}

/*
 * Whether descriptor FD of the thread PID is a TCP socket, by the
 * protocol name the kernel gives its /proc link (any thread's, unlike a
 * pidfd).  Never a copy of the socket: the launcher must not hold one,
 * whose last close (the sandbox's gone first) could wait on the peer.
 * False when it cannot be told.
 */
static bool
is_tcp(pid_t pid, int fd)
{
	char path[64], name[16] = "";
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)pid, fd);
	n = getxattr(path, "system.sockprotoname", name, sizeof(name) - 1);
	if (n <= 0)
		return false;
	name[n] = '\0';
	return strcmp(name, "TCP") == 0 || strcmp(name, "TCPv6") == 0;
}

/* Whether a TCP socket listens on PORT in PID's network namespace, on any
 * address (/proc/PID/net/tcp and tcp6); true when it cannot be told, so
 * that nothing is named then. */
static bool
listening(pid_t pid, int port)
{
	static const char *const files[] = { "tcp", "tcp6" };
	bool read_any = false;

	for (size_t i = 0; i < N_ELEMENTS(files); i++) {
		char path[64], line[512];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%ld/net/%s", (long)pid,
		    files[i]);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		read_any = true;
		while (fgets(line, sizeof(line), f) != NULL) {
			char *colon = strchr(line, ':'), *local;
			unsigned int lport, state;

			/* "  N: ADDR:PORT REMADDR:PORT ST ..." */
			if (colon == NULL ||
			    (local = strchr(colon + 2, ':')) == NULL ||
			    sscanf(local + 1, "%x %*s %x", &lport, &state) != 2)
				continue;
			if (state == 0x0A && (int)lport == port) {
				fclose(f);
				return true;
			}
		}
		fclose(f);
	}
	return !read_any;
}

/* Whether C is an address the sandbox's own loopback answers: 127/8,
 * ::1, and the unspecified 0.0.0.0 and ::, which connect() sends there. */
static bool
loopback(const struct netwatch_conn *c)
{
	static const unsigned char one[16] = { [15] = 1 }, none[16] = { 0 };

	if (c->family == AF_INET)
		return c->addr[0] == 127 || memcmp(c->addr, none, 4) == 0;
	return memcmp(c->addr, one, 16) == 0 || memcmp(c->addr, none, 16) == 0;
}

/*
 * The connect() of socket FD by PID to C, which went on: named when it
 * is one the sandbox refuses (see the top of this file).
 */
void
netwatch_decide(pid_t pid, int fd, const struct netwatch_conn *c)
{
	char text[INET6_ADDRSTRLEN], what[INET6_ADDRSTRLEN + 16],
	    value[INET6_ADDRSTRLEN + 16];
	struct denial_grant g = { 0 };
	bool six = c->family == AF_INET6;

	if (loopback(c) &&
	    (c->port == NETPROXY_PORT || listening(pid, c->port)))
		return;
	if (!is_tcp(pid, fd) ||
	    inet_ntop(c->family, c->addr, text, sizeof(text)) == NULL)
		return;
	snprintf(what, sizeof(what), "%s%s%s:%d", six ? "[" : "", text,
	    six ? "]" : "", c->port);
	if (loopback(c)) {
		/* The unspecified address is loopback here: named so. */
		if (c->family == AF_INET && c->addr[0] != 127)
			snprintf(value, sizeof(value), "127.0.0.1:%d", c->port);
		else if (six)
			snprintf(value, sizeof(value), "[::1]:%d", c->port);
		else
			snprintf(value, sizeof(value), "%s", what);
		g = (struct denial_grant){ .option = "allow-host",
			.value = value,
			.note = c->port >= NETPOLICY_FORWARD_MIN_PORT ?
			    "the host's loopback, served at the same address and port inside; a service there acts for you outside the sandbox: --learn leaves it out" :
			    "the host's loopback, below port 1024 reached through the proxy only, by the clients that read the proxy variables; a service there acts for you outside the sandbox: --learn leaves it out",
			.wide = true };
		denial_report(DENIAL_HOST, what,
		    "a direct connection to the sandbox's own loopback, where nothing listens",
		    &g);
		return;
	}
	g.note =
	    "no option serves a direct connection: --allow-host opens the proxy, which the clients that read the proxy variables go through";
	denial_report(DENIAL_HOST, what, "no network: a direct connection", &g);
}
