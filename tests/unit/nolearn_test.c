/* Unit tests of the never-learned list's parser and lookup (nolearn.c). */
#include <stdlib.h>
#include <string.h>

#include "nolearn.h"
#include "tap.h"

static const char *
fake_env(const char *name, void *ctx)
{
	const char *const *vars = ctx;

	for (size_t i = 0; vars[i] != NULL; i += 2)
		if (strcmp(vars[i], name) == 0)
			return vars[i + 1];
	return NULL;
}

/* TEXT parses into L, or fails with an error naming line LINE. */
static int
parse(const char *text, const struct creds_env *env, struct nolearn_list *l)
{
	char *copy = strdup(text);
	struct sbox_error err = { 0 };
	int r = nolearn_parse_text(copy, "list", env, l, &err);

	free(copy);
	sbox_error_clear(&err);
	return r;
}

/* The path of the entry that bars PATH, or "" when none does. */
static const char *
found(const struct nolearn_list *l, const char *path)
{
	const struct nolearn_entry *e = nolearn_find(l, path, NULL);

	return e != NULL ? e->path : "";
}

int
main(void)
{
	const char *vars[] = { "XDG_CONFIG_HOME", "/h/cfg", "GOMODCACHE",
		"relative", NULL };
	struct creds_env env = { .homes = { "/h", "/p" },
		.getenv = fake_env,
		.ctx = vars };
	struct nolearn_list l = { 0 };
	const struct nolearn_entry *e;

	ok(parse("# a comment\n\n"
		 "runs shell ~/.bashrc\n"
		 "  runs path ~/bin  \n"
		 "runs editor ${XDG_CONFIG_HOME:-~/.config}/nvim\n"
		 "cache npm npm_config_cache ~/.npm\n"
		 "cache maven MAVEN_OPTS=-Dmaven.repo.local= ~/.m2\n"
		 "cache go-mod GOMODCACHE ${GOMODCACHE}\n"
		 "runs system /etc\n",
	       &env, &l) == 0,
	    "a list parses");
	/* Both homes; the variable's value and its default; a relative
	 * value is ignored. */
	ok(l.n == 12, "12 entries (got %zu)", l.n);
	is_str(found(&l, "/h/.bashrc"), "/h/.bashrc", "the file itself");
	is_str(found(&l, "/p/.bashrc"), "/p/.bashrc", "the other home");
	is_str(found(&l, "/h/bin/evil"), "/h/bin", "below a listed directory");
	is_str(found(&l, "/h/cfg/nvim/init.lua"), "/h/cfg/nvim",
	    "the variable's value");
	is_str(found(&l, "/h/.config/nvim"), "/h/.config/nvim",
	    "and its default");
	is_str(found(&l, "/h/binary"), "", "a name that only starts alike");
	is_str(found(&l, "/h/src/proj"), "", "the project");
	is_str(found(&l, "/etc/cron.d/x"), "/etc", "a system directory");
	/* A grant that would hold a listed place is barred by it. */
	ok(nolearn_find(&l, "/h", NULL) != NULL,
	    "the home holds listed places");
	ok(nolearn_find(&l, "/", NULL) != NULL, "so does /");
	e = nolearn_find(&l, "/h/.npm/_cacache/x", NULL);
	ok(e != NULL && e->kind == NOLEARN_CACHE && strcmp(e->what, "npm") == 0,
	    "a shared cache, by name");
	is_str(e != NULL ? e->setenv : "", "npm_config_cache ${CACHE}/npm",
	    "its variable");
	e = nolearn_find(&l, "/h/.m2/repository", NULL);
	is_str(e != NULL ? e->setenv : "",
	    "MAVEN_OPTS -Dmaven.repo.local=${CACHE}/maven", "a prefix");
	/* Within a project in a listed place, the place does not count;
	 * outside it, it does. */
	ok(nolearn_find(&l, "/etc/proj/build", "/etc/proj") == NULL,
	    "a project below a listed place");
	is_str(nolearn_find(&l, "/etc/other", "/etc/proj") != NULL ?
		nolearn_find(&l, "/etc/other", "/etc/proj")->path :
		"",
	    "/etc", "beside that project");
	nolearn_clear(&l);

	/* The deepest entry a path lies in wins. */
	ok(parse("cache cargo CARGO_HOME ~/.cargo\n"
		 "runs language ~/.cargo/bin\n",
	       &env, &l) == 0,
	    "nested entries");
	e = nolearn_find(&l, "/h/.cargo/bin/x", NULL);
	ok(e != NULL && e->kind == NOLEARN_RUNS, "the deeper one");
	nolearn_clear(&l);

	/* PATH: absolute directories only. */
	nolearn_add_dirs(&l, "/usr/bin::.:relative:/h/tools/", "path");
	ok(l.n == 2, "two absolute directories of PATH (got %zu)", l.n);
	is_str(found(&l, "/h/tools/x"), "/h/tools", "normalised");
	nolearn_clear(&l);

	/* Fail closed on anything malformed. */
	ok(parse("runs ~/.bashrc\n", &env, &l) < 0, "no class");
	nolearn_clear(&l);
	ok(parse("runs nosuch ~/.x\n", &env, &l) < 0, "an unknown class");
	nolearn_clear(&l);
	ok(parse("cache npm\n", &env, &l) < 0, "a cache without variable");
	nolearn_clear(&l);
	ok(parse("cache npm 1BAD ~/.npm\n", &env, &l) < 0,
	    "not a variable name");
	nolearn_clear(&l);
	ok(parse("grant ~/.x\n", &env, &l) < 0, "an unknown kind");
	nolearn_clear(&l);
	ok(parse("runs shell relative/path\n", &env, &l) < 0,
	    "a relative path");
	nolearn_clear(&l);
	ok(parse("runs shell sockets /x\n", &env, &l) < 0,
	    "no credential-list keyword");
	nolearn_clear(&l);
	return tap_done();
}
