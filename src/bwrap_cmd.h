/*
 * bwrap_cmd.h - the bwrap command: its argument vector and the descriptors
 * that vector names, with one owner for both (flatpak's FlatpakBwrap is
 * the model).
 *
 * The only place that knows bwrap's flags.  Building does no I/O: each
 * descriptor handed in is recorded with the number bwrap will see it
 * under (3 and up, in the order taken, around the descriptors kept as
 * they are), and the argument vector names that number.  Between fork and
 * exec, bwrap_cmd_child_setup() moves every descriptor to its number and
 * closes the rest.  So the launch and its -v line build the same command,
 * with the same numbers.  --print builds a line a shell can run as it is,
 * naming no descriptor, so it differs as sbox-exec(1), --print, says:
 * grants are bound by path (a shell cannot open the O_PATH descriptors
 * the launch binds), a hidden file is the host's /dev/null (no
 * hidden_fds), there is no seccomp filter (seccomp_fd -1), and the
 * command is the user's, not stage two, so nothing run from the printed
 * line gets Landlock or limits, and no launcher checks the sandbox.
 */
#ifndef SBOX_BWRAP_CMD_H
#define SBOX_BWRAP_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"
#include "util.h"

/* bwrap refuses more arguments than this ("Exceeded maximum number of
 * arguments"), counting every word after its own name. */
#define BWRAP_MAX_ARGS 9000

/* A descriptor the command hands bwrap. */
struct bwrap_fd {
	int fd;	    /* ours, close-on-exec; -1 once closed */
	int target; /* the number bwrap gets it as, which the argv names */
	bool owned; /* ours to close (a descriptor kept as it is is not) */
	char *what; /* what it holds, for a person, or NULL */
};

struct bwrap_cmd {
	struct strv argv;
	struct bwrap_fd *fds;
	size_t nfds, fds_cap;
	int *kept; /* the numbers of the descriptors kept as they are */
	size_t nkept, kept_cap;
	int next_target; /* above every number taken so far */
	int *targets;	 /* sorted, by bwrap_cmd_finish(): what survives exec */
	int *scratch;	 /* room for the child's copies, one per descriptor */
	int floor;	 /* above every target: where the copies go */
};

#define cleanup_bwrap_cmd __attribute__((cleanup(bwrap_cmd_free)))

/* What the sandbox is built from besides the policy; every descriptor in
 * it is taken (left -1 here), to be closed with the command. */
struct bwrap_input {
	const char *program; /* argv[0]: the bwrap found, by path */
	int *hidden_fds;     /* one per hidden file, read to EOF, or none */
	size_t nhidden;
	int seccomp_fd;	     /* the filter's program, or -1 for none */
	int *bind_fds;	     /* per mount: its source, opened; or -1 */
	size_t nbind;	     /* 0 (binds by path), or one per mount */
	bool disable_userns; /* bwrap supports --disable-userns */
};

size_t bwrap_cmd_hidden_files(const struct policy *);
void bwrap_cmd_add(struct bwrap_cmd *, const char *);
void bwrap_cmd_addf(struct bwrap_cmd *, const char *, ...) SBOX_PRINTF(2, 3);
void bwrap_cmd_add_args(struct bwrap_cmd *, char *const *);
void bwrap_cmd_keep_fd(struct bwrap_cmd *, int, const char *);
int bwrap_cmd_take_fd(struct bwrap_cmd *, int *, const char *);
void bwrap_cmd_build(struct bwrap_cmd *, const struct policy *,
    struct bwrap_input *);
void bwrap_cmd_finish(struct bwrap_cmd *);
int bwrap_cmd_child_setup(const struct bwrap_cmd *);
void bwrap_cmd_close_fds(struct bwrap_cmd *);
void bwrap_cmd_free(struct bwrap_cmd *);

#endif
