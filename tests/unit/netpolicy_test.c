/* Unit tests of netpolicy.c: the --allow-host and --deny-host patterns
 * (sbox-exec(1), NETWORK BY NAME), and the decisions, strings in. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "netpolicy.h"
#include "tap.h"
#include "util.h"

static void
test_bad_patterns(void)
{
	static const char *const bad[] = { "*", "*.", "a..b", "", ".",
		"example.org:0", "example.org:65536",
		"example.org:", "example.org:80x", "10.1.2.3/24", "10.0.0.0/33",
		"fd00::1/8", "a.*.org", "*example.org", "-a.org", "a-.org",
		"[::1", "[::1]x", "a b.org", "**.org", "10.0.0.0/",
		"10.0.0.0/08", "xn--a\x01.org", "example.org:08" };
	struct np_entry e;
	char longname[300];

	for (size_t i = 0; i < N_ELEMENTS(bad); i++)
		ok(netpolicy_parse(bad[i], false, &e) != NULL, "refused: '%s'",
		    bad[i]);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ok(netpolicy_parse(longname, false, &e) != NULL, "refused: 299 bytes");
	memset(longname, 'a', 64);
	strcpy(longname + 64, ".org");
	ok(netpolicy_parse(longname, false, &e) != NULL,
	    "refused: a 64-byte label");
}

static void
test_good_patterns(void)
{
	struct np_entry e;

	ok(netpolicy_parse("Registry.NPMJS.org", false, &e) == NULL &&
		e.kind == NP_NAME &&
		strcmp(e.name, "registry.npmjs.org") == 0 && e.port == 0,
	    "a name, lower-cased, default ports");
	ok(netpolicy_parse("*.githubusercontent.com", false, &e) == NULL &&
		e.kind == NP_SUFFIX &&
		strcmp(e.name, "githubusercontent.com") == 0,
	    "a wildcard");
	ok(netpolicy_parse("10.1.2.0/24:5432", false, &e) == NULL &&
		e.kind == NP_ADDR && e.family == AF_INET && e.prefix == 24 &&
		e.port == 5432,
	    "a network with a port");
	ok(netpolicy_parse("[fd00::]/8:443", false, &e) != NULL,
	    "a prefix outside the brackets is refused");
	ok(netpolicy_parse("[fd00::/8]:443", false, &e) == NULL &&
		e.family == AF_INET6 && e.prefix == 8 && e.port == 443,
	    "an IPv6 network with a port");
	ok(netpolicy_parse("::1", false, &e) == NULL && e.prefix == 128 &&
		e.port == 0,
	    "a bare IPv6 address");
	ok(netpolicy_parse("example.org.", false, &e) == NULL &&
		strcmp(e.name, "example.org") == 0,
	    "a final dot");
	ok(netpolicy_parse("0.0.0.0/0", false, &e) == NULL && e.prefix == 0,
	    "every IPv4 address");
}

static struct netpolicy
list(const char *const *allow, const char *const *deny)
{
	struct netpolicy np = { 0 };

	for (; allow != NULL && *allow != NULL; allow++)
		if (netpolicy_add(&np, *allow, false) != NULL)
			abort();
	for (; deny != NULL && *deny != NULL; deny++)
		if (netpolicy_add(&np, *deny, true) != NULL)
			abort();
	return np;
}

/* HOST:PORT as a client asks: NULL (allowed by name) or a reason. */
static const char *
by_name(const struct netpolicy *np, const char *host, int port)
{
	char h[300];
	int kind = netpolicy_host(host, h, sizeof(h));

	if (kind != 0)
		return kind < 0 ? "bad" : "literal";
	return netpolicy_check_name(np, h, port);
}

static const char *
addr(const struct netpolicy *np, const char *text, int port, bool name)
{
	unsigned char a[16];
	int family = strchr(text, ':') != NULL ? AF_INET6 : AF_INET;

	if (inet_pton(family, text, a) != 1)
		abort();
	return netpolicy_check_addr(np, family, a, port, name, NULL);
}

static void
test_names(void)
{
	static const char *const allow[] = { "registry.npmjs.org",
		"*.githubusercontent.com", "git.example:8443", NULL };
	static const char *const deny[] = { "evil.githubusercontent.com",
		NULL };
	struct netpolicy np = list(allow, deny);

	ok(by_name(&np, "registry.npmjs.org", 443) == NULL, "exact, 443");
	ok(by_name(&np, "REGISTRY.npmjs.org.", 80) == NULL,
	    "case and final dot");
	is_str(by_name(&np, "registry.npmjs.org", 22), "port not in allow-list",
	    "exact, port 22");
	is_str(by_name(&np, "npmjs.org", 443), "not in allow-list", "parent");
	is_str(by_name(&np, "xregistry.npmjs.org", 443), "not in allow-list",
	    "prefix");
	ok(by_name(&np, "raw.githubusercontent.com", 443) == NULL, "below");
	ok(by_name(&np, "a.b.githubusercontent.com", 443) == NULL,
	    "any depth below");
	is_str(by_name(&np, "githubusercontent.com", 443), "not in allow-list",
	    "not the apex");
	is_str(by_name(&np, "xgithubusercontent.com", 443), "not in allow-list",
	    "not a longer name");
	is_str(by_name(&np, "evil.githubusercontent.com", 443),
	    "denied by --deny-host", "carved out");
	ok(by_name(&np, "git.example", 8443) == NULL, "its own port");
	is_str(by_name(&np, "git.example", 443), "port not in allow-list",
	    "only its own port");
	is_str(by_name(&np, "a..b", 443), "bad", "malformed");
	is_str(by_name(&np, "127.0.0.1", 443), "literal", "an address");
	is_str(by_name(&np, "[::1]", 443), "literal", "an IPv6 address");
	netpolicy_free(&np);
}

static void
test_addresses(void)
{
	static const char *const allow[] = { "example.org", "127.0.0.1:8080",
		"10.1.2.0/24:5432", "[fd00::/8]", NULL };
	static const char *const deny[] = { "10.1.2.7", NULL };
	struct netpolicy np = list(allow, deny);

	ok(addr(&np, "93.184.216.34", 443, true) == NULL, "global, by name");
	is_str(addr(&np, "93.184.216.34", 443, false),
	    "address not in allow-list", "global, as a literal");
	is_str(addr(&np, "127.0.0.1", 443, true), "loopback address",
	    "rebinding to loopback");
	ok(addr(&np, "127.0.0.1", 8080, true) == NULL,
	    "loopback covered by an address entry");
	ok(addr(&np, "127.0.0.1", 8080, false) == NULL, "a covered literal");
	is_str(addr(&np, "169.254.169.254", 80, true), "link-local address",
	    "metadata");
	is_str(addr(&np, "169.254.169.254", 80, false),
	    "address not in allow-list", "metadata as a literal");
	is_str(addr(&np, "192.168.1.1", 443, true), "private address",
	    "private");
	is_str(addr(&np, "0.0.0.0", 443, true), "unspecified address",
	    "unspecified");
	is_str(addr(&np, "224.0.0.1", 443, true), "multicast address",
	    "multicast");
	ok(addr(&np, "10.1.2.9", 5432, false) == NULL, "in the network");
	is_str(addr(&np, "10.1.2.9", 443, false), "port not in allow-list",
	    "the network's port only");
	is_str(addr(&np, "10.1.2.7", 5432, false), "denied by --deny-host",
	    "carved out of the network");
	is_str(addr(&np, "::1", 443, true), "loopback address", "::1");
	is_str(addr(&np, "::ffff:127.0.0.1", 443, true), "loopback address",
	    "mapped loopback");
	is_str(addr(&np, "fe80::1", 443, true), "link-local address",
	    "IPv6 link-local");
	ok(addr(&np, "fd12::1", 443, true) == NULL, "ULA covered");
	is_str(addr(&np, "fc00::1", 443, true), "private address",
	    "ULA not covered");
	is_str(addr(&np, "ff02::1", 443, true), "multicast address",
	    "IPv6 multicast");
	ok(addr(&np, "2606:2800:220:1::1", 443, true) == NULL,
	    "global IPv6 by name");
	netpolicy_free(&np);
}

/* IPv4 inside IPv6 and the special IPv6 prefixes (NETWORK BY NAME). */
static void
test_embedded(void)
{
	static const char *const allow[] = { "example.org", NULL };
	static const char *const deny[] = { "93.184.216.34", "10.9.0.0/16",
		NULL };
	struct netpolicy np = list(allow, deny);

	is_str(addr(&np, "2002:7f00:1::1", 443, true), "loopback address",
	    "6to4 of 127.0.0.1");
	is_str(addr(&np, "2002:a9fe:a9fe::", 80, true), "link-local address",
	    "6to4 of 169.254.169.254");
	is_str(addr(&np, "2002:c0a8:101::1", 443, true), "private address",
	    "6to4 of 192.168.1.1");
	ok(addr(&np, "2002:5db8:d822::1", 443, true) == NULL,
	    "6to4 of a global address");
	is_str(addr(&np, "64:ff9b:1::5db8:d822", 443, true), "private address",
	    "local-use NAT64");
	is_str(addr(&np, "2001::1", 443, true), "reserved address", "Teredo");
	is_str(addr(&np, "2001:0:4136:e378::1", 443, true), "reserved address",
	    "Teredo with a server");
	ok(addr(&np, "2001:db9::1", 443, true) == NULL,
	    "beside Teredo's prefix");
	is_str(addr(&np, "::ffff:93.184.216.34", 443, true),
	    "denied by --deny-host", "a mapped address, denied as IPv4");
	is_str(addr(&np, "::ffff:10.9.1.2", 443, true), "denied by --deny-host",
	    "a mapped address in a denied network");
	is_str(addr(&np, "93.184.216.34", 443, true), "denied by --deny-host",
	    "the IPv4 address itself");
	netpolicy_free(&np);
	np = list((const char *const[]){ "10.1.2.3:8080", NULL },
	    (const char *const[]){ NULL });
	ok(addr(&np, "::ffff:10.1.2.3", 8080, false) == NULL,
	    "a mapped address, allowed as IPv4");
	netpolicy_free(&np);
}

/* Every block of the IANA special-purpose registries, by name: refused
 * with its reason; the address beside it: allowed (NETWORK BY NAME). */
static void
test_registry(void)
{
	static const struct {
		const char *in, *why, *beside;
	} t[] = {
		{ "0.1.2.3", "unspecified address", "1.0.0.1" },
		{ "10.255.255.255", "private address", "11.0.0.0" },
		{ "100.64.0.1", "private address", "100.63.255.255" },
		{ "100.127.255.254", "private address", "100.128.0.0" },
		{ "127.0.0.2", "loopback address", "128.0.0.1" },
		{ "169.254.0.1", "link-local address", "169.253.255.255" },
		{ "172.31.0.1", "private address", "172.32.0.0" },
		{ "192.0.0.9", "reserved address", "192.0.1.0" },
		{ "192.0.0.170", "reserved address", "191.255.255.255" },
		{ "192.0.2.1", "documentation address", "192.0.3.0" },
		{ "192.31.196.1", "special-purpose address", "192.31.197.0" },
		{ "192.52.193.1", "special-purpose address", "192.52.194.0" },
		{ "192.88.99.2", "reserved address", "192.88.100.0" },
		{ "192.168.0.1", "private address", "192.169.0.0" },
		{ "192.175.48.6", "special-purpose address", "192.175.49.0" },
		{ "198.18.0.1", "benchmarking address", "198.17.255.255" },
		{ "198.19.255.255", "benchmarking address", "198.20.0.0" },
		{ "198.51.100.7", "documentation address", "198.51.101.0" },
		{ "203.0.113.7", "documentation address", "203.0.114.0" },
		{ "224.0.0.1", "multicast address", "223.255.255.255" },
		{ "239.255.255.255", "multicast address", "223.1.2.3" },
		{ "240.0.0.1", "reserved address", "8.8.8.8" },
		{ "255.255.255.255", "broadcast address", "93.184.216.34" },
		{ "::", "unspecified address", "2000::" },
		{ "::1", "loopback address", "2001:200::1" },
		{ "::2", "reserved address", "2001:200::2" },
		{ "::192.0.2.1", "reserved address", "2001:200::3" },
		{ "100::1", "special-purpose address", "2001:200::4" },
		{ "100:0:0:1::1", "special-purpose address", "2001:200::5" },
		{ "64:ff9b:1::1", "private address", "2001:200::6" },
		{ "64:ff9b::c000:201", "documentation address",
		    "64:ff9b::5db8:d822" },
		{ "::ffff:203.0.113.1", "documentation address",
		    "::ffff:93.184.216.34" },
		{ "2002:c633:6401::1", "documentation address",
		    "2002:5db8:d822::1" },
		{ "2002:ffff:ffff::", "broadcast address", "2002:808:808::" },
		{ "2001::1", "reserved address", "2001:200::7" },
		{ "2001:1::1", "special-purpose address", "2001:200::8" },
		{ "2001:1::3", "special-purpose address", "2001:200::9" },
		{ "2001:2::1", "benchmarking address", "2001:200::a" },
		{ "2001:3::1", "special-purpose address", "2001:200::b" },
		{ "2001:4:112::1", "special-purpose address", "2001:200::c" },
		{ "2001:10::1", "special-purpose address", "2001:200::d" },
		{ "2001:20::1", "special-purpose address", "2001:200::e" },
		{ "2001:30::1", "special-purpose address", "2001:200::f" },
		{ "2001:1ff:ffff::1", "special-purpose address",
		    "2001:200::10" },
		{ "2001:db8::1", "documentation address", "2001:db9::1" },
		{ "2001:db8:ffff::1", "documentation address", "2001:db7::1" },
		{ "2620:4f:8000::1", "special-purpose address",
		    "2620:4f:8001::1" },
		{ "3fff::1", "documentation address", "3ffe:ffff::1" },
		{ "3fff:fff::1", "documentation address", "3fff:1000::1" },
		{ "5f00::1", "reserved address", "2a00::1" },
		{ "4000::1", "reserved address", "3fff:1000::2" },
		{ "8000::1", "reserved address", "2c0f::1" },
		{ "fc00::1", "private address", "2001:4860::1" },
		{ "fdff::1", "private address", "2001:4860::2" },
		{ "fe80::1", "link-local address", "2001:4860::3" },
		{ "febf::1", "link-local address", "2001:4860::4" },
		{ "fec0::1", "private address", "2001:4860::5" },
		{ "ff02::1", "multicast address", "2001:4860::6" },
	};
	static const char *const allow[] = { "example.org", NULL };
	struct netpolicy np = list(allow, NULL);

	for (size_t i = 0; i < N_ELEMENTS(t); i++) {
		const char *why = addr(&np, t[i].in, 443, true);

		is_str(why != NULL ? why : "allowed", t[i].why, t[i].in);
		ok(addr(&np, t[i].beside, 443, true) == NULL, "%s allowed",
		    t[i].beside);
	}
	netpolicy_free(&np);
	/* An address pattern covers a special address, allow and deny. */
	np = list((const char *const[]){ "example.org", "192.0.2.0/24",
		      "[2001:db8::/32]:8443", NULL },
	    (const char *const[]){ "192.0.2.9", NULL });
	ok(addr(&np, "192.0.2.7", 443, true) == NULL,
	    "a documentation address covered by a pattern");
	is_str(addr(&np, "192.0.2.9", 443, true), "denied by --deny-host",
	    "and carved out of it");
	ok(addr(&np, "2001:db8::7", 8443, true) == NULL,
	    "an IPv6 one on the pattern's port");
	is_str(addr(&np, "2001:db8::7", 443, true), "documentation address",
	    "not on another port");
	netpolicy_free(&np);
}

/* HOST's addresses and networks (NETWORK BY NAME): refused by name,
 * before anything is connected, unless an address pattern covers them. */
static void
test_host(void)
{
	static const char *const allow[] = { "example.org", "11.22.33.44:8080",
		NULL };
	struct netpolicy np = list(allow, NULL);
	struct np_host host = { 0 };
	unsigned char a[16];

	inet_pton(AF_INET, "11.22.33.1", a);
	netpolicy_host_add(&host, AF_INET, a, 24, false);
	inet_pton(AF_INET, "44.0.0.1", a);
	netpolicy_host_add(&host, AF_INET, a, 32, false);
	inet_pton(AF_INET, "44.1.0.9", a);
	netpolicy_host_add(&host, AF_INET, a, 32, true);
	inet_pton(AF_INET6, "2a01:4f8:1:2::5", a);
	netpolicy_host_add(&host, AF_INET6, a, 64, false);
	ok(host.n == 6, "two addresses with their networks, a /32, a peer: %zu",
	    host.n);

	is_str(netpolicy_check_addr(&np, AF_INET,
		   (inet_pton(AF_INET, "11.22.33.1", a), a), 443, true, &host),
	    "this host's own address", "own address");
	is_str(netpolicy_check_addr(&np, AF_INET,
		   (inet_pton(AF_INET, "11.22.33.7", a), a), 443, true, &host),
	    "an address on this host's network", "on-link");
	is_str(netpolicy_check_addr(&np, AF_INET,
		   (inet_pton(AF_INET, "11.22.33.255", a), a), 443, true,
		   &host),
	    "an address on this host's network", "the network's broadcast");
	ok(netpolicy_check_addr(&np, AF_INET,
	       (inet_pton(AF_INET, "11.22.34.1", a), a), 443, true,
	       &host) == NULL,
	    "beside the network");
	is_str(netpolicy_check_addr(&np, AF_INET,
		   (inet_pton(AF_INET, "44.0.0.1", a), a), 443, true, &host),
	    "this host's own address", "an address alone");
	ok(netpolicy_check_addr(&np, AF_INET,
	       (inet_pton(AF_INET, "44.0.0.2", a), a), 443, true,
	       &host) == NULL,
	    "beside an address alone");
	is_str(netpolicy_check_addr(&np, AF_INET,
		   (inet_pton(AF_INET, "44.1.0.9", a), a), 443, true, &host),
	    "an address on this host's network", "a point-to-point peer");
	is_str(netpolicy_check_addr(&np, AF_INET6,
		   (inet_pton(AF_INET6, "::ffff:11.22.33.1", a), a), 443, true,
		   &host),
	    "this host's own address", "own address, IPv4-mapped");
	is_str(netpolicy_check_addr(&np, AF_INET6,
		   (inet_pton(AF_INET6, "2a01:4f8:1:2::5", a), a), 443, true,
		   &host),
	    "this host's own address", "own IPv6 address");
	is_str(netpolicy_check_addr(&np, AF_INET6,
		   (inet_pton(AF_INET6, "2a01:4f8:1:2:ffff::1", a), a), 443,
		   true, &host),
	    "an address on this host's network", "IPv6 on-link");
	ok(netpolicy_check_addr(&np, AF_INET6,
	       (inet_pton(AF_INET6, "2a01:4f8:1:3::5", a), a), 443, true,
	       &host) == NULL,
	    "beside the IPv6 network");
	ok(netpolicy_check_addr(&np, AF_INET,
	       (inet_pton(AF_INET, "11.22.33.44", a), a), 8080, true,
	       &host) == NULL,
	    "on-link, covered by an address pattern");
	is_str(netpolicy_check_addr(&np, AF_INET,
		   (inet_pton(AF_INET, "11.22.33.44", a), a), 443, true, &host),
	    "an address on this host's network", "not on another port");
	is_str(netpolicy_check_addr(&np, AF_INET,
		   (inet_pton(AF_INET, "11.22.33.1", a), a), 443, false, &host),
	    "address not in allow-list", "an own address as a literal");
	/* An IPv4 address inside NAT64's and 6to4's prefixes: as IPv4. */
	is_str(netpolicy_check_addr(&np, AF_INET6,
		   (inet_pton(AF_INET6, "64:ff9b::11.22.33.1", a), a), 443,
		   true, &host),
	    "this host's own address", "own address, NAT64");
	is_str(netpolicy_check_addr(&np, AF_INET6,
		   (inet_pton(AF_INET6, "64:ff9b::11.22.33.7", a), a), 443,
		   true, &host),
	    "an address on this host's network", "on-link, NAT64");
	is_str(netpolicy_check_addr(&np, AF_INET6,
		   (inet_pton(AF_INET6, "2002:2c00:1::", a), a), 443, true,
		   &host),
	    "this host's own address", "an address alone, 6to4");
	ok(netpolicy_check_addr(&np, AF_INET6,
	       (inet_pton(AF_INET6, "64:ff9b::11.22.34.1", a), a), 443, true,
	       &host) == NULL,
	    "beside the network, NAT64");
	/* The kernel's word on an IPv4-mapped address (hostnet.c). */
	inet_pton(AF_INET6, "::ffff:44.2.0.9", a);
	netpolicy_host_add(&host, AF_INET6, a, 128, false);
	is_str(netpolicy_check_addr(&np, AF_INET,
		   (inet_pton(AF_INET, "44.2.0.9", a), a), 443, true, &host),
	    "this host's own address", "added IPv4-mapped, asked as IPv4");
	is_str(netpolicy_check_addr(&np, AF_INET6,
		   (inet_pton(AF_INET6, "::ffff:44.2.0.9", a), a), 443, true,
		   &host),
	    "this host's own address", "added IPv4-mapped, asked so");
	netpolicy_host_free(&host);
	ok(host.n == 0 && host.v == NULL, "freed");
	netpolicy_free(&np);
}

static void
test_limits(void)
{
	struct netpolicy np = { 0 };
	const char *why = NULL;

	for (int i = 0; i <= NETPOLICY_MAX_ENTRIES && why == NULL; i++) {
		char name[32];

		snprintf(name, sizeof(name), "h%d.example", i);
		why = netpolicy_add(&np, name, false);
	}
	ok(why != NULL && np.n == NETPOLICY_MAX_ENTRIES, "at most %d entries",
	    NETPOLICY_MAX_ENTRIES);
	netpolicy_free(&np);
	ok(!netpolicy_active(&np), "an empty list allows nothing");

	/* A repeat is one entry, however often a policy gives it. */
	why = NULL;
	for (int i = 0; i < 10000 && why == NULL; i++) {
		why = netpolicy_add(&np, "*.Example.org.", false);
		if (why == NULL)
			why = netpolicy_add(&np, "10.1.0.0/16:443", false);
	}
	ok(why == NULL && np.n == 2, "10 000 repeats of two: %zu entries",
	    np.n);
	ok(netpolicy_add(&np, "*.example.org", true) == NULL &&
		netpolicy_add(&np, "*.example.org:443", false) == NULL &&
		netpolicy_add(&np, "example.org", false) == NULL &&
		netpolicy_add(&np, "10.1.0.0/24:443", false) == NULL &&
		netpolicy_add(&np, "10.1.0.0/16", false) == NULL && np.n == 7,
	    "a deny, another port, the name itself, another network: each "
	    "its own entry (%zu)",
	    np.n);
	netpolicy_free(&np);
}

/* A URL or a host with a path: refused, naming the pattern meant
 * (sbox-exec(1), NETWORK BY NAME, Patterns). */
static void
test_suggestions(void)
{
	static const char *const cases[][2] = {
		{ "https://example.org/path", "example.org" },
		{ "https://example.org", "example.org" },
		{ "http://example.org:8080", "example.org:8080" },
		{ "http://example.org:8080/x?y#z", "example.org:8080" },
		{ "https://user:secret@Registry.example.org/",
		    "Registry.example.org" },
		{ "example.org/path", "example.org" },
		{ "example.org:8080/x", "example.org:8080" },
		{ "example.org?q", "example.org" },
		{ "user@example.org", "example.org" },
		{ "*.example.org/x", "*.example.org" },
		{ "http://[::1]:80/", "[::1]:80" },
		{ "http://10.1.2.3/", "10.1.2.3" },
	};
	static const char *const none[] = { "example.org", "10.0.0.0/8",
		"10.0.0.0/33", "10.1.2.3/24", "[fd00::]/8", "http://",
		"https:///x", "http://a..b/", "a b/c", "/path", "host:port/x" };
	struct np_entry e;
	char meant[300];

	for (size_t i = 0; i < N_ELEMENTS(cases); i++) {
		meant[0] = '\0';
		ok(netpolicy_parse(cases[i][0], false, &e) != NULL &&
			netpolicy_suggest(cases[i][0], meant, sizeof(meant)) &&
			strcmp(meant, cases[i][1]) == 0,
		    "'%s' refused, meant '%s' (got '%s')", cases[i][0],
		    cases[i][1], meant);
	}
	for (size_t i = 0; i < N_ELEMENTS(none); i++)
		ok(!netpolicy_suggest(none[i], meant, sizeof(meant)),
		    "no suggestion for '%s'", none[i]);
	is_str(netpolicy_parse("https://example.org/", false, &e),
	    "a URL is not a host pattern", "a URL is said to be one");
	is_str(netpolicy_parse("example.org/x", false, &e),
	    "a host pattern has no path, query or user name",
	    "a path is said to be one");
	is_str(netpolicy_parse("10.0.0.0/33", false, &e),
	    "the prefix length is out of range", "a network's own errors stay");
}

/* The names that mean this host by themselves, refused on the way to an
 * upstream proxy (sbox-exec(1), Upstream proxy). */
static void
test_this_host(void)
{
	static const char *const loopback[] = { "localhost", "a.localhost",
		"b.a.localhost", "localhost.localdomain", "localhost4",
		"localhost6", "localhost6.localdomain6",
		"localhost4.localdomain4", "localhost.example.org",
		"ip6-localhost", "ip6-loopback" };
	static const char *const other[] = { "localhostx", "localhost5",
		"mylocalhost", "localhost-1.example.org", "a.localhostx",
		"example.org", "localdomain", "xlocalhost", "ip6-localnet",
		"build", "build.example.org.evil", "b.build.example.org" };
	const char *own[] = { "Build", "build.EXAMPLE.org." };
	const char *none[] = { "", "" };

	for (size_t i = 0; i < N_ELEMENTS(loopback); i++)
		is_str(netpolicy_this_host(loopback[i], none, 2),
		    "loopback address", loopback[i]);
	for (size_t i = 0; i < N_ELEMENTS(other); i++)
		ok(netpolicy_this_host(other[i], none, 2) == NULL,
		    "not this host: '%s'", other[i]);
	is_str(netpolicy_this_host("build", own, 2), "this host's own address",
	    "the host's name, in any case");
	is_str(netpolicy_this_host("build.example.org", own, 2),
	    "this host's own address", "its FQDN, without the final dot");
	for (size_t i = 6; i < N_ELEMENTS(other); i++)
		if (strcmp(other[i], "build") != 0)
			ok(netpolicy_this_host(other[i], own, 2) == NULL,
			    "not the host's name: '%s'", other[i]);
	ok(netpolicy_this_host("build", own, 0) == NULL,
	    "no names: nothing is the host's");
}

/* The loopback addresses served inside on their own address and port:
 * one address with a port, allowed and not denied, each once. */
static void
test_forwards(void)
{
	static const char *const allow[] = { "127.0.0.1:8080", "127.0.0.1:8080",
		"[::1]:9000", "127.0.0.2:7000", "127.0.0.1", "127.0.0.0/8:5000",
		"[::1]", "10.0.0.1:80", "127.0.0.1:6000", "example.org:8080",
		"127.0.0.1:80", "[::1]:1023", NULL };
	static const char *const deny[] = { "127.0.0.1:6000", NULL };
	static const unsigned char lo4[16] = { 127, 0, 0, 1 };
	static const unsigned char lo6[16] = { [15] = 1 };
	struct netpolicy np = list(allow, deny);
	struct np_forward f[NETPOLICY_MAX_FORWARDS];
	size_t n = netpolicy_forwards(&np, f, N_ELEMENTS(f));

	ok(n == 3,
	    "three forwards (the same entry twice is one; no network, no portless entry, no other address, no denied port, no port below 1024): %zu",
	    n);
	ok(n == netpolicy_forwards(&np, NULL, 0), "counted without room");
	ok(n >= 3 && f[0].family == AF_INET && f[0].port == 8080 &&
		memcmp(f[0].addr, lo4, 4) == 0,
	    "127.0.0.1:8080 first");
	ok(n >= 3 && f[1].family == AF_INET6 && f[1].port == 9000 &&
		memcmp(f[1].addr, lo6, 16) == 0,
	    "[::1]:9000");
	ok(n >= 3 && f[2].family == AF_INET && f[2].port == 7000 &&
		f[2].addr[3] == 2,
	    "127.0.0.2:7000");
	ok(netpolicy_forwarded(&np, AF_INET, lo4, 8080), "8080 forwarded");
	ok(!netpolicy_forwarded(&np, AF_INET, lo4, 6000),
	    "a denied port is not");
	ok(!netpolicy_forwarded(&np, AF_INET, lo4, 5000),
	    "a network's port is not");
	ok(!netpolicy_forwarded(&np, AF_INET6, lo6, 8080),
	    "another family's address is not");
	ok(!netpolicy_forwarded(&np, AF_INET, lo4, 80),
	    "a port below 1024 is not: nothing inside may listen there");
	/* The portless and network entries still send the loopback to the
	 * proxy. */
	ok(netpolicy_allows_loopback(&np, AF_INET), "127.0.0.1 by the proxy");
	ok(netpolicy_allows_loopback(&np, AF_INET6), "::1 by the proxy");
	netpolicy_free(&np);
}

/* Only forwarded entries: the loopback stays the sandbox's for NO_PROXY. */
static void
test_forwards_only(void)
{
	static const char *const allow[] = { "127.0.0.1:8080", "[::1]:9000",
		NULL };
	static const char *const none[] = { NULL };
	struct netpolicy np = list(allow, none);

	ok(!netpolicy_allows_loopback(&np, AF_INET),
	    "127.0.0.1:8080 is served inside, not by the proxy");
	ok(!netpolicy_allows_loopback(&np, AF_INET6),
	    "[::1]:9000 is served inside, not by the proxy");
	netpolicy_free(&np);
}

int
main(void)
{
	test_forwards();
	test_forwards_only();
	test_this_host();
	test_suggestions();
	test_bad_patterns();
	test_good_patterns();
	test_names();
	test_addresses();
	test_embedded();
	test_registry();
	test_host();
	test_limits();
	return tap_done();
}
