/*
 * cli.h - the command line, parsed into an invocation.
 *
 * cli_parse() is pure: it reads argv and nothing else.  What the options
 * mean on this host (paths, policy files, the working directory, host
 * protection) is worked out afterwards by resolve_invocation() in
 * resolve.h.  Neither exits nor prints: the first problem is kept in
 * inv->err and the rest is still read, so that every status channel the
 * caller gave correctly learns about the refusal.
 */
#ifndef SBOX_CLI_H
#define SBOX_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "bounds.h"
#include "options.h"
#include "policy.h"
#include "sbox.h"
#include "upstream.h"
#include "util.h"

enum cli_mode {
	MODE_RUN,
	MODE_CHECK,
	MODE_PRINT,
	MODE_HELP,
	MODE_VERSION,
};

/* How much sbox-exec says on stderr (ordered: compare with < and >). */
enum verbosity {
	VERBOSITY_QUIET = -1,
	VERBOSITY_NORMAL = 0,
	VERBOSITY_VERBOSE = 1,
};

/* An option of the command line that shapes the sandbox, kept in order
 * for resolve_invocation(); the strings point into argv. */
struct cli_request {
	enum opt_id id;
	const char *value;
	const char *value2; /* --setenv's VALUE */
};

struct invocation {
	enum cli_mode mode;
	struct policy policy; /* by resolve_invocation() */
	char *bwrap;	      /* --bwrap or SBOX_EXEC_BWRAP */
	bool bwrap_from_env;  /* bwrap is SBOX_EXEC_BWRAP's */
	int *status_fds;
	size_t nstatus_fds, status_fds_cap;
	int log_fd;	       /* --log-fd, or -1 */
	char **status_sockets; /* as given: "@name" or a path */
	size_t nstatus_sockets, status_sockets_cap;
	long probe_timeout_ms;
	bool probe_timeout_given;
	long long timeout_ms;	 /* --timeout; 0: none */
	long long kill_after_ms; /* --kill-after, or its default */
	bool kill_after_given;
	long long net_idle_ms; /* --net-idle-timeout, or its default */
	char *upstream_proxy;  /* --upstream-proxy as given ("none"), or NULL */
	char *upstream_auth_file;      /* --upstream-proxy-auth-file, or NULL */
	struct upstream_conf upstream; /* in effect, by resolve_invocation() */
	const char *upstream_from;     /* where it came from, for -v */
	struct bounds bounds;	       /* --limit, over the defaults */
	bool json;
	bool allow_setuid_files; /* as root, --rw over setuid files */
	bool tty_unfiltered;	 /* output to a terminal not filtered */
	char *project;		 /* --project as given, or NULL */
	char *project_real;	 /* its real path, by resolve_invocation() */
	char *cache_root;	/* ${CACHE}, by resolve_invocation(), or NULL */
	char *learn;		/* --learn's file, or NULL */
	bool denials;		/* --watch, --learn: watch writes (DENIALS) */
	struct strv cred_masks; /* the credential list's paths, expanded */
	struct strv notices;	/* said with -v and --check */
	struct strv warnings;	/* said unless -q */
	enum verbosity verbosity;
	char **command;	   /* points into argv; NULL-terminated */
	struct strv again; /* the option words a summary repeats (DENIALS) */
	struct strv given; /* every option given with a value: --NAME=VALUE */
	struct cli_request *requests; /* in the order given */
	size_t nrequests, requests_cap;
	struct sbox_error err; /* the first problem */
};

#define CLI_DEFAULT_TIMEOUT_MS 10000L
/* Past this many mounts the default probe timeout grows with the square
 * of their number, as bwrap's setup time does (sbox-exec(1), Policy
 * size): N mounts add N^2 / CLI_MOUNTS_SQ_PER_MS ms. */
#define CLI_MANY_MOUNTS 500
#define CLI_MOUNTS_SQ_PER_MS 250
#define CLI_DEFAULT_NET_IDLE_MS 300000LL /* 5 minutes */

int cli_parse(struct invocation *, int, char **);
void cli_fail(struct invocation *, const char *, unsigned long, const char *,
    ...) SBOX_PRINTF(4, 5);
void cli_free(struct invocation *);
void cli_help(FILE *);

#endif
