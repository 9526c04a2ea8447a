/* Unit tests of the credential list's line parser (creds.c). */
#include <stdlib.h>
#include <string.h>

#include "creds.h"
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

/* LINE gives KIND and exactly the paths in WANT, joined by spaces. */
static void
expands(const struct creds_env *env, const char *line, enum creds_kind kind,
    const char *want)
{
	struct strv out = { 0 };
	struct buf got = { 0 };
	enum creds_kind k;
	const char *why = NULL;
	int r = creds_parse_line(line, env, &k, &out, &why);

	buf_adds(&got, "");
	for (size_t i = 0; i < out.n; i++) {
		if (i > 0)
			buf_addc(&got, ' ');
		buf_adds(&got, out.v[i]);
	}
	ok(r == 0 && k == kind, "'%s' parses (%s)", line, why ? why : "");
	is_str(got.s, want, line);
	buf_clear(&got);
	strv_clear(&out);
}

static void
refused(const struct creds_env *env, const char *line)
{
	struct strv out = { 0 };
	enum creds_kind k;
	const char *why = NULL;

	ok(creds_parse_line(line, env, &k, &out, &why) == -1 && why != NULL,
	    "'%s' is refused (%s)", line, why ? why : "accepted");
	strv_clear(&out);
}

int
main(void)
{
	const char *vars[] = {
		"XDG_CONFIG_HOME",
		"/x/conf", //
		"GNUPGHOME",
		"/keys/gpg/", //
		"RELATIVE",
		"not/absolute", //
		"ROOT",
		"/", //
		NULL,
		NULL,
	};
	const char *none[] = { NULL, NULL };
	struct creds_env env = {
		.homes = { "/home/u", "/var/lib/u" },
		.getenv = fake_env,
		.ctx = vars,
	};
	struct creds_env one = env;

	one.homes[1] = NULL;
	expands(&env, "", CREDS_NONE, "");
	expands(&env, "   ", CREDS_NONE, "");
	expands(&env, "# ~/.ssh", CREDS_NONE, "");
	expands(&env, "  # comment", CREDS_NONE, "");
	expands(&env, "~/.ssh", CREDS_MASK, "/home/u/.ssh /var/lib/u/.ssh");
	expands(&one, "~/.ssh\t \r", CREDS_MASK, "/home/u/.ssh");
	expands(&env, "/etc/secret", CREDS_MASK, "/etc/secret");
	expands(&env, "/a//b/./c/", CREDS_MASK, "/a/b/c");
	expands(&one, "~/.config/Bitwarden CLI", CREDS_MASK,
	    "/home/u/.config/Bitwarden CLI");
	expands(&one, "${XDG_CONFIG_HOME:-~/.config}/gh", CREDS_MASK,
	    "/home/u/.config/gh /x/conf/gh");
	expands(&one, "${GNUPGHOME:-~/.gnupg}", CREDS_MASK,
	    "/home/u/.gnupg /keys/gpg");
	expands(&one, "${PASSWORD_STORE_DIR:-~/.password-store}", CREDS_MASK,
	    "/home/u/.password-store");
	expands(&one, "${UNSET}/credentials", CREDS_MASK, "");
	expands(&one, "${RELATIVE}/x", CREDS_MASK, "");
	expands(&one, "${RELATIVE:-/abs}/x", CREDS_MASK, "/abs/x");
	expands(&one, "${ROOT}", CREDS_MASK, "");
	expands(&one, "sockets ~/.colima", CREDS_SOCKETS, "/home/u/.colima");
	expands(&one, "sockets\t/run", CREDS_SOCKETS, "/run");
	expands(&one, "~", CREDS_MASK, "/home/u");
	one.ctx = none;
	expands(&one, "${XDG_CONFIG_HOME:-~/.config}/gh", CREDS_MASK,
	    "/home/u/.config/gh");
	one.homes[0] = "relative";
	expands(&one, "~/.ssh", CREDS_MASK, "");
	expands(&one, "/abs", CREDS_MASK, "/abs");

	/* A list names each path once: the same home twice, or a
	 * variable set to its default, adds nothing more. */
	{
		struct creds_list l = { 0 };
		struct sbox_error e = { 0 };
		char text[] = "~/.ssh\n${XDG_CONFIG_HOME:-~/.config}/gh\n"
			      "sockets ~/.colima\nsockets /home/u/.colima\n";
		struct creds_env same = { .homes = { "/home/u", "/home/u/" },
			.getenv = fake_env,
			.ctx = vars };

		ok(creds_parse_text(text, "list", &same, &l, &e) == 0,
		    "a list with repeated paths parses");
		ok(l.masks.n == 3, "each path masked once (%zu)", l.masks.n);
		ok(l.socket_roots.n == 1, "each socket root once (%zu)",
		    l.socket_roots.n);
		/* A second list (the user's) adds only what is new, after
		 * the first list's paths, which keep their order. */
		{
			char more[] = "/new\n~/.ssh\n/new/\n";
			const char *first = l.masks.v[0],
				   *second = l.masks.v[1];
			const char *third = l.masks.v[2];
			int r;

			ok(strcmp(first, "/home/u/.ssh") == 0,
			    "the first line's path first (%s)", first);
			r = creds_parse_text(more, "user", &same, &l, &e);

			ok(r == 0 && l.masks.n == 4,
			    "a second list adds its one new path (%zu)",
			    l.masks.n);
			ok(l.masks.v[0] == first && l.masks.v[1] == second &&
				l.masks.v[2] == third &&
				strcmp(l.masks.v[3], "/new") == 0 &&
				l.masks.v[4] == NULL,
			    "the earlier paths kept, in order; the new one last");
		}
		creds_list_clear(&l);
	}

	refused(&env, ".ssh");
	refused(&env, "~user/.ssh");
	refused(&env, "$HOME/.ssh");
	refused(&env, "${HOME");
	refused(&env, "${}/x");
	refused(&env, "${1X}/x");
	refused(&env, "${A-B}/x");
	refused(&env, "${XDG_CONFIG_HOME}gh");
	refused(&env, "${XDG_CONFIG_HOME:-.config}/gh");
	refused(&env, "${XDG_CONFIG_HOME:-}/gh");
	refused(&env, "${A:-${B}}/x");
	refused(&env, "~/a/${B}");
	refused(&env, "sockets");
	refused(&env, "sockets relative");
	refused(&env, "socketsx /run");
	return tap_done();
}
