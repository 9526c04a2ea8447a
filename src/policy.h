/*
 * policy.h - the sandbox a user asked for, as data.
 *
 * A policy is what the options mean once paths are resolved: the mounts in
 * the order they were given, the network choice, the working directory, the
 * environment operations and the descriptors to keep.  resolve.c builds it
 * (with protect.c's masks); the bwrap argument builder turns it into
 * bwrap's words, and the launcher reads it for what it must do itself
 * (the terminal, Landlock, the git audit).  Pure: no I/O in policy.c.
 */
#ifndef SBOX_POLICY_H
#define SBOX_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "netpolicy.h"
#include "sbox.h"

enum fs_mode {
	FS_HOST,
	FS_MINIMAL,
};

enum mount_kind {
	MOUNT_ROOT,	 /* the host root, read-only (--fs=host) */
	MOUNT_SYSTEM,	 /* a system directory, read-only (--fs=minimal) */
	MOUNT_SYMLINK,	 /* a usrmerge symlink, recreated (--fs=minimal) */
	MOUNT_DEV,	 /* fresh /dev */
	MOUNT_PROC,	 /* fresh /proc */
	MOUNT_TMP,	 /* private empty /tmp */
	MOUNT_RO,	 /* --ro */
	MOUNT_RW,	 /* --rw */
	MOUNT_HIDE_DIR,	 /* --hide of a directory: empty, read-only */
	MOUNT_HIDE_FILE, /* --hide of anything else: empty file */
};

struct mount {
	enum mount_kind kind;
	char *dest;	 /* absolute, normalised: where the sandbox sees it */
	char *src;	 /* host path, symlinks resolved (or link target) */
	size_t seq;	 /* order given, to break ties between equals */
	bool protection; /* a host-protection default, not asked for */
	char *given;	 /* as the user wrote it, when a link led away */
	bool from_file;	 /* a grant read from a policy file, not typed */
};

enum env_kind {
	ENV_SET,
	ENV_UNSET,
	ENV_CLEAR,
};

struct envop {
	enum env_kind kind;
	char *name;
	char *value;
};

struct policy {
	enum fs_mode fs;
	bool net;
	struct netpolicy egress; /* --allow-host, --deny-host */
	bool tty;		 /* keep the controlling terminal */
	bool lsp;		 /* --lsp: the input relayed (lsprelay.c) */
	char *cwd;		 /* working directory of sbox-exec */
	char *chdir;		 /* working directory inside, absolute */
	struct mount *mounts;
	size_t nmounts, mounts_cap;
	struct envop *env;
	size_t nenv, env_cap;
	int *keep_fds;
	size_t nkeep, keep_cap;
};

void policy_init(struct policy *, const char *);
void policy_free(struct policy *);
struct mount *policy_add_mount(struct policy *, enum mount_kind, const char *,
    const char *);
void policy_add_protection(struct policy *, enum mount_kind, const char *,
    const char *);
bool policy_user_named(const struct policy *, const char *);
bool policy_user_shows(const struct policy *, const char *, const char *, bool);
void policy_add_env(struct policy *, enum env_kind, const char *, const char *);
const char *policy_env_value(const struct policy *, const char *, const char *);
void policy_add_keep_fd(struct policy *, int);
bool policy_keeps_fd(const struct policy *, int);
int policy_finish(struct policy *, struct sbox_error *);
const struct mount *policy_mount_for(const struct policy *, const char *);
bool policy_path_visible(const struct policy *, const char *);
bool policy_mount_from_host(enum mount_kind);
bool policy_proxied(const struct policy *);

#endif
