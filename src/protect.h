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

/*
 * What a launch put on the host to hold a name git would follow (a
 * placeholder where a repository has no commondir, config.worktree or
 * modules/) and what it holds a lock on: released after the run.
 */
struct protect_hold {
	char *path;
	int fd;	   /* a shared flock() on it, while the sandbox runs */
	bool made; /* a placeholder: removed, when no other holds it */
	dev_t dev;
	ino_t ino;
};

struct protect_holds {
	struct protect_hold *v;
	size_t n, cap;
};

struct protect_env {
	const char *homes[2];	   /* $HOME and the passwd entry's */
	const char *homes_real[2]; /* the same resolved, if known (or NULL) */
	const char *runtime_dir;   /* $XDG_RUNTIME_DIR, or NULL */
	uid_t uid;
	char **status_sockets; /* pathname ones are masked too */
	size_t nstatus_sockets;
	const struct creds_list *creds;	 /* masks and socket places */
	const struct creds_env *cenv;	 /* what patterns expand with */
	struct protect_holds *holds;	 /* placeholders may be made: a run */
	struct strv *warnings;		 /* said on stderr (but with -q) */
	const struct strv *config_files; /* policy files read, --learn's */
};

int protect_add_defaults(struct policy *, const struct protect_env *,
    struct sbox_error *);
int protect_check_setuid(const struct policy *, struct sbox_error *);
void protect_release(struct protect_holds *);

/* Told each path the after-run audit found changed. */
typedef void (*protect_report_fn)(void *, const char *);

bool protect_audit_git(const struct policy *, const struct protect_env *,
    const struct timespec *, protect_report_fn, void *);

#endif
