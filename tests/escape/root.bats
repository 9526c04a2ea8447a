#!/usr/bin/env bats
# Escape catalogue: routes that exist for root, or for an unprivileged
# user only through something root set up.  sbox-exec(1) THE SANDBOX: no
# capabilities, even when sbox-exec runs as root; man page THE SANDBOX:
# /proc/sys is read-only, the seccomp filter refuses setuid bits (as root
# such a file is root's on the host), a fresh /dev, own uts namespace.
# Root inside the sandbox is root outside without capabilities, so the
# controls here run as root on the host.  See tests/README.

# shellcheck disable=SC2016,SC2030,SC2031
load ../helpers

setup() {
	requires bwrap userns
}

# setuid_id DIR: a setuid-root copy of id(1) in DIR; prints its path.
setuid_id() {
	cp /usr/bin/id "$1/id"
	chown 0:0 "$1/id"
	chmod 4755 "$1/id"
	echo "$1/id"
}

@test "as nobody, a setuid-root binary run inside (granted --ro) does not raise the euid" {
	requires root setpriv
	local d id
	d=$(scratch_dir)
	chmod 0755 "$d"
	cd "$d" || return 1
	id=$(setuid_id "$d")

	# Control: unsandboxed, nobody gets euid 0 from it.
	run as_user "$id" -u
	assert_status 0
	assert_eq "$output" 0

	run as_user "$(unpriv_sbox)" --ro "$d" -- sh -c 'echo started; "$1" -u; "$1"' sh "$id"
	assert_status 0
	assert_eq "${lines[0]}" started
	assert_eq "${lines[1]}" 65534
	refute_contains "$output" "euid=0"
}

@test "as root, a setuid-root file cannot be made in a --rw dir (nobody would get root from it)" {
	requires root setpriv
	local rw ctl
	rw=$(scratch_dir)
	ctl=$(scratch_dir)
	chmod 0755 "$rw" "$ctl"
	cd "$rw" || return 1

	# Control: unsandboxed, root's chmod 4755 gives nobody euid 0.
	run sh -c 'cp /usr/bin/id "$1/id" && chmod 4755 "$1/id"' sh "$ctl"
	assert_status 0
	run as_user "$ctl/id" -u
	assert_eq "$output" 0

	run "$SBOX_EXEC" --rw "$rw" -- sh -c \
		'echo started; cp /usr/bin/id "$1/id" && chmod 4755 "$1/id" && echo made-setuid' sh "$rw"
	assert_failed "chmod 4755 as root"
	assert_contains "$output" started
	refute_contains "$output" made-setuid
	[ ! -u "$rw/id" ] || { echo "$rw/id is setuid root on the host" >&2; return 1; }
	run as_user "$rw/id" -u
	assert_eq "$output" 65534
}

@test "as root, no device node can be made (mknod) in a --rw dir or in /dev" {
	requires root mknod
	local rw ctl before
	rw=$(scratch_dir)
	ctl=$(scratch_dir)
	cd "$rw" || return 1

	# Control: unsandboxed, root makes a node for the first disk and for
	# physical memory.
	run sh -c 'mknod "$1/disk" b 8 0 && mknod "$1/mem" c 1 1' sh "$ctl"
	assert_status 0
	[ -b "$ctl/disk" ] && [ -c "$ctl/mem" ]

	before=$(tree_state "$rw")
	# (Were the command to run on the host, this name is new in /dev.)
	on_teardown 'rm -f /dev/sbox-escape-test-disk'
	run "$SBOX_EXEC" --rw "$rw" -- sh -c '
		echo started
		mknod "$1/disk" b 8 0 && echo made-disk
		mknod "$1/mem" c 1 1 && echo made-mem
		mknod /dev/sbox-escape-test-disk b 8 0 && echo made-dev-disk
		true' sh "$rw"
	assert_status 0
	assert_contains "$output" started
	refute_contains "$output" made-
	assert_eq "$(tree_state "$rw")" "$before"
}

@test "as root, /proc/sys is read-only (kernel.core_pattern written with its own value: EROFS)" {
	requires root
	local d cur
	d=$(scratch_dir)
	cd "$d" || return 1
	cur=$(cat /proc/sys/kernel/core_pattern)

	# Control: unsandboxed, root writes it (the same value: no change).
	run sh -c 'printf "%s\n" "$1" >/proc/sys/kernel/core_pattern' sh "$cur"
	assert_status 0

	run "$SBOX_EXEC" -- sh -c \
		'echo started; printf "%s\n" "$1" >/proc/sys/kernel/core_pattern && echo wrote' sh "$cur"
	assert_failed "writing kernel.core_pattern"
	assert_contains "$output" started
	refute_contains "$output" wrote
	assert_contains "$output" "Read-only file system"
	assert_eq "$(cat /proc/sys/kernel/core_pattern)" "$cur"
}

# Kernel settings in /sys with a plain value that can be written back.
SYSFS_CANDIDATES="/sys/kernel/mm/ksm/run
/sys/kernel/mm/transparent_hugepage/khugepaged/defrag
/sys/kernel/mm/transparent_hugepage/use_zero_page
/sys/module/printk/parameters/time"

@test "as root, /sys is read-only (a kernel setting written with its own value: EROFS)" {
	requires root
	local d f="" cand cur
	d=$(scratch_dir)
	cd "$d" || return 1
	for cand in $SYSFS_CANDIDATES; do
		if [ -w "$cand" ] && cur=$(cat "$cand" 2>/dev/null) &&
			printf '%s\n' "$cur" >"$cand" 2>/dev/null; then
			f=$cand
			break
		fi
	done
	# The loop above is the control: root wrote F's own value back.
	[ -n "$f" ] || skip_or_fail "none of these is writable here: $SYSFS_CANDIDATES"

	run "$SBOX_EXEC" -- sh -c \
		'echo started; printf "%s\n" "$2" >"$1" && echo wrote' sh "$f" "$cur"
	assert_failed "writing $f"
	assert_contains "$output" started
	refute_contains "$output" wrote
	assert_contains "$output" "Read-only file system"
	assert_eq "$(cat "$f")" "$cur"
}

@test "as root, a hostname set inside is not the host's" {
	requires root hostname
	local d cur
	d=$(scratch_dir)
	cd "$d" || return 1
	cur=$(hostname)
	on_teardown "[ \"\$(hostname)\" = $(printf %q "$cur") ] || hostname $(printf %q "$cur")"

	# Control: unsandboxed, root sets the host name (to its own value).
	run hostname "$cur"
	assert_status 0

	run "$SBOX_EXEC" -- sh -c 'hostname sbox-escape-test; hostname'
	assert_eq "$(hostname)" "$cur"
	assert_eq "$(cat /proc/sys/kernel/hostname)" "$cur"
}

# What only root can read (man page HOST PROTECTION): as root the
# password hashes and root's home are masked, in both file system modes.
@test "as root, /etc/shadow and /etc/gshadow cannot be read, with --fs=host or --fs=minimal" {
	requires root
	local d f mode before
	d=$(scratch_dir)
	cd "$d" || return 1
	before=$(sha256sum /etc/shadow /etc/gshadow)
	for f in /etc/shadow /etc/gshadow; do
		[ -f "$f" ] || skip_or_fail "$f does not exist here"
		# Control: unsandboxed, root reads it.
		run cat "$f"
		assert_status 0
		[ -n "$output" ] || { echo "$f is empty on the host" >&2; return 1; }
	done
	for mode in host minimal; do
		run "$SBOX_EXEC" --fs="$mode" --ro "$d" -- sh -c \
			'echo started; cat /etc/shadow /etc/gshadow; wc -c </etc/shadow'
		assert_status 0
		assert_eq "$output" "$(printf 'started\n0')"
	done
	assert_eq "$(sha256sum /etc/shadow /etc/gshadow)" "$before"
}

# root_home: root's home directory from the password file.
root_home() {
	getent passwd 0 | cut -d: -f6
}

@test "as root, root's home cannot be read; a working directory below it stays usable, read-only" {
	requires root
	local home proj secret
	home=$(root_home)
	[ -d "$home" ] && [ "$home" != / ] || skip_or_fail "root's home $home is not a directory"
	# Our own, uniquely named, removed in teardown.
	proj=$(mktemp -d "$home/sbox-test.XXXXXX")
	on_teardown "rm -rf $(printf %q "$proj")"
	secret=sbox-test-secret-$RANDOM$RANDOM
	mkdir "$proj/work"
	echo "$secret" >"$proj/secret"
	echo code >"$proj/work/file"
	cd "$proj/work" || return 1
	# Control: unsandboxed, root reads its home.
	run cat "$proj/secret"
	assert_eq "$output" "$secret"

	run "$SBOX_EXEC" -- sh -c 'echo started; cat file; cat "$1"; ls -A "$2"; echo x >new && echo wrote' \
		sh "$proj/secret" "$home"
	assert_contains "$output" started
	assert_contains "$output" code
	refute_contains "$output" "$secret"
	refute_contains "$output" wrote
	assert_absent "$proj/work/new"
	# Granted, it is writable as usual, and the rest stays hidden.
	run "$SBOX_EXEC" --rw . -- sh -c 'echo x >new && echo wrote; cat "$1"' sh "$proj/secret"
	assert_contains "$output" wrote
	refute_contains "$output" "$secret"
	assert_file "$proj/work/new" x
	assert_file "$proj/secret" "$secret"
}

# setuid_rw DIR MODE: a copy of id(1) with MODE in DIR, root's.
setuid_rw() {
	cp /usr/bin/id "$1/id"
	chown 0:0 "$1/id"
	chmod "$2" "$1/id"
}

@test "as root, a --rw dir holding a file with capabilities is refused, unless --allow-setuid-files" {
	requires root setcap getcap
	local rw
	rw=$(scratch_dir)
	chmod 0755 "$rw"
	mkdir -p "$rw/tools"
	cp /bin/true "$rw/tools/t"
	setcap cap_net_raw+ep "$rw/tools/t"
	# Control: the capability is there for anyone who runs it.
	assert_contains "$(getcap "$rw/tools/t")" cap_net_raw
	run "$SBOX_EXEC" --rw "$rw" -- echo command-started
	assert_status 125
	refute_contains "$output" command-started
	assert_contains "$output" "$rw/tools/t"
	run "$SBOX_EXEC" --allow-setuid-files --rw "$rw" -- echo command-started
	assert_status 0
	assert_eq "$output" command-started
}

@test "as root, a --rw dir holding a setuid or setgid file is refused, naming it, unless --allow-setuid-files" {
	requires root setpriv jq
	local rw mode
	rw=$(scratch_dir)
	chmod 0755 "$rw"
	mkdir -p "$rw/deep/er"
	cd "$rw" || return 1
	for mode in 4755 2755; do
		setuid_rw "$rw/deep/er" "$mode"
		# Control: unsandboxed, nobody runs it with root's id.
		run as_user "$rw/deep/er/id"
		assert_status 0
		assert_contains "$output" "=0(root)"

		run "$SBOX_EXEC" --status-fd=3 --rw "$rw" -- echo command-started 3>"$rw/../status-$mode"
		assert_status 125
		refute_contains "$output" command-started
		assert_contains "$output" "$rw/deep/er/id"
		assert_contains "$output" --allow-setuid-files
		assert_eq "$(json_get "$(cat "$rw/../status-$mode")" status)" invalid-policy
		rm -f "$rw/../status-$mode"

		run "$SBOX_EXEC" --allow-setuid-files --rw "$rw" -- echo command-started
		assert_status 0
		assert_eq "$output" command-started
		# Read-only, it is no danger: accepted.
		run "$SBOX_EXEC" --ro "$rw" -- echo command-started
		assert_status 0
		[ -u "$rw/deep/er/id" ] || [ -g "$rw/deep/er/id" ]
	done
	# A policy file cannot give it.
	echo --allow-setuid-files >"$rw/../p.policy"
	run "$SBOX_EXEC" --policy "$rw/../p.policy" --rw "$rw" -- echo command-started
	assert_status 125
	refute_contains "$output" command-started
	rm -f "$rw/../p.policy"
}

@test "as root, a setuid file rewritten through MAP_SHARED keeps its bit (the control for the refusal above)" {
	requires root python3
	local ctl mmap_write
	ctl=$(scratch_dir)
	# Writes TEXT at the start of FILE through a MAP_SHARED mapping.
	mmap_write=$(payload mmap-write.py)
	setuid_rw "$ctl" 4755
	run "$PY" "$mmap_write" "$ctl/id" '#!/bin/sh'
	assert_status 0
	[ -u "$ctl/id" ] || { echo "the bit was cleared: the route is closed by the kernel here" >&2; return 1; }
	# And sbox-exec does not let it into a writable grant.
	run "$SBOX_EXEC" --rw "$ctl" -- "$PY" "$mmap_write" "$ctl/id" '#!/bin/sh'
	assert_status 125
}

# A password file naming alice, whose home lies in DIR/homes: bound over
# /etc/passwd in a mount namespace of the test's own, so that sbox-exec
# finds a home of another user there without touching the host's file.
with_alice() { # DIR COMMAND...
	local d=$1
	shift
	unshare -m --propagation private -- sh -c \
		'mount --bind "$1" /etc/passwd && shift && exec "$@"' \
		sh "$d/passwd" "$@"
}

@test "as root, a profile started where another user's home lies cannot grant it: the home is neither renamed away nor replaced" {
	requires root
	local d
	d=$(realpath "$(scratch_dir)")
	chmod 0755 "$d"
	mkdir -p "$d/homes/alice"
	chown 65534:65534 "$d/homes/alice"
	printf 'root:x:0:0:root:/root:/bin/sh\nalice:x:65534:65534::%s:/bin/sh\n' \
		"$d/homes/alice" >"$d/passwd"
	cd "$d/homes" || return 1

	# Control: root outside renames alice's home away and puts one of
	# its own in its place, whose .bashrc alice's next login runs.
	run sh -c 'mv alice alice.old && mkdir alice && echo evil >alice/.bashrc &&
		rm -r alice && mv alice.old alice && echo replaced'
	assert_status 0
	assert_eq "$output" replaced

	# A profile's ${CWD} is the directory that holds alice's home.
	run --separate-stderr with_alice "$d" "$SBOX_EXEC" --profile=npm -- \
		sh -c 'mv alice alice.old && echo moved'
	assert_status 125
	assert_contains "$stderr" "a policy file grants $d/homes, a directory that holds the home $d/homes/alice (alice's)"
	refute_contains "$output" moved
	[ -d "$d/homes/alice" ] && [ ! -e "$d/homes/alice.old" ]
	# Started in alice's home itself: the same.
	cd "$d/homes/alice" || return 1
	run --separate-stderr with_alice "$d" "$SBOX_EXEC" --profile=npm -- true
	assert_status 125
	assert_contains "$stderr" "holds the home $d/homes/alice (alice's)"
	# Typed on the command line, the grant is the caller's choice.
	cd "$d/homes" || return 1
	run with_alice "$d" "$SBOX_EXEC" -q --rw "$d/homes" -- true
	assert_status 0
	# A system account whose "home" is a directory it does not own
	# (sync's /bin) counts for nothing.
	printf 'root:x:0:0:root:/root:/bin/sh\nsys:x:3:3::%s:/bin/sh\n' \
		"$d/homes" >"$d/passwd"
	run with_alice "$d" "$SBOX_EXEC" -q --profile=npm -- true
	assert_status 0
}
