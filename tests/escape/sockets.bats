#!/usr/bin/env bats
# Escape catalogue: sockets.  sbox-exec(1) HOST PROTECTION: the
# runtime directory and the service sockets under /run are hidden (a
# pathname socket on a read-only mount is still connectable); OPTIONS, Network:
# own network namespace without --net, host abstract sockets unreachable
# (with --net too where Landlock scoping exists); man page HOST
# PROTECTION: the --status-socket path is hidden, so that the command
# cannot forge a status.  Every listener runs on the host as the pass's
# user (or root, for /run/docker.sock) and logs each connection it
# accepts: after the attempt, it has seen only the control's.  See
# tests/README.

# shellcheck disable=SC2016,SC2030,SC2031
load ../helpers

setup() {
	requires bwrap userns
	# The listeners' client (start_listener): KIND ADDR, prints "pong".
	CLIENT=$(payload connect.py)
}

# assert_unreached KIND ADDR: from the sandbox (extra sbox-exec options
# in $SBX_OPTS), the client cannot reach the listener, which has seen
# only the control's connection.
assert_unreached() {
	# shellcheck disable=SC2086 # options are words
	run sbx ${SBX_OPTS:-} -- timeout 10 "$PY" "$CLIENT" "$1" "$2"
	assert_failed "connecting to the host listener"
	refute_contains "$output" pong
	assert_eq "$(connections)" 1
}

# control_reaches KIND ADDR: unsandboxed, this user reaches the listener.
control_reaches() {
	run usr timeout 10 "$PY" "$CLIENT" "$1" "$2"
	assert_status 0
	assert_eq "$output" pong
	assert_eq "$(connections)" 1
}

# runtime_dir DIR: XDG_RUNTIME_DIR=DIR/run, owned by the pass's user,
# with a listener on DIR/run/bus (a session bus, say).
runtime_dir() {
	export XDG_RUNTIME_DIR=$1/run
	usr mkdir -m 0700 "$XDG_RUNTIME_DIR"
	start_listener path "$1" "$XDG_RUNTIME_DIR/bus"
}

_runtime_socket() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	runtime_dir "$d"
	control_reaches path "$XDG_RUNTIME_DIR/bus"

	SBX_OPTS="" assert_unreached path "$XDG_RUNTIME_DIR/bus"
	[ -S "$XDG_RUNTIME_DIR/bus" ] || { echo "the host socket is gone" >&2; return 1; }
}

@test "a unix socket in \$XDG_RUNTIME_DIR cannot be connected to" {
	requires python3 timeout
	each_user _runtime_socket
}

_runtime_socket_parent_rw() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	runtime_dir "$d"
	control_reaches path "$XDG_RUNTIME_DIR/bus"

	SBX_OPTS="--rw $d" assert_unreached path "$XDG_RUNTIME_DIR/bus"
	[ -S "$XDG_RUNTIME_DIR/bus" ] || { echo "the host socket is gone" >&2; return 1; }
}

@test "a unix socket in \$XDG_RUNTIME_DIR stays unreachable when a directory above it is granted --rw" {
	requires python3 timeout
	each_user _runtime_socket_parent_rw
}

_docker_socket() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	# The listener (root's) accepts from everyone, as docker's group would.
	LISTEN_LOG=$DOCKER_LOG
	: >"$LISTEN_LOG"
	control_reaches path /run/docker.sock

	SBX_OPTS="" assert_unreached path /run/docker.sock
	[ -S /run/docker.sock ] || { echo "the host socket is gone" >&2; return 1; }
}

@test "a docker-style socket under /run (/run/docker.sock) cannot be connected to" {
	requires root python3 timeout flock
	local d lock
	# One host path for every copy of the suite that may run at once
	# (scripts/test-all runs two): one at a time, through a lock on /run
	# itself (nothing left behind), held by this test's process until it
	# ends, after teardown has removed the socket.
	exec {lock}</run
	flock -w 300 "$lock" ||
		skip_or_fail "another test run kept /run/docker.sock for 5 minutes"
	if [ -e /run/docker.sock ] || [ -L /run/docker.sock ]; then
		skip_or_fail "/run/docker.sock already exists on this host; not touching it"
		return
	fi
	d=$(scratch_dir)
	on_teardown 'rm -f /run/docker.sock'
	AS="" start_listener path "$d" /run/docker.sock public
	DOCKER_LOG=$LISTEN_LOG
	each_user _docker_socket
}

_tcp_loopback() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	start_listener tcp "$d"
	control_reaches tcp "$LISTEN_ADDR"

	SBX_OPTS="" assert_unreached tcp "$LISTEN_ADDR"
	assert_status 1
	assert_contains "$output" ConnectionRefusedError

	# With --net, the host network is shared (stderr: what --net cannot
	# protect).
	run --separate-stderr sbx --net -- timeout 10 "$PY" "$CLIENT" tcp "$LISTEN_ADDR"
	assert_status 0
	assert_eq "$output" pong
	assert_eq "$(connections)" 2
}

@test "TCP to a host 127.0.0.1 listener fails without --net and works with --net" {
	requires python3 timeout
	each_user _tcp_loopback
}

_abstract_no_net() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	start_listener abstract "$d"
	control_reaches abstract "$LISTEN_ADDR"

	SBX_OPTS="" assert_unreached abstract "$LISTEN_ADDR"
	assert_status 1
	assert_contains "$output" ConnectionRefusedError
}

@test "a host abstract unix socket cannot be connected to without --net" {
	requires python3 timeout
	each_user _abstract_no_net
}

_abstract_net() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	start_listener abstract "$d"
	control_reaches abstract "$LISTEN_ADDR"

	SBX_OPTS="--net --status-fd=3" assert_unreached abstract "$LISTEN_ADDR" \
		3>"$d/status"
	# The status says so.
	assert_eq "$(json_get "$(cat "$d/status")" abstract_unix)" blocked
	# ... while the host network itself is shared.
	start_listener tcp "$d"
	run --separate-stderr sbx --net -- timeout 10 "$PY" "$CLIENT" tcp "$LISTEN_ADDR"
	assert_status 0
	assert_eq "$output" pong
}

# sbox-exec(1) --net: host abstract sockets stay unreachable where the
# kernel has Landlock scoping (ABI 6, Linux 6.12).
@test "with --net (Landlock scoping), a host abstract unix socket cannot be connected to" {
	requires python3 timeout jq
	requires_landlock_scoping
	each_user _abstract_net
}

_abstract_net_truth() {
	local d abstract
	d=$(scratch_dir)
	cd "$d" || return 1
	start_listener abstract "$d"
	control_reaches abstract "$LISTEN_ADDR"

	run --separate-stderr sbx --net --status-fd=3 -- \
		timeout 10 "$PY" "$CLIENT" abstract "$LISTEN_ADDR" 3>"$d/status"
	abstract=$(json_get "$(cat "$d/status")" abstract_unix)
	case $abstract in
	reachable)
		assert_status 0
		assert_eq "$output" pong ;;
	blocked)
		refute_contains "$output" pong
		assert_eq "$(connections)" 1 ;;
	*)
		echo "abstract_unix is '$abstract'" >&2
		return 1 ;;
	esac
}

# The status promises what the command can reach; it must not lie.
@test "with --net, abstract_unix in the status matches what the command can reach" {
	requires python3 timeout jq
	each_user _abstract_net_truth
}

# The host's abstract names (sbox-exec(1), --net and STATUS): without
# --net the sandbox has its own, and neither sees the host's in
# /proc/net/unix nor offers a name a host client could reach; with --net
# no kernel keeps them apart, and the status (abstract_names "shared")
# and stderr say so, truthfully.
_abstract_names() {
	local d listener name
	d=$(scratch_dir)
	cd "$d" || return 1
	listener=$(payload listener.py)
	start_listener abstract "$d"
	# Control: unsandboxed, the user lists the host's name...
	run usr grep -c "@$LISTEN_ADDR\$" /proc/net/unix
	assert_eq "$output" 1
	# ...and a name the user binds is reached by a host client.
	usr mkdir "$d/out"
	bg usr_exec "$PY" "$listener" abstract "$d/out/addr" "$d/out/log"
	wait_for 10 test -s "$d/out/addr"
	forget_bg "$(cat "$d/out/addr.pid")"
	run usr timeout 10 "$PY" "$CLIENT" abstract "$(cat "$d/out/addr")"
	assert_eq "$output" pong

	# Without --net: not listed, and a name bound inside is not the
	# host's.
	# (The count's 0 is grep's failure: || true, so that stderr is
	# sbox-exec's silence alone.)
	run --separate-stderr sbx --status-fd=3 -- \
		sh -c 'grep -c "@$1\$" /proc/net/unix || true' sh "$LISTEN_ADDR" 3>"$d/status"
	assert_eq "$output" 0
	assert_eq "$stderr" ""
	assert_eq "$(json_get "$(cat "$d/status")" abstract_names)" private
	rm -rf "$d/in" && usr mkdir "$d/in"
	bg usr_exec "$SBOX" --rw "$d/in" -- "$PY" "$listener" abstract \
		"$d/in/addr" "$d/in/log"
	wait_for 20 test -s "$d/in/addr"
	name=$(cat "$d/in/addr")
	run usr timeout 10 "$PY" "$CLIENT" abstract "$name"
	assert_failed "a host client reaching a name bound in the sandbox"
	refute_contains "$output" pong
	assert_eq "$(cat "$d/in/log" 2>/dev/null)" ""

	# With --net: the status and stderr say the names are shared...
	run --separate-stderr sbx --net --status-fd=3 -- \
		sh -c 'grep -c "@$1\$" /proc/net/unix' sh "$LISTEN_ADDR" 3>"$d/status"
	assert_eq "$(json_get "$(cat "$d/status")" abstract_names)" shared
	assert_contains "$stderr" "sbox-exec: warning: --net shares the host's abstract unix socket names: the command can"
	assert_contains "$stderr" "list them (/proc/net/unix) and bind free ones"
	# ...and they are: listed, and a name bound inside is reached by a
	# host client.
	assert_eq "$output" 1
	rm -rf "$d/in" && usr mkdir "$d/in"
	bg usr_exec "$SBOX" --net --rw "$d/in" -- "$PY" "$listener" abstract \
		"$d/in/addr" "$d/in/log"
	wait_for 20 test -s "$d/in/addr"
	name=$(cat "$d/in/addr")
	run usr timeout 10 "$PY" "$CLIENT" abstract "$name"
	assert_eq "$output" pong
	# -q: the status still says it, stderr does not.
	run --separate-stderr sbx -q --net --status-fd=3 -- true 3>"$d/status"
	assert_eq "$stderr" ""
	assert_eq "$(json_get "$(cat "$d/status")" abstract_names)" shared
}

@test "the host's abstract names: private without --net; with --net listed and bindable, as the status and stderr say" {
	requires python3 timeout jq
	each_user _abstract_names
}

# A kernel without Landlock scoping (tests/payloads/hide-landlock): with
# --net the host's abstract sockets can be connected to, and the status
# and stderr say that too.
_abstract_net_no_scoping() {
	local d hide
	d=$(scratch_dir)
	cd "$d" || return 1
	hide=$(payload hide-landlock)
	start_listener abstract "$d"
	control_reaches abstract "$LISTEN_ADDR"
	run --separate-stderr usr "$hide" "$SBOX" --net --status-fd=3 -- \
		timeout 10 "$PY" "$CLIENT" abstract "$LISTEN_ADDR" 3>"$d/status"
	assert_eq "$(json_get "$(cat "$d/status")" landlock)" none
	assert_eq "$(json_get "$(cat "$d/status")" abstract_unix)" reachable
	assert_eq "$(json_get "$(cat "$d/status")" abstract_names)" shared
	assert_contains "$stderr" "the command can connect to the host's (this kernel has no Landlock scoping"
	assert_eq "$output" pong
	assert_eq "$(connections)" 2
	# The same kernel without --net: nothing to say, nothing reached.
	run --separate-stderr usr "$hide" "$SBOX" --status-fd=3 -- \
		timeout 10 "$PY" "$CLIENT" abstract "$LISTEN_ADDR" 3>"$d/status"
	assert_failed "connecting to the host's abstract socket without --net"
	assert_eq "$(json_get "$(cat "$d/status")" abstract_unix)" blocked
	refute_contains "$stderr" "--net shares"
	assert_eq "$(connections)" 2
}

@test "on a kernel without Landlock scoping, --net says that host abstract sockets can be connected to, and they can" {
	requires python3 timeout jq
	each_user _abstract_net_no_scoping
}

_status_socket_forge() {
	local d rw sock out listen send forged
	d=$(scratch_dir)
	rw=$d/work
	usr mkdir "$rw"
	sock=$rw/status.sock
	out=$d/received
	cd "$rw" || return 1
	listen=$(payload status-listen.py)
	# PATH TEXT: sends TEXT to PATH; prints "sent" or "refused: ERROR".
	send=$(payload send-dgram.py)
	forged='{"version":1,"status":"success","pid":1}'

	# The caller's listener: every datagram until 3 s of silence.
	bg usr_exec "$PY" "$listen" "$sock" "$d/ready" "$out" 3
	wait_for 10 test -e "$d/ready"

	# Control: unsandboxed, this user can send to the status socket.
	run usr "$PY" "$send" "$sock" "control:$forged"
	assert_status 0
	assert_eq "$output" sent

	run sbx --status-socket="$sock" --rw "$rw" -- \
		"$PY" "$send" "$sock" "forged:$forged"
	assert_status 1
	assert_contains "$output" refused
	wait_for 20 test -e "$out"
	# The control's datagram, then sbox-exec's own status, and no other.
	run jq -r .data "$out"
	assert_eq "${#lines[@]}" 2
	assert_eq "${lines[0]}" "control:$forged"
	assert_eq "$(json_get "${lines[1]}" status)" success
	refute_contains "$output" "forged:"
}

@test "the command cannot send a forged status to a --status-socket path in its --rw dir" {
	requires python3 jq
	each_user _status_socket_forge
}

# Sockets found at launch (man page HOST PROTECTION, "sockets" entries of
# the credential list): under /run whatever their name, and in the home
# directory's tool directories.

_run_unlisted() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	LISTEN_LOG=$RUN_LOG
	: >"$LISTEN_LOG"
	control_reaches path "$RUN_SOCK"

	SBX_OPTS="" assert_unreached path "$RUN_SOCK"
	SBX_OPTS="--rw $d" assert_unreached path "$RUN_SOCK"
	[ -S "$RUN_SOCK" ] || { echo "the host socket is gone" >&2; return 1; }

	# Named with --allow-socket, it is reachable again.
	run sbx --allow-socket "$RUN_SOCK" -- timeout 10 "$PY" "$CLIENT" path "$RUN_SOCK"
	assert_status 0
	assert_eq "$output" pong
	assert_eq "$(connections)" 2
}

@test "a socket under /run whose name is on no list cannot be connected to, unless --allow-socket names it" {
	requires root python3 timeout
	local d run
	d=$(scratch_dir)
	run=$(mktemp -d /run/sbox-test-XXXXXX)
	chmod 0755 "$run"
	on_teardown "rm -rf $(printf %q "$run")"
	RUN_SOCK=$run/svc.sock
	AS="" start_listener path "$d" "$RUN_SOCK" public
	RUN_LOG=$LISTEN_LOG
	each_user _run_unlisted
}

# A directory under /run that can be entered but not listed (mode 0711):
# a socket in it is reachable by name, and cannot be found by a scan.
_run_unlistable() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	LISTEN_LOG=$RUN_LOG
	: >"$LISTEN_LOG"
	control_reaches path "$RUN_SOCK"
	SBX_OPTS="" assert_unreached path "$RUN_SOCK"
}

@test "a socket in an unlistable (0711) directory under /run cannot be connected to by the unprivileged user" {
	requires root setpriv python3 timeout
	local d run
	d=$(scratch_dir)
	run=$(mktemp -d /run/sbox-test-XXXXXX)
	mkdir "$run/hidden"
	chmod 0755 "$run"
	chmod 0711 "$run/hidden"
	on_teardown "rm -rf $(printf %q "$run")"
	RUN_SOCK=$run/hidden/svc.sock
	AS="" start_listener path "$d" "$RUN_SOCK" public
	RUN_LOG=$LISTEN_LOG
	# Control: nobody cannot list it, but connects by name.
	run as_user ls "$run/hidden"
	assert_failed "listing a 0711 directory as nobody"
	SBOX=$(unpriv_sbox) AS=as_user _run_unlistable
}

# tool_socket DIR REL: a listener on $HOME/REL (the pass's user), the
# control, then unreachable inside, with --rw "$HOME" too.
tool_socket() {
	local d=$1 sock=$HOME/$2
	usr mkdir -p "$(dirname "$sock")"
	start_listener path "$d" "$sock"
	control_reaches path "$sock"
	SBX_OPTS="" assert_unreached path "$sock"
	SBX_OPTS="--rw $HOME" assert_unreached path "$sock"
	[ -S "$sock" ] || { echo "the host socket is gone" >&2; return 1; }
}

_home_tool_sockets() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	export HOME=$d/home
	usr mkdir "$HOME"
	unset XDG_CONFIG_HOME XDG_DATA_HOME
	tool_socket "$d" .1password/agent.sock
	tool_socket "$d" .colima/default/docker.sock
	tool_socket "$d" .lima/default/sock/ssh.sock
}

@test "an agent or engine socket under the home directory (~/.1password/agent.sock, ~/.colima/default/docker.sock, ~/.lima) cannot be connected to" {
	requires python3 timeout
	each_user _home_tool_sockets
}

# tests/payloads/bind-unix.py PATH...: a unix socket (no listener) bound
# at each path.
_scan_bounds() {
	local d socks=() i
	d=$(scratch_dir)
	cd "$d" || return 1
	export HOME=$d/home
	unset XDG_CONFIG_HOME XDG_DATA_HOME
	usr mkdir -p "$HOME/.colima" "$HOME/.lima/a/b/c/d/e/f/g/h/i" "$HOME/.rd"
	for f in .colima .lima .rd; do
		echo "config of $f" | usr tee "$HOME/$f/config.yaml" >/dev/null
	done
	# Control, within the bounds: only the socket is masked.
	usr "$PY" "$BIND" "$HOME/.rd/docker.sock"
	run --separate-stderr sbx -- sh -c 'cat "$1"; [ -S "$2" ] && echo socket' sh "$HOME/.rd/config.yaml" "$HOME/.rd/docker.sock"
	assert_eq "$output" "config of .rd"
	# More than 256 sockets, or one more than 8 directories deep: the
	# whole directory is masked.
	for i in $(seq 300); do socks+=("$HOME/.colima/s$i.sock"); done
	usr "$PY" "$BIND" "${socks[@]}"
	usr "$PY" "$BIND" "$HOME/.lima/a/b/c/d/e/f/g/h/i/deep.sock"
	run sbx -- sh -c 'ls -A "$1" "$2"; cat "$3" "$4"' sh "$HOME/.colima" "$HOME/.lima" \
		"$HOME/.colima/config.yaml" "$HOME/.lima/config.yaml"
	refute_contains "$output" "config of"
	refute_contains "$output" s300.sock
	refute_contains "$output" deep
	[ -S "$HOME/.colima/s300.sock" ] || { echo "a host socket is gone" >&2; return 1; }
}

@test "a socket scan that reaches its bounds (256 masks, 8 levels) masks the whole directory" {
	requires python3
	BIND=$(payload bind-unix.py)
	each_user _scan_bounds
}

# A service restarted while the sandbox runs makes its socket again, in
# the same directory: that directory is masked, not only the old socket.
_socket_made_later() {
	local d x sock
	d=$(scratch_dir)
	cd "$d" || return 1
	export HOME=$d/home
	x=$d/exchange
	usr mkdir -p "$HOME/.colima/default" "$x"
	unset XDG_CONFIG_HOME XDG_DATA_HOME
	usr "$PY" "$BIND" "$HOME/.colima/default/docker.sock"
	sock=$HOME/.colima/default/docker-new.sock
	bg usr_exec "$SBOX" --rw "$x" -- sh -c '
		echo >"$1/ready"
		while [ ! -e "$1/go" ]; do sleep 0.1; done
		timeout 10 "$2" "$3" path "$4" >"$1/out" 2>&1
		echo "finished $?" >>"$1/out"' sh "$x" "$PY" "$CLIENT" "$sock"
	wait_for 20 test -e "$x/ready"
	start_listener path "$d" "$sock"
	control_reaches path "$sock"
	usr touch "$x/go"
	wait_for 20 grep -q finished "$x/out"
	refute_contains "$(cat "$x/out")" pong
	refute_contains "$(cat "$x/out")" "finished 0"
	assert_eq "$(connections)" 1
}

@test "a socket made while the sandbox runs, in a tool directory that held one at launch, cannot be connected to" {
	requires python3 timeout
	BIND=$(payload bind-unix.py)
	each_user _socket_made_later
}

# Sockets (and their directories) that come and go under /run while
# launches plan their masks: a launch that finds one bwrap can no longer
# mount over is planned again, never refused (sbox-exec(1), HOST
# PROTECTION).  CHURN_DIR holds the directories; CHURN_COUNT how many
# came and went.
_run_churn() {
	# (n, not i: bats' run sets a global i of its own.)
	local n=0 before failed=0
	before=$(cat "$CHURN_COUNT")
	# At least 60 launches, and on until the churner has made and
	# removed at least 10 directories meanwhile (the control: sockets
	# did come and go), however fast launches are.
	while [ "$n" -lt 60 ] || [ "$(($(cat "$CHURN_COUNT") - before))" -lt 10 ]; do
		n=$((n + 1))
		[ "$n" -le 2000 ] ||
			{ echo "the churn did not run: $before -> $(cat "$CHURN_COUNT")" >&2; return 1; }
		run --separate-stderr sbx -- true
		if [ "$status" != 0 ]; then
			failed=$((failed + 1))
			echo "launch $n: $status: $stderr" >&2
		fi
	done
	assert_eq "$failed" 0
}

@test "sockets that come and go under /run while a launch plans its masks never fail it" {
	requires root python3
	CHURN_DIR=$(mktemp -d /run/sbox-test-churn-XXXXXX)
	on_teardown "rm -rf $(printf %q "$CHURN_DIR")"
	CHURN_COUNT=$(scratch_dir)/count
	echo 0 >"$CHURN_COUNT"
	# shellcheck disable=SC2016
	bg "$PY" -c '
import os, shutil, socket, sys, tempfile, time
top, count = sys.argv[1], sys.argv[2]
n = 0
# Each lives about as long as a launch takes to plan and mount: about
# one launch in ten meets one that is gone when bwrap mounts.
while True:
    d = tempfile.mkdtemp(dir=top)
    s = socket.socket(socket.AF_UNIX)
    s.bind(os.path.join(d, "s"))
    s.close()
    time.sleep(0.008)
    shutil.rmtree(d)
    time.sleep(0.1)
    n += 1
    if n % 2 == 0:
        with open(count + ".new", "w") as f:
            f.write("%d\n" % n)
        os.rename(count + ".new", count)
' "$CHURN_DIR" "$CHURN_COUNT"
	each_user _run_churn
}

# A directory granted inside the runtime directory (masked whole): the
# sockets below it are still found and masked; naming the socket's own
# directory shows it, as the manual says (HOST PROTECTION: naming a
# masked path lifts only its own mask).
_runtime_subdir_granted() {
	local d
	d=$(scratch_dir)
	cd "$d" || return 1
	export XDG_RUNTIME_DIR=$d/run
	usr mkdir -m 0700 "$XDG_RUNTIME_DIR"
	usr mkdir -p "$XDG_RUNTIME_DIR/app/sub"
	start_listener path "$d" "$XDG_RUNTIME_DIR/app/sub/agent.sock"
	control_reaches path "$XDG_RUNTIME_DIR/app/sub/agent.sock"

	SBX_OPTS="--ro $XDG_RUNTIME_DIR/app" \
		assert_unreached path "$XDG_RUNTIME_DIR/app/sub/agent.sock"
	SBX_OPTS="--ro $XDG_RUNTIME_DIR" \
		assert_unreached path "$XDG_RUNTIME_DIR/app/sub/agent.sock"
	# Named itself, the socket's directory shows it.
	run sbx --ro "$XDG_RUNTIME_DIR/app/sub" -- \
		timeout 10 "$PY" "$CLIENT" path "$XDG_RUNTIME_DIR/app/sub/agent.sock"
	assert_status 0
	assert_eq "$output" pong
}

@test "a socket below a directory granted inside the runtime directory stays masked" {
	requires python3 timeout
	each_user _runtime_subdir_granted
}
