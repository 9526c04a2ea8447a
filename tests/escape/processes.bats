#!/usr/bin/env bats
# Escape catalogue: other processes and shared kernel state.
# sbox-exec(1) THE SANDBOX: new user, pid, ipc and uts namespaces, no further user
# namespaces; man page SECURITY CONSIDERATIONS: no seeing or signalling
# host processes (Landlock signal scoping on top of the pid namespace).
# See tests/README for the shape of every test.

# shellcheck disable=SC2016,SC2030,SC2031
load ../helpers

setup() {
	requires bwrap userns
}

# host_sleep: a `sleep 300` on the host, as the pass's user; its pid in
# $VICTIM.
host_sleep() {
	bg usr_exec sleep 300
	VICTIM=$BG_PID
	# Until the background subshell has become sleep.
	wait_for 5 grep -qx sleep "/proc/$VICTIM/comm"
}

# assert_alive PID: PID still runs, untraced and unstopped.
assert_alive() {
	local state tracer
	sleep 0.5
	kill -0 "$1" || { echo "host process $1 is gone" >&2; return 1; }
	state=$(awk '/^State:/ { print $2 }' "/proc/$1/status")
	tracer=$(awk '/^TracerPid:/ { print $2 }' "/proc/$1/status")
	assert_eq "$state" S
	assert_eq "$tracer" 0
}

_kill_host() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	host_sleep

	# Control: unsandboxed, this user can signal its own process.
	run usr kill -0 "$VICTIM"
	assert_status 0

	run sbx -- sh -c '
		echo started
		kill -0 "$1" && echo probe-delivered
		kill -TERM "$1" && echo term-delivered
		kill -KILL "$1" && echo kill-delivered
		true' sh "$VICTIM"
	assert_status 0
	assert_contains "$output" started
	refute_contains "$output" delivered
	assert_alive "$VICTIM"
}

@test "a host process of the same user cannot be signalled (kill -0, -TERM, -KILL)" {
	each_user _kill_host
}

# ptrace(PTRACE_SEIZE, PID, 0, 0) by tests/payloads/try-syscall: "ok 0",
# or "refused: ERROR" (exit 1).  The tracee is let go when it exits.
PTRACE_SEIZE=0x4206

_ptrace_host() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	host_sleep

	# Control: unsandboxed, this user can trace its own process.
	run usr "$TRY" ptrace "$PTRACE_SEIZE" "$VICTIM" 0 0
	assert_status 0
	assert_eq "$output" "ok 0"
	assert_alive "$VICTIM"

	run sbx -- "$TRY" ptrace "$PTRACE_SEIZE" "$VICTIM" 0 0
	assert_status 1
	assert_contains "$output" refused
	assert_alive "$VICTIM"
}

@test "a host process of the same user cannot be ptraced" {
	TRY=$(payload try-syscall)
	each_user _ptrace_host
}

_nested_userns() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1

	# Control: unsandboxed, this user creates user namespaces.
	run usr unshare -U true
	assert_status 0
	run usr unshare -Ur id -u
	assert_status 0
	assert_eq "$output" 0

	run sbx -- unshare -U true
	assert_failed "unshare -U"
	run sbx -- unshare -Ur id -u
	assert_failed "unshare -Ur"
	! grep -qx 0 <<<"$output" || { echo "uid 0 in a nested namespace" >&2; return 1; }
}

@test "no nested user namespace can be created (unshare -U)" {
	requires unshare
	each_user _nested_userns
}

# System V shared memory, by tests/payloads/shm.py: attach ID TEXT |
# read ID.
_sysv_shm() {
	local d id
	d=$(scratch_dir)
	cd "$d" || return 1
	id=$(usr ipcmk -M 4096 -p 0600 | awk '{ print $NF }')
	[ -n "$id" ] || { echo "ipcmk failed" >&2; return 1; }
	on_teardown "ipcrm -m $id"

	# Control: unsandboxed, this user attaches and writes.
	run usr "$PY" "$SHM" attach "$id" control
	assert_status 0
	run usr "$PY" "$SHM" read "$id"
	assert_eq "$output" control

	run sbx -- "$PY" "$SHM" attach "$id" escaped
	assert_status 1
	assert_contains "$output" refused
	run usr "$PY" "$SHM" read "$id"
	assert_eq "$output" control
}

@test "a host System V shared memory segment of the same user cannot be attached" {
	requires python3 ipcmk ipcrm
	SHM=$(payload shm.py)
	each_user _sysv_shm
}

_posix_shm() {
	local d f
	d=$(scratch_dir)
	cd "$d" || return 1
	f=/dev/shm/sbox-test-$$-$RANDOM$RANDOM
	on_teardown "rm -f $f"
	usr sh -c 'echo original >"$1"' sh "$f"

	# Control: unsandboxed, this user reads and changes it.
	run usr sh -c 'cat "$1" && echo control >>"$1"' sh "$f"
	assert_status 0
	assert_eq "$output" original
	usr sh -c 'echo original >"$1"' sh "$f"

	run sbx -- sh -c 'echo started; cat "$1"; echo escaped >>"$1"' sh "$f"
	assert_contains "$output" started
	refute_contains "$output" original
	assert_file "$f" original
}

@test "host POSIX shared memory (/dev/shm) can be neither read nor changed" {
	each_user _posix_shm
}
