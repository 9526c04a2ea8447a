/*
 * watch.h - seeing the writes and connections the sandbox refuses
 * (DENIALS in sbox-exec(1)).
 *
 * Stage two installs a second seccomp filter, after bwrap's, that sends
 * every call that may write a file (an open for writing or creating,
 * mkdir, unlink, rename, link, symlink, chmod, chown, truncate, utimes,
 * xattrs) and every connect() to the launcher with SECCOMP_RET_USER_NOTIF,
 * and passes the filter's listener out with its report.  The launcher
 * reads the path, answers at once with SECCOMP_USER_NOTIF_FLAG_CONTINUE
 * (so the kernel carries the call out as if nothing had looked: a
 * refused write still fails with the error it fails with today), and
 * only then decides whether the sandbox refused it and which grant would
 * allow it.  The kernel's precedence (ERRNO and KILL before USER_NOTIF)
 * means this filter can never let through what bwrap's filter refuses.
 */
#ifndef SBOX_WATCH_H
#define SBOX_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "policy.h"
#include "util.h"

struct sock_filter;

#define WATCH_PROG_MAX 96

size_t watch_build(struct sock_filter *, size_t);
int watch_install(void);
int watch_start(int, pid_t, const struct policy *, const char *, const char *,
    const struct strv *);
void watch_stop(void);
void watch_keep_fds(int *, size_t *);
void watch_hold(void);
void watch_release(void);

#endif
