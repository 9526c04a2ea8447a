#!/usr/bin/env bats
# sbox-exec(1) SYNOPSIS and OPTIONS: bad input is refused cleanly (exit 125, one
# "sbox-exec: " line naming the problem, nothing on stdout, nothing run);
# odd but valid paths work; --help and --version.

load helpers

setup() {
	requires bwrap jq
	D=$(scratch_dir)
	# No user profile can satisfy --profile=nosuch by accident.
	export XDG_CONFIG_HOME=$D/config
	unset SBOX_EXEC_BWRAP
	# What the command does if it ever runs: leave a file on the host.
	MARK=(sh -c 'echo ran >"$1"' sh "$D/marker")
}

# usage_error NEEDLE ARGS...: sbox-exec ARGS (which carry their own
# command, or none) is refused as a usage error whose message has NEEDLE.
usage_error() {
	local needle=$1
	shift
	run --separate-stderr "$SBOX_EXEC" "$@"
	assert_status 125
	assert_eq "$output" ""
	assert_sbox_message "$stderr"
	assert_contains "$stderr" "$needle"
	[ ! -e "$D/marker" ] || { echo "the command ran" >&2; return 1; }
}

# bad_value NEEDLE ARGS...: as usage_error, with --rw of the scratch dir
# first and the marker command last.
bad_value() {
	local needle=$1
	shift
	usage_error "$needle" --rw "$D" "$@" -- "${MARK[@]}"
}

@test "control: the marker command runs when nothing is wrong" {
	run --separate-stderr "$SBOX_EXEC" --rw "$D" -- "${MARK[@]}"
	assert_status 0
	assert_eq "$(cat "$D/marker")" ran
	assert_eq "$stderr" ""
}

@test "--fs=bogus and --fs=" {
	bad_value --fs --fs=bogus
	assert_contains "$stderr" bogus
	bad_value --fs --fs=
}

@test "--rw with no value (last argument), and -w likewise" {
	usage_error rw --rw "$D" --rw
	usage_error w -w
}

@test "--rw= (empty path)" {
	bad_value --rw --rw=
}

@test "--ro /nonexistent, --rw /nonexistent, -r/-w /nonexistent" {
	bad_value /nonexistent/sbox --ro /nonexistent/sbox
	assert_contains "$stderr" ro
	bad_value /nonexistent/sbox --rw /nonexistent/sbox
	bad_value /nonexistent/sbox -r /nonexistent/sbox
	bad_value /nonexistent/sbox -w/nonexistent/sbox
}

@test "--allow-socket: missing path, and a path that is not a socket" {
	bad_value /nonexistent/sock --allow-socket=/nonexistent/sock
	: >"$D/plain"
	bad_value "$D/plain" --allow-socket="$D/plain"
}

@test "--keep-fd=abc" {
	bad_value --keep-fd --keep-fd=abc
}

@test "--keep-fd=-1" {
	bad_value --keep-fd --keep-fd=-1
}

@test "--keep-fd=99999999999 (out of range)" {
	bad_value --keep-fd --keep-fd=99999999999
}

@test "--keep-fd=3x, --keep-fd=, --keep-fd=' 3'" {
	bad_value --keep-fd --keep-fd=3x 3</dev/null
	bad_value --keep-fd --keep-fd=
	bad_value --keep-fd "--keep-fd= 3" 3</dev/null
}

@test "--keep-fd of a closed descriptor" {
	bad_value --keep-fd --keep-fd=97 97>&-
	assert_contains "$stderr" 97
}

@test "--status-fd of a closed descriptor" {
	bad_value --status-fd --status-fd=97 97>&-
}

@test "--status-fd=abc, =-1, =, =99999999999" {
	bad_value --status-fd --status-fd=abc
	bad_value --status-fd --status-fd=-1
	bad_value --status-fd --status-fd=
	bad_value --status-fd --status-fd=99999999999
}

@test "--log-fd: bad numbers, a closed descriptor, the command's stdin or stdout" {
	bad_value --log-fd --log-fd=abc
	bad_value --log-fd --log-fd=-1
	bad_value --log-fd --log-fd=
	bad_value --log-fd --log-fd=97 97>&-
	bad_value "standard input" --log-fd=0
	bad_value "standard output" --log-fd=1
}

@test "--log-fd: a descriptor also given to the command or as a status fd" {
	bad_value "both --log-fd and --keep-fd" --log-fd=5 --keep-fd=5 5>/dev/null
	bad_value "both --log-fd and --status-fd" --log-fd=5 --status-fd=5 \
		5>/dev/null
}

@test "--log-fd=2 beside --status-fd=2; a policy file cannot name --log-fd" {
	run --separate-stderr "$SBOX_EXEC" --log-fd=2 --status-fd=2 \
		--rw "$D" -- "${MARK[@]}"
	assert_status 0
	assert_eq "$(cat "$D/marker")" ran
	rm "$D/marker"
	printf -- '--log-fd 5\n' >"$D/p.policy"
	bad_value "command line" --policy="$D/p.policy" 5>/dev/null
}

@test "--status-socket= (empty) and --status-socket=@ (empty abstract name)" {
	bad_value --status-socket --status-socket=
	bad_value --status-socket --status-socket=@
}

@test "--status-socket with a 200-byte name (path and abstract)" {
	local long
	long=$(printf 'x%.0s' {1..200})
	bad_value --status-socket --status-socket="$D/$long"
	bad_value --status-socket --status-socket="@$long"
}

@test "--probe-timeout=0, -1, abc, nan, inf, empty" {
	local v
	for v in 0 -1 abc nan inf NaN -inf ''; do
		bad_value --probe-timeout --probe-timeout="$v"
	done
}

@test "--probe-timeout takes decimal seconds only: 0x10, 1e2, ' 5', 5., +5 refused; 5, 2.5, .5 taken" {
	local v
	for v in 0x10 1e2 ' 5' 5. +5 '5 ' 1,5 0x1p3; do
		bad_value --probe-timeout --probe-timeout="$v"
	done
	for v in 5 2.5 .5; do
		run --separate-stderr "$SBOX_EXEC" --probe-timeout="$v" --print -- true
		assert_status 0
	done
}

@test "--policy=/nonexistent and --policy=" {
	bad_value /nonexistent/sbox.policy --policy=/nonexistent/sbox.policy
	assert_contains "$stderr" --policy
	bad_value --policy --policy=
}

@test "--policy of a directory" {
	bad_value --policy --policy="$D"
}

@test "--profile=nosuch" {
	bad_value nosuch --profile=nosuch
	assert_contains "$stderr" --profile
}

@test "--profile=../x and other names that are paths" {
	mkdir -p "$XDG_CONFIG_HOME/sbox-exec/profiles"
	# Even when the file the path would name exists.
	: >"$XDG_CONFIG_HOME/sbox-exec/x.policy"
	bad_value --profile --profile=../x
	bad_value --profile --profile=a/b
	bad_value --profile --profile=
}

@test "--chdir=/nonexistent: invalid-policy" {
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 --rw "$D" \
		--chdir=/nonexistent/sbox -- "${MARK[@]}" 3>"$D/status"
	assert_status 125
	assert_eq "$output" ""
	assert_sbox_message "$stderr"
	assert_contains "$stderr" /nonexistent/sbox
	[ ! -e "$D/marker" ]
	assert_eq "$(jq -r .status "$D/status")" invalid-policy
}

@test "--chdir= (empty)" {
	bad_value --chdir --chdir=
}

@test "--setenv with VALUE missing" {
	usage_error --setenv --rw "$D" --setenv A
}

@test "--setenv with NAME and VALUE missing" {
	usage_error --setenv --rw "$D" --setenv
}

@test "--setenv 'A=B' x: not a variable name" {
	bad_value --setenv --setenv 'A=B' x
}

@test "--setenv '' x and --unsetenv '': empty names" {
	bad_value --setenv --setenv '' x
	bad_value --unsetenv --unsetenv ''
}

@test "--unsetenv 'A=B'" {
	bad_value --unsetenv --unsetenv 'A=B'
}

@test "--bwrap= (empty)" {
	bad_value --bwrap --bwrap=
}

@test "unknown option --bogus" {
	bad_value --bogus --bogus
}

@test "unknown option --bogus=value" {
	bad_value --bogus --bogus=value
}

@test "unknown short option -Z" {
	bad_value -Z -Z
}

@test "a value given to an option that takes none names that option" {
	local opt
	for opt in net no-net clearenv json check print quiet verbose; do
		bad_value "--$opt" "--$opt=yes"
	done
}

@test "every option that takes a value, given none, is named" {
	local opt
	for opt in fs rw ro hide ro-try rw-try allow-socket chdir setenv \
		unsetenv keep-fd bwrap status-fd status-socket log-fd probe-timeout \
		policy profile; do
		usage_error "$opt" "--$opt"
	done
	for opt in w r C; do
		usage_error "-$opt" "-$opt"
	done
}

@test "--check with a command" {
	usage_error --check --check --rw "$D" -- "${MARK[@]}"
}

@test "--print without a command" {
	usage_error --print --print --rw "$D"
}

@test "no command at all" {
	usage_error command --rw "$D"
	usage_error command
	usage_error command --rw "$D" --
}

@test "--json without --check" {
	bad_value --json --json
}

@test "--json with --print" {
	usage_error --json --print --json -- "${MARK[@]}"
}

@test "--check --print together" {
	usage_error --print --check --print --rw "$D"
	assert_contains "$stderr" --check
}

@test "a usage error is still refused when -q is given" {
	bad_value --bogus -q --bogus
}

@test "the first bad option is named, not a later echo of it" {
	bad_value --fs --fs=bogus --keep-fd=abc
}

@test "--chdir to a directory not visible inside (--fs=minimal from /var/tmp)" {
	mkdir "$D/work"
	cd "$D/work"
	# The default working directory: cwd, which --fs=minimal does not show.
	run --separate-stderr "$SBOX_EXEC" --fs=minimal --status-fd=3 \
		-- sh -c 'echo ran >/dev/null' 3>"$D/status"
	assert_status 125
	assert_eq "$output" ""
	assert_sbox_message "$stderr"
	assert_eq "$(jq -r .status "$D/status")" invalid-policy
	# And named explicitly with --chdir, from /.
	cd /
	run --separate-stderr "$SBOX_EXEC" --fs=minimal --status-fd=3 \
		--chdir="$D/work" -- true 3>"$D/status"
	assert_status 125
	assert_contains "$stderr" "$D/work"
	assert_eq "$(jq -r .status "$D/status")" invalid-policy
}

@test "control: --fs=minimal with the working directory granted runs" {
	cd "$D"
	run --separate-stderr "$SBOX_EXEC" --fs=minimal --rw "$D" -- "${MARK[@]}"
	assert_status 0
	assert_eq "$(cat "$D/marker")" ran
}

@test "odd paths: --rw of directories named with a space, a newline, non-UTF-8" {
	local name dir
	for name in 'with space' $'new\nline' $'bad\xff\xfebytes' \
		"quote'\"\$(x)" '-leading-dash'; do
		dir=$D/$name
		mkdir -- "$dir"
		run --separate-stderr "$SBOX_EXEC" --rw "$dir" \
			-- sh -c 'echo ok >"$1/file"' sh "$dir"
		assert_status 0
		assert_eq "$(cat -- "$dir/file")" ok
	done
}

@test "odd paths, relative: --rw 'with space' from its parent" {
	mkdir "$D/with space"
	cd "$D"
	run --separate-stderr "$SBOX_EXEC" --rw 'with space' \
		-- sh -c 'echo ok >"with space/file"'
	assert_status 0
	assert_eq "$(cat "$D/with space/file")" ok
}

@test "a path with a trailing newline is that path, not a missing one" {
	mkdir "$D/x"$'\n'
	run --separate-stderr "$SBOX_EXEC" --rw "$D/x"$'\n' \
		-- sh -c 'echo ok >"$1/file"' sh "$D/x"$'\n'
	assert_status 0
	assert_eq "$(cat "$D/x"$'\n'"/file")" ok
}

@test "options end at the first non-option: the command's own flags pass through" {
	run --separate-stderr "$SBOX_EXEC" sh -c 'echo "$@"' sh --rw /nonexistent
	assert_status 0
	assert_eq "$output" "--rw /nonexistent"
}

@test "--help: exit 0, usage on stdout, nothing on stderr" {
	run --separate-stderr "$SBOX_EXEC" --help
	assert_status 0
	assert_eq "$stderr" ""
	assert_contains "$output" "Usage:"
	run --separate-stderr "$SBOX_EXEC" -h
	assert_status 0
	assert_eq "$stderr" ""
}

@test "--help mentions every long option the manual page lists" {
	local opt missing=
	run --separate-stderr "$SBOX_EXEC" --help
	assert_status 0
	for opt in fs=host fs=minimal rw ro hide ro-try rw-try allow-socket \
		no-net net chdir setenv unsetenv clearenv keep-fd tty bwrap \
		status-fd status-socket probe-timeout policy profile json quiet \
		verbose help version check print; do
		case $output in
		*"--$opt"*) ;;
		*) missing="$missing --$opt" ;;
		esac
	done
	assert_eq "$missing" ""
	for opt in -w -r -C -q -v -h -V; do
		assert_contains "$output" "$opt,"
	done
}

@test "--help acts where it stands, as in GNU tools: a bad option after it is ignored, one before it reported" {
	run --separate-stderr "$SBOX_EXEC" --help --fs=bogus
	assert_status 0
	assert_contains "$output" "Usage:"
	run --separate-stderr "$SBOX_EXEC" --help --no-such-option
	assert_status 0
	assert_contains "$output" "Usage:"

	run --separate-stderr "$SBOX_EXEC" --no-such-option --help
	assert_status 125
	assert_eq "$output" ""
	assert_contains "$stderr" "sbox-exec: unknown option '--no-such-option'"
	run --separate-stderr "$SBOX_EXEC" --fs=bogus --version
	assert_status 125
	assert_eq "$output" ""
	assert_contains "$stderr" "--fs"
}

@test "a short option unknown inside a cluster is named itself, not the word before" {
	run --separate-stderr "$SBOX_EXEC" --net -xq -- true
	assert_status 125
	assert_eq "$stderr" "sbox-exec: unknown option '-x'"
	run --separate-stderr "$SBOX_EXEC" --quiet=1 -- true
	assert_status 125
	assert_eq "$stderr" "sbox-exec: option '--quiet=1' takes no value"
}

@test "--help, --version, --print and --check --json with stdout full: 125 and a message" {
	[ -w /dev/full ] || skip "no /dev/full"
	local a
	for a in --help --version "--print -- true" "--check --json"; do
		# shellcheck disable=SC2086 # the options are split on purpose
		run bash -c '"$1" '"$a"' >/dev/full' bash "$SBOX_EXEC"
		assert_status 125
		assert_contains "$output" "sbox-exec: cannot write to standard output"
	done
}

@test "--version and -V: exit 0, name and version on stdout, nothing on stderr" {
	run --separate-stderr "$SBOX_EXEC" --version
	assert_status 0
	assert_eq "$stderr" ""
	[[ $output =~ ^sbox-exec\ [0-9] ]]
	run --separate-stderr "$SBOX_EXEC" -V
	assert_status 0
	assert_eq "$stderr" ""
	[[ $output =~ ^sbox-exec\ [0-9] ]]
}

# The internal entry point of stage two is no way to run a command outside
# a sandbox: called by hand, with a socketpair of its own, it refuses.
@test "--sbox-stage2 run by hand refuses and runs nothing" {
	local d
	d=$(scratch_dir)
	run --separate-stderr "$PY" "$(payload stage2-by-hand.py)" "$SBOX_EXEC" "$d"
	assert_status 125
	[ ! -e "$d/marker" ]
	assert_contains "$stderr" "sbox-exec: "
	# The control: the same command, plainly, does write the marker.
	sh -c "echo ran > $d/marker"
	[ -e "$d/marker" ]
}
