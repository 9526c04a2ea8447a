#!/usr/bin/env bats
# Escape catalogue: socket families the network namespace does not hold.
# Man page THE SANDBOX: without --net, socket() and socketpair() for any
# family but AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK fail with
# EAFNOSUPPORT.  AF_VSOCK talks to the host of a virtual machine whatever
# the network namespace; the control shows that this kernel has it.  See
# common.bash.

# shellcheck disable=SC2016,SC2030,SC2031
load common

# argv FAMILY-NAME CALL: socket() or socketpair() of that family; prints
# "created" or the error number's name.
FAMILY_PY='
import errno, socket, sys
fam = getattr(socket, sys.argv[1])
try:
    if sys.argv[2] == "socketpair":
        socket.socketpair(fam, socket.SOCK_STREAM)
    else:
        socket.socket(fam, socket.SOCK_STREAM)
    print("created")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
'

setup() {
	escape_setup
	requires python3 jq
}

@test "AF_VSOCK sockets: created unsandboxed, refused without --net, created with --net" {
	body() {
		local d
		d=$(scratch_dir)
		# Control: this kernel has vsock, and this user may use it.
		run usr "$PY" -c "$FAMILY_PY" AF_VSOCK socket
		assert_eq "$output" created

		run --separate-stderr sbx -- "$PY" -c "$FAMILY_PY" AF_VSOCK socket
		assert_status 0
		assert_eq "$output" EAFNOSUPPORT

		# --net keeps the host's network, vsock included.
		run --separate-stderr sbx --net -- "$PY" -c "$FAMILY_PY" AF_VSOCK socket
		assert_status 0
		assert_eq "$output" created
	}
	[ -e /dev/vsock ] || [ -d /sys/module/vsock ] ||
		skip_or_fail "this kernel has no vsock"
	each_user body
}

@test "socketpair with a family beyond unix: refused as socket() is" {
	body() {
		# Control: the kernel itself answers socketpair(AF_VSOCK) with
		# its own error (vsock has no pairs), not EAFNOSUPPORT.
		run usr "$PY" -c "$FAMILY_PY" AF_VSOCK socketpair
		[ "$output" != EAFNOSUPPORT ] && [ "$output" != created ] ||
			{ echo "control: $output" >&2; return 1; }

		run --separate-stderr sbx -- "$PY" -c "$FAMILY_PY" AF_VSOCK socketpair
		assert_status 0
		assert_eq "$output" EAFNOSUPPORT
		# Unix pairs, what programs use them for, still work.
		run --separate-stderr sbx -- "$PY" -c "$FAMILY_PY" AF_UNIX socketpair
		assert_eq "$output" created
	}
	[ -e /dev/vsock ] || [ -d /sys/module/vsock ] ||
		skip_or_fail "this kernel has no vsock"
	each_user body
}

@test "the families a sandbox without --net needs still work" {
	body() {
		local fam
		for fam in AF_UNIX AF_INET AF_INET6 AF_NETLINK; do
			run --separate-stderr sbx -- "$PY" -c "$FAMILY_PY" "$fam" socket
			assert_status 0
			# Netlink has no stream sockets: the kernel's own answer.
			if [ "$fam" = AF_NETLINK ]; then
				refute_contains "$output" EAFNOSUPPORT
			else
				assert_eq "$output" created
			fi
		done
	}
	each_user body
}
