/*
 * protect.h - the host-protection defaults: what a sandboxed program
 * could use to act outside the sandbox or to steal credentials, masked
 * unless the user grants it by name.
 */
#ifndef SBOX_PROTECT_H
#define SBOX_PROTECT_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "creds.h"
#include "policy.h"

struct protect_env {
	const char *homes[2];	 /* $HOME and the passwd entry's */
	const char *runtime_dir; /* $XDG_RUNTIME_DIR, or NULL */
	uid_t uid;
	char **status_sockets; /* pathname ones are masked too */
	size_t nstatus_sockets;
	const struct creds_list *creds; /* masks and socket places */
	const struct creds_env *cenv;	/* what patterns expand with */
};

int protect_add_defaults(struct policy *, const struct protect_env *,
    struct sbox_error *);
int protect_check_setuid(const struct policy *, struct sbox_error *);

/* Told each path the after-run audit found changed. */
typedef void (*protect_report_fn)(void *, const char *);

bool protect_audit_git(const struct policy *, const struct protect_env *,
    const struct timespec *, protect_report_fn, void *);

#endif
