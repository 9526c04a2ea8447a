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

# with_fds LINE: LINE (printed by --print) preceded by what opens the
# descriptors it reads: /dev/null for each hidden file, and the seccomp
# filter's program (tests/payloads/seccomp-program, in $D/filter) for
# --seccomp, which it must name.
with_fds() {
	local i redir=""
	words "$1"
	"$(payload seccomp-program)" >"$D/filter"
	for (( i = 0; i + 1 < ${#WORDS[@]}; i++ )); do
		case ${WORDS[i]} in
		--ro-bind-data) redir+=" ${WORDS[i + 1]}</dev/null" ;;
		--seccomp) redir+=" ${WORDS[i + 1]}<$D/filter" ;;
		esac
	done
	case $redir in
	*"<$D/filter"*) ;;
	*) echo "no --seccomp in the printed line" >&2; return 1 ;;
	esac
	printf 'exec%s; %s\n' "$redir" "$1"
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

@test "--print: the seccomp filter read from the descriptor after the hidden files" {
	local n
	# Host protection may hide files already (as root, /etc/shadow):
	# they take descriptors 3 and up, the filter the next one.
	run --separate-stderr "$SBOX_EXEC" --print -- true
	assert_status 0
	words "$output"
	n=$(grep -o -- '--ro-bind-data [0-9]*' <<<"$output" | wc -l)
	has_seq --seccomp $((3 + n))
	# Two hidden files more take the next two descriptors.
	touch "$D/a" "$D/b"
	run --separate-stderr "$SBOX_EXEC" --print --hide "$D/a" --hide "$D/b" -- true
	assert_status 0
	words "$output"
	has_seq --ro-bind-data $((3 + n))
	has_seq --ro-bind-data $((4 + n))
	has_seq --seccomp $((5 + n))
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
		cmd=$(with_fds "$line")
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

@test "the printed line quotes odd paths so that a shell gets them back" {
	local dir=$D/$'odd \n\xff\' "$(x)`y`' cmd
	mkdir -- "$dir"
	run --separate-stderr "$SBOX_EXEC" --print --rw "$dir" \
		-- sh -c 'echo ok >"$1/file"' sh "$dir"
	assert_status 0
	words "$output"
	has_seq -- sh -c 'echo ok >"$1/file"' sh "$dir"
	cmd=$(with_fds "$output")
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
