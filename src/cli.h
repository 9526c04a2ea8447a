/*
 * cli.h - the command line and policy files, parsed into an invocation.
 *
 * Parsing never exits and never prints: the first problem is kept in
 * inv->err and parsing goes on, so that every status channel the caller
 * gave correctly still learns about the refusal.
 */
#ifndef SBOX_CLI_H
#define SBOX_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "policy.h"
#include "sbox.h"
#include "util.h"

enum cli_mode {
	MODE_RUN,
	MODE_CHECK,
	MODE_PRINT,
	MODE_HELP,
	MODE_VERSION,
};

struct invocation {
	enum cli_mode mode;
	struct policy policy;
	char *bwrap; /* --bwrap or SBOX_EXEC_BWRAP */
	int *status_fds;
	size_t nstatus_fds;
	char **status_sockets; /* as given: "@name" or a path */
	size_t nstatus_sockets;
	long probe_timeout_ms;
	bool json;
	bool allow_setuid_files; /* as root, --rw over setuid files */
	struct strv notices;	 /* said with -v and --check */
	int verbosity;		 /* -1 quiet, 0 normal, 1 verbose */
	char **command;		 /* points into argv; NULL-terminated */
	struct sbox_error err;	 /* the first usage problem */
};

#define CLI_DEFAULT_TIMEOUT_MS 10000L

int cli_parse(struct invocation *, int, char **);
void cli_free(struct invocation *);
void cli_help(FILE *);

#endif
