/*
 * policyfile.h - the lines of a policy file, one option at a time.
 *
 * The syntax is the manual page's (sbox-exec(1), POLICY FILES): one
 * option a line, "--name value" or "--name=value", '#' comments, ${NAME}
 * from the environment, ${CWD}, ${PROJECT} and ${CACHE}.  The lexer is
 * pure: the text comes in as a string and variables through a lookup the
 * caller gives, so that it can be tested with strings; resolve.c reads
 * the files.
 */
#ifndef SBOX_POLICYFILE_H
#define SBOX_POLICYFILE_H

#include "options.h"

typedef const char *policyfile_lookup_fn(const char *name, void *ctx);

struct policyfile {
	char *next;	      /* the rest of the text, modified in place */
	unsigned long lineno; /* of the line last returned */
	policyfile_lookup_fn *lookup; /* ${NAME}, ${CWD} and the like */
	void *ctx;
};

/* One line that means something. */
struct policyfile_item {
	enum opt_id id;
	char *value;  /* NULL for an option without one */
	char *value2; /* --setenv's VALUE (then VALUE is the NAME) */
	char *error;  /* set instead of the rest when the line is wrong */
	bool glob;    /* '*', '?' or '[' in the value's own text (not in
			 what a ${NAME} put there) */
};

void policyfile_init(struct policyfile *, char *, policyfile_lookup_fn *,
    void *);
int policyfile_next(struct policyfile *, struct policyfile_item *);
void policyfile_item_clear(struct policyfile_item *);

#endif
