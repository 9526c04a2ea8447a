/*
 * stage2_args.c - stage two's arguments: the encoder the launcher uses and
 * the decoder stage two uses, side by side (stage2_args.h has the words).
 *
 * MUST: refuse every word the encoder would not have written: stage two
 * is reached by anyone who runs sbox-exec --sbox-stage2, and acts on what
 * it decodes.  MUST NOT do I/O, print or exit.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "stage2_args.h"

/* Where each word is; the writable paths start at W_PATHS. */
enum word {
	W_PROG,
	W_FLAG,
	W_USERNS,
	W_CTRL,
	W_STDERR,
	W_KEEP,
	W_MODE,
	W_LIMITS,
	W_PATHS,
};

static const struct {
	enum stage2_mode mode;
	const char *word;
} modes[] = {
	{ STAGE2_CHECK, "check" },
	{ STAGE2_RUN, "run" },
	{ STAGE2_RUN_TTY, "run-tty" },
};

static const char *
mode_word(enum stage2_mode mode)
{
	for (size_t i = 0; i < N_ELEMENTS(modes); i++)
		if (modes[i].mode == mode)
			return modes[i].word;
	return "?";
}

/* Append A's words, from STAGE2_FLAG on, to OUT (PROG is the caller's). */
void
stage2_args_encode(const struct stage2_args *a, struct strv *out)
{
	struct buf keep = { 0 }, limits = { 0 }, mode = { 0 };

	strv_add(out, STAGE2_FLAG);
	strv_addf(out, "%lu", a->userns);
	strv_addf(out, "%d", a->ctrl);
	strv_addf(out, "%d", a->saved_stderr);
	for (size_t i = 0; i < a->nkeep; i++)
		buf_addf(&keep, "%s%d", i ? "," : "", a->keep[i]);
	if (keep.len == 0)
		buf_addc(&keep, '-');
	strv_take(out, buf_steal(&keep));
	buf_adds(&mode, mode_word(a->mode));
	if (a->watch)
		buf_adds(&mode, STAGE2_WATCH);
	if (a->proxy_port > 0)
		buf_addf(&mode, ":%d", a->proxy_port);
	for (size_t i = 0; a->proxy_port > 0 && i < a->nfwd; i++) {
		char text[INET6_ADDRSTRLEN];

		inet_ntop(a->fwd[i].family, a->fwd[i].addr, text, sizeof(text));
		buf_addf(&mode, "/%s#%d", text, a->fwd[i].port);
	}
	strv_take(out, buf_steal(&mode));
	bounds_encode(&a->limits, &limits);
	strv_take(out, buf_steal(&limits));
	for (size_t i = 0; i < a->nwritable; i++)
		strv_add(out, a->writable[i]);
	strv_add(out, "--");
	if (a->mode != STAGE2_CHECK)
		for (char *const *c = a->command; *c != NULL; c++)
			strv_add(out, *c);
}

/* A number as the encoder writes one: digits, no leading zero. */
static bool
canonical(const char *s)
{
	return s[0] >= '1' && s[0] <= '9' ? true : strcmp(s, "0") == 0;
}

static int
decode_userns(const char *s, unsigned long *userns, struct sbox_error *err)
{
	unsigned long long v = 0;
	char *end = NULL;

	errno = 0;
	if (canonical(s))
		v = strtoull(s, &end, 10);
	if (end == NULL || errno != 0 || *end != '\0' || v > ULONG_MAX) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "'%s' is not a user namespace", s);
		return -1;
	}
	*userns = (unsigned long)v;
	return 0;
}

/* One of the launcher's own descriptors: above 2. */
static int
decode_own_fd(const char *s, int *fd, struct sbox_error *err)
{
	if (!canonical(s) || util_parse_fd(s, fd) < 0 || *fd <= 2) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "'%s' is not a descriptor above 2", s);
		return -1;
	}
	return 0;
}

static bool
keeps(const struct stage2_args *a, int fd)
{
	for (size_t i = 0; i < a->nkeep; i++)
		if (a->keep[i] == fd)
			return true;
	return false;
}

/* "-", or "3,7,9": each at most once, none of CTRL and STDERR. */
static int
decode_keep(const char *s, struct stage2_args *a, struct sbox_error *err)
{
	a->nkeep = 0;
	if (strcmp(s, "-") == 0)
		return 0;
	for (;;) {
		size_t len = strcspn(s, ",");
		char word[16];
		int fd;

		if (len == 0 || len >= sizeof(word)) {
			sbox_error_set(err, SBOX_PROBE_FAILED,
			    "the kept descriptors are not a list of numbers");
			return -1;
		}
		memcpy(word, s, len);
		word[len] = '\0';
		if (!canonical(word) || util_parse_fd(word, &fd) < 0) {
			sbox_error_set(err, SBOX_PROBE_FAILED,
			    "'%s' is not a descriptor", word);
			return -1;
		}
		if (keeps(a, fd) || fd == a->ctrl || fd == a->saved_stderr) {
			sbox_error_set(err, SBOX_PROBE_FAILED,
			    "descriptor %d is named twice", fd);
			return -1;
		}
		if (a->nkeep == N_ELEMENTS(a->keep)) {
			sbox_error_set(err, SBOX_PROBE_FAILED,
			    "more than %d kept descriptors",
			    STAGE2_ARGS_MAX_KEEP_FDS);
			return -1;
		}
		a->keep[a->nkeep++] = fd;
		if (s[len] == '\0')
			return 0;
		s += len + 1;
	}
}

/* A port as the encoder writes one, from S up to STOP or the end, into
 * *PORT; the character after it, or NULL. */
static const char *
decode_port(const char *s, char stop, int *port)
{
	long v = 0;
	char *end = NULL;

	if (canonical(s))
		v = strtol(s, &end, 10);
	if (end == NULL || (*end != '\0' && *end != stop) || v < 1 || v > 65535)
		return NULL;
	*port = (int)v;
	return end;
}

/* S: "/ADDRESS#PORT" for each loopback address served inside, into A. */
static int
decode_forwards(const char *s, struct stage2_args *a)
{
	static const unsigned char v6[16] = { [15] = 1 };

	while (*s == '/') {
		struct np_forward *f = &a->fwd[a->nfwd];
		char text[INET6_ADDRSTRLEN];
		size_t len = strcspn(++s, "#");

		if (a->nfwd == N_ELEMENTS(a->fwd) || len >= sizeof(text) ||
		    s[len] != '#')
			return -1;
		memcpy(text, s, len);
		text[len] = '\0';
		memset(f, 0, sizeof(*f));
		f->family = strchr(text, ':') != NULL ? AF_INET6 : AF_INET;
		if (inet_pton(f->family, text, f->addr) != 1 ||
		    (f->family == AF_INET ? f->addr[0] != 127 :
					    memcmp(f->addr, v6, 16) != 0) ||
		    (s = decode_port(s + len + 1, '/', &f->port)) == NULL)
			return -1;
		a->nfwd++;
	}
	return *s == '\0' ? 0 : -1;
}

/* "run", "run+watch" or "run:3128", perhaps with "/127.0.0.1#8080" after:
 * the mode, whether to install the filter that reports refused calls, the
 * proxy's port and the loopback addresses served inside. */
static int
decode_mode(const char *s, struct stage2_args *a, struct sbox_error *err)
{
	size_t len = strcspn(s, ":+");
	size_t wlen = strlen(STAGE2_WATCH);
	const char *port;

	a->watch = strncmp(s + len, STAGE2_WATCH, wlen) == 0;
	port = s + len + (a->watch ? wlen : 0);
	if (*port != ':' && *port != '\0') {
		sbox_error_set(err, SBOX_PROBE_FAILED, "'%s' is not a mode", s);
		return -1;
	}
	port = *port == ':' ? port + 1 : NULL;

	if (port != NULL &&
	    ((port = decode_port(port, '/', &a->proxy_port)) == NULL ||
		decode_forwards(port, a) < 0)) {
		sbox_error_set(err, SBOX_PROBE_FAILED, "'%s' is not a mode", s);
		return -1;
	}
	for (size_t i = 0; i < N_ELEMENTS(modes); i++)
		if (strlen(modes[i].word) == len &&
		    strncmp(s, modes[i].word, len) == 0) {
			a->mode = modes[i].mode;
			return 0;
		}
	sbox_error_set(err, SBOX_PROBE_FAILED, "'%s' is not a mode", s);
	return -1;
}

/* The writable paths up to "--", then the command, as MODE wants it. */
static int
decode_tail(int argc, char **argv, struct stage2_args *a,
    struct sbox_error *err)
{
	int at = W_PATHS;

	while (at < argc && argv[at][0] == '/')
		at++;
	if (at == argc) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "no \"--\" after the writable paths");
		return -1;
	}
	if (strcmp(argv[at], "--") != 0) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "'%s' is not an absolute path", argv[at]);
		return -1;
	}
	a->writable = argv + W_PATHS;
	a->nwritable = (size_t)(at - W_PATHS);
	a->command = a->mode == STAGE2_CHECK ? NULL : argv + at + 1;
	if (a->mode == STAGE2_CHECK && at + 1 < argc) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "a command after \"--\" in check mode");
		return -1;
	}
	if (a->mode != STAGE2_CHECK && at + 1 == argc) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "no command after \"--\"");
		return -1;
	}
	return 0;
}

/*
 * Read ARGV (ARGC words, NULL-terminated, PROG first) into A, which then
 * points into ARGV.  Returns 0, or -1 with ERR saying what is wrong.
 */
int
stage2_args_decode(int argc, char **argv, struct stage2_args *a,
    struct sbox_error *err)
{
	memset(a, 0, sizeof(*a));
	if (argc <= W_LIMITS || strcmp(argv[W_FLAG], STAGE2_FLAG) != 0) {
		sbox_error_set(err, SBOX_PROBE_FAILED, "too few words");
		return -1;
	}
	if (decode_userns(argv[W_USERNS], &a->userns, err) < 0 ||
	    decode_own_fd(argv[W_CTRL], &a->ctrl, err) < 0 ||
	    decode_own_fd(argv[W_STDERR], &a->saved_stderr, err) < 0)
		return -1;
	if (a->ctrl == a->saved_stderr) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "descriptor %d is named twice", a->ctrl);
		return -1;
	}
	if (decode_keep(argv[W_KEEP], a, err) < 0 ||
	    decode_mode(argv[W_MODE], a, err) < 0)
		return -1;
	if (bounds_decode(argv[W_LIMITS], &a->limits) < 0) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "'%s' is not a list of limits", argv[W_LIMITS]);
		return -1;
	}
	return decode_tail(argc, argv, a, err);
}
