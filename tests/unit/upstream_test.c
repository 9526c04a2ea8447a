/* Unit tests of upstream.c: the upstream proxy's URL, credentials and
 * NO_PROXY list (sbox-exec(1), --upstream-proxy, NETWORK BY NAME). */
#include <stdlib.h>

#include "tap.h"
#include "upstream.h"

/* Whether URL parses (with USERINFO allowed or not) to HOST, PORT and
 * AUTH (NULL: none). */
static bool
parses(const char *url, bool userinfo, const char *host, int port,
    const char *auth)
{
	struct upstream u;
	bool same;

	if (upstream_parse(url, userinfo, &u) != NULL)
		return false;
	same = strcmp(u.host, host) == 0 && u.port == port &&
	    (auth == NULL ? u.auth == NULL :
			    u.auth != NULL && strcmp(u.auth, auth) == 0);
	upstream_free(&u);
	return same;
}

/* The reason URL is refused, or "" when it is not. */
static const char *
refusal(const char *url, bool userinfo)
{
	struct upstream u;
	const char *why = upstream_parse(url, userinfo, &u);

	if (why == NULL) {
		upstream_free(&u);
		return "";
	}
	return why;
}

static void
test_parse(void)
{
	ok(parses("http://proxy.corp:3128", false, "proxy.corp", 3128, NULL),
	    "http://host:port");
	ok(parses("HTTP://proxy.corp:3128/", false, "proxy.corp", 3128, NULL),
	    "the scheme in capitals, a final slash");
	ok(parses("proxy.corp:8080", false, "proxy.corp", 8080, NULL),
	    "no scheme: http");
	ok(parses("http://10.0.0.1", false, "10.0.0.1", 80, NULL),
	    "no port: 80");
	ok(parses("http://[::1]:3128", false, "::1", 3128, NULL),
	    "an IPv6 address in brackets");
	ok(parses("http://alice:s3cr%25et@proxy:3128", true, "proxy", 3128,
	       "Basic YWxpY2U6czNjciVldA=="),
	    "credentials from the environment, percent-decoded, Basic");
	ok(parses("http://a:b@p:1", true, "p", 1, "Basic YTpi"),
	    "base64 with padding");
	ok(strstr(refusal("http://alice:s3cr3t@proxy:3128", false),
	       "--upstream-proxy-auth-file") != NULL,
	    "credentials on the command line: refused, naming the file option");
	ok(strstr(refusal("http://alice:s3cr3t@proxy:3128", false), "s3cr3t") ==
		NULL,
	    "the refusal does not quote the password");
	ok(strstr(refusal("https://proxy:3128", false), "TLS") != NULL,
	    "https:// refused, saying why");
	ok(*refusal("socks5://proxy:1080", false) != '\0', "another scheme");
	ok(*refusal("http://proxy:0", false) != '\0', "port 0");
	ok(*refusal("http://proxy:65536", false) != '\0', "port 65536");
	ok(*refusal("http://proxy:3128/path", false) != '\0', "a path");
	ok(*refusal("http://proxy:3128?q", false) != '\0', "a query");
	ok(*refusal("http://pro xy:3128", false) != '\0', "a blank");
	ok(*refusal("http://", false) != '\0', "no host");
	ok(*refusal("", false) != '\0', "empty");
	ok(*refusal("http://[::1:3128", false) != '\0', "'[' without ']'");
	ok(*refusal("http://alice@proxy", true) != '\0',
	    "a user without a password");
	ok(*refusal("http://a:%zz@proxy", true) != '\0', "a bad escape");
	ok(*refusal("http://a:%0a@proxy", true) != '\0',
	    "a control character in the credentials");
}

static void
test_userpass(void)
{
	char *auth = NULL;

	ok(upstream_userpass("alice:pw\n", &auth) == NULL && auth != NULL &&
		strcmp(auth, "Basic YWxpY2U6cHc=") == 0,
	    "a file's line, the newline dropped");
	free(auth);
	auth = NULL;
	ok(upstream_userpass("alice:pw", &auth) == NULL && auth != NULL,
	    "without a final newline");
	free(auth);
	auth = NULL;
	ok(upstream_userpass("alice:pw\nmore\n", &auth) != NULL && auth == NULL,
	    "a second line: refused");
	ok(upstream_userpass("alicepw\n", &auth) != NULL, "no colon");
	ok(upstream_userpass("\n", &auth) != NULL, "empty");
	ok(upstream_userpass("a:\tb\x01", &auth) != NULL,
	    "a control character");
}

static void
test_bypass(void)
{
	ok(upstream_bypass("*", "anything.example"), "*");
	ok(upstream_bypass("example.com", "example.com"), "the name");
	ok(upstream_bypass("example.com", "a.b.example.com"),
	    "a name below it");
	ok(!upstream_bypass("example.com", "badexample.com"),
	    "not a name that merely ends the same");
	ok(upstream_bypass(".example.com", "example.com") &&
		upstream_bypass("*.example.com", "www.example.com"),
	    "a leading dot or *.");
	ok(upstream_bypass("other, Example.COM:443", "example.com"),
	    "a list, case, a port ignored");
	ok(upstream_bypass("a b\texample.com", "example.com"),
	    "blanks separate too");
	ok(upstream_bypass("10.0.0.0/8", "10.1.2.3") &&
		!upstream_bypass("10.0.0.0/8", "11.1.2.3"),
	    "a network covers addresses");
	ok(!upstream_bypass("10.0.0.0/8", "ten.example"),
	    "a network never covers a name");
	ok(upstream_bypass("[::1]", "::1") && upstream_bypass("::1", "::1"),
	    "an IPv6 address, with or without brackets");
	ok(upstream_bypass("192.168.1.5", "192.168.1.5"), "an address");
	ok(!upstream_bypass("", "example.com") &&
		!upstream_bypass(",,", "example.com") &&
		!upstream_bypass(NULL, "example.com"),
	    "an empty list covers nothing");
}

int
main(void)
{
	test_parse();
	test_userpass();
	test_bypass();
	return tap_done();
}
