/*
 * Unit tests of gitconfig.c: git configuration lines and pointer files
 * read from strings.
 */
#include <stdlib.h>
#include <string.h>

#include "gitconfig.h"
#include "util.h"
#include "tap.h"

/* The settings TEXT holds, as "hooks=VALUE" / "include=VALUE" lines. */
static char *
settings(const char *text)
{
	cleanup_free char *copy = xstrdup(text);
	struct gitconfig_lexer lx = { "" };
	struct buf out = { 0 };
	char *line, *next;

	buf_adds(&out, "");
	for (line = copy; line != NULL; line = next) {
		char *value = NULL;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		switch (gitconfig_line(&lx, line, &value)) {
		case GITCONFIG_HOOKS_PATH:
			buf_addf(&out, "hooks=%s\n", value);
			break;
		case GITCONFIG_INCLUDE_PATH:
			buf_addf(&out, "include=%s\n", value);
			break;
		case GITCONFIG_OTHER:
			break;
		}
	}
	return buf_steal(&out);
}

static void
check(const char *text, const char *want, const char *name)
{
	char *got = settings(text);

	is_str(got, want, name);
	free(got);
}

static void
check_path(const char *path, const char *base, const char *home,
    const char *want, const char *name)
{
	char *got = gitconfig_path(path, base, home);

	if (want == NULL)
		ok(got == NULL, "%s", name);
	else
		is_str(got, want, name);
	free(got);
}

static void
check_pointer(const char *line, const char *want, const char *name)
{
	char *copy = xstrdup(line);
	char *got = gitconfig_pointer(copy, "/r/.git");

	if (want == NULL)
		ok(got == NULL, "%s", name);
	else
		is_str(got, want, name);
	free(got);
	free(copy);
}

int
main(void)
{
	check("[core]\n\thooksPath = .githooks\n", "hooks=.githooks\n",
	    "core.hooksPath");
	check("[CORE]\nHOOKSPATH=h\n[Core]\n  HooksPath  =  \"h 2\" # c\n",
	    "hooks=h\nhooks=h 2\n",
	    "sections and keys in any case, quotes, comments");
	check("[core] hooksPath = x ; comment\n", "hooks=x\n",
	    "a setting on the header's line");
	check("[include]\npath = a.inc\n[includeIf \"gitdir:~/w/\"]\n"
	      "\tpath = ~/w.inc\n",
	    "include=a.inc\ninclude=~/w.inc\n",
	    "include.path and includeIf.*.path");
	check("[core]\nhooksPathx = no\nxhooksPath = no\n[other]\n"
	      "hooksPath = no\npath = no\n[include]\npaths = no\n",
	    "", "other keys and sections are not these settings");
	/* git refuses a file with a broken header; reading on protects more
	 * than git would use, never less. */
	check("[core\nhooksPath = after a broken header\n# hooksPath = c\n",
	    "hooks=after a broken header\n",
	    "after a broken header reading goes on; a comment sets nothing");
	check("[core]\nhooksPath = a\\\"b\\\\c\n", "hooks=a\"b\\c\n",
	    "backslash escapes");
	check("[core]\n\thooksPath\n", "", "a key without '=' sets no path");
	check_path("hooks", "/r", "/h", "/r/hooks", "relative: from the base");
	check_path("~/x", "/r", "/h", "/h/x", "~/: from the home directory");
	check_path("~/x", "/r", NULL, NULL, "~/ without a home: nothing");
	check_path("", "/r", "/h", NULL, "empty: nothing");
	check_path("/abs/../p", "/r", "/h", "/p", "absolute, normalised");
	check_pointer("gitdir: ../main/.git/worktrees/w\n",
	    "/r/main/.git/worktrees/w", "gitdir: relative to the base");
	check_pointer("/srv/common\r\n", "/srv/common",
	    "a bare path (commondir), CRLF cut");
	check_pointer("gitdir:   \n", NULL, "gitdir: with nothing: nothing");
	return tap_done();
}
