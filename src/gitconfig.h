/*
 * gitconfig.h - the little of git's file syntax that host protection
 * needs: which lines of a configuration file name a place git takes code
 * or configuration from, and the pointer files of a git directory.
 *
 * Pure: lines in, paths out; protect.c reads the files.
 */
#ifndef SBOX_GITCONFIG_H
#define SBOX_GITCONFIG_H

/* What a configuration line sets, of what matters here. */
enum gitconfig_setting {
	GITCONFIG_OTHER,	/* anything else, or no setting at all */
	GITCONFIG_HOOKS_PATH,	/* core.hooksPath */
	GITCONFIG_INCLUDE_PATH, /* include.path, includeIf.*.path */
};

/* The section the lines read so far are in. */
struct gitconfig_lexer {
	char section[32];
};

enum gitconfig_setting gitconfig_line(struct gitconfig_lexer *, char *,
    char **);
char *gitconfig_path(const char *, const char *, const char *);
char *gitconfig_pointer(char *, const char *);

#endif
