/*
 * gitconfig.c - a minimal reading of git's configuration syntax:
 * sections, keys case-insensitive, quotes, backslashes and comments.
 *
 * Pure: MUST NOT look at the host.  It reads only what tells where git
 * would look next; a line it does not understand is GITCONFIG_OTHER.
 */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "gitconfig.h"
#include "util.h"

/* VALUE of a git configuration line, unquoted, comment cut: in place. */
static char *
config_value(char *v)
{
	char *out, *r;
	bool quoted = false;

	v += strspn(v, " \t");
	for (r = v, out = v; *r != '\0' && *r != '\n' && *r != '\r'; r++) {
		if (*r == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && (*r == '#' || *r == ';'))
			break;
		if (*r == '\\' && r[1] != '\0')
			r++;
		*out++ = *r;
	}
	while (out > v && (out[-1] == ' ' || out[-1] == '\t'))
		out--;
	*out = '\0';
	return v;
}

/* "[name ...]" at S: the section's name, lower case, into LX; returns
 * what follows the bracket, or NULL when there is no closing one. */
static char *
section_header(struct gitconfig_lexer *lx, char *s)
{
	size_t n = strcspn(s + 1, " \t\".]");

	if (n >= sizeof(lx->section))
		n = sizeof(lx->section) - 1;
	for (size_t i = 0; i < n; i++)
		lx->section[i] = (char)tolower((unsigned char)s[1 + i]);
	lx->section[n] = '\0';
	s = strchr(s, ']');
	return s ? s + 1 + strspn(s + 1, " \t") : NULL;
}

/*
 * One LINE of a configuration file (cut in place): which setting it is,
 * with its value, unquoted, in *VALUE.  A section header followed by a
 * setting on the same line counts as both.
 */
enum gitconfig_setting
gitconfig_line(struct gitconfig_lexer *lx, char *line, char **value)
{
	char *s = line + strspn(line, " \t"), *eq;
	size_t n;

	if (*s == '[' && (s = section_header(lx, s)) == NULL)
		return GITCONFIG_OTHER;
	eq = strchr(s, '=');
	if (eq == NULL)
		return GITCONFIG_OTHER;
	n = strcspn(s, " \t=");
	if (n == 9 && strcmp(lx->section, "core") == 0 &&
	    strncasecmp(s, "hookspath", 9) == 0) {
		*value = config_value(eq + 1);
		return GITCONFIG_HOOKS_PATH;
	}
	if (n == 4 && strncasecmp(s, "path", 4) == 0 &&
	    (strcmp(lx->section, "include") == 0 ||
		strcmp(lx->section, "includeif") == 0)) {
		*value = config_value(eq + 1);
		return GITCONFIG_INCLUDE_PATH;
	}
	return GITCONFIG_OTHER;
}

/* PATH as git reads a path setting: "~/" is HOME, a relative one is
 * taken from BASE.  NULL when it names nothing. */
char *
gitconfig_path(const char *path, const char *base, const char *home)
{
	if (path[0] == '\0')
		return NULL;
	if (path[0] == '~' && path[1] == '/') {
		if (home == NULL || home[0] != '/')
			return NULL;
		return util_path_absolute(path + 2, home);
	}
	return util_path_absolute(path, base);
}

/*
 * The first LINE of a pointer file, "gitdir: PATH" (a .git file, a
 * worktree's gitdir) or a bare path (commondir), as an absolute path; a
 * relative one is taken from BASE.  NULL when it names nothing.
 */
char *
gitconfig_pointer(char *line, const char *base)
{
	char *p;

	line[strcspn(line, "\r\n")] = '\0';
	p = strncmp(line, "gitdir:", 7) == 0 ? line + 7 : line;
	p += strspn(p, " \t");
	return *p == '\0' ? NULL : util_path_absolute(p, base);
}
