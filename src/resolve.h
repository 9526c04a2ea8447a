/*
 * resolve.h - a parsed invocation made concrete against this host.
 *
 * After cli_parse(): reads the policy files and profiles, resolves every
 * path, adds the base mounts and the host protection, and checks the
 * result; the first problem goes to inv->err.  Never prints.  Reads the
 * host and writes it only for a run: given HOLDS, host protection may make
 * placeholders there (protect.c), which belong to the launch and are
 * its caller's to let go (protect_release()); with NULL it makes none.
 */
#ifndef SBOX_RESOLVE_H
#define SBOX_RESOLVE_H

#include "cli.h"
#include "nolearn.h"
#include "protect.h"

int resolve_invocation(struct invocation *, struct protect_holds *);
char *resolve_passwd_home(void);
int resolve_never_learned(const struct invocation *, struct nolearn_list *,
    struct sbox_error *);

#endif
