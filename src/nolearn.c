/*
 * nolearn.c - the list of places --learn never grants and --watch never
 * suggests: the shipped data file never-learned, and the caller's PATH.
 *
 * The syntax is in sbox-exec(1), DENIALS; a path is written as in the
 * credential list (creds.c expands it).  Pure: strings in, strings out,
 * tested with strings; load.c finds and reads the file.
 * MUST: fail closed: a list that is missing or malformed is an error,
 * and the caller then suggests no grant at all.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "nolearn.h"
#include "util.h"

/* The classes a "runs" entry may name, with the words that say why. */
static const struct {
	const char *word, *says;
} classes[] = {
	{ "shell", "a shell's start-up file" },
	{ "path", "a directory commands are run from (on PATH)" },
	{ "autostart", "a place programs are started from at log-in" },
	{ "cron", "a place scheduled jobs are read from" },
	{ "editor", "an editor's start-up file or plugins" },
	{ "git", "git's own configuration, which names programs git runs" },
	{ "language", "a language's start-up hook or a tool's configuration" },
	{ "system", "a system directory" },
	{ "home",
	    "another user's home directory, whose start-up files run as that user" },
};

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next blank-separated word of *P, NUL-terminated in place; NULL at
 * the end of the line. */
static char *
next_word(char **p)
{
	char *w = *p;

	while (is_blank(*w))
		w++;
	if (*w == '\0')
		return NULL;
	*p = w;
	while (**p != '\0' && !is_blank(**p))
		(*p)++;
	if (**p != '\0')
		*(*p)++ = '\0';
	return w;
}

static const char *
class_says(const char *word)
{
	for (size_t i = 0; i < N_ELEMENTS(classes); i++)
		if (strcmp(classes[i].word, word) == 0)
			return classes[i].says;
	return NULL;
}

/* Add an entry of KIND for PATH (copied); WHAT and SETENV as in
 * nolearn.h (copied, SETENV may be NULL). */
void
nolearn_add(struct nolearn_list *l, enum nolearn_kind kind, const char *path,
    const char *what, const char *setenv)
{
	struct nolearn_entry *e;

	l->v = util_grow(l->v, l->n, &l->cap, sizeof(*l->v));
	e = &l->v[l->n++];
	e->kind = kind;
	e->path = xstrdup(path);
	e->what = xstrdup(what);
	e->setenv = setenv != NULL ? xstrdup(setenv) : NULL;
}

/* Every absolute directory of the PATH-style list DIRS (colon-separated)
 * as a "runs" entry of CLASS.  A relative one (an empty one, ".") names
 * wherever the command happens to run, and is left out. */
void
nolearn_add_dirs(struct nolearn_list *l, const char *dirs, const char *class)
{
	const char *says = class_says(class);

	for (const char *p = dirs; p != NULL && *p != '\0';) {
		const char *end = strchr(p, ':');
		size_t len = end != NULL ? (size_t)(end - p) : strlen(p);

		if (len > 0 && p[0] == '/') {
			cleanup_free char *dir = xstrndup(p, len);
			cleanup_free char *abs = util_path_absolute(dir, "/");

			nolearn_add(l, NOLEARN_RUNS, abs, says, NULL);
		}
		p = end != NULL ? end + 1 : NULL;
	}
}

/* HOME, another user's home directory, as a "runs" entry. */
void
nolearn_add_home(struct nolearn_list *l, const char *home)
{
	nolearn_add(l, NOLEARN_RUNS, home, class_says("home"), NULL);
}

/* One line; 0, or -1 with *WHY set. */
static int
parse_line(char *line, const struct creds_env *env, struct nolearn_list *out,
    const char **why)
{
	cleanup_strv struct strv paths = { 0 };
	cleanup_free char *setenv = NULL;
	enum nolearn_kind kind;
	enum creds_kind ck;
	const char *says = NULL;
	char *p = line, *word, *name = NULL, *var;

	word = next_word(&p);
	if (word == NULL || word[0] == '#')
		return 0;
	if (strcmp(word, "runs") == 0) {
		kind = NOLEARN_RUNS;
		word = next_word(&p);
		if (word == NULL || (says = class_says(word)) == NULL) {
			*why =
			    "\"runs\" must be followed by a class: shell, path, autostart, cron, editor, git, language, system or home";
			return -1;
		}
	} else if (strcmp(word, "cache") == 0) {
		char *eq;

		kind = NOLEARN_CACHE;
		name = next_word(&p);
		var = next_word(&p);
		if (name == NULL || var == NULL) {
			*why =
			    "\"cache\" must be followed by a name and a variable";
			return -1;
		}
		eq = strchr(var, '=');
		if (!creds_env_name(var,
			eq != NULL ? (size_t)(eq - var) : strlen(var))) {
			*why = "not a variable name after the cache's name";
			return -1;
		}
		if (eq != NULL)
			*eq++ = '\0';
		setenv = xasprintf("%s %s${CACHE}/%s", var,
		    eq != NULL ? eq : "", name);
	} else {
		*why = "an entry starts with \"runs\" or \"cache\"";
		return -1;
	}
	while (is_blank(*p))
		p++;
	if (creds_parse_line(p, env, &ck, &paths, why) < 0)
		return -1;
	if (ck != CREDS_MASK) {
		*why = "a path must follow";
		return -1;
	}
	for (size_t i = 0; i < paths.n; i++)
		nolearn_add(out, kind, paths.v[i],
		    kind == NOLEARN_RUNS ? says : name, setenv);
	return 0;
}

/*
 * Every line of TEXT, the list read from PATH, into OUT; TEXT is cut
 * into lines in place.  The first wrong line is an error naming PATH and
 * its number.
 */
int
nolearn_parse_text(char *text, const char *path, const struct creds_env *env,
    struct nolearn_list *out, struct sbox_error *err)
{
	size_t lineno = 0;
	char *line, *next;

	for (line = text; line != NULL && *line != '\0'; line = next) {
		const char *why = NULL;
		char *end;

		lineno++;
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		end = line + strlen(line);
		while (end > line && (is_blank(end[-1]) || end[-1] == '\r'))
			*--end = '\0';
		if (parse_line(line, env, out, &why) < 0) {
			sbox_error_set(err, SBOX_INVALID_POLICY, "%s:%zu: %s",
			    path, lineno, why);
			return -1;
		}
	}
	return 0;
}

/*
 * The entry that keeps a grant of PATH (absolute, normalised) from being
 * learned: the deepest one PATH lies within, else one that PATH holds
 * (a grant of ~/.config would hold ~/.config/autostart); NULL when none.
 * PROJECT (or NULL): the project, when it is not / or a home; within
 * it, an entry that holds the whole project (a project in /srv or /opt)
 * does not count: the user chose to work there.
 */
const struct nolearn_entry *
nolearn_find(const struct nolearn_list *l, const char *path,
    const char *project)
{
	const struct nolearn_entry *best = NULL, *held = NULL;
	bool in_project = project != NULL && util_path_within(path, project);

	for (size_t i = 0; l != NULL && i < l->n; i++) {
		const struct nolearn_entry *e = &l->v[i];

		if (in_project && util_path_within(project, e->path))
			continue;

		if (util_path_within(path, e->path)) {
			if (best == NULL ||
			    strlen(e->path) > strlen(best->path))
				best = e;
		} else if (held == NULL && util_path_within(e->path, path)) {
			held = e;
		}
	}
	return best != NULL ? best : held;
}

void
nolearn_clear(struct nolearn_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].what);
		free(l->v[i].setenv);
	}
	free(l->v);
	*l = (struct nolearn_list){ 0 };
}
