# tests/escape/common.bash - shared by the escape catalogue,
# tests/escape/*.bats: `load common`.
#
# Every test there is one route out of the sandbox.  It first makes the
# attempt WITHOUT the sandbox, as the same user, and shows that it works
# (the control: a sbox-exec that ran the command unsandboxed fails the
# test), then makes it inside sbox-exec, shows that it fails there, and
# checks on the host that the file, socket or process it aimed at is
# unchanged.

# Single-quoted scripts are expanded by the inner shell (SC2016); bats'
# @test bodies are functions, not subshells (SC2030/SC2031); variables set
# here are used by the .bats files, and bats' `run` sets status and output
# (SC2034/SC2154).
# shellcheck disable=SC2016,SC2030,SC2031,SC2034,SC2154

# helpers.bash's default is relative to tests/, one level up from here.
: "${SBOX_EXEC:=$BATS_TEST_DIRNAME/../../src/sbox-exec}"
load ../helpers

bats_require_minimum_version 1.5.0

setup() {
	escape_setup
}

# escape_setup: what every test needs; a file's own setup calls it first.
escape_setup() {
	requires bwrap userns
	BG_PIDS_FILE=$BATS_TEST_TMPDIR/bg.pids
	CLEANUP_FILE=$BATS_TEST_TMPDIR/cleanup
}

teardown() {
	escape_teardown
}

# escape_teardown: kill what bg started, run what on_teardown recorded
# (last first), then remove the scratch directories.
escape_teardown() {
	local pid cmd
	if [ -f "$BG_PIDS_FILE" ]; then
		while read -r pid; do
			[ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null || true
		done <"$BG_PIDS_FILE"
	fi
	if [ -f "$CLEANUP_FILE" ]; then
		tac "$CLEANUP_FILE" | while IFS= read -r cmd; do
			eval "$cmd" || true
		done
	fi
	common_teardown
}

# on_teardown SHELL-LINE: run SHELL-LINE (one line) in teardown.
on_teardown() {
	printf '%s\n' "$*" >>"$CLEANUP_FILE"
}

# bg CMD...: start CMD in the background, away from bats' descriptors;
# teardown kills it.  Its pid is in $BG_PID (for a CMD that is a
# function, that is the subshell's pid: see usr_exec).
bg() {
	"$@" </dev/null >/dev/null 2>&1 3>&- &
	BG_PID=$!
	disown "$BG_PID"
	echo "$BG_PID" >>"$BG_PIDS_FILE"
}

# forget_bg PID...: also kill these in teardown.
forget_bg() {
	printf '%s\n' "$@" >>"$BG_PIDS_FILE"
}

# usr_exec CMD...: like usr, but replacing the calling (sub)shell, so that
# in `bg usr_exec CMD` $BG_PID is CMD's own pid.
usr_exec() {
	if [ -n "${AS:-}" ]; then
		as_user_exec "$@"
	fi
	exec "$@"
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

# refute_contains TEXT NEEDLE: TEXT does not contain NEEDLE.
refute_contains() {
	case $1 in
	*"$2"*)
		printf 'expected %q not to contain %q\n' "$1" "$2" >&2
		return 1 ;;
	esac
}

# assert_failed WHAT: the last `run` exited non-zero; WHAT says what
# succeeded otherwise.
assert_failed() {
	if [ "$status" -eq 0 ]; then
		echo "inside the sandbox, $1 succeeded; output:" >&2
		printf '%s\n' "$output" >&2
		return 1
	fi
}

# tree_state DIR: a listing of everything below DIR, with type, mode,
# owner, size, mtime, link target and a checksum of each file: equal
# before and after means the host was left unchanged.
tree_state() {
	(
		cd "$1" || exit 1
		find . -printf '%p %y %m %U:%G %s %T@ %l\n' | LC_ALL=C sort
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum
	)
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

# requires_landlock_scoping: Landlock with abstract-socket and signal
# scoping (ABI >= 6).  The LSM list is checked where securityfs is
# mounted; the kernel's answer on the ABI decides.
requires_landlock_scoping() {
	local lsm=/sys/kernel/security/lsm abi
	if [ -r "$lsm" ] && ! grep -qw landlock "$lsm"; then
		skip_or_fail "Landlock is not an active LSM ($(cat "$lsm"))"
		return
	fi
	abi=$(landlock_abi)
	[ "$abi" -ge 6 ] ||
		skip_or_fail "Landlock ABI $abi < 6: no abstract-socket scoping"
}

# System call numbers used by the ctypes helpers (x86_64, aarch64).
case $(uname -m) in
x86_64) NR_IOCTL=16 NR_ADD_KEY=248 NR_KEYCTL=250 NR_PTRACE=101 ;;
aarch64) NR_IOCTL=29 NR_ADD_KEY=217 NR_KEYCTL=219 NR_PTRACE=117 ;;
*) NR_IOCTL="" NR_ADD_KEY="" NR_KEYCTL="" NR_PTRACE="" ;;
esac

# requires_syscall_numbers: this architecture's numbers are known here.
requires_syscall_numbers() {
	[ -n "$NR_KEYCTL" ] ||
		skip_or_fail "no system call numbers for $(uname -m) in tests/escape/common.bash"
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

# connections: how many connections the listener has accepted.
connections() {
	wc -l <"$LISTEN_LOG" | tr -d ' '
}

# compile NAME: compile the C source in $C_SRC, with the extra compiler
# flags in $C_FLAGS, into an executable NAME in a scratch directory the
# unprivileged user can read; prints its path.
compile() {
	local dir
	dir=$(scratch_dir)
	chmod 0755 "$dir"
	printf '%s\n' "$C_SRC" >"$dir/$1.c"
	# shellcheck disable=SC2086 # flags are words
	cc -O ${C_FLAGS:-} -o "$dir/$1" "$dir/$1.c" >&2 || return 1
	chmod 0755 "$dir/$1"
	echo "$dir/$1"
}
