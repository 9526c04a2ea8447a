/*
 * options.h - every option of sbox-exec, once.
 *
 * The table below is the single list: the option ids, getopt's tables,
 * the words a policy file may use, and the --help text (which
 * scripts/lint compares with the manual page and README.md) are all made
 * from it.  Adding an option is one line here and its meaning in
 * resolve.c (or cli.c, for an option of the launcher itself).
 *
 * Pure: no I/O besides writing the help text to the FILE given.
 */
#ifndef SBOX_OPTIONS_H
#define SBOX_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Where an option may be given. */
enum opt_scope {
	SCOPE_ANYWHERE, /* argv or a policy file: it shapes the sandbox */
	SCOPE_INCLUDE,	/* argv or a policy file, read before the rest */
	SCOPE_ARGV,	/* the invocation itself: argv only */
};

/* The group --help lists an option under. */
enum opt_section {
	SECTION_FILESYSTEM,
	SECTION_NETWORK,
	SECTION_PROCESS,
	SECTION_LAUNCHER,
};

/*
 * X(ID, NAME, SHORT, ARG, SCOPE, SECTION, HELP): ARG is getopt's
 * no_argument or required_argument; SHORT is the one-letter form or 0.
 * HELP holds one line per way of writing the option: what follows the
 * option's name, a tab, and what it does.  --help lists the options in
 * the order of this table.
 */
#define SBOX_OPTIONS(X)                                                        \
	X(FS, "fs", 0, required_argument, SCOPE_ANYWHERE, SECTION_FILESYSTEM,  \
	    "=host\thost filesystem read-only (default)\n"                     \
	    "=minimal\tonly the system directories, read-only")                \
	X(RW, "rw", 'w', required_argument, SCOPE_ANYWHERE,                    \
	    SECTION_FILESYSTEM, "=PATH\tmake PATH writable, at the same path") \
	X(RO, "ro", 'r', required_argument, SCOPE_ANYWHERE,                    \
	    SECTION_FILESYSTEM, "=PATH\tmake PATH readable, not writable")     \
	X(HIDE, "hide", 0, required_argument, SCOPE_ANYWHERE,                  \
	    SECTION_FILESYSTEM,                                                \
	    "=PATH\tput an empty directory or file over PATH")                 \
	X(RO_TRY, "ro-try", 0, required_argument, SCOPE_ANYWHERE,              \
	    SECTION_FILESYSTEM,                                                \
	    "=PATH\tas --ro, skipped when PATH is missing")                    \
	X(RW_TRY, "rw-try", 0, required_argument, SCOPE_ANYWHERE,              \
	    SECTION_FILESYSTEM,                                                \
	    "=PATH\tas --rw, skipped when PATH is missing")                    \
	X(RW_CREATE, "rw-create", 0, required_argument, SCOPE_ANYWHERE,        \
	    SECTION_FILESYSTEM,                                                \
	    "=DIR\tas --rw, creating DIR (not its parents) when missing")      \
	X(RW_CREATE_TRY, "rw-create-try", 0, required_argument,                \
	    SCOPE_ANYWHERE, SECTION_FILESYSTEM,                                \
	    "=DIR\tas --rw-create, parents too; else skipped")                 \
	X(CACHE, "cache", 0, required_argument, SCOPE_ANYWHERE,                \
	    SECTION_FILESYSTEM,                                                \
	    "=NAME\ta private cache of the project, created, writable")        \
	X(PROJECT, "project", 0, required_argument, SCOPE_ARGV,                \
	    SECTION_FILESYSTEM,                                                \
	    "=DIR\tthe project, ${PROJECT} (default: the current directory)")  \
	X(ALLOW_SOCKET, "allow-socket", 0, required_argument, SCOPE_ANYWHERE,  \
	    SECTION_FILESYSTEM, "=PATH\texpose this host unix socket")         \
	X(ALLOW_SETUID_FILES, "allow-setuid-files", 0, no_argument,            \
	    SCOPE_ARGV, SECTION_FILESYSTEM,                                    \
	    "\tas root, allow --rw over setuid files")                         \
	X(NO_NET, "no-net", 0, no_argument, SCOPE_ANYWHERE, SECTION_NETWORK,   \
	    "\tno network (default): each request is refused and named")       \
	X(NET, "net", 0, no_argument, SCOPE_ANYWHERE, SECTION_NETWORK,         \
	    "\tshare the host network")                                        \
	X(ALLOW_HOST, "allow-host", 0, required_argument, SCOPE_ANYWHERE,      \
	    SECTION_NETWORK,                                                   \
	    "=PATTERN[:PORT]\treach this host through the launcher's proxy")   \
	X(DENY_HOST, "deny-host", 0, required_argument, SCOPE_ANYWHERE,        \
	    SECTION_NETWORK, "=PATTERN[:PORT]\tan exception to --allow-host")  \
	X(NET_IDLE_TIMEOUT, "net-idle-timeout", 0, required_argument,          \
	    SCOPE_ANYWHERE, SECTION_NETWORK,                                   \
	    "=DURATION\tend a proxy tunnel idle this long (5m)")               \
	X(UPSTREAM_PROXY, "upstream-proxy", 0, required_argument, SCOPE_ARGV,  \
	    SECTION_NETWORK,                                                   \
	    "=URL\tsend allowed hosts through this http:// proxy\n"            \
	    "=none\tconnect directly, whatever HTTPS_PROXY says")              \
	X(UPSTREAM_PROXY_AUTH_FILE, "upstream-proxy-auth-file", 0,             \
	    required_argument, SCOPE_ARGV, SECTION_NETWORK,                    \
	    "=FILE\tthe upstream proxy's USER:PASSWORD, from FILE")            \
	X(CHDIR, "chdir", 'C', required_argument, SCOPE_ANYWHERE,              \
	    SECTION_PROCESS,                                                   \
	    "=DIR\tworking directory inside (default: the project)")           \
	X(SETENV, "setenv", 0, required_argument, SCOPE_ANYWHERE,              \
	    SECTION_PROCESS,                                                   \
	    " NAME VALUE\tset NAME in the command's environment")              \
	X(UNSETENV, "unsetenv", 0, required_argument, SCOPE_ANYWHERE,          \
	    SECTION_PROCESS,                                                   \
	    " NAME\tremove NAME from the command's environment")               \
	X(CLEARENV, "clearenv", 0, no_argument, SCOPE_ANYWHERE,                \
	    SECTION_PROCESS, "\tstart from an empty environment")              \
	X(KEEP_FD, "keep-fd", 0, required_argument, SCOPE_ANYWHERE,            \
	    SECTION_PROCESS, "=N\tpass inherited descriptor N to the command") \
	X(TTY, "tty", 0, no_argument, SCOPE_ANYWHERE, SECTION_PROCESS,         \
	    "\town terminal with job control, for interactive use")            \
	X(LSP, "lsp", 0, no_argument, SCOPE_ANYWHERE, SECTION_PROCESS,         \
	    "\ta language server: the editor's pid in initialize watched "     \
	    "from outside")                                                    \
	X(TTY_UNFILTERED, "tty-unfiltered", 0, no_argument, SCOPE_ARGV,        \
	    SECTION_PROCESS,                                                   \
	    "\tpass every escape sequence on to the terminal")                 \
	X(TIMEOUT, "timeout", 0, required_argument, SCOPE_ANYWHERE,            \
	    SECTION_PROCESS,                                                   \
	    "=DURATION\tend the sandbox after DURATION (30, 1.5, 10m, 2h)")    \
	X(KILL_AFTER, "kill-after", 0, required_argument, SCOPE_ANYWHERE,      \
	    SECTION_PROCESS,                                                   \
	    "=DURATION\twith --timeout: SIGKILL this long after SIGTERM (5)")  \
	X(LIMIT, "limit", 0, required_argument, SCOPE_ANYWHERE,                \
	    SECTION_PROCESS,                                                   \
	    "=NAME=VALUE\tresource limit such as nproc=50 or fsize=1M")        \
	X(CHECK, "check", 0, no_argument, SCOPE_ARGV, SECTION_LAUNCHER,        \
	    "\tonly tell whether this sandbox can be created")                 \
	X(PRINT, "print", 0, no_argument, SCOPE_ARGV, SECTION_LAUNCHER,        \
	    "\tprint the bwrap command line, run nothing")                     \
	X(JSON, "json", 0, no_argument, SCOPE_ARGV, SECTION_LAUNCHER,          \
	    "\twith --check: print the status on stdout")                      \
	X(BWRAP, "bwrap", 0, required_argument, SCOPE_ARGV, SECTION_LAUNCHER,  \
	    "=PATH\tuse exactly this bwrap (also SBOX_EXEC_BWRAP)")            \
	X(STATUS_FD, "status-fd", 0, required_argument, SCOPE_ARGV,            \
	    SECTION_LAUNCHER, "=N\twrite the status line to descriptor N")     \
	X(STATUS_SOCKET, "status-socket", 0, required_argument, SCOPE_ARGV,    \
	    SECTION_LAUNCHER,                                                  \
	    "=ADDR\tsend the status to unix socket ADDR (@name: abstract)")    \
	X(LOG_FD, "log-fd", 0, required_argument, SCOPE_ARGV,                  \
	    SECTION_LAUNCHER,                                                  \
	    "=N\twrite one JSON line per event to descriptor N")               \
	X(LEARN, "learn", 0, required_argument, SCOPE_ARGV, SECTION_LAUNCHER,  \
	    "=FILE\tadd the grants refused calls asked for to policy FILE")    \
	X(WATCH, "watch", 0, no_argument, SCOPE_ANYWHERE, SECTION_LAUNCHER,    \
	    "\tname writes outside the grants, connects to hidden sockets "    \
	    "and reads of masked credentials")                                 \
	X(NO_WATCH, "no-watch", 0, no_argument, SCOPE_ANYWHERE,                \
	    SECTION_LAUNCHER, "\tundo a profile's --watch (--learn watches)")  \
	X(PROBE_TIMEOUT, "probe-timeout", 0, required_argument,                \
	    SCOPE_ANYWHERE, SECTION_LAUNCHER,                                  \
	    "=SECONDS\tgive up creating the sandbox after this (10)")          \
	X(POLICY, "policy", 0, required_argument, SCOPE_INCLUDE,               \
	    SECTION_LAUNCHER, "=FILE\tread more options from FILE")            \
	X(PROFILE, "profile", 0, required_argument, SCOPE_INCLUDE,             \
	    SECTION_LAUNCHER, "=NAME\tread options from the profile NAME")     \
	X(QUIET, "quiet", 'q', no_argument, SCOPE_ARGV, SECTION_LAUNCHER,      \
	    "\tsay less on stderr")                                            \
	X(VERBOSE, "verbose", 'v', no_argument, SCOPE_ARGV, SECTION_LAUNCHER,  \
	    "\tsay more on stderr, with the bwrap command line")               \
	X(HELP, "help", 'h', no_argument, SCOPE_ARGV, SECTION_LAUNCHER,        \
	    "\tshow this help and exit")                                       \
	X(VERSION, "version", 'V', no_argument, SCOPE_ARGV, SECTION_LAUNCHER,  \
	    "\tshow the version and exit")

/* Ids start past every character, so that no id is a short option's
 * letter or one of getopt's '?' and ':'. */
enum opt_id {
	OPT_NONE = 255,
#define SBOX_OPTION_ID(id, ...) OPT_##id,
	SBOX_OPTIONS(SBOX_OPTION_ID)
#undef SBOX_OPTION_ID
	OPT_END
};

struct option;

const struct option *options_getopt_long(void);
const char *options_getopt_short(void);
enum opt_id options_from_getopt(int);
enum opt_id options_lookup(const char *, bool *);
const char *options_name(enum opt_id);
const char *options_nearest(const char *, const char *const *, size_t);
const char *options_suggest(const char *);
enum opt_scope options_scope(enum opt_id);
void options_help(FILE *);

/* Values, parsed without looking at the host. */
int options_parse_seconds(const char *, long *);
bool options_env_name(const char *);
char *options_check_value(enum opt_id, const char *);

#endif
