#!/usr/bin/env bats
# The fault suite: sbox-exec under descriptor and process limits, closed
# standard descriptors, status channels that are full, closed, read-only
# or slow, signals at random moments of the launch, concurrent launches,
# bwrap killed during its setup, and bwraps that hang or misbehave.  The
# manual page (STATUS, EXIT STATUS) is the contract: one whole status
# line per channel or none, the right exit status and reason, nothing
# left running, the command never outside a sandbox.  faults.py does the
# launching and checks the invariants; each scenario runs as root and
# again as an unprivileged user, with a seed printed on failure
# (SBOX_FAULT_SEED replays one).

# shellcheck disable=SC2030,SC2031
load ../helpers

setup() {
	requires bwrap userns python3
	DRIVER=$(unpriv_copy "$BATS_TEST_DIRNAME/faults.py")
}

# fault SCENARIO [ARGS...]: the scenario as the pass's user ($AS).
fault() {
	local scratch seed=()
	scratch=$(scratch_dir)
	[ -z "${SBOX_FAULT_SEED:-}" ] || seed=(--seed "$SBOX_FAULT_SEED")
	run usr "$PY" "$DRIVER" "$SBOX" "$scratch" "$@" "${seed[@]}"
	echo "# ${AS:-root}: $output" >&3
	assert_status 0
}

# fault_in_mount_ns SCENARIO: the same, in a mount namespace of its own
# (the scenario mounts a small tmpfs); a user gets a user namespace too.
fault_in_mount_ns() {
	local scratch
	scratch=$(scratch_dir)
	if [ -n "${AS:-}" ]; then
		run usr unshare -Urm "$PY" "$DRIVER" "$SBOX" "$scratch" "$@"
	else
		run unshare -m --propagation private "$PY" "$DRIVER" "$SBOX" "$scratch" "$@"
	fi
	echo "# ${AS:-root}: $output" >&3
	assert_status 0
}

_status_stream() { fault status-stream; }
_status_file_full() { fault_in_mount_ns status-file-full; }
_status_closed() { fault status-closed; }
# A sanitized build needs descriptors and processes for the sanitizer's
# own runtime (the loader opens libasan, LeakSanitizer forks a tracer):
# under a limit of a few it cannot start at all, so the limit scenarios
# say so and hold only for a build without one (the plain suite runs
# them).
sanitized() {
	grep -qa -e '__asan_init' -e '__ubsan_handle' "$SBOX_EXEC"
}

_nofile() {
	if sanitized; then
		echo "# ${AS:-root}: nofile: not for a sanitized build" >&3
		return 0
	fi
	fault nofile
}
_closed_stdio() { fault closed-stdio; }
_signal_storm() { fault signal-storm --n 150; }
_concurrent() { fault concurrent --n 60; }
_kill_bwrap() { fault kill-bwrap --n 100 --max-delay 0.05; }
_bad_bwrap() { fault bad-bwrap; }
_policy_size() { fault policy-size; }
_exec_size() { fault exec-size; }
_held_tunnels() { fault held-tunnels; }
_detached_bwrap() { fault detached-bwrap --fake "$(payload fake-bwrap.py)"; }
_orphan_report() { fault orphan-report --fake "$(payload fake-bwrap.py)"; }

@test "faults: a stream socket with little room gets the whole status line or nothing" {
	each_user _status_stream
}

@test "faults: a status file on a full file system is cut back, never left with part of a line" {
	requires unshare
	each_user _status_file_full
}

@test "faults: closed, read-only and full status channels: warned, never hung" {
	each_user _status_closed
}

@test "faults: descriptor limits are reported as such, never as a missing bwrap" {
	each_user _nofile
}

@test "faults: process limits are reported as such (an unprivileged user: root is exempt)" {
	requires setpriv
	if sanitized; then
		echo "# nproc: not for a sanitized build" >&3
		return 0
	fi
	AS=as_user SBOX=$(unpriv_sbox) fault nproc
}

@test "faults: standard descriptors closed, in every combination" {
	each_user _closed_stdio
}

@test "faults: SIGTERM, SIGINT, SIGHUP or SIGKILL at a random moment of the launch" {
	each_user _signal_storm
}

@test "faults: concurrent launches each get their own status, once" {
	each_user _concurrent
}

@test "faults: bwrap killed during its setup: refused at once, nothing left" {
	each_user _kill_bwrap
}

@test "faults: a bwrap that hangs, exits 0 without a sandbox, or writes escape sequences" {
	each_user _bad_bwrap
}

@test "faults: 10 000 grants resolve in under a second; bwrap's limits are named before it runs (sbox-exec(1), Policy size)" {
	each_user _policy_size
}

@test "faults: execve()'s room for bwrap's arguments (ARG_MAX, one string's 128 KiB) and descriptors the caller holds are named before bwrap runs, each beside a control (sbox-exec(1), Policy size)" {
	each_user _exec_size
}

@test "faults: a process that reports in after its bwrap ended is refused at once as bwrap's end, never as an untrusted bwrap (sbox-exec(1), STATUS)" {
	each_user _orphan_report
}

@test "faults: what a bwrap detached (double fork, setsid) ends with the refusal: the caller gets end-of-file (sbox-exec(1), EXIT STATUS)" {
	each_user _detached_bwrap
}

@test "faults: tunnels to an upstream that never answers, held idle by the client, or flooding a client that never reads end at --net-idle-timeout, threads and descriptors given back; the cap's event (sbox-exec(1), NETWORK BY NAME)" {
	each_user _held_tunnels
}
