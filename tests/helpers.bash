# tests/helpers.bash - the one helper library of the bats files.  Every
# file loads it, and nothing else: `load helpers` in tests/, `load
# ../helpers` one level down (tests/escape/, tests/faults/).
#
# SBOX_EXEC     the binary under test (set by `make check`; by default
#               src/sbox-exec beside this file's tests/ directory)
# SBOX_PAYLOADS the test tools `make check` builds (the build tree's
#               tests/payloads/); the Python ones are read from this
#               file's tests/payloads/ (see payload)
# SBOX_TESTS_MUST_WORK=1  every "the kernel cannot do this here" skip
#               becomes a failure (CI sets it: a skipped security test
#               is a missing security test)
#
# Sections: set-up; requirements (and what the kernel has); scratch
# directories, payloads and copies for the unprivileged user; the two
# passes (root, then nobody) and terminals; assertions; background
# processes and teardown; listeners; status lines and messages.

# shellcheck disable=SC2016 # single-quoted scripts run by an inner shell

# --- set-up -------------------------------------------------------------

bats_require_minimum_version 1.5.0

# The source tree's tests/ directory: where this file is.
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
export TESTS_DIR
: "${SBOX_EXEC:=$TESTS_DIR/../src/sbox-exec}"
SBOX_EXEC=$(readlink -f "$SBOX_EXEC")
export SBOX_EXEC
: "${SBOX_PAYLOADS:=$(dirname "$SBOX_EXEC")/../tests/payloads}"
# An unprivileged test must not pick up a python3 under /root.
PY=/usr/bin/python3

# The working directory is the default project (sbox-exec(1), --project),
# so a test must not inherit it from wherever bats was started: below
# /tmp the sandbox cannot show it (its /tmp is private), below a 0700 home
# directory the unprivileged pass cannot enter it, and /var/tmp holds the
# home directories the tests make, which a project must not hold.  Each
# test starts in an empty directory of its own beside the scratch
# directories, that any user may enter, removed by common_teardown; so no
# result depends on where the checkout is or where the suite was started,
# and test files run in parallel share no working directory.  Outside a
# test (setup_file) the scratch base itself.
if [ -n "${BATS_TEST_TMPDIR:-}" ]; then
	TEST_CWD=$(mktemp -d "${SBOX_TEST_SCRATCH:-/var/tmp}/sbox-cwd.XXXXXX") ||
		exit 1
	chmod 0755 "$TEST_CWD"
	echo "$TEST_CWD" >>"$BATS_TEST_TMPDIR/.scratch"
	cd "$TEST_CWD" || exit 1
else
	cd "${SBOX_TEST_SCRATCH:-/var/tmp}" || exit 1
fi

# The machine's proxy variables would send --allow-host's requests to its
# proxy (sbox-exec(1), --upstream-proxy): no test depends on them.
unset HTTPS_PROXY https_proxy HTTP_PROXY http_proxy NO_PROXY no_proxy

# --- requirements -------------------------------------------------------

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
		bash-completion)
			[ -f /usr/share/bash-completion/bash_completion ] ||
				skip_or_fail "bash-completion is not installed" ;;
		*)
			command -v "$what" >/dev/null ||
				skip_or_fail "$what is not installed" ;;
		esac
	done
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

# Landlock ABI of this kernel (0 when there is none), asked of the kernel
# with landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION).
landlock_abi() {
	local try out
	try=$(payload try-syscall) || return 1
	if out=$("$try" landlock_create_ruleset 0 0 1); then
		echo "${out#ok }"
	else
		echo 0
	fi
}

# --- scratch directories, copies for the unprivileged user --------------

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

# payload NAME: the path of test tool NAME (tests/payloads/: a program
# `make check` built, or a script, NAME.py run with $PY or NAME.sh run
# with sh), as a copy an unprivileged user can execute; fails when there
# is none.
payload() {
	local f
	for f in "$SBOX_PAYLOADS/$1" "$TESTS_DIR/payloads/$1"; do
		case $f in
		*.py | *.sh | *.lua) [ -f "$f" ] || continue ;;
		*) [ -x "$f" ] || continue ;;
		esac
		unpriv_copy "$f"
		return
	done
	echo "no payload $1 in $SBOX_PAYLOADS or $TESTS_DIR/payloads:" \
		"build the test tools with make check" >&2
	return 1
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
# the credential list, the never-learned list and the profiles in
# PREFIX/share/sbox-exec; prints
# the binary's path.
install_sbox() {
	local share=$1/share/sbox-exec profiles
	mkdir -p "$1/bin" "$share/profiles"
	cp "$SBOX_EXEC" "$1/bin/sbox-exec"
	cp "$(sbox_credentials)" "$share/credentials"
	cp "$(dirname "$(sbox_credentials)")/never-learned" "$share/never-learned"
	profiles=$(dirname "$SBOX_EXEC")/../profiles
	[ -d "$profiles" ] || profiles=$(dirname "$SBOX_EXEC")/../share/sbox-exec/profiles
	cp "$profiles"/*.policy "$profiles"/aliases "$share/profiles/"
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

# --- the two passes: root, then an unprivileged user --------------------

# as_user CMD...: run CMD as an unprivileged user.  As root that is
# nobody (65534) through setpriv; otherwise we already are one.
as_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	else
		"$@"
	fi
}

# as_user_exec CMD...: as_user, but replacing the calling (sub)shell, so
# that in `( as_user_exec CMD ) &` $! is CMD's own pid.
as_user_exec() {
	if [ "$(id -u)" = 0 ]; then
		exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	fi
	exec "$@"
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

# usr_exec CMD...: like usr, but replacing the calling (sub)shell, so that
# in `bg usr_exec CMD` $BG_PID is CMD's own pid.
usr_exec() {
	if [ -n "${AS:-}" ]; then
		as_user_exec "$@"
	fi
	exec "$@"
}

# in_pty SHELL-COMMAND: run it on a new pty (script(1)) as the pass's
# user, the typed input from the file $TTY_INPUT (default: none); what
# appeared on the terminal in $output, without the terminal's \r.
# script(1) runs it with $SHELL, fixed here so that the caller's login
# shell does not matter.
in_pty() {
	run usr env SHELL=/bin/sh timeout 30 script -qec "$1" /dev/null \
		<"${TTY_INPUT:-/dev/null}"
	output=$(printf '%s' "$output" | tr -d '\r')
}

# drive STEP... -- COMMAND...: COMMAND as a job on a new terminal, driven
# by tests/payloads/pty-drive.py (see there) as the pass's user; its
# report (what appeared on the terminal, the exit code, whether the
# terminal's settings are as before) in $output.
drive() {
	local d
	d=$(payload pty-drive.py)
	run usr timeout 60 "$PY" "$d" "$@"
}

# --- assertions that say what they expected -----------------------------

assert_status() {
	if [ "$status" != "$1" ]; then
		echo "expected exit $1, got $status; output:" >&2
		printf '%s\n' "$output" >&2
		# run --separate-stderr keeps stderr apart: show it too.
		if [ -n "${stderr+set}" ]; then
			echo "stderr (of the last run --separate-stderr):" >&2
			printf '%s\n' "$stderr" >&2
		fi
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

# --- background processes and teardown ----------------------------------

# Background pids are kept in $BATS_TEST_TMPDIR/bg.pids and killed by
# common_teardown.

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

# on_teardown SHELL-LINE: run SHELL-LINE (one line) in teardown, the last
# recorded first.
on_teardown() {
	printf '%s\n' "$*" >>"$BATS_TEST_TMPDIR/cleanup"
}

# common_teardown: run what on_teardown recorded, kill what bg started,
# then remove the scratch directories.  A file's own teardown calls it.
common_teardown() {
	local cmd d pid
	if [ -f "$BATS_TEST_TMPDIR/cleanup" ]; then
		tac "$BATS_TEST_TMPDIR/cleanup" | while IFS= read -r cmd; do
			eval "$cmd" || true
		done
	fi
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

# --- listeners ----------------------------------------------------------

# start_listener KIND DIR [PATH [public]]: a host listener,
# tests/payloads/listener.py (see there; KIND tcp, abstract or path),
# run as the pass's user (usr_exec); its address in $LISTEN_ADDR, its
# connection log in $LISTEN_LOG.  tests/payloads/connect.py is its
# client.
start_listener() {
	local kind=$1 dir=$2 server
	shift 2
	server=$(payload listener.py)
	rm -f "$dir/addr" "$dir/addr.pid"
	LISTEN_LOG=$dir/connections
	: >"$LISTEN_LOG"
	chmod 0666 "$LISTEN_LOG"
	bg usr_exec "$PY" "$server" "$kind" "$dir/addr" "$LISTEN_LOG" "$@"
	wait_for 10 test -s "$dir/addr"
	forget_bg "$(cat "$dir/addr.pid")"
	LISTEN_ADDR=$(cat "$dir/addr")
}

# connections: how many connections the listener has accepted.
connections() {
	wc -l <"$LISTEN_LOG" | tr -d ' '
}

# --- status lines and messages ------------------------------------------

# json_get JSON KEY: a field of a status line (empty when absent).
json_get() {
	printf '%s' "$1" | jq -r --arg k "$2" '.[$k] // empty'
}

# assert_status_line FILE: FILE holds exactly one status line as sbox-exec(1)
# STATUS words it: one line ending in \n, at most 4096 bytes, valid
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
	"sbox-exec: sbox-exec:"*)
		printf 'expected one "sbox-exec: " prefix, got: %q\n' "$1" >&2
		return 1 ;;
	"sbox-exec: "?*) ;;
	*) printf 'expected "sbox-exec: ...", got: %q\n' "$1" >&2; return 1 ;;
	esac
}

# --- network by name (--allow-host) -------------------------------------

# start_web DIR [tls]: tests/payloads/web-server.py serving DIR/www on the
# host's loopback (HTTPS with a throw-away certificate for site.test,
# DIR/cert.pem, with tls); its port in $WEB_PORT, its request log in
# DIR/log.
start_web() {
	local dir=$1 server args=()
	server=$(payload web-server.py)
	rm -f "$dir/port"
	if [ "${2:-}" = tls ]; then
		openssl req -x509 -newkey rsa:2048 -nodes -days 1 \
			-keyout "$dir/key.pem" -out "$dir/cert.pem" \
			-subj /CN=site.test -addext subjectAltName=DNS:site.test \
			>/dev/null 2>&1
		chmod 0644 "$dir/key.pem" "$dir/cert.pem"
		args=("$dir/cert.pem" "$dir/key.pem")
	fi
	bg "$PY" "$server" "$dir/www" "$dir/port" "${args[@]}"
	wait_for 10 test -s "$dir/port"
	WEB_PORT=$(cat "$dir/port")
}

# limited_hsbx N ARGS...: hsbx ARGS under a soft RLIMIT_NOFILE of N.
limited_hsbx() {
	local n=$1
	shift
	(
		ulimit -Sn "$n"
		hsbx "$@"
	)
}

# limited_hsbx_hard N ARGS...: hsbx ARGS under a hard RLIMIT_NOFILE of N.
limited_hsbx_hard() {
	local n=$1
	shift
	(
		ulimit -n "$n"
		hsbx "$@"
	)
}

# own_address: an IPv4 address of this host that is not loopback (its
# eth0 address, say) in $OWN_ADDR; none is a failure where the tests must
# work.
own_address() {
	local a
	OWN_ADDR=
	for a in $(hostname -I 2>/dev/null); do
		case $a in
		127.* | *:*) ;;
		*)
			OWN_ADDR=$a
			return 0
			;;
		esac
	done
	skip_or_fail "this host has no IPv4 address but loopback"
}

# hsbx ARGS...: sbx ARGS with the file $HOSTS seen as /etc/hosts by
# sbox-exec and its proxy alone: a private mount namespace made by root,
# then, in the unprivileged pass, the pass's user.  With $RESOLV, that
# file is /etc/resolv.conf for them as well; with $NETNS (a
# /proc/PID/ns/net, see test_networks), sbox-exec runs in that network
# namespace; with $HSBX_TIMEOUT, it is killed after that many seconds.
# The machine's files are never touched.
hsbx() {
	local drop=() enter=() limit=()
	if [ -n "${HSBX_TIMEOUT:-}" ]; then
		limit=(timeout "$HSBX_TIMEOUT")
	fi
	if [ -n "${AS:-}" ]; then
		drop=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
	fi
	if [ -n "${NETNS:-}" ]; then
		enter=(nsenter --net="$NETNS" --)
	fi
	"${limit[@]}" "${enter[@]}" unshare -m --propagation private -- sh -c \
		'mount --bind "$1" /etc/hosts &&
		 { [ -z "$2" ] || mount --bind "$2" /etc/resolv.conf; } &&
		 shift 2 && exec "$@"' \
		sh "$HOSTS" "${RESOLV:-}" "${drop[@]}" "$SBOX" "$@"
}

# test_networks WORLD-NET...: two network namespaces made by root, each
# held by a sleeping process that teardown kills, for the proxy's address
# tests: "the host", /proc/PID/ns/net in $NET_HOST (hsbx runs sbox-exec
# there with NETNS=$NET_HOST), and "the world" ($NET_WORLD), joined by a
# veth link, 11.22.33.0/24 and 2a09:1::/64: the host .1 and ::1, the
# world .7 and ::7, the host's default routes through the world.  The
# world takes every address of each WORLD-NET as its own (a local route),
# so that one listener there on every address answers for all of them.
# The machine's own network is not touched.
test_networks() {
	local net fam
	requires ip nsenter
	bg unshare -n sleep 600
	NET_HOST=/proc/$BG_PID/ns/net
	bg unshare -n sleep 600
	NET_WORLD=/proc/$BG_PID/ns/net
	# Until unshare(1) has made its namespace, the process is in this
	# one, the machine's own: nothing is set up before both are new.
	wait_for 10 own_netns "$NET_HOST"
	wait_for 10 own_netns "$NET_WORLD"
	in_ns "$NET_HOST" ip link set lo up
	in_ns "$NET_WORLD" ip link set lo up
	in_ns "$NET_HOST" ip link add sbxh type veth peer name sbxw \
		netns "$BG_PID"
	in_ns "$NET_HOST" ip addr add 11.22.33.1/24 dev sbxh
	in_ns "$NET_HOST" ip addr add 2a09:1::1/64 dev sbxh nodad
	in_ns "$NET_HOST" ip link set sbxh up
	in_ns "$NET_WORLD" ip addr add 11.22.33.7/24 dev sbxw
	in_ns "$NET_WORLD" ip addr add 2a09:1::7/64 dev sbxw nodad
	in_ns "$NET_WORLD" ip link set sbxw up
	# The link's carrier comes a moment after both ends are up; until
	# then a route through it is refused ("Nexthop device is not up").
	wait_for 10 in_ns "$NET_HOST" ip route add default via 11.22.33.7 \
		2>/dev/null
	wait_for 10 in_ns "$NET_HOST" ip -6 route add default via 2a09:1::7 \
		2>/dev/null
	for net in "$@"; do
		case $net in *:*) fam=-6 ;; *) fam=-4 ;; esac
		in_ns "$NET_WORLD" ip "$fam" route add local "$net" dev lo
	done
}

# own_netns NETNS: whether NETNS (/proc/PID/ns/net) is another network
# namespace than this shell's.
own_netns() {
	local ns
	ns=$(readlink "$1") || return 1
	[ "$ns" != "$(readlink /proc/self/ns/net)" ]
}

# in_ns NETNS CMD...: CMD (a program) in network namespace NETNS, as root.
in_ns() {
	local ns=$1
	shift
	nsenter --net="$ns" -- "$@"
}

# in_ns_usr NETNS CMD...: CMD in NETNS as the pass's user, unsandboxed
# (the controls).
in_ns_usr() {
	local ns=$1
	shift
	if [ -n "${AS:-}" ]; then
		nsenter --net="$ns" -- setpriv --reuid=65534 --regid=65534 \
			--clear-groups -- "$@"
	else
		nsenter --net="$ns" -- "$@"
	fi
}

# start_addr_listener NETNS DIR: tests/payloads/addr-listener.py in
# NETNS, on every address; its port in $ADDR_PORT, the addresses it was
# reached at in DIR/reached.
start_addr_listener() {
	local server
	server=$(payload addr-listener.py)
	rm -f "$2/port"
	: >"$2/reached"
	chmod 0666 "$2/reached"
	bg nsenter --net="$1" -- "$PY" "$server" "$2/port" "$2/reached"
	wait_for 10 test -s "$2/port"
	ADDR_PORT=$(cat "$2/port")
}
