#!/usr/bin/env bats
# sbox-exec(1) OPTIONS (Filesystem, Process), EXIT STATUS: what the sandbox
# enforces, seen from outside as a user sees it (files on the host, bytes
# on stdout, exit codes).  Each test runs as root and again as nobody
# (each_user).  Every "this is blocked" check also makes the same attempt
# without the sandbox and shows that it works there, so that a sbox-exec
# that ran the command unsandboxed fails the test.  The network (OPTIONS,
# Network) is in tests/escape/sockets.bats and families.bats.

# Single-quoted scripts are expanded by the inner shell (SC2016); bats'
# @test bodies are functions, not subshells (SC2030/SC2031).
# shellcheck disable=SC2016,SC2030,SC2031
load helpers

setup() {
	requires bwrap userns
}

# no_process_matching STRING: no process has STRING in its command line.
no_process_matching() {
	! pgrep -f -- "$1" >/dev/null
}

# --- filesystem -------------------------------------------------------

_rw_dir_only() {
	local rw other
	rw=$(scratch_dir)
	other=$(scratch_dir)
	cd "$rw" || return 1

	run sbx --rw "$rw" -- sh -c 'echo inside >"$1/granted"' sh "$rw"
	assert_status 0
	assert_file "$rw/granted" inside

	# Control: this user can write to OTHER outside the sandbox.
	run usr sh -c 'echo control >"$1/control"' sh "$other"
	assert_status 0
	assert_file "$other/control" control

	run sbx --rw "$rw" -- sh -c 'echo started; echo escaped >"$1/escaped"' sh "$other"
	[ "$status" -ne 0 ] || { echo "write outside --rw succeeded" >&2; return 1; }
	assert_contains "$output" started
	assert_contains "$output" "Read-only file system"
	assert_absent "$other/escaped"
}

@test "a write in a --rw dir lands on the host; a write to another host dir fails and leaves nothing" {
	each_user _rw_dir_only
}

_ro_inside_rw() {
	local d
	d=$(scratch_dir)
	mkdir "$d/sub"
	chmod 0777 "$d/sub"
	echo original >"$d/sub/file"
	chmod 0666 "$d/sub/file"
	cd "$d" || return 1

	# Control: unsandboxed, this user can change sub/file and create in sub.
	run usr sh -c 'echo control >sub/control && echo original >>sub/file'
	assert_status 0
	assert_file "$d/sub/control" control
	rm -f "$d/sub/control"
	echo original >"$d/sub/file"

	run sbx --rw . --ro ./sub -- sh -c 'echo changed >sub/file'
	[ "$status" -ne 0 ] || { echo "overwriting sub/file succeeded" >&2; return 1; }
	assert_contains "$output" "Read-only file system"
	run sbx --rw . --ro ./sub -- sh -c 'echo new >sub/new'
	[ "$status" -ne 0 ] || { echo "creating sub/new succeeded" >&2; return 1; }
	assert_contains "$output" "Read-only file system"
	assert_file "$d/sub/file" original
	assert_absent "$d/sub/new"

	# The rest of the --rw directory stays writable, and sub readable.
	run sbx --rw . --ro ./sub -- sh -c 'cat sub/file >top'
	assert_status 0
	assert_file "$d/top" original
}

@test "--ro ./sub inside --rw . is read-only while the rest of . stays writable" {
	each_user _ro_inside_rw
}

_hide() {
	local d
	d=$(scratch_dir)
	mkdir "$d/secret"
	echo key-material >"$d/secret/key"
	echo token-material >"$d/token"
	chmod 0755 "$d/secret"
	chmod 0644 "$d/secret/key" "$d/token"
	cd "$d" || return 1

	# Control: unsandboxed, this user reads both.
	run usr cat "$d/secret/key" "$d/token"
	assert_status 0
	assert_eq "$output" "key-material
token-material"

	run sbx --hide "$d/secret" -- sh -c \
		'echo started; ls -A "$1/secret"; cat "$1/secret/key"' sh "$d"
	[ "$status" -ne 0 ] || { echo "reading the hidden file succeeded" >&2; return 1; }
	assert_eq "${lines[0]}" started
	[[ $output != *key-material* ]] || { echo "hidden content leaked: $output" >&2; return 1; }
	assert_contains "$output" "No such file or directory"

	# A hidden file reads as empty.
	run --separate-stderr sbx --hide "$d/token" -- sh -c \
		'wc -c <"$1/token"; cat "$1/token"' sh "$d"
	assert_status 0
	assert_eq "$output" 0

	assert_file "$d/secret/key" key-material
	assert_file "$d/token" token-material
}

@test "--hide DIR hides the directory's contents; --hide FILE shows an empty file" {
	each_user _hide
}

_private_tmp() {
	local planted out
	# Planted in the host's real /tmp, removed by teardown.
	planted=$(SBOX_TEST_SCRATCH=/tmp scratch_dir)
	echo host-data >"$planted/planted"
	chmod 0644 "$planted/planted"
	out=$planted/written-inside
	cd "$planted" || return 1

	# Control: unsandboxed, this user sees the planted file and writes to /tmp.
	run usr cat "$planted/planted"
	assert_status 0
	assert_eq "$output" host-data
	run usr sh -c 'echo control >"$1"' sh "$planted/control"
	assert_status 0
	assert_file "$planted/control" control

	run sbx -C / -- sh -c 'echo started; ls -A /tmp; cat "$1"' sh "$planted/planted"
	[ "$status" -ne 0 ] || { echo "the host /tmp file was readable" >&2; return 1; }
	assert_eq "${lines[0]}" started
	[[ $output != *host-data* ]] || { echo "host /tmp leaked: $output" >&2; return 1; }

	# /tmp inside is writable, and nothing written there reaches the host.
	run sbx -C / -- sh -c \
		'mkdir -p "${1%/*}" && echo inside >"$1" && cat "$1"' sh "$out"
	assert_status 0
	assert_eq "$output" inside
	assert_absent "$out"
}

@test "/tmp is private: host /tmp is invisible inside and writes to /tmp stay inside" {
	each_user _private_tmp
}

# --- stdio ------------------------------------------------------------

_stdio_bytes() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	# NUL, invalid UTF-8, an escape sequence, then 1 MiB of noise.
	printf 'a\000b\377\376\300\200\r\n\033[0m%%s\000' >"$d/blob"
	head -c 1048576 /dev/urandom >>"$d/blob"
	chmod 0644 "$d/blob"

	sbx -- cat "$d/blob" >"$d/out" 2>"$d/err"
	assert_eq "$?" 0
	cmp "$d/blob" "$d/out" || {
		od -c "$d/out" | head -n 5 >&2
		return 1
	}

	# Bytes the command writes itself, compared as od sees them.
	sbx -- printf 'x\000\377y' >"$d/out" 2>"$d/err"
	assert_eq "$?" 0
	assert_eq "$(od -An -tx1 "$d/out" | tr -d ' \n')" 7800ff79

	# stdin passes through, from a pipe.
	# shellcheck disable=SC2002 # a pipe, not a file, on purpose
	cat "$d/blob" | sbx -- cat >"$d/echo" 2>"$d/err"
	assert_eq "${PIPESTATUS[1]}" 0
	cmp "$d/blob" "$d/echo"
}

@test "stdout is byte-exact the command's and stdin passes through" {
	each_user _stdio_bytes
}

# --- exit status ------------------------------------------------------

_exit_codes() {
	local d n
	d=$(scratch_dir)
	cd "$d" || return 1
	for n in 0 1 42 255; do
		run sbx -- sh -c "exit $n"
		assert_status "$n"
	done

	run sbx -- sh -c 'kill -TERM $$'
	assert_status 143
	run sbx -- sh -c 'kill -KILL $$'
	assert_status 137

	# A PATH this user can search (see the next test for one it cannot).
	PATH=/usr/local/bin:/usr/bin:/bin run -127 sbx -- sbox-exec-test-no-such-command
	run -127 sbx -- "$d/missing"

	printf '#!/bin/sh\necho ran\n' >"$d/noexec"
	chmod 0644 "$d/noexec"
	run sbx -- "$d/noexec"
	assert_status 126
	[[ $output != *ran* ]] || { echo "the non-executable file ran" >&2; return 1; }
}

@test "exit codes propagate: 0 1 42 255, 128+N on signal N, 127 not found, 126 not executable" {
	each_user _exit_codes
}

_script_without_shebang() {
	local d
	d=$(scratch_dir)
	chmod 0755 "$d"
	cd "$d" || return 1
	printf 'echo "ran $1"\nexit 7\n' >"$d/script"
	printf '\177ELF\002\001\001\000\000not a program\n' >"$d/binary"
	chmod 0755 "$d/script" "$d/binary"

	# Control: a shell runs the script itself, and refuses the binary.
	run usr sh -c '"$1" arg' sh "$d/script"
	assert_status 7
	assert_eq "$output" "ran arg"

	# (stderr apart: the line on what --watch would name.)
	run --separate-stderr sbx -- "$d/script" arg
	assert_status 7
	assert_eq "$output" "ran arg"
	# Found on PATH, the same.
	PATH=$d:/usr/bin:/bin run --separate-stderr sbx -- script arg
	assert_status 7
	assert_eq "$output" "ran arg"
	# A binary the kernel does not know is not fed to sh: 126.
	run sbx -- "$d/binary"
	assert_status 126
	assert_contains "$output" "Exec format error"
}

# A file without "#!" is a script for sh, as for a shell and execvp(3),
# whichever C library sbox-exec is built against.
@test "a script without #! runs with /bin/sh and keeps its exit status; an unknown binary is 126" {
	each_user _script_without_shebang
}

_not_found_unsearchable_path() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	mkdir -m 0700 "$d/private"

	# Control: the shell calls such a command "not found" (127).
	PATH=$d/private:/usr/bin:/bin run -127 usr sh -c sbox-exec-test-no-such-command

	PATH=$d/private:/usr/bin:/bin run -127 sbx -- sbox-exec-test-no-such-command
}

# A PATH entry the user cannot search (e.g. root's PATH kept by sudo or
# setpriv) does not make a missing command "found but not executable".
@test "a command not found is 127 even when PATH has a directory the user cannot search" {
	each_user _not_found_unsearchable_path
}

# --- descriptors ------------------------------------------------------

_keep_fd() {
	local d f
	d=$(scratch_dir)
	f=$d/fd7
	cd "$d" || return 1
	: >"$f"
	chmod 0666 "$f"

	# Control: unsandboxed, the inherited fd 7 reaches the file.
	exec 7>>"$f"
	run usr sh -c 'echo control >&7'
	exec 7>&-
	assert_status 0
	assert_file "$f" control
	: >"$f"

	exec 7>>"$f"
	run sbx -- sh -c 'echo started; [ -e /proc/self/fd/7 ] && echo fd7-open; echo leaked >&7'
	exec 7>&-
	[ "$status" -ne 0 ] || { echo "writing to fd 7 succeeded" >&2; return 1; }
	assert_contains "$output" started
	[[ $output != *fd7-open* ]] || { echo "fd 7 is open inside" >&2; return 1; }
	assert_file "$f" ""

	exec 7>>"$f"
	run sbx --keep-fd=7 -- sh -c 'echo kept >&7'
	exec 7>&-
	assert_status 0
	assert_file "$f" kept
}

@test "an inherited descriptor is closed inside unless --keep-fd names it" {
	each_user _keep_fd
}

# --- capabilities -----------------------------------------------------

# Root with capabilities in such a sandbox could remount / writable.
@test "as root, remounting / read-write inside fails and the host stays unchanged" {
	requires root mount findmnt unshare
	local d before
	d=$(scratch_dir)
	cd "$d" || return 1
	before=$(findmnt -n -o OPTIONS /)

	# Control: the same bwrap sandbox with root's capabilities kept can
	# remount / and write to the host.  (The control shows the attack.)
	run /usr/bin/bwrap --unshare-user --unshare-pid --ro-bind / / \
		--dev /dev --proc /proc -- \
		sh -c 'mount -o remount,rw,bind / && echo escaped >"$1/control"' sh "$d"
	assert_status 0
	assert_file "$d/control" escaped

	# In a throwaway mount namespace, so that a sbox-exec that ran the
	# command unsandboxed could not remount the host's own /.
	run unshare -m --propagation private "$SBOX_EXEC" -- sh -c \
		'mount -o remount,rw,bind /; echo "mount=$?"; echo escaped >"$1/after"' sh "$d"
	assert_contains "$output" "mount="
	[[ $output != *mount=0* ]] || { echo "remount succeeded inside" >&2; return 1; }
	assert_contains "$output" "Read-only file system"
	assert_absent "$d/after"
	assert_eq "$(findmnt -n -o OPTIONS /)" "$before"
}

# --- environment ------------------------------------------------------

_env_ops() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	export SBOX_TEST_INHERITED=yes

	# Control: by default the environment is inherited.
	run --separate-stderr sbx -- /usr/bin/env
	assert_status 0
	assert_contains "$output" "SBOX_TEST_INHERITED=yes"

	run --separate-stderr sbx --setenv A 1 --clearenv --setenv B 2 -- /usr/bin/env
	assert_status 0
	assert_contains "$output" "B=2"
	! grep -q '^A=' <<<"$output" || { echo "A survived --clearenv" >&2; return 1; }
	! grep -q '^SBOX_TEST_INHERITED=' <<<"$output" || {
		echo "inherited variable survived --clearenv" >&2
		return 1
	}
	! grep -q '^PATH=' <<<"$output" || { echo "PATH survived --clearenv" >&2; return 1; }

	run --separate-stderr sbx --setenv X 1 --unsetenv X -- /usr/bin/env
	assert_status 0
	! grep -q '^X=' <<<"$output" || { echo "X is still set" >&2; return 1; }
	assert_contains "$output" "SBOX_TEST_INHERITED=yes"

	run --separate-stderr sbx --unsetenv X --setenv X 2 -- /usr/bin/env
	assert_status 0
	grep -qx 'X=2' <<<"$output"

	run --separate-stderr sbx --unsetenv SBOX_TEST_INHERITED -- /usr/bin/env
	assert_status 0
	! grep -q '^SBOX_TEST_INHERITED=' <<<"$output"
}

@test "--clearenv, --setenv and --unsetenv apply in order" {
	each_user _env_ops
}

# --- lifetime and signals ---------------------------------------------

_parent_death() {
	local d marker pids
	d=$(scratch_dir)
	cd "$d" || return 1
	marker=sbox-test-pdeath-$$-$RANDOM$RANDOM
	# The child: says it is up, then sleeps 300 s as one process with
	# MARKER in its argv (what pgrep looks for).
	printf '#!/bin/sh\necho up >"$1/up"\nexec %s -c "import time; time.sleep(300)" "$2"\n' \
		"$PY" >"$d/child.sh"
	# The spawner: records its pid, runs CMD... in the background, waits.
	printf '#!/bin/sh\necho $$ >"$1/parent.pid"\nshift\n"$@" &\nwait\n' \
		>"$d/parent.sh"
	chmod 0755 "$d/child.sh" "$d/parent.sh"

	# Control: without the sandbox, the child outlives its killed parent.
	bg usr /bin/sh "$d/parent.sh" "$d" /bin/sh "$d/child.sh" "$d" "$marker-ctl"
	wait_for 10 test -s "$d/up"
	kill -KILL "$(cat "$d/parent.pid")"
	sleep 1
	pids=$(pgrep -f -- "$marker-ctl") || {
		echo "control: the unsandboxed child did not survive" >&2
		return 1
	}
	# shellcheck disable=SC2086 # one pid per word
	forget_bg $pids
	# shellcheck disable=SC2086
	kill -KILL $pids
	rm -f "$d/up" "$d/parent.pid"

	bg usr /bin/sh "$d/parent.sh" "$d" "$SBOX" --rw "$d" -- \
		/bin/sh "$d/child.sh" "$d" "$marker"
	wait_for 10 test -s "$d/up"
	pids=$(pgrep -f -- "$marker") || {
		echo "the sandboxed child is not visible from the host" >&2
		return 1
	}
	# shellcheck disable=SC2086
	forget_bg $pids
	kill -KILL "$(cat "$d/parent.pid")"
	wait_for 5 no_process_matching "$marker" || {
		ps -o pid,ppid,args -p "$(pgrep -d, -f -- "$marker")" >&2
		return 1
	}
}

@test "the sandbox dies when the process that spawned sbox-exec is killed" {
	each_user _parent_death
}

_sigterm() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	printf '%s\n' '#!/bin/sh' \
		'trap '\''echo got-term >"$1/marker"; exit 3'\'' TERM' \
		'echo ready >"$1/ready"' \
		'sleep 60 &' \
		'wait' \
		'echo no-signal >"$1/marker"' >"$d/term.sh"
	chmod 0755 "$d/term.sh"

	# sbox-exec's pid in sbox.pid, its exit status in rc.
	bg usr /bin/sh -c '"$2" --rw "$1" -- /bin/sh "$1/term.sh" "$1" &
		echo $! >"$1/sbox.pid"; wait $!; echo $? >"$1/rc"' sh "$d" "$SBOX"
	wait_for 10 test -s "$d/ready"
	kill -TERM "$(cat "$d/sbox.pid")"
	wait_for 10 test -s "$d/rc"
	assert_file "$d/marker" got-term
	assert_file "$d/rc" 3
}

@test "SIGTERM to sbox-exec reaches the command, and sbox-exec exits with its status" {
	each_user _sigterm
}

# Under tests/payloads/subreaper.py, a parent that reaps nothing but its
# own child (as a container's pid 1 may), which lists what is left below
# it once sbox-exec has ended: every outcome, and nothing left.  bwrap
# ends without waiting for its child, the sandbox's first process; that
# one is the launcher's to reap (sbox-exec(1), EXIT STATUS).
_no_zombie() {
	local d sr
	d=$(scratch_dir)
	cd "$d" || return 1
	sr=$(payload subreaper.py)
	# Control: what a launcher leaves behind is seen, as a zombie.
	run usr "$PY" "$sr" sh -c 'sleep 0.1 & exec true'
	assert_status 0
	assert_contains "$output" " Z sleep"
	assert_contains "$output" "exit=0"
	# A run; one that leaves a process of its own inside.
	run usr "$PY" "$sr" "$SBOX" -- true
	refute_contains "$output" "left "
	assert_contains "$output" "exit=0"
	run usr "$PY" "$sr" "$SBOX" -- sh -c 'sleep 60 & exit 3'
	refute_contains "$output" "left "
	assert_contains "$output" "exit=3"
	# Refusals: before bwrap, and from inside (command not found).
	run usr "$PY" "$sr" "$SBOX" --chdir=/nonexistent-dir -- true
	refute_contains "$output" "left "
	assert_contains "$output" "exit=125"
	run usr "$PY" "$sr" "$SBOX" -- no-such-command-sbox-test
	refute_contains "$output" "left "
	assert_contains "$output" "exit=127"
	# A signal to sbox-exec, once the command runs.
	run usr "$PY" "$sr" --signal "15,$d/ready" "$SBOX" --rw "$d" -- \
		sh -c 'touch "$1/ready"; sleep 60' sh "$d"
	refute_contains "$output" "left "
	assert_contains "$output" "exit=143"
	# A timeout.
	run usr "$PY" "$sr" "$SBOX" --timeout 0.5 -- sleep 60
	refute_contains "$output" "left "
	assert_contains "$output" "exit=124"
}

@test "sbox-exec reaps what it started: no zombie left to its parent after a run, a refusal, a signal or a timeout" {
	each_user _no_zombie
}

# Field 41 of /proc/PID/stat: the scheduling policy (0 SCHED_OTHER,
# 3 SCHED_BATCH).
_sched_policy() {
	local d pid
	d=$(scratch_dir)
	chmod 0777 "$d"
	cd "$d" || return 1
	# Control: a command started without sbox-exec runs as SCHED_OTHER.
	run usr awk '{ print $41 }' /proc/self/stat
	assert_status 0
	[ "$output" = 0 ]

	bg usr /bin/sh -c '"$2" --rw "$1" -- /bin/sh -c '\''
		awk "{ print \$41 }" /proc/self/stat >"$1/cmd"; sleep 30'\'' sh "$1" &
		echo $! >"$1/sbox.pid"; wait' sh "$d" "$SBOX"
	wait_for 10 test -s "$d/cmd"
	pid=$(cat "$d/sbox.pid")
	forget_bg "$pid"
	assert_file "$d/cmd" 0
	[ "$(awk '{ print $41 }' "/proc/$pid/stat")" = 3 ]
	kill -TERM "$pid"
}

@test "the command keeps the normal scheduling policy; only the waiting launcher is SCHED_BATCH" {
	each_user _sched_policy
}
