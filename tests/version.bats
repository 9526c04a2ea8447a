#!/usr/bin/env bats
# One version everywhere (sbox-exec(1), OPTIONS, --version, and the
# footer of the page): configure.ac's, which `scripts/lint version`
# compares with NEWS, README.md, debian/changelog, the manual and
# --version.  Each mismatch
# is made in a copy of those files, never in the tree itself; the
# unaltered copy is the control.

load helpers

setup() {
	requires python3
	D=$(scratch_dir)
	T=$D/tree
	mkdir -p "$T/scripts" "$T/man"
	cp "$TESTS_DIR/../scripts/lint" "$T/scripts/lint"
	cp "$TESTS_DIR/../configure.ac" "$TESTS_DIR/../NEWS" \
		"$TESTS_DIR/../README.md" "$T/"
	cp "$TESTS_DIR/../man/sbox-exec.1" "$T/man/"
	mkdir -p "$T/debian"
	cp "$TESTS_DIR/../debian/changelog" "$T/debian/"
	V=$(sed -n 's/^AC_INIT(\[sbox-exec\], *\[\([^]]*\)\].*/\1/p' "$T/configure.ac")
	[ -n "$V" ]
}

# lint_version [SBOX]: the check on the copy, --version from SBOX
# (default: the binary under test).
lint_version() {
	run env SBOX_EXEC="${1:-$SBOX_EXEC}" "$T/scripts/lint" version
}

# fake_sbox SAYS: an executable whose --version prints SAYS.
fake_sbox() {
	printf '#!/bin/sh\necho "%s"\n' "$1" >"$D/fake"
	chmod +x "$D/fake"
	echo "$D/fake"
}

@test "the tree as it is: one version, the lint passes" {
	run "$SBOX_EXEC" --version
	assert_status 0
	assert_eq "$output" "sbox-exec $V"
	lint_version
	assert_status 0
	assert_contains "$output" "lint: all checks passed"
}

@test "configure.ac changed alone: the lint fails and names the others" {
	lint_version
	assert_status 0
	sed -i "s/^AC_INIT(\[sbox-exec\], *\[$V\]/AC_INIT([sbox-exec], [9.8.7]/" \
		"$T/configure.ac"
	grep -q '^AC_INIT(\[sbox-exec\], \[9.8.7\]' "$T/configure.ac"
	lint_version
	assert_status 1
	assert_contains "$output" "NEWS' top heading"
	assert_contains "$output" "README.md names sbox-exec $V, configure.ac 9.8.7"
	assert_contains "$output" "sbox-version '$V', configure.ac 9.8.7"
	assert_contains "$output" "--version says 'sbox-exec $V'"
	assert_contains "$output" "lint: FAILED"
}

@test "NEWS' top heading: another version fails; with or without (unreleased) passes" {
	sed -i "1s/.*/sbox-exec $V/" "$T/NEWS"
	lint_version
	assert_status 0
	sed -i "1s/.*/sbox-exec $V (unreleased)/" "$T/NEWS"
	lint_version
	assert_status 0
	sed -i "1s/.*/sbox-exec 0.0.1 (unreleased)/" "$T/NEWS"
	lint_version
	assert_status 1
	assert_contains "$output" "NEWS' top heading is 'sbox-exec 0.0.1 (unreleased)'"
}

@test "README.md: a second, different version fails, and so does none" {
	printf '\nUpgrading from sbox-exec 0.0.1 needs nothing.\n' >>"$T/README.md"
	lint_version
	assert_status 1
	assert_contains "$output" "README.md names sbox-exec 0.0.1"
	cp "$TESTS_DIR/../README.md" "$T/README.md"
	sed -i "s/sbox-exec $V/sbox-exec/g" "$T/README.md"
	lint_version
	assert_status 1
	assert_contains "$output" "README.md names no version"
}

@test "debian/changelog's top entry at another version: the lint fails" {
	sed -i "1s/^sbox-exec ([^)]*)/sbox-exec (0.0.1-1)/" "$T/debian/changelog"
	lint_version
	assert_status 1
	assert_contains "$output" "debian/changelog's top entry is '0.0.1', configure.ac $V"
	# A Debian revision after the right version is the same version.
	sed -i "1s/^sbox-exec ([^)]*)/sbox-exec ($V-2)/" "$T/debian/changelog"
	lint_version
	assert_status 0
}

@test "the manual's version string changed: the lint fails" {
	sed -i "s/^\.ds sbox-version .*/.ds sbox-version 0.0.1/" "$T/man/sbox-exec.1"
	lint_version
	assert_status 1
	assert_contains "$output" "man/sbox-exec.1 has sbox-version '0.0.1'"
}

@test "--version saying another version fails the lint; the same one passes" {
	lint_version "$(fake_sbox "sbox-exec $V")"
	assert_status 0
	lint_version "$(fake_sbox "sbox-exec 0.0.1")"
	assert_status 1
	assert_contains "$output" "--version says 'sbox-exec 0.0.1'"
}

@test "the manual make builds: the version of --version, the directories it looks in" {
	requires mandoc
	local page msg dir
	page=$(dirname "$SBOX_EXEC")/../sbox-exec.1
	[ -f "$page" ] || skip "no manual built beside $SBOX_EXEC"
	# Its footer: the version.
	run mandoc -Tutf8 "$page"
	assert_status 0
	assert_contains "${lines[${#lines[@]} - 1]}" "sbox-exec $V"
	# The profiles directory the program names is the one the page names.
	run --separate-stderr "$SBOX_EXEC" --profile=sbox-test-no-such -- true
	assert_status 125
	msg=$stderr
	dir=$(sed -n 's/^\.ds sbox-pkgdatadir //p' "$page")
	[ -n "$dir" ]
	assert_contains "$msg" "$dir/profiles"
}
