#!/usr/bin/env bats
# Escape catalogue: git repositories in a --rw directory.  A hook or a
# core.fsmonitor setting is code the user runs later, outside the
# sandbox, with the next `git commit` or `git status`.  sbox-exec(1) HOST
# PROTECTION: .git/hooks and .git/config of a repository at the top
# of a writable directory stay read-only; man page HOST PROTECTION: .git
# is bound onto itself (no renaming it away and replacing it), a linked
# worktree's .git file is read-only.
#
# Each test plants a payload that, when git runs it, leaves $MARKER (in a
# directory the sandbox cannot write); the control plants it unsandboxed
# and shows that the host's git runs it; inside, planting fails, and the
# host's git runs nothing.  See tests/README.

# shellcheck disable=SC2016,SC2030,SC2031
load ../helpers

setup() {
	requires bwrap userns
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
		# shellcheck disable=SC2086 # PLANT_ARGS: more options, as words
		run sbx --rw "$2" ${PLANT_ARGS:-} -- sh -c "cd \"\$1\" && $3" sh "$2" "$PAYLOAD"
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

# --- files that do not exist yet ---------------------------------------
# A plain repository has no commondir, config.worktree or modules: .git
# as a whole is read-only unless --rw names it, so nothing can be created
# in it either.

PLAIN_COMMONDIR_ATTACK='
mkdir .evil && cp -a .git/HEAD .git/refs .git/objects .evil/ &&
printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = %s\n" "$2" >.evil/config &&
printf "%s/.evil\n" "$PWD" >.git/commondir && echo planted'

_git_plain_commondir() {
	local before
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1

	# Control: unsandboxed, a new .git/commondir leads git to a config
	# of the command's making.
	plant control "$MAIN" "$PLAIN_COMMONDIR_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	rm -rf "$MAIN/.git/commondir" "$MAIN/.evil"

	before=$(tree_state "$MAIN/.git")
	plant sandbox "$MAIN" "$PLAIN_COMMONDIR_ATTACK"
	refute_contains "$output" planted
	assert_contains "$output" "Read-only file system"
	assert_absent "$MAIN/.git/commondir"
	assert_eq "$(tree_state "$MAIN/.git")" "$before"
	assert_payload_not_run -C "$MAIN" status
}

@test "git: a .git/commondir cannot be created in a plain repository" {
	each_user _git_plain_commondir
}

WORKTREE_CONFIG_ATTACK='
printf "[core]\n\tfsmonitor = %s\n" "$2" >.git/config.worktree && echo planted'

_git_config_worktree() {
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1
	# The user's own setting: per-worktree configuration is read.
	g -C "$MAIN" config extensions.worktreeConfig true

	plant control "$MAIN" "$WORKTREE_CONFIG_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	rm -f "$MAIN/.git/config.worktree"

	plant sandbox "$MAIN" "$WORKTREE_CONFIG_ATTACK"
	refute_contains "$output" planted
	assert_absent "$MAIN/.git/config.worktree"
	assert_payload_not_run -C "$MAIN" status
}

@test "git: a .git/config.worktree cannot be created where the repository reads one" {
	each_user _git_config_worktree
}

HOOKSDIR_ATTACK='
printf "#!/bin/sh\n%s\n" "$2" >.githooks/pre-commit &&
chmod 0755 .githooks/pre-commit && echo planted'

_git_hooks_path() {
	local before
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1
	# The project keeps its hooks in the tree, as many do.
	usr mkdir "$MAIN/.githooks"
	g -C "$MAIN" config core.hooksPath .githooks

	plant control "$MAIN" "$HOOKSDIR_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" commit -q --allow-empty -m control ||
		{ echo "control: the payload did not run" >&2; return 1; }
	rm -f "$MAIN/.githooks/pre-commit"

	before=$(tree_state "$MAIN/.githooks")
	plant sandbox "$MAIN" "$HOOKSDIR_ATTACK"
	refute_contains "$output" planted
	assert_contains "$output" "Read-only file system"
	assert_eq "$(tree_state "$MAIN/.githooks")" "$before"
	assert_payload_not_run -C "$MAIN" commit -q --allow-empty -m after
}

@test "git: an in-tree core.hooksPath directory cannot be written" {
	each_user _git_hooks_path
}

INCLUDE_ATTACK='
printf "[core]\n\tfsmonitor = %s\n" "$2" >>project.gitconfig && echo planted'

_git_include_path() {
	local saved
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1
	usr sh -c 'printf "[user]\n\tname = t\n" >"$1/project.gitconfig"' sh "$MAIN"
	g -C "$MAIN" config include.path ../project.gitconfig
	saved=$(cat "$MAIN/project.gitconfig")

	plant control "$MAIN" "$INCLUDE_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	printf '%s\n' "$saved" >"$MAIN/project.gitconfig"

	plant sandbox "$MAIN" "$INCLUDE_ATTACK"
	refute_contains "$output" planted
	assert_file "$MAIN/project.gitconfig" "$saved"
	assert_payload_not_run -C "$MAIN" status
}

@test "git: an in-tree include.path file cannot be written" {
	each_user _git_include_path
}

GLOBAL_ATTACK='
printf "[core]\n\tfsmonitor = %s\n" "$2" >>"$HOME/.gitconfig" && echo planted'

_git_global_config() {
	local saved
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1
	usr sh -c 'printf "[user]\n\tname = t\n" >"$HOME/.gitconfig"'
	saved=$(cat "$HOME/.gitconfig")

	# Control: unsandboxed, ~/.gitconfig's fsmonitor runs in every
	# repository of the user's.
	plant control "$HOME" "$GLOBAL_ATTACK"
	assert_contains "$output" planted
	GIT_CONFIG_GLOBAL=$HOME/.gitconfig host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	printf '%s\n' "$saved" >"$HOME/.gitconfig"

	plant sandbox "$HOME" "$GLOBAL_ATTACK"
	refute_contains "$output" planted
	assert_file "$HOME/.gitconfig" "$saved"
	GIT_CONFIG_GLOBAL=$HOME/.gitconfig assert_payload_not_run -C "$MAIN" status
}

@test "git: ~/.gitconfig cannot be given a core.fsmonitor under --rw \$HOME" {
	each_user _git_global_config
}

_git_repo_below_grant() {
	git_env "$(scratch_dir)"
	cd "$D" || return 1

	plant control "$D" "cd main && $HOOK_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" commit -q --allow-empty -m control ||
		{ echo "control: the payload did not run" >&2; return 1; }
	rm -f "$MAIN/.git/hooks/pre-commit"

	# --rw of the directory that holds the repository.
	plant sandbox "$D" "cd main && $HOOK_ATTACK"
	refute_contains "$output" planted
	assert_absent "$MAIN/.git/hooks/pre-commit"
	assert_payload_not_run -C "$MAIN" commit -q --allow-empty -m after
}

@test "git: a repository right below a --rw directory is protected as one at its top" {
	each_user _git_repo_below_grant
}

_git_rw_git_named() {
	local head
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1
	head=$(g -C "$MAIN" rev-parse HEAD)

	# Without --rw .git, a commit inside fails: the metadata is read-only.
	run sbx --rw "$MAIN" -- git commit -q --allow-empty -m inside
	assert_failed "a commit without --rw .git"
	assert_eq "$(g -C "$MAIN" rev-parse HEAD)" "$head"

	# Named, it is writable, and a commit inside works...
	run sbx --rw "$MAIN" --rw .git -- git commit -q --allow-empty -m inside
	assert_status 0
	[ "$(g -C "$MAIN" rev-parse HEAD)" != "$head" ] ||
		{ echo "the commit inside did not land" >&2; return 1; }
	# ...while hooks and config stay read-only.
	PLANT_ARGS="--rw $MAIN/.git" plant sandbox "$MAIN" "$HOOK_ATTACK"
	refute_contains "$output" planted
	assert_absent "$MAIN/.git/hooks/pre-commit"
	PLANT_ARGS="--rw $MAIN/.git" plant sandbox "$MAIN" "$CONFIG_ATTACK"
	refute_contains "$output" planted
	assert_payload_not_run -C "$MAIN" status
}

@test "git: --rw .git allows commits inside; hooks and config stay read-only" {
	each_user _git_rw_git_named
}

# --- what cannot be made read-only: reported after the run -----------
# A directory of the work tree can be turned into a repository of the
# command's making; git uses it when run there (a shell prompt that shows
# the branch runs git in every directory the user enters).

NESTED_ATTACK='
mkdir -p src/deep && git init -q .evil && git -C .evil config core.fsmonitor "$2" &&
printf "gitdir: %s/.evil/.git\n" "$PWD" >src/deep/.git && echo planted'

_git_nested_reported() {
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1

	plant control "$MAIN" "$NESTED_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN/src/deep" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	rm -rf "$MAIN/src" "$MAIN/.evil"

	# Inside, the tree is the command's to write: it can plant this, and
	# sbox-exec names it on the way out.
	plant sandbox "$MAIN" "$NESTED_ATTACK"
	assert_status 0
	assert_contains "$output" planted
	assert_contains "$output" "sbox-exec: warning: the command changed $MAIN/src/deep/.git, where git finds programs to run"
	# A run that changes nothing says nothing.
	run sbx --rw "$MAIN" -- sh -c 'echo quiet >file'
	assert_status 0
	assert_eq "$output" ""

	# With -q the warning is not said, but the event channel (sbox-exec(1)
	# EVENTS) still carries it, then the exit.
	rm -rf "$MAIN/src" "$MAIN/.evil"
	local events
	events=$(scratch_dir)/events
	PLANT_ARGS="-q --log-fd=3" plant sandbox "$MAIN" "$NESTED_ATTACK" \
		3>"$events"
	assert_status 0
	refute_contains "$output" "sbox-exec:"
	assert_eq "$(jq -r 'select(.event == "git-changed") | .path' "$events" | sort)" \
		"$(printf '%s\n' "$MAIN/.evil/.git/config" "$MAIN/.evil/.git/hooks" \
			"$MAIN/src/deep/.git")"
	assert_eq "$(tail -n 1 "$events")" '{"event":"exit","code":0}'
}

@test "git: a .git file planted in a subdirectory is reported when the command ends" {
	each_user _git_nested_reported
}

# A .git that is a symbolic link to the git directory (kept beside the
# work tree, in the grant): git follows it, so the directory it leads to
# is protected as a .git directory would be.  The link itself no mount
# can hold: pointed elsewhere during the run, it is named when the
# command ends (sbox-exec(1), HOST PROTECTION).
RELINK_GIT_ATTACK='
cp -a .realgit .evil && printf "[core]\n\tfsmonitor = %s\n" "$2" >>.evil/config &&
ln -s .evil .git.new && mv -T .git.new .git && echo planted'

_git_symlinked() {
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1
	usr mv "$MAIN/.git" "$MAIN/.realgit"
	usr ln -s .realgit "$MAIN/.git"
	cp -p "$MAIN/.realgit/config" "$D/config.saved"

	# Control: unsandboxed, the configuration through the link runs the
	# payload.
	plant control "$MAIN" "$CONFIG_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	cp "$D/config.saved" "$MAIN/.realgit/config"

	plant sandbox "$MAIN" "$CONFIG_ATTACK"
	refute_contains "$output" planted
	cmp "$D/config.saved" "$MAIN/.realgit/config"
	assert_payload_not_run -C "$MAIN" status
	PLANT_ARGS="--rw $MAIN/.realgit" plant sandbox "$MAIN" "$CONFIG_ATTACK"
	refute_contains "$output" planted
	cmp "$D/config.saved" "$MAIN/.realgit/config"

	# Named through the link: commits work, the configuration stays
	# read-only and the directory cannot be renamed away.
	run --separate-stderr sbx --rw "$MAIN" --rw .git -- sh -c '
		git commit -q --allow-empty -m inside && echo committed
		{ echo x >>.git/config; } 2>/dev/null && echo config-changed
		mv .realgit .moved 2>/dev/null && echo renamed; :'
	assert_eq "$output" committed
	assert_eq "$(g -C "$MAIN" log -1 --format=%s)" inside
	cmp "$D/config.saved" "$MAIN/.realgit/config"
	assert_eq "$stderr" ""

	# The link pointed elsewhere: unsandboxed, git follows it to the
	# payload; inside, it can be done too, and is named on the way out.
	plant control "$MAIN" "$RELINK_GIT_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	rm -rf "$MAIN/.evil" "$MAIN/.git"
	usr ln -s .realgit "$MAIN/.git"
	plant sandbox "$MAIN" "$RELINK_GIT_ATTACK"
	assert_status 0
	assert_contains "$output" planted
	assert_contains "$output" "sbox-exec: warning: the command changed $MAIN/.git, where git finds programs to run"
	rm -rf "$MAIN/.evil" "$MAIN/.git"
	usr ln -s .realgit "$MAIN/.git"
	# One planted deeper is named too.
	plant sandbox "$MAIN" 'mkdir -p src && git init -q --bare src/.g && ln -s .g src/.git && echo planted'
	assert_contains "$output" planted
	assert_contains "$output" "sbox-exec: warning: the command changed $MAIN/src/.git, where git finds programs to run"
}

@test "git: a .git that is a symbolic link: where it leads is protected as .git; pointed elsewhere, it is named when the command ends" {
	each_user _git_symlinked
}

# A .git file whose gitdir is a symbolic link to the git directory, kept
# in the work tree: the launch goes on (bwrap cannot mount on the link's
# path; the mount goes where it leads), and the git directory is
# read-only, with and without its name granted.
_git_file_linked_gitdir() {
	local named
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1
	usr mkdir "$MAIN/.store"
	usr mv "$MAIN/.git" "$MAIN/.store/real"
	usr ln -s real "$MAIN/.store/link"
	usr git --git-dir="$MAIN/.store/real" config core.worktree "$MAIN"
	echo "gitdir: $MAIN/.store/link" | usr tee "$MAIN/.git" >/dev/null
	cp -p "$MAIN/.store/real/config" "$D/config.saved"
	# Control: unsandboxed, the configuration reached through the link
	# runs the payload.
	plant control "$MAIN" 'printf "[core]\n\tfsmonitor = %s\n" "$2" >>.store/real/config && echo planted'
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	cp "$D/config.saved" "$MAIN/.store/real/config"
	for named in "" "--rw $MAIN/.store/link"; do
		PLANT_ARGS=$named plant sandbox "$MAIN" 'git status >/dev/null && echo status-ok
			printf "[core]\n\tfsmonitor = %s\n" "$2" >>.store/real/config && echo planted; :'
		assert_status 0
		assert_contains "$output" status-ok
		refute_contains "$output" planted
		refute_contains "$output" bwrap
		cmp "$D/config.saved" "$MAIN/.store/real/config"
	done
	assert_payload_not_run -C "$MAIN" status
}

@test "git: a .git file whose gitdir is a symbolic link: the launch goes on and the git directory stays read-only" {
	each_user _git_file_linked_gitdir
}

# .git/hooks a symbolic link into the work tree (hooks kept under version
# control): git runs what it finds where the link leads, which is in the
# grant.  Read-only there, with and without .git named; a target that
# does not exist yet cannot be held, and is named when the command ends.
LINKED_HOOK_ATTACK='
mkdir -p githooks &&
printf "#!/bin/sh\n%s\n" "$2" >githooks/pre-commit &&
chmod 0755 githooks/pre-commit && echo planted'

_git_linked_hooks() {
	local named
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1
	usr rm -rf "$MAIN/.git/hooks"
	usr ln -s ../githooks "$MAIN/.git/hooks"
	usr mkdir "$MAIN/githooks"

	# Control: unsandboxed, a hook written through the link runs with
	# the next commit.
	plant control "$MAIN" "$LINKED_HOOK_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" commit -q --allow-empty -m control ||
		{ echo "control: the payload did not run" >&2; return 1; }
	rm -f "$MAIN/githooks/pre-commit"

	for named in "" "--rw $MAIN/.git"; do
		PLANT_ARGS=$named plant sandbox "$MAIN" "$LINKED_HOOK_ATTACK"
		refute_contains "$output" planted
		assert_contains "$output" "Read-only file system"
		refute_contains "$output" "bwrap"
		assert_absent "$MAIN/githooks/pre-commit"
		assert_payload_not_run -C "$MAIN" commit -q --allow-empty -m after
	done

	# Where the link leads to nothing yet, the command can make it: named
	# on the way out.
	rm -rf "$MAIN/githooks"
	plant sandbox "$MAIN" "$LINKED_HOOK_ATTACK"
	assert_contains "$output" planted
	assert_contains "$output" "sbox-exec: warning: the command changed $MAIN/githooks, where git finds programs to run"
}

@test "git: a hooks directory .git/hooks links to in the work tree stays read-only; one not there yet is named when the command ends" {
	each_user _git_linked_hooks
}

# --- with --rw .git: the names that redirect git ----------------------
# sbox-exec(1) HOST PROTECTION: with .git named, commondir,
# config.worktree and modules/ cannot be created or changed in it (nor in
# a submodule's or a worktree's git directory) unless --rw names them;
# where one does not exist, a placeholder that git reads as its absence
# holds the name for the run and is gone afterwards.

# .git/modules/NAME for a submodule not yet cloned: `git submodule update
# --init` takes the git directory it finds there, with its config.
MODULES_ATTACK='
mkdir -p .git/modules/lib && cp -a .git/HEAD .git/refs .git/objects .git/modules/lib/ &&
printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = %s\n\tworktree = ../../../lib\n" "$2" >.git/modules/lib/config &&
echo planted'

# git_state DIR: tree_state without the times of directories, which a
# placeholder made and removed again touches.
git_state() {
	tree_state "$1" | awk '$2 == "d" { $6 = "" } { print }'
}

_git_rw_git_redirects() {
	local before
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1
	g -C "$MAIN" config extensions.worktreeConfig true
	# Control: unsandboxed, each redirect made in .git runs the payload.
	plant control "$MAIN" "$PLAIN_COMMONDIR_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: commondir: the payload did not run" >&2; return 1; }
	rm -rf "$MAIN/.git/commondir" "$MAIN/.evil"
	plant control "$MAIN" "$WORKTREE_CONFIG_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: config.worktree: the payload did not run" >&2; return 1; }
	rm -f "$MAIN/.git/config.worktree"
	plant control "$MAIN" "$MODULES_ATTACK"
	assert_contains "$output" planted
	rm -rf "$MAIN/.git/modules"

	# Inside, with --rw .git: none can be made, the placeholders are gone
	# after the run, and the host's git runs nothing.
	before=$(git_state "$MAIN/.git")
	for attack in "$PLAIN_COMMONDIR_ATTACK" "$WORKTREE_CONFIG_ATTACK" "$MODULES_ATTACK"; do
		PLANT_ARGS="--rw $MAIN/.git" plant sandbox "$MAIN" "$attack"
		refute_contains "$output" planted
		assert_contains "$output" "Read-only file system"
		rm -rf "$MAIN/.evil"
	done
	assert_absent "$MAIN/.git/commondir"
	assert_absent "$MAIN/.git/config.worktree"
	assert_absent "$MAIN/.git/modules"
	assert_eq "$(git_state "$MAIN/.git")" "$before"
	assert_payload_not_run -C "$MAIN" status
	# An ordinary commit still works and says nothing; the placeholders
	# read as absent to git inside.
	run sbx --rw "$MAIN" --rw .git -- sh -c \
		'git commit -q --allow-empty -m fine && git rev-parse --git-common-dir'
	assert_status 0
	assert_eq "$output" "$MAIN/.git"
	assert_absent "$MAIN/.git/commondir"
	# Named by --rw of its own, a name is the user's to write.
	usr touch "$MAIN/.git/config.worktree"
	run sbx --rw "$MAIN" --rw .git --rw .git/config.worktree -- \
		sh -c 'echo "# mine" >.git/config.worktree && echo wrote'
	assert_eq "${lines[0]}" wrote
	assert_file "$MAIN/.git/config.worktree" "# mine"
	rm -f "$MAIN/.git/config.worktree"
}

# With .git named, a linked worktree's git directory renamed away and
# replaced by one whose commondir leads to a common directory of the
# command's making; worktrees/ itself renamed likewise.
WORKTREE_SWAP_ATTACK='
mkdir .evil && cp -a .git/HEAD .git/refs .git/objects .evil/ &&
printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = %s\n" "$2" >.evil/config &&
mv .git/worktrees/wt .git/worktrees/wt.old && mkdir .git/worktrees/wt &&
cp .git/worktrees/wt.old/HEAD .git/worktrees/wt.old/gitdir .git/worktrees/wt/ &&
printf "%s/.evil\n" "$PWD" >.git/worktrees/wt/commondir && echo planted'
WORKTREES_SWAP_ATTACK='
mkdir .evil && cp -a .git/HEAD .git/refs .git/objects .evil/ &&
printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = %s\n" "$2" >.evil/config &&
mv .git/worktrees .git/worktrees.old && mkdir -p .git/worktrees/wt &&
cp .git/worktrees.old/wt/HEAD .git/worktrees.old/wt/gitdir .git/worktrees/wt/ &&
printf "%s/.evil\n" "$PWD" >.git/worktrees/wt/commondir && echo planted'

_git_rw_git_worktree_swap() {
	local wt before attack
	git_env "$(scratch_dir)"
	wt=$D/wt
	g -C "$MAIN" worktree add -q "$wt"
	cd "$MAIN" || return 1
	before=$(git_state "$MAIN/.git/worktrees")
	for attack in "$WORKTREE_SWAP_ATTACK" "$WORKTREES_SWAP_ATTACK"; do
		# Control: unsandboxed, the linked worktree's git follows the
		# new commondir to the payload.
		plant control "$MAIN" "$attack"
		assert_contains "$output" planted
		host_git_runs_payload -C "$wt" status ||
			{ echo "control: the payload did not run" >&2; return 1; }
		rm -rf "$MAIN/.evil"
		if [ -d "$MAIN/.git/worktrees.old" ]; then
			rm -rf "$MAIN/.git/worktrees"
			usr mv "$MAIN/.git/worktrees.old" "$MAIN/.git/worktrees"
		else
			rm -rf "$MAIN/.git/worktrees/wt"
			usr mv "$MAIN/.git/worktrees/wt.old" "$MAIN/.git/worktrees/wt"
		fi
		assert_eq "$(git_state "$MAIN/.git/worktrees")" "$before"

		PLANT_ARGS="--rw $MAIN/.git" plant sandbox "$MAIN" "$attack"
		refute_contains "$output" planted
		assert_contains "$output" "busy"
		rm -rf "$MAIN/.evil"
		assert_eq "$(git_state "$MAIN/.git/worktrees")" "$before"
		assert_payload_not_run -C "$wt" status
	done
	# A commit in the main work tree, and a worktree added and removed
	# there, still work with .git named.
	run --separate-stderr sbx --rw "$MAIN" --rw .git -- sh -c 'git commit -q --allow-empty -m inside &&
		git worktree add -q wt2 && git worktree list | wc -l'
	assert_status 0
	assert_eq "$output" 3
	assert_eq "$(g -C "$MAIN" log -1 --format=%s)" inside
}

@test "git: with --rw .git, a linked worktree's git directory and worktrees/ cannot be renamed away and replaced" {
	each_user _git_rw_git_worktree_swap
}

@test "git: with --rw .git, commondir, config.worktree and modules/NAME cannot be created; nothing is left" {
	each_user _git_rw_git_redirects
}

# An existing submodule's git directory, with .git named: its config
# stays read-only, no commondir can be made in it, and no new submodule
# git directory beside it.
SUBMODULE_COMMONDIR_ATTACK='
mkdir .evil && cp -a .git/modules/sub/HEAD .git/modules/sub/refs .git/modules/sub/objects .evil/ &&
printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = %s\n" "$2" >.evil/config &&
printf "%s/.evil\n" "$PWD" >.git/modules/sub/commondir && echo planted'

_git_rw_git_submodule() {
	local before
	git_env "$(scratch_dir)"
	g init -q "$D/lib"
	g -C "$D/lib" commit -q --allow-empty -m lib
	g -C "$MAIN" -c protocol.file.allow=always submodule add -q "$D/lib" sub
	g -C "$MAIN" commit -q -m sub
	cd "$MAIN" || return 1
	# Control: unsandboxed, a commondir in the submodule's git directory
	# leads `git status` at the top to the payload.
	plant control "$MAIN" "$SUBMODULE_COMMONDIR_ATTACK"
	assert_contains "$output" planted
	host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	rm -rf "$MAIN/.git/modules/sub/commondir" "$MAIN/.evil"

	before=$(git_state "$MAIN/.git/modules")
	for attack in "$SUBMODULE_COMMONDIR_ATTACK" "$SUBMODULE_ATTACK" "$MODULES_ATTACK"; do
		PLANT_ARGS="--rw $MAIN/.git" plant sandbox "$MAIN" "$attack"
		refute_contains "$output" planted
		rm -rf "$MAIN/.evil"
	done
	assert_eq "$(git_state "$MAIN/.git/modules")" "$before"
	assert_payload_not_run -C "$MAIN" status
	# Named, the submodule's own git directory is writable (a commit in
	# it works), and the names that redirect git still are not.
	run sbx --rw "$MAIN" --rw .git --rw .git/modules/sub -- git -C sub commit -q --allow-empty -m inside
	assert_status 0
	assert_eq "$(g -C "$MAIN/sub" log -1 --format=%s)" inside
	PLANT_ARGS="--rw $MAIN/.git --rw $MAIN/.git/modules/sub" plant sandbox "$MAIN" "$SUBMODULE_COMMONDIR_ATTACK"
	refute_contains "$output" planted
	assert_absent "$MAIN/.git/modules/sub/commondir"
	assert_absent "$MAIN/.git/modules/sub/config.worktree"
	assert_payload_not_run -C "$MAIN" status
}

@test "git: with --rw .git, a submodule's git directory gets no commondir and keeps its config; no new one beside it" {
	each_user _git_rw_git_submodule
}

# With .git and modules/ named (adding a submodule needs it), a
# submodule's git directory stays the user's: renamed away and replaced by
# a copy with a core.fsmonitor, or its config changed, it would run the
# payload at the next `git status` at the top.  A name with a slash puts
# it deeper (modules/libs/sub).
MODULES_SWAP_ATTACK='
mv .git/modules/libs/sub .git/modules/libs/sub.old &&
cp -a .git/modules/libs/sub.old .git/modules/libs/sub && echo swapped
printf "[core]\n\tfsmonitor = %s\n" "$2" >>.git/modules/libs/sub/config && echo planted
mv .git/modules/libs .git/modules/libs.old && echo moved; :'

_git_rw_modules_named() {
	local before
	git_env "$(scratch_dir)"
	g init -q "$D/lib"
	g -C "$D/lib" commit -q --allow-empty -m lib
	g -C "$MAIN" -c protocol.file.allow=always submodule add -q "$D/lib" libs/sub
	g -C "$MAIN" commit -q -m sub
	cd "$MAIN" || return 1
	cp -a "$MAIN/.git/modules" "$D/modules.saved"
	# Control: unsandboxed, the swapped git directory's fsmonitor runs.
	plant control "$MAIN" "$MODULES_SWAP_ATTACK"
	assert_contains "$output" swapped
	assert_contains "$output" planted
	assert_contains "$output" moved
	usr mv "$MAIN/.git/modules/libs.old" "$MAIN/.git/modules/libs"
	host_git_runs_payload -C "$MAIN" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	rm -rf "$MAIN/.git/modules"
	cp -a "$D/modules.saved" "$MAIN/.git/modules"

	before=$(git_state "$MAIN/.git/modules")
	PLANT_ARGS="--rw $MAIN/.git --rw $MAIN/.git/modules" plant sandbox "$MAIN" "$MODULES_SWAP_ATTACK"
	refute_contains "$output" swapped
	refute_contains "$output" planted
	refute_contains "$output" moved
	assert_eq "$(git_state "$MAIN/.git/modules")" "$before"
	assert_payload_not_run -C "$MAIN" status
	# modules/ named is still the command's to add to.
	run sbx --rw "$MAIN" --rw .git --rw .git/modules -- sh -c 'mkdir .git/modules/new && echo made'
	assert_eq "$output" made
}

@test "git: with .git and modules/ named, a submodule's git directory (a name with a slash too) cannot be swapped or changed" {
	each_user _git_rw_modules_named
}

# A linked worktree granted --rw with its own git directory named.
_git_rw_worktree_gitdir() {
	local wt gd
	git_env "$(scratch_dir)"
	wt=$D/wt
	g -C "$MAIN" worktree add -q "$wt"
	g -C "$MAIN" config extensions.worktreeConfig true
	gd=$MAIN/.git/worktrees/wt
	cd "$wt" || return 1
	plant control "$wt" "printf '[core]\n\tfsmonitor = %s\n' \"\$2\" >$gd/config.worktree && echo planted"
	assert_contains "$output" planted
	host_git_runs_payload -C "$wt" status ||
		{ echo "control: the payload did not run" >&2; return 1; }
	rm -f "$gd/config.worktree"
	PLANT_ARGS="--rw $gd" plant sandbox "$wt" "printf '[core]\n\tfsmonitor = %s\n' \"\$2\" >$gd/config.worktree && echo planted; echo x >$gd/commondir && echo changed"
	refute_contains "$output" planted
	refute_contains "$output" changed
	assert_absent "$gd/config.worktree"
	assert_payload_not_run -C "$wt" status
}

@test "git: a linked worktree's own git directory named --rw gets no config.worktree, and its commondir stays" {
	each_user _git_rw_worktree_gitdir
}

# Two sandboxes on one repository: the placeholder stays while either
# runs, and is gone when both have ended; --print and --check make none.
_git_holds_shared() {
	local x
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1
	x=$(scratch_dir)
	run sbx --print --rw "$MAIN" --rw .git -- true
	assert_status 0
	run sbx --check --rw "$MAIN" --rw .git
	assert_status 0
	assert_absent "$MAIN/.git/commondir"
	bg usr_exec "$SBOX" --rw "$MAIN" --rw .git --rw "$x" -- sh -c '
		echo >"$1/ready"
		while [ ! -e "$1/go" ]; do sleep 0.1; done
		echo evil >.git/commondir 2>/dev/null && echo planted >"$1/out"
		echo finished >>"$1/out"' sh "$x"
	wait_for 20 test -e "$x/ready"
	assert_file "$MAIN/.git/commondir" .
	# A second sandbox comes and goes: the first keeps its placeholder.
	run sbx --rw "$MAIN" --rw .git -- cat .git/commondir
	assert_status 0
	assert_eq "$output" .
	assert_file "$MAIN/.git/commondir" .
	# A second one that outlives the first: the last one out removes it.
	bg usr_exec "$SBOX" --rw "$MAIN" --rw .git --rw "$x" -- sh -c '
		echo >"$1/ready2"
		while [ ! -e "$1/go2" ]; do sleep 0.1; done
		echo evil >.git/commondir 2>/dev/null && echo planted >"$1/out2"
		echo finished >>"$1/out2"' sh "$x"
	wait_for 20 test -e "$x/ready2"
	usr touch "$x/go"
	wait_for 20 grep -q finished "$x/out"
	assert_eq "$(cat "$x/out")" finished
	assert_file "$MAIN/.git/commondir" .
	usr touch "$x/go2"
	wait_for 20 grep -q finished "$x/out2"
	assert_eq "$(cat "$x/out2")" finished
	wait_for 20 test ! -e "$MAIN/.git/commondir"
	wait_for 20 test ! -e "$MAIN/.git/modules"
	assert_absent "$MAIN/.git/config.worktree"
}

@test "git: the placeholders of two sandboxes on one repository: held while either runs, gone after; none for --print or --check" {
	each_user _git_holds_shared
}

# A sandbox cannot lock a placeholder for itself, which would make later
# launches wait: its launcher holds each one shared for the run.
LOCK_ATTEMPT='
import fcntl, os
for f in (".git/commondir", ".git/config.worktree", ".git/modules"):
    fd = os.open(f, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        print("locked")
    except BlockingIOError:
        print("busy")'

_git_holds_locked() {
	git_env "$(scratch_dir)"
	cd "$MAIN" || return 1
	# Control: outside, the same names, made by the user, can be locked.
	usr sh -c 'echo . >.git/commondir && : >.git/config.worktree && mkdir .git/modules'
	run usr "$PY" -c "$LOCK_ATTEMPT"
	assert_eq "$(echo $output)" "locked locked locked"
	usr sh -c 'rm -r .git/commondir .git/config.worktree .git/modules'
	run sbx --rw "$MAIN" --rw .git -- "$PY" -c "$LOCK_ATTEMPT"
	assert_status 0
	assert_eq "$(echo $output)" "busy busy busy"
	assert_absent "$MAIN/.git/commondir"
}

@test "git: a sandbox cannot lock a placeholder for itself to hold later launches back" {
	each_user _git_holds_locked
}

# A hostile tree can make git's files anything: a FIFO, /dev/zero, a file
# that includes itself without end.  Reading them must not hang the launch
# or the audit at its end.
TRAPS='
mkdir -p t1 t2 t3 && git init -q t1 && git init -q t2 && git init -q t3 &&
rm -f t1/.git/config && ln -s /dev/zero t1/.git/config &&
mkfifo t2/.git/commondir &&
for i in $(seq 1 50); do echo "[include] path=config"; done >t3/.git/config &&
echo planted'

_git_traps() {
	git_env "$(scratch_dir)"
	cd "$D" || return 1
	# Planted inside: the audit at the end reads them.
	run usr timeout 60 "$SBOX" --rw "$D" -- sh -c "$TRAPS"
	assert_status 0
	assert_contains "$output" planted
	# Found at the next launch: refused or run, but never hung.
	run usr timeout 60 "$SBOX" --rw "$D" -- echo finished
	[ "$status" -eq 0 ] || [ "$status" -eq 125 ] ||
		{ echo "exit $status: $output" >&2; return 1; }
	rm -rf "$D/t1" "$D/t2" "$D/t3"
}

@test "git: a FIFO, /dev/zero or an endless include where git's files are hangs neither the launch nor the audit" {
	each_user _git_traps
}

# A home whose ~/.config is a symlink (to a directory elsewhere in the
# same grant): git's global configuration there stays read-only, and the
# launch is not refused for it (the mount goes where the link leads).
_git_config_through_link() {
	local d
	d=$(scratch_dir)
	usr mkdir -p "$d/home" "$d/dotfiles/git"
	usr ln -s "$d/dotfiles" "$d/home/.config"
	usr sh -c 'printf "[user]\n\tname = t\n" >"$1/dotfiles/git/config"' sh "$d"
	export HOME=$d/home
	# Control: unsandboxed, the file can be written through the link.
	run usr sh -c 'printf "\n" >>"$HOME/.config/git/config"'
	assert_status 0

	run --separate-stderr sbx --rw "$d" -- sh -c \
		'echo ran; printf "[core]\n\tfsmonitor = x\n" >>"$HOME/.config/git/config" && echo planted'
	assert_eq "$output" ran
	refute_contains "$(cat "$d/dotfiles/git/config")" fsmonitor
	# The rest of the grant is writable.
	run sbx --rw "$d" -- touch "$d/dotfiles/other"
	assert_status 0
	assert_file "$d/dotfiles/other" ""
}

@test "git: through a symlinked ~/.config, git's global configuration stays read-only and the launch goes on" {
	each_user _git_config_through_link
}
