#!/usr/bin/env bats
# --learn's file under concurrency and signals (sbox-exec(1), DENIALS,
# "Learning a policy"): learners that end together take turns and merge;
# the file keeps its mode and owner; no signal leaves a temporary file
# behind, and one that comes after the command ended waits until the
# grants are written.  As root and as an unprivileged user.

# shellcheck disable=SC2016
load helpers

setup() {
	requires bwrap userns setpriv
	D=$(scratch_dir)
}

# learner DIR FILE: a run that is refused a write into DIR, learns into
# FILE, and ends once $W/go exists.
learner() {
	sbx --learn="$2" -- sh -c \
		'echo x >"$1/f" 2>/dev/null; while [ ! -e "$2/go" ]; do sleep 0.01; done' \
		sh "$1" "$W"
}

_pairs() {
	local pol i a b
	W=$D/pairs-${AS:-root}
	rm -rf "$W"
	usr mkdir "$W"
	pol=$W/learned.policy
	for i in $(seq 1 30); do
		usr mkdir "$W/a$i" "$W/b$i"
		# The control: unsandboxed, both writes land.
		usr sh -c 'echo x >"$1/f" && echo x >"$2/f" && rm "$1/f" "$2/f"' \
			sh "$W/a$i" "$W/b$i"
		rm -f "$W/go"
		learner "$W/a$i" "$pol" 2>"$W/err-a$i" &
		a=$!
		learner "$W/b$i" "$pol" 2>"$W/err-b$i" &
		b=$!
		# Both have been refused: then both end at once.
		wait_for 10 grep -q refused "$W/err-a$i"
		wait_for 10 grep -q refused "$W/err-b$i"
		touch "$W/go"
		wait "$a"
		wait "$b"
	done
	for i in $(seq 1 30); do
		grep -qx -- "--rw $W/a$i" "$pol" || {
			echo "pair $i: lost --rw $W/a$i" >&2
			cat "$W/err-a$i" >&2
			return 1
		}
		grep -qx -- "--rw $W/b$i" "$pol" || {
			echo "pair $i: lost --rw $W/b$i" >&2
			cat "$W/err-b$i" >&2
			return 1
		}
	done
	assert_eq "$(grep -c -- '^--rw ' "$pol")" 60
	run ls -A "$W"
	refute_contains "$output" "learned.policy."
}

@test "30 pairs of learners ending together on one file lose no grant" {
	each_user _pairs
}

_mode_kept() {
	local pol
	W=$D/mode-${AS:-root}
	rm -rf "$W"
	usr mkdir "$W" "$W/out"
	pol=$W/learned.policy
	usr sh -c 'umask 077; printf "# mine\n" >"$1"; chmod 0640 "$1"' sh "$pol"
	run sbx --learn="$pol" -- sh -c 'echo x >"$1/f"' sh "$W/out"
	assert_failed "a write outside the grants"
	grep -qx -- "--rw $W/out" "$pol"
	assert_eq "$(stat -c '%a %u' "$pol")" "640 $(stat -c %u "$W")"
}

@test "the learned file keeps its mode and its owner" {
	each_user _mode_kept
}

@test "as root, learning into another user's file keeps that user's ownership" {
	requires root
	local pol=$D/users.policy
	mkdir "$D/out"
	printf '# theirs\n' >"$pol"
	chown 65534:65534 "$pol"
	chmod 0600 "$pol"
	run "$SBOX_EXEC" --learn="$pol" -- sh -c 'echo x >"$1/f"' sh "$D/out"
	assert_failed "a write outside the grants"
	grep -qx -- "--rw $D/out" "$pol"
	assert_eq "$(stat -c '%a %u:%g' "$pol")" "600 65534:65534"
}

# sbx_exec ARGS...: sbx, replacing the calling subshell, so that in
# `( sbx_exec ... ) &` $! is sbox-exec's own pid.
sbx_exec() {
	if [ -n "${AS:-}" ]; then
		as_user_exec "$SBOX" "$@"
	fi
	exec "$SBOX" "$@"
}

_signalled() {
	local pol i pid sig
	W=$D/signals-${AS:-root}
	rm -rf "$W"
	usr mkdir "$W" "$W/out" "$W/m"
	pol=$W/learned.policy
	for i in $(seq 1 200); do
		rm -f "$W/m/done" "$pol" "$W/err"
		case $((i % 3)) in
		0) sig=INT ;;
		1) sig=TERM ;;
		*) sig=HUP ;;
		esac
		(sbx_exec --rw "$W/m" --learn="$pol" -- sh -c \
			'echo x >"$1/f" 2>/dev/null; : >"$2/done"' sh "$W/out" "$W/m" \
			2>"$W/err") &
		pid=$!
		# Half of the signals when the command has just ended, the
		# others at any moment of the run.
		if [ $((i % 2)) = 0 ]; then
			while [ ! -e "$W/m/done" ] && kill -0 "$pid" 2>/dev/null; do
				:
			done
		else
			sleep "0.0$((RANDOM % 6))"
		fi
		kill -s "$sig" "$pid" 2>/dev/null || true
		wait "$pid" || true
		run ls -A "$W"
		refute_contains "$output" "learned.policy."
		# The command ended: its refusal is learned, or stderr says
		# why not.
		if [ -e "$W/m/done" ] && ! grep -qx -- "--rw $W/out" "$pol" &&
			! grep -q "sbox-exec: --learn:" "$W/err"; then
			echo "run $i (SIG$sig): the grant is lost without a word" >&2
			cat "$W/err" >&2
			return 1
		fi
	done
}

@test "200 runs signalled at any moment leave no temporary file, and after the command ended still write their grants" {
	each_user _signalled
}

_first_run() {
	local pol
	W=$D/first-${AS:-root}
	rm -rf "$W"
	usr mkdir "$W" "$W/out"
	pol=$W/new.policy
	run sbx --learn="$pol" --policy="$pol" -- sh -c 'echo x >"$1/f"' sh "$W/out"
	assert_failed "a write outside the grants"
	grep -qx -- "--rw $W/out" "$pol"
	run sbx --learn="$pol" --policy="$pol" -- sh -c 'echo x >"$1/f"' sh "$W/out"
	assert_status 0
	assert_file "$W/out/f" x
}

@test "--learn=F --policy=F works on the first run, when F does not exist yet" {
	each_user _first_run
}
