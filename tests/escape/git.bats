#!/usr/bin/env bats
# Escape catalogue: git repositories in a --rw directory.  A hook or a
# core.fsmonitor setting is code the user runs later, outside the
# sandbox, with the next `git commit` or `git status`.  SPEC "Filesystem",
# host protection: .git/hooks and .git/config of a repository at the top
# of a writable directory stay read-only; man page HOST PROTECTION: .git
# is bound onto itself (no renaming it away and replacing it), a linked
# worktree's .git file is read-only.
#
# Each test plants a payload that, when git runs it, leaves $MARKER (in a
# directory the sandbox cannot write); the control plants it unsandboxed
# and shows that the host's git runs it; inside, planting fails, and the
# host's git runs nothing.  See common.bash.

# shellcheck disable=SC2016,SC2030,SC2031
load common

setup() {
	escape_setup
	requires git
	# No system or user configuration of the host's; an identity for
	# commits, inside and out.
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid
	export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
	export GIT_TERMINAL_PROMPT=0
}

# g ARGS...: git as the pass's user, unsandboxed.
g() {
	usr git "$@"
}

# git_env DIR: a scratch tree DIR with a repository DIR/main holding one
# commit; $MAIN, $MARKER and $PAYLOAD (the fsmonitor command) are set.
git_env() {
	D=$1
	MAIN=$D/main
	MARKER=$D/payload-ran
	PAYLOAD="echo ran >$MARKER; false"
	export HOME=$D/home
	usr mkdir "$HOME"
	g init -q "$MAIN"
	g -C "$MAIN" commit -q --allow-empty -m init
}

# host_git_runs_payload ARGS...: git ARGS on the host (as the user, who
# would run it later) runs the payload; the marker is removed again.
host_git_runs_payload() {
	rm -f "$MARKER"
	g "$@" >/dev/null 2>&1 || true
	if [ -e "$MARKER" ]; then
		rm -f "$MARKER"
		return 0
	fi
	return 1
}

# assert_payload_not_run ARGS...: git ARGS on the host runs no payload.
assert_payload_not_run() {
	if host_git_runs_payload "$@"; then
		echo "the host's 'git $*' ran code planted from inside the sandbox" >&2
		return 1
	fi
}

# plant WHERE ATTACK: run the shell ATTACK ($1 = WHERE, $2 = PAYLOAD) in
# WHERE, unsandboxed (control) or in a sandbox with --rw WHERE.
plant() {
	if [ "$1" = control ]; then
		run usr sh -c "cd \"\$1\" && $3" sh "$2" "$PAYLOAD"
	else
		run sbx --rw "$2" -- sh -c "cd \"\$1\" && $3" sh "$2" "$PAYLOAD"
	fi
}

HOOK_ATTACK='
printf "#!/bin/sh\n%s\n" "$2" >.git/hooks/pre-commit &&
chmod 0755 .git/hooks/pre-commit && echo planted'

_git_hook() {
	local before
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1

	# Control: unsandboxed, a planted hook runs with the next commit.
	plant control "$MAIN" "$HOOK_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" commit -q --allow-empty -m control ||
		{ echo "control: the payload did not run" >&2; return 1; }
	rm -f "$MAIN/.git/hooks/pre-commit"

	before=$(tree_state "$MAIN/.git/hooks")
	plant sandbox "$MAIN" "$HOOK_ATTACK"
	refute_contains "$output" planted
	assert_contains "$output" "Read-only file system"
	assert_absent "$MAIN/.git/hooks/pre-commit"
	assert_eq "$(tree_state "$MAIN/.git/hooks")" "$before"
	assert_payload_not_run -C "$MAIN" commit -q --allow-empty -m after
}

@test "git: .git/hooks/pre-commit cannot be written in a --rw repository" {
	each_user _git_hook
}

CONFIG_ATTACK='
{ git config core.fsmonitor "$2" || printf "[core]\n\tfsmonitor = %s\n" "$2" >>.git/config; } &&
echo planted'

_git_config() {
	local saved
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1
	saved=$D/config.saved
	cp -p "$MAIN/.git/config" "$saved"

	# Control: unsandboxed, core.fsmonitor runs with the next status.
	plant control "$MAIN" "$CONFIG_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	cp "$saved" "$MAIN/.git/config"

	plant sandbox "$MAIN" "$CONFIG_ATTACK"
	refute_contains "$output" planted
	cmp "$saved" "$MAIN/.git/config"
	assert_payload_not_run -C "$MAIN" status
}

@test "git: .git/config (core.fsmonitor) cannot be written in a --rw repository" {
	each_user _git_config
}

# Rename .git away and put a copy with a configuration of our own there.
RENAME_ATTACK='
mv .git .git.old && echo renamed &&
cp -a .git.old .git &&
printf "[core]\n\tfsmonitor = %s\n" "$2" >>.git/config && echo planted'

_git_rename() {
	local ino
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1

	# Control: unsandboxed, the replaced .git's fsmonitor runs.
	plant control "$MAIN" "$RENAME_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	rm -rf "$MAIN/.git"
	mv "$MAIN/.git.old" "$MAIN/.git"

	ino=$(stat -c %i "$MAIN/.git")
	plant sandbox "$MAIN" "$RENAME_ATTACK"
	refute_contains "$output" renamed
	refute_contains "$output" planted
	assert_absent "$MAIN/.git.old"
	assert_eq "$(stat -c %i "$MAIN/.git")" "$ino"
	assert_payload_not_run -C "$MAIN" status
}

@test "git: .git cannot be renamed away (mv .git .git.old) and replaced" {
	each_user _git_rename
}

# In a linked worktree: a git directory of our own, and .git pointing to
# it.
WORKTREE_FILE_ATTACK='
git init -q .evil && git -C .evil config core.fsmonitor "$2" &&
printf "gitdir: %s/.evil/.git\n" "$PWD" >.git && echo planted'

_git_worktree_file() {
	local wt saved
	git_env "$(scratch_dir)"
	wt=$D/wt
	g -C "$MAIN" worktree add -q "$wt"
	cd "$wt" || return 1
	saved=$(cat "$wt/.git")

	# Control: unsandboxed, the rewritten .git file leads git to it.
	plant control "$wt" "$WORKTREE_FILE_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$wt" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	printf '%s\n' "$saved" >"$wt/.git"
	rm -rf "$wt/.evil"

	plant sandbox "$wt" "$WORKTREE_FILE_ATTACK"
	refute_contains "$output" planted
	assert_file "$wt/.git" "$saved"
	assert_payload_not_run -C "$wt" status
}

@test "git: a linked worktree's .git file cannot be rewritten when the worktree is --rw" {
	each_user _git_worktree_file
}

# --- beyond .git/hooks and .git/config --------------------------------
# Other files under .git that lead the host's git to a configuration of
# the command's making.

# The main repository is --rw; its linked worktree elsewhere is not.  A
# common directory of our own, and the worktree's commondir pointing to
# it.
COMMONDIR_ATTACK='
mkdir .evil && cp -a .git/HEAD .git/refs .git/objects .evil/ &&
printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = %s\n" "$2" >.evil/config &&
printf "%s/.evil\n" "$PWD" >.git/worktrees/wt/commondir && echo planted'

_git_worktree_commondir() {
	local wt saved
	git_env "$(scratch_dir)"
	wt=$D/wt
	g -C "$MAIN" worktree add -q "$wt"
	cd "$MAIN" || return 1
	saved=$(cat "$MAIN/.git/worktrees/wt/commondir")

	# Control: unsandboxed, the redirected commondir's fsmonitor runs in
	# the linked worktree.
	plant control "$MAIN" "$COMMONDIR_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$wt" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	printf '%s\n' "$saved" >"$MAIN/.git/worktrees/wt/commondir"
	rm -rf "$MAIN/.evil"

	plant sandbox "$MAIN" "$COMMONDIR_ATTACK"
	assert_payload_not_run -C "$wt" status
	assert_file "$MAIN/.git/worktrees/wt/commondir" "$saved"
	refute_contains "$output" planted
}

@test "git: the commondir of a linked worktree (.git/worktrees/NAME/commondir) cannot be redirected" {
	each_user _git_worktree_commondir
}

SUBMODULE_ATTACK='
git config -f .git/modules/sub/config core.fsmonitor "$2" && echo planted'

_git_submodule_config() {
	local saved
	git_env "$(scratch_dir)"
	g init -q "$D/lib"
	g -C "$D/lib" commit -q --allow-empty -m lib
	g -C "$MAIN" -c protocol.file.allow=always submodule add -q "$D/lib" sub
	g -C "$MAIN" commit -q -m sub
	cd "$MAIN" || return 1
	saved=$D/config.saved
	cp -p "$MAIN/.git/modules/sub/config" "$saved"

	# Control: unsandboxed, `git status` at the top runs the submodule's
	# fsmonitor.
	plant control "$MAIN" "$SUBMODULE_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	cp "$saved" "$MAIN/.git/modules/sub/config"

	plant sandbox "$MAIN" "$SUBMODULE_ATTACK"
	assert_payload_not_run -C "$MAIN" status
	cmp "$saved" "$MAIN/.git/modules/sub/config"
	refute_contains "$output" planted
}

@test "git: a submodule's config (.git/modules/NAME/config) cannot be given a core.fsmonitor" {
	each_user _git_submodule_config
}
