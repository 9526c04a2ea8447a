/*
 * Unit tests of cache.c's pure part: SHA-256 against the published
 * examples, the project key, the cache names --cache accepts.
 */
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "util.h"
#include "tap.h"

static char *
hex(const char *s, size_t len)
{
	uint8_t d[CACHE_SHA256_LEN];
	char *out = xmalloc(2 * CACHE_SHA256_LEN + 1);

	cache_sha256(s, len, d);
	for (size_t i = 0; i < CACHE_SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
	return out;
}

static void
test_sha256(void)
{
	static const char two_blocks
	    [] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	cleanup_free char *a = hex("abc", 3), *e = hex("", 0);
	cleanup_free char *b = hex(two_blocks, strlen(two_blocks));
	cleanup_free char *m = NULL;
	char *million = xmalloc(1000000);

	is_str(a,
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	    "sha256: 'abc'");
	is_str(e,
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	    "sha256: empty");
	is_str(b,
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	    "sha256: 56 bytes, padding in a second block");
	memset(million, 'a', 1000000);
	m = hex(million, 1000000);
	free(million);
	is_str(m,
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	    "sha256: a million 'a'");
}

int
main(void)
{
	cleanup_free char *k1 = cache_project_key("/home/u/src/proj");
	cleanup_free char *k2 = cache_project_key("/home/v/src/proj");
	cleanup_free char *k3 = cache_project_key("/srv/we ird:name");
	cleanup_free char *k4 = cache_project_key("/");
	cleanup_free char *r1 = cache_root("/x/cache", "/home/u", "k");
	cleanup_free char *r2 = cache_root("relative", "/home/u", "k");
	cleanup_free char *r3 = cache_root(NULL, "relative", "k");

	test_sha256();
	ok(strncmp(k1, "proj-", 5) == 0 && strlen(k1) == 5 + 32,
	    "key: the directory's name, a dash, 128 bits in hex");
	ok(strcmp(k1, k2) != 0, "key: same name, other path, other key");
	ok(strncmp(k3, "we_ird_name-", 12) == 0,
	    "key: characters outside a cache name become '_'");
	ok(strncmp(k4, "root-", 5) == 0, "key: / is 'root'");
	is_str(r1, "/x/cache/sbox-exec/k", "root: XDG_CACHE_HOME");
	is_str(r2, "/home/u/.cache/sbox-exec/k",
	    "root: a relative XDG_CACHE_HOME is ignored");
	ok(r3 == NULL, "root: no absolute base, no root");
	ok(cache_name_ok("go-build") && cache_name_ok("a.b_c"),
	    "name: letters, digits, '.', '_', '-'");
	ok(!cache_name_ok("") && !cache_name_ok(".") && !cache_name_ok("..") &&
		!cache_name_ok("a/b") && !cache_name_ok(".hidden") &&
		!cache_name_ok("a b"),
	    "name: empty, dots, slashes, blanks refused");
	return tap_done();
}
