# tests/escape/common.bash - shared by the escape catalogue,
# tests/escape/*.bats: `load common`.
#
# Every test there is one route out of the sandbox.  It first makes the
# attempt WITHOUT the sandbox, as the same user, and shows that it works
# (the control: a sbox-exec that ran the command unsandboxed fails the
# test), then makes it inside sbox-exec, shows that it fails there, and
# checks on the host that the file, socket or process it aimed at is
# unchanged.

# Single-quoted scripts are expanded by the inner shell (SC2016); bats'
# @test bodies are functions, not subshells (SC2030/SC2031); variables set
# here are used by the .bats files, and bats' `run` sets status and output
# (SC2034/SC2154).
# shellcheck disable=SC2016,SC2030,SC2031,SC2034,SC2154

# helpers.bash's default is relative to tests/, one level up from here.
: "${SBOX_EXEC:=$BATS_TEST_DIRNAME/../../src/sbox-exec}"
load ../helpers

bats_require_minimum_version 1.5.0

setup() {
	escape_setup
}

# escape_setup: what every test needs; a file's own setup calls it first.
escape_setup() {
	requires bwrap userns
	CLEANUP_FILE=$BATS_TEST_TMPDIR/cleanup
}

teardown() {
	escape_teardown
}

# escape_teardown: kill what bg started, run what on_teardown recorded
# (last first), then remove the scratch directories.
escape_teardown() {
	local cmd
	if [ -f "$CLEANUP_FILE" ]; then
		tac "$CLEANUP_FILE" | while IFS= read -r cmd; do
			eval "$cmd" || true
		done
	fi
	common_teardown
}

# on_teardown SHELL-LINE: run SHELL-LINE (one line) in teardown.
on_teardown() {
	printf '%s\n' "$*" >>"$CLEANUP_FILE"
}

# refute_contains TEXT NEEDLE: TEXT does not contain NEEDLE.
refute_contains() {
	case $1 in
	*"$2"*)
		printf 'expected %q not to contain %q\n' "$1" "$2" >&2
		return 1 ;;
	esac
}

# assert_failed WHAT: the last `run` exited non-zero; WHAT says what
# succeeded otherwise.
assert_failed() {
	if [ "$status" -eq 0 ]; then
		echo "inside the sandbox, $1 succeeded; output:" >&2
		printf '%s\n' "$output" >&2
		return 1
	fi
}

# tree_state DIR: a listing of everything below DIR, with type, mode,
# owner, size, mtime, link target and a checksum of each file: equal
# before and after means the host was left unchanged.
tree_state() {
	(
		cd "$1" || exit 1
		find . -printf '%p %y %m %U:%G %s %T@ %l\n' | LC_ALL=C sort
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum
	)
}

# requires_landlock_scoping: Landlock with abstract-socket and signal
# scoping (ABI >= 6).  The LSM list is checked where securityfs is
# mounted; the kernel's answer on the ABI decides.
requires_landlock_scoping() {
	local lsm=/sys/kernel/security/lsm abi
	if [ -r "$lsm" ] && ! grep -qw landlock "$lsm"; then
		skip_or_fail "Landlock is not an active LSM ($(cat "$lsm"))"
		return
	fi
	abi=$(landlock_abi)
	[ "$abi" -ge 6 ] ||
		skip_or_fail "Landlock ABI $abi < 6: no abstract-socket scoping"
}

# System call numbers used by the ctypes helpers (x86_64, aarch64).
case $(uname -m) in
x86_64) NR_IOCTL=16 NR_ADD_KEY=248 NR_KEYCTL=250 NR_PTRACE=101 ;;
aarch64) NR_IOCTL=29 NR_ADD_KEY=217 NR_KEYCTL=219 NR_PTRACE=117 ;;
*) NR_IOCTL="" NR_ADD_KEY="" NR_KEYCTL="" NR_PTRACE="" ;;
esac

# requires_syscall_numbers: this architecture's numbers are known here.
requires_syscall_numbers() {
	[ -n "$NR_KEYCTL" ] ||
		skip_or_fail "no system call numbers for $(uname -m) in tests/escape/common.bash"
}

# connections: how many connections the listener has accepted.
connections() {
	wc -l <"$LISTEN_LOG" | tr -d ' '
}

# compile NAME: compile the C source in $C_SRC, with the extra compiler
# flags in $C_FLAGS, into an executable NAME in a scratch directory the
# unprivileged user can read; prints its path.
compile() {
	local dir
	dir=$(scratch_dir)
	chmod 0755 "$dir"
	printf '%s\n' "$C_SRC" >"$dir/$1.c"
	# shellcheck disable=SC2086 # flags are words
	cc -O ${C_FLAGS:-} -o "$dir/$1" "$dir/$1.c" >&2 || return 1
	chmod 0755 "$dir/$1"
	echo "$dir/$1"
}
