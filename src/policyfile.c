/*
 * policyfile.c - split a policy file's text into options.
 *
 * Pure: MUST NOT look at the host; variables come from the caller's
 * lookup.  A wrong line is returned as an item with an error, worded for
 * the user; the caller adds the file name and line number.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policyfile.h"
#include "util.h"

void
policyfile_init(struct policyfile *pf, char *text, policyfile_lookup_fn *lookup,
    void *ctx)
{
	*pf = (struct policyfile){ .next = text, .lookup = lookup, .ctx = ctx };
}

void
policyfile_item_clear(struct policyfile_item *it)
{
	free(steal_pointer(&it->value));
	free(steal_pointer(&it->value2));
	free(steal_pointer(&it->error));
	it->id = OPT_NONE;
	it->glob = false;
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static char *
skip_blanks(char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

enum expand_result {
	EXPAND_OK,
	EXPAND_MALFORMED,
	EXPAND_UNSET, /* the variable's name in *out */
};

/* IN with each ${NAME} replaced by its value, into *OUT. */
static enum expand_result
expand(const struct policyfile *pf, const char *in, char **out, bool *glob)
{
	cleanup_buf struct buf b = { 0 };

	buf_adds(&b, "");
	for (const char *p = in; *p != '\0'; p++) {
		const char *end, *val;
		cleanup_free char *name = NULL;

		if (p[0] != '$' || p[1] != '{') {
			/* Only the file's own text: a variable's value is
			 * never taken for a pattern. */
			if (*p == '*' || *p == '?' || *p == '[')
				*glob = true;
			buf_addc(&b, *p);
			continue;
		}
		end = strchr(p + 2, '}');
		if (end == NULL || end == p + 2)
			return EXPAND_MALFORMED;
		name = xstrndup(p + 2, (size_t)(end - p - 2));
		val = pf->lookup(name, pf->ctx);
		if (val == NULL) {
			*out = steal_pointer(&name);
			return EXPAND_UNSET;
		}
		buf_adds(&b, val);
		p = end;
	}
	*out = buf_steal(&b);
	return EXPAND_OK;
}

/* The value part of a line for option ID, expanded; false to skip it. */
static bool
take_value(struct policyfile *pf, const char *word, char *p,
    struct policyfile_item *it)
{
	char *text = p, *raw = NULL;

	if (it->id == OPT_SETENV) {
		char *sep = p;

		while (*sep != '\0' && !is_blank(*sep))
			sep++;
		it->value = xstrndup(p, (size_t)(sep - p));
		text = skip_blanks(sep);
	}
	switch (expand(pf, text, &raw, &it->glob)) {
	case EXPAND_OK:
		if (it->id == OPT_SETENV)
			it->value2 = raw;
		else
			it->value = raw;
		it->error = options_check_value(it->id, it->value);
		if (it->error != NULL) {
			free(steal_pointer(&it->value));
			free(steal_pointer(&it->value2));
		}
		return true;
	case EXPAND_MALFORMED:
		it->error = xasprintf("%s: malformed ${...} in '%s'", word, p);
		return true;
	case EXPAND_UNSET:
		/* A -try grant of a place that cannot be named is skipped. */
		if (it->id == OPT_RO_TRY || it->id == OPT_RW_TRY) {
			free(raw);
			return false;
		}
		it->error = xasprintf("%s: environment variable %s is not set",
		    word, raw);
		free(raw);
		return true;
	}
	return true;
}

/* Lex one line; false when it holds no option (blank, comment, skip). */
static bool
lex_line(struct policyfile *pf, char *line, struct policyfile_item *it)
{
	cleanup_free char *word = NULL;
	char *p = skip_blanks(line), *end;
	bool has_arg = false;

	if (*p == '\0' || *p == '#')
		return false;
	end = p;
	while (*end != '\0' && *end != '=' && !is_blank(*end))
		end++;
	word = xstrndup(p, (size_t)(end - p));
	p = *end == '=' ? end + 1 : skip_blanks(end);
	end = p + strlen(p);
	while (end > p && is_blank(end[-1]))
		*--end = '\0';

	it->id = options_lookup(word, &has_arg);
	if (it->id == OPT_NONE && options_suggest(word) != NULL)
		it->error =
		    xasprintf("'%s' is not an option; did you mean '--%s'?",
			word, options_suggest(word));
	else if (it->id == OPT_NONE)
		it->error = xasprintf("'%s' is not an option", word);
	else if (options_scope(it->id) == SCOPE_ARGV)
		it->error = xasprintf(
		    "%s belongs on the command line, not in a policy file",
		    word);
	else if (!has_arg && *p != '\0')
		it->error = xasprintf("%s takes no value", word);
	else if (has_arg && *p == '\0')
		it->error = xasprintf("%s needs a value", word);
	else if (has_arg)
		return take_value(pf, word, p, it);
	return true;
}

/*
 * The next option of the file into *IT (cleared first): 1, or 0 at the
 * end.  PF->lineno is the line it came from.
 */
int
policyfile_next(struct policyfile *pf, struct policyfile_item *it)
{
	policyfile_item_clear(it);
	while (pf->next != NULL && *pf->next != '\0') {
		char *line = pf->next;

		pf->next = strchr(line, '\n');
		if (pf->next != NULL)
			*pf->next++ = '\0';
		pf->lineno++;
		if (lex_line(pf, line, it))
			return 1;
		policyfile_item_clear(it);
	}
	return 0;
}
