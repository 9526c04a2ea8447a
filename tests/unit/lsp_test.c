/*
 * Unit tests of lsp.c: the base protocol's framing, and the processId of
 * an initialize request made null with every other byte kept
 * (sbox-exec(1), "Language servers").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsp.h"
#include "tap.h"

/* BODY framed with a Content-Length that fits it, and EXTRA header lines. */
static char *
framed(const char *extra, const char *body)
{
	char *m = NULL;

	if (asprintf(&m, "Content-Length: %zu\r\n%s\r\n%s", strlen(body), extra,
		body) < 0)
		abort();
	return m;
}

/* BODY rewritten: the new body (or "unchanged"), and the pid found. */
static void
rewrites(const char *name, const char *body, const char *want, pid_t want_pid)
{
	char *m = framed("", body), *got;
	struct buf out = { 0 };
	size_t hlen = 0, blen = 0;
	pid_t pid = 0;

	ok(lsp_frame(m, strlen(m), &hlen, &blen) == LSP_FRAME_OK &&
		blen == strlen(body),
	    "%s: framed", name);
	if (!lsp_rewrite_first(m, hlen, strlen(m), &out, &pid)) {
		is_str("unchanged", want, name);
	} else {
		char *w = framed("", want);

		buf_addc(&out, '\0');
		got = out.s;
		is_str(got, w, name);
		ok(pid == want_pid, "%s: pid %d", name, (int)pid);
		free(w);
	}
	buf_clear(&out);
	free(m);
}

static void
test_frame(void)
{
	size_t h = 0, b = 0;
	const char *m = "Content-Length: 2\r\n\r\n{}";

	for (size_t i = 0; i < strlen(m); i++)
		ok(lsp_frame(m, i, &h, &b) == LSP_FRAME_MORE,
		    "a message cut after %zu bytes wants more", i);
	ok(lsp_frame(m, strlen(m), &h, &b) == LSP_FRAME_OK && h == 21 && b == 2,
	    "whole");
	ok(lsp_frame("content-length:2\r\n\r\n{}", 22, &h, &b) == LSP_FRAME_OK,
	    "the header's name in any case, no blank");
	ok(lsp_frame("Content-Type: x\r\n\r\n{}", 21, &h, &b) == LSP_FRAME_BAD,
	    "no Content-Length");
	ok(lsp_frame("Content-Length: 2x\r\n\r\n{}", 24, &h, &b) ==
		LSP_FRAME_BAD,
	    "a length that is not a number");
	ok(lsp_frame("Content-Length: -2\r\n\r\n{}", 24, &h, &b) ==
		LSP_FRAME_BAD,
	    "a negative length");
	ok(lsp_frame("Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", 42, &h,
	       &b) == LSP_FRAME_BAD,
	    "two lengths");
	ok(lsp_frame("Content-Length: 99999999999\r\n\r\n", 33, &h, &b) ==
		LSP_FRAME_BAD,
	    "a length above LSP_FIRST_MAX");
	ok(lsp_frame("hello world\n", 12, &h, &b) == LSP_FRAME_MORE,
	    "not yet a header");
}

int
main(void)
{
	test_frame();
	rewrites("the editor's pid",
	    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"processId\":4242,\"rootUri\":null}}",
	    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"processId\":null,\"rootUri\":null}}",
	    4242);
	rewrites("spacing kept, params before method",
	    "{ \"params\" : { \"a\" : [1, {\"processId\": 7}], \"processId\" : 123 } ,\n \"method\" : \"initialize\", \"id\": 1 }",
	    "{ \"params\" : { \"a\" : [1, {\"processId\": 7}], \"processId\" : null } ,\n \"method\" : \"initialize\", \"id\": 1 }",
	    123);
	rewrites("processId in a string is not the field",
	    "{\"method\":\"initialize\",\"params\":{\"rootPath\":\"\\\"processId\\\":9\"}}",
	    "unchanged", 0);
	rewrites("null already",
	    "{\"method\":\"initialize\",\"params\":{\"processId\":null}}",
	    "unchanged", 0);
	rewrites("another method",
	    "{\"method\":\"initialized\",\"params\":{\"processId\":5}}",
	    "unchanged", 0);
	rewrites("a notification's params at the top only",
	    "{\"method\":\"initialize\",\"x\":{\"params\":{\"processId\":5}}}",
	    "unchanged", 0);
	rewrites("not a whole integer",
	    "{\"method\":\"initialize\",\"params\":{\"processId\":5.5}}",
	    "unchanged", 0);
	rewrites("negative",
	    "{\"method\":\"initialize\",\"params\":{\"processId\":-5}}",
	    "unchanged", 0);
	rewrites("too large",
	    "{\"method\":\"initialize\",\"params\":{\"processId\":99999999999}}",
	    "unchanged", 0);
	rewrites("invalid JSON",
	    "{\"method\":\"initialize\",\"params\":{\"processId\":5}",
	    "unchanged", 0);
	rewrites("twice",
	    "{\"method\":\"initialize\",\"params\":{\"processId\":5,\"processId\":6}}",
	    "unchanged", 0);
	{
		char *m = framed(
		    "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n",
		    "{\"method\":\"initialize\",\"params\":{\"processId\":77}}");
		struct buf out = { 0 };
		size_t h = 0, b = 0;
		pid_t pid = 0;

		ok(lsp_frame(m, strlen(m), &h, &b) == LSP_FRAME_OK &&
			lsp_rewrite_first(m, h, strlen(m), &out, &pid),
		    "another header line");
		buf_addc(&out, '\0');
		is_str(out.s,
		    "Content-Length: 51\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"method\":\"initialize\",\"params\":{\"processId\":null}}",
		    "another header line kept, the length changed");
		buf_clear(&out);
		free(m);
	}
	return tap_done();
}
