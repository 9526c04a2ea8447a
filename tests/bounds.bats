#!/usr/bin/env bats
# sbox-exec(1) TIMEOUT AND LIMITS, EXIT STATUS (124): --timeout ends the
# whole sandbox, checked from outside (no process of it left, found by a
# marker in its command line); --limit's limits hold inside, each shown
# first to be exceeded without the sandbox.  Each test runs as root and
# again as nobody (each_user).

# Single-quoted scripts are expanded by the inner shell (SC2016); bats'
# @test bodies are functions, not subshells (SC2030/SC2031).
# shellcheck disable=SC2016,SC2030,SC2031
load helpers

setup() {
	requires bwrap userns
	MARK=sbox-bounds-$$-$RANDOM
}

# marked: how many processes have $MARK in their command line.
marked() {
	pgrep -c -f -- "$MARK" || true
}

# marked_children N: exactly N processes have "$MARK-" in their command
# line (a command's children, named "$MARK-child" and so on).
marked_children() {
	[ "$(pgrep -c -f -- "$MARK-")" = "$1" ]
}

# launch ARGS...: sbox-exec with ARGS in the background as the pass's user,
# away from bats' descriptors; its pid in $LAUNCHED, for wait.
launch() {
	(usr_exec "$SBOX" "$@") </dev/null >/dev/null 2>&1 3>&- &
	LAUNCHED=$!
	forget_bg "$LAUNCHED"
}

# --- --timeout ------------------------------------------------------------

_timeout_sleeper() {
	local d
	d=$(scratch_dir)
	SECONDS=0
	run --separate-stderr sbx --timeout=1 --status-fd=3 --log-fd=4 -- \
		sh -c 'sleep 30; :' "$MARK" 3>"$d/status" 4>"$d/events"
	assert_status 124
	assert_eq "$(cat "$d/events")" '{"event":"timeout","signal":"SIGTERM","after_ms":1000}
{"event":"exit","code":124}'
	assert_eq "$stderr" "sbox-exec: timed out after 1s: the sandbox ended after SIGTERM"
	[ "$SECONDS" -lt 5 ] || { echo "took ${SECONDS}s" >&2; return 1; }
	assert_eq "$(json_get "$(cat "$d/status")" status)" success
	assert_eq "$(marked)" 0
}

@test "--timeout: a command sleeping past it ends with 124, the detail on stderr" {
	each_user _timeout_sleeper
}

_timeout_stubborn() {
	local d daemon
	d=$(scratch_dir)
	# The command ignores SIGTERM, so do its child and a double-forked
	# daemon in a session of its own.
	cat >"$d/stubborn.sh" <<-'EOF'
		trap '' TERM
		exec >/dev/null 2>&1 </dev/null
		sh -c 'trap "" TERM; sleep 60; :' "$1-child" &
		setsid sh -c 'sh -c "trap \"\" TERM; sleep 60; :" "$1-daemon" &' sh "$1"
		echo started >"$2/started"
		sleep 60
		:
	EOF
	chmod 0644 "$d/stubborn.sh"

	# Control: timeout(1) kills the command's process group, not the
	# daemon, which left it.
	run usr timeout -k 0.5 0.5 sh "$d/stubborn.sh" "$MARK" "$d" 3>&-
	assert_status 137
	# The daemon's shell may start only after timeout(1) is done.
	wait_for 10 pgrep -f -- "$MARK-daemon" >/dev/null
	daemon=$(pgrep -f -- "$MARK-daemon")
	assert_eq "$(echo "$daemon" | wc -w)" 1
	kill -KILL -- "-$(ps -o pgid= -p "$daemon" | tr -d ' ')"
	rm -f "$d/started"

	launch --rw "$d" --timeout=1.5 --kill-after=0.5 -- \
		sh "$d/stubborn.sh" "$MARK" "$d"
	wait_for 5 test -e "$d/started"
	# The child and the daemon, once both shells have started.
	wait_for 5 marked_children 2
	status=0
	wait "$LAUNCHED" || status=$?
	assert_eq "$status" 124
	assert_eq "$(marked)" 0
}

@test "--timeout: SIGTERM ignored, children and a daemon too: all killed, nothing left" {
	each_user _timeout_stubborn
}

_timeout_kill_message() {
	local d
	d=$(scratch_dir)
	run --separate-stderr sbx --timeout=0.5 --kill-after=0.5 --log-fd=3 -- \
		sh -c 'trap "" TERM; sleep 30; :' "$MARK" 3>"$d/events"
	assert_status 124
	assert_eq "$(cat "$d/events")" '{"event":"timeout","signal":"SIGTERM","after_ms":500}
{"event":"timeout","signal":"SIGKILL","after_ms":1000}
{"event":"exit","code":124}'
	assert_eq "$stderr" "sbox-exec: timed out after 0.500s: the sandbox did not end within 0.500s of SIGTERM and was killed"
	assert_eq "$(marked)" 0
}

@test "--timeout: 124 also when SIGKILL was needed, and stderr says so" {
	each_user _timeout_kill_message
}

_timeout_forwarding() {
	local d
	d=$(scratch_dir)
	launch --rw "$d" --timeout=30 -- sh -c \
		'trap "echo usr1 >$1/got; exit 7" USR1; echo up >$1/up; sleep 30 & wait' \
		"$MARK" "$d"
	wait_for 5 test -e "$d/up"
	kill -USR1 "$LAUNCHED"
	status=0
	wait "$LAUNCHED" || status=$?
	assert_eq "$status" 7
	assert_file "$d/got" usr1
}

@test "--timeout: a signal sent meanwhile is still passed on to the command" {
	each_user _timeout_forwarding
}

_timeout_before_ready() {
	local d
	d=$(scratch_dir)
	run --separate-stderr sbx --timeout=0.001 --status-fd=3 -- \
		sleep 30 3>"$d/status"
	assert_status 124
	assert_status_line "$d/status"
	assert_eq "$(json_get "$(cat "$d/status")" status)" success
}

@test "--timeout shorter than the sandbox's creation: the status comes first, then 124" {
	each_user _timeout_before_ready
}

@test "--timeout in a policy file" {
	local d
	d=$(scratch_dir)
	printf '%s\n' '--timeout=0.5' >"$d/t.policy"
	run --separate-stderr "$SBOX_EXEC" --policy="$d/t.policy" -- sleep 30
	assert_status 124
	assert_contains "$stderr" "timed out after 0.500s"
}

@test "bad durations (--timeout, --kill-after, --net-idle-timeout) and --kill-after alone: 125 naming the option, nothing runs" {
	local d bad
	d=$(scratch_dir)
	for bad in 0 0s 0.0 -1 +1 '' 1e3 0x10 10ms 1.5.3 ' 1' 1w 366d \
		99999999999999999999 inf 01 .5; do
		run --separate-stderr "$SBOX_EXEC" --rw "$d" --timeout="$bad" -- \
			touch "$d/ran"
		assert_status 125
		assert_sbox_message "$stderr"
		assert_contains "$stderr" "--timeout: '$bad' is not a duration"
		run --separate-stderr "$SBOX_EXEC" --rw "$d" --timeout=1 \
			--kill-after="$bad" -- touch "$d/ran"
		assert_status 125
		assert_contains "$stderr" "--kill-after: '$bad' is not a duration"
		run --separate-stderr "$SBOX_EXEC" --rw "$d" \
			--net-idle-timeout="$bad" -- touch "$d/ran"
		assert_status 125
		assert_sbox_message "$stderr"
		assert_contains "$stderr" "--net-idle-timeout: '$bad' is not a duration"
	done
	run --separate-stderr "$SBOX_EXEC" --rw "$d" --kill-after=1 -- touch "$d/ran"
	assert_status 125
	assert_eq "$stderr" "sbox-exec: --kill-after needs --timeout"
	assert_absent "$d/ran"
}

# --- --limit ----------------------------------------------------------------

_limit_nproc() {
	local d bomb
	d=$(scratch_dir)
	bomb=$(payload fork-until.py)
	if [ -z "$AS" ]; then
		# As root the kernel does not count: refused, never ignored.
		run --separate-stderr sbx --limit=nproc=50 -- touch "$d/ran"
		assert_status 125
		assert_contains "$stderr" "--limit: nproc cannot be enforced when sbox-exec runs as root"
		assert_absent "$d/ran"
		return
	fi
	# Control: this user forks 100 unsandboxed.
	run usr "$PY" "$bomb" 100 "$d/control"
	assert_status 0
	assert_file "$d/control" "100 none"

	launch --rw "$d" --limit=nproc=50 -- "$PY" "$bomb" 1000 "$d/inside" 10
	wait_for 10 test -e "$d/inside"
	# The sandbox's first process and the bomb count too.
	read -r n why <"$d/inside"
	[ "$n" -ge 40 ] && [ "$n" -le 49 ] ||
		{ echo "forked $n times" >&2; return 1; }
	assert_eq "$why" EAGAIN
	# Meanwhile the same user outside forks as before.
	run usr "$PY" "$bomb" 100 "$d/outside"
	assert_status 0
	assert_file "$d/outside" "100 none"
	kill "$LAUNCHED"
	status=0
	wait "$LAUNCHED" || status=$?
	assert_eq "$status" $((128 + 15))
}

@test "--limit=nproc=50: a fork bomb inside stops there, the user's processes outside do not" {
	each_user _limit_nproc
}

_limit_fsize() {
	local d
	d=$(scratch_dir)
	# Control: 2 MiB written unsandboxed.
	run usr sh -c 'head -c 2097152 /dev/zero >"$1/big"' sh "$d"
	assert_status 0
	assert_eq "$(stat -c %s "$d/big")" 2097152
	rm -f "$d/big"

	run sbx --rw "$d" --limit=fsize=1M --log-fd=3 -- \
		sh -c 'head -c 2097152 /dev/zero >"$1/big"' sh "$d" 3>"$d/events"
	assert_status $((128 + 25)) # SIGXFSZ
	assert_eq "$(stat -c %s "$d/big")" 1048576
	assert_eq "$(head -n 1 "$d/events")" \
		'{"event":"killed","signal":"SIGXFSZ","limit":"fsize","value":1048576}'
}

@test "--limit=fsize=1M: the writer gets SIGXFSZ and the file is 1 MiB" {
	each_user _limit_fsize
}

# execve(2)'s room shrinks with the stack limit (a quarter of it, 128 KiB
# at least): a command whose environment does not fit under --limit's
# stack is refused before it is said to run (sbox-exec(1), Policy size).
_limit_stack_exec() {
	local d big
	d=$(scratch_dir)
	big=$(head -c 100000 /dev/zero | tr '\0' v)
	# Control: with a stack of 1 MiB (256 KiB of room) the command starts
	# with its 200 000 bytes of environment.
	run --separate-stderr sbx --rw "$d" --limit=stack=1M --setenv B1 "$big" \
		--setenv B2 "$big" -- sh -c 'echo "${#B1} ${#B2}" >"$1/ran"' sh "$d"
	assert_status 0
	assert_file "$d/ran" "100000 100000"
	rm -f "$d/ran"

	run --separate-stderr sbx --status-fd=3 --rw "$d" --limit=stack=64K \
		--setenv B1 "$big" --setenv B2 "$big" -- \
		sh -c 'echo "${#B1} ${#B2}" >"$1/ran"' sh "$d" 3>"$d/status"
	assert_status 126
	assert_eq "$output" ""
	assert_status_line "$d/status"
	assert_eq "$(jq -r .status "$d/status")" command-not-executable
	assert_contains "$(jq -r .detail "$d/status")" "Argument list too long"
	assert_contains "$stderr" "under --limit's stack limit"
	assert_contains "$stderr" "allow a larger stack (--limit stack)"
	assert_absent "$d/ran"
}

@test "--limit=stack=64K: a command whose environment execve(2) would refuse is command-not-executable, never a success that fails" {
	requires jq
	each_user _limit_stack_exec
}

_limit_cpu() {
	# Control: the loop outlives two seconds unsandboxed.
	run usr timeout 2 sh -c 'while :; do :; done'
	assert_status 124

	local d
	d=$(scratch_dir)
	SECONDS=0
	run sbx --limit=cpu=1 --log-fd=3 -- sh -c 'while :; do :; done' \
		3>"$d/events"
	assert_status $((128 + 24)) # SIGXCPU
	[ "$SECONDS" -le 4 ] || { echo "took ${SECONDS}s" >&2; return 1; }
	assert_eq "$(head -n 1 "$d/events")" \
		'{"event":"killed","signal":"SIGXCPU","limit":"cpu","value":1}'
}

@test "--limit=cpu=1: a busy loop ends within seconds, on SIGXCPU" {
	each_user _limit_cpu
}

_core_default() {
	local d
	d=$(scratch_dir)
	case $(cat /proc/sys/kernel/core_pattern) in
	core | core.*) ;;
	*) skip_or_fail "core_pattern is not a file in the working directory" ;;
	esac
	# Control: the same crash unsandboxed leaves a core file.
	(
		cd "$d" && ulimit -c unlimited &&
			usr sh -c 'kill -SEGV $$'
	) || true
	compgen -G "$d/core*" >/dev/null ||
		{ echo "no core file unsandboxed" >&2; return 1; }
	rm -f "$d"/core*

	(
		ulimit -c unlimited
		cd "$d" && sbx --rw "$d" -- sh -c 'kill -SEGV $$'
	) || status=$?
	assert_eq "$status" $((128 + 11))
	! compgen -G "$d/core*" >/dev/null ||
		{ echo "a core file from the sandbox: $(ls "$d")" >&2; return 1; }

	# core=unlimited gives the default back.
	(
		ulimit -c unlimited
		cd "$d" && sbx --rw "$d" --limit=core=unlimited -- sh -c 'kill -SEGV $$'
	) || true
	compgen -G "$d/core*" >/dev/null
}

@test "core=0 by default: a crash leaves no core file even with ulimit -c unlimited outside" {
	each_user _core_default
}

_limits_status() {
	local d
	d=$(scratch_dir)
	run sbx --status-fd=3 --limit=nofile=64 --limit=stack=8M \
		--limit=nofile=100 -- sh -c 'ulimit -n; ulimit -s' 3>"$d/status"
	assert_status 0
	assert_eq "$output" $'100\n8192'
	assert_eq "$(jq -c .limits "$d/status")" \
		'{"nofile":100,"stack":8388608,"core":0}'
}

@test "the status's limits: what was set, the last of a repeated name" {
	each_user _limits_status
}

@test "bad limits: 125 naming --limit and the value, nothing runs" {
	local d hard
	d=$(scratch_dir)
	for bad in foo=1 cpu cpu=0 nproc=0 cpu=-1 cpu=1.5 nproc=1K fsize=1k \
		fsize=1MB fsize=01 fsize=17179869184G; do
		run --separate-stderr "$SBOX_EXEC" --rw "$d" --limit="$bad" -- \
			touch "$d/ran"
		assert_status 125
		assert_sbox_message "$stderr"
		assert_contains "$stderr" "--limit: "
	done
	hard=$(ulimit -Hn)
	run --separate-stderr "$SBOX_EXEC" --rw "$d" \
		--limit=nofile=$((hard + 1)) -- touch "$d/ran"
	assert_status 125
	assert_eq "$stderr" "sbox-exec: --limit: nofile=$((hard + 1)) is above sbox-exec's hard limit of $hard; a sandbox cannot raise it"
	assert_absent "$d/ran"
}

_nofile_low() {
	local d v
	d=$(scratch_dir)
	# Below 3 the command would have no stderr: refused before anything
	# starts, naming the limit.
	for v in 1 2; do
		run --separate-stderr sbx --rw "$d" --status-fd=3 \
			--limit=nofile=$v -- touch "$d/ran" 3>"$d/status"
		assert_status 125
		assert_eq "$stderr" "sbox-exec: --limit: nofile=$v is too low: a command needs at least 3 descriptors (stdin, stdout, stderr)"
		assert_eq "$(jq -r .status "$d/status")" invalid-policy
		assert_absent "$d/ran"
	done
	# The lookup is not under the command's limits: with nofile=3 it
	# still reads a script and finds its interpreter missing (it cannot
	# run on the host either).
	printf '#!%s/gone/sh\ntouch %s/ran\n' "$d" "$d" >"$d/script"
	chmod 0755 "$d/script"
	run -127 usr "$d/script"
	run --separate-stderr sbx --rw "$d" --status-fd=3 --limit=nofile=3 \
		-- "$d/script" 3>"$d/status"
	assert_status 126
	assert_eq "$(jq -r .status "$d/status")" command-not-executable
	assert_contains "$stderr" "its interpreter $d/gone/sh is not in the sandbox"
	assert_absent "$d/ran"
	# The lowest accepted limit holds for the command.
	run sbx --limit=nofile=4 -- sh -c 'ulimit -n'
	assert_status 0
	assert_eq "$output" 4
}

@test "nofile below 3 is refused; the lookup runs before the limits" {
	each_user _nofile_low
}
