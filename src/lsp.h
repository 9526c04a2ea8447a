/*
 * lsp.h - the first message of a Language Server Protocol session, read
 * and rewritten for --lsp (sbox-exec(1), "Language servers"): the base
 * protocol's framing, and the processId of an initialize request.
 */
#ifndef SBOX_LSP_H
#define SBOX_LSP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util.h"

/* The most the launcher holds back of a first message to rewrite it;
 * a larger one passes unchanged. */
#define LSP_FIRST_MAX (4u << 20)

enum lsp_frame {
	LSP_FRAME_MORE, /* not whole yet */
	LSP_FRAME_OK,	/* a whole message */
	LSP_FRAME_BAD,	/* not the base protocol's framing, or too large */
};

enum lsp_frame lsp_frame(const char *, size_t, size_t *, size_t *);
bool lsp_rewrite_first(const char *, size_t, size_t, struct buf *, pid_t *);

#endif
