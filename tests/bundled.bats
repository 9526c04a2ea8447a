#!/usr/bin/env bats
# Man page FINDING BWRAP and STATUS: the bwrap_source field (flag, env,
# path, bundled) and --check's words for it; the bundled bwrap that
# configure --with-bundled-bwrap installs (README.md, "A bundled bwrap"):
# static, not setuid, its licences and SOURCE beside it, and a sandbox
# made with it where no bwrap is on PATH, as root and as nobody; a
# relocated install, a setuid copy refused, --bwrap and SBOX_EXEC_BWRAP
# over both, the enforcement checks and `sbox-exec --rw . -- make` with
# the system's bubblewrap hidden, and the AppArmor diagnosis from a
# prepared tree of kernel settings (SBOX_TEST_SYSROOT, tests/README).
#
# SBOX_BUNDLED_BWRAP names the bundled bwrap to try (make check sets it
# when configured --with-bundled-bwrap; scripts/test-all builds one with
# scripts/build-bundled-bwrap); without it those tests skip, or fail
# under SBOX_TESTS_MUST_WORK=1.  The bwrap_source tests that need no
# bundled bwrap always run.

load helpers

bats_require_minimum_version 1.5.0

setup() {
	requires bwrap jq python3
	D=$(scratch_dir)
	BWRAP=$(command -v bwrap)
	REAL_BWRAP=$(readlink -f "$BWRAP")
	unset SBOX_EXEC_BWRAP
	T=
}

teardown() {
	[ -z "$T" ] || rm -rf -- "$T"
	common_teardown
}

# requires_bundled: $SBOX_BUNDLED_BWRAP names an executable file.
requires_bundled() {
	[ -x "${SBOX_BUNDLED_BWRAP:-/nonexistent}" ] ||
		skip_or_fail "no bundled bwrap (SBOX_BUNDLED_BWRAP; scripts/build-bundled-bwrap builds one)"
}

# stage_bundled: sbox-exec as a relocated install in $T/prefix, a
# directory only root can write, with the bundled bwrap in
# libexec/sbox-exec as make install puts it; $S is its sbox-exec.
stage_bundled() {
	requires root
	requires_bundled
	T=$(mktemp -d /var/tmp/sbox-trusted.XXXXXX)
	chmod 0755 "$T"
	S=$(install_sbox "$T/prefix")
	install -D -m 0755 "$SBOX_BUNDLED_BWRAP" \
		"$T/prefix/libexec/sbox-exec/bwrap"
	mkdir -m 0755 "$D/empty"
}

# check_json ARGS...: sbox-exec --check --json ARGS, its line in $D/out.
check_json() {
	run --separate-stderr "$@" --check --json
	assert_status 0
	printf '%s\n' "$output" >"$D/out"
	assert_status_line "$D/out"
	assert_eq "$(jq -r .status "$D/out")" success
}

# The field follows bwrap (STATUS): the keys in the order written.
assert_source_after_bwrap() {
	assert_eq "$(jq -c 'keys_unsorted[1:4]' "$D/out")" \
		'["status","bwrap","bwrap_source"]'
}

@test "bwrap_source: path for the bwrap found on PATH, right after bwrap" {
	check_json "$SBOX_EXEC"
	assert_eq "$(jq -r .bwrap "$D/out")" "$BWRAP"
	assert_eq "$(jq -r .bwrap_source "$D/out")" path
	assert_source_after_bwrap
}

@test "bwrap_source: flag for --bwrap, env for SBOX_EXEC_BWRAP, flag when both" {
	check_json "$SBOX_EXEC" --bwrap="$REAL_BWRAP"
	assert_eq "$(jq -r .bwrap_source "$D/out")" flag
	check_json env SBOX_EXEC_BWRAP="$REAL_BWRAP" "$SBOX_EXEC"
	assert_eq "$(jq -r .bwrap "$D/out")" "$REAL_BWRAP"
	assert_eq "$(jq -r .bwrap_source "$D/out")" env
	check_json env SBOX_EXEC_BWRAP=/nonexistent "$SBOX_EXEC" \
		--bwrap="$REAL_BWRAP"
	assert_eq "$(jq -r .bwrap_source "$D/out")" flag
	# An empty SBOX_EXEC_BWRAP is ignored (ENVIRONMENT): PATH's.
	check_json env SBOX_EXEC_BWRAP= "$SBOX_EXEC"
	assert_eq "$(jq -r .bwrap_source "$D/out")" path
}

@test "bwrap_source on the status channel of a run, as root and as nobody" {
	body() {
		run --separate-stderr usr "$SBOX" --status-fd=3 -- true 3>"$D/status"
		assert_status 0
		assert_status_line "$D/status"
		assert_eq "$(jq -r .bwrap_source "$D/status")" path
		run --separate-stderr usr env SBOX_EXEC_BWRAP="$REAL_BWRAP" \
			"$SBOX" --status-fd=3 -- true 3>"$D/status"
		assert_status 0
		assert_eq "$(jq -r .bwrap_source "$D/status")" env
	}
	each_user body
}

@test "no bwrap found or accepted: neither bwrap nor bwrap_source" {
	run --separate-stderr "$SBOX_EXEC" --check --json --bwrap=/nonexistent/bwrap
	assert_status 125
	printf '%s\n' "$output" >"$D/out"
	assert_eq "$(jq -r .status "$D/out")" bwrap-not-found
	assert_eq "$(jq -r 'has("bwrap"), has("bwrap_source")' "$D/out" |
		paste -sd,)" false,false
}

@test "--check says in words which bwrap and why; -q and --json do not" {
	run --separate-stderr "$SBOX_EXEC" --check
	assert_status 0
	assert_eq "$output" ""
	assert_contains "$stderr" "sbox-exec: bwrap: $BWRAP (found on PATH)"
	run --separate-stderr "$SBOX_EXEC" --check --bwrap="$REAL_BWRAP"
	assert_contains "$stderr" "sbox-exec: bwrap: $REAL_BWRAP (named with --bwrap)"
	run --separate-stderr env SBOX_EXEC_BWRAP="$REAL_BWRAP" "$SBOX_EXEC" --check
	assert_contains "$stderr" "sbox-exec: bwrap: $REAL_BWRAP (named by SBOX_EXEC_BWRAP)"
	run --separate-stderr "$SBOX_EXEC" --check -q
	assert_status 0
	assert_eq "$stderr" ""
	run --separate-stderr "$SBOX_EXEC" --check --json
	assert_status 0
	case $stderr in
	*"sbox-exec: bwrap:"*) echo "--check --json said it in words" >&2; return 1 ;;
	esac
}

@test "the bundled bwrap is static, not setuid or setgid, and runs --version" {
	requires_bundled
	requires readelf
	local phdrs mode
	phdrs=$(readelf -lW "$SBOX_BUNDLED_BWRAP")
	case $phdrs in
	*INTERP*) echo "it has a program interpreter" >&2; return 1 ;;
	esac
	assert_contains "$(readelf -dW "$SBOX_BUNDLED_BWRAP")" \
		"There is no dynamic section"
	mode=$(stat -c %a "$SBOX_BUNDLED_BWRAP")
	[ ! -u "$SBOX_BUNDLED_BWRAP" ] && [ ! -g "$SBOX_BUNDLED_BWRAP" ] ||
		{ echo "mode $mode has the setuid or setgid bit" >&2; return 1; }
	run "$SBOX_BUNDLED_BWRAP" --version
	assert_status 0
	assert_contains "$output" "bubblewrap "
}

@test "the bundled bwrap's licences and SOURCE lie beside it and name its version" {
	requires_bundled
	local dir version
	dir=$(dirname "$SBOX_BUNDLED_BWRAP")
	version=$("$SBOX_BUNDLED_BWRAP" --version)
	version=${version#bubblewrap }
	assert_contains "$(cat "$dir/LICENSE.bubblewrap")" \
		"GNU LIBRARY GENERAL PUBLIC LICENSE"
	assert_contains "$(cat "$dir/LICENSE.libcap")" "BSD 3-clause"
	[ -s "$dir/LICENSE.libc" ]
	assert_contains "$(cat "$dir/SOURCE")" "bubblewrap $version"
	assert_contains "$(cat "$dir/SOURCE")" "libcap "
	assert_contains "$(cat "$dir/SOURCE")" "Source: "
}

@test "no bwrap on PATH: the command runs in a sandbox the bundled bwrap made, as root and as nobody" {
	stage_bundled
	# Not granted: the sandbox keeps it read-only.
	O=$(scratch_dir)
	body() {
		local o=$O/$1
		# Control: unsandboxed, this user can write there.
		usr touch "$o.control"
		assert_file "$o.control" ""
		run --separate-stderr usr env PATH="$D/empty" "$S" --status-fd=3 \
			--rw "$D" -- /bin/sh -c \
			'echo ran >"$1"; touch "$2" 2>/dev/null; exit 0' sh \
			"$D/marker-$1" "$o" 3>"$D/status"
		assert_status 0
		assert_file "$D/marker-$1" ran
		assert_absent "$o"
		assert_status_line "$D/status"
		assert_eq "$(jq -r .status "$D/status")" success
		assert_eq "$(readlink -f "$(jq -r .bwrap "$D/status")")" \
			"$T/prefix/libexec/sbox-exec/bwrap"
		assert_eq "$(jq -r .bwrap_source "$D/status")" bundled
	}
	body root
	requires setpriv
	AS=as_user
	body nobody
}

@test "--check with only the bundled bwrap: bundled, and said in words" {
	stage_bundled
	check_json env PATH="$D/empty" "$S"
	assert_eq "$(jq -r .bwrap_source "$D/out")" bundled
	assert_source_after_bwrap
	run --separate-stderr env PATH="$D/empty" "$S" --check
	assert_status 0
	assert_contains "$stderr" "(the copy installed with sbox-exec; none on PATH)"
}

@test "a bwrap on PATH wins over the bundled one: path; --bwrap: flag" {
	stage_bundled
	check_json env PATH="$(dirname "$REAL_BWRAP")" "$S"
	assert_eq "$(jq -r .bwrap_source "$D/out")" path
	check_json env PATH="$D/empty" "$S" --bwrap="$REAL_BWRAP"
	assert_eq "$(jq -r .bwrap_source "$D/out")" flag
}

# submake ARGS...: make in the build tree, not as part of the make that
# may be running these tests (its flags and jobs are its own).
submake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top" "$@"
}

# make_var NAME: the value of NAME in the build tree's Makefile.
make_var() {
	printf 'include Makefile\nprint-var: ; @echo $(%s)\n' "$1" |
		submake -f - print-var
}

@test "make install: bwrap in PKGLIBEXECDIR (0755), licences and SOURCE in PKGDATADIR/bundled; used from there" {
	local top prefix libexec share
	top=$(dirname "$SBOX_EXEC")/..
	grep -q '^bundleddir = ' "$top/Makefile" 2>/dev/null ||
		skip "this build was configured without --with-bundled-bwrap"
	requires root
	T=$(mktemp -d /var/tmp/sbox-trusted.XXXXXX)
	chmod 0755 "$T"
	submake install DESTDIR="$T/dest" >/dev/null
	prefix=$T/dest$(make_var prefix)
	libexec=$T/dest$(make_var pkglibexecdir)
	share=$T/dest$(make_var pkgdatadir)
	assert_eq "$(stat -c %a "$libexec/bwrap")" 755
	for f in LICENSE.bubblewrap LICENSE.libcap LICENSE.libc SOURCE; do
		[ -s "$share/bundled/$f" ] || { echo "no $f in $share/bundled" >&2; return 1; }
	done
	# The relocated install finds it beside itself (FINDING BWRAP).
	if [ "$libexec" = "$prefix/libexec/sbox-exec" ]; then
		mkdir -m 0755 "$D/empty"
		check_json env PATH="$D/empty" "$prefix/bin/sbox-exec"
		assert_eq "$(jq -r .bwrap_source "$D/out")" bundled
	fi
	submake uninstall DESTDIR="$T/dest" >/dev/null
	[ ! -e "$libexec/bwrap" ] && [ ! -e "$share/bundled/SOURCE" ] ||
		{ echo "make uninstall left the bundled files" >&2; return 1; }
}

@test "--check names the bwrap in use in words, its path's control characters escaped" {
	local esc bw
	esc=$(printf '\033')
	bw="$D/bw${esc}[31m"
	cp "$REAL_BWRAP" "$bw"
	# The name really holds the escape byte.
	[ -x "$bw" ] && [ "$(printf %s "${bw##*/}" | od -An -c | tr -d ' ')" = 'bw033[31m' ]
	run --separate-stderr "$SBOX_EXEC" --check --bwrap="$bw"
	assert_status 0
	assert_contains "$stderr" "sbox-exec: bwrap: $D/bw\\x1b[31m (named with --bwrap)"
	refute_contains "$stderr" "$esc"
}

@test "a relocated install (make install DESTDIR=..., the tree then moved elsewhere) still finds its bundled bwrap" {
	local top prefix libexec
	requires root
	requires_bundled
	top=$(dirname "$SBOX_EXEC")/..
	T=$(mktemp -d /var/tmp/sbox-trusted.XXXXXX)
	chmod 0755 "$T"
	submake install DESTDIR="$T/dest" >/dev/null
	prefix=$T/dest$(make_var prefix)
	libexec=$T/dest$(make_var pkglibexecdir)
	assert_eq "$libexec" "$prefix/libexec/sbox-exec"
	# A build configured without --with-bundled-bwrap: put it where
	# that would have (README.md, "A bundled bwrap").
	[ -e "$libexec/bwrap" ] ||
		install -D -m 0755 "$SBOX_BUNDLED_BWRAP" "$libexec/bwrap"
	mv "$prefix" "$T/moved"
	rm -rf -- "$T/dest"
	mkdir -m 0755 "$D/empty"
	check_json env PATH="$D/empty" "$T/moved/bin/sbox-exec"
	assert_eq "$(jq -r .bwrap_source "$D/out")" bundled
	assert_eq "$(readlink -f "$(jq -r .bwrap "$D/out")")" \
		"$T/moved/libexec/sbox-exec/bwrap"
	# And runs a command with it, its shipped profiles found too.
	run --separate-stderr env PATH="$D/empty" HOME="$D" "$T/moved/bin/sbox-exec" \
		--profile agent --rw "$D" -- /bin/sh -c 'echo ran >"$1"' sh \
		"$D/marker"
	assert_status 0
	assert_file "$D/marker" ran
}

@test "a setuid or setgid bundled bwrap: setuid-rejected, nothing runs, as root and as nobody" {
	stage_bundled
	requires setpriv
	local bw=$T/prefix/libexec/sbox-exec/bwrap bit
	for bit in u+s g+s; do
		chmod 0755 "$bw"
		chmod "$bit" "$bw"
		for AS in "" as_user; do
			run --separate-stderr usr env PATH="$D/empty" "$S" \
				--status-fd=3 -- /bin/sh -c 'echo ran >"$1"' sh \
				"$D/marker" 3>"$D/status"
			assert_status 125
			assert_status_line "$D/status"
			assert_eq "$(jq -r .status "$D/status")" setuid-rejected
			assert_contains "$(jq -r .detail "$D/status")" \
				"$T/prefix/bin/../libexec/sbox-exec/bwrap is setuid or setgid"
			assert_absent "$D/marker"
		done
	done
}

@test "--bwrap and SBOX_EXEC_BWRAP win over both a bwrap on PATH and the bundled one" {
	stage_bundled
	local on_path
	on_path=$(dirname "$REAL_BWRAP")
	cp "$REAL_BWRAP" "$D/named-bwrap"
	# Control: with neither, PATH's is used, and the bundled one is there.
	check_json env PATH="$on_path" "$S"
	assert_eq "$(jq -r .bwrap_source "$D/out")" path
	check_json env PATH="$D/empty" "$S"
	assert_eq "$(jq -r .bwrap_source "$D/out")" bundled
	check_json env PATH="$on_path" "$S" --bwrap="$D/named-bwrap"
	assert_eq "$(jq -r .bwrap "$D/out")" "$D/named-bwrap"
	assert_eq "$(jq -r .bwrap_source "$D/out")" flag
	check_json env PATH="$on_path" SBOX_EXEC_BWRAP="$D/named-bwrap" "$S"
	assert_eq "$(jq -r .bwrap "$D/out")" "$D/named-bwrap"
	assert_eq "$(jq -r .bwrap_source "$D/out")" env
}

@test "only the bundled bwrap: read-only host, private /tmp, no network, the granted directory writable, as root and as nobody" {
	stage_bundled
	requires setpriv
	local client hostmark
	client=$(payload connect.py)
	O=$(scratch_dir)
	hostmark=$(mktemp /tmp/sbox-bundled.XXXXXX)
	on_teardown rm -f -- "$hostmark"
	chmod 0644 "$hostmark"
	body() {
		local w=$D/work-$1
		usr mkdir "$w"
		start_listener tcp "$w"
		# Controls: unsandboxed, this user reaches the listener, writes
		# outside the grant and sees the host's /tmp.
		run usr timeout 10 "$PY" "$client" tcp "$LISTEN_ADDR"
		assert_contains "$output" pong
		usr touch "$O/control-$1"
		assert_file "$O/control-$1" ""
		[ -e "$hostmark" ]
		run --separate-stderr usr env PATH="$D/empty" "$S" --status-fd=3 \
			--rw "$w" -- /bin/sh -c 'PATH=/usr/bin:/bin
			echo granted >"$1/written"
			touch "$2" 2>/dev/null && echo wrote-outside
			[ -e "$3" ] && echo saw-host-tmp
			echo inside >/tmp/sbox-bundled-inside || echo no-tmp
			timeout 10 "$4" "$5" tcp "$6" 2>/dev/null && echo reached
			:' sh "$w" "$O/outside-$1" "$hostmark" "$PY" "$client" \
			"$LISTEN_ADDR" 3>"$D/status-$1"
		assert_status 0
		assert_eq "$output" ""
		assert_file "$w/written" granted
		assert_absent "$O/outside-$1"
		assert_absent /tmp/sbox-bundled-inside
		assert_eq "$(connections)" 1
		assert_eq "$(jq -r .status "$D/status-$1")" success
		assert_eq "$(jq -r .bwrap_source "$D/status-$1")" bundled
	}
	AS='' body root
	AS=as_user body nobody
}

# hidden CMD...: CMD in a mount namespace of its own where every bwrap
# on the default PATH is /dev/null: the system's bubblewrap is there, as
# installed, but cannot be found or run (nothing is uninstalled).
hidden() {
	unshare -m --propagation private sh -c '
	for dir in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
		[ -f "$dir/bwrap" ] || continue
		mount --bind /dev/null "$dir/bwrap" || exit 99
	done
	exec "$@"' sh "$@"
}

@test "the system's bubblewrap hidden: sbox-exec --rw . -- make runs sandboxed with the bundled bwrap, as root and as nobody" {
	stage_bundled
	requires make unshare setpriv
	local as=()
	# Control: in that namespace no bwrap of the system's runs.
	run hidden sh -c 'for b in /usr/bin/bwrap /bin/bwrap "$1"; do
		[ ! -e "$b" ] || [ -c "$b" ] || exit 1; done' sh "$REAL_BWRAP"
	assert_status 0
	run hidden "$REAL_BWRAP" --version
	assert_failed "running the system's bwrap"
	O=$(scratch_dir)
	for who in root nobody; do
		[ "$who" = root ] || as=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
		mkdir -m 0777 "$D/project-$who"
		printf 'all:\n\techo made >built\n\t-touch $(OUTSIDE)\n' \
			>"$D/project-$who/Makefile"
		# Control: unsandboxed, this make writes outside the project.
		(cd "$D/project-$who" && "${as[@]}" make -s OUTSIDE="$O/control-$who")
		assert_file "$O/control-$who" ""
		rm -f "$D/project-$who/built"
		run --separate-stderr hidden sh -c 'cd "$1" && shift && exec "$@"' \
			sh "$D/project-$who" "${as[@]}" "$S" --status-fd=3 \
			--rw . -- make OUTSIDE="$O/outside-$who" 3>"$D/status-$who"
		assert_status 0
		assert_file "$D/project-$who/built" made
		assert_absent "$O/outside-$who"
		assert_eq "$(jq -r .status "$D/status-$who")" success
		assert_eq "$(jq -r .bwrap_source "$D/status-$who")" bundled
		assert_eq "$(readlink -f "$(jq -r .bwrap "$D/status-$who")")" \
			"$T/prefix/libexec/sbox-exec/bwrap"
	done
}

# apparmor_sysroot DIR VALUE: a prepared tree of kernel settings with
# kernel.apparmor_restrict_unprivileged_userns at VALUE (tests/README:
# SBOX_TEST_SYSROOT).
apparmor_sysroot() {
	mkdir -p "$1/proc/sys/kernel"
	echo "$2" >"$1/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
	chmod -R a+rX "$1"
}

@test "AppArmor (Ubuntu 23.10+) refusing the bundled bwrap its user namespace: the cause in detail, the profile lines in hint" {
	stage_bundled
	requires setpriv
	local bw=$T/prefix/libexec/sbox-exec/bwrap real
	# The bundled copy fails as bwrap does where AppArmor lets only
	# /usr/bin/bwrap make user namespaces (a stand-in: this kernel does
	# not restrict them).
	printf '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n' >"$bw"
	chmod 0755 "$bw"
	real=$(readlink -f "$bw")
	apparmor_sysroot "$D/ubuntu" 1
	apparmor_sysroot "$D/debian" 0
	for AS in "" as_user; do
		# Control: without the restriction, bwrap's words and the
		# general hint only.
		run --separate-stderr usr env PATH="$D/empty" \
			SBOX_TEST_SYSROOT="$D/debian" "$S" --check --json
		assert_status 125
		printf '%s\n' "$output" >"$D/out"
		assert_eq "$(jq -r .detail "$D/out")" \
			"bwrap: setting up uid map: Permission denied"
		refute_contains "$(jq -r .hint "$D/out")" "sbox-exec-bwrap"
		run --separate-stderr usr env PATH="$D/empty" \
			SBOX_TEST_SYSROOT="$D/ubuntu" "$S" --check --json
		assert_status 125
		printf '%s\n' "$output" >"$D/out"
		assert_status_line "$D/out"
		assert_eq "$(jq -r .status "$D/out")" sandbox-probe-failed
		assert_eq "$(jq -r .bwrap_source "$D/out")" bundled
		assert_contains "$(jq -r .detail "$D/out")" \
			"AppArmor restricts unprivileged user namespaces here (kernel.apparmor_restrict_unprivileged_userns=1), and the bwrap in use, $real, is not /usr/bin/bwrap"
		assert_contains "$(jq -r .hint "$D/out")" "apt install bubblewrap"
		assert_contains "$(jq -r .hint "$D/out")" \
			"'abi <abi/4.0>,' 'include <tunables/global>' 'profile sbox-exec-bwrap \"$real\" flags=(unconfined) {' '  userns,' '}' >/etc/apparmor.d/sbox-exec-bwrap && apparmor_parser -r /etc/apparmor.d/sbox-exec-bwrap"
		# A run says it on stderr, and the command does not run.
		run --separate-stderr usr env PATH="$D/empty" \
			SBOX_TEST_SYSROOT="$D/ubuntu" "$S" -- /bin/sh -c \
			'echo ran >"$1"' sh "$D/marker"
		assert_status 125
		assert_contains "$stderr" "sbox-exec: hint: install the distribution's bubblewrap"
		assert_absent "$D/marker"
	done
}
