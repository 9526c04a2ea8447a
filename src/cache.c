/*
 * cache.c - sandbox-private caches: the key of a project, and the one
 * place sbox-exec creates anything on the host.
 *
 * A cache directory is CACHE_HOME/sbox-exec/KEY/NAME, where CACHE_HOME is
 * $XDG_CACHE_HOME (the user's setting, taken as it is) or ~/.cache.  Every
 * component from ~/.cache on is created with mode 0700 and opened without
 * following a symlink, and must belong to the user: an earlier sandboxed
 * run, or anyone else, cannot redirect the creation with a planted link.
 *
 * MUST NOT print or exit.  cache_sha256() and the key are pure.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "util.h"

static const uint32_t sha256_k[64] = {
	0x428a2f98,
	0x71374491,
	0xb5c0fbcf,
	0xe9b5dba5,
	0x3956c25b,
	0x59f111f1,
	0x923f82a4,
	0xab1c5ed5,
	0xd807aa98,
	0x12835b01,
	0x243185be,
	0x550c7dc3,
	0x72be5d74,
	0x80deb1fe,
	0x9bdc06a7,
	0xc19bf174,
	0xe49b69c1,
	0xefbe4786,
	0x0fc19dc6,
	0x240ca1cc,
	0x2de92c6f,
	0x4a7484aa,
	0x5cb0a9dc,
	0x76f988da,
	0x983e5152,
	0xa831c66d,
	0xb00327c8,
	0xbf597fc7,
	0xc6e00bf3,
	0xd5a79147,
	0x06ca6351,
	0x14292967,
	0x27b70a85,
	0x2e1b2138,
	0x4d2c6dfc,
	0x53380d13,
	0x650a7354,
	0x766a0abb,
	0x81c2c92e,
	0x92722c85,
	0xa2bfe8a1,
	0xa81a664b,
	0xc24b8b70,
	0xc76c51a3,
	0xd192e819,
	0xd6990624,
	0xf40e3585,
	0x106aa070,
	0x19a4c116,
	0x1e376c08,
	0x2748774c,
	0x34b0bcb5,
	0x391c0cb3,
	0x4ed8aa4a,
	0x5b9cca4f,
	0x682e6ff3,
	0x748f82ee,
	0x78a5636f,
	0x84c87814,
	0x8cc70208,
	0x90befffa,
	0xa4506ceb,
	0xbef9a3f7,
	0xc67178f2,
};

static uint32_t
ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

/* One 64-byte block into the state H (FIPS 180-4, 6.2.2). */
static void
sha256_block(uint32_t h[8], const uint8_t *b)
{
	uint32_t w[64], v[8];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
		    (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^
		    (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^
		    (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, h, sizeof(v));
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = v[7] +
		    (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
		    ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha256_k[i] + w[i];
		uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
		    ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

/* SHA-256 of the LEN bytes at DATA into OUT. */
void
cache_sha256(const void *data, size_t len, uint8_t out[CACHE_SHA256_LEN])
{
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	const uint8_t *p = data;
	uint8_t tail[128] = { 0 };
	size_t rest = len % 64, ntail = rest < 56 ? 64 : 128;
	uint64_t bits = (uint64_t)len * 8;

	for (size_t i = 0; i + 64 <= len; i += 64)
		sha256_block(h, p + i);
	if (rest > 0)
		memcpy(tail, p + len - rest, rest);
	tail[rest] = 0x80;
	for (int i = 0; i < 8; i++)
		tail[ntail - 1 - i] = (uint8_t)(bits >> (8 * i));
	sha256_block(h, tail);
	if (ntail == 128)
		sha256_block(h, tail + 64);
	for (int i = 0; i < 32; i++)
		out[i] = (uint8_t)(h[i / 4] >> (24 - 8 * (i % 4)));
}

static const char name_chars
    [] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";

/* A cache's name: one path component of letters, digits, '.', '_', '-',
 * not starting with '.'. */
bool
cache_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64 || name[0] == '.')
		return false;
	return strspn(name, name_chars) == n;
}

/*
 * The directory a project's caches live in, below CACHE_HOME/sbox-exec:
 * the project directory's name, made safe and short, for the reader, and
 * the first 16 bytes of the SHA-256 of its real path, which keeps apart
 * projects of the same name.  Pure.
 */
char *
cache_project_key(const char *project_real)
{
	const char *base = strrchr(project_real, '/');
	uint8_t d[CACHE_SHA256_LEN];
	cleanup_buf struct buf b = { 0 };

	base = base != NULL && base[1] != '\0' ? base + 1 : "root";
	for (size_t i = 0; i < 32 && base[i] != '\0'; i++)
		buf_addc(&b,
		    strchr(name_chars, base[i]) != NULL ? base[i] : '_');
	buf_addc(&b, '-');
	cache_sha256(project_real, strlen(project_real), d);
	for (size_t i = 0; i < 16; i++)
		buf_addf(&b, "%02x", d[i]);
	return buf_steal(&b);
}

/*
 * Where the caches of the project KEY live: CACHE_HOME/sbox-exec/KEY,
 * CACHE_HOME being XDG_CACHE_HOME when it is absolute and HOME/.cache
 * otherwise.  NULL when neither is absolute.  Pure.
 */
char *
cache_root(const char *xdg, const char *home, const char *key)
{
	if (xdg != NULL && xdg[0] == '/')
		return xasprintf("%s/sbox-exec/%s", xdg, key);
	if (home != NULL && home[0] == '/')
		return xasprintf("%s/.cache/sbox-exec/%s", home, key);
	return NULL;
}

/*
 * COMP in the directory DIRFD, created with mode 0700 when missing and
 * opened without following a symlink; it must be a directory of the user.
 * PRIVATE: sbox-exec's own, made 0700 when it is not.  -1 with errno set.
 */
static int
step(int dirfd, const char *comp, bool private)
{
	cleanup_fd int fd = -1;
	struct stat st;

	if (mkdirat(dirfd, comp, 0700) < 0 && errno != EEXIST)
		return -1;
	fd = openat(dirfd, comp,
	    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		return -1;
	if (st.st_uid != geteuid()) {
		errno = EPERM;
		return -1;
	}
	if (private && (st.st_mode & 077) != 0 && fchmod(fd, 0700) < 0)
		return -1;
	return steal_fd(&fd);
}

/*
 * Create (or open) the cache NAME of the project KEY; *PATH: its real
 * path, to be bound.  XDG and HOME as in cache_root().  0, or -1 with
 * *ERR saying why, worded for the user.
 */
int
cache_create(const char *xdg, const char *home, const char *key,
    const char *name, char **path, char **err)
{
	bool in_home = !(xdg != NULL && xdg[0] == '/');
	const char *anchor = in_home ? home : xdg;
	const char *comps[] = { ".cache", "sbox-exec", key, name };
	cleanup_free char *real = NULL;
	cleanup_buf struct buf b = { 0 };
	int fd;

	*path = NULL;
	*err = NULL;
	if (anchor == NULL || anchor[0] != '/') {
		*err = xasprintf(
		    "--cache=%s: neither XDG_CACHE_HOME nor HOME is an absolute path",
		    name);
		return -1;
	}
	/* The user's own setting: followed as it is. */
	real = util_realpath(anchor);
	fd = real == NULL ? -1 : util_open(real, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0) {
		*err = xasprintf("--cache=%s: %s: %s", name, anchor,
		    strerror(errno));
		return -1;
	}
	buf_adds(&b, strcmp(real, "/") == 0 ? "" : real);
	for (size_t i = in_home ? 0 : 1; i < N_ELEMENTS(comps); i++) {
		int next = step(fd, comps[i], i > 0);
		int saved = errno;

		close(fd);
		buf_addf(&b, "/%s", comps[i]);
		if (next < 0) {
			*err = saved == ELOOP || saved == ENOTDIR ?
			    xasprintf(
				"--cache=%s: %s is a symlink or not a directory; sbox-exec creates caches only through directories of the user's own",
				name, b.s) :
			    xasprintf("--cache=%s: %s: %s", name, b.s,
				saved == EPERM ? "belongs to another user" :
						 strerror(saved));
			return -1;
		}
		fd = next;
	}
	close(fd);
	*path = buf_steal(&b);
	return 0;
}
