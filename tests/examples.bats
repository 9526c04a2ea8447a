#!/usr/bin/env bats
# docs/INTEGRATION.md's example clients, docs/examples/lsp-client.py (the
# status on an abstract socket, credentials checked) and lsp-client.mjs
# (the status on a fourth pipe, --status-fd=3): each starts clangd under
# --profile=clangd from a fresh home, completes an LSP session with a
# definition into another file of the project, and tells a refusal, a
# server missing from the sandbox's view and a launch that sends no status
# (sbox-exec(1), STATUS) apart.  As root and as an unprivileged user.

load helpers

setup() {
	requires bwrap python3 clangd node
	D=$(scratch_dir)
	# The tiny C project: main.c calls answer(), which util.h defines.
	mkdir "$D/project"
	printf '#include "util.h"\n\nint\nmain(void)\n{\n\treturn answer() - 42;\n}\n' \
		>"$D/project/main.c"
	printf '#ifndef UTIL_H\n#define UTIL_H\n\nstatic inline int\nanswer(void)\n{\n\treturn 42;\n}\n\n#endif\n' \
		>"$D/project/util.h"
	chmod 0755 "$D/project"
	PY_CLIENT=$(unpriv_copy "$TESTS_DIR/../docs/examples/lsp-client.py")
	NODE_CLIENT=$(unpriv_copy "$TESTS_DIR/../docs/examples/lsp-client.mjs")
	NODE=$(command -v node)
}

# client KIND ARGS...: the Python or Node client as the pass's user, with a
# home of its own that holds nothing yet, from /; exit in $status, what it
# printed in $output.
client() {
	local kind=$1 home
	shift
	cd / || return 1
	home=$D/home-${AS:-root}
	rm -rf "$home"
	usr mkdir -m 0700 "$home"
	local env=(env -u XDG_CONFIG_HOME -u XDG_CACHE_HOME -u XDG_DATA_HOME
		HOME="$home" SBOX_EXEC="$SBOX")
	case $kind in
	py) run usr timeout 60 "${env[@]}" "$PY" "$PY_CLIENT" "$@" "$D/project" ;;
	node) run usr timeout 60 "${env[@]}" "$NODE" "$NODE_CLIENT" "$@" "$D/project" ;;
	esac
}

_session() {
	local kind
	for kind in py node; do
		client "$kind"
		assert_status 0
		assert_contains "$output" "sandboxed: $(command -v clangd)"
		assert_contains "$output" "definition: util.h:5"
		assert_contains "$output" "server exited with 0"
	done
}

@test "the example clients complete an LSP session with clangd under --profile=clangd" {
	each_user _session
}

_refused() {
	local kind
	for kind in py node; do
		client "$kind" --sbox-option="--rw=$D/no-such-dir"
		assert_status 3
		assert_contains "$output" "sandbox refused: invalid-policy: --rw: $D/no-such-dir"
		refute_contains "$output" "sandboxed:"
	done
}

@test "the example clients report a refusal with its reason" {
	each_user _refused
}

_not_found() {
	local kind
	for kind in py node; do
		# Control: on the host clangd is there (the session test runs it).
		command -v clangd >/dev/null
		client "$kind" --sbox-option=--setenv --sbox-option=PATH \
			--sbox-option=/nonexistent
		assert_status 4
		assert_contains "$output" "clangd cannot start in the sandbox: command-not-found: clangd: not found on the sandbox's PATH (/nonexistent)"
		client "$kind" --server=sbox-test-no-such-server
		assert_status 4
		assert_contains "$output" "command-not-found: sbox-test-no-such-server"
	done
}

@test "the example clients say the server is missing from the sandbox (command-not-found)" {
	each_user _not_found
}

_no_status() {
	local kind start
	for kind in py node; do
		start=$SECONDS
		client "$kind" --sbox-option=--help
		assert_status 1
		assert_contains "$output" "no status: sbox-exec ended with 0"
		# Not the clients' 30 s timeout: they watch the process too.
		[ $((SECONDS - start)) -lt 15 ] ||
			{ echo "took $((SECONDS - start)) s" >&2; return 1; }
	done
}

@test "a launch that sends no status (--help) ends the example clients' wait at once" {
	each_user _no_status
}
