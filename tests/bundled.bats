#!/usr/bin/env bats
# Man page FINDING BWRAP and STATUS: the bwrap_source field (flag, env,
# path, bundled) and --check's words for it; the bundled bwrap that
# configure --with-bundled-bwrap installs (README.md, "A bundled bwrap"):
# static, not setuid, its licences and SOURCE beside it, and a sandbox
# made with it where no bwrap is on PATH, as root and as nobody.
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
