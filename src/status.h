/*
 * status.h - the one-line JSON status and the channels that carry it.
 *
 * The same bytes go to every channel: a descriptor the caller named, and
 * datagram sockets (abstract or pathname) sent with the sender's
 * credentials attached.
 */
#ifndef SBOX_STATUS_H
#define SBOX_STATUS_H

#include <stdbool.h>
#include <sys/types.h>

#include "sbox.h"

#define STATUS_MAX 4096	    /* bytes, newline included */
#define STATUS_WAIT_MS 2000 /* a channel with no room is given up */

struct status_report {
	enum sbox_status status;
	const char *bwrap;   /* NULL when none was found */
	pid_t pid;	     /* success only */
	const char *command; /* success: the file the command is, or NULL */
	const char *detail;
	const char *hint;
	const char *abstract_unix;  /* "blocked"/"reachable", or NULL */
	const char *abstract_names; /* "private"/"shared", or NULL */
	const char *net;	    /* "none"/"host"/"allow-list", or NULL */
	const char *nested_userns;  /* "blocked"/"allowed", or NULL */
	const char *landlock;	    /* "abi-N"/"none", or NULL */
	const char *seccomp;	    /* "filter"/"none", or NULL */
	const char *bwrap_source;   /* "flag"/"env"/"path"/"bundled", or NULL */
	const char *limits;	    /* a JSON object (bounds.h), or NULL */
};

struct buf;

char *status_render(const struct status_report *);
void status_json_string(struct buf *, const char *, size_t);
int status_socket_open(const char *, int *, struct sbox_error *);
int status_send_socket(int, const char *);
int status_write_fd(int, const char *);
int status_write_fd_within(int, const char *, long);

#endif
