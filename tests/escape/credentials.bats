#!/usr/bin/env bats
# Escape catalogue: credentials.  SPEC "Filesystem", host protection:
# credential stores in the home directory are hidden unless named; man
# page HOST PROTECTION: a grant that reaches a masked path only through a
# symlink is refused (invalid-policy); THE SANDBOX: the kernel keyring
# calls are refused, since keyrings are shared with the host.  Every test
# uses a scratch HOME (HOME=$d/home) with a key in ~/.ssh/id_test, owned
# by the pass's user.  See common.bash.

# shellcheck disable=SC2016,SC2030,SC2031
load common

# plant_home DIR: HOME=DIR/home, with a private key in ~/.ssh/id_test;
# the key's text in $KEY.
plant_home() {
	KEY="sbox-test-private-key-$RANDOM$RANDOM"
	export HOME=$1/home
	usr sh -c 'umask 077 && mkdir -p "$1/.ssh" && printf "%s\n" "$2" >"$1/.ssh/id_test"' \
		sh "$HOME" "$KEY"
	chmod 0755 "$HOME"
}

# control_reads_key: unsandboxed, this user reads the key.
control_reads_key() {
	run usr cat "$HOME/.ssh/id_test"
	assert_status 0
	assert_eq "$output" "$KEY"
}

_ssh_key() {
	local d
	d=$(scratch_dir)
	plant_home "$d"
	cd "$d" || return 1
	control_reads_key

	run sbx -- sh -c 'echo started; ls -A "$HOME/.ssh"; cat "$HOME/.ssh/id_test"'
	assert_failed "reading ~/.ssh/id_test"
	assert_contains "$output" started
	refute_contains "$output" "$KEY"
	! grep -qx id_test <<<"$output" || { echo "ls shows id_test" >&2; return 1; }
	assert_file "$HOME/.ssh/id_test" "$KEY"
}

@test "a key in ~/.ssh cannot be read" {
	each_user _ssh_key
}

_ssh_key_rw_home() {
	local d before
	d=$(scratch_dir)
	plant_home "$d"
	cd "$HOME" || return 1
	control_reads_key
	# Control: unsandboxed, this user also writes in ~/.ssh.
	run usr sh -c 'echo control >"$HOME/.ssh/authorized_keys"'
	assert_status 0
	assert_file "$HOME/.ssh/authorized_keys" control
	rm -f "$HOME/.ssh/authorized_keys"

	before=$(tree_state "$HOME/.ssh")
	run sbx --rw "$HOME" -- sh -c '
		echo started
		cat "$HOME/.ssh/id_test"
		echo evil >"$HOME/.ssh/authorized_keys" && echo wrote-authorized-keys
		rm -f "$HOME/.ssh/id_test"
		mv "$HOME/.ssh" "$HOME/.ssh.old" && echo renamed'
	assert_contains "$output" started
	refute_contains "$output" "$KEY"
	refute_contains "$output" wrote-authorized-keys
	refute_contains "$output" renamed
	assert_eq "$(tree_state "$HOME/.ssh")" "$before"
	assert_absent "$HOME/.ssh.old"
	assert_file "$HOME/.ssh/id_test" "$KEY"
}

@test "with --rw \"\$HOME\" the ~/.ssh mask still applies: no reading, writing or renaming it" {
	each_user _ssh_key_rw_home
}

_ssh_key_minimal_ro_home() {
	local d
	d=$(scratch_dir)
	plant_home "$d"
	cd "$HOME" || return 1
	control_reads_key

	run sbx --fs=minimal --ro "$HOME" -- sh -c 'echo started; cat "$HOME/.ssh/id_test"'
	assert_failed "reading ~/.ssh/id_test"
	assert_contains "$output" started
	refute_contains "$output" "$KEY"
	assert_file "$HOME/.ssh/id_test" "$KEY"
}

@test "with --fs=minimal --ro \"\$HOME\" the ~/.ssh mask still applies" {
	each_user _ssh_key_minimal_ro_home
}

# plant_link TARGET NAME: an earlier sandboxed run with --rw $WORK plants
# $WORK/NAME -> TARGET, which lands on the host.
plant_link() {
	run sbx --rw "$WORK" -- ln -s "$1" "$WORK/$2"
	assert_status 0
	[ -L "$WORK/$2" ] || { echo "the planted link is not on the host" >&2; return 1; }
}

# assert_refused_grant OPTION PATH READ-PATH: sbox-exec OPTION PATH --
# cat READ-PATH is refused with invalid-policy, and no key is printed.
assert_refused_grant() {
	local st=$WORK/../status
	run sbx --status-fd=3 "$1" "$2" -- sh -c 'echo command-started; cat "$1"' sh "$3" 3>"$st"
	assert_status 125
	refute_contains "$output" command-started
	refute_contains "$output" "$KEY"
	assert_eq "$(json_get "$(cat "$st")" status)" invalid-policy
}

_planted_symlink_file() {
	local d
	d=$(scratch_dir)
	plant_home "$d"
	WORK=$d/work
	usr mkdir "$WORK"
	cd "$WORK" || return 1
	plant_link "$HOME/.ssh/id_test" notes

	# Control: unsandboxed, the link reads the key.
	run usr cat "$WORK/notes"
	assert_status 0
	assert_eq "$output" "$KEY"

	assert_refused_grant --ro "$WORK/notes" "$WORK/notes"
	assert_refused_grant --rw "$WORK/notes" "$WORK/notes"
	assert_file "$HOME/.ssh/id_test" "$KEY"
}

@test "a symlink to ~/.ssh/id_test planted in a --rw dir, granted later with --ro or --rw, is refused" {
	requires jq
	each_user _planted_symlink_file
}

_planted_symlink_dir() {
	local d
	d=$(scratch_dir)
	plant_home "$d"
	WORK=$d/work
	usr mkdir "$WORK"
	cd "$WORK" || return 1
	plant_link "$HOME/.ssh" keys

	# Control: unsandboxed, the link reads the key.
	run usr cat "$WORK/keys/id_test"
	assert_status 0
	assert_eq "$output" "$KEY"

	assert_refused_grant --ro "$WORK/keys" "$WORK/keys/id_test"
	assert_refused_grant --rw "$WORK/keys" "$WORK/keys/id_test"
	assert_file "$HOME/.ssh/id_test" "$KEY"
}

@test "a symlink to ~/.ssh planted in a --rw dir, granted later with --ro or --rw, is refused" {
	requires jq
	each_user _planted_symlink_dir
}

# Swaps two paths ($1, $2) with renameat2(RENAME_EXCHANGE) as fast as it
# can, for at most $3 seconds.
SWAP_PY='
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": 316, "aarch64": 276}[__import__("os").uname().machine]
a, b = sys.argv[1].encode(), sys.argv[2].encode()
end = time.time() + float(sys.argv[3])
while time.time() < end:
    libc.syscall(nr, -100, a, -100, b, 2)
'

# A grant is resolved on the host, then bound by bwrap: a sandboxed
# command running at the same time, with --rw on the directory above,
# can turn the granted directory into a symlink in between.
_symlink_race() {
	local d swapper end n=0 out
	d=$(scratch_dir)
	plant_home "$d"
	WORK=$d/work
	usr mkdir -p "$WORK/sub"
	usr ln -s "$HOME/.ssh" "$WORK/link"
	cd "$WORK" || return 1

	# Control: unsandboxed, the link reads the key.
	run usr cat "$WORK/link/id_test"
	assert_status 0
	assert_eq "$output" "$KEY"

	# The attacker: a sandbox with --rw WORK, swapping sub and link.
	bg usr_exec "$SBOX" --rw "$WORK" -- "$PY" -c "$SWAP_PY" "$WORK/sub" "$WORK/link" 60
	swapper=$BG_PID
	wait_for 10 test -L "$WORK/sub"

	# The victim: grants WORK/sub read-only, again and again, for 10 s.
	end=$((SECONDS + 10))
	while [ "$SECONDS" -lt "$end" ]; do
		n=$((n + 1))
		out=$(sbx --ro "$WORK/sub" -- cat "$WORK/sub/id_test" 2>&1) || true
		case $out in
		*"$KEY"*)
			echo "attempt $n: the key leaked through a raced symlink" >&2
			return 1 ;;
		esac
	done
	echo "# $n attempts, no leak" >&3
	kill -TERM "$swapper"
	assert_file "$HOME/.ssh/id_test" "$KEY"
}

@test "a granted dir swapped for a symlink to ~/.ssh by a concurrent sandbox (a race) shows no key" {
	requires python3
	requires_syscall_numbers
	each_user _symlink_race
}

# The kernel keyrings: argv get | add DESC | find DESC | drop DESC.
#   get   the session keyring's id (keyctl KEYCTL_GET_KEYRING_ID)
#   add   add a "user" key DESC to the user keyring (add_key)
#   find  whether the user keyring holds DESC (keyctl KEYCTL_SEARCH)
#   drop  invalidate DESC (KEYCTL_INVALIDATE)
# Prints "ok ..." or "refused: ERROR" (exit 1).
KEYS_PY='
import ctypes, os, sys
NR_ADD_KEY, NR_KEYCTL = int(sys.argv[1]), int(sys.argv[2])
op, desc = sys.argv[3], (sys.argv[4].encode() if len(sys.argv) > 4 else b"")
SESSION, USER = -3, -4
libc = ctypes.CDLL(None, use_errno=True)
L = ctypes.c_long
def call(nr, *args):
    r = libc.syscall(L(nr), *args)
    if r < 0:
        print("refused:", os.strerror(ctypes.get_errno()))
        sys.exit(1)
    return r
def search():
    return call(NR_KEYCTL, L(10), L(USER), b"user", desc, L(0))
if op == "get":
    print("ok", call(NR_KEYCTL, L(0), L(SESSION), L(0)))
elif op == "add":
    print("ok", call(NR_ADD_KEY, b"user", desc, b"secret", L(6), L(USER)))
elif op == "find":
    print("ok", search())
elif op == "drop":
    print("ok", call(NR_KEYCTL, L(21), L(search())))
'

_keyring() {
	local d desc
	d=$(scratch_dir)
	cd "$d" || return 1
	desc=sbox-test-key-$RANDOM$RANDOM

	# Control: unsandboxed, this user reads and adds to its keyrings.
	run usr "$PY" -c "$KEYS_PY" "$NR_ADD_KEY" "$NR_KEYCTL" get
	assert_status 0
	assert_contains "$output" ok
	run usr "$PY" -c "$KEYS_PY" "$NR_ADD_KEY" "$NR_KEYCTL" add "$desc-ctl"
	assert_status 0
	run usr "$PY" -c "$KEYS_PY" "$NR_ADD_KEY" "$NR_KEYCTL" find "$desc-ctl"
	assert_status 0
	usr "$PY" -c "$KEYS_PY" "$NR_ADD_KEY" "$NR_KEYCTL" drop "$desc-ctl" >/dev/null

	run sbx -- "$PY" -c "$KEYS_PY" "$NR_ADD_KEY" "$NR_KEYCTL" get
	assert_status 1
	assert_contains "$output" "refused: Operation not permitted"
	# Should it get there, teardown takes it out of the user's keyring.
	on_teardown "${AS:-} $PY -c \"\$KEYS_PY\" $NR_ADD_KEY $NR_KEYCTL drop $desc >/dev/null 2>&1"
	run sbx -- "$PY" -c "$KEYS_PY" "$NR_ADD_KEY" "$NR_KEYCTL" add "$desc"
	assert_status 1
	assert_contains "$output" "refused: Operation not permitted"
	# Nothing was added to the host's keyring.
	run usr "$PY" -c "$KEYS_PY" "$NR_ADD_KEY" "$NR_KEYCTL" find "$desc"
	assert_status 1
	assert_contains "$output" refused
}

@test "the kernel keyrings (keyctl, add_key) are out of reach and the host's is unchanged" {
	requires python3 setpriv
	requires_syscall_numbers
	each_user _keyring
}
