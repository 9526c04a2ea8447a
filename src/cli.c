/*
 * cli.c - getopt_long over argv into a struct invocation.
 *
 * Pure: MUST NOT look at the host (no files, no environment, no
 * descriptors); resolve.c does that.  Options of the launcher itself (the
 * SCOPE_ARGV ones of options.h) take effect here; the rest are kept in
 * order as requests, since policy files, read later, come before them.
 * MUST NOT exit or print: the first problem is recorded and parsing goes
 * on, so that the status channels are still known.
 */
#include "config.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util.h"

/* Record the first problem only; later ones are usually its echoes.  FILE
 * and LINE say where an option of a policy file came from (FILE NULL: the
 * command line). */
void
cli_fail(struct invocation *inv, const char *file, unsigned long line,
    const char *fmt, ...)
{
	cleanup_free char *msg = NULL;
	va_list ap;

	if (inv->err.detail != NULL)
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (file != NULL)
		sbox_error_set(&inv->err, SBOX_INVALID_POLICY, "%s:%lu: %s",
		    file, line, msg);
	else
		sbox_error_set(&inv->err, SBOX_INVALID_POLICY, "%s", msg);
}

/* A launcher option's value, the last one given winning. */
static void
set_string(char **to, const char *value)
{
	free(*to);
	*to = xstrdup(value);
}

/* Where the string option ID of the launcher is kept. */
static char **
launcher_string(struct invocation *inv, enum opt_id id)
{
	if (id == OPT_UPSTREAM_PROXY)
		return &inv->upstream_proxy;
	if (id == OPT_UPSTREAM_PROXY_AUTH_FILE)
		return &inv->upstream_auth_file;
	if (id == OPT_BWRAP)
		return &inv->bwrap;
	return &inv->project;
}

static void
set_mode(struct invocation *inv, enum cli_mode mode)
{
	/*
	 * --help and --version act where they stand, as in GNU tools: a
	 * usage error before them is reported, nothing after them counts.
	 */
	if (inv->mode == MODE_HELP || inv->mode == MODE_VERSION)
		return;
	if (mode == MODE_HELP || mode == MODE_VERSION) {
		if (inv->err.detail == NULL)
			inv->mode = mode;
		return;
	}
	if (inv->mode != MODE_RUN && inv->mode != mode) {
		cli_fail(inv, NULL, 0,
		    "--check and --print cannot be combined");
		return;
	}
	inv->mode = mode;
}

static void
add_status_fd(struct invocation *inv, const char *value)
{
	int fd;

	if (util_parse_fd(value, &fd) < 0)
		return; /* options_check_value() said so */
	for (size_t i = 0; i < inv->nstatus_fds; i++)
		if (inv->status_fds[i] == fd)
			return;
	inv->status_fds = util_grow(inv->status_fds, inv->nstatus_fds,
	    &inv->status_fds_cap, sizeof(*inv->status_fds));
	inv->status_fds[inv->nstatus_fds++] = fd;
}

/* --learn=FILE, which implies --watch (DENIALS), whatever else says. */
static void
apply_learn(struct invocation *inv, const char *value)
{
	inv->denials = true;
	free(inv->learn);
	inv->learn = xstrdup(value);
}

static void
add_status_socket(struct invocation *inv, const char *value)
{
	inv->status_sockets = util_grow(inv->status_sockets,
	    inv->nstatus_sockets, &inv->status_sockets_cap,
	    sizeof(*inv->status_sockets));
	inv->status_sockets[inv->nstatus_sockets++] = xstrdup(value);
}

/* An option of the launcher itself: argv only, so in effect at once. */
static void
apply_launcher_option(struct invocation *inv, enum opt_id id, const char *value)
{
	switch (id) {
	case OPT_STATUS_FD:
		add_status_fd(inv, value);
		break;
	case OPT_LOG_FD:
		(void)util_parse_fd(value, &inv->log_fd);
		break;
	case OPT_STATUS_SOCKET:
		add_status_socket(inv, value);
		break;
	case OPT_JSON:
		inv->json = true;
		break;
	case OPT_CHECK:
		set_mode(inv, MODE_CHECK);
		break;
	case OPT_PRINT:
		set_mode(inv, MODE_PRINT);
		break;
	case OPT_ALLOW_SETUID_FILES:
		inv->allow_setuid_files = true;
		break;
	case OPT_TTY_UNFILTERED:
		inv->tty_unfiltered = true;
		break;
	case OPT_QUIET:
		inv->verbosity = VERBOSITY_QUIET;
		break;
	case OPT_VERBOSE:
		inv->verbosity = VERBOSITY_VERBOSE;
		break;
	case OPT_HELP:
		set_mode(inv, MODE_HELP);
		break;
	case OPT_VERSION:
		set_mode(inv, MODE_VERSION);
		break;
	case OPT_BWRAP:
	case OPT_PROJECT:
	case OPT_UPSTREAM_PROXY:
	case OPT_UPSTREAM_PROXY_AUTH_FILE:
		set_string(launcher_string(inv, id), value);
		break;
	case OPT_LEARN:
		apply_learn(inv, value);
		break;
	case OPT_NONE:
	case OPT_FS:
	case OPT_RW:
	case OPT_RO:
	case OPT_HIDE:
	case OPT_RO_TRY:
	case OPT_RW_TRY:
	case OPT_RW_CREATE:
	case OPT_RW_CREATE_TRY:
	case OPT_ALLOW_SOCKET:
	case OPT_CACHE:
	case OPT_NO_NET:
	case OPT_NET:
	case OPT_ALLOW_HOST:
	case OPT_DENY_HOST:
	case OPT_CHDIR:
	case OPT_SETENV:
	case OPT_UNSETENV:
	case OPT_CLEARENV:
	case OPT_KEEP_FD:
	case OPT_TTY:
	case OPT_LSP:
	case OPT_WATCH:
	case OPT_NO_WATCH:
	case OPT_PROBE_TIMEOUT:
	case OPT_POLICY:
	case OPT_PROFILE:
	case OPT_TIMEOUT:
	case OPT_KILL_AFTER:
	case OPT_NET_IDLE_TIMEOUT:
	case OPT_LIMIT:
	case OPT_END:
		break; /* they shape the sandbox: resolve.c applies them */
	}
}

static void
add_request(struct invocation *inv, enum opt_id id, const char *value,
    const char *value2)
{
	inv->requests = util_grow(inv->requests, inv->nrequests,
	    &inv->requests_cap, sizeof(*inv->requests));
	inv->requests[inv->nrequests++] = (struct cli_request){ id, value,
		value2 };
}

/* getopt's '?': which word was wrong, and how. */
static void
unknown_option(struct invocation *inv, const char *bad)
{
	/* getopt sets optopt to a long option's value when it was given
	 * one ("--quiet=1"); a short option unknown inside a cluster leaves
	 * BAD at the word before it. */
	if (optopt > OPT_NONE ||
	    (optopt != 0 && strncmp(bad, "--", 2) == 0 &&
		strchr(bad, '=') != NULL))
		cli_fail(inv, NULL, 0, "option '%s' takes no value", bad);
	else if (optopt != 0)
		cli_fail(inv, NULL, 0, "unknown option '-%c'", optopt);
	else if (options_suggest(bad) != NULL)
		cli_fail(inv, NULL, 0,
		    "unknown option '%s'; did you mean '--%s'?", bad,
		    options_suggest(bad));
	else
		cli_fail(inv, NULL, 0, "unknown option '%s'", bad);
}

/* What no single option can tell: the mode and the command together. */
static void
check_combinations(struct invocation *inv)
{
	switch (inv->mode) {
	case MODE_RUN:
		if (inv->command[0] == NULL)
			cli_fail(inv, NULL, 0, "no command given (see --help)");
		if (inv->json)
			cli_fail(inv, NULL, 0, "--json goes with --check");
		break;
	case MODE_CHECK:
		if (inv->command[0] != NULL)
			cli_fail(inv, NULL, 0,
			    "--check takes no command, got '%s'",
			    inv->command[0]);
		break;
	case MODE_PRINT:
		if (inv->command[0] == NULL)
			cli_fail(inv, NULL, 0, "--print needs a command");
		if (inv->json)
			cli_fail(inv, NULL, 0, "--json goes with --check");
		break;
	case MODE_HELP:
	case MODE_VERSION:
		break;
	}
}

/* One option getopt found (C) with its value(s): checked, then in effect
 * or kept for resolve_invocation(). */
static void
take_option(struct invocation *inv, int c, const char *bad, const char *value,
    const char *value2)
{
	enum opt_id id = options_from_getopt(c);
	cleanup_free char *wrong = NULL;

	if (c == '?')
		unknown_option(inv, bad);
	else if (c == ':')
		cli_fail(inv, NULL, 0, "option '%s' needs a value", bad);
	else if (value != NULL &&
	    (wrong = options_check_value(id, value)) != NULL)
		cli_fail(inv, NULL, 0, "%s", wrong);
	else if (options_scope(id) == SCOPE_ARGV)
		apply_launcher_option(inv, id, value);
	else
		add_request(inv, id, value, value2);
}

/*
 * Whether option ID only runs the launcher (watching, learning, status
 * channels, what is printed), so that a command line said again for the
 * user leaves it out (DENIALS in sbox-exec(1)).  None has a letter: each
 * is a word, or two, of its own.
 */
static bool
launcher_only(enum opt_id id)
{
	static const enum opt_id ids[] = { OPT_WATCH, OPT_NO_WATCH, OPT_LEARN,
		OPT_STATUS_FD, OPT_STATUS_SOCKET, OPT_LOG_FD, OPT_JSON,
		OPT_CHECK, OPT_PRINT };

	for (size_t i = 0; i < N_ELEMENTS(ids); i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * What a summary repeats of one option getopt found (C, with VALUE and
 * VALUE2): the words ARGV[FROM] to ARGV[TO] it ended, unless C only runs
 * the launcher, into inv->again; its value into inv->given.
 */
static void
keep_words(struct invocation *inv, int c, char **argv, int from, int to,
    const char *value, const char *value2)
{
	enum opt_id id = options_from_getopt(c);

	if (id == OPT_NONE || launcher_only(id))
		return;
	for (int i = from; i < to; i++)
		strv_add(&inv->again, argv[i]);
	if (value2 != NULL)
		strv_addf(&inv->given, "--%s=%s %s", options_name(id), value,
		    value2);
	else if (value != NULL)
		strv_addf(&inv->given, "--%s=%s", options_name(id), value);
}

int
cli_parse(struct invocation *inv, int argc, char **argv)
{
	int c, from = 1;

	memset(inv, 0, sizeof(*inv));
	inv->probe_timeout_ms = CLI_DEFAULT_TIMEOUT_MS;
	inv->kill_after_ms = BOUNDS_DEFAULT_KILL_AFTER_MS;
	inv->net_idle_ms = CLI_DEFAULT_NET_IDLE_MS;
	bounds_set_defaults(&inv->bounds);
	inv->log_fd = -1;
	opterr = 0;
	optind = 0; /* full re-initialisation, for tests that parse twice */
	while ((c = getopt_long(argc, argv, options_getopt_short(),
		    options_getopt_long(), NULL)) != -1) {
		/* The word at fault: the last one when a value is missing at
		 * the end (musl then leaves optind past argc). */
		const char
		    *bad = argv[optind - 1 < argc ? optind - 1 : argc - 1];

		const char *value2 = NULL;

		if (options_from_getopt(c) != OPT_SETENV)
			take_option(inv, c, bad, optarg, NULL);
		else if (optind >= argc)
			cli_fail(inv, NULL, 0, "--setenv needs NAME and VALUE");
		else
			take_option(inv, c, bad, optarg,
			    value2 = argv[optind++]);
		/* A cluster of letters ends with its last word. */
		if (optind > from && optind <= argc) {
			keep_words(inv, c, argv, from, optind, optarg, value2);
			from = optind;
		} else if (optind <= from) {
			keep_words(inv, c, argv, from, from, optarg, value2);
		}
	}
	/* musl leaves optind past argc after a value missing at the end. */
	inv->command = argv + (optind < argc ? optind : argc);
	check_combinations(inv);
	return inv->err.detail == NULL ? 0 : -1;
}

void
cli_free(struct invocation *inv)
{
	policy_free(&inv->policy);
	for (size_t i = 0; i < inv->nstatus_sockets; i++)
		free(inv->status_sockets[i]);
	free(inv->status_sockets);
	free(inv->status_fds);
	free(inv->requests);
	free(inv->bwrap);
	free(inv->project);
	free(inv->project_real);
	free(inv->cache_root);
	free(inv->learn);
	free(inv->upstream_proxy);
	free(inv->upstream_auth_file);
	upstream_conf_free(&inv->upstream);
	strv_clear(&inv->cred_masks);
	strv_clear(&inv->notices);
	strv_clear(&inv->warnings);
	strv_clear(&inv->again);
	strv_clear(&inv->given);
	sbox_error_clear(&inv->err);
}

void
cli_help(FILE *f)
{
	options_help(f);
}
