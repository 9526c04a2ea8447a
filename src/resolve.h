/*
 * resolve.h - a parsed invocation made concrete against this host.
 *
 * After cli_parse(): reads the policy files and profiles, resolves every
 * path, adds the base mounts and the host protection, and checks the
 * result; the first problem goes to inv->err.  Reads the host, never
 * writes it, never prints.
 */
#ifndef SBOX_RESOLVE_H
#define SBOX_RESOLVE_H

#include "cli.h"
#include "nolearn.h"

int resolve_invocation(struct invocation *);
int resolve_never_learned(const struct invocation *, struct nolearn_list *,
    struct sbox_error *);

#endif
