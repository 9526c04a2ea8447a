#!/usr/bin/env bats
# Escape catalogue: open descriptors.  A descriptor carries the host mount
# it was opened on, read-write, into any mount namespace, and
# /proc/self/fd/N reopens or walks it there.  sbox-exec(1) --keep-fd: all
# descriptors above 2 are closed for the command unless --keep-fd names
# them; OPTIONS (Filesystem) and SECURITY CONSIDERATIONS: the command writes
# nowhere but the --rw paths and its private /tmp.  See tests/README.

# shellcheck disable=SC2016,SC2030,SC2031
load ../helpers

setup() {
	requires bwrap userns
}

# What the command does with descriptor N ($1): list the directory above
# it, and create a file in it by two routes.
FD_ATTACK='
echo started
ls "/proc/self/fd/$1/.." >/dev/null && echo "listed-parent"
echo escaped >"/proc/self/fd/$1/escaped-proc" && echo "wrote-proc"
'"$PY"' -c "
import os, sys
os.close(os.open(\"escaped-at\", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=int(sys.argv[1])))
print(\"wrote-dirfd\")
" "$1"
'"$PY"' -c "import os; print(\"fds:\", sorted(os.listdir(\"/proc/self/fd\"), key=int))"
'

# _inherited_dirfd [OPTION...]: the attack through fd 5, with OPTIONs given
# to sbox-exec (--log-fd=5: the launcher keeps it; the command must not).
_inherited_dirfd() {
	local rw other before
	rw=$(scratch_dir)
	other=$(scratch_dir)
	cd "$rw" || return 1

	# Control: unsandboxed, fd 5 on OTHER reaches its parent and writes.
	exec 5<"$other"
	run usr sh -c "$FD_ATTACK" sh 5
	exec 5<&-
	assert_contains "$output" listed-parent
	assert_contains "$output" wrote-proc
	assert_contains "$output" wrote-dirfd
	assert_contains "$output" "'5'"
	rm -f "$other/escaped-proc" "$other/escaped-at"

	before=$(tree_state "$other")
	exec 5<"$other"
	run sbx "$@" --rw "$rw" -- sh -c "$FD_ATTACK" sh 5
	exec 5<&-
	assert_contains "$output" started
	refute_contains "$output" listed-parent
	refute_contains "$output" wrote-proc
	refute_contains "$output" wrote-dirfd
	# Only stdin, stdout, stderr and listdir's own descriptor.
	assert_contains "$output" "fds: ['0', '1', '2', '3']"
	assert_eq "$(tree_state "$other")" "$before"
	assert_absent "$other/escaped-proc"
	assert_absent "$other/escaped-at"
}

@test "an inherited directory descriptor (fd 5 on a host dir) is closed: no walking or writing through it" {
	requires python3
	each_user _inherited_dirfd
}

@test "the --log-fd descriptor (fd 5 on a host dir) is the launcher's: the command cannot use it" {
	requires python3
	each_user _inherited_dirfd --log-fd=5
}

# A file the caller hands over as standard input, opened read-only, is
# the caller's grant to read it, not to change it.
_stdin_file_reopen() {
	local rw other
	rw=$(scratch_dir)
	other=$(scratch_dir)
	cd "$rw" || return 1
	usr sh -c 'echo original >"$1"' sh "$other/input"

	# Control: unsandboxed, /proc/self/fd/0 reopens the file for writing.
	run usr sh -c 'echo rewritten >/proc/self/fd/0' <"$other/input"
	assert_status 0
	assert_file "$other/input" rewritten
	usr sh -c 'echo original >"$1"' sh "$other/input"

	run sbx --rw "$rw" -- sh -c 'echo started; echo rewritten >/proc/self/fd/0' \
		<"$other/input"
	assert_contains "$output" started
	assert_file "$other/input" original
	assert_failed "reopening the read-only standard input for writing"
}

@test "a host file given read-only as standard input cannot be reopened for writing through /proc/self/fd/0" {
	each_user _stdin_file_reopen
}

_stdin_dir() {
	local rw other before
	rw=$(scratch_dir)
	other=$(scratch_dir)
	cd "$rw" || return 1

	# Control: unsandboxed, a directory as stdin lets one write into it.
	run usr sh -c 'echo escaped >/proc/self/fd/0/control' <"$other"
	assert_status 0
	assert_file "$other/control" escaped
	rm -f "$other/control"

	before=$(tree_state "$other")
	run sbx --rw "$rw" -- sh -c 'echo started; echo escaped >/proc/self/fd/0/escaped' \
		<"$other"
	assert_contains "$output" started
	assert_eq "$(tree_state "$other")" "$before"
	assert_absent "$other/escaped"
	assert_failed "writing into the directory given as standard input"
}

@test "a host directory given as standard input cannot be written into through /proc/self/fd/0" {
	each_user _stdin_dir
}

# The launcher closes every descriptor it does not keep before the proxy
# starts accepting (proxy() in src/launch.c).  One it later closes again
# through its owner may by then be a connection the proxy accepted: the
# second close cuts it or hands its bytes to another.  strace sees such a
# close fail with EBADF when nothing took the number in between; the
# launcher's own threads only, not what runs in the sandbox.
_closes_once() {
	local d ct
	d=$(scratch_dir)
	ct=$(payload close-twice.py)

	# Control: the check sees a descriptor closed twice.
	run usr "$PY" "$ct" "$d/control" -- sh -c \
		'exec 3</dev/null; exec 3<&-; exec 3<&-; echo ran'
	assert_status 0
	assert_contains "$output" ran
	assert_contains "$output" "EBADF close(3"

	run usr "$PY" "$ct" "$d/plain" -- "$SBOX" -q -- sh -c 'echo ran'
	assert_status 0
	assert_contains "$output" ran
	refute_contains "$output" "closes 0"
	assert_contains "$output" "closes "
	refute_contains "$output" EBADF

	run usr "$PY" "$ct" "$d/all" -- "$SBOX" -q --watch --timeout=30 \
		--log-fd=2 --status-fd=2 --allow-host=name.invalid -- sh -c \
		'curl -s -m 20 -o /dev/null -w "proxy %{http_code}\n" http://other.invalid/; echo x >/etc/x; echo ran'
	assert_status 0
	assert_contains "$output" ran
	# The proxy answered, refusing a name not on its list (no lookup).
	assert_contains "$output" "proxy 403"
	assert_contains "$output" '"event":"fs-denied"'
	refute_contains "$output" "closes 0"
	refute_contains "$output" EBADF
}

@test "the launcher closes no descriptor twice: none of its calls on a descriptor fails with EBADF, with the proxy serving, --watch, --timeout, --log-fd and --status-fd" {
	requires strace curl
	each_user _closes_once
}
