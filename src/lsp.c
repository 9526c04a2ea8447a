/*
 * lsp.c - the first message of an LSP session, rewritten: an initialize
 * request's "processId" made null (sbox-exec(1), "Language servers").
 *
 * The base protocol frames each message with a header: lines of
 * "Name: value" ending in CRLF, an empty line, then Content-Length bytes
 * of JSON.  Only params.processId of a request whose method is
 * "initialize" is changed, and the Content-Length with it; every other
 * byte (the other header lines, the rest of the JSON, its spacing) is
 * kept.  The JSON is walked by its grammar, so that "processId" in a
 * string or deeper in the message is never taken for the field.
 *
 * Pure: no I/O of any kind.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lsp.h"
#include "util.h"

/* Deeper JSON than this is not walked (the message passes unchanged). */
#define DEPTH_MAX 64
/* The longest header the launcher reads. */
#define HEADER_MAX 8192

/*
 * The header of the message at the start of BUF (LEN bytes): its length
 * with the empty line in *HLEN, the body's (Content-Length) in *BLEN.
 * LSP_FRAME_OK only when the body is there too.
 */
enum lsp_frame
lsp_frame(const char *buf, size_t len, size_t *hlen, size_t *blen)
{
	const char *end = NULL;
	bool have = false;
	size_t body = 0;

	for (size_t i = 0; i + 3 < len && i < HEADER_MAX; i++)
		if (memcmp(buf + i, "\r\n\r\n", 4) == 0) {
			end = buf + i + 4;
			break;
		}
	if (end == NULL)
		return len >= HEADER_MAX ? LSP_FRAME_BAD : LSP_FRAME_MORE;
	for (const char *p = buf; p < end - 2;) {
		const char *eol = memchr(p, '\r', (size_t)(end - p));
		const char *colon = memchr(p, ':', (size_t)(eol - p));

		if (colon == NULL || eol[1] != '\n')
			return LSP_FRAME_BAD;
		if ((size_t)(colon - p) == 14 &&
		    strncasecmp(p, "Content-Length", 14) == 0) {
			const char *v = colon + 1;
			char *stop;
			unsigned long n;

			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			if (have || v == eol || *v < '0' || *v > '9')
				return LSP_FRAME_BAD;
			errno = 0;
			n = strtoul(v, &stop, 10);
			while (stop < eol && (*stop == ' ' || *stop == '\t'))
				stop++;
			if (errno != 0 || stop != eol || n > LSP_FIRST_MAX)
				return LSP_FRAME_BAD;
			body = n;
			have = true;
		}
		p = eol + 2;
	}
	if (!have)
		return LSP_FRAME_BAD;
	*hlen = (size_t)(end - buf);
	*blen = body;
	return (size_t)(end - buf) + body <= len ? LSP_FRAME_OK :
						   LSP_FRAME_MORE;
}

/* A cursor over a JSON text. */
struct json {
	const char *p, *end;
};

static void
ws(struct json *j)
{
	while (j->p < j->end &&
	    (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* A string at the cursor: its content (escapes unread) in *S, *N. */
static bool
string(struct json *j, const char **s, size_t *n)
{
	if (j->p >= j->end || *j->p != '"')
		return false;
	*s = ++j->p;
	while (j->p < j->end && *j->p != '"') {
		if ((unsigned char)*j->p < 0x20)
			return false;
		if (*j->p == '\\' && ++j->p >= j->end)
			return false;
		j->p++;
	}
	if (j->p >= j->end)
		return false;
	*n = (size_t)(j->p++ - *s);
	return true;
}

static bool value(struct json *, int);

/* An object or array at the cursor, skipped. */
static bool
container(struct json *j, int depth)
{
	char close = *j->p == '{' ? '}' : ']';
	const char *s;
	size_t n;

	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return true;
	}
	for (;;) {
		if (close == '}') {
			if (!string(j, &s, &n))
				return false;
			ws(j);
			if (j->p >= j->end || *j->p++ != ':')
				return false;
		}
		if (!value(j, depth + 1))
			return false;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			ws(j);
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return true;
		}
		return false;
	}
}

/* Any value at the cursor, skipped (leading blanks too). */
static bool
value(struct json *j, int depth)
{
	const char *s;
	size_t n;

	ws(j);
	if (j->p >= j->end || depth > DEPTH_MAX)
		return false;
	if (*j->p == '{' || *j->p == '[')
		return container(j, depth);
	if (*j->p == '"')
		return string(j, &s, &n);
	s = j->p;
	while (j->p < j->end && strchr("+-.0123456789eEtruefalsn", *j->p))
		j->p++;
	return j->p > s;
}

/* Where an object's member NAME's value is, from the cursor at '{': its
 * first and past-last byte.  False when the object has none (or is not
 * one). */
static bool
member(struct json j, const char *name, const char **v, const char **vend)
{
	size_t want = strlen(name);
	bool found = false;

	ws(&j);
	if (j.p >= j.end || *j.p != '{')
		return false;
	j.p++;
	ws(&j);
	while (j.p < j.end && *j.p != '}') {
		const char *s;
		size_t n;

		if (!string(&j, &s, &n))
			return false;
		ws(&j);
		if (j.p >= j.end || *j.p++ != ':')
			return false;
		ws(&j);
		if (n == want && memcmp(s, name, n) == 0) {
			if (found) /* twice: which one counts is unclear */
				return false;
			found = true;
			*v = j.p;
		}
		if (!value(&j, 1))
			return false;
		if (found && *v != NULL && *vend == NULL)
			*vend = j.p;
		ws(&j);
		if (j.p < j.end && *j.p == ',') {
			j.p++;
			ws(&j);
		} else if (j.p >= j.end || *j.p != '}') {
			return false;
		}
	}
	return found;
}

/*
 * The whole message MSG (header HLEN bytes, body after it, LEN in all):
 * when it is an initialize request whose params.processId is a positive
 * integer, the message with that value made null and its Content-Length
 * changed to match, in OUT, and the integer in *PID.  False otherwise,
 * OUT untouched: the message is to pass as it is.
 */
bool
lsp_rewrite_first(const char *msg, size_t hlen, size_t len, struct buf *out,
    pid_t *pid)
{
	struct json body = { msg + hlen, msg + len }, check = body;
	const char *m = NULL, *mend = NULL, *params = NULL, *pend = NULL;
	const char *v = NULL, *vend = NULL;
	struct json pj;
	char *stop;
	long n;
	size_t cl;

	/* Valid JSON throughout, or nothing is changed. */
	if (!value(&check, 0) || (ws(&check), check.p != check.end))
		return false;
	if (!member(body, "method", &m, &mend) || (size_t)(mend - m) != 12 ||
	    memcmp(m, "\"initialize\"", 12) != 0)
		return false;
	if (!member(body, "params", &params, &pend))
		return false;
	pj = (struct json){ params, pend };
	if (!member(pj, "processId", &v, &vend) || *v < '1' || *v > '9')
		return false;
	errno = 0;
	n = strtol(v, &stop, 10);
	if (errno != 0 || stop != vend || n > INT_MAX)
		return false;
	*pid = (pid_t)n;
	cl = (len - hlen) - (size_t)(vend - v) + 4;
	/* The header again, its Content-Length value replaced. */
	for (const char *p = msg; p < msg + hlen;) {
		const char *nl = memchr(p, '\n', (size_t)(msg + hlen - p));
		const char *eol = nl + 1;

		if (strncasecmp(p, "Content-Length", 14) == 0 && p[14] == ':')
			buf_addf(out, "Content-Length: %zu\r\n", cl);
		else
			buf_add(out, p, (size_t)(eol - p));
		p = eol;
	}
	buf_add(out, msg + hlen, (size_t)(v - msg - hlen));
	buf_adds(out, "null");
	buf_add(out, vend, (size_t)(msg + len - vend));
	return true;
}
