#!/usr/bin/env bats
# sbox-exec(1) THE SANDBOX and STATUS (sandbox-probe-failed): when bwrap cannot create the sandbox the
# status is sandbox-probe-failed with bwrap's own words in `detail`, the
# exit is 125, and the command does not run.  Each test runs as root and
# as nobody (each_user), with the real bwrap.

# Single-quoted scripts are expanded by the inner shell (SC2016); bats'
# @test bodies are functions, not subshells (SC2030/SC2031).
# shellcheck disable=SC2016,SC2030,SC2031
load helpers

setup() {
	requires bwrap userns jq
}

# no_userns CMD...: CMD as this pass's user, inside a user namespace in
# which no further user namespace can be created (max_user_namespaces 0).
no_userns() {
	usr unshare -Ur sh -c \
		'echo 0 >/proc/sys/user/max_user_namespaces && exec "$@"' sh "$@"
}

# The command that must never run: it leaves $1/marker and says "ran".
MARK=(sh -c 'echo ran >"$1/marker"; echo ran' sh)

# assert_not_ran DIR: the command left no trace on the host.
assert_not_ran() {
	if [ -e "$1/marker" ]; then
		echo "the command ran" >&2
		return 1
	fi
}

# assert_probe_failed FILE BWRAP_MESSAGE: FILE is a sandbox-probe-failed
# status whose detail carries BWRAP_MESSAGE, with a hint.
assert_probe_failed() {
	local line
	assert_status_line "$1"
	line=$(cat "$1")
	assert_eq "$(json_get "$line" status)" sandbox-probe-failed
	assert_contains "$(json_get "$line" detail)" "$2"
	[ -n "$(json_get "$line" hint)" ] || {
		echo "no hint in: $line" >&2
		return 1
	}
}

# bwrap_says BWRAP CMD...: the first line bwrap BWRAP writes on stderr when
# CMD (a wrapper such as no_userns) runs it; fails if bwrap succeeds.
bwrap_says() {
	local bw=$1 err
	shift
	if err=$("$@" "$bw" --unshare-user --unshare-pid --ro-bind / / \
		--proc /proc -- true 2>&1 >/dev/null); then
		echo "control: bwrap succeeded" >&2
		return 1
	fi
	printf '%s\n' "$err" | head -n 1
}

# --- user namespaces disabled -------------------------------------------

_no_userns_run() {
	local d bw msg
	d=$(scratch_dir)
	cd "$d" || return 1

	# Control: in a plain nested user namespace the same policy runs.
	run --separate-stderr usr unshare -Ur "$SBOX" --status-fd=3 --rw "$d" -- \
		"${MARK[@]}" "$d" 3>"$d/status"
	assert_status 0
	assert_eq "$output" ran
	assert_eq "$(json_get "$(cat "$d/status")" status)" success
	rm -f "$d/marker" "$d/status"

	run --separate-stderr no_userns "$SBOX" --status-fd=3 --rw "$d" -- \
		"${MARK[@]}" "$d" 3>"$d/status"
	assert_status 125
	assert_eq "$output" ""
	assert_not_ran "$d"
	bw=$(json_get "$(cat "$d/status")" bwrap)
	msg=$(bwrap_says "$bw" no_userns)
	assert_probe_failed "$d/status" "$msg"
}

@test "user namespaces disabled: run refused with 125, bwrap's message and a hint, command not run" {
	requires unshare
	each_user _no_userns_run
}

_no_userns_check() {
	local d bw msg
	d=$(scratch_dir)
	cd "$d" || return 1

	# Control: without the limit --check succeeds.
	run --separate-stderr usr unshare -Ur "$SBOX" --check --rw "$d"
	assert_status 0

	run --separate-stderr no_userns "$SBOX" --check --status-fd=3 --rw "$d" \
		3>"$d/status"
	assert_status 125
	assert_eq "$output" ""
	bw=$(json_get "$(cat "$d/status")" bwrap)
	msg=$(bwrap_says "$bw" no_userns)
	assert_probe_failed "$d/status" "$msg"
}

@test "user namespaces disabled: --check exits 125 with sandbox-probe-failed on the status fd" {
	requires unshare
	each_user _no_userns_check
}

_no_userns_check_json() {
	local d bw msg
	d=$(scratch_dir)
	cd "$d" || return 1

	run --separate-stderr no_userns "$SBOX" --check --json --rw "$d"
	assert_status 125
	printf '%s\n' "$output" >"$d/stdout"
	bw=$(json_get "$output" bwrap)
	msg=$(bwrap_says "$bw" no_userns)
	assert_probe_failed "$d/stdout" "$msg"
}

@test "user namespaces disabled: --check --json prints sandbox-probe-failed on stdout, exit 125" {
	requires unshare
	each_user _no_userns_check_json
}

# --- probe timeout ------------------------------------------------------

# No bwrap sets up namespaces, mounts and an exec in a millisecond, so a
# 1 ms limit always runs out.
_probe_timeout() {
	local d line
	d=$(scratch_dir)
	cd "$d" || return 1

	# Control: with the default limit the same policy runs.
	run --separate-stderr sbx --rw "$d" -- "${MARK[@]}" "$d"
	assert_status 0
	assert_eq "$output" ran
	rm -f "$d/marker"

	run --separate-stderr sbx --status-fd=3 --probe-timeout=0.001 --rw "$d" -- \
		"${MARK[@]}" "$d" 3>"$d/status"
	assert_status 125
	assert_eq "$output" ""
	assert_status_line "$d/status"
	line=$(cat "$d/status")
	assert_eq "$(json_get "$line" status)" sandbox-probe-failed
	assert_contains "$(json_get "$line" detail)" "0.001"
	assert_contains "$(json_get "$line" hint)" "--probe-timeout"
	# Give a stray sandbox time to run the command anyway.
	sleep 0.5
	assert_not_ran "$d"
}

@test "a probe that outlives --probe-timeout is sandbox-probe-failed and the command does not run" {
	each_user _probe_timeout
}

# --- a mount bwrap cannot make ------------------------------------------

# A host process's /proc/PID has no counterpart in the sandbox's own pid
# namespace, and bwrap cannot create the mount point in procfs.
_unmountable_path() {
	local d pid bw msg
	d=$(scratch_dir)
	cd "$d" || return 1
	pid=$$

	# Control: the path is there on the host, and the policy without it runs.
	run usr test -d "/proc/$pid"
	assert_status 0
	run --separate-stderr sbx --rw "$d" -- "${MARK[@]}" "$d"
	assert_status 0
	rm -f "$d/marker"

	run --separate-stderr sbx --status-fd=3 --rw "$d" --ro "/proc/$pid" -- \
		"${MARK[@]}" "$d" 3>"$d/status"
	assert_status 125
	assert_eq "$output" ""
	assert_not_ran "$d"
	bw=$(json_get "$(cat "$d/status")" bwrap)
	msg=$(usr "$bw" --unshare-user --unshare-pid --ro-bind / / --proc /proc \
		--ro-bind "/proc/$pid" "/proc/$pid" -- true 2>&1 >/dev/null | head -n 1)
	assert_contains "$msg" "/proc/$pid"
	assert_probe_failed "$d/status" "$msg"
}

@test "a path bwrap cannot mount (--ro /proc/HOSTPID) is sandbox-probe-failed with bwrap's message" {
	each_user _unmountable_path
}
