#!/usr/bin/env bats
# Escape catalogue: socket families the network namespace does not hold.
# Man page THE SANDBOX: without --net, socket() and socketpair() for any
# family but AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK fail with
# EAFNOSUPPORT.  AF_VSOCK talks to the host of a virtual machine whatever
# the network namespace; the control shows that this kernel has it.  See
# tests/README for the shape of every test.

# shellcheck disable=SC2016,SC2030,SC2031
load ../helpers

setup() {
	requires bwrap userns python3 jq
	# FAMILY-NAME socket|socketpair: prints "created" or the error's name.
	FAMILY=$(payload family.py)
}

@test "AF_VSOCK sockets: created unsandboxed, refused without --net, created with --net" {
	body() {
		local d
		d=$(scratch_dir)
		# Control: this kernel has vsock, and this user may use it.
		run usr "$PY" "$FAMILY" AF_VSOCK socket
		assert_eq "$output" created

		run --separate-stderr sbx -- "$PY" "$FAMILY" AF_VSOCK socket
		assert_status 0
		assert_eq "$output" EAFNOSUPPORT

		# --net keeps the host's network, vsock included.
		run --separate-stderr sbx --net -- "$PY" "$FAMILY" AF_VSOCK socket
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
		run usr "$PY" "$FAMILY" AF_VSOCK socketpair
		[ "$output" != EAFNOSUPPORT ] && [ "$output" != created ] ||
			{ echo "control: $output" >&2; return 1; }

		run --separate-stderr sbx -- "$PY" "$FAMILY" AF_VSOCK socketpair
		assert_status 0
		assert_eq "$output" EAFNOSUPPORT
		# Unix pairs, what programs use them for, still work.
		run --separate-stderr sbx -- "$PY" "$FAMILY" AF_UNIX socketpair
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
			run --separate-stderr sbx -- "$PY" "$FAMILY" "$fam" socket
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
