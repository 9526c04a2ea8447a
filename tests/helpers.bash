# tests/helpers.bash - shared by every tests/*.bats file: `load helpers`.
#
# SBOX_EXEC     the binary under test (set by `make check`)
# SBOX_TESTS_MUST_WORK=1  every "the kernel cannot do this here" skip
#               becomes a failure (CI sets it: a skipped security test
#               is a missing security test)

: "${SBOX_EXEC:=$BATS_TEST_DIRNAME/../src/sbox-exec}"
SBOX_EXEC=$(readlink -f "$SBOX_EXEC")
export SBOX_EXEC
TESTS_DIR=$(readlink -f "$BATS_TEST_DIRNAME")
export TESTS_DIR
# An unprivileged test must not pick up a python3 under /root.
PY=/usr/bin/python3

# Tests run sbox-exec from wherever bats was started, and the sandbox
# shows the working directory only when it is not below its private /tmp:
# a checkout under /tmp would refuse every run.  Start each file from a
# directory the sandbox shows and any user may enter.
if [ "$(pwd -P)" = /tmp ] || [ "${PWD#/tmp/}" != "$PWD" ]; then
	cd "${SBOX_TEST_SCRATCH:-/var/tmp}" || exit 1
fi

# skip_or_fail REASON: skip, unless SBOX_TESTS_MUST_WORK=1.
skip_or_fail() {
	if [ "${SBOX_TESTS_MUST_WORK:-0}" = 1 ]; then
		echo "required but unavailable: $*" >&2
		return 1
	fi
	skip "$*"
}

# requires WHAT...: root, unprivileged-capable, userns, python3, socat...
requires() {
	local what
	for what in "$@"; do
		case $what in
		root)
			[ "$(id -u)" = 0 ] || skip_or_fail "needs root" ;;
		userns)
			unshare -Ur true 2>/dev/null ||
				skip_or_fail "unprivileged user namespaces are not available" ;;
		bwrap)
			command -v bwrap >/dev/null ||
				skip_or_fail "bwrap is not installed" ;;
		setpriv)
			command -v setpriv >/dev/null ||
				skip_or_fail "setpriv is not installed" ;;
		python3)
			[ -x "$PY" ] || skip_or_fail "$PY is not installed" ;;
		*)
			command -v "$what" >/dev/null ||
				skip_or_fail "$what is not installed" ;;
		esac
	done
}

# A scratch directory outside /tmp (the sandbox's /tmp is private), open
# to the unprivileged test user too.  Removed by common_teardown.
scratch_dir() {
	local d
	d=$(mktemp -d "${SBOX_TEST_SCRATCH:-/var/tmp}/sbox-test.XXXXXX")
	chmod 0777 "$d"
	echo "$d" >>"$BATS_TEST_TMPDIR/.scratch"
	echo "$d"
}

# unpriv_copy FILE: a copy of FILE that an unprivileged user can read and
# execute (a clone may live below a 0700 home directory); prints its path.
unpriv_copy() {
	if [ -z "${UNPRIV_DIR:-}" ] || [ ! -d "$UNPRIV_DIR" ]; then
		UNPRIV_DIR=$(scratch_dir)
		chmod 0755 "$UNPRIV_DIR"
	fi
	local dest
	dest=$UNPRIV_DIR/$(basename "$1")
	[ -e "$dest" ] || { cp "$1" "$dest" && chmod 0755 "$dest"; }
	echo "$dest"
}

# sbox_credentials: the shipped credential list the binary under test
# reads: ../data/credentials in a build tree (beside ../profiles), else
# the installed one (beside its profiles/).
sbox_credentials() {
	local dir
	dir=$(dirname "$SBOX_EXEC")
	if [ -f "$dir/../data/credentials" ]; then
		echo "$dir/../data/credentials"
	else
		echo "$dir/../share/sbox-exec/credentials"
	fi
}

# install_sbox PREFIX: sbox-exec as a relocated install, PREFIX/bin, with
# the credential list and the profiles in PREFIX/share/sbox-exec; prints
# the binary's path.
install_sbox() {
	local share=$1/share/sbox-exec profiles
	mkdir -p "$1/bin" "$share/profiles"
	cp "$SBOX_EXEC" "$1/bin/sbox-exec"
	cp "$(sbox_credentials)" "$share/credentials"
	profiles=$(dirname "$SBOX_EXEC")/../profiles
	[ -d "$profiles" ] || profiles=$(dirname "$SBOX_EXEC")/../share/sbox-exec/profiles
	cp "$profiles"/*.policy "$share/profiles/"
	chmod -R a+rX "$1"
	echo "$1/bin/sbox-exec"
}

# The binary, where an unprivileged user can execute it (a relocated
# install, so that it finds its data files).
unpriv_sbox() {
	if [ -z "${UNPRIV_DIR:-}" ] || [ ! -d "$UNPRIV_DIR" ]; then
		UNPRIV_DIR=$(scratch_dir)
		chmod 0755 "$UNPRIV_DIR"
	fi
	if [ ! -e "$UNPRIV_DIR/prefix/bin/sbox-exec" ]; then
		install_sbox "$UNPRIV_DIR/prefix" >/dev/null
	fi
	echo "$UNPRIV_DIR/prefix/bin/sbox-exec"
}

# as_user CMD...: run CMD as an unprivileged user.  As root that is
# nobody (65534) through setpriv; otherwise we already are one.
as_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	else
		"$@"
	fi
}

# each_user NAME: run the test body function NAME as root (when we are
# root) and again as an unprivileged user; $SBOX is set for each pass.
each_user() {
	local fn=$1
	if [ "$(id -u)" = 0 ]; then
		# Not "fn || return": that would switch off errexit inside fn.
		SBOX=$SBOX_EXEC AS="" "$fn"
	fi
	requires setpriv
	SBOX=$(unpriv_sbox) AS=as_user "$fn"
}

# sbx ARGS...: sbox-exec ($SBOX) with ARGS, as the current pass's user.
sbx() {
	if [ -n "${AS:-}" ]; then
		"$AS" "$SBOX" "$@"
	else
		"$SBOX" "$@"
	fi
}

# usr CMD...: CMD as the current pass's user, unsandboxed (the controls).
usr() {
	if [ -n "${AS:-}" ]; then
		"$AS" "$@"
	else
		"$@"
	fi
}

# drive STEP... -- COMMAND...: COMMAND as a job on a new terminal, driven
# by tests/pty-drive.py (see there) as the pass's user; its report (what
# appeared on the terminal, the exit code, whether the terminal's settings
# are as before) in $output.
drive() {
	local d
	d=$(unpriv_copy "$PTY_DRIVE")
	run usr timeout 60 "$PY" "$d" "$@"
}
PTY_DRIVE=$(readlink -f "${BASH_SOURCE[0]%/*}/pty-drive.py")

# json_get JSON KEY: a field of a status line (empty when absent).
json_get() {
	printf '%s' "$1" | jq -r --arg k "$2" '.[$k] // empty'
}

# Assertions that say what they expected.
assert_status() {
	if [ "$status" != "$1" ]; then
		echo "expected exit $1, got $status; output:" >&2
		printf '%s\n' "$output" >&2
		return 1
	fi
}

assert_eq() {
	if [ "$1" != "$2" ]; then
		printf 'expected: %q\n     got: %q\n' "$2" "$1" >&2
		return 1
	fi
}

assert_contains() {
	case $1 in
	*"$2"*) ;;
	*) printf 'expected %q to contain %q\n' "$1" "$2" >&2; return 1 ;;
	esac
}

# Background processes, listeners and file assertions shared by
# tests/enforce.bats and tests/escape/.  Background pids are kept in
# $BATS_TEST_TMPDIR/bg.pids and killed by common_teardown.
# usr_exec CMD...: like usr, but replacing the calling (sub)shell, so that
# in `bg usr_exec CMD` $BG_PID is CMD's own pid.
usr_exec() {
	if [ -n "${AS:-}" ]; then
		as_user_exec "$@"
	fi
	exec "$@"
}

# bg CMD...: start CMD in the background, away from bats' descriptors;
# teardown kills it.  Its pid is in $BG_PID (for a CMD that is a
# function, that is the subshell's pid: see usr_exec).
bg() {
	"$@" </dev/null >/dev/null 2>&1 3>&- &
	BG_PID=$!
	disown "$BG_PID"
	echo "$BG_PID" >>"$BATS_TEST_TMPDIR/bg.pids"
}

# forget_bg PID...: also kill these in teardown.
forget_bg() {
	printf '%s\n' "$@" >>"$BATS_TEST_TMPDIR/bg.pids"
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds; fail
# after SECONDS.
wait_for() {
	local tries=$(($1 * 10))
	shift
	while ! "$@"; do
		tries=$((tries - 1))
		if [ "$tries" -le 0 ]; then
			echo "timed out waiting for: $*" >&2
			return 1
		fi
		sleep 0.1
	done
}

# assert_absent PATH: PATH does not exist on the host.
assert_absent() {
	if [ -e "$1" ] || [ -L "$1" ]; then
		echo "expected $1 not to exist on the host, but it does" >&2
		return 1
	fi
}

# assert_file PATH CONTENT: PATH exists on the host and holds CONTENT.
assert_file() {
	if [ ! -f "$1" ]; then
		echo "expected $1 on the host, it is missing" >&2
		return 1
	fi
	assert_eq "$(cat "$1")" "$2"
}

# Landlock ABI of this kernel (0 when there is none), asked of the kernel
# with landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION).
landlock_abi() {
	"$PY" -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
v = libc.syscall(444, None, 0, 1)
print(v if v > 0 else 0)
'
}

# A host listener that answers every connection with "pong" and appends
# one line per connection to LOG.  argv: KIND ADDRFILE LOG [ARG], KIND
# tcp (127.0.0.1, any port), abstract (a random name) or path (ARG: the
# socket's path; mode 0666 when a fifth argument "public" is given).
# Once listening it writes its address to ADDRFILE and its pid to
# ADDRFILE.pid.  It exits after 60 s without a connection.
SERVE_PY='
import os, socket, sys
kind, out, log = sys.argv[1], sys.argv[2], sys.argv[3]
if kind == "tcp":
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    addr = str(s.getsockname()[1])
elif kind == "abstract":
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    addr = "sbox-test-%d-%s" % (os.getpid(), os.urandom(4).hex())
    s.bind("\0" + addr)
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    addr = sys.argv[4]
    s.bind(addr)
    if sys.argv[5:] == ["public"]:
        os.chmod(addr, 0o666)
s.listen(16)
with open(out + ".pid", "w") as f:
    f.write(str(os.getpid()))
with open(out + ".tmp", "w") as f:
    f.write(addr)
os.rename(out + ".tmp", out)
s.settimeout(60)
while True:
    c, _ = s.accept()
    with open(log, "a") as f:
        f.write("connection\n")
    c.sendall(b"pong\n")
    c.close()
'

# The client: argv tcp PORT | abstract NAME | path PATH; prints what it
# received.
CLIENT_PY='
import socket, sys
kind, addr = sys.argv[1], sys.argv[2]
if kind == "tcp":
    s = socket.create_connection(("127.0.0.1", int(addr)), timeout=3)
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect("\0" + addr if kind == "abstract" else addr)
sys.stdout.write(s.recv(16).decode())
'

# start_listener KIND DIR [PATH [public]]: a host listener, run as the
# pass's user (usr_exec); its address in $LISTEN_ADDR, its connection log
# in $LISTEN_LOG.
start_listener() {
	local kind=$1 dir=$2
	shift 2
	rm -f "$dir/addr" "$dir/addr.pid"
	LISTEN_LOG=$dir/connections
	: >"$LISTEN_LOG"
	chmod 0666 "$LISTEN_LOG"
	bg usr_exec "$PY" -c "$SERVE_PY" "$kind" "$dir/addr" "$LISTEN_LOG" "$@"
	wait_for 10 test -s "$dir/addr"
	forget_bg "$(cat "$dir/addr.pid")"
	LISTEN_ADDR=$(cat "$dir/addr")
}

common_teardown() {
	local d pid
	if [ -f "$BATS_TEST_TMPDIR/bg.pids" ]; then
		while read -r pid; do
			[ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null || true
		done <"$BATS_TEST_TMPDIR/bg.pids"
	fi
	if [ -f "$BATS_TEST_TMPDIR/.scratch" ]; then
		while read -r d; do
			[ -n "$d" ] && rm -rf -- "$d"
		done <"$BATS_TEST_TMPDIR/.scratch"
	fi
}

teardown() {
	common_teardown
}

# --- added for locate/status/cli/policy-file/check-print ---

# wait_for_file FILE [SECONDS]: wait until FILE exists, at most SECONDS
# (default 10); fails when it never appears.
wait_for_file() {
	local i n=$(( ${2:-10} * 10 ))
	for (( i = 0; i < n; i++ )); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	echo "timed out waiting for $1" >&2
	return 1
}

# assert_status_line FILE: FILE holds exactly one status line as SPEC
# "Status" words it: one line ending in \n, at most 4096 bytes, valid
# UTF-8, one JSON object with "version":1 and a "status" string.
assert_status_line() {
	local f=$1 size nl
	[ -s "$f" ] || { echo "no status in $f" >&2; return 1; }
	size=$(wc -c <"$f")
	nl=$(tr -cd '\n' <"$f" | wc -c)
	[ "$nl" -eq 1 ] || { echo "status has $nl newlines: $(cat -v "$f")" >&2; return 1; }
	[ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ] ||
		{ echo "status does not end in a newline" >&2; return 1; }
	[ "$size" -le 4096 ] || { echo "status is $size bytes" >&2; return 1; }
	# Python's decoder is strict: no surrogates, overlongs or > U+10FFFF.
	"$PY" -c 'import sys; sys.stdin.buffer.read().decode("utf-8")' \
		<"$f" 2>/dev/null ||
		{ echo "status is not valid UTF-8: $(cat -v "$f")" >&2; return 1; }
	jq -e 'type == "object" and .version == 1 and (.status | type) == "string"' \
		"$f" >/dev/null ||
		{ echo "not a status object: $(cat -v "$f")" >&2; return 1; }
}

# assert_sbox_message TEXT: TEXT (e.g. $stderr) is exactly one line, and
# it starts with "sbox-exec: ".
assert_sbox_message() {
	case $1 in
	*$'\n'*) printf 'expected one line, got: %q\n' "$1" >&2; return 1 ;;
	"sbox-exec: "?*) ;;
	*) printf 'expected "sbox-exec: ...", got: %q\n' "$1" >&2; return 1 ;;
	esac
}

# as_user_exec CMD...: as_user, but replacing the calling (sub)shell, so
# that in `( as_user_exec CMD ) &` $! is CMD's own pid.
as_user_exec() {
	if [ "$(id -u)" = 0 ]; then
		exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	fi
	exec "$@"
}

# Test tools built by `make check` (tests/payloads/), found beside the
# binary under test in a build tree, or where SBOX_PAYLOADS says.
: "${SBOX_PAYLOADS:=$(dirname "$SBOX_EXEC")/../tests/payloads}"

# payload NAME: the path of payload NAME, as a copy an unprivileged user
# can execute; fails when it has not been built.
payload() {
	if [ ! -x "$SBOX_PAYLOADS/$1" ]; then
		echo "no $SBOX_PAYLOADS/$1: build the test tools with make check" >&2
		return 1
	fi
	unpriv_copy "$SBOX_PAYLOADS/$1"
}
