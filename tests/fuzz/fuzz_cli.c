/*
 * fuzz_cli.c - libFuzzer target for the command line and policy files.
 *
 * Each input is used twice: as the text of a policy file, read through
 * --policy=/proc/self/fd/N from a memfd with --print and a command, the way
 * a user's file is; and split at NUL and newline bytes into argv words
 * handed to cli_parse() directly.  Whatever parses is turned into the bwrap
 * argument vector, as --print would; whatever is refused must say why and
 * render as a valid status line.  cli_free() after each parse, so that
 * LeakSanitizer sees every allocation the parser forgot.
 *
 * The parser looks at the host (stat, realpath, getenv, /etc/passwd): it
 * reads and never writes, so any input is safe to run here.  Built and run
 * by scripts/fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bwrap_cmd.h"
#include "cli.h"
#include "status.h"
#include "util.h"

#define MAX_WORDS 64

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* What must hold after any parse, refused or not. */
static void
check_invocation(struct invocation *inv, int r)
{
	if ((r == 0) != (inv->err.detail == NULL))
		abort();
	if (inv->err.detail != NULL) {
		struct status_report sr = {
			.status = inv->err.status,
			.detail = inv->err.detail,
			.hint = inv->err.hint,
		};
		char *line = status_render(&sr);
		size_t len = strlen(line);

		if (len == 0 || len > STATUS_MAX || line[len - 1] != '\n' ||
		    memchr(line, '\n', len - 1) != NULL)
			abort();
		free(line);
		return;
	}
	if ((inv->mode == MODE_RUN || inv->mode == MODE_PRINT) &&
	    inv->command != NULL && inv->command[0] != NULL) {
		cleanup_bwrap_cmd struct bwrap_cmd cmd = { 0 };
		cleanup_buf struct buf shell = { 0 };
		size_t n = bwrap_cmd_hidden_files(&inv->policy);
		cleanup_free int *fds = xcalloc(n, sizeof(int));
		struct bwrap_input in = {
			.program = "/usr/bin/bwrap",
			.hidden_fds = fds,
			.nhidden = n,
			.seccomp_fd = -1,
			.disable_userns = true,
		};
		const struct strv *argv = &cmd.argv;

		/* Numbers no descriptor has: the command closes them. */
		for (size_t i = 0; i < n; i++)
			fds[i] = 1000000 + (int)i;
		bwrap_cmd_build(&cmd, &inv->policy, &in);
		bwrap_cmd_add_args(&cmd, inv->command);
		if (argv->n == 0 || argv->v[argv->n] != NULL ||
		    strcmp(argv->v[0], "/usr/bin/bwrap") != 0)
			abort();
		for (size_t i = 0; i < argv->n; i++) {
			util_shell_quote(&shell, argv->v[i]);
			buf_addc(&shell, ' ');
		}
	}
}

/* The input as the contents of a --policy file. */
static void
fuzz_policy_file(const uint8_t *data, size_t size)
{
	struct invocation inv;
	char opt[64];
	char *argv[] = { "sbox-exec", opt, "--print", "--", "true", NULL };
	int fd, r;

	fd = memfd_create("fuzz.policy", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(opt, sizeof(opt), "--policy=/proc/self/fd/%d", fd);
	r = cli_parse(&inv, 5, argv);
	check_invocation(&inv, r);
	cli_free(&inv);
	close(fd);
}

/* The input as argv words, separated by NUL or newline bytes. */
static void
fuzz_argv(const uint8_t *data, size_t size)
{
	struct invocation inv;
	char *copy = malloc(size + 1), *argv[MAX_WORDS + 2];
	int argc = 0, r;
	size_t start = 0;

	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[argc++] = "sbox-exec";
	for (size_t i = 0; i <= size && argc < MAX_WORDS + 1; i++) {
		if (i == size || copy[i] == '\0' || copy[i] == '\n') {
			copy[i] = '\0';
			argv[argc++] = copy + start;
			start = i + 1;
		}
	}
	argv[argc] = NULL;
	r = cli_parse(&inv, argc, argv);
	check_invocation(&inv, r);
	cli_free(&inv);
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Policy files are capped at 1 MiB; past that only the cap runs. */
	if (size > (1 << 16))
		return 0;
	fuzz_policy_file(data, size);
	fuzz_argv(data, size);
	return 0;
}
