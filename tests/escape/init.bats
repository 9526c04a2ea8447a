#!/usr/bin/env bats
# Escape catalogue: bwrap's init process.  With a pid namespace, bwrap
# leaves a process of its own as pid 1 in the sandbox; man page THE
# SANDBOX: the seccomp filter is installed by bwrap on that process as on
# the command.  Where Landlock is missing (hidden here from the launcher
# and stage two by tests/payloads/hide-landlock, a seccomp filter making
# landlock_create_ruleset fail with ENOSYS) nothing stops the command
# from ptracing pid 1; the filter must then stop what pid 1 is made to
# do.  tests/payloads/inject makes a traced process execute one system
# call.  See tests/README.

# shellcheck disable=SC2016,SC2030,SC2031
load ../helpers

setup() {
	requires bwrap userns
	[ "$(uname -m)" = x86_64 ] ||
		skip_or_fail "tests/payloads/inject injects system calls on x86_64 only"
	HIDE=$(payload hide-landlock)
	INJECT=$(payload inject)
}

# in_syscall PID: PID is asleep in a system call (not running, not
# between calls), where inject finds a syscall instruction.
in_syscall() {
	local s
	s=$(cat "/proc/$1/syscall" 2>/dev/null) || return 1
	case $s in running | -1* | "") return 1 ;; esac
}

# sleeping PID: PID is sleep(1) itself (setpriv has executed it, as the
# pass's user), asleep in its system call.
sleeping() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = sleep ] && in_syscall "$1"
}

# control_target: a process of the pass's user asleep in a system call,
# unsandboxed; its pid in $TARGET.
control_target() {
	bg usr_exec sleep 60
	TARGET=$BG_PID
	wait_for 10 sleeping "$TARGET"
}

# in_sandbox_no_landlock DIR CMD...: CMD in sbox-exec (--rw DIR) run
# under hide-landlock, as the pass's user; the status in DIR/status.
in_sandbox_no_landlock() {
	local d=$1
	shift
	run --separate-stderr usr "$HIDE" "$SBOX" --status-fd=3 --rw "$d" \
		-- "$@" 3>"$d/status"
}

# assert_no_landlock_status DIR: the launch went ahead, and its status
# says what is missing.
assert_no_landlock_status() {
	assert_eq "$(jq -r .status "$1/status")" success
	assert_eq "$(jq -r .landlock "$1/status")" none
	assert_eq "$(jq -r .seccomp "$1/status")" filter
}

@test "pid 1 in the sandbox cannot be made to chmod a file setuid (no Landlock)" {
	body() {
		local d c
		d=$(scratch_dir)
		# The control's file apart: as root, a --rw grant holding a
		# setuid file is refused (sbox-exec(1), HOST PROTECTION).
		c=$(scratch_dir)
		usr touch "$c/control" "$d/target"
		# Control: the injection makes an unsandboxed process of the
		# same user set the setuid bit.
		control_target
		run usr "$INJECT" "$TARGET" chmod "$c/control"
		assert_status 0
		[ -u "$c/control" ] || { echo "control: not setuid" >&2; return 1; }

		in_sandbox_no_landlock "$d" "$INJECT" 1 chmod "$d/target"
		assert_no_landlock_status "$d"
		# 1: pid 1 ran the call and it failed (2 would be no injection).
		assert_status 1
		assert_contains "$output" "result -1"
		assert_contains "$stderr" "Operation not permitted"
		[ ! -u "$d/target" ] && [ ! -g "$d/target" ] ||
			{ ls -l "$d/target" >&2; return 1; }
	}
	each_user body
}

@test "pid 1 in the sandbox cannot be made to use the kernel keyrings (no Landlock)" {
	body() {
		local d
		d=$(scratch_dir)
		# Control: an unsandboxed process, made to ask for the user's
		# keyring, gets its id.
		control_target
		run usr "$INJECT" "$TARGET" keyctl
		assert_status 0
		[[ $output =~ ^result\ [1-9][0-9]*$ ]] ||
			{ echo "control: $output" >&2; return 1; }

		in_sandbox_no_landlock "$d" "$INJECT" 1 keyctl
		assert_no_landlock_status "$d"
		assert_status 1
		assert_contains "$output" "result -1"
		assert_contains "$stderr" "Operation not permitted"
	}
	each_user body
}

@test "no Landlock: pid 1 and the command carry the same seccomp filter" {
	body() {
		local d
		d=$(scratch_dir)
		# Control: outside, this shell has no filter of sbox-exec's.
		run usr "$HIDE" grep -c '^Seccomp:.2' /proc/self/status
		assert_eq "$output" 1
		in_sandbox_no_landlock "$d" sh -c \
			'grep "^Seccomp_filters:" /proc/1/status /proc/self/status'
		assert_status 0
		assert_no_landlock_status "$d"
		# The hiding filter and sbox-exec's, on both.
		assert_eq "${lines[0]}" "/proc/1/status:Seccomp_filters:	2"
		assert_eq "${lines[1]}" "/proc/self/status:Seccomp_filters:	2"
	}
	each_user body
}

@test "with --tty, pid 1 in the sandbox cannot be made to push a keystroke into the terminal (no Landlock)" {
	requires script timeout
	body() {
		local d q
		d=$(scratch_dir)
		# What waits in the terminal on stdin: "drain read: Q" when a
		# "Q" was pushed into it, "drain read: nothing" otherwise.
		q="$(printf '%q ' "$PY" "$(payload tty-drain.py)") drain"
		# Control: in a pty, a process whose stdin is the terminal is
		# made to push "Q" into it, and "Q" waits there.
		run usr env SHELL=/bin/sh timeout 30 script -qec "
			exec 3<&0
			sleep 60 <&3 &
			p=\$!
			until [ \"\$(cat /proc/\$p/comm)\" = sleep ] &&
				! grep -q '^running' /proc/\$p/syscall; do sleep 0.05; done
			$(printf '%q ' "$INJECT") \$p tiocsti Q; echo inject-exit=\$?
			kill \$p
			$q" /dev/null </dev/null
		assert_contains "$output" inject-exit=0
		assert_contains "$output" "drain read: Q"

		# Inside, with the terminal kept and Landlock hidden: refused.
		run usr env SHELL=/bin/sh timeout 30 script -qec "
			$(printf '%q ' "$HIDE" "$SBOX" --tty --status-fd=3 -- "$INJECT" 1 tiocsti Q) 3>$d/status
			echo sandbox-exit=\$?
			$q" /dev/null </dev/null
		assert_contains "$output" "result -1"
		assert_contains "$output" sandbox-exit=1
		assert_contains "$output" "drain read: nothing"
		assert_no_landlock_status "$d"
	}
	each_user body
}
