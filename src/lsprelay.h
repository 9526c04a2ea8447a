/*
 * lsprelay.h - --lsp (sbox-exec(1), "Language servers"): the caller's
 * input relayed to the command by a thread of the launcher, the first
 * initialize request's processId made null, and the editor it named
 * watched from outside: when it ends, so does the sandbox.
 */
#ifndef SBOX_LSPRELAY_H
#define SBOX_LSPRELAY_H

/* How long the command has to end after SIGTERM once the editor has
 * gone, before the sandbox is killed. */
#define LSPRELAY_GRACE_MS 2000

int lsprelay_start(int, int, int, int);
void lsprelay_stop(void);

#endif
