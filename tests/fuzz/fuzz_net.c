/*
 * fuzz_net.c - libFuzzer target for the proxy's pure parts: netreq.c's
 * request parsers and netpolicy.c's patterns and decisions.
 *
 * The input's first byte picks what is fed the rest: an HTTP request, a
 * SOCKS5 greeting and request, or a pattern, then a host decided against
 * a fixed list.  Whatever the bytes, a parser must stay within them, a
 * finished request must name a host and a port from 1 to 65535, and the
 * decisions must not crash.  Built and run by scripts/fuzz.
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
	(void)netpolicy_check_addr(&np, AF_INET, a, 443, true);
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
	switch (data[0] % 3) {
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
