#!/usr/bin/env bats
# sbox-exec(1) OPTIONS, --project and --cache, and POLICY FILES'
# ${PROJECT} and ${CACHE}: the project a tool works on, and the private
# caches that are the one thing sbox-exec creates on the host.

load helpers

setup() {
	requires bwrap jq
	W=$(scratch_dir)
	mkdir -m 0755 "$W/a" "$W/b" "$W/conf"
}

# key DIR: the name of DIR's cache directory (sbox-exec(1), --cache).
key() {
	local real
	real=$(readlink -f "$1")
	printf '%s-%s' "$(basename "$real")" \
		"$(printf '%s' "$real" | sha256sum | cut -c1-32)"
}

# fresh_home: an empty home of the pass's user in $HOMEDIR.
fresh_home() {
	HOMEDIR=$W/home-${AS:-root}
	usr mkdir -m 0700 "$HOMEDIR"
}

# in_home ARGS...: sbox-exec as the pass's user from the fresh home's
# point of view (HOME set, no XDG variables), in $W/a.
in_home() {
	(cd "$W/a" && usr env -u XDG_CACHE_HOME -u XDG_CONFIG_HOME \
		HOME="$HOMEDIR" "$SBOX" "$@")
}

@test "--cache: created 0700 under ~/.cache/sbox-exec/KEY, writable inside; projects kept apart, as root and as nobody" {
	each_user cache_body
}

cache_body() {
	local ca cb
	fresh_home
	ca=$HOMEDIR/.cache/sbox-exec/$(key "$W/a")/tool
	cb=$HOMEDIR/.cache/sbox-exec/$(key "$W/b")/tool
	run --separate-stderr in_home --project="$W/a" --ro="$W/a" \
		--cache=tool -- /bin/sh -c 'echo a >"$1/f" && echo wrote' sh "$ca"
	assert_status 0
	assert_eq "$output" wrote
	assert_file "$ca/f" a
	assert_eq "$(stat -c %a "$HOMEDIR/.cache" "$HOMEDIR/.cache/sbox-exec" \
		"$(dirname "$ca")" "$ca" | tr '\n' ' ')" "700 700 700 700 "
	# Project b gets a cache of its own and cannot reach a's, which its
	# user can change outside the sandbox.
	usr sh -c 'echo control >>"$1/f"' sh "$ca"
	run --separate-stderr in_home --project="$W/b" --ro="$W/b" \
		--cache=tool -- /bin/sh -c \
		'{ echo b >"$1/f"; } 2>/dev/null || echo refused; echo b >"$2/f"' \
		sh "$ca" "$cb"
	assert_status 0
	assert_eq "$output" refused
	assert_file "$ca/f" "a
control"
	assert_file "$cb/f" b
}

@test "--cache: a symlink planted on the way is not followed, nothing runs, as root and as nobody" {
	each_user planted_body
}

planted_body() {
	local k c
	fresh_home
	k=$(key "$W/a")
	usr mkdir -m 0700 "$W/elsewhere-${AS:-root}"
	for c in .cache sbox-exec "$k" tool; do
		# The links below .cache/sbox-exec/$k/tool's parent at each level.
		case $c in
		.cache) usr ln -s "$W/elsewhere-${AS:-root}" "$HOMEDIR/.cache" ;;
		sbox-exec)
			usr mkdir -m 0700 "$HOMEDIR/.cache"
			usr ln -s "$W/elsewhere-${AS:-root}" "$HOMEDIR/.cache/sbox-exec" ;;
		"$k")
			usr mkdir -m 0700 "$HOMEDIR/.cache/sbox-exec"
			usr ln -s "$W/elsewhere-${AS:-root}" "$HOMEDIR/.cache/sbox-exec/$k" ;;
		tool)
			usr mkdir -m 0700 "$HOMEDIR/.cache/sbox-exec/$k"
			usr ln -s "$W/elsewhere-${AS:-root}" "$HOMEDIR/.cache/sbox-exec/$k/tool" ;;
		esac
		run --separate-stderr in_home --ro="$W/a" --cache=tool -- \
			/bin/sh -c 'echo ran'
		assert_status 125
		assert_eq "$output" ""
		assert_sbox_message "$stderr"
		assert_contains "$stderr" "is a symlink or not a directory"
		assert_eq "$(ls -A "$W/elsewhere-${AS:-root}")" ""
		usr rm "$(find "$HOMEDIR" -type l)"
	done
	# The control: without the links the cache is made and used.
	run --separate-stderr in_home --ro="$W/a" --cache=tool -- /bin/sh -c 'echo ran'
	assert_status 0
	assert_eq "$output" ran
}

@test "--cache: XDG_CACHE_HOME when absolute; --print creates nothing; bad names refused" {
	local k
	k=$(key "$W/a")
	mkdir "$W/xdg"
	cd "$W/a"
	run --separate-stderr env XDG_CACHE_HOME="$W/xdg" HOME="$W/h" \
		"$SBOX_EXEC" --ro=. --cache=x -- /bin/sh -c 'echo y >"$1/f"' sh \
		"$W/xdg/sbox-exec/$k/x"
	assert_status 0
	assert_file "$W/xdg/sbox-exec/$k/x/f" y
	assert_absent "$W/h"
	run --separate-stderr env -u XDG_CACHE_HOME HOME="$W/h2" \
		"$SBOX_EXEC" --print --ro=. --cache=x -- true
	assert_status 0
	assert_contains "$output" "$W/h2/.cache/sbox-exec/$k/x"
	assert_absent "$W/h2"
	# --check makes it as a run would, to tell whether it can.
	mkdir -m 0700 "$W/h2"
	run --separate-stderr env -u XDG_CACHE_HOME HOME="$W/h2" \
		"$SBOX_EXEC" --check --ro=. --cache=x
	assert_status 0
	[ -d "$W/h2/.cache/sbox-exec/$k/x" ]
	for bad in ../x .x a/b '' 'a b'; do
		run --separate-stderr "$SBOX_EXEC" --ro=. --cache="$bad" -- true
		assert_status 125
		assert_sbox_message "$stderr"
		assert_contains "$stderr" "is not a cache name"
		printf -- '--cache=%s\n' "$bad" >"$W/conf/bad.policy"
		run --separate-stderr "$SBOX_EXEC" --policy="$W/conf/bad.policy" -- true
		assert_status 125
		assert_contains "$stderr" "bad.policy:1:"
	done
}

@test "--project: \${PROJECT} and \${CACHE} in policy files, the command starts there, --chdir still wins; \${CWD} is unchanged" {
	local k
	k=$(key "$W/b")
	ln -s b "$W/link"
	printf '%s\n' '--ro ${PROJECT}' '--setenv P ${PROJECT}' \
		'--setenv C ${CACHE}' '--setenv W ${CWD}' >"$W/conf/p.policy"
	cd "$W/a"
	run --separate-stderr env -u XDG_CACHE_HOME HOME="$W/h" "$SBOX_EXEC" \
		--policy="$W/conf/p.policy" --project="$W/link" -- \
		/bin/sh -c 'echo "$P|$C|$W|$(pwd)"'
	assert_status 0
	assert_eq "$output" "$W/b|$W/h/.cache/sbox-exec/$k|$W/a|$W/b"
	run --separate-stderr env -u XDG_CACHE_HOME HOME="$W/h" "$SBOX_EXEC" \
		--policy="$W/conf/p.policy" --project="$W/b" --rw="$W/a" \
		--chdir="$W/a" -- /bin/sh -c 'pwd'
	assert_status 0
	assert_eq "$output" "$W/a"
	# Without --project, the project is the working directory.
	run --separate-stderr "$SBOX_EXEC" --policy="$W/conf/p.policy" -- \
		/bin/sh -c 'echo "$P"'
	assert_eq "$output" "$W/a"
}

@test "--project: a profile naming \${PROJECT} refuses the home directory and /; bad --project refused" {
	local d
	mkdir -m 0755 "$W/home"
	for d in "$W/home" /; do
		cd "$d"
		run --separate-stderr env HOME="$W/home" "$SBOX_EXEC" \
			--profile=clangd -- true
		assert_status 125
		assert_eq "$output" ""
		assert_sbox_message "$stderr"
		assert_contains "$stderr" "\${PROJECT} is"
		assert_contains "$stderr" "--project=DIR"
		# Named on the command line, the same profile is accepted.
		run --separate-stderr env HOME="$W/home" "$SBOX_EXEC" \
			--profile=clangd --project="$W/a" -- /bin/sh -c pwd
		assert_status 0
		assert_eq "$output" "$W/a"
	done
	cd "$W/a"
	touch "$W/file"
	for d in "$W/none" "$W/file"; do
		run --separate-stderr "$SBOX_EXEC" --project="$d" -- true
		assert_status 125
		assert_sbox_message "$stderr"
		assert_contains "$stderr" "--project: $d:"
	done
	echo "--project=$W/a" >"$W/conf/pr.policy"
	run --separate-stderr "$SBOX_EXEC" --policy="$W/conf/pr.policy" -- true
	assert_status 125
	assert_contains "$stderr" "belongs on the command line"
}

# A tool started in the directory above a home (say /home): a profile
# that grants ${PROJECT} or ${CWD} would grant the home with it.
_above_home() {
	local top=$W/top-${AS:-root}
	usr mkdir -m 0755 "$top"
	usr mkdir -m 0700 "$top/alice"
	usr sh -c 'echo original >"$1"' sh "$top/alice/.bashrc"

	# Control: unsandboxed, the same command changes the home's file.
	(cd "$top" && usr env HOME="$top/alice" sh -c 'echo planted >>alice/.bashrc')
	assert_file "$top/alice/.bashrc" "original
planted"
	usr sh -c 'echo original >"$1"' sh "$top/alice/.bashrc"

	cd "$top" || return 1
	for profile in agent npm; do
		run --separate-stderr usr env HOME="$top/alice" "$SBOX" \
			--profile="$profile" -- sh -c 'echo planted >>alice/.bashrc'
		assert_status 125
		assert_eq "$output" ""
		assert_sbox_message "$stderr"
		assert_contains "$stderr" "home"
		assert_file "$top/alice/.bashrc" original
	done
	cd "$W/a" || return 1
	# A policy file that grants the directory above the home, likewise;
	# typed on the command line, it is the user's own choice.
	echo "--rw $top" >"$W/conf/above.policy"
	run --separate-stderr usr env HOME="$top/alice" "$SBOX" \
		--policy="$W/conf/above.policy" -- true
	assert_status 125
	assert_contains "$stderr" "holds the home $top/alice"
	run --separate-stderr usr env HOME="$top/alice" "$SBOX" --rw "$top" -- true
	assert_status 0
}

@test "a project or a policy file's grant above the home directory is refused, as root and as nobody" {
	each_user _above_home
}

@test "\${COMMAND_NODE_MODULES}: the node_modules above the command's real path, found through PATH; unset otherwise" {
	local nm=$W/inst/node_modules
	mkdir -p "$nm/pkg" "$nm/.bin"
	printf '#!/bin/sh\necho tool ran\n' >"$nm/pkg/cli.sh"
	chmod 0755 "$nm/pkg/cli.sh"
	ln -s ../pkg/cli.sh "$nm/.bin/tool"
	printf '%s\n' '--fs=minimal' '--ro ${PROJECT}' \
		'--ro-try ${COMMAND_NODE_MODULES}' >"$W/conf/n.policy"
	cd "$W/a"
	# The control: without the grant the command is not there.
	run -127 --separate-stderr "$SBOX_EXEC" --fs=minimal --ro=. -- \
		"$nm/.bin/tool"
	refute_contains "$output" "tool ran"
	# A command with no node_modules above it: the line is skipped.
	run --separate-stderr "$SBOX_EXEC" --print \
		--policy="$W/conf/n.policy" -- /bin/true
	assert_status 0
	refute_contains "$output" node_modules
	# Found through PATH, as it will be run.
	run --separate-stderr env PATH="$nm/.bin:/usr/bin:/bin" "$SBOX_EXEC" \
		--policy="$W/conf/n.policy" -- tool
	assert_status 0
	assert_eq "$output" "tool ran"
	run --separate-stderr "$SBOX_EXEC" --print \
		--policy="$W/conf/n.policy" -- "$nm/.bin/tool"
	assert_contains "$output" "--ro-bind $nm $nm"
}

# tree_run DIR ARGS...: sbox-exec as the pass's user from DIR, with the
# fresh home; stdout in $output, stderr in $stderr.
tree_run() {
	run --separate-stderr tree_in "$@"
}

tree_in() {
	cd "$1" && shift && usr env -u XDG_CACHE_HOME -u XDG_CONFIG_HOME \
		HOME="$HOMEDIR" "$SBOX" "$@"
}

# A tool started in a subdirectory of its work tree (sbox-exec(1),
# --project): ${PROJECT} is the subdirectory, which is said, and the
# grant stays the subdirectory's.
_project_subdir() {
	local t=$W/tree-${AS:-root} w
	fresh_home
	usr mkdir -p "$t/.git" "$t/src" "$t/include"
	echo '#define X 1' | usr tee "$t/include/x.h" >/dev/null
	w="sbox-exec: warning: \${PROJECT} is $t/src, a subdirectory of the work tree $t: the profile grants only the subdirectory; --project=$t would cover the work tree"
	# Control: outside, the header is there to read from src/.
	run usr sh -c 'cd "$1/src" && cat ../include/x.h' sh "$t"
	assert_eq "$output" '#define X 1'
	# From src/: said, and the header stays out of sight.
	tree_run "$t/src" --profile clangd -- sh -c 'cat ../include/x.h 2>/dev/null || echo unseen'
	assert_status 0
	assert_eq "$output" unseen
	assert_eq "$stderr" "$w"
	# -q silences it; --check says it too.
	tree_run "$t/src" -q --profile clangd -- true
	assert_status 0
	assert_eq "$stderr" ""
	tree_run "$t/src" --check --profile clangd
	assert_status 0
	assert_eq "${stderr_lines[0]}" "$w"
	# The --project it names covers the work tree, and nothing is said.
	tree_run "$t/src" --profile clangd --project="$t" -- cat include/x.h
	assert_status 0
	assert_eq "$output" '#define X 1'
	assert_eq "$stderr" ""
	# From the work tree's root, or a policy without ${PROJECT}: nothing.
	tree_run "$t" --profile clangd -- true
	assert_eq "$stderr" ""
	printf '%s\n' '--ro ${CWD}' >"$W/conf/cwd.policy"
	tree_run "$t/src" --policy="$W/conf/cwd.policy" -- true
	assert_status 0
	assert_eq "$stderr" ""
	# A linked worktree's or a submodule's .git is a file: the same.
	usr rmdir "$t/.git"
	echo "gitdir: $W/elsewhere" | usr tee "$t/.git" >/dev/null
	tree_run "$t/src" --profile clangd -- true
	assert_eq "$stderr" "$w"
}

@test "a profile's \${PROJECT} in a subdirectory of a work tree: stderr names the --project that covers it, the grant is not widened" {
	each_user _project_subdir
}

# A home that is itself a repository (dotfiles) is no project's work
# tree: nothing is said below it.
_project_home_git() {
	fresh_home
	usr mkdir -p "$HOMEDIR/.git" "$HOMEDIR/p"
	tree_run "$HOMEDIR/p" --profile clangd -- true
	assert_status 0
	assert_eq "$stderr" ""
}

@test "a .git in the home directory is not a work tree for \${PROJECT}" {
	each_user _project_home_git
}
