/*
 * scan.h - bounded walks of host directories at launch: unix sockets to
 * mask, setuid and setgid files in a writable grant.
 */
#ifndef SBOX_SCAN_H
#define SBOX_SCAN_H

#include <stdbool.h>
#include <stddef.h>

/* How deep and how wide a socket scan may go before it gives up. */
#define SCAN_SOCKET_DEPTH 8
#define SCAN_SOCKET_ENTRIES 20000
#define SCAN_SOCKET_FOUND 256 /* masks: each is a mount */
/* How many entries, and how deep, a setuid walk may look. */
#define SCAN_SETUID_ENTRIES 2000000
#define SCAN_SETUID_DEPTH 256

enum scan_result {
	SCAN_DONE,  /* every entry seen */
	SCAN_BOUND, /* a bound was reached: the caller masks the whole root */
};

struct scan_sockets_cb {
	/* A directory not to enter (already masked, or kept). */
	bool (*skip)(void *, const char *);
	/*
	 * A socket in the root, a directory below it that holds one, or a
	 * directory that can be entered but not listed.
	 */
	void (*found)(void *, const char *);
	void *ctx;
};

enum scan_result scan_sockets(const char *, const struct scan_sockets_cb *);
int scan_setuid(const char *, char **);

#endif
