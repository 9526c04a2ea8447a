/*
 * creds.c - the credential list: a data file of path patterns, one a
 * line, shipped in $(pkgdatadir) and extended by the user's own file.
 *
 * The syntax is in sbox-exec(1), HOST PROTECTION.  Pure: strings in,
 * strings out, tested with strings; load.c finds and reads the files.
 * MUST: fail closed, so a shipped list that is missing, unreadable or
 * malformed is a refusal, never less protection; the user's file may
 * only add entries.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "creds.h"

#define CREDS_FILE "credentials"

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Whether S (N bytes) is a variable's name, as ${NAME} takes it. */
bool
creds_env_name(const char *s, size_t n)
{
	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
			(s[i] >= 'A' && s[i] <= 'Z') ||
			(s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

/*
 * BASE (N bytes) + REST, normalised, unless it names the root itself;
 * HOME, when not NULL, stands before them.
 */
static void
add_result(struct strv *out, const char *home, const char *base, size_t n,
    const char *rest)
{
	struct buf path = { 0 };

	if (home != NULL)
		util_path_append(&path, home, strlen(home));
	util_path_append(&path, base, n);
	util_path_append(&path, rest, strlen(rest));
	if (path.len == 0)
		buf_clear(&path);
	else
		strv_take(out, buf_steal(&path));
}

/* "~" or "~/..." (in BASE, N bytes) for each home; "/..." as it is. */
static void
add_base(struct strv *out, const char *base, size_t n, const char *rest,
    const struct creds_env *env)
{
	if (n > 0 && base[0] == '~') {
		const char *const *home = env->homes;

		for (size_t h = 0; h < 2; h++)
			/* Most often $HOME is the password entry's home. */
			if (home[h] != NULL && home[h][0] == '/' &&
			    (h == 0 || home[0] == NULL ||
				strcmp(home[0], home[1]) != 0))
				add_result(out, home[h], base + 1, n - 1, rest);
	} else if (n > 0 && base[0] == '/') {
		add_result(out, NULL, base, n, rest);
	}
}

/*
 * One line of a credential list.  *KIND says what it is; the paths it
 * stands for are added to OUT (none when a variable is unset or no home
 * is known).  Returns 0, or -1 with the reason in *WHY.
 */
int
creds_parse_line(const char *line, const struct creds_env *env,
    enum creds_kind *kind, struct strv *out, const char **why)
{
	cleanup_free char *text = NULL;
	const char *p;
	char *end;

	*kind = CREDS_NONE;
	*why = NULL;
	while (is_blank(*line))
		line++;
	if (*line == '\0' || *line == '#')
		return 0;
	text = xstrdup(line);
	end = text + strlen(text);
	while (end > text && is_blank(end[-1]))
		*--end = '\0';
	p = text;
	*kind = CREDS_MASK;
	if (strncmp(p, "sockets", 7) == 0 && is_blank(p[7])) {
		*kind = CREDS_SOCKETS;
		p += 7;
		while (is_blank(*p))
			p++;
	}

	if (strstr(p + 1, "${") != NULL) {
		*why = "${...} is allowed only at the start";
		return -1;
	}
	if (p[0] == '/') {
		add_base(out, p, strlen(p), "", env);
	} else if (p[0] == '~' && (p[1] == '/' || p[1] == '\0')) {
		add_base(out, "~", 1, p + 1, env);
	} else if (p[0] == '$' && p[1] == '{') {
		const char *name = p + 2, *close = strchr(name, '}');
		const char *colon = strstr(name, ":-");
		const char *rest, *value;
		cleanup_free char *n = NULL;

		if (close == NULL) {
			*why = "unterminated ${";
			return -1;
		}
		if (colon != NULL && colon > close)
			colon = NULL;
		n = xstrndup(name, (size_t)((colon ? colon : close) - name));
		if (!creds_env_name(n, strlen(n))) {
			*why = "not a variable name in ${...}";
			return -1;
		}
		rest = close + 1;
		if (*rest != '\0' && *rest != '/') {
			*why = "${...} must be followed by '/' or the end";
			return -1;
		}
		if (colon != NULL) {
			const char *d = colon + 2;
			size_t dlen = (size_t)(close - d);

			if (dlen == 0 ||
			    (d[0] != '/' &&
				!(d[0] == '~' && (dlen == 1 || d[1] == '/')))) {
				*why = "a default must start with '/' or '~/'";
				return -1;
			}
			add_base(out, d, dlen, rest, env);
		}
		/* A relative value is ignored, as XDG says of XDG_*. */
		value = env->getenv(n, env->ctx);
		if (value != NULL && value[0] == '/')
			add_result(out, NULL, value, strlen(value), rest);
	} else {
		*why = "a path must start with '/', '~/' or '${'";
		return -1;
	}
	return 0;
}

/* ${XDG_CONFIG_HOME:-~/.config}/sbox-exec/credentials, or NULL. */
char *
creds_user_path(const char *xdg_config_home, const char *home)
{
	if (xdg_config_home != NULL && xdg_config_home[0] == '/')
		return xasprintf("%s/sbox-exec/%s", xdg_config_home,
		    CREDS_FILE);
	if (home != NULL && home[0] == '/')
		return xasprintf("%s/.config/sbox-exec/%s", home, CREDS_FILE);
	return NULL;
}

/*
 * Drop the second and later copies of each path in V, keeping the order
 * of the first ones.  An open-addressed table at most half full finds
 * the copies in one pass.
 */
static void
drop_copies(struct strv *v)
{
	cleanup_free const char **seen = NULL;
	size_t size = 16, kept = 0;

	if (v->n < 2)
		return;
	while (size < 2 * v->n)
		size *= 2;
	seen = xcalloc(size, sizeof(*seen));
	for (size_t i = 0; i < v->n; i++) {
		size_t at = util_text_hash(v->v[i]) & (size - 1);

		while (seen[at] != NULL && strcmp(seen[at], v->v[i]) != 0)
			at = (at + 1) & (size - 1);
		if (seen[at] != NULL) {
			free(v->v[i]);
			continue;
		}
		seen[at] = v->v[i];
		v->v[kept++] = v->v[i];
	}
	v->n = kept;
	v->v[kept] = NULL;
}

/*
 * Every line of TEXT, the list read from PATH, into OUT; TEXT is cut into
 * lines in place.  Each path once, however many lines or homes name it
 * ($HOME is most often the password entry's home): a launch looks at
 * each once.  The first wrong line is an error naming PATH and its
 * number.
 */
int
creds_parse_text(char *text, const char *path, const struct creds_env *env,
    struct creds_list *out, struct sbox_error *err)
{
	size_t lineno = 0;
	char *line, *next;

	for (line = text; line != NULL && *line != '\0'; line = next) {
		enum creds_kind kind;
		const char *why;
		cleanup_strv struct strv paths = { 0 };

		lineno++;
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		if (creds_parse_line(line, env, &kind, &paths, &why) < 0) {
			sbox_error_set(err, SBOX_INVALID_POLICY, "%s:%zu: %s",
			    path, lineno, why);
			return -1;
		}
		for (size_t i = 0; i < paths.n; i++) {
			strv_take(kind == CREDS_SOCKETS ? &out->socket_roots :
							  &out->masks,
			    paths.v[i]);
			paths.v[i] = NULL;
		}
	}
	drop_copies(&out->masks);
	drop_copies(&out->socket_roots);
	return 0;
}

void
creds_list_clear(struct creds_list *l)
{
	strv_clear(&l->masks);
	strv_clear(&l->socket_roots);
}
