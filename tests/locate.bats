#!/usr/bin/env bats
# Man page FINDING BWRAP: --bwrap / SBOX_EXEC_BWRAP, the PATH search (never
# the current directory), the bundled copy, the setuid rule, for bwrap
# and for sbox-exec itself, and the rule of trusted places (a bwrap found
# by searching must sit where only root can write; tests/escape/
# launcher.bats has the refusals).  Copies found by searching are put in
# a root-owned 0755 directory, $T.

load helpers

setup() {
	requires bwrap jq python3
	D=$(scratch_dir)
	REAL_BWRAP=$(readlink -f "$(command -v bwrap)")
	SBOX_ENV=()
	unset SBOX_EXEC_BWRAP
	# What the command does if it ever runs: leave a file on the host.
	MARK=(/bin/sh -c 'echo ran >"$1"' sh "$D/marker")
	T=
}

teardown() {
	[ -z "$T" ] || rm -rf -- "$T"
	common_teardown
}

# trusted_dir: make $T, a directory only root can write (in /var/tmp,
# whose sticky bit keeps others from replacing it).
trusted_dir() {
	requires root
	T=$(mktemp -d /var/tmp/sbox-trusted.XXXXXX)
	chmod 0755 "$T"
}

# sbox [ARGS...]: run sbox-exec with a --rw scratch dir and the status on
# fd 3 (in $D/status); the marker command follows ARGS.
# $SBOX_ENV (an array of NAME=VALUE) is sbox-exec's extra environment.
sbox() {
	run --separate-stderr env "${SBOX_ENV[@]}" "$SBOX_EXEC" --status-fd=3 \
		--rw "$D" "$@" -- "${MARK[@]}" 3>"$D/status"
}

# assert_refused STATUS: exit 125, nothing on stdout, a sbox-exec message,
# the status STATUS, and the command never ran.
assert_refused() {
	assert_status 125
	assert_eq "$output" ""
	assert_contains "$stderr" "sbox-exec: "
	assert_status_line "$D/status"
	assert_eq "$(jq -r .status "$D/status")" "$1"
	[ ! -e "$D/marker" ] || { echo "the command ran" >&2; return 1; }
}

assert_ran_with() {
	assert_status 0
	assert_eq "$(cat "$D/marker")" ran
	assert_status_line "$D/status"
	assert_eq "$(jq -r .status "$D/status")" success
	assert_eq "$(jq -r .bwrap "$D/status")" "$1"
}

# A copy of the real bwrap with MODE in directory DIR (created).
bwrap_copy() {
	mkdir -p "$1"
	cp "$REAL_BWRAP" "$1/bwrap"
	chmod "$2" "$1/bwrap"
}

# The bundled locations sbox-exec(1) FINDING BWRAP names, for this binary.
bundled_present() {
	local compiled
	compiled=$(grep -a -o '/[[:graph:]]*/libexec/sbox-exec/bwrap' \
		"$SBOX_EXEC" | head -n 1)
	[ -n "$compiled" ] && [ -e "$compiled" ] && return 0
	[ -e "$(dirname "$SBOX_EXEC")/../libexec/sbox-exec/bwrap" ]
}

@test "--bwrap=/nonexistent: bwrap-not-found, nothing runs" {
	sbox --bwrap=/nonexistent
	assert_refused bwrap-not-found
	[ -n "$(jq -r '.detail // empty' "$D/status")" ]
}

@test "SBOX_EXEC_BWRAP=/nonexistent: bwrap-not-found, no fallback to PATH" {
	SBOX_ENV=(SBOX_EXEC_BWRAP=/nonexistent)
	sbox
	assert_refused bwrap-not-found
}

@test "--bwrap naming a directory or a non-executable file: bwrap-not-found" {
	sbox --bwrap="$D"
	assert_refused bwrap-not-found
	rm -f "$D/status"
	bwrap_copy "$D/noexec" 0644
	sbox --bwrap="$D/noexec/bwrap"
	assert_refused bwrap-not-found
}

@test "--bwrap wins over SBOX_EXEC_BWRAP (env missing, flag good)" {
	SBOX_ENV=(SBOX_EXEC_BWRAP=/nonexistent)
	sbox --bwrap="$REAL_BWRAP"
	assert_ran_with "$REAL_BWRAP"
}

@test "--bwrap wins over SBOX_EXEC_BWRAP (env good, flag missing)" {
	SBOX_ENV=("SBOX_EXEC_BWRAP=$REAL_BWRAP")
	sbox --bwrap=/nonexistent
	assert_refused bwrap-not-found
}

@test "SBOX_EXEC_BWRAP naming a copy is used instead of the one on PATH" {
	bwrap_copy "$D/env" 0755
	SBOX_ENV=("SBOX_EXEC_BWRAP=$D/env/bwrap")
	sbox
	assert_ran_with "$D/env/bwrap"
}

@test "PATH holding only an empty directory: bwrap-not-found" {
	bundled_present && skip "a bundled bwrap is installed for this build"
	mkdir "$D/empty"
	SBOX_ENV=("PATH=$D/empty")
	sbox
	assert_refused bwrap-not-found
}

@test "PATH=. with ./bwrap in the working directory: not used" {
	bundled_present && skip "a bundled bwrap is installed for this build"
	bwrap_copy "$D/cwd" 0755
	cd "$D/cwd"
	SBOX_ENV=(PATH=.)
	sbox
	assert_refused bwrap-not-found
}

@test "empty PATH entries (the current directory in POSIX) are skipped" {
	bundled_present && skip "a bundled bwrap is installed for this build"
	bwrap_copy "$D/cwd" 0755
	mkdir "$D/empty"
	cd "$D/cwd"
	SBOX_ENV=(PATH=":$D/empty::")
	sbox
	assert_refused bwrap-not-found
}

@test "relative PATH entries other than . are skipped" {
	bundled_present && skip "a bundled bwrap is installed for this build"
	bwrap_copy "$D/cwd/bin" 0755
	cd "$D/cwd"
	SBOX_ENV=(PATH="bin:./bin")
	sbox
	assert_refused bwrap-not-found
}

@test "an absolute PATH entry holding a bwrap copy is used, and named" {
	trusted_dir
	bwrap_copy "$T/bin" 0755
	mkdir "$D/empty"
	SBOX_ENV=(PATH="relative:$D/empty:$T/bin:/usr/bin")
	sbox
	assert_ran_with "$T/bin/bwrap"
}

@test "the first bwrap on PATH wins" {
	trusted_dir
	bwrap_copy "$T/one" 0755
	bwrap_copy "$T/two" 0755
	SBOX_ENV=(PATH="$T/one:$T/two")
	sbox
	assert_ran_with "$T/one/bwrap"
}

@test "PATH entries whose bwrap is a directory or not executable are passed over" {
	trusted_dir
	mkdir -p "$D/dir/bwrap"
	bwrap_copy "$D/noexec" 0644
	bwrap_copy "$T/bin" 0755
	SBOX_ENV=(PATH="$D/dir:$D/noexec:$T/bin")
	sbox
	assert_ran_with "$T/bin/bwrap"
}

@test "no bwrap on PATH: the bundled one beside a relocated install is used" {
	local prefix reported
	bundled_present && skip "a bundled bwrap is installed for this build"
	trusted_dir
	prefix=$T/prefix
	mkdir -p "$D/empty"
	install_sbox "$prefix" >/dev/null
	bwrap_copy "$prefix/libexec/sbox-exec" 0755
	run --separate-stderr env PATH="$D/empty" "$prefix/bin/sbox-exec" \
		--status-fd=3 --rw "$D" -- "${MARK[@]}" 3>"$D/status"
	assert_status 0
	assert_eq "$(cat "$D/marker")" ran
	reported=$(jq -r .bwrap "$D/status")
	assert_eq "$(readlink -f "$reported")" "$prefix/libexec/sbox-exec/bwrap"
}

@test "a bwrap on PATH wins over the bundled one" {
	local prefix
	trusted_dir
	prefix=$T/prefix
	install_sbox "$prefix" >/dev/null
	bwrap_copy "$prefix/libexec/sbox-exec" 0755
	bwrap_copy "$T/bin" 0755
	run --separate-stderr env PATH="$T/bin" "$prefix/bin/sbox-exec" \
		--status-fd=3 --rw "$D" -- "${MARK[@]}" 3>"$D/status"
	assert_ran_with "$T/bin/bwrap"
}

@test "a bundled bwrap in a directory others can write: bwrap-untrusted" {
	local prefix
	bundled_present && skip "a bundled bwrap is installed for this build"
	trusted_dir
	prefix=$T/prefix
	mkdir -p "$D/empty"
	install_sbox "$prefix" >/dev/null
	bwrap_copy "$prefix/libexec/sbox-exec" 0755
	chmod 0777 "$prefix/libexec"
	run --separate-stderr env PATH="$D/empty" "$prefix/bin/sbox-exec" \
		--status-fd=3 --rw "$D" -- "${MARK[@]}" 3>"$D/status"
	assert_refused bwrap-untrusted
	assert_contains "$(jq -r .detail "$D/status")" "$prefix/libexec is writable by others"
}

@test "a bundled bwrap its owner can replace: used, and --check says so" {
	requires setpriv
	local prefix
	bundled_present && skip "a bundled bwrap is installed for this build"
	trusted_dir
	prefix=$T/own/prefix
	mkdir -m 0755 "$T/own" "$D/empty"
	install_sbox "$prefix" >/dev/null
	chown -R 65534:65534 "$T/own"
	as_user mkdir -p "$prefix/libexec/sbox-exec"
	as_user cp "$REAL_BWRAP" "$prefix/libexec/sbox-exec/bwrap"
	run --separate-stderr as_user env PATH="$D/empty" "$prefix/bin/sbox-exec" \
		--status-fd=3 --rw "$D" -- "${MARK[@]}" 3>"$D/status"
	assert_status 0
	assert_eq "$(cat "$D/marker")" ran
	run --separate-stderr as_user env PATH="$D/empty" "$prefix/bin/sbox-exec" --check
	assert_status 0
	assert_contains "$stderr" "can be replaced by this user"
}

@test "a setuid bundled bwrap (relocated install): setuid-rejected" {
	requires root
	local prefix=$D/prefix
	bundled_present && skip "a bundled bwrap is installed for this build"
	mkdir -p "$D/empty"
	install_sbox "$prefix" >/dev/null
	bwrap_copy "$prefix/libexec/sbox-exec" 4755
	run --separate-stderr env PATH="$D/empty" "$prefix/bin/sbox-exec" \
		--status-fd=3 --rw "$D" -- "${MARK[@]}" 3>"$D/status"
	assert_refused setuid-rejected
}

@test "as the unprivileged user: a bwrap copy on PATH is used" {
	requires setpriv
	local s
	s=$(unpriv_sbox)
	trusted_dir
	bwrap_copy "$T/bin" 0755
	run --separate-stderr as_user env PATH="$T/bin" "$s" --status-fd=3 \
		--rw "$D" -- "${MARK[@]}" 3>"$D/status"
	assert_ran_with "$T/bin/bwrap"
}

@test "setuid bwrap via --bwrap: setuid-rejected" {
	requires root
	bwrap_copy "$D/suid" 4755
	sbox --bwrap="$D/suid/bwrap"
	assert_refused setuid-rejected
}

@test "setuid bwrap via SBOX_EXEC_BWRAP: setuid-rejected" {
	requires root
	bwrap_copy "$D/suid" 4755
	SBOX_ENV=("SBOX_EXEC_BWRAP=$D/suid/bwrap")
	sbox
	assert_refused setuid-rejected
}

@test "setuid bwrap first on PATH: setuid-rejected" {
	requires root
	bwrap_copy "$D/suid" 4755
	SBOX_ENV=(PATH="$D/suid:/usr/bin:/bin")
	sbox
	assert_refused setuid-rejected
}

@test "setuid bwrap behind a symlink (--bwrap and PATH): setuid-rejected" {
	requires root
	bwrap_copy "$D/suid" 4755
	mkdir "$D/link"
	ln -s "$D/suid/bwrap" "$D/link/bwrap"
	sbox --bwrap="$D/link/bwrap"
	assert_refused setuid-rejected
	rm -f "$D/status"
	SBOX_ENV=(PATH="$D/link:/usr/bin:/bin")
	sbox
	assert_refused setuid-rejected
}

@test "setuid bwrap behind a relative symlink chain: setuid-rejected" {
	requires root
	bwrap_copy "$D/suid" 4755
	mkdir "$D/link"
	ln -s ../suid/bwrap "$D/link/bwrap1"
	ln -s bwrap1 "$D/link/bwrap"
	sbox --bwrap="$D/link/bwrap"
	assert_refused setuid-rejected
}

@test "setgid bwrap (2755), via --bwrap and PATH: setuid-rejected" {
	requires root
	bwrap_copy "$D/sgid" 2755
	sbox --bwrap="$D/sgid/bwrap"
	assert_refused setuid-rejected
	rm -f "$D/status"
	SBOX_ENV=(PATH="$D/sgid:/usr/bin:/bin")
	sbox
	assert_refused setuid-rejected
}

@test "setuid bwrap run by the unprivileged user: setuid-rejected" {
	requires root setpriv
	local s
	s=$(unpriv_sbox)
	bwrap_copy "$D/suid" 4755
	run --separate-stderr as_user "$s" --status-fd=3 --bwrap="$D/suid/bwrap" \
		--rw "$D" -- "${MARK[@]}" 3>"$D/status"
	assert_refused setuid-rejected
}

@test "sbox-exec installed setuid root, run by the unprivileged user: refuses" {
	requires root setpriv
	mkdir "$D/bin"
	cp "$SBOX_EXEC" "$D/bin/sbox-exec"
	chmod 4755 "$D/bin/sbox-exec"
	run --separate-stderr as_user "$D/bin/sbox-exec" --rw "$D" -- "${MARK[@]}"
	assert_status 125
	assert_eq "$output" ""
	assert_contains "$stderr" "sbox-exec: "
	[ ! -e "$D/marker" ]
}

@test "sbox-exec installed setgid, run by the unprivileged user: refuses" {
	requires root setpriv
	mkdir "$D/bin"
	cp "$SBOX_EXEC" "$D/bin/sbox-exec"
	chgrp 0 "$D/bin/sbox-exec"
	chmod 2755 "$D/bin/sbox-exec"
	run --separate-stderr as_user "$D/bin/sbox-exec" --rw "$D" -- "${MARK[@]}"
	assert_status 125
	assert_eq "$output" ""
	assert_contains "$stderr" "sbox-exec: "
	[ ! -e "$D/marker" ]
}

@test "setuid sbox-exec refuses --check and --print too" {
	requires root setpriv
	mkdir "$D/bin"
	cp "$SBOX_EXEC" "$D/bin/sbox-exec"
	chmod 4755 "$D/bin/sbox-exec"
	run --separate-stderr as_user "$D/bin/sbox-exec" --check
	assert_status 125
	run --separate-stderr as_user "$D/bin/sbox-exec" --print -- "${MARK[@]}"
	assert_status 125
	assert_eq "$output" ""
}
