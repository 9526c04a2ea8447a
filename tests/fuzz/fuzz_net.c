/*
 * fuzz_net.c - libFuzzer target for the proxy's pure parts: netreq.c's
 * request parsers and netpolicy.c's patterns and decisions.
 *
 * The input's first byte picks what is fed the rest: an HTTP request, a
 * SOCKS5 greeting and request, a pattern, then a host decided against
 * a fixed list, or addresses: the first 16 bytes one to decide, the rest
 * this host's addresses and networks (17 bytes each: a prefix, then the
 * address).  Whatever the bytes, a parser must stay within them, a
 * finished request must name a host and a port from 1 to 65535, the
 * decisions must not crash, an IPv4-mapped address must be decided as
 * its IPv4 address, and no address the host holds or reaches on-link
 * may be allowed by name.  Built and run by scripts/fuzz.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netpolicy.h"
#include "netreq.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_done(const struct netreq *r, size_t n)
{
	if (r->used > n || r->host[0] == '\0' || r->port < 1 ||
	    r->port > 65535 || memchr(r->host, '\0', sizeof(r->host)) == NULL)
		abort();
}

static void
decide(const char *host)
{
	static const char *const allow[] = { "example.org", "*.example.net",
		"10.0.0.0/8:5432", "[fd00::/8]" };
	struct netpolicy np = { 0 };
	char h[NETPOLICY_NAME_MAX + 3];
	unsigned char a[16] = { 127, 0, 0, 1 };

	for (size_t i = 0; i < sizeof(allow) / sizeof(allow[0]); i++)
		(void)netpolicy_add(&np, allow[i], false);
	(void)netpolicy_add(&np, "bad.example.net", true);
	if (netpolicy_host(host, h, sizeof(h)) == 0)
		(void)netpolicy_check_name(&np, h, 443);
	(void)netpolicy_check_addr(&np, AF_INET, a, 443, true, NULL);
	netpolicy_free(&np);
}

/* Decide address bytes A against a host made of the bytes after them. */
static void
decide_addr(const uint8_t *d, size_t n)
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct netpolicy np = { 0 };
	struct np_host host = { 0 };
	unsigned char a[16] = { 0 }, m[16];
	const char *v4, *v6;

	if (n < 16)
		return;
	memcpy(a, d, 16);
	for (size_t off = 16; off + 17 <= n; off += 17)
		netpolicy_host_add(&host, d[off] & 1 ? AF_INET6 : AF_INET,
		    d + off + 1, d[off] >> 1, false);
	(void)netpolicy_add(&np, "example.org", false);
	(void)netpolicy_add(&np, "10.0.0.0/8:5432", false);
	memcpy(m, mapped, 12);
	memcpy(m + 12, a, 4);
	v4 = netpolicy_check_addr(&np, AF_INET, a, 443, true, &host);
	v6 = netpolicy_check_addr(&np, AF_INET6, m, 443, true, &host);
	if ((v4 == NULL) != (v6 == NULL) || (v4 && strcmp(v4, v6) != 0))
		abort();
	for (size_t i = 0; i < 2; i++) {
		int family = i == 0 ? AF_INET : AF_INET6;

		if (netpolicy_local(&host, family, a) != NULL &&
		    netpolicy_check_addr(&np, family, a, 443, true, &host) ==
			NULL)
			abort();
	}
	netpolicy_host_free(&host);
	netpolicy_free(&np);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct netreq r;
	struct np_entry e;
	char *text;
	size_t used = 0;

	if (size == 0)
		return 0;
	memset(&r, 0, sizeof(r));
	switch (data[0] % 4) {
	case 0:
		if (netreq_http((const char *)data + 1, size - 1, &r) ==
		    NETREQ_DONE) {
			check_done(&r, size - 1);
			decide(r.host);
		}
		break;
	case 1:
		if (netreq_socks_hello(data + 1, size - 1, &used) ==
			NETREQ_DONE &&
		    netreq_socks(data + 1 + used, size - 1 - used, &r) ==
			NETREQ_DONE) {
			check_done(&r, size - 1 - used);
			decide(r.host);
		}
		break;
	case 3:
		decide_addr(data + 1, size - 1);
		break;
	default:
		text = strndup((const char *)data + 1, size - 1);
		if (text != NULL) {
			(void)netpolicy_parse(text, data[0] & 4, &e);
			decide(text);
		}
		free(text);
		break;
	}
	netreq_free(&r);
	return 0;
}
