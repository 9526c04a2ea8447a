#!/usr/bin/env bats
# sbox-exec(1) STATUS: one JSON line on every channel given (--status-fd,
# --status-socket), before the command starts or instead of it.

load helpers

setup() {
	requires bwrap jq python3
	D=$(scratch_dir)
	LISTENER_PID=
	# A name no other test run uses (abstract names are per network namespace).
	ABSTRACT="@sbox-exec-test-$$-$RANDOM-$BATS_TEST_NUMBER"
}

teardown() {
	if [ -n "$LISTENER_PID" ]; then
		kill "$LISTENER_PID" 2>/dev/null || true
	fi
	common_teardown
}

# spawn [ARGS...]: sbox-exec ($SBOX, as $AS) with ARGS in the background,
# $! being sbox-exec's own pid; the caller adds redirections and waits.
spawn() {
	usr_exec "$SBOX" "$@"
}

# listen ADDR: start status-listen.py (as $AS) on ADDR; its datagrams end
# up in $D/got once it has been idle for 2 s (see listened).
listen() {
	local listener
	listener=$(payload status-listen.py)
	rm -f "$D/ready" "$D/got"
	(
		usr_exec timeout 20 "$PY" "$listener" "$1" "$D/ready" "$D/got" 2
	) </dev/null >/dev/null 2>&1 3>&- &
	LISTENER_PID=$!
	wait_for 10 test -e "$D/ready"
}

# listened: wait (bounded) for the listener to finish writing $D/got.
listened() {
	wait "$LISTENER_PID" || true
	LISTENER_PID=
	[ -f "$D/got" ] || { echo "the listener wrote nothing" >&2; return 1; }
}

# The one datagram the listener got, as a file; fails unless exactly one.
datagram_to() {
	local n
	n=$(wc -l <"$D/got")
	[ "$n" -eq 1 ] || { echo "got $n datagrams: $(cat "$D/got")" >&2; return 1; }
	jq -j .data "$D/got" >"$1"
}

@test "--status-fd: one success line with version, bwrap and sbox-exec's pid" {
	body() {
		local pid rc=0
		rm -f "$D/status" "$D/out"
		( spawn --status-fd=3 -- true ) 3>"$D/status" >"$D/out" &
		pid=$!
		wait "$pid" || rc=$?
		assert_eq "$rc" 0
		assert_status_line "$D/status"
		assert_eq "$(jq -r .status "$D/status")" success
		assert_eq "$(jq -r .bwrap "$D/status")" "$(command -v bwrap)"
		assert_eq "$(jq -r .pid "$D/status")" "$pid"
		# The status goes to the channel only, never to stdout.
		assert_eq "$(cat "$D/out")" ""
	}
	each_user body
}

@test "a command's own exit 125 is told from a refusal only by the status line" {
	body() {
		local rc=0
		rm -f "$D/status"
		( spawn --status-fd=3 -- sh -c 'exit 125' ) 3>"$D/status" || rc=$?
		assert_eq "$rc" 125
		assert_eq "$(jq -r .status "$D/status")" success
		rm -f "$D/status"
		rc=0
		( spawn --status-fd=3 --rw /nonexistent/sbox-test -- true ) \
		    3>"$D/status" 2>/dev/null || rc=$?
		assert_eq "$rc" 125
		assert_eq "$(jq -r .status "$D/status")" invalid-policy
	}
	each_user body
}

@test "--status-fd on a pipe: the line, then EOF while the command still runs" {
	body() {
		local pid line
		rm -f "$D/fifo"
		mkfifo "$D/fifo"
		( spawn --status-fd=3 -- sleep 20 ) 3>"$D/fifo" >/dev/null 2>&1 &
		pid=$!
		# cat ends only at EOF: sbox-exec closed fd 3, the command never had it.
		line=$(timeout 10 cat "$D/fifo") || {
			kill "$pid"
			echo "no EOF on the status pipe while the command ran" >&2
			return 1
		}
		kill -0 "$pid" || { echo "the command ended early" >&2; return 1; }
		kill "$pid"
		wait "$pid" || true
		printf '%s\n' "$line" >"$D/status"
		assert_status_line "$D/status"
		assert_eq "$(jq -r .status "$D/status")" success
	}
	each_user body
}

@test "the status line is complete before the command's first output" {
	body() {
		# The command's first act is to print the status file.
		run --separate-stderr $AS "$SBOX" --status-fd=3 -- cat "$D/status" \
			3>"$D/status"
		assert_status 0
		printf '%s\n' "$output" >"$D/seen"
		assert_status_line "$D/seen"
		cmp "$D/seen" "$D/status"
	}
	each_user body
}

@test "two --status-fd channels each get the same one line" {
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --status-fd=4 -- true \
		3>"$D/s3" 4>"$D/s4"
	assert_status 0
	assert_status_line "$D/s3"
	cmp "$D/s3" "$D/s4"
}

@test "the same descriptor given twice is one channel: one line, no warning" {
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --status-fd=3 -- true \
		3>"$D/status"
	assert_status 0
	assert_status_line "$D/status"
	assert_eq "$stderr" ""
}

@test "--status-fd: the command's exit code is unchanged" {
	run "$SBOX_EXEC" --status-fd=3 -- sh -c 'exit 7' 3>"$D/status"
	assert_status 7
	assert_eq "$(jq -r .status "$D/status")" success
}

@test "--status-socket=@abstract: one datagram, same bytes as the fd, credentials" {
	requires python3
	body() {
		listen "$ABSTRACT"
		rm -f "$D/status"
		( spawn --status-fd=3 --status-socket="$ABSTRACT" -- true ) \
			3>"$D/status" &
		pid=$!
		wait "$pid"
		listened
		datagram_to "$D/dgram"
		assert_status_line "$D/dgram"
		cmp "$D/dgram" "$D/status"
		assert_eq "$(jq -r .status "$D/dgram")" success
		# SCM_CREDENTIALS as the kernel checked them: sbox-exec's pid and uid.
		assert_eq "$(jq -r .pid "$D/got")" "$pid"
		assert_eq "$(jq -r .uid "$D/got")" "$($AS id -u)"
		assert_eq "$(jq -r .pid "$D/dgram")" "$pid"
	}
	each_user body
}

@test "--status-socket=/path: one datagram, same bytes as the fd, credentials" {
	requires python3
	body() {
		local sock=$D/status.sock
		listen "$sock"
		rm -f "$D/status"
		( spawn --status-socket="$sock" --status-fd=3 -- true ) \
			3>"$D/status" &
		pid=$!
		wait "$pid"
		listened
		datagram_to "$D/dgram"
		assert_status_line "$D/dgram"
		cmp "$D/dgram" "$D/status"
		assert_eq "$(jq -r .status "$D/dgram")" success
		assert_eq "$(jq -r .pid "$D/got")" "$pid"
		assert_eq "$(jq -r .uid "$D/got")" "$($AS id -u)"
	}
	each_user body
}

@test "nobody listening on a socket path: a warning, the command runs, exit code kept" {
	body() {
		run --separate-stderr $AS "$SBOX" --status-socket="$D/nobody.sock" \
			-- sh -c 'echo out; exit 7'
		assert_status 7
		assert_eq "$output" out
		case $stderr in
		"sbox-exec: "*) ;;
		*) echo "no sbox-exec: warning: $stderr" >&2; return 1 ;;
		esac
	}
	each_user body
}

@test "nobody listening on an abstract name: a warning, the command runs, exit code kept" {
	body() {
		run --separate-stderr $AS "$SBOX" --status-socket="$ABSTRACT" \
			-- sh -c 'echo out; exit 3'
		assert_status 3
		assert_eq "$output" out
		case $stderr in
		"sbox-exec: "*) ;;
		*) echo "no sbox-exec: warning: $stderr" >&2; return 1 ;;
		esac
	}
	each_user body
}

@test "nobody listening, with an fd channel too: the fd still gets success" {
	run --separate-stderr "$SBOX_EXEC" --status-socket="$D/nobody.sock" \
		--status-fd=3 -- true 3>"$D/status"
	assert_status 0
	assert_status_line "$D/status"
	assert_eq "$(jq -r .status "$D/status")" success
	assert_contains "$stderr" "sbox-exec: "
}

@test "a status fd whose reader is gone: a warning, the command still runs" {
	requires python3
	# fd 3 is a pipe whose read end is closed: the write fails with EPIPE.
	run --separate-stderr "$PY" "$(payload closed-pipe-fd3.py)" \
		"$SBOX_EXEC" --status-fd=3 -- sh -c 'echo out; exit 5'
	assert_status 5
	assert_eq "$output" out
	assert_contains "$stderr" "sbox-exec: "
}

@test "invalid-policy (--rw /nonexistent) on fd and socket, with a detail" {
	requires python3
	body() {
		listen "$ABSTRACT"
		run --separate-stderr $AS "$SBOX" --status-fd=3 \
			--status-socket="$ABSTRACT" --rw /nonexistent/sbox-test \
			-- sh -c 'echo ran' 3>"$D/status"
		assert_status 125
		assert_eq "$output" ""
		listened
		datagram_to "$D/dgram"
		assert_status_line "$D/status"
		cmp "$D/dgram" "$D/status"
		assert_eq "$(jq -r .status "$D/status")" invalid-policy
		assert_contains "$(jq -r .detail "$D/status")" /nonexistent/sbox-test
	}
	each_user body
}

@test "bwrap-not-found on fd and socket, with a detail" {
	requires python3
	body() {
		listen "$D/s.sock"
		run --separate-stderr $AS "$SBOX" --status-fd=3 \
			--status-socket="$D/s.sock" --bwrap=/nonexistent/bwrap \
			-- sh -c 'echo ran' 3>"$D/status"
		assert_status 125
		assert_eq "$output" ""
		listened
		datagram_to "$D/dgram"
		assert_status_line "$D/status"
		cmp "$D/dgram" "$D/status"
		assert_eq "$(jq -r .status "$D/status")" bwrap-not-found
		[ -n "$(jq -r '.detail // empty' "$D/status")" ]
		# No pid: nothing runs.
		assert_eq "$(jq -r '.pid // empty' "$D/status")" ""
	}
	each_user body
}

@test "usage error: a too long socket name still reports invalid-policy on fd 3" {
	local long
	long=@$(printf 'x%.0s' {1..200})
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --status-socket="$long" \
		-- sh -c 'echo ran' 3>"$D/status"
	assert_status 125
	assert_eq "$output" ""
	assert_status_line "$D/status"
	assert_eq "$(jq -r .status "$D/status")" invalid-policy
	assert_contains "$(jq -r .detail "$D/status")" "--status-socket"
}

@test "usage error: a bad --status-fd still reports invalid-policy on the socket" {
	requires python3
	listen "$ABSTRACT"
	run --separate-stderr "$SBOX_EXEC" --status-socket="$ABSTRACT" \
		--status-fd=abc -- sh -c 'echo ran'
	assert_status 125
	listened
	datagram_to "$D/dgram"
	assert_status_line "$D/dgram"
	assert_eq "$(jq -r .status "$D/dgram")" invalid-policy
}

@test "usage error: a closed --status-fd beside a good one; the good one reports" {
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --status-fd=97 \
		-- sh -c 'echo ran' 3>"$D/status" 97>&-
	assert_status 125
	assert_eq "$output" ""
	assert_status_line "$D/status"
	assert_eq "$(jq -r .status "$D/status")" invalid-policy
}

@test "usage errors (unknown option, no command) report invalid-policy on fd 3" {
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --bogus -- true \
		3>"$D/status"
	assert_status 125
	assert_eq "$(jq -r .status "$D/status")" invalid-policy
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 3>"$D/status"
	assert_status 125
	assert_status_line "$D/status"
	assert_eq "$(jq -r .status "$D/status")" invalid-policy
}

@test "an option after the bad one is still honoured as a channel" {
	# --bogus comes first; --status-fd after it must still get the status.
	run --separate-stderr "$SBOX_EXEC" --bogus --status-fd=3 -- true \
		3>"$D/status"
	assert_status 125
	assert_status_line "$D/status"
	assert_eq "$(jq -r .status "$D/status")" invalid-policy
}

@test "non-UTF-8 bytes in a path in detail come out as U+FFFD, valid JSON" {
	requires python3
	listen "$ABSTRACT"
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 \
		--status-socket="$ABSTRACT" --rw $'/nonexist\xff\xfe-sbox' -- true \
		3>"$D/status"
	assert_status 125
	listened
	datagram_to "$D/dgram"
	assert_status_line "$D/status"
	cmp "$D/dgram" "$D/status"
	# Each bad byte became U+FFFD (assert_status_line checked it is UTF-8).
	assert_contains "$(jq -r .detail "$D/status")" \
		$'/nonexist\xef\xbf\xbd\xef\xbf\xbd-sbox'
	assert_contains "$(jq -r .status "$D/status")" invalid-policy
}

@test "surrogates, overlong forms and code points past U+10FFFF become U+FFFD" {
	local b
	for b in $'\xed\xa0\x80' $'\xc0\xaf' $'\xe0\x80\xaf' $'\xf4\x90\x80\x80' \
		$'\xf8\x88\x80\x80\x80' $'\xc3' $'\xe2\x82'; do
		run --separate-stderr "$SBOX_EXEC" --status-fd=3 \
			--rw "/nonexist-${b}-end" -- true 3>"$D/status"
		assert_status 125
		assert_status_line "$D/status"
		assert_contains "$(jq -r .detail "$D/status")" $'/nonexist-\xef\xbf\xbd'
		assert_contains "$(jq -r .detail "$D/status")" '-end'
	done
}

@test "valid UTF-8 in a path is kept as it is" {
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 \
		--rw $'/nonexist-\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x98\x80' -- true \
		3>"$D/status"
	assert_status 125
	assert_status_line "$D/status"
	assert_contains "$(jq -r .detail "$D/status")" \
		$'/nonexist-\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x98\x80'
}

@test "a newline and control bytes in a path: still one line of JSON" {
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 \
		--rw $'/nonexist\nsecond\tline\001' -- true 3>"$D/status"
	assert_status 125
	assert_status_line "$D/status"
	assert_contains "$(jq -r .detail "$D/status")" $'/nonexist\nsecond\tline'
}

@test "a path too long for the status: cut, still at most 4096 bytes of valid JSON" {
	local p
	# 4000 bytes of \xff become 12000 bytes of U+FFFD in detail.
	p=/nonexist/$(printf '\xff%.0s' {1..4000})
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --rw "$p" -- true \
		3>"$D/status"
	assert_status 125
	assert_status_line "$D/status"
	assert_eq "$(jq -r .status "$D/status")" invalid-policy
}

# long_bwrap: a working bwrap copy at a path of about 3000 bytes, in $LONG.
long_bwrap() {
	local dir=$D
	while [ ${#dir} -lt 3000 ]; do
		dir=$dir/$(printf 'd%.0s' {1..200})
	done
	mkdir -p "$dir"
	cp "$(readlink -f "$(command -v bwrap)")" "$dir/bwrap"
	LONG=$dir/bwrap
}

@test "a very long bwrap path in a success status: at most 4096 bytes" {
	long_bwrap
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --bwrap="$LONG" \
		-- true 3>"$D/status"
	assert_status 0
	assert_status_line "$D/status"
	assert_eq "$(jq -r .status "$D/status")" success
}

@test "a 3000-byte bwrap path fits in the line, so the bwrap field is not cut" {
	local got
	long_bwrap
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --bwrap="$LONG" \
		-- true 3>"$D/status"
	assert_status 0
	got=$(jq -r .bwrap "$D/status")
	[ "$got" = "$LONG" ] || {
		echo "bwrap field is ${#got} chars, the path ${#LONG}; line is $(wc -c <"$D/status") bytes" >&2
		return 1
	}
}

# Man page STATUS: "landlock" and "seccomp" say what is in force.
@test "success says landlock abi-N (this kernel's ABI) and seccomp filter" {
	body() {
		local abi line
		abi=$(landlock_abi)
		run --separate-stderr sbx --status-fd=3 -- true 3>"$D/status"
		case $(uname -m) in
		x86_64 | aarch64) ;;
		*)
			# No filter for this architecture: no sandbox either.
			assert_status 125
			assert_eq "$(json_get "$(cat "$D/status")" status)" sandbox-probe-failed
			return ;;
		esac
		assert_status 0
		assert_status_line "$D/status"
		line=$(cat "$D/status")
		if [ "$abi" -gt 0 ]; then
			assert_eq "$(json_get "$line" landlock)" "abi-$abi"
		else
			assert_eq "$(json_get "$line" landlock)" none
		fi
		assert_eq "$(json_get "$line" seccomp)" filter
		# --check reports the same.
		run --separate-stderr sbx --check --json
		assert_status 0
		assert_eq "$(json_get "$output" landlock)" "$(json_get "$line" landlock)"
		assert_eq "$(json_get "$output" seccomp)" "$(json_get "$line" seccomp)"
	}
	each_user body
}

@test "Landlock hidden from the kernel's answer: landlock none, the command still runs" {
	body() {
		local hide
		hide=$(payload hide-landlock)
		[ "$(landlock_abi)" -gt 0 ] ||
			skip_or_fail "no Landlock here to hide: the control needs it"
		# Control: without the hiding the status names an ABI.
		run --separate-stderr sbx --check --json
		[[ $(json_get "$output" landlock) == abi-* ]]
		run --separate-stderr usr "$hide" "$SBOX" --status-fd=3 -- \
			sh -c 'echo ran' 3>"$D/status"
		assert_status 0
		assert_eq "$output" ran
		assert_eq "$(json_get "$(cat "$D/status")" landlock)" none
		assert_eq "$(json_get "$(cat "$D/status")" status)" success
	}
	each_user body
}

@test "refusals carry no landlock or seccomp field" {
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --bwrap=/nonexistent -- true \
		3>"$D/status"
	assert_status 125
	assert_eq "$(json_get "$(cat "$D/status")" landlock)" ""
	assert_eq "$(json_get "$(cat "$D/status")" seccomp)" ""
}

# sbox-exec(1) EVENTS: the last event says how the command ended; modes
# that run nothing and refusals write none.
_events_exit() {
	local ev=$D/events-$BATS_TEST_NUMBER
	run sbx --log-fd=3 -- sh -c 'exit 7' 3>"$ev"
	assert_status 7
	assert_eq "$(cat "$ev")" '{"event":"exit","code":7}'
	run sbx --log-fd=3 -- sh -c 'kill -SEGV $$' 3>"$ev"
	assert_status 139
	assert_eq "$(cat "$ev")" '{"event":"exit","code":139}'
	run sbx --log-fd=3 --check 3>"$ev"
	assert_status 0
	assert_eq "$(wc -c <"$ev")" 0
	run sbx --log-fd=3 --rw /nonexistent-grant -- true 3>"$ev"
	assert_status 125
	assert_eq "$(wc -c <"$ev")" 0
}

@test "--log-fd: the exit event carries the exit status; --check and refusals write no event" {
	each_user _events_exit
}
