#!/usr/bin/env bats
# What the sandbox refused, said on stderr with the option that would
# allow it, summed up at the end, and learned into a policy file
# (sbox-exec(1), DENIALS).  Every refusal is first shown to work without
# the sandbox (the control); inside, the command's own words and exit
# status stay what they were, and its stdout carries nothing of ours.
# As root and as an unprivileged user (each_user).

# shellcheck disable=SC2016
load helpers

setup() {
	requires bwrap userns setpriv
	D=$(scratch_dir)
}

# tree: a project $P and a directory $B beside it, the pass's user's; a
# home $H of that user's, exported as HOME.
tree() {
	P=$D/proj-${AS:-root}
	B=$D/build-${AS:-root}
	H=$D/home-${AS:-root}
	rm -rf "$P" "$B" "$H"
	usr mkdir "$P" "$B" "$H"
	export HOME=$H
}

_outside() {
	tree
	# The control: unsandboxed, the write lands.
	usr sh -c 'echo x >"$1/out"' sh "$B"
	assert_file "$B/out" x
	rm -f "$B/out"

	run --separate-stderr sbx --watch --rw "$P" -- sh -c \
		'echo before; echo x >"$1/out"; echo "status $?"' sh "$B"
	assert_status 0
	assert_eq "$output" "before"$'\n'"status 2"
	assert_contains "$stderr" \
		"sbox-exec: refused: write to $B/out (openat); to allow: --rw=$B"
	# The command's own words, unchanged.
	assert_contains "$stderr" "Read-only file system"
	assert_contains "$stderr" "sbox-exec: 1 refused (1 distinct): write $B/out; to allow what an option can: "
	assert_absent "$B/out"
	# -q: the same refusal, nothing of ours on stderr.
	run --separate-stderr sbx -q --watch --rw "$P" -- sh -c 'echo x >"$1/out"' sh "$B"
	assert_failed "writing beside the project"
	refute_contains "$stderr" "sbox-exec:"
}

@test "a write outside the grants: the path and the grant on stderr, the command's error and stdout unchanged, -q silent" {
	each_user _outside
}

# The summary is a command line that runs when pasted: sbox-exec as it
# was called, each grant once (a directory's, not also one below it),
# the options given but those that only run the launcher (--watch,
# --learn, --status-fd, --log-fd), and the command whole, quoted for the
# shell (sbox-exec(1), DENIALS).
# shell_word WORD: WORD as the summary quotes it: as it is when made of
# letters, digits and -_./=:@,+%, else in single quotes (a checkout's
# path may hold a blank).
shell_word() {
	case $1 in
	*[!A-Za-z0-9_./=:@,+%-]*) printf "'%s'" "${1//\'/\'\\\'\'}" ;;
	*) printf '%s' "$1" ;;
	esac
}

_summary_pastes() {
	local line pol script
	tree
	pol=$D/summary-${AS:-root}.policy
	rm -f "$pol"
	usr mkdir "$B/sub"
	script='echo x >"$1/sub/f"; echo "it'"'"'s" >"$1/f"; [ "$MARK" = "a b" ] && cat "$1/sub/f" "$1/f"'
	# The control: unsandboxed, both writes land.
	run usr env MARK="a b" sh -c "$script" sh "$B"
	assert_status 0
	assert_eq "$output" "x"$'\n'"it's"
	rm -f "$B/sub/f" "$B/f"

	run --separate-stderr sbx --watch --learn="$pol" --status-fd 2 \
		--log-fd=3 --setenv MARK "a b" --rw "$P" -- sh -c "$script" sh "$B" 3>/dev/null
	assert_failed "writing beside the project"
	assert_absent "$B/f"
	line=$(printf '%s\n' "$stderr" |
		sed -n 's/^sbox-exec: 2 refused (2 distinct): .*; to allow what an option can: //p')
	assert_eq "$line" "$(shell_word "$SBOX") --rw=$B --setenv MARK 'a b' --rw $P -- sh -c '${script//\'/\'\\\'\'}' sh $B"
	# Pasted, it runs, as the same user, and the refused writes land.
	run --separate-stderr usr sh -c "$line"
	assert_status 0
	assert_eq "$output" "x"$'\n'"it's"
	assert_file "$B/f" "it's"
	refute_contains "$stderr" "sbox-exec:"
}

@test "the summary pastes: quoted, the command whole, each grant once, no launcher-only option; pasted, the refused writes land" {
	each_user _summary_pastes
}

# A write into a repository's .git, which host protection keeps
# read-only: named with --rw of that .git, which works when added and is
# learned; its hooks and configuration stay read-only all the same
# (sbox-exec(1), DENIALS, HOST PROTECTION).
_git_dir() {
	local pol commit
	tree
	requires git
	pol=$D/git-${AS:-root}.policy
	rm -f "$pol"
	commit=(git -c user.name=t -c user.email=t@t -C "$P" commit -q --allow-empty -m t)
	usr git init -q "$P"
	# The control: unsandboxed, the commit is made.
	run usr "${commit[@]}"
	assert_status 0
	assert_eq "$(usr git -C "$P" rev-list --count HEAD)" 1
	run --separate-stderr sbx --rw "$P" --learn="$pol" -- "${commit[@]}"
	assert_failed "git commit with .git read-only"
	assert_contains "$stderr" "sbox-exec: refused: write to $P/.git/"
	assert_contains "$stderr" "; to allow: --rw=$P/.git (a repository's git directory, which host protection keeps read-only; named, it is writable but for its hooks and configuration (HOST PROTECTION in sbox-exec(1)))"
	assert_eq "$(grep -- '^--' "$pol")" "--rw $P/.git"
	assert_eq "$(usr git -C "$P" rev-list --count HEAD)" 1
	# The option said, added alone: the commit is made.
	run sbx --rw "$P" --rw="$P/.git" -- "${commit[@]}"
	assert_status 0
	assert_eq "$(usr git -C "$P" rev-list --count HEAD)" 2
	# So with the learned file, and the hooks and configuration stay
	# read-only with it.
	run --separate-stderr sbx --rw "$P" --policy="$pol" -- sh -c \
		'p=$1; shift; "$@" && { echo x >>"$p/.git/config"; echo "config $?"; }
		 echo x >"$p/.git/hooks/pre-commit"; echo "hook $?"' \
		sh "$P" "${commit[@]}"
	assert_eq "$output" "config 2"$'\n'"hook 2"
	assert_eq "$(usr git -C "$P" rev-list --count HEAD)" 3
}

@test "a write into .git names --rw of that .git, which works when added and is learned; its hooks and configuration stay read-only" {
	each_user _git_dir
}

# A tool's cache below ~/.cache: --cache=NAME with the variable that
# points the tool there, the directory spelled out, so that the options
# printed, pasted alone, let the write through; a policy file gets
# ${CACHE} (sbox-exec(1), DENIALS).
_tool_cache() {
	local opts script pol
	tree
	pol=$D/cache-${AS:-root}.policy
	rm -f "$pol"
	usr mkdir "$H/.cache"
	script='d=${XDG_CACHE_HOME:-$HOME/.cache}/sboxtool; mkdir -p "$d" && echo x >"$d/f" && cat "$d/f"'
	# The control: unsandboxed, the cache is written.
	run usr sh -c "$script"
	assert_eq "$output" x
	rm -rf "$H/.cache/sboxtool"
	run --separate-stderr sbx --learn="$pol" -- sh -c "$script"
	assert_failed "writing ~/.cache/sboxtool"
	assert_absent "$H/.cache/sboxtool"
	opts=$(printf '%s\n' "$stderr" |
		sed -n "s|^sbox-exec: refused: write to $H/.cache/sboxtool (mkdir); to allow: \(.*\) (a private cache, which the tool finds through XDG_CACHE_HOME; a policy file says --setenv XDG_CACHE_HOME \${CACHE}/sboxtool)\$|\1|p")
	assert_contains "$opts" "--cache=sboxtool --setenv XDG_CACHE_HOME $H/.cache/sbox-exec/"
	grep -qx -- '--cache sboxtool' "$pol"
	grep -qx -- '--setenv XDG_CACHE_HOME ${CACHE}/sboxtool' "$pol"
	# The options printed, alone: the write goes through.
	eval "set -- $opts"
	run --separate-stderr sbx "$@" -- sh -c "$script"
	assert_status 0
	assert_eq "$output" x
	refute_contains "$stderr" "sbox-exec:"
	# With --cache given and not the variable: only the variable is
	# offered again.
	run --separate-stderr sbx --watch --cache=sboxtool -- sh -c \
		'echo x >"$HOME/.cache/sboxtool"'
	assert_contains "$stderr" "to allow what an option can: $(shell_word "$SBOX") --setenv XDG_CACHE_HOME $H/.cache/sbox-exec/"
	refute_contains "$stderr" "can: $(shell_word "$SBOX") --cache"
}

@test "a write below ~/.cache/NAME names --cache=NAME and its variable; the options printed, alone, let it through" {
	each_user _tool_cache
}

# A write through a descriptor's link in /proc (the kernel follows it to
# the file the descriptor is open on) is named by that file, read from
# the writer's /proc/PID/fd/N while the call waits.
_through_fd() {
	local w
	tree
	usr sh -c 'echo before >"$1/f"' sh "$B"
	# The control: unsandboxed, the file opened for reading is written
	# through its descriptor's link.
	usr sh -c 'exec 3<"$1/f"; echo x >/proc/self/fd/3' sh "$B"
	assert_file "$B/f" x
	usr sh -c 'echo before >"$1/f"' sh "$B"
	for w in /proc/self/fd/3 /proc/thread-self/fd/3 /dev/fd/3; do
		run --separate-stderr sbx --watch --rw "$P" -- sh -c \
			'exec 3<"$1/f"; echo x >"$2"; echo "status $?"' \
			sh "$B" "$w"
		assert_status 0
		assert_eq "$output" "status 2"
		assert_contains "$stderr" \
			"sbox-exec: refused: write to $B/f (openat); to allow: --rw=$B"
		assert_contains "$stderr" "Read-only file system"
		assert_file "$B/f" before
	done
	# A directory's descriptor, and a file below it.
	run --separate-stderr sbx --watch --rw "$P" -- sh -c \
		'exec 3<"$1"; echo x >/proc/self/fd/3/new; echo "status $?"' \
		sh "$B"
	assert_eq "$output" "status 2"
	assert_contains "$stderr" \
		"sbox-exec: refused: write to $B/new (openat); to allow: --rw=$B"
	assert_absent "$B/new"
}

@test "a write through /proc/self/fd/N (or /dev/fd/N) names the file the descriptor is open on" {
	each_user _through_fd
}

_home_file() {
	tree
	usr touch "$H/x" && rm -f "$H/x"
	run --separate-stderr sbx --watch -- touch "$H/x"
	assert_failed "touch ~/x"
	assert_contains "$stderr" "sbox-exec: refused: write to $H/x ("
	# A grant of the home is never suggested, and a new file cannot be
	# granted alone (sbox-exec(1), DENIALS).
	assert_contains "$stderr" "; a grant of $H would be too wide (it holds the home directory), and a new file cannot be granted alone: no option is suggested"
	refute_contains "$stderr" "to allow:"
	assert_absent "$H/x"
}

@test "touch ~/x names the path, and why no grant is suggested" {
	each_user _home_file
}

@test "as root, sh -c 'echo > /etc/x' names /etc/x, a system directory, with no grant" {
	requires root
	local f=/etc/sbox-denials-$$
	# The control: root writes /etc outside.
	echo >"$f" && rm -f "$f"
	run --separate-stderr "$SBOX_EXEC" --watch -- sh -c "echo > $f"
	assert_failed "writing $f"
	assert_contains "$stderr" "sbox-exec: refused: write to $f (openat); /etc is a system directory, which runs code outside the sandbox later: no option is suggested"
	refute_contains "$stderr" "to allow:"
	assert_absent "$f"
}

# A project whose make writes into a build directory beside it: refused,
# learned, then allowed by the learned policy (sbox-exec(1), DENIALS).
_learn() {
	local pol
	tree
	pol=$D/learned-${AS:-root}.policy
	rm -f "$pol"
	usr sh -c 'printf "all:\n\tmkdir -p %s/obj\n\techo built >%s/obj/out\n" \
		"$1" "$1" >"$2/Makefile"' sh "$B" "$P"
	chmod 0777 "$D"
	# The control: outside, make builds.
	run usr make -s -C "$P"
	assert_status 0
	assert_file "$B/obj/out" built
	rm -rf "$B/obj"

	run --separate-stderr sbx --rw "$P" --learn="$pol" -- make -s -C "$P"
	assert_failed "make writing beside the project"
	# The narrowest grant: the directory make creates, made at launch.
	assert_contains "$stderr" "to allow: --rw-create=$B/obj"
	assert_file "$pol" "$(cat "$pol")"
	grep -qx -- "--rw-create $B/obj" "$pol"
	run grep -x -- "--rw $B" "$pol"
	assert_status 1
	# Never the home directory or / (sbox-exec(1), DENIALS).
	run grep -E -- "^--rw (/|$H)\$" "$pol"
	assert_status 1
	# Again with what was learned: through; learning more adds nothing.
	run --separate-stderr sbx --rw "$P" --policy="$pol" --learn="$pol" -- \
		make -s -C "$P"
	assert_status 0
	assert_file "$B/obj/out" built
	assert_eq "$(grep -c -- "^--rw-create $B/obj\$" "$pol")" 1
}

@test "--learn: make writing into a build directory beside the project, then --policy of what was learned succeeds" {
	each_user _learn
}

_learn_merge() {
	local pol
	tree
	pol=$D/merged-${AS:-root}.policy
	usr mkdir "$B/a" "$B/b"
	printf '%s\n' '# mine' '--setenv LANG C' >"$pol"
	chmod 0666 "$pol"
	# Each run stops at its first refused write; runs converge.
	for i in 1 2 3; do
		run sbx --rw "$P" --policy="$pol" --learn="$pol" -- sh -c \
			'echo a >"$1/a/f" && echo b >"$1/b/f"' sh "$B"
	done
	assert_status 0
	assert_file "$B/b/f" b
	assert_eq "$(head -2 "$pol")" "# mine"$'\n'"--setenv LANG C"
	grep -qx -- "--rw $B/a" "$pol"
	grep -qx -- "--rw $B/b" "$pol"
	# Each grant under the comment that asked for it.
	assert_eq "$(grep -B1 -x -- "--rw $B/a" "$pol" | head -1)" \
		"# write $B/a/f (openat)"
}

@test "--learn merges into an existing policy file, which runs converge on" {
	each_user _learn_merge
}

@test "--learn: a file that cannot be written is refused before anything runs" {
	run --separate-stderr "$SBOX_EXEC" --learn=/nonexistent/dir/p.policy -- \
		sh -c 'echo ran'
	assert_status 125
	assert_eq "$output" ""
	assert_contains "$stderr" "sbox-exec: --learn: cannot write in /nonexistent/dir"
	run --separate-stderr "$SBOX_EXEC" --learn="$D" -- true
	assert_status 125
	assert_contains "$stderr" "is not a regular file"
	run --separate-stderr "$SBOX_EXEC" --learn= -- true
	assert_status 125
}

# A flood: 10 000 refused writes, each to a path of its own.  The lines
# on stderr stay bounded, the summary counts them all, the launcher's
# memory stays small, and the command's status is its own.
_flood() {
	local lines base
	tree
	# A sanitizer build keeps what is freed in a quarantine (256 MiB by
	# default): kept small here, so that what is measured is the
	# launcher's own; other builds ignore the variable.
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1
	# The same launch with one refusal: what the flood may add to it.
	run --separate-stderr usr /usr/bin/time -f "maxrss %M" "$SBOX" --watch \
		--rw "$P" -- sh -c 'true >"$1/f" 2>/dev/null' sh "$B"
	base=$(sed -n 's/^maxrss //p' <<<"$stderr")
	run --separate-stderr usr /usr/bin/time -f "maxrss %M" "$SBOX" --watch --rw "$P" -- \
		sh -c 'i=0; while [ $i -lt 10000 ]; do
			true >"$1/f$i" 2>/dev/null; i=$((i + 1)); done; exit 7' sh "$B"
	assert_status 7
	lines=$(grep -c "^sbox-exec: refused" <<<"$stderr")
	assert_eq "$lines" 20
	assert_contains "$stderr" "sbox-exec: 10000 refused (10000 distinct)"
	assert_contains "$stderr" "more refusals are not shown one by one"
	# DENIAL_KEEP entries at most: well under 16 MiB more than one
	# refusal costs (a sanitizer build's own footprint is in both).
	[ $(($(sed -n 's/^maxrss //p' <<<"$stderr") - base)) -lt 16384 ] || {
		echo "maxrss grew from $base KiB: $stderr" >&2
		return 1
	}
	[ -z "$(ls "$B")" ]
}

@test "10 000 refused writes: bounded lines, every one counted, the launcher's memory bounded, the exit status the command's" {
	[ -x /usr/bin/time ] || skip_or_fail "needs /usr/bin/time"
	each_user _flood
}

# Calls that end while the launcher looks: threads writing at once,
# processes killed mid-call, a path that cannot be read, a path longer
# than PATH_MAX.  The status is the command's and nothing is left.
_stress() {
	tree
	run --separate-stderr sbx --watch --rw "$P" -- "$PY" -c '
import ctypes, os, signal, sys, threading
d = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
def writer(n):
    for i in range(300):
        try:
            open("%s/t%d-%d" % (d, n, i), "w")
        except OSError:
            pass
threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
for t in threads:
    t.start()
for k in range(20):
    pid = os.fork()
    if pid == 0:
        while True:
            try:
                open("%s/c%d" % (d, os.getpid()), "w")
            except OSError:
                pass
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
# A path the kernel cannot read (address 1), and one too long.
libc.openat(-100, ctypes.c_void_p(1), os.O_WRONLY | os.O_CREAT, 0o600)
try:
    open(d + "/" + "x" * 5000, "w")
except OSError:
    pass
for t in threads:
    t.join()
print("done")
sys.exit(3)' "$B"
	assert_status 3
	assert_eq "$output" "done"
	assert_contains "$stderr" "sbox-exec: refused: write to $B/"
	[ -z "$(ls "$B")" ]
	# Nothing of the sandbox is left running.
	run pgrep -f -- "$B"
	assert_status 1
}

@test "threads, processes killed mid-call, unreadable and over-long paths: the status is the command's, nothing left" {
	requires python3
	each_user _stress
}

_socket() {
	local sock
	tree
	usr mkdir -p "$H/.1password"
	sock=$H/.1password/agent.sock
	start_listener path "$D" "$sock"
	# The control: the socket answers outside.
	run usr timeout 10 "$PY" "$(payload connect.py)" path "$sock"
	assert_contains "$output" pong
	run --separate-stderr sbx --watch -- "$PY" "$(payload connect.py)" path "$sock"
	assert_failed "connecting to a hidden socket"
	assert_contains "$stderr" \
		"sbox-exec: refused: connect to $sock (a socket hidden in the sandbox); to allow: --allow-socket=$sock"
}

@test "a connection to a hidden unix socket names it and --allow-socket" {
	each_user _socket
}

_events() {
	tree
	run --separate-stderr sbx --watch --rw "$P" --log-fd=3 -- \
		sh -c 'mkdir "$1/d"' sh "$B" 3>"$D/events"
	assert_failed "mkdir beside the project"
	assert_eq "$(jq -c 'select(.event == "fs-denied")' "$D/events")" \
		'{"event":"fs-denied","path":"'"$B/d"'","call":"mkdir","allow":"--rw-create='"$B/d"'"}'
}

@test "a refused write is an fs-denied event on --log-fd" {
	each_user _events
}

# A launcher slowed down (here by strace) still has a pipe with room for
# every event: none is dropped because the clock moved on while the line
# was being written (status.c, wait_room()).
_events_slow() {
	tree
	# LeakSanitizer cannot work under ptrace (the sanitized suite).
	local ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	export ASAN_OPTIONS
	local writes='i=0; while [ $i -lt 20 ]; do i=$((i + 1));
		echo x >"$1/f$i"; done 2>/dev/null; echo wrote'
	# The control: unsandboxed, the 20 writes land.
	usr sh -c "$writes" sh "$B"
	[ -f "$B/f20" ]
	rm -f "$B"/f*
	usr strace -f -o /dev/null "$SBOX" -q --watch --rw "$P" --log-fd=3 -- \
		sh -c "$writes" sh "$B" \
		3>&1 >/dev/null 2>"$D/stderr" | cat >"$D/events"
	cat "$D/stderr" >&2 # shown if the test fails
	assert_absent "$B/f1"
	assert_eq "$(jq -s '[.[] | select(.event == "fs-denied")] | length' "$D/events")" 20
	assert_eq "$(jq -s -c 'last' "$D/events")" '{"event":"exit","code":0}'
}

@test "events on a pipe with room are never dropped, however slowly the launcher runs" {
	requires strace
	each_user _events_slow
}

HINT="sbox-exec: the command exited 2; --watch names the writes the sandbox kept from it, --learn=FILE makes a policy of them"

_unwatched() {
	tree
	run --separate-stderr sbx --rw "$P" -- sh -c 'echo x >"$1/out"' sh "$B"
	assert_failed "writing beside the project"
	# The write is not named; one line says how it would be.
	assert_eq "$(printf '%s\n' "$stderr" | grep '^sbox-exec:')" "$HINT"
	assert_absent "$B/out"
	# Not with -q, not for a command that succeeded or was killed.
	run --separate-stderr sbx -q --rw "$P" -- sh -c 'echo x >"$1/out"' sh "$B"
	assert_status 2
	refute_contains "$stderr" "sbox-exec:"
	run --separate-stderr sbx --rw "$P" -- sh -c 'echo x >"$1/out"; exit 0' sh "$B"
	assert_status 0
	refute_contains "$stderr" "sbox-exec:"
	run --separate-stderr sbx --rw "$P" -- sh -c 'kill -TERM $$'
	assert_status 143
	refute_contains "$stderr" "sbox-exec:"
	# Watched, the write is named instead, and the line is not said.
	run --separate-stderr sbx --watch --rw "$P" -- sh -c 'echo x >"$1/out"' sh "$B"
	assert_status 2
	assert_contains "$stderr" "sbox-exec: refused: write to $B/out"
	refute_contains "$stderr" "--watch names"
}

@test "without --watch: the same refusal, the write not named, one line saying --watch or --learn would name it" {
	each_user _unwatched
}

# --watch in a policy file, the agent profile's, and --no-watch after it.
_watch_by_policy() {
	tree
	printf '%s\n' --watch >"$D/w-${AS:-root}.policy"
	run --separate-stderr sbx --policy="$D/w-${AS:-root}.policy" --rw "$P" \
		-- sh -c 'echo x >"$1/out"' sh "$B"
	assert_status 2
	assert_contains "$stderr" "sbox-exec: refused: write to $B/out"
	# The agent profile watches...
	run --separate-stderr sbx --profile=agent --project="$P" -- \
		sh -c 'echo x >"$1/out"' sh "$B"
	assert_status 2
	assert_contains "$stderr" "sbox-exec: refused: write to $B/out"
	# ...until the command line says --no-watch, in any place on it.
	run --separate-stderr sbx --no-watch --profile=agent --project="$P" -- \
		sh -c 'echo x >"$1/out"' sh "$B"
	assert_status 2
	refute_contains "$stderr" "refused: write"
	assert_contains "$stderr" "$HINT"
	# --learn watches whatever --no-watch says.
	run --separate-stderr sbx --profile=agent --no-watch --project="$P" \
		--learn="$D/l-${AS:-root}.policy" -- sh -c 'echo x >"$1/out"' sh "$B"
	assert_status 2
	assert_contains "$(cat "$D/l-${AS:-root}.policy")" "--rw $B"
	assert_absent "$B/out"
}

@test "--watch in a policy file and in the agent profile; --no-watch on the command line undoes it; --learn still watches" {
	each_user _watch_by_policy
}

# A store on the credential list, inside a grant of the home: it reads
# (or lists) as empty inside, and with --watch the read is told, by path
# only; its contents never (HOST PROTECTION, DENIALS).
_hidden_read() {
	local secret="sbox-test-secret-$RANDOM$RANDOM"
	tree
	usr sh -c 'umask 077; printf "%s\n" "$2" >"$1/.netrc"; mkdir "$1/.aws"; printf "%s\n" "$2" >"$1/.aws/credentials"' \
		sh "$H" "$secret"
	# Control: unsandboxed, the user reads both.
	run usr cat "$H/.netrc" "$H/.aws/credentials"
	assert_eq "$output" "$secret"$'\n'"$secret"

	run --separate-stderr sbx --watch --ro "$H" --log-fd=3 -- \
		sh -c 'cat "$1/.netrc"; ls -A "$1/.aws"; echo "status $?"' sh "$H" 3>"$D/events"
	assert_status 0
	# The command sees what it saw before: an empty file, an empty directory.
	assert_eq "$output" "status 0"
	refute_contains "$stderr" "$secret"
	assert_contains "$stderr" "sbox-exec: hidden: open of $H/.netrc; on the credential list, so it reads as empty in the sandbox"
	assert_contains "$stderr" "sbox-exec: hidden: list of $H/.aws; on the credential list, so it lists as empty in the sandbox"
	assert_contains "$stderr" "no option is suggested"
	assert_eq "$(jq -c 'select(.event == "hidden-read")' "$D/events")" \
		'{"event":"hidden-read","path":"'"$H/.netrc"'","call":"open"}'$'\n''{"event":"hidden-read","path":"'"$H/.aws"'","call":"list"}'
	refute_contains "$(cat "$D/events")" "$secret"
	# --learn grants none of it: a comment says what it is.
	run --separate-stderr sbx --learn="$D/p.policy" --ro "$H" -- cat "$H/.netrc"
	assert_status 0
	run grep -v '^#' "$D/p.policy"
	assert_eq "$output" ""
	assert_contains "$(cat "$D/p.policy")" "# read $H/.netrc (open): on the credential list"
	# Without --watch, the same empty file and nothing said.
	run --separate-stderr sbx --ro "$H" -- cat "$H/.netrc"
	assert_status 0
	assert_eq "$output" ""
	refute_contains "$stderr" "sbox-exec:"
}

@test "with --watch a read of a hidden credential is told by path, never its contents, and --learn grants none" {
	requires jq
	each_user _hidden_read
}

# A write below a directory --hide hides, where the host has files:
# named as hidden, with no option (a grant would show what is there) and
# nothing of what is there (sbox-exec(1), DENIALS).
_hidden_write() {
	local pol
	tree
	pol=$D/hidden-${AS:-root}.policy
	rm -f "$pol"
	usr mkdir -p "$H/secret/sub"
	usr sh -c 'echo token >"$1/secret/sub/hostonly-name"' sh "$H"
	# The control: unsandboxed, the writes land.
	run usr sh -c 'echo x >"$1/secret/sub/f" && echo x >"$1/secret/g"' sh "$H"
	assert_status 0
	rm -f "$H/secret/sub/f" "$H/secret/g"
	run --separate-stderr sbx --learn="$pol" --rw "$P" --hide "$H/secret" -- \
		sh -c 'echo x >"$1/secret/sub/f"; echo x >"$1/secret/g"; mkdir "$1/secret/sub/d"' sh "$H"
	assert_failed "writing below a hidden directory"
	assert_contains "$stderr" "sbox-exec: refused: write to $H/secret/sub/f (openat); $H/secret is hidden (--hide): no option is suggested"
	assert_contains "$stderr" "sbox-exec: refused: write to $H/secret/g (openat); $H/secret is hidden (--hide): no option is suggested"
	assert_contains "$stderr" "sbox-exec: refused: write to $H/secret/sub/d (mkdir); $H/secret is hidden (--hide): no option is suggested"
	refute_contains "$stderr" "hostonly-name"
	refute_contains "$stderr" "token"
	refute_contains "$stderr" "to allow"
	assert_eq "$(grep -c -- '^--' "$pol")" 0
	assert_absent "$H/secret/sub/f"
	assert_absent "$H/secret/g"
}

@test "a write below a --hide directory that exists on the host: named as hidden, no option, nothing of what is there" {
	each_user _hidden_write
}
