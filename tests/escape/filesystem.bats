#!/usr/bin/env bats
# Escape catalogue: the host file system.  sbox-exec(1) OPTIONS (only --rw
# paths and the private /tmp are writable), man page THE SANDBOX (fresh
# /dev; the seccomp filter refuses setuid and setgid bits, by chmod or by
# creating a file with such a mode, and system calls of another
# architecture).  See tests/README for the shape of every test.

# shellcheck disable=SC2016,SC2030,SC2031
load ../helpers

setup() {
	requires bwrap userns
}

# --- writes outside the granted directories ---------------------------

# What tests/payloads/write-attack.sh tries.
WRITE_OPS="overwrite append truncate chmod touch create mkdir symlink hardlink remove rename"

# make_victim DIR: a file and a sub-directory, owned by the pass's user.
make_victim() {
	usr sh -c 'cd "$1" && echo original >victim && mkdir sub &&
		echo keep >sub/keep' sh "$1"
}

_write_outside() {
	local rw other ctl before op
	rw=$(scratch_dir)
	other=$(scratch_dir)
	ctl=$(scratch_dir)
	make_victim "$other"
	make_victim "$ctl"
	cd "$rw" || return 1

	# Control: unsandboxed, this user changes a host dir every way.
	run usr sh "$ATTACK" "$ctl"
	for op in $WRITE_OPS; do
		assert_contains "$output" "$op=ok"
	done
	assert_absent "$ctl/victim"

	before=$(tree_state "$other")
	run sbx --rw "$rw" -- sh "$ATTACK" "$other"
	assert_contains "$output" started
	for op in $WRITE_OPS; do
		assert_contains "$output" "$op=fail"
	done
	assert_eq "$(tree_state "$other")" "$before"
	assert_file "$other/victim" original
}

@test "writes to a host directory that was not granted all fail and leave it unchanged" {
	ATTACK=$(payload write-attack.sh)
	each_user _write_outside
}

# --- device nodes -------------------------------------------------------

# What bwrap's fresh /dev holds, and nothing else.
BASIC_DEV="console core fd full null ptmx pts random shm stderr stdin stdout tty urandom zero"

_dev_basic() {
	local d dev name
	d=$(scratch_dir)
	cd "$d" || return 1
	# A block device of the host (a disk, a loop device...).
	for name in /sys/block/*; do
		name=${name##*/}
		if [ -b "/dev/$name" ]; then
			dev=/dev/$name
			break
		fi
	done
	[ -n "${dev:-}" ] || skip_or_fail "no block device in /dev on this host"

	# Control: unsandboxed, this user sees the host's devices.
	run usr sh -c 'test -b "$1" && ls -A /dev' sh "$dev"
	assert_status 0
	assert_contains "$output" "${dev#/dev/}"

	run sbx -- sh -c 'echo started; ls -A /dev; find /dev -type b' sh
	assert_status 0
	assert_contains "$output" started
	refute_contains "$output" "${dev#/dev/}"
	for name in "${lines[@]:1}"; do
		case " $BASIC_DEV " in
		*" $name "*) ;;
		*) echo "unexpected /dev entry inside: $name" >&2; return 1 ;;
		esac
	done
}

@test "/dev holds only the basic devices: no host disk or other device node" {
	each_user _dev_basic
}

# --- setuid and setgid bits -------------------------------------------

# assert_refused_where_control_ok CONTROL INSIDE: every NAME=ok line of
# CONTROL is NAME=fail... in INSIDE, and CONTROL has at least one.
assert_refused_where_control_ok() {
	local line name n=0
	while IFS= read -r line; do
		case $line in
		*=ok)
			name=${line%=ok}
			n=$((n + 1))
			grep -q "^$name=fail" <<<"$2" || {
				echo "inside the sandbox, $name was not refused:" >&2
				printf '%s\n' "$2" >&2
				return 1
			} ;;
		esac
	done <<<"$1"
	[ "$n" -gt 0 ] || { echo "control: no attempt worked: $1" >&2; return 1; }
}

# assert_no_setid DIR: no file below DIR has the setuid or setgid bit.
assert_no_setid() {
	local found
	found=$(find "$1" -perm /6000 -printf '%m %p\n')
	[ -z "$found" ] || {
		echo "setuid/setgid files on the host: $found" >&2
		return 1
	}
}

# _setuid_attempt WAY MARKER: tests/payloads/setid WAY (chmod or create)
# tries to put setuid and setgid bits on files in its directory argument;
# unsandboxed it succeeds (MARKER printed, a setuid file made), inside
# every attempt is refused and no file in the --rw dir carries either bit.
_setuid_attempt() {
	local rw ctl
	rw=$(scratch_dir)
	ctl=$(scratch_dir)
	cd "$rw" || return 1

	run usr "$SETID" "$1" "$ctl"
	assert_status 0
	assert_contains "$output" "$2"
	[ -u "$ctl/a" ] || { echo "control: $ctl/a is not setuid" >&2; return 1; }
	local control=$output

	run sbx ${WATCH:+--watch} --rw "$rw" -- "$SETID" "$1" "$rw"
	assert_status 0
	assert_refused_where_control_ok "$control" "$output"
	assert_no_setid "$rw"
}

_setuid_chmod() {
	_setuid_attempt chmod "fchmodat=ok"
}

@test "chmod, fchmod, fchmodat, fchmodat2 cannot set a setuid or setgid bit in a --rw dir" {
	SETID=$(payload setid)
	each_user _setuid_chmod
}

_setuid_create() {
	_setuid_attempt create "openat=ok"
}

@test "open(O_CREAT), O_TMPFILE, creat and mknod cannot create a setuid or setgid file in a --rw dir" {
	SETID=$(payload setid)
	each_user _setuid_create
}

# --watch adds a filter that sends these calls to the launcher, which
# lets each go on: the kernel applies the stricter of two filters, so
# what sbox-exec's own refuses stays refused (sbox-exec(1), DENIALS).
@test "with --watch, chmod and file creation still cannot set a setuid or setgid bit" {
	SETID=$(payload setid)
	WATCH=1 each_user _setuid_chmod
	WATCH=1 each_user _setuid_create
}

# tests/payloads/int80-chmod: chmod through the i386 system call table
# (int $0x80) from a 64-bit program.
_setuid_int80() {
	local rw ctl
	rw=$(scratch_dir)
	ctl=$(scratch_dir)
	cd "$rw" || return 1
	usr touch "$ctl/f" "$rw/f"

	# Control: unsandboxed, the 32-bit chmod sets the bit.
	run usr "$INT80" "$ctl/f" 4755
	if [ "$status" -ne 0 ]; then
		# A kernel without 32-bit emulation (ia32_emulation=0 or
		# CONFIG_IA32_EMULATION unset) kills the program at int $0x80:
		# the route does not exist here.  Still, nothing inside may end
		# up setuid.
		[ ! -u "$ctl/f" ] && [ "$status" -ge 128 ] ||
			{ echo "control failed without the kernel refusing int \$0x80: $output" >&2; return 1; }
		echo "# no 32-bit system calls on this kernel (the control died with $status): the route does not exist" >&3
		run sbx --rw "$rw" -- "$INT80" "$rw/f" 4755
		assert_failed "a 32-bit chmod 4755"
		assert_no_setid "$rw"
		return
	fi
	assert_eq "$output" changed
	[ -u "$ctl/f" ]

	run sbx --rw "$rw" -- "$INT80" "$rw/f" 4755
	assert_failed "a 32-bit chmod 4755"
	assert_contains "$output" refused
	assert_no_setid "$rw"
}

@test "a 32-bit chmod (int 0x80) from a 64-bit program cannot set the setuid bit" {
	[ "$(uname -m)" = x86_64 ] || skip "x86_64 only"
	INT80=$(payload int80-chmod)
	each_user _setuid_int80
}

# tests/payloads/uring-open: creating a file through io_uring's
# IORING_OP_OPENAT.
_setuid_io_uring() {
	local rw ctl
	rw=$(scratch_dir)
	ctl=$(scratch_dir)
	cd "$rw" || return 1

	# Control: unsandboxed, io_uring creates a setuid file.
	run usr sh -c 'umask 022; exec "$@"' sh "$URING" "$ctl/f" 4755
	if [ "$status" -ne 0 ]; then
		skip_or_fail "io_uring is not available here: $output"
		return
	fi
	assert_eq "$output" created
	[ -u "$ctl/f" ]

	run sbx --rw "$rw" -- sh -c 'umask 022; exec "$@"' sh "$URING" "$rw/f" 4755
	assert_no_setid "$rw"
	assert_failed "creating a setuid file through io_uring"
	assert_contains "$output" refused
}

# The seccomp filter sees the mode of openat(2), but not the one in an
# io_uring submission queue entry.
@test "io_uring's IORING_OP_OPENAT cannot create a setuid file in a --rw dir" {
	URING=$(payload uring-open)
	each_user _setuid_io_uring
}
