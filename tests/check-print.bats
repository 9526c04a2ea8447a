#!/usr/bin/env bats
# sbox-exec(1) OPTIONS, Launcher: --check (can this policy be enforced here?) and
# --print (the bwrap command line, nothing run).

load helpers

setup() {
	requires bwrap jq python3
	D=$(scratch_dir)
	unset SBOX_EXEC_BWRAP
	BWRAP=$(command -v bwrap)
	# What the command does if it ever runs: leave a file on the host.
	MARK=(sh -c 'echo ran >"$1"' sh "$D/marker")
}

# words LINE: the shell words of LINE into the array WORDS.
words() {
	eval "WORDS=($1)"
}

# pasted LINE: LINE (printed by --print) as a user pastes it into sh:
# with no descriptor open above 2, none prepared for it.
pasted() {
	local close="" fd
	for fd in 3 4 5 6 7 8 9; do
		close+=" $fd>&-"
	done
	printf 'exec%s; %s\n' "$close" "$1"
}

# no_descriptors: WORDS names no descriptor (bwrap's options that read
# one), so that the line needs nothing open to run.
no_descriptors() {
	local w
	for w in "${WORDS[@]}"; do
		case $w in
		--seccomp | --add-seccomp-fd | --ro-bind-data | --bind-data | \
		--file | --bind-fd | --ro-bind-fd | --info-fd | \
		--json-status-fd | --sync-fd | --block-fd | --userns-block-fd | \
		--userns | --userns2 | --pidns)
			printf 'the printed line names a descriptor: %s\n' "$w" >&2
			return 1 ;;
		esac
	done
}

# has_seq WORD...: the words appear consecutively in WORDS.
has_seq() {
	local i j n=$#
	local want=("$@")
	for (( i = 0; i + n <= ${#WORDS[@]}; i++ )); do
		for (( j = 0; j < n; j++ )); do
			[ "${WORDS[i + j]}" = "${want[j]}" ] || continue 2
		done
		return 0
	done
	printf 'no %q in the printed line\n' "$*" >&2
	return 1
}

@test "--check: exit 0, nothing on stdout" {
	body() {
		run --separate-stderr $AS "$SBOX" --check
		assert_status 0
		assert_eq "$output" ""
	}
	each_user body
}

@test "--check --json: one success status line on stdout, exit 0" {
	body() {
		run --separate-stderr $AS "$SBOX" --check --json
		assert_status 0
		printf '%s\n' "$output" >"$D/out"
		assert_status_line "$D/out"
		assert_eq "$(jq -r .status "$D/out")" success
		assert_eq "$(jq -r .bwrap "$D/out")" "$BWRAP"
	}
	each_user body
}

@test "--check --json with a policy it cannot take: invalid-policy on stdout, 125" {
	run --separate-stderr "$SBOX_EXEC" --check --json --rw /nonexistent/sbox
	assert_status 125
	printf '%s\n' "$output" >"$D/out"
	assert_status_line "$D/out"
	assert_eq "$(jq -r .status "$D/out")" invalid-policy
	assert_contains "$(jq -r .detail "$D/out")" /nonexistent/sbox
}

@test "--check --json with no bwrap: bwrap-not-found on stdout, 125" {
	run --separate-stderr "$SBOX_EXEC" --check --json --bwrap=/nonexistent/bwrap
	assert_status 125
	printf '%s\n' "$output" >"$D/out"
	assert_status_line "$D/out"
	assert_eq "$(jq -r .status "$D/out")" bwrap-not-found
}

@test "--check --status-fd: success on the fd, nothing on stdout" {
	run --separate-stderr "$SBOX_EXEC" --check --status-fd=3 3>"$D/status"
	assert_status 0
	assert_eq "$output" ""
	assert_status_line "$D/status"
	assert_eq "$(jq -r .status "$D/status")" success
}

@test "--check with a policy naming paths: 0 when they exist, 125 when not" {
	run --separate-stderr "$SBOX_EXEC" --check --rw "$D" --ro /usr --fs=minimal \
		--chdir="$D"
	assert_status 0
	assert_eq "$output" ""
	run --separate-stderr "$SBOX_EXEC" --check --rw "$D/missing"
	assert_status 125
	assert_eq "$output" ""
	assert_contains "$stderr" "sbox-exec: "
}

@test "--check with no usable bwrap: 125" {
	run --separate-stderr "$SBOX_EXEC" --check --bwrap=/nonexistent/bwrap
	assert_status 125
	assert_eq "$output" ""
	assert_contains "$stderr" "sbox-exec: "
}

@test "--print: the bwrap line, sandboxing flags, the command last; nothing runs" {
	run --separate-stderr "$SBOX_EXEC" --print --rw "$D" -- "${MARK[@]}"
	assert_status 0
	[ ! -e "$D/marker" ] || { echo "--print ran the command" >&2; return 1; }
	case $output in
	"$BWRAP "*) ;;
	*) echo "does not start with $BWRAP: $output" >&2; return 1 ;;
	esac
	words "$output"
	assert_eq "${WORDS[0]}" "$BWRAP"
	has_seq --unshare-user
	has_seq --cap-drop ALL
	has_seq --unshare-net
	# The user's command, word for word, at the very end.
	has_seq -- "${MARK[@]}"
	local n=${#MARK[@]} i
	for (( i = 0; i < n; i++ )); do
		assert_eq "${WORDS[${#WORDS[@]} - n + i]}" "${MARK[i]}"
	done
}

@test "--print: every namespace the manual page promises, and a new session" {
	run --separate-stderr "$SBOX_EXEC" --print -- true
	assert_status 0
	words "$output"
	has_seq --unshare-user
	has_seq --unshare-pid
	has_seq --unshare-ipc
	has_seq --unshare-uts
	has_seq --unshare-net
	has_seq --new-session
}

@test "--print: nested user namespaces disabled where bwrap supports that" {
	"$BWRAP" --help 2>&1 | grep -q -e --disable-userns ||
		skip "this bwrap has no --disable-userns"
	run --separate-stderr "$SBOX_EXEC" --print -- true
	assert_status 0
	words "$output"
	has_seq --disable-userns
}

@test "--print: names no descriptor; hidden files from /dev/null; stderr says what is lost" {
	touch "$D/a" "$D/b"
	run --separate-stderr "$SBOX_EXEC" --print --hide "$D/a" --hide "$D/b" -- true
	assert_status 0
	words "$output"
	no_descriptors
	has_seq --dev-bind /dev/null "$D/a"
	has_seq --dev-bind /dev/null "$D/b"
	# What a launch has and the line cannot carry, said on stderr.
	assert_contains "$stderr" "sbox-exec: --print: "
	assert_contains "$stderr" "no seccomp filter"
	assert_contains "$stderr" "no second stage (no Landlock, no limits"
	assert_contains "$stderr" "no check of the sandbox from outside"
	refute_contains "$stderr" "--allow-host"
	# A launch reads them from descriptors, as -v shows.
	run --separate-stderr "$SBOX_EXEC" -v --hide "$D/a" -- true
	assert_status 0
	assert_contains "$stderr" "--seccomp "
	assert_contains "$stderr" "--ro-bind-data "
	# --allow-host: no proxy behind the line; -q: nothing on stderr.
	run --separate-stderr "$SBOX_EXEC" --print --allow-host=example.org -- true
	assert_status 0
	assert_contains "$stderr" "no proxy: --allow-host reaches nothing"
	run --separate-stderr "$SBOX_EXEC" -q --print -- true
	assert_status 0
	assert_eq "$stderr" ""
}

@test "--print --net: no --unshare-net" {
	run --separate-stderr "$SBOX_EXEC" --print --net -- true
	assert_status 0
	words "$output"
	has_seq --unshare-user
	has_seq --cap-drop ALL
	local w
	for w in "${WORDS[@]}"; do
		[ "$w" != --unshare-net ] || { echo "--unshare-net with --net" >&2; return 1; }
	done
}

@test "--print as the unprivileged user: the same, nothing runs" {
	body() {
		run --separate-stderr $AS "$SBOX" --print --rw "$D" -- "${MARK[@]}"
		assert_status 0
		[ ! -e "$D/marker" ]
		words "$output"
		assert_eq "${WORDS[0]}" "$BWRAP"
		has_seq --unshare-user
	}
	each_user body
}

@test "--print emits no status on --status-fd" {
	run --separate-stderr "$SBOX_EXEC" --print --status-fd=3 -- "${MARK[@]}" \
		3>"$D/status"
	assert_status 0
	[ ! -s "$D/status" ] || { echo "status: $(cat "$D/status")" >&2; return 1; }
	[ ! -e "$D/marker" ]
}

@test "--print with no usable bwrap: refused, 125, nothing printed" {
	run --separate-stderr "$SBOX_EXEC" --print --bwrap=/nonexistent/bwrap \
		-- "${MARK[@]}"
	assert_status 125
	assert_eq "$output" ""
	assert_contains "$stderr" "sbox-exec: "
	assert_contains "$stderr" /nonexistent/bwrap
	run --separate-stderr env SBOX_EXEC_BWRAP=/nonexistent/bwrap \
		"$SBOX_EXEC" --print -- "${MARK[@]}"
	assert_status 125
	assert_eq "$output" ""
	mkdir "$D/empty"
	run --separate-stderr env PATH="$D/empty" "$SBOX_EXEC" --print \
		-- "${MARK[@]}"
	# Unless a bundled bwrap exists for this build, nothing is usable.
	if [ "$status" != 0 ]; then
		assert_status 125
		assert_eq "$output" ""
	fi
	[ ! -e "$D/marker" ]
}

@test "--print with a setuid bwrap: refused, 125" {
	requires root
	mkdir "$D/suid"
	cp "$(readlink -f "$BWRAP")" "$D/suid/bwrap"
	chmod 4755 "$D/suid/bwrap"
	run --separate-stderr "$SBOX_EXEC" --print --bwrap="$D/suid/bwrap" \
		-- "${MARK[@]}"
	assert_status 125
	assert_eq "$output" ""
	assert_contains "$stderr" "sbox-exec: "
}

@test "the printed line, run by a shell, runs the command sandboxed" {
	body() {
		local out=$D/out-${AS:-root} line hostns cmd
		mkdir -p "$out" "$D/other"
		chmod 0777 "$out" "$D/other"
		rm -f /tmp/sbox-print-test
		run --separate-stderr $AS "$SBOX" --print --rw "$out" -- sh -c '
			echo ran >"$1/marker"
			touch "$2/escaped" 2>/dev/null && echo escaped-write
			echo private >/tmp/sbox-print-test
			readlink /proc/self/ns/user
			tail -n +3 /proc/net/dev | grep -vc "^ *lo:" || true
		' sh "$out" "$D/other"
		assert_status 0
		[ ! -e "$out/marker" ]
		line=$output
		hostns=$(readlink /proc/self/ns/user)
		words "$line"
		no_descriptors
		cmd=$(pasted "$line")
		run --separate-stderr $AS timeout 30 sh -c "$cmd"
		assert_status 0
		assert_eq "$(cat "$out/marker")" ran
		[ ! -e "$D/other/escaped" ]
		[ ! -e /tmp/sbox-print-test ]
		# Its own user namespace, and no network but loopback.
		[ -n "${lines[0]}" ] && [ "${lines[0]}" != "$hostns" ]
		assert_eq "${lines[1]}" 0
	}
	each_user body
}

@test "the printed line, pasted: a hidden credential reads empty, grants hold" {
	body() {
		local out=$D/paste-${AS:-root} line
		mkdir -p "$out" "$D/other-${AS:-root}"
		chmod 0777 "$out" "$D/other-${AS:-root}"
		printf 'machine example.org password hunter2\n' >"$out/.netrc"
		chmod 0666 "$out/.netrc"
		# The control: unsandboxed, the same user reads it and writes
		# outside the grant.
		run $AS sh -c 'cat "$1/.netrc" && : >"$2/control"' sh "$out" \
			"$D/other-${AS:-root}"
		assert_status 0
		assert_contains "$output" hunter2
		assert_file "$D/other-${AS:-root}/control" ""
		run --separate-stderr $AS "$SBOX" --print --rw "$out" \
			--hide "$out/.netrc" -- sh -c '
			printf "[%s]\n" "$(cat "$1/.netrc")"
			echo inside >"$1/landed"
			touch "$2/escaped" 2>/dev/null && echo escaped-write
			echo done
		' sh "$out" "$D/other-${AS:-root}"
		assert_status 0
		line=$output
		words "$line"
		no_descriptors
		run --separate-stderr $AS timeout 30 sh -c "$(pasted "$line")"
		assert_status 0
		assert_eq "$output" "$(printf '[]\ndone')"
		assert_file "$out/landed" inside
		assert_absent "$D/other-${AS:-root}/escaped"
		# The credential on the host is as it was.
		assert_contains "$(cat "$out/.netrc")" hunter2
	}
	each_user body
}

@test "the printed line quotes odd paths so that a shell gets them back" {
	local dir=$D/$'odd \n\xff\' "$(x)`y`' cmd
	mkdir -- "$dir"
	run --separate-stderr "$SBOX_EXEC" --print --rw "$dir" \
		-- sh -c 'echo ok >"$1/file"' sh "$dir"
	assert_status 0
	words "$output"
	has_seq -- sh -c 'echo ok >"$1/file"' sh "$dir"
	cmd=$(pasted "$output")
	run --separate-stderr timeout 30 sh -c "$cmd"
	assert_status 0
	assert_eq "$(cat -- "$dir/file")" ok
}

@test "--print shows host protection: ~/.ssh and the runtime directory hidden" {
	mkdir -p "$D/home/.ssh" "$D/home/.gnupg" "$D/run"
	run --separate-stderr env HOME="$D/home" XDG_RUNTIME_DIR="$D/run" \
		"$SBOX_EXEC" --print -- true
	assert_status 0
	assert_contains "$output" "$D/home/.ssh"
	assert_contains "$output" "$D/home/.gnupg"
	assert_contains "$output" "$D/run"
}

@test "--print shows .git read-only in a --rw repository" {
	mkdir -p "$D/repo/.git/hooks"
	: >"$D/repo/.git/config"
	run --separate-stderr "$SBOX_EXEC" --print --rw "$D/repo" -- true
	assert_status 0
	assert_contains "$output" "--ro-bind $D/repo/.git $D/repo/.git "
}

@test "--print shows .git/hooks and .git/config protected when --rw names .git" {
	mkdir -p "$D/repo/.git/hooks"
	: >"$D/repo/.git/config"
	run --separate-stderr "$SBOX_EXEC" --print --rw "$D/repo" --rw "$D/repo/.git" -- true
	assert_status 0
	assert_contains "$output" "$D/repo/.git/hooks"
	assert_contains "$output" "$D/repo/.git/config"
}

@test "-v: the bwrap command line on stderr, stdout the command's alone" {
	run --separate-stderr "$SBOX_EXEC" -v -- echo hello
	assert_status 0
	assert_eq "$output" hello
	assert_contains "$stderr" "--unshare-user"
	assert_contains "$stderr" "$BWRAP"
}
