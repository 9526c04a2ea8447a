#!/usr/bin/env bats
# sbox-exec(1) STATUS, command-not-found and command-not-executable: the
# second stage looks the command up in the sandbox's view, with the PATH
# the command gets, before it reports in; a command it cannot start is
# reported with a status of its own (exit 127 or 126) and nothing runs.
# The success line names the file found ("command").

load helpers

setup() {
	requires bwrap jq
	D=$(scratch_dir)
	# A tool that leaves a mark where the host can see it, when it runs.
	mkdir -m 0777 "$D/marks"
	mkdir "$D/bin"
	printf '#!/bin/sh\necho ran >%s/marks/tool\necho tool-ran\n' "$D" \
		>"$D/bin/sbox-test-tool"
	chmod 0755 "$D/bin" "$D/bin/sbox-test-tool"
}

# launch EXIT ARGS...: sbox-exec with ARGS as the pass's user, from /,
# expected to exit EXIT; the status line in $D/status, stdout in $output,
# stderr in $D/err.
launch() {
	local code=$1
	shift
	rm -f "$D/status"
	run "-$code" sbx_status "$@"
}

sbx_status() {
	cd / && sbx --status-fd=3 "$@" 3>"$D/status" 2>"$D/err"
}

# refused STATUS CODE DETAIL: the launch was refused with STATUS and exit
# CODE, DETAIL in the status and on stderr, and nothing ran.
refused() {
	assert_status "$2"
	assert_status_line "$D/status"
	assert_eq "$(jq -r .status "$D/status")" "$1"
	assert_contains "$(jq -r .detail "$D/status")" "$3"
	assert_eq "$(jq -r '.command // "none"' "$D/status")" none
	assert_contains "$(head -n 1 "$D/err")" "sbox-exec: "
	assert_contains "$(cat "$D/err")" "$3"
	assert_eq "$output" ""
	assert_absent "$D/marks/tool"
}

_not_found() {
	rm -f "$D/marks/tool"
	# Control: on the host, the same PATH finds the tool, and it runs.
	PATH=$D/bin:/usr/bin:/bin run usr sh -c 'cd / && sbox-test-tool'
	assert_status 0
	assert_eq "$output" tool-ran
	rm -f "$D/marks/tool"

	# --fs=minimal: the directory is not in the sandbox's view.
	PATH=$D/bin:/usr/bin:/bin launch 127 --fs=minimal -- sbox-test-tool
	refused command-not-found 127 \
		"sbox-test-tool: not found on the sandbox's PATH ($D/bin:/usr/bin:/bin)"
	# By its path: the same.
	launch 127 --fs=minimal -- "$D/bin/sbox-test-tool"
	refused command-not-found 127 "$D/bin/sbox-test-tool"
	# The PATH is the command's own, after --setenv: the host's PATH,
	# which has the tool, does not count.
	PATH=$D/bin:/usr/bin:/bin launch 127 --setenv PATH /usr/bin:/bin \
		-- sbox-test-tool
	refused command-not-found 127 "(/usr/bin:/bin)"
	# Granted, it is found and runs.
	PATH=$D/bin:/usr/bin:/bin launch 0 --fs=minimal --ro "$D/bin" \
		--rw "$D/marks" -- sbox-test-tool
	assert_status 0
	assert_eq "$output" tool-ran
	assert_eq "$(jq -r .command "$D/status")" "$D/bin/sbox-test-tool"
	assert_file "$D/marks/tool" ran
}

@test "a command not in the sandbox's view: command-not-found, exit 127, nothing runs" {
	each_user _not_found
}

_not_executable() {
	rm -f "$D/marks/tool"
	printf '#!/bin/sh\necho ran >%s/marks/tool\n' "$D" >"$D/bin/noexec"
	chmod 0644 "$D/bin/noexec"
	mkdir -p "$D/bin/adir" "$D/dirs/sbox-test-dir"
	chmod 0755 "$D/bin/adir" "$D/dirs/sbox-test-dir"
	printf '\177ELF\002\001\001\000\000not a program at all\n' \
		>"$D/bin/notelf"
	chmod 0755 "$D/bin/notelf" "$D/dirs"

	# Controls: a shell cannot execute these either (126).
	run usr sh -c '"$1"' sh "$D/bin/noexec"
	assert_status 126
	run usr sh -c '"$1"' sh "$D/bin/adir"
	assert_status 126
	run usr sh -c '"$1"' sh "$D/bin/notelf"
	assert_status 126

	launch 126 -- "$D/bin/noexec"
	refused command-not-executable 126 "$D/bin/noexec: Permission denied"
	launch 126 -- "$D/bin/adir"
	refused command-not-executable 126 "$D/bin/adir: is a directory"
	launch 126 -- "$D/bin/notelf"
	refused command-not-executable 126 "$D/bin/notelf: Exec format error"
	# Found on PATH as a directory only: not executable, not "not found".
	PATH=$D/dirs:/usr/bin:/bin launch 126 -- sbox-test-dir
	refused command-not-executable 126 "$D/dirs/sbox-test-dir: is a directory"
	# One that cannot be executed, then one that can: the second runs, as
	# with execvp(3).
	cp "$D/bin/sbox-test-tool" "$D/dirs/sbox-test-tool"
	chmod 0644 "$D/dirs/sbox-test-tool"
	rm -f "$D/marks/tool"
	PATH=$D/dirs:$D/bin:/usr/bin:/bin launch 0 --rw "$D/marks" -- sbox-test-tool
	assert_status 0
	assert_eq "$(jq -r .command "$D/status")" "$D/bin/sbox-test-tool"
	assert_file "$D/marks/tool" ran
}

@test "not executable (no x bit, a directory, a format the kernel refuses): command-not-executable, 126" {
	each_user _not_executable
}

_interpreter_missing() {
	mkdir -p "$D/interp"
	cp /bin/sh "$D/interp/sh"
	printf '#!%s/interp/sh\necho ran >%s/marks/tool\necho ran\n' "$D" "$D" \
		>"$D/bin/script"
	chmod 0755 "$D/interp/sh" "$D/bin/script"
	rm -f "$D/marks/tool"

	# Control: on the host the interpreter is there and the script runs.
	run usr "$D/bin/script"
	assert_status 0
	assert_eq "$output" ran
	rm -f "$D/marks/tool"

	# The script is granted, its interpreter is not.
	launch 126 --fs=minimal --ro "$D/bin" -- "$D/bin/script"
	refused command-not-executable 126 \
		"$D/bin/script: its interpreter $D/interp/sh is not in the sandbox"
	# Both granted: it runs.
	launch 0 --fs=minimal --ro "$D/bin" --ro "$D/interp" --rw "$D/marks" \
		-- "$D/bin/script"
	assert_status 0
	assert_eq "$(jq -r .command "$D/status")" "$D/bin/script"
	assert_file "$D/marks/tool" ran
}

_env_interpreter_missing() {
	mkdir -p "$D/interp"
	printf '#!/bin/sh\necho "interp ran $1"\n' >"$D/interp/sbox-test-interp"
	printf '#!/usr/bin/env sbox-test-interp\n' >"$D/bin/env-script"
	chmod 0755 "$D/interp" "$D/interp/sbox-test-interp" "$D/bin/env-script"

	# Control: on the host, with the interpreter on PATH, the script runs.
	PATH=$D/interp:/usr/bin:/bin run usr "$D/bin/env-script"
	assert_status 0
	assert_eq "$output" "interp ran $D/bin/env-script"

	# Inside, the PATH the script gets lacks the interpreter.
	PATH=$D/interp:/usr/bin:/bin launch 126 --setenv PATH /usr/bin:/bin \
		-- "$D/bin/env-script"
	refused command-not-executable 126 \
		"$D/bin/env-script: its interpreter sbox-test-interp (run by env) is not on the sandbox's PATH"
	PATH=$D/interp:/usr/bin:/bin launch 0 -- "$D/bin/env-script"
	assert_eq "$output" "interp ran $D/bin/env-script"
	assert_eq "$(jq -r .command "$D/status")" "$D/bin/env-script"
}

@test "#!/usr/bin/env NAME with NAME not on the sandbox's PATH: command-not-executable" {
	each_user _env_interpreter_missing
}

@test "a #! script whose interpreter is not in the sandbox: command-not-executable" {
	each_user _interpreter_missing
}

_found_inside_only() {
	# Control: the host's PATH does not have the tool.
	PATH=/usr/bin:/bin run -127 usr sh -c 'cd / && sbox-test-tool'

	PATH=/usr/bin:/bin launch 0 --rw "$D/marks" \
		--setenv PATH "$D/bin:/usr/bin:/bin" -- sbox-test-tool
	assert_status 0
	assert_eq "$output" tool-ran
	assert_eq "$(jq -r .status "$D/status")" success
	assert_eq "$(jq -r .command "$D/status")" "$D/bin/sbox-test-tool"
	# A relative PATH entry, from the sandbox's working directory: the
	# command is named by its absolute path.
	PATH=/usr/bin:/bin launch 0 --rw "$D/marks" --chdir "$D/bin" \
		--setenv PATH ".:/usr/bin:/bin" -- sbox-test-tool
	assert_status 0
	assert_eq "$(jq -r .command "$D/status")" "$D/bin/./sbox-test-tool"
	# No PATH at all (--clearenv): /bin:/usr/bin, as a shell.
	launch 0 --clearenv -- true
	assert_status 0
	assert_eq "$(jq -r .command "$D/status")" /bin/true
}

@test "found on the PATH given inside (--setenv, relative, none) but not on the host's: success names it" {
	each_user _found_inside_only
}

# A command the sandbox's PATH finds on another entry than the host's
# (sbox-exec(1), DESCRIPTION): it runs, and stderr names both files.
_other_entry() {
	local p=$D/hidden:$D/shown:/usr/bin:/bin w
	cd / || return 1
	mkdir -p "$D/hidden" "$D/shown"
	for w in hidden shown; do
		printf '#!/bin/sh\necho %s\n' "$w" >"$D/$w/sbox-test-which"
		chmod 0755 "$D/$w/sbox-test-which"
	done
	w="sbox-exec: warning: sbox-test-which is $D/shown/sbox-test-which in the sandbox, not $D/hidden/sbox-test-which as outside it, which the sandbox does not show"
	# Control: outside, the first entry's.
	run usr env PATH="$p" sbox-test-which
	assert_eq "$output" hidden
	# Nothing hidden: the same file, nothing said.
	run --separate-stderr usr env PATH="$p" "$SBOX" -- sbox-test-which
	assert_status 0
	assert_eq "$output" hidden
	assert_eq "$stderr" ""
	for opts in "--hide $D/hidden" "--fs=minimal --ro $D/shown"; do
		# shellcheck disable=SC2086
		run --separate-stderr usr env PATH="$p" "$SBOX" $opts -- sbox-test-which
		assert_status 0
		assert_eq "$output" shown
		assert_eq "$stderr" "$w"
		# shellcheck disable=SC2086
		run --separate-stderr usr env PATH="$p" "$SBOX" -q $opts -- sbox-test-which
		assert_status 0
		assert_eq "$output" shown
		assert_eq "$stderr" ""
	done
	# The PATH compared is the command's own (--setenv).
	run --separate-stderr usr "$SBOX" --setenv PATH "$p" --hide "$D/hidden" -- sbox-test-which
	assert_eq "$output" shown
	assert_eq "$stderr" "$w"
}

@test "a command found on another PATH entry inside than outside: it runs, stderr names both (not with -q)" {
	each_user _other_entry
}

_success_names() {
	launch 3 -- sh -c 'exit 3'
	assert_status 3
	assert_status_line "$D/status"
	assert_eq "$(jq -r .status "$D/status")" success
	assert_eq "$(jq -r .command "$D/status")" "$(PATH=$PATH command -v sh)"
	# --check runs no command: no "command".
	rm -f "$D/status"
	run usr "$SBOX" --check --json
	assert_status 0
	assert_eq "$(printf '%s' "$output" | jq -r '.command // "none"')" none
}

@test "the success line names the file executed; --check names none" {
	each_user _success_names
}

_tty() {
	local sbox
	sbox=$(printf %q "$SBOX")
	rm -f "$D/marks/tool"
	rm -f "$D/status"
	in_pty "cd / && PATH=$D/bin:/usr/bin:/bin $sbox --tty --fs=minimal --status-fd=3 -- sbox-test-tool 3>$D/status; echo exit=\$?"
	assert_contains "$output" "exit=127"
	assert_contains "$output" "sbox-test-tool: not found on the sandbox's PATH"
	assert_eq "$(jq -r .status "$D/status")" command-not-found
	assert_absent "$D/marks/tool"
	rm -f "$D/status"
	in_pty "cd / && $sbox --tty --status-fd=3 -- $D/bin 3>$D/status; echo exit=\$?"
	assert_contains "$output" "exit=126"
	assert_eq "$(jq -r .status "$D/status")" command-not-executable
	rm -f "$D/status"
	in_pty "cd / && PATH=$D/bin:/usr/bin:/bin $sbox --tty --rw $D/marks --status-fd=3 -- sbox-test-tool 3>$D/status; echo exit=\$?"
	assert_contains "$output" "exit=0"
	assert_contains "$output" "tool-ran"
	assert_eq "$(jq -r .command "$D/status")" "$D/bin/sbox-test-tool"
	assert_file "$D/marks/tool" ran
}

@test "--tty: the same statuses, and the same exit codes, on a terminal" {
	requires script
	each_user _tty
}

# script_chain DIR N: DIR/s1 a "#!/bin/sh" script, DIR/sK run by
# DIR/s(K-1), up to DIR/sN: N nested "#!" scripts.
script_chain() {
	local k
	mkdir -p "$1"
	printf '#!/bin/sh\necho chain-ran\n' >"$1/s1"
	for k in $(seq 2 "$2"); do
		printf '#!%s/s%d\n' "$1" $((k - 1)) >"$1/s$k"
	done
	chmod 0755 "$1" "$1"/s*
}

_script_nesting() {
	script_chain "$D/chain" 6
	# Controls: the kernel runs 5 nested scripts, not 6.
	run usr "$D/chain/s5"
	assert_status 0
	assert_eq "$output" chain-ran
	run usr "$D/chain/s6"
	assert_status 126

	launch 0 -- "$D/chain/s5"
	assert_eq "$output" chain-ran
	assert_eq "$(jq -r .status "$D/status")" success
	assert_eq "$(jq -r .command "$D/status")" "$D/chain/s5"
	launch 126 -- "$D/chain/s6"
	refused command-not-executable 126 'more than 5 nested "#!" scripts'
}

@test "#! scripts nest as deep as the kernel allows: 5 run, 6 are command-not-executable" {
	each_user _script_nesting
}

_env_with_blank() {
	printf '#!/usr/bin/env sh -e\necho ran >%s/marks/tool\n' "$D" \
		>"$D/bin/env-blank"
	printf '#!/usr/bin/env sh  \t\necho trailing-ran\n' >"$D/bin/env-trailing"
	chmod 0755 "$D/bin/env-blank" "$D/bin/env-trailing"
	rm -f "$D/marks/tool"

	# Controls: env gets "sh -e" as one name and finds nothing; trailing
	# blanks are not passed at all.
	PATH=/usr/bin:/bin run -127 usr "$D/bin/env-blank"
	assert_absent "$D/marks/tool"
	run usr "$D/bin/env-trailing"
	assert_status 0
	assert_eq "$output" trailing-ran

	launch 126 --rw "$D/marks" -- "$D/bin/env-blank"
	refused command-not-executable 126 \
		"$D/bin/env-blank: its \"#!\" line gives env the one name \"sh -e\""
	assert_contains "$(jq -r .detail "$D/status")" "env -S"
	launch 0 -- "$D/bin/env-trailing"
	assert_eq "$output" trailing-ran
	assert_eq "$(jq -r .status "$D/status")" success
}

@test "#!/usr/bin/env NAME ARG: env gets one argument, command-not-executable with a hint" {
	each_user _env_with_blank
}

# env_chain: 12 directories $D/p1 ... $D/p12, each with sbox-chain-1 ...
# sbox-chain-6, sbox-chain-K run by "#!/usr/bin/env sbox-chain-(K+1)";
# sbox-chain-7 is nowhere.  $CHAIN_PATH lists them.
env_chain() {
	local i k
	CHAIN_PATH=
	for i in $(seq 1 12); do
		mkdir -p "$D/p$i"
		for k in $(seq 1 6); do
			printf '#!/usr/bin/env sbox-chain-%d\n' $((k + 1)) \
				>"$D/p$i/sbox-chain-$k"
		done
		chmod 0755 "$D/p$i" "$D/p$i"/*
		CHAIN_PATH=$CHAIN_PATH$D/p$i:
	done
	CHAIN_PATH=$CHAIN_PATH/usr/bin:/bin
}

_env_chain() {
	local i start
	env_chain
	rm -f "$D/p12/sbox-chain-7"
	# Control: on the host, env finds each level, then not the last.
	PATH=$CHAIN_PATH run -127 usr sbox-chain-1
	assert_contains "$output" sbox-chain-7

	start=$(date +%s)
	PATH=$CHAIN_PATH launch 126 -- sbox-chain-1
	refused command-not-executable 126 \
		"sbox-chain-6: its interpreter sbox-chain-7 (run by env) is not on the sandbox's PATH"
	[ $(($(date +%s) - start)) -lt 5 ]
	# Five levels, the fifth's name nowhere: each level's PATH search is
	# done once, not once for each entry of the level above.
	mkdir -p "$D/away"
	mv "$D/p7/sbox-chain-6" "$D/away/"
	rm -f "$D"/p*/sbox-chain-6
	start=$(date +%s)
	PATH=$CHAIN_PATH launch 126 -- sbox-chain-1
	refused command-not-executable 126 \
		"sbox-chain-5: its interpreter sbox-chain-6 (run by env) is not on the sandbox's PATH"
	[ $(($(date +%s) - start)) -lt 5 ]
	for i in $(seq 1 12); do
		cp -p "$D/away/sbox-chain-6" "$D/p$i/"
	done

	# The last level in the last directory: found, and it runs.
	printf '#!/bin/sh\necho chain-end\n' >"$D/p12/sbox-chain-7"
	chmod 0755 "$D/p12/sbox-chain-7"
	PATH=$CHAIN_PATH run usr sbox-chain-1
	assert_status 0
	assert_eq "$output" chain-end
	PATH=$CHAIN_PATH launch 0 -- sbox-chain-1
	assert_eq "$output" chain-end
	assert_eq "$(jq -r .command "$D/status")" "$D/p1/sbox-chain-1"
}

@test "#!/usr/bin/env chains 6 deep over 12 PATH entries: a lookup in time, naming the missing name" {
	each_user _env_chain
}

# with_loader SRC [DEST NEWPATH]: prints the loader (PT_INTERP) of the
# ELF program SRC; with DEST, makes DEST a copy of SRC whose loader is
# NEWPATH instead, NEWPATH as long as the old one.
with_loader() {
	/usr/bin/python3 - "$@" <<'PY'
import struct, sys
src = sys.argv[1]
data = bytearray(open(src, "rb").read())
assert data[:4] == b"\x7fELF"
end = "<" if data[5] == 1 else ">"
if data[4] == 2:
    phoff, = struct.unpack_from(end + "Q", data, 32)
    phentsize, phnum = struct.unpack_from(end + "HH", data, 54)
    fields = end + "IIQQQQ"
else:
    phoff, = struct.unpack_from(end + "I", data, 28)
    phentsize, phnum = struct.unpack_from(end + "HH", data, 42)
    fields = end + "IIIIII"
for i in range(phnum):
    ph = struct.unpack_from(fields, data, phoff + i * phentsize)
    if ph[0] != 3:
        continue
    off, size = (ph[2], ph[5]) if data[4] == 2 else (ph[1], ph[4])
    old = bytes(data[off:off + size]).rstrip(b"\0")
    print(old.decode())
    if len(sys.argv) > 3:
        new = sys.argv[3].encode()
        assert len(new) == len(old), (new, old)
        data[off:off + len(new)] = new
        open(sys.argv[2], "wb").write(data)
    break
else:
    sys.exit("no PT_INTERP in " + src)
PY
}

_loader_missing() {
	local true_bin loader name
	true_bin=$(readlink -f /bin/true)
	# A loader in the host's /tmp, which the sandbox does not see (its
	# /tmp is its own): a name as long as the real loader's path.
	loader=$(with_loader "$true_bin")
	name=/tmp/sbox-ld-$$-$RANDOM-
	while [ ${#name} -lt ${#loader} ]; do name=${name}x; done
	name=${name:0:${#loader}}
	cp "$loader" "$name"
	chmod 0755 "$name"
	on_teardown "rm -f '$name'"
	with_loader "$true_bin" "$D/bin/probe" "$name" >/dev/null
	chmod 0755 "$D/bin/probe"

	# Controls: on the host it runs; the real program runs in the sandbox.
	run usr "$D/bin/probe"
	assert_status 0
	launch 0 -- "$true_bin"
	assert_eq "$(jq -r .status "$D/status")" success

	launch 126 -- "$D/bin/probe"
	refused command-not-executable 126 \
		"$D/bin/probe: its loader $name is not in the sandbox"
	# Its loader gone from the host too: the kernel cannot start it.
	rm -f "$name"
	run -127 usr "$D/bin/probe"
}

@test "an ELF program whose loader is not in the sandbox: command-not-executable" {
	each_user _loader_missing
}

# A PATH of 2 000 entries that do not exist before the tool's directory:
# the lookup walks all of them, as execvp(3) does, and names the file
# that runs (sbox-exec(1), STATUS: "command").
_long_path() {
	local long="" i
	for i in $(seq 0 1999); do
		long=$long$D/none/$i:
	done
	rm -f "$D/marks/tool"
	# Control: on the host, execvp finds the tool past 2 000 entries.
	PATH=$long$D/bin:/usr/bin:/bin run usr env sbox-test-tool
	assert_status 0
	assert_eq "$output" tool-ran
	rm -f "$D/marks/tool"

	PATH=$long$D/bin:/usr/bin:/bin launch 0 --rw "$D/marks" -- sbox-test-tool
	assert_eq "$output" tool-ran
	assert_eq "$(jq -r .status "$D/status")" success
	assert_eq "$(jq -r .command "$D/status")" "$D/bin/sbox-test-tool"
	assert_file "$D/marks/tool" ran
	rm -f "$D/marks/tool"
	# Past 2 000 entries to a directory of the system's: the real file.
	PATH=$long/usr/bin:/bin launch 0 -- true
	assert_eq "$(jq -r .command "$D/status")" "$(PATH=/usr/bin:/bin type -P true)"
	# Nowhere on it: not found, never a file of the PATH named as found.
	launch 127 --setenv PATH "${long%:}" -- sbox-test-tool
	refused command-not-found 127 "sbox-test-tool: not found on the sandbox's PATH ($D/none/0:"
}

@test "a PATH of 2 000 entries before the command's directory: the file execvp finds, or not found" {
	each_user _long_path
}

# A directory on PATH that cannot be searched is passed over, as by a
# shell; the detail names it, where execvp(3) says "Permission denied"
# (sbox-exec(1), STATUS: command-not-found).
_closed_dir() {
	# A directory of its own each pass (each_user runs this twice).
	[ ! -e "$D/closed" ] || chmod 0755 "$D/closed"
	rm -rf "$D/closed"
	mkdir "$D/closed"
	cp "$D/bin/sbox-test-tool" "$D/closed/"
	chmod 0000 "$D/closed"
	rm -f "$D/marks/tool"
	# Control: outside, the tool is there; root runs it, a user's
	# execvp is refused the directory.
	run usr /usr/bin/env PATH="$D/closed" /usr/bin/env sbox-test-tool
	if [ -z "$AS" ]; then
		assert_status 0
		assert_eq "$output" tool-ran
	else
		assert_status 126
		assert_contains "$output" "Permission denied"
	fi
	rm -f "$D/marks/tool"

	launch 127 --setenv PATH "$D/closed:/nonexistent" -- sbox-test-tool
	refused command-not-found 127 "sbox-test-tool: not found on the sandbox's PATH, whose $D/closed cannot be searched (Permission denied) ($D/closed:/nonexistent)"
	# Past it, the tool where the sandbox can search: found and run.
	launch 0 --rw "$D/marks" --setenv PATH "$D/closed:$D/bin" -- sbox-test-tool
	assert_eq "$output" tool-ran
	assert_eq "$(jq -r .command "$D/status")" "$D/bin/sbox-test-tool"
	chmod 0755 "$D/closed"
}

@test "a PATH directory that cannot be searched: passed over, and named when nothing is found" {
	each_user _closed_dir
}
