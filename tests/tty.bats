#!/usr/bin/env bats
# Manual page, --tty and "The terminal": the sandbox has a terminal of its
# own, relayed by the launcher; with --tty it is the command's controlling
# terminal (job control inside), without it the command has none.
# Keystroke injection (TIOCSTI, TIOCLINUX) is refused by the seccomp filter
# as well.  Every test runs under a real pty (script(1), or
# tests/payloads/pty-drive.py where the test acts as the user would), as
# root and as nobody.

# shellcheck disable=SC2016
load helpers

setup() {
	requires bwrap script python3
}

@test "--tty: an interactive shell with job control runs in the sandbox" {
	body() {
		local d
		d=$(scratch_dir)
		printf '%s\n' 'sleep 30 &' 'jobs' 'kill %1' \
			'wait %1; echo "job-status=$?"' \
			'echo in-sandbox-$(id -u)' 'exit' >"$d/input"
		TTY_INPUT=$d/input in_pty "$(printf %q "$SBOX") --tty -- bash --norc -i"
		assert_status 0
		assert_contains "$output" "[1]+  Running"
		# A job killed through its job spec: 128 + SIGTERM.
		assert_contains "$output" "job-status=143"
		assert_contains "$output" "in-sandbox-"
	}
	each_user body
}

@test "--tty: Ctrl-C reaches the command, which dies of it (exit 130)" {
	body() {
		run usr timeout 20 "$PY" "$(payload ctrl-c.py)" "$SBOX"
		assert_status 0
		assert_eq "$output" 130
	}
	each_user body
}

@test "TIOCSTI is refused inside, with and without --tty, high bits or not" {
	body() {
		local legacy tiocsti sbox
		legacy=$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)
		# TIOCSTI on stdin, plain and with the high bits set.
		tiocsti=$(printf %q "$(payload tiocsti.py)")
		sbox=$(printf %q "$SBOX")
		# The control: unsandboxed, in the same kind of pty, it works
		# (where the kernel still allows it at all).
		in_pty "$PY $tiocsti"
		if [ "$legacy" = 1 ]; then
			assert_contains "$output" "plain INJECTED"
		fi
		in_pty "$sbox --tty -- $PY $tiocsti"
		assert_status 0
		assert_contains "$output" "plain refused"
		assert_contains "$output" "high refused"
		in_pty "$sbox -- $PY $tiocsti"
		assert_status 0
		assert_contains "$output" "plain refused"
		assert_contains "$output" "high refused"
	}
	each_user body
}

# The first line of $output.
first_line() {
	printf '%s\n' "${output%%$'\n'*}"
}

# on_script FILE SHELL-COMMAND: SHELL-COMMAND on a new pty (script(1)) as
# the pass's user, with nothing on script's input (script types the end of
# input, VEOF, into the terminal then), the terminal's bytes in FILE
# (the NULs too, which $output would lose) and the exit code in $status.
# Ten seconds at most: a run that hangs fails with 124.
on_script() {
	status=0
	usr env SHELL=/bin/sh timeout 10 script -qfec "$2" /dev/null \
		</dev/null >"$1" || status=$?
}

# script(1) types its end of input as soon as its input ends, before the
# launcher has put the caller's terminal in raw mode: the kernel keeps it
# as a marked NUL, which the change of mode turns into a plain one (read
# by the command, which never saw its input end).  The launcher reads
# what the terminal holds before the change (sbox-exec(1), "The
# terminal").
@test "through script(1), the end of input reaches the command as its end, not as a NUL, and the run ends" {
	body() {
		local d sbox opt
		d=$(scratch_dir)
		sbox=$(printf %q "$SBOX")
		# The control: unsandboxed, cat reads nothing and ends at once.
		on_script "$d/plain" cat
		assert_status 0
		cmp "$d/plain" /dev/null
		for opt in "" --tty; do
			on_script "$d/sandboxed" "$sbox $opt -- cat"
			assert_status 0
			# Not a byte: no NUL, and no ^@ echoed for one.
			od -c "$d/sandboxed" >&2
			cmp "$d/sandboxed" "$d/plain"
		done
		# A line typed ahead reaches the command, still without a NUL,
		# and its end after it.
		printf 'typed\n' >"$d/input"
		status=0
		usr env SHELL=/bin/sh timeout 10 script -qfec "$sbox -- wc -l" \
			/dev/null <"$d/input" >"$d/lines" || status=$?
		assert_status 0
		od -c "$d/lines" >&2
		tr -d '\000' <"$d/lines" >"$d/lines-without-nul"
		cmp "$d/lines" "$d/lines-without-nul"
		refute_contains "$(cat "$d/lines")" '^@'
		grep -q '^1'$'\r''$' "$d/lines"
	}
	each_user body
}

# Driven by tests/payloads/pty-drive.py rather than script(1), where a
# test types keys and looks at what appears in between.
@test "without --tty the command has no controlling terminal; with it, it has" {
	body() {
		local probe='if (exec 3</dev/tty) 2>/dev/null; then echo has-ctty; else echo no-ctty; fi'
		drive -- sh -c "$probe"
		assert_eq "$(first_line)" has-ctty
		drive -- "$SBOX" -- sh -c "$probe"
		assert_eq "$(first_line)" no-ctty
		drive -- "$SBOX" --tty -- sh -c "$probe"
		assert_eq "$(first_line)" has-ctty
	}
	each_user body
}

@test "the window size reaches the command, and so does a change of it" {
	body() {
		local script='stty size; read -r x; stty size'
		# With --tty the kernel tells the command (SIGWINCH) itself.
		drive size=30,100 expect='30 100' resize=40,120 send='\n' \
			expect='40 120' -- "$SBOX" -- sh -c "$script"
		assert_contains "$output" "exit=0"
		drive size=31,101 expect='31 101' resize=41,121 expect=winch \
			send='\n' expect='41 121' -- "$SBOX" --tty -- \
			sh -c "trap 'echo winch' WINCH; $script"
		assert_contains "$output" "exit=0"
	}
	each_user body
}

# By default the relay drops the escape sequences that make the terminal
# answer or write the clipboard (manual page, "The terminal"; see
# escape/terminal.bats): every byte arrives as written with
# --tty-unfiltered, and text, UTF-8, colours and controls without it.
@test "every byte the command writes arrives on the terminal as it would unsandboxed (--tty-unfiltered; text without it)" {
	body() {
		local d
		d=$(scratch_dir)
		local py='import sys; sys.stdout.buffer.write(bytes(range(256)) * 64 + b"END")'
		drive raw-out="$d/plain" expect=END -- "$PY" -c "$py"
		drive raw-out="$d/sandboxed" expect=END -- \
			"$SBOX" --tty-unfiltered -- "$PY" -c "$py"
		assert_contains "$output" "exit=0"
		cmp "$d/plain" "$d/sandboxed"
		py='import sys; sys.stdout.buffer.write((bytes(range(32, 127)) + "gr\u00fc\u00df \u20ac \u65e5\u672c \U0001f600\n".encode() + b"\x1b[1;31mred\x1b[0m\x1b[2J\x1b[5;5H\t\x08\x07\r\n") * 64 + b"END")'
		drive raw-out="$d/text" expect=END -- "$PY" -c "$py"
		drive raw-out="$d/text-sandboxed" expect=END -- \
			"$SBOX" -- "$PY" -c "$py"
		assert_contains "$output" "exit=0"
		cmp "$d/text" "$d/text-sandboxed"
	}
	each_user body
}

@test "through the terminal: exit codes, Ctrl-C, Ctrl-D and SIGTERM as unsandboxed" {
	body() {
		drive -- "$SBOX" -- sh -c 'exit 3'
		assert_contains "$output" "exit=3"
		drive expect=ready kill=15 -- "$SBOX" -- sh -c 'echo ready; sleep 30'
		assert_contains "$output" "exit=143"
		# The interrupt goes to the whole job: a child that is already
		# running (it says ready) dies of it, and so does its shell.
		drive expect=ready send='\x03' -- "$SBOX" -- \
			sh -c '(echo ready; exec sleep 30); echo after'
		assert_contains "$output" "exit=130"
		refute_contains "$output" "after"
		# End of input typed at the keyboard reaches the command.
		drive expect=ready send='typed\n\x04' -- "$SBOX" -- \
			sh -c 'echo ready; n=$(wc -l); echo "lines=$n"'
		assert_contains "$output" "lines=1"
		assert_contains "$output" "exit=0"
		assert_contains "$output" "termios=same"
	}
	each_user body
}

@test "Ctrl-Z stops the sandbox with sbox-exec; continued, it carries on" {
	body() {
		drive expect=ready send='\x1a' stopped cont running send='go\n' \
			expect=carried-on -- "$SBOX" -- \
			sh -c 'echo ready; read -r x; echo "carried-on $x"'
		assert_contains "$output" "stopped:"
		assert_contains "$output" "carried-on go"
		assert_contains "$output" "exit=0"
		assert_contains "$output" "termios=same"
		# With --tty, a job of a shell inside stops too.
		drive expect=ready send='\x1a' stopped cont running send='go\n' \
			expect=carried-on -- "$SBOX" --tty -- bash --norc -c \
			'set -m; (echo ready; read -r x; echo "carried-on $x"); exit 0'
		assert_contains "$output" "stopped:"
		assert_contains "$output" "carried-on go"
		assert_contains "$output" "exit=0"
	}
	each_user body
}

@test "stdin a terminal, stdout a pipe: only the terminal goes through the relay" {
	body() {
		drive expect=ready send='typed\n' expect='out=' -- sh -c \
			'"$0" -- sh -c "echo ready >&2; read -r x; echo \"got \$x\"; ls -l /proc/self/fd/1" | { IFS= read -r l; read -r m; echo "out=$l|$m"; }' \
			"$SBOX"
		assert_contains "$output" "out=got typed|"
		assert_contains "$output" "pipe:"
	}
	each_user body
}

@test "a refusal at a terminal leaves its settings as they were" {
	body() {
		local d
		d=$(scratch_dir)
		chmod 0755 "$d"
		printf '#!/bin/sh\necho "bwrap: cannot, here" >&2\nexit 1\n' >"$d/bwrap"
		chmod 0755 "$d/bwrap"
		# Refused before the sandbox: a policy that cannot be.
		drive -- "$SBOX" --chdir=/nonexistent-dir -- true
		assert_contains "$output" "exit=125"
		assert_contains "$output" "termios=same"
		# Refused once bwrap runs, the sandbox's terminal made.
		drive -- "$SBOX" --bwrap="$d/bwrap" -- true
		assert_contains "$output" "bwrap: cannot, here"
		assert_contains "$output" "exit=125"
		assert_contains "$output" "termios=same"
	}
	each_user body
}

@test "started in the background, then brought to the foreground, the command reads the keyboard" {
	body() {
		drive bg expect=ready sleep=0.5 fg running send='typed\n' \
			expect='got typed' -- "$SBOX" -- \
			sh -c 'echo ready; read -r x; echo "got $x"'
		assert_contains "$output" "got typed"
		assert_contains "$output" "exit=0"
		assert_contains "$output" "termios=same"
	}
	each_user body
}
