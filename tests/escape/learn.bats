#!/usr/bin/env bats
# Escape catalogue: --learn.  sbox-exec(1), DENIALS: a learned policy
# never grants a place from which code runs outside the sandbox later (the
# never-learned list: shell start-up files, the directories on PATH,
# autostart, git's configuration, editors' and languages' start-up
# files, shared package caches, system directories), nor a directory
# that holds the home or the project's siblings; HOST PROTECTION: the
# policy files a launch reads and --learn's file are read-only inside.
# A hostile command tries each class under --learn; the same writes
# succeed unsandboxed (the control); the learned file grants none of
# them, and a second run with --policy on it cannot make any of them.
# As root and as an unprivileged user.  See tests/README.

# shellcheck disable=SC2016
load ../helpers

setup() {
	requires bwrap userns setpriv
	D=$(scratch_dir)
}

# The hostile command: one write into each class, each on its own.
HOSTILE='
w() { (eval "$1") 2>/dev/null && echo "wrote: $1"; }
w "echo PWNED >>\"\$HOME/.bashrc\""
w "echo PWNED >>\"\$HOME/.profile\""
w "echo PWNED >>\"\$HOME/.zshrc\""
w "echo PWNED >\"\$HOME/.inputrc\""
w "echo evil >\"\$HOME/bin/evil\""
w "echo evil >\"\$HOME/.local/bin/evil\""
w "echo evil >\"\$PATHDIR/evil\""
w "echo evil >\"\$HOME/.config/autostart/evil.desktop\""
w "echo evil >\"\$HOME/.config/systemd/user/evil.service\""
w "echo \"[core] pager = evil\" >>\"\$HOME/.gitconfig\""
w "echo evil >\"\$HOME/.config/nvim/init.lua\""
w "echo evil >\"\$HOME/.vimrc\""
w "echo evil >\"\$HOME/.local/lib/python3/site-packages/usercustomize.py\""
w "echo evil >\"\$HOME/.npmrc\""
w "echo evil >\"\$HOME/.cargo/config.toml\""
w "echo evil >\"\$HOME/.npm/_cacache/evil\""
w "echo evil >\"\$HOME/go/pkg/mod/evil\""
w "echo evil >\"\$HOME/.m2/repository/evil\""
w "echo evil >\"\$HOME/.cache/pip/evil\""
w "echo evil >\"\$HOME/newfile\""
w "echo evil >\"\$HOME/.newrc\""
w "mkdir \"\$HOME/.config/newtool\""
w "echo evil >\"\$HOME/.config/evilrc\""
w "mkdir ../build"
w "echo evil >../planted"
w "echo evil >\"\$ETCFILE\""
w "echo evil >\"\$USRFILE\""
true
'

# plant: a home $H for the pass's user with one file or directory of each
# class, the project $P directly in it, a project $O beside it, and a
# directory $PD put on PATH.
plant() {
	H=$D/home-${AS:-root}
	P=$H/proj
	O=$H/other
	PD=$D/pathdir-${AS:-root}
	rm -rf "$H" "$PD"
	usr mkdir -p "$P" "$O" "$PD" "$H/bin" "$H/.local/bin" \
		"$H/.config/autostart" "$H/.config/systemd/user" "$H/.config/nvim" \
		"$H/.local/lib/python3/site-packages" "$H/.cargo" \
		"$H/.npm/_cacache" "$H/go/pkg/mod" "$H/.m2/repository" \
		"$H/.cache/pip"
	usr touch "$H/.bashrc" "$H/.profile" "$H/.zshrc" "$H/.gitconfig" \
		"$H/.vimrc" "$H/.npmrc"
	chmod 0755 "$H"
	export HOME=$H PATHDIR=$PD
	if [ -z "${AS:-}" ]; then
		ETCFILE=/etc/sbox-learn-test.$$
		USRFILE=/usr/local/bin/sbox-learn-test.$$
		on_teardown rm -f "$ETCFILE" "$USRFILE"
	else
		ETCFILE=$H/.not-root-etc
		USRFILE=$H/.not-root-usr
	fi
	export ETCFILE USRFILE
}

# hostile ARGS...: the hostile command in sbox-exec with ARGS, as the
# pass's user, with $PD first on the caller's PATH.
hostile() {
	PATH="$PD:$PATH" sbx "$@" -- sh -c "$HOSTILE"
}

_hostile_learn() {
	local pol=$D/learned-${AS:-root}.policy before
	plant
	cd "$P" || return 1
	# The control: unsandboxed, every write lands.
	run usr env PATH="$PD:$PATH" sh -c "$HOSTILE"
	assert_status 0
	assert_eq "$(grep -c '^wrote:' <<<"$output")" 27
	rm -f "$ETCFILE" "$USRFILE"
	plant
	cd "$P" || return 1
	before=$(tree_state "$H")
	rm -f "$pol"

	run --separate-stderr hostile --learn="$pol"
	assert_status 0
	refute_contains "$output" "wrote:"
	assert_eq "$(tree_state "$H")" "$before"
	[ ! -e "$ETCFILE" ] && [ ! -e "$USRFILE" ]
	# Nothing of it is granted: the only grants are the directory the
	# command made beside the project, exactly, and private caches.
	run grep -E -- '^--' "$pol"
	local line
	while IFS= read -r line; do
		case $line in
		"--rw-create $H/build" | "--cache npm" | "--cache go-mod" | \
			"--cache maven" | "--cache pip" | "--setenv "*'${CACHE}/'*) ;;
		*)
			echo "learned: $line" >&2
			return 1
			;;
		esac
	done <<<"$output"
	grep -qx -- "--rw-create $H/build" "$pol"
	# Each refusal is in the file as a comment, with why.
	grep -q "^# write $H/.bashrc (openat): .*runs code outside the sandbox later" "$pol"
	grep -q "^# write $H/bin/evil (openat): .*on PATH" "$pol"
	grep -q "^# write $PD/evil (openat): .*on PATH" "$pol"

	# Again, with what was learned: still nothing lands; ../build is
	# made at launch (--rw-create), and writable.
	run --separate-stderr hostile --policy="$pol"
	assert_status 0
	assert_eq "$output" ""
	[ ! -e "$H/planted" ]
	run sbx --policy="$pol" -- sh -c 'echo built >../build/out'
	assert_status 0
	assert_file "$H/build/out" built
	# Nothing learned holds the project's siblings.
	run usr sh -c 'echo x >../other/f && rm ../other/f'
	assert_status 0
	run sbx --policy="$pol" -- sh -c 'echo x >../other/f'
	assert_failed "writing into a project beside this one"
	[ ! -e "$O/f" ]
	[ ! -e "$ETCFILE" ] && [ ! -e "$USRFILE" ]
	assert_eq "$(cat "$H/.bashrc" "$H/.profile" "$H/.gitconfig")" ""
}

@test "a hostile command under --learn learns no grant of a start-up file, PATH, autostart, git, editor or language hook, shared cache, system directory or the project's siblings" {
	each_user _hostile_learn
}

_edits_policy() {
	local before
	P=$D/edit-${AS:-root}
	rm -rf "$P"
	usr mkdir "$P"
	cd "$P" || return 1
	printf '%s\n' '--setenv MARK kept' | usr tee p.policy >/dev/null
	usr touch learned.policy
	# The control: unsandboxed, the user's command can append to both.
	run usr sh -c 'echo "# x" >>p.policy && echo "# x" >>learned.policy'
	assert_status 0
	printf '%s\n' '--setenv MARK kept' >p.policy
	: >learned.policy
	before=$(tree_state "$P")

	run --separate-stderr sbx --rw . --policy=p.policy \
		--learn=learned.policy --policy=learned.policy -- sh -c '
		for f in p.policy learned.policy; do
			(printf "%s\n" --net "--fs=host" "--rw $HOME" >>"$f") 2>/dev/null &&
				echo "appended $f"
			(mv "$f" "$f.old" && printf -- "--net\n" >"$f") 2>/dev/null &&
				echo "replaced $f"
			(rm -f "$f") 2>/dev/null && echo "removed $f"
		done
		echo "MARK=$MARK"'
	assert_status 0
	assert_eq "$output" "MARK=kept"
	assert_eq "$(cat p.policy)" "--setenv MARK kept"
	# What it tried is said, and nothing of it granted.
	run grep -E -- '^--' learned.policy
	assert_status 1

	# The next run reads both as they were: no network.
	run --separate-stderr sbx --policy=p.policy --policy=learned.policy \
		--status-fd=3 -- true 3>"$D/status-${AS:-root}"
	assert_status 0
	assert_eq "$(json_get "$(cat "$D/status-${AS:-root}")" net)" none
	assert_eq "$(tree_state "$P" | grep -v -e learned.policy -e '^\. ')" \
		"$(grep -v -e learned.policy -e '^\. ' <<<"$before")"
}

@test "a command cannot edit, replace or remove its --policy file or its --learn file inside --rw ." {
	each_user _edits_policy
}

@test "a learn file rewritten from outside during the run is left as it is, and the run says so" {
	local P pol
	P=$D/outside
	mkdir -p "$P/out"
	cd "$P" || return 1
	pol=$P/learned.policy
	(
		sleep 0.5
		printf '%s\n' '# the user wrote this' >"$pol"
	) &
	run --separate-stderr "$SBOX_EXEC" --learn="$pol" -- sh -c \
		'echo x >out/f 2>/dev/null; sleep 1.5'
	wait
	assert_status 0
	assert_eq "$(cat "$pol")" "# the user wrote this"
	assert_contains "$stderr" "sbox-exec: --learn: $pol was changed during the run"
}

# The second round: a home named through a link or with a trailing
# slash, what tools find by looking up above the project, a socket that
# acts outside, a PATH directory named through a link and "..", and as
# root the kernel's file systems, /var, and another user's home.
ROUND2='
w() { (eval "$1") 2>/dev/null && echo "wrote: $1"; }
w "echo evil >>\"\$HOME/.config/i3/config\""
w "mkdir \"\$HOME/.newdot\""
w "mkdir ../.git"
w "mkdir ../node_modules"
w "mkdir ../.cargo"
w "mkdir \"\$HOME/node_modules\""
w "echo evil >\"\$REALPD/evil\""
w "/usr/bin/python3 -c \"import socket,sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])\" \"\$SOCK\""
w "echo evil >\"\$SYSFILE\""
w "mkdir \"\$VARDIR\""
w "echo evil >\"\$OTHERHOME/.bashrc\""
w "mkdir \"\$OTHERHOME/bin\""
true
'

# round2 ARGS...: the second round in sbox-exec with ARGS, as the pass's
# user, with $PATHDIR2 first on the caller's PATH.
round2() {
	PATH="$PATHDIR2:$PATH" sbx "$@" -- sh -c "$ROUND2"
}

_round2() {
	local pol=$D/round2-${AS:-root}.policy real line pid
	real=$D/realhome-${AS:-root}
	rm -rf "$real" "$D/linkhome-${AS:-root}" "$D/pd-${AS:-root}"
	usr mkdir -p "$real/src/proj" "$real/.config/i3" "$D/pd-${AS:-root}/deep/bin"
	usr touch "$real/.config/i3/config"
	ln -s "$real" "$D/linkhome-${AS:-root}"
	usr ln -s deep/x "$D/pd-${AS:-root}/lnk"
	usr mkdir -p "$D/pd-${AS:-root}/deep/x"
	export REALPD=$D/pd-${AS:-root}/deep/bin
	PATHDIR2=$D/pd-${AS:-root}/lnk/../bin/
	export SOCK=$D/rt-${AS:-root}/bus XDG_RUNTIME_DIR=$D/rt-${AS:-root}
	rm -rf "$XDG_RUNTIME_DIR"
	usr mkdir "$XDG_RUNTIME_DIR"
	chmod 0700 "$XDG_RUNTIME_DIR"
	bg usr_exec /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
while True: s.accept()[0].close()' "$SOCK"
	wait_for 10 test -S "$SOCK"
	if [ -z "${AS:-}" ]; then
		export SYSFILE=/sys/kernel/sbox-learn-test VARDIR=/var/cache/sbox-learn-test.$$
		OTHERHOME=$D/otheruser
		mkdir "$OTHERHOME"
		local other=sbxlrn$$
		useradd --no-create-home --home-dir "$OTHERHOME" --shell /usr/sbin/nologin "$other"
		on_teardown userdel "$other"
		on_teardown rm -rf "$VARDIR"
		export OTHERHOME
	else
		export SYSFILE=$real/.not-root-sys VARDIR=$real/.not-root-var \
			OTHERHOME=$real/.not-root-other
		usr mkdir -p "$OTHERHOME"
	fi
	for home in "$D/linkhome-${AS:-root}" "$real/"; do
		export HOME=$home
		cd "$real/src/proj" || return 1
		rm -f "$pol"
		run --separate-stderr round2 --learn="$pol"
		assert_status 0
		refute_contains "$output" "wrote:"
		run grep -E -- '^--' "$pol"
		while IFS= read -r line; do
			[ -z "$line" ] && continue
			echo "learned ($home): $line" >&2
			return 1
		done <<<"$output"
		# Nor does the summary offer any of it.
		refute_contains "$stderr" "to allow what an option can"
	done
	# The control: unsandboxed, these writes land (and are undone).
	run usr env HOME="$real" sh -c "$ROUND2"
	assert_contains "$output" "wrote: mkdir ../.git"
	assert_contains "$output" "wrote: mkdir \"\$HOME/.newdot\""
	assert_contains "$output" "wrote: echo evil >\"\$REALPD/evil\""
	assert_contains "$output" "wrote: /usr/bin/python3"
	assert_contains "$output" "wrote: echo evil >\"\$OTHERHOME/.bashrc\""
	[ -z "${AS:-}" ] || assert_contains "$output" "wrote: mkdir \"\$VARDIR\""
}

@test "round two: a home through a link, .git and node_modules above the project, a socket, PATH through a link, /sys and /var as root, another user's home: nothing learned" {
	each_user _round2
}

_linked_policy() {
	P=$D/linked-${AS:-root}
	rm -rf "$P"
	usr mkdir "$P"
	cd "$P" || return 1
	printf '%s\n' '--setenv MARK kept' | usr tee p.policy >/dev/null
	usr ln p.policy .other-name
	usr touch learned.policy
	usr ln learned.policy .learned-other
	run --separate-stderr sbx --rw . --policy=p.policy -- true
	assert_status 125
	assert_contains "$stderr" "p.policy has other hard links"
	run --separate-stderr sbx --rw . --learn=learned.policy -- true
	assert_status 125
	assert_contains "$stderr" "learned.policy has other hard links"
	# The control: through the other name, the file changes.
	run usr sh -c 'echo "--net" >>.other-name'
	assert_status 0
	assert_contains "$(cat p.policy)" "--net"
}

@test "a --policy or --learn file with another hard link, which a sandbox could write through, is refused" {
	each_user _linked_policy
}

# The third round: the project is the home itself (every directory on
# PATH still counts), a policy file reached through a link the command
# could replace, and as root a project in /srv, where learning still
# works inside the project and nowhere beside it.
# in_home_path ARGS...: sbox-exec with ARGS, as the pass's user, with
# $PATHDIR3 first on the caller's PATH.
in_home_path() {
	PATH="$PATHDIR3:$PATH" sbx "$@"
}

_round3() {
	local pol=$D/round3-${AS:-root}.policy H line
	H=$D/home3-${AS:-root}
	rm -rf "$H"
	usr mkdir -p "$H/tools/bin" "$H/real"
	export HOME=$H
	cd "$H" || return 1
	# The control: unsandboxed, the write lands.
	run usr sh -c 'echo evil >"$1/tools/bin/evil" && rm "$1/tools/bin/evil"' sh "$H"
	assert_status 0
	rm -f "$pol"
	PATHDIR3=$H/tools/bin
	run --separate-stderr in_home_path --learn="$pol" -- \
		sh -c 'echo evil >"$HOME/tools/bin/evil"'
	assert_failed "a write into a PATH directory of the home"
	assert_contains "$stderr" "on PATH"
	run grep -E -- '^--' "$pol"
	assert_status 1
	# A policy file reached through a link in a writable grant.
	printf '%s\n' '--setenv MARK kept' | usr tee "$H/real/p.policy" >/dev/null
	usr ln -s real "$H/link"
	run --separate-stderr sbx --rw "$H" --policy="$H/link/p.policy" -- true
	assert_status 125
	assert_contains "$stderr" "$H/link is a symbolic link the command could replace"
	# By its real path, it is read, and read-only.
	run --separate-stderr sbx --rw "$H" --policy="$H/real/p.policy" -- \
		sh -c 'echo "--net" >>"$1" 2>/dev/null; echo "MARK=$MARK"' sh "$H/real/p.policy"
	assert_status 0
	assert_eq "$output" "MARK=kept"
	assert_file "$H/real/p.policy" "--setenv MARK kept"
}

@test "round three: the project is the home (PATH still counts); a policy file reached through a replaceable link is refused" {
	each_user _round3
}

@test "as root, a project in /srv learns a directory inside it, and nothing beside it" {
	requires root
	local P=/srv/sbox-learn-test.$$ pol=$D/srv.policy
	mkdir -p "$P/proj"
	on_teardown rm -rf "$P"
	cd "$P/proj" || return 1
	# The control: unsandboxed, both writes land.
	mkdir "$P/proj/obj" "$P/beside" && rmdir "$P/proj/obj" "$P/beside"
	run --separate-stderr "$SBOX_EXEC" --learn="$pol" -- sh -c 'mkdir obj; mkdir ../beside'
	assert_failed "mkdir in a read-only project"
	grep -qx -- "--rw-create $P/proj/obj" "$pol"
	run grep -x -- "--rw-create $P/beside" "$pol"
	assert_status 1
	run "$SBOX_EXEC" --policy="$pol" -- sh -c 'echo ok >obj/f'
	assert_status 0
	assert_file "$P/proj/obj/f" ok
}
