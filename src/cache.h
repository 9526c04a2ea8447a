/*
 * cache.h - sandbox-private cache directories (sbox-exec(1), --cache).
 *
 * A cache belongs to sbox-exec and to one project: it lives in
 * CACHE_BASE/sbox-exec/KEY/NAME, where KEY is the project's directory
 * name and a digest of its real path, so that the code of one project
 * cannot leave something in a cache another project's tools read, and
 * nothing an unsandboxed tool reads is ever a sandbox's to write.
 */
#ifndef SBOX_CACHE_H
#define SBOX_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CACHE_SHA256_LEN 32

void cache_sha256(const void *, size_t, uint8_t[CACHE_SHA256_LEN]);
bool cache_name_ok(const char *);
char *cache_project_key(const char *);
char *cache_root(const char *, const char *, const char *);
int cache_create(const char *, const char *, const char *, const char *,
    char **, char **);

#endif
