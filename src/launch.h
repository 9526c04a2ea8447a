/*
 * launch.h - create the sandbox once, report, and hand it the command.
 *
 * sbox-exec forks bwrap, whose first program inside the sandbox is
 * sbox-exec again ("stage two", run from a descriptor of its own
 * executable).  Stage two tells the launcher it is up, waits for the
 * go-ahead (sent after the status), restores the caller's stderr, closes
 * every descriptor not kept and execs the command.  The launcher stays as
 * the process the caller spawned: it forwards signals to the command and
 * exits with bwrap's status.
 */
#ifndef SBOX_LAUNCH_H
#define SBOX_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

#include "cli.h"
#include "locate.h"
#include "protect.h"
#include "sbox.h"

/* Called once the sandbox exists, before the command may start, with the
 * launcher's pid and the file stage two will execute (NULL: --check). */
typedef void (*launch_ready_fn)(void *, pid_t, const char *);

struct launch_spec {
	const struct invocation *inv;
	const struct located *located;	   /* the bwrap to run */
	const struct protect_holds *holds; /* placeholders, kept open */
	launch_ready_fn ready;
	void *ready_ctx;
};

/*
 * launch_sandbox()'s answer when bwrap could not set up a path that is
 * gone from the host since the launch planned it: nothing ran, and the
 * caller may plan the sandbox again and launch once more.
 */
#define LAUNCH_REPLAN (-2)

int launch_sandbox(const struct launch_spec *, int *, struct sbox_error *);
int launch_print(const struct invocation *, const struct located *,
    struct sbox_error *);

#endif
