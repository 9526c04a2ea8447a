/*
 * protect.c - host protection, applied to every policy.
 *
 * MUST: mask only what exists (sbox-exec creates nothing on the host);
 * yield to an explicit --ro/--rw/--allow-socket/--hide of the same path;
 * never widen what the policy shows.  The reason for each entry is in the
 * manual page, section HOST PROTECTION.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "protect.h"
#include "util.h"

/*
 * Sockets under /run through which a program can reach a service that
 * acts for it outside the sandbox: a read-only mount of a socket is still
 * connectable, so these are hidden, not made read-only.
 */
static const char *const run_services[] = {
	"dbus",			/* the D-Bus system bus */
	"docker.sock",		/* docker: root on the host */
	"docker",
	"containerd",
	"podman",
	"crio",
	"libvirt",
	"snapd.socket",
	"snapd-snap.socket",
	"systemd",		/* systemd's private and notify sockets */
};

/* Kept visible under a hidden /run/systemd: name resolution needs it. */
static const char *const run_keep[] = {
	"systemd/resolve",
};

/* Credential stores below the home directory. */
static const char *const home_secrets[] = {
	".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube",
	".docker", ".netrc", ".git-credentials", ".password-store",
	".local/share/keyrings", ".mozilla", ".config/google-chrome",
	".config/chromium",
};

enum want {
	WANT_HIDE,	/* masked: an empty directory or file */
	WANT_READONLY,	/* read-only where the user made it writable */
	WANT_KEEP,	/* shown read-only below a masked directory */
};

struct candidate {
	enum want want;
	char	*path;
};

struct plan {
	struct candidate *v;
	size_t	 n;
};

static void
plan_add(struct plan *pl, enum want want, char *path)
{
	pl->v = xreallocarray(pl->v, pl->n + 1, sizeof(*pl->v));
	pl->v[pl->n].want = want;
	pl->v[pl->n].path = path;
	pl->n++;
}

static void
plan_run_dir(struct plan *pl, const char *run)
{
	for (size_t i = 0; i < sizeof(run_services) / sizeof(*run_services);
	    i++)
		plan_add(pl, WANT_HIDE, xasprintf("%s/%s", run,
		    run_services[i]));
	for (size_t i = 0; i < sizeof(run_keep) / sizeof(*run_keep); i++)
		plan_add(pl, WANT_KEEP, xasprintf("%s/%s", run, run_keep[i]));
}

/* Everything we would like to protect, before looking at the policy. */
static void
plan_defaults(struct plan *pl, const struct policy *p,
    const struct protect_env *env)
{
	struct stat st;

	if (env->runtime_dir != NULL && env->runtime_dir[0] == '/')
		plan_add(pl, WANT_HIDE,
		    util_path_absolute(env->runtime_dir, "/"));
	plan_add(pl, WANT_HIDE, xasprintf("/run/user/%lu",
	    (unsigned long)env->uid));

	plan_run_dir(pl, "/run");
	/* Where /var/run is a directory of its own, not a link to /run. */
	if (lstat("/var/run", &st) == 0 && S_ISDIR(st.st_mode))
		plan_run_dir(pl, "/var/run");

	if (env->home != NULL && env->home[0] == '/') {
		cleanup_free char *home = util_path_absolute(env->home, "/");

		for (size_t i = 0;
		    i < sizeof(home_secrets) / sizeof(*home_secrets); i++)
			plan_add(pl, WANT_HIDE, xasprintf("%s/%s",
			    strcmp(home, "/") ? home : "", home_secrets[i]));
	}

	/* Hooks and config of a repository at the top of a writable dir. */
	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount *m = &p->mounts[i];

		if (m->kind != MOUNT_RW || m->protection)
			continue;
		plan_add(pl, WANT_READONLY, xasprintf("%s/.git/hooks",
		    m->dest));
		plan_add(pl, WANT_READONLY, xasprintf("%s/.git/config",
		    m->dest));
	}
}

/*
 * Add the protections that apply: the path exists, the sandbox would show
 * it from the host (writable, for the read-only ones), and the user did
 * not name it.  Decided on the policy as the user left it.
 */
void
protect_add_defaults(struct policy *p, const struct protect_env *env)
{
	struct plan pl = { 0 };
	enum mount_kind *kind;

	plan_defaults(&pl, p, env);
	kind = xcalloc(pl.n, sizeof(*kind));
	for (size_t i = 0; i < pl.n; i++) {
		const struct candidate *c = &pl.v[i];
		const struct mount *m = policy_mount_for(p, c->path);
		struct stat st;

		kind[i] = MOUNT_ROOT;	/* not taken */
		if (stat(c->path, &st) < 0 || policy_user_named(p, c->path) ||
		    m == NULL || !policy_mount_from_host(m->kind))
			continue;
		switch (c->want) {
		case WANT_HIDE:
			kind[i] = S_ISDIR(st.st_mode) ? MOUNT_HIDE_DIR :
			    MOUNT_HIDE_FILE;
			break;
		case WANT_READONLY:
			if (m->kind == MOUNT_RW)
				kind[i] = MOUNT_RO;
			break;
		case WANT_KEEP:
			kind[i] = MOUNT_RO;
			break;
		}
	}
	for (size_t i = 0; i < pl.n; i++) {
		if (kind[i] != MOUNT_ROOT) {
			cleanup_free char *src = kind[i] == MOUNT_RO ?
			    realpath(pl.v[i].path, NULL) : NULL;

			if (kind[i] != MOUNT_RO || src != NULL)
				policy_add_protection(p, kind[i],
				    pl.v[i].path, src);
		}
		free(pl.v[i].path);
	}
	free(kind);
	free(pl.v);
}
