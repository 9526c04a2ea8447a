/*
 * fuzz_cli.c - libFuzzer target for the command line and policy files.
 *
 * Each input is used three ways, none of which looks at the host: as the
 * text of a policy file, lexed by policyfile.c with variables from a fixed
 * table; split at NUL and newline bytes into argv words for cli_parse();
 * and as the paths of a policy built from the lexed lines without
 * resolving them, turned into the bwrap argument vector as --print would.
 * Whatever is refused must say why and render as a valid status line.
 * Everything is freed after each input, so that LeakSanitizer sees every
 * allocation forgotten.  Built and run by scripts/fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bwrap_cmd.h"
#include "cli.h"
#include "policyfile.h"
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
	/* Kept for resolve_invocation(): what shapes the sandbox, each with
	 * a value exactly when it takes one. */
	for (size_t i = 0; i < inv->nrequests; i++) {
		const struct cli_request *rq = &inv->requests[i];
		char word[64];
		bool has_arg = false;

		snprintf(word, sizeof(word), "--%s", options_name(rq->id));
		if (options_scope(rq->id) == SCOPE_ARGV ||
		    options_lookup(word, &has_arg) != rq->id ||
		    has_arg != (rq->value != NULL) ||
		    (rq->id == OPT_SETENV) != (rq->value2 != NULL))
			abort();
	}
}

/* An error message of the lexer: one line of text. */
static void
check_message(const char *msg)
{
	struct status_report sr = {
		.status = SBOX_INVALID_POLICY,
		.detail = msg,
	};
	char *line = status_render(&sr);
	size_t len = strlen(line);

	if (msg[0] == '\0' || len == 0 || len > STATUS_MAX ||
	    line[len - 1] != '\n' || memchr(line, '\n', len - 1) != NULL)
		abort();
	free(line);
}

static const char *
lookup(const char *name, void *ctx)
{
	(void)ctx;
	if (strcmp(name, "CWD") == 0)
		return "/work/dir";
	if (strcmp(name, "HOME") == 0)
		return "/home/user";
	return strcmp(name, "EMPTY") == 0 ? "" : NULL;
}

/* The lines' grants as mounts, unresolved, and the argv they make. */
static void
build_argv(struct policy *p)
{
	cleanup_bwrap_cmd struct bwrap_cmd cmd = { 0 };
	cleanup_buf struct buf shell = { 0 };
	cleanup_free int *fds = NULL;
	char *command[] = { "true", NULL };
	const struct strv *argv = &cmd.argv;
	struct bwrap_input in = {
		.program = "/usr/bin/bwrap",
		.seccomp_fd = -1,
		.disable_userns = true,
	};

	struct sbox_error err = { 0 };

	policy_add_mount(p, MOUNT_ROOT, "/", "/");
	/* Ordered and checked as resolve.c leaves a policy; a refusal
	 * there must say why. */
	if (policy_finish(p, &err) < 0) {
		if (err.detail == NULL)
			abort();
		check_message(err.detail);
		sbox_error_clear(&err);
		return;
	}
	in.nhidden = bwrap_cmd_hidden_files(p);
	fds = xcalloc(in.nhidden + 1, sizeof(int));
	/* Numbers no descriptor has: nothing is opened here. */
	for (size_t i = 0; i < in.nhidden; i++)
		fds[i] = 1000000 + (int)i;
	in.hidden_fds = fds;
	bwrap_cmd_build(&cmd, p, &in);
	bwrap_cmd_add_args(&cmd, command);
	if (argv->n == 0 || argv->v[argv->n] != NULL ||
	    strcmp(argv->v[0], "/usr/bin/bwrap") != 0)
		abort();
	for (size_t i = 0; i < argv->n; i++) {
		util_shell_quote(&shell, argv->v[i]);
		buf_addc(&shell, ' ');
	}
}

/* The input as the text of a policy file. */
static void
fuzz_policy_file(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1);
	struct policyfile pf;
	struct policyfile_item it = { 0 };
	struct policy p;
	unsigned long last = 0;

	memcpy(text, data, size);
	text[size] = '\0';
	policy_init(&p, "/work/dir");
	policyfile_init(&pf, text, lookup, NULL);
	while (policyfile_next(&pf, &it) > 0) {
		if (pf.lineno <= last)
			abort();
		last = pf.lineno;
		if (it.error != NULL) {
			check_message(it.error);
			continue;
		}
		if (it.id <= OPT_NONE || it.id >= OPT_END ||
		    options_scope(it.id) == SCOPE_ARGV ||
		    (it.id == OPT_SETENV && it.value2 == NULL))
			abort();
		if (it.value == NULL || it.value[0] != '/')
			continue;
		if (it.id == OPT_RW || it.id == OPT_RO)
			policy_add_mount(&p,
			    it.id == OPT_RW ? MOUNT_RW : MOUNT_RO, it.value,
			    it.value);
		else if (it.id == OPT_HIDE)
			policy_add_mount(&p, MOUNT_HIDE_FILE, it.value, NULL);
	}
	policyfile_item_clear(&it);
	build_argv(&p);
	policy_free(&p);
	free(text);
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
