#!/usr/bin/env bats
# Errors a person can act on: sbox-exec(1) OPTIONS (paths are literal; the
# nearest option or profile), NETWORK BY NAME (Patterns: a URL names the
# host to use), ENVIRONMENT (SBOX_EXEC_SANDBOX: an sbox-exec inside a
# sandbox says so), STATUS (invalid-policy, sandbox-probe-failed).  Each
# refusal is exit 125, one "sbox-exec: " line, nothing on stdout, nothing
# run; each runs as root and as an unprivileged user.

load helpers

setup() {
	requires bwrap jq
	D=$(scratch_dir)
	mkdir -p "$D/proj/a" "$D/proj/b"
	echo secret >"$D/proj/a/.env"
	echo secret >"$D/proj/b/.env"
	echo star >"$D/proj/x*[1]?"
	echo plain >"$D/proj/plain"
	chmod -R a+rwX "$D/proj"
	export XDG_CONFIG_HOME=$D/config
	unset SBOX_EXEC_BWRAP SBOX_EXEC_SANDBOX
}

# refused NEEDLE...: the last run was refused as invalid-policy, its one
# line naming each NEEDLE, with the status on $D/status, and nothing ran.
refused() {
	local n
	assert_status 125
	assert_eq "$output" ""
	assert_sbox_message "$stderr"
	assert_eq "$(jq -r .status "$D/status")" invalid-policy
	for n in "$@"; do
		assert_contains "$stderr" "$n"
		assert_contains "$(jq -r .detail "$D/status")" "$n"
	done
	assert_absent "$D/proj/ran"
}

# attempt ARGS...: sbx with the status on $D/status and a command that
# leaves $D/proj/ran and prints the .env files it can read.
attempt() {
	run --separate-stderr sbx --status-fd=3 --rw "$D/proj" "$@" -- \
		sh -c 'touch "$1/ran"; cat "$1"/a/.env "$1"/b/.env' sh "$D/proj" \
		3>"$D/status"
}

globs_refused() {
	local opt
	# Control: the files the pattern means are readable without the
	# sandbox, and with it when nothing is asked.
	run usr cat "$D/proj/a/.env" "$D/proj/b/.env"
	assert_status 0
	assert_eq "$output" $'secret\nsecret'
	attempt
	assert_status 0
	assert_eq "$output" $'secret\nsecret'
	rm -f "$D/proj/ran"

	for opt in hide ro rw ro-try rw-try allow-socket; do
		attempt --"$opt"="$D/proj/**/.env"
		refused "--$opt: $D/proj/**/.env does not exist" \
			"does not expand '*', '?' or '['"
	done
	attempt --hide="$D/proj/?/.env"
	refused "--hide: $D/proj/?/.env does not exist"
	attempt --hide="$D/proj/[ab]/.env"
	refused "--hide: $D/proj/[ab]/.env does not exist"
	run --separate-stderr sbx --status-fd=3 --chdir="$D/proj/*" -- \
		touch "$D/proj/ran" 3>"$D/status"
	refused "--chdir: $D/proj/* does not exist"
	run --separate-stderr sbx --status-fd=3 --policy="$D/*.policy" -- \
		touch "$D/proj/ran" 3>"$D/status"
	refused "--policy: $D/*.policy does not exist"
	run --separate-stderr sbx --status-fd=3 --project="$D/pro*" -- \
		touch "$D/proj/ran" 3>"$D/status"
	refused "--project: $D/pro* does not exist"
	run --separate-stderr sbx --status-fd=3 --bwrap="$D/bw*" -- \
		touch "$D/proj/ran" 3>"$D/status"
	refused "--bwrap: $D/bw* does not exist"
}

@test "a missing path written with '*', '?' or '[' is refused by every path option, not taken literally" {
	each_user globs_refused
}

globs_literal() {
	echo star >"$D/proj/x*[1]?"
	# Control: both files readable without the sandbox.
	run usr cat "$D/proj/x*[1]?" "$D/proj/plain"
	assert_status 0
	assert_eq "$output" $'star\nplain'
	run --separate-stderr sbx --hide="$D/proj/x*[1]?" -- \
		cat "$D/proj/x*[1]?" "$D/proj/plain"
	assert_status 0
	assert_eq "$output" "plain"
	run --separate-stderr sbx --rw="$D/proj/x*[1]?" -- \
		sh -c 'echo changed >"$1"' sh "$D/proj/x*[1]?"
	assert_status 0
	assert_eq "$(cat "$D/proj/x*[1]?")" changed
}

@test "a path with '*', '?' and '[' that exists is used as it is" {
	each_user globs_literal
}

@test "--hide of a missing path is skipped, and -v and --check say so" {
	run --separate-stderr "$SBOX_EXEC" --hide="$D/no-such" -- echo ran
	assert_status 0
	assert_eq "$output" ran
	refute_contains "$stderr" "no-such"
	run --separate-stderr "$SBOX_EXEC" -v --hide="$D/no-such" -- echo ran
	assert_status 0
	assert_eq "$output" ran
	assert_contains "$stderr" \
		"sbox-exec: --hide: $D/no-such does not exist; nothing hidden there"
	printf -- '--hide %s\n' "$D/no-such" >"$D/p.policy"
	run --separate-stderr "$SBOX_EXEC" --check --policy="$D/p.policy"
	assert_status 0
	assert_contains "$stderr" \
		"sbox-exec: $D/p.policy:1: --hide: $D/no-such does not exist; nothing hidden there"
}

@test "unknown options name the nearest; far-off ones name none" {
	local arg want
	while IFS='|' read -r arg want; do
		run --separate-stderr "$SBOX_EXEC" --status-fd=3 "$arg" -- \
			touch "$D/proj/ran" 3>"$D/status"
		refused "unknown option '$arg'; did you mean '$want'?"
	done <<-'EOF'
		--no-network|--no-net
		--no-network=1|--no-net
		--alow-host=example.org|--allow-host
		--ro_try=/x|--ro-try
		--network|--net
		--verbosely|--verbose
	EOF
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --frobnicate -- \
		touch "$D/proj/ran" 3>"$D/status"
	refused "unknown option '--frobnicate'"
	refute_contains "$stderr" "did you mean"
}

@test "an unknown profile names the nearest, shipped or the user's" {
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --profile=clang -- \
		touch "$D/proj/ran" 3>"$D/status"
	refused "no profile named 'clang'; did you mean 'clangd'?"
	mkdir -p "$XDG_CONFIG_HOME/sbox-exec/profiles"
	echo --no-net >"$XDG_CONFIG_HOME/sbox-exec/profiles/webapp.policy"
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --profile=webap -- \
		touch "$D/proj/ran" 3>"$D/status"
	refused "no profile named 'webap'; did you mean 'webapp'?"
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --profile=zzzzzzzz -- \
		touch "$D/proj/ran" 3>"$D/status"
	refused "no profile named 'zzzzzzzz'"
	refute_contains "$stderr" "did you mean"
}

@test "an unknown profile near a server's command names the command and its profile" {
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --profile=pylsd -- \
		touch "$D/proj/ran" 3>"$D/status"
	refused "no profile named 'pylsd'; did you mean 'pylsp' (the profile 'python-lsp')?"
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 \
		--profile=pyright-langservr -- touch "$D/proj/ran" 3>"$D/status"
	refused "no profile named 'pyright-langservr'; did you mean 'pyright-langserver' (the profile 'pyright')?"
}

@test "--allow-host and --deny-host given a URL or a path name the host (and port) to use" {
	local value want opt
	for opt in allow-host deny-host; do
		while IFS='|' read -r value want; do
			run --separate-stderr "$SBOX_EXEC" --status-fd=3 \
				--allow-host=example.net --"$opt"="$value" -- \
				touch "$D/proj/ran" 3>"$D/status"
			refused "--$opt: '$value'" "; use --$opt=$want"
		done <<-'EOF'
			https://registry.example.org/path|registry.example.org
			http://example.org:8080|example.org:8080
			http://example.org:8080/x?y=1|example.org:8080
			https://user:secret@example.org/|example.org
			example.org/some/path|example.org
			example.org:8443/x|example.org:8443
		EOF
	done
	# Control: what was named is accepted.
	run --separate-stderr "$SBOX_EXEC" --allow-host=example.org:8080 \
		--print -- true
	assert_status 0
	# A network's own mistake is not taken for a path.
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 \
		--allow-host=10.1.2.3/24 -- touch "$D/proj/ran" 3>"$D/status"
	refused "host bits set"
	refute_contains "$stderr" "use --allow-host"
}

# --- inside a sandbox ---------------------------------------------------

nested() {
	local mark tree d
	local -a inner grant
	# The tree the sbox-exec under test runs from (its files beside it),
	# which may lie below /tmp, private inside; in a build directory apart
	# from the sources (distcheck's), its data and profiles are symlinks
	# into the sources, granted too.
	tree=$(cd "$(dirname "$SBOX")/.." && pwd)
	grant=(--ro "$tree")
	for d in data profiles; do
		if [ -L "$tree/$d" ]; then
			grant+=(--ro "$(readlink -f "$tree/$d")")
		fi
	done
	# Control: the outer sandbox runs, and shows the mark.
	run --separate-stderr sbx "${grant[@]}" -- sh -c 'echo "$SBOX_EXEC_SANDBOX"'
	assert_status 0
	assert_eq "$output" 1
	# The same sbox-exec, run inside it.
	# With the mark, then without it: pid 1 alone tells.
	for mark in keep drop; do
		inner=()
		[ "$mark" = keep ] || inner=(--unsetenv SBOX_EXEC_SANDBOX)
		run --separate-stderr sbx "${grant[@]}" "${inner[@]}" -- \
			"$SBOX" -- touch "$D/proj/ran"
		assert_status 125
		assert_eq "$output" ""
		assert_contains "$stderr" \
			"sbox-exec: sbox-exec is running inside an sbox-exec sandbox"
		assert_contains "$stderr" \
			"sbox-exec: hint: run this sbox-exec outside the sandbox"
		refute_contains "$stderr" max_user_namespaces
		refute_contains "$stderr" "owned by"
		assert_absent "$D/proj/ran"
		run --separate-stderr sbx "${grant[@]}" "${inner[@]}" -- \
			"$SBOX" --check --json
		assert_status 125
		assert_eq "$(json_get "$output" status)" sandbox-probe-failed
		assert_contains "$(json_get "$output" detail)" \
			"running inside an sbox-exec sandbox"
		assert_contains "$(json_get "$output" hint)" "outside the sandbox"
	done
}

@test "sbox-exec inside an sbox-exec sandbox says so, with or without the environment's mark" {
	each_user nested
}

@test "inside, a user whose uid is not nobody's is told the same, not that / belongs to someone else" {
	[ "$(id -u)" = 0 ] || skip "needs root to become uid 1000"
	requires setpriv
	SBOX=$(unpriv_sbox)
	# Control: that user's sandbox works.
	run --separate-stderr setpriv --reuid=1000 --regid=1000 --clear-groups \
		"$SBOX" -- echo ran
	assert_status 0
	assert_eq "$output" ran
	run --separate-stderr setpriv --reuid=1000 --regid=1000 --clear-groups \
		"$SBOX" --ro "$SBOX" -- "$SBOX" --check --json
	assert_status 125
	assert_eq "$(json_get "$output" status)" sandbox-probe-failed
	assert_contains "$(json_get "$output" detail)" \
		"sbox-exec is running inside an sbox-exec sandbox"
	assert_contains "$(json_get "$output" hint)" "outside the sandbox"
	refute_contains "$(json_get "$output" hint)" "install bubblewrap"
	assert_contains "$stderr" \
		"sbox-exec: sbox-exec is running inside an sbox-exec sandbox"
}

@test "SBOX_EXEC_SANDBOX in the caller's environment changes nothing where a sandbox can be made" {
	run --separate-stderr env SBOX_EXEC_SANDBOX=1 "$SBOX_EXEC" -- echo ran
	assert_status 0
	assert_eq "$output" ran
	assert_eq "$stderr" ""
}
