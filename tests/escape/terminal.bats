#!/usr/bin/env bats
# Escape catalogue: the caller's terminal.  Manual page, "The terminal":
# when any of descriptors 0-2 is a terminal, the sandbox gets a
# pseudo-terminal of its own instead, relayed by the launcher, and runs in
# a new session; the seccomp filter refuses TIOCSTI as well, compared on
# the low 32 bits of the request as the kernel does.  With --tty the
# sandbox's terminal is the command's controlling terminal, never the
# caller's.  Each test runs in a real pty (script(1) or
# tests/payloads/pty-drive.py); a keystroke pushed into it is read back
# from the same terminal.  See tests/README.

# shellcheck disable=SC2016,SC2030,SC2031
load ../helpers

setup() {
	requires bwrap userns
}

# TIOCSTI pushes a keystroke into a terminal: ioctl(0, REQUEST, "Q") by
# tests/payloads/try-syscall, a raw system call so that all 64 bits of
# REQUEST reach the kernel, run by tests/payloads/tty-drain.py, which
# then reads back what arrives ("inject read: Q").  tty-drain.py alone
# says what is waiting in the terminal's input ("drain read: ...").

# tiocsti_attempt REQUEST [SBOX-OPTION...]
tiocsti_attempt() {
	local req=$1
	shift
	local d drain inject
	d=$(scratch_dir)
	chmod 0755 "$d"
	cd "$d" || return 1
	drain="$(printf '%q ' "$PY" "$(payload tty-drain.py)")"
	inject="$drain inject $(printf '%q ' "$(payload try-syscall)") ioctl 0 $req s:Q"

	# Control: unsandboxed, TIOCSTI pushes a keystroke into the pty.
	# Since Linux 6.2, dev.tty.legacy_tiocsti=0 refuses it to all but
	# CAP_SYS_ADMIN; then the control can only show that refusal.
	in_pty "$inject"
	if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 1 ] ||
		[ -z "${AS:-}" ]; then
		assert_status 0
		assert_contains "$output" "inject read: Q"
	else
		echo "# legacy_tiocsti=0: the control is refused too: $output" >&3
	fi

	# Inside: refused, and nothing waits in the terminal afterwards.
	in_pty "$(printf '%q ' "$SBOX" "$@") -- $inject; echo \"sandbox-exit=\$?\"; $drain drain"
	assert_contains "$output" refused
	assert_contains "$output" sandbox-exit=1
	refute_contains "$output" "inject read"
	assert_contains "$output" "drain read: nothing"
}

_tiocsti() {
	tiocsti_attempt 0x5412
}

@test "TIOCSTI cannot push a keystroke into the caller's terminal" {
	requires script timeout python3
	each_user _tiocsti
}

_tiocsti_high_bits() {
	tiocsti_attempt 0xffffffff00005412
}

@test "TIOCSTI with the high 32 bits of the request set (0xffffffff00005412) is refused too" {
	requires script timeout python3
	each_user _tiocsti_high_bits
}

_tiocsti_tty() {
	tiocsti_attempt 0x5412 --tty
}

@test "with --tty, TIOCSTI cannot push a keystroke into the terminal" {
	requires script timeout python3
	each_user _tiocsti_tty
}

_tiocsti_tty_high_bits() {
	tiocsti_attempt 0xffffffff00005412 --tty
}

@test "with --tty, TIOCSTI with the high 32 bits of the request set is refused too" {
	requires script timeout python3
	each_user _tiocsti_tty_high_bits
}

# tests/payloads/kill-pgrp.py COMMAND...: kill(0) from COMMAND... sh -c
# 'kill -TERM 0', with a host `sleep` in the same process group.
_tty_kill_pgrp() {
	local d py
	d=$(scratch_dir)
	chmod 0755 "$d"
	cd "$d" || return 1
	py=$(payload kill-pgrp.py)

	# Control: unsandboxed, kill(0) hits everyone in the process group.
	# "exec": the shell that script(1) starts leads the pty's session; if
	# it stayed and took the TERM, the hangup would end the orchestrator
	# before it could report.
	in_pty "exec $(printf '%q ' "$PY" "$py")"
	assert_contains "$output" "victim dead"
	assert_contains "$output" "orchestrator got TERM"

	in_pty "exec $(printf '%q ' "$PY" "$py" "$SBOX" --tty --)"
	assert_contains "$output" "victim alive"
	refute_contains "$output" "orchestrator got TERM"
}

@test "with --tty, kill(0) from the command reaches no host process" {
	requires script timeout python3
	each_user _tty_kill_pgrp
}

# The reader: the first line it reads goes to the file $1.
READER='read -r line; printf "%s\n" "$line" >"$1"'

_background_read() {
	local d
	d=$(scratch_dir)
	# Control: unsandboxed, a background job that reads the terminal is
	# stopped (SIGTTIN), and what is typed meanwhile stays unread.
	drive bg sleep=0.5 stopped send='secret-typed\n' sleep=1 kill=9 -- \
		sh -c "$READER" sh "$d/control"
	assert_contains "$output" "stopped:"
	assert_absent "$d/control"
	# In the sandbox, started in the background: it cannot read the
	# terminal at all; what is typed stays with the terminal.
	drive bg sleep=2 send='secret-typed\n' sleep=1.5 kill=15 -- \
		"$SBOX" --rw "$d" -- sh -c "$READER" sh "$d/read"
	assert_contains "$output" "exit=143"
	assert_contains "$output" "termios=same"
	assert_absent "$d/read"
}

@test "a command started in the background cannot read what is typed at the terminal" {
	requires python3 timeout
	each_user _background_read
}

_stopped_read() {
	local d
	d=$(scratch_dir)
	# Control: unsandboxed, Ctrl-Z stops the reader before it reads.
	drive expect=ready send='\x1a' stopped send='secret-typed\n' sleep=1 \
		kill=9 -- sh -c "echo ready; sleep 1; $READER" sh "$d/control"
	assert_contains "$output" "stopped:"
	assert_absent "$d/control"
	# In the sandbox: Ctrl-Z stops the sandbox with sbox-exec, and what
	# is typed while it is stopped does not reach it.
	drive expect=ready send='\x1a' stopped send='secret-typed\n' sleep=1 \
		kill=9 -- "$SBOX" --rw "$d" -- \
		sh -c "echo ready; sleep 1; $READER" sh "$d/read"
	assert_contains "$output" "stopped:"
	assert_contains "$output" "termios=same"
	assert_absent "$d/read"
}

@test "after Ctrl-Z the command is stopped and cannot read what is typed at the terminal" {
	requires python3 timeout
	each_user _stopped_read
}

_settings_outlive() {
	# Control: unsandboxed, settings changed on the terminal stay.
	drive expect=done -- sh -c 'stty -echo raw; echo done'
	assert_contains "$output" "termios=changed"
	# In the sandbox they change its own terminal only, on a normal
	# exit and when the command is killed.
	drive expect=done -- "$SBOX" -- sh -c 'stty -echo raw; echo done'
	assert_contains "$output" "exit=0"
	assert_contains "$output" "termios=same"
	drive expect=done kill=15 -- "$SBOX" --tty -- \
		sh -c 'stty -echo -icanon; echo done; sleep 30'
	assert_contains "$output" "exit=143"
	assert_contains "$output" "termios=same"
}

@test "terminal settings changed inside (stty -echo raw) do not outlive the sandbox" {
	requires python3 timeout
	each_user _settings_outlive
}

# tests/payloads/take-foreground.py makes a process group of its own the
# terminal's foreground, as a job that wants the keyboard back would.
_take_foreground() {
	local take
	take=$(payload take-foreground.py)
	# Control: unsandboxed, a background job takes the terminal.
	drive bg expect='tcsetpgrp:' foreground kill=9 -- "$PY" "$take"
	assert_contains "$output" "tcsetpgrp: done"
	assert_contains "$output" "foreground=job"
	# In the sandbox with --tty: it takes its own terminal only; the
	# caller's stays with the caller's shell.
	drive bg expect='tcsetpgrp:' foreground kill=15 -- \
		"$SBOX" --tty -- "$PY" "$take"
	assert_contains "$output" "foreground=shell"
	assert_contains "$output" "termios=same"
}

@test "with --tty, tcsetpgrp from a background sandbox cannot take the caller's terminal" {
	requires python3 timeout
	each_user _take_foreground
}

# Prints the device and number of what descriptors 0-2 and the named files
# are, one "dev:major:minor" per line.
IDS='for f in "$@"; do stat -L -c "%d:%t:%T" "$f" 2>/dev/null; done'

_no_caller_terminal() {
	local outer inner
	# The command holds descriptors of the sandbox's terminal, and so
	# does bwrap's first process; /dev/console is that terminal too.
	drive expect=END -- sh -c "$IDS; echo OUTER; \"\$0\" --tty -- sh -c '$IDS; echo END' sh /proc/self/fd/* /proc/1/fd/* /dev/console /dev/tty" \
		"$SBOX" /proc/self/fd/0
	assert_contains "$output" "exit=0"
	outer=${output%%OUTER*}
	outer=${outer//$'\n'/}
	inner=${output#*OUTER}
	inner=${inner%%END*}
	# The control: the terminal is there to be found, by its numbers.
	[ -n "$outer" ]
	assert_contains "$inner" ":88:"
	# Whole lines: minor 1 is a prefix of minor 0x10.
	if printf '%s\n' "$inner" | grep -qxF "$outer"; then
		echo "the caller's terminal ($outer) inside: $inner" >&2
		return 1
	fi
}

@test "no descriptor of the caller's terminal inside the sandbox, nor /dev/console" {
	requires python3 timeout
	each_user _no_caller_terminal
}

# --- escape sequences in the command's output ---------------------------
# Manual page, "The terminal": what the command writes to the caller's
# terminal is filtered; the sequences that write the clipboard or make
# the terminal type an answer into its input are dropped, and output to a
# pipe or a file is never touched.  tests/payloads/term-escapes.py writes
# a clipboard write (OSC 52), a DECRQSS query and a title report request,
# in 7-bit and 8-bit (C1) forms, between plain markers, whole and then a
# byte at a time; pty-drive.py keeps the bytes that reach the terminal
# (raw-out=FILE).

# count_bytes FILE TEXT: how many times TEXT (with \xHH escapes, as
# Python reads them) occurs in FILE.
count_bytes() {
	"$PY" -c 'import sys, codecs
want = codecs.decode(sys.argv[2], "unicode_escape").encode("latin-1")
print(open(sys.argv[1], "rb").read().count(want))' "$1" "$2"
}

# The sequences a terminal must not get, as count_bytes reads them.
DROPPED=(
	'\x1b]52;'    # OSC 52: the clipboard
	'\x1bP$q'     # DECRQSS
	'\x1b[21t'    # the title report
	'\x9d52;'     # the same, as 8-bit C1 controls
	'\x90$q'
	'\x9b21t'
)
# What must reach it either way: the markers, a title set, a colour.
KEPT=(
	'start|' '|osc52|' '|decrqss|' '|title-report|' '|c1|'
	'\x1b]2;sbox-title\x07' '\x1b[31mred\x1b[0m|end'
)

# assert_escapes FILE N: each sequence of DROPPED occurs N times in FILE,
# each of KEPT twice (the payload writes its line twice).
assert_escapes() {
	local t
	for t in "${DROPPED[@]}"; do
		assert_eq "$t: $(count_bytes "$1" "$t")" "$t: $2"
	done
	for t in "${KEPT[@]}"; do
		assert_eq "$t: $(count_bytes "$1" "$t")" "$t: 2"
	done
}

# escapes_to_terminal STREAM [SBOX-OPTION...]: the control, then the
# sandbox with the options.
escapes_to_terminal() {
	local stream=$1 d q
	shift
	d=$(scratch_dir)
	q=$(payload term-escapes.py)
	# Control: unsandboxed, every sequence reaches the terminal.
	drive raw-out="$d/control" -- \
		"$PY" "$q" "$stream"
	assert_contains "$output" "exit=0"
	assert_escapes "$d/control" 2
	# In the sandbox: none of them, and the rest unchanged.
	drive raw-out="$d/sandboxed" -- \
		"$SBOX" "$@" -- "$PY" "$q" "$stream"
	assert_contains "$output" "exit=0"
	assert_escapes "$d/sandboxed" 0
}

_escapes_stdout() {
	escapes_to_terminal stdout
}

@test "a clipboard write (OSC 52), DECRQSS and a title report on stdout do not reach the terminal" {
	requires python3 timeout
	each_user _escapes_stdout
}

_escapes_stderr() {
	escapes_to_terminal stderr
}

@test "a clipboard write (OSC 52), DECRQSS and a title report on stderr do not reach the terminal" {
	requires python3 timeout
	each_user _escapes_stderr
}

_escapes_tty() {
	escapes_to_terminal stdout --tty
}

@test "with --tty, a clipboard write (OSC 52), DECRQSS and a title report do not reach the terminal" {
	requires python3 timeout
	each_user _escapes_tty
}

# escapes_unfiltered [SBOX-OPTION...]: with --tty-unfiltered, everything
# the command writes reaches the terminal as it would unsandboxed.
escapes_unfiltered() {
	local d q
	d=$(scratch_dir)
	q=$(payload term-escapes.py)
	drive raw-out="$d/raw" -- \
		"$SBOX" "$@" --tty-unfiltered -- "$PY" "$q"
	assert_contains "$output" "exit=0"
	assert_escapes "$d/raw" 2
}

_escapes_unfiltered() {
	escapes_unfiltered
	escapes_unfiltered --tty
}

@test "with --tty-unfiltered, with and without --tty, every sequence reaches the terminal" {
	requires python3 timeout
	each_user _escapes_unfiltered
}

# The command's stdout a file, its stdin and stderr the terminal: the
# file gets the bytes as written; so does a pipe without a terminal.
_escapes_file() {
	local d q
	d=$(scratch_dir)
	q=$(payload term-escapes.py)
	usr "$PY" "$q" >"$d/control"
	assert_escapes "$d/control" 2
	drive expect=done -- sh -c '"$1" -- "$2" "$3" >"$4"; echo done' sh \
		"$SBOX" "$PY" "$q" "$d/file"
	assert_contains "$output" "exit=0"
	cmp "$d/control" "$d/file"
	sbx -- "$PY" "$q" | cat >"$d/pipe"
	cmp "$d/control" "$d/pipe"
	sbx --tty -- "$PY" "$q" | cat >"$d/pipe-tty"
	cmp "$d/control" "$d/pipe-tty"
}

@test "output to a file or a pipe keeps every sequence, byte for byte" {
	requires python3 timeout
	each_user _escapes_file
}

_unfiltered_in_policy() {
	local d
	d=$(scratch_dir)
	printf 'tty-unfiltered\n' >"$d/p.policy"
	chmod 0644 "$d/p.policy"
	run sbx --policy="$d/p.policy" -- true
	assert_status 125
	assert_contains "$output" "tty-unfiltered"
}

@test "a policy file cannot turn the terminal filter off" {
	each_user _unfiltered_in_policy
}
