#!/usr/bin/env bats
# The network off (the default, --no-net): the launcher's proxy still
# serves the sandbox, refusing every request, so that a client that asks
# its proxy variables (curl, npm, pip, git, cargo, go) is told at once and
# the refusal is named with the option that works (sbox-exec(1), NETWORK
# BY NAME, DENIALS).  Nothing is resolved and nothing reaches a network.
# sbox-exec runs in "the host" of two network namespaces (test_networks
# in tests/helpers.bash), whose way out leads to a listener in "the
# world"; every refusal is shown beside the same request reaching the
# world unsandboxed or with the option printed.  Every pass as root and as
# an unprivileged user.

# shellcheck disable=SC2016,SC2030,SC2031
load helpers

setup() {
	requires bwrap userns root setpriv ip nsenter
	command -v curl >/dev/null || skip_or_fail "needs curl"
	W=$(scratch_dir)
	HOSTS=$W/hosts
	printf '%s\n' "127.0.0.1 localhost" "44.55.66.10 global.test" >"$HOSTS"
	chmod 0644 "$HOSTS"
	test_networks 44.55.66.0/24
	start_addr_listener "$NET_WORLD" "$W"
}

# hsbx in the host's namespace, killed after 5 s: a refusal with the
# network off is told at once, not after a resolver's retries.
off() {
	NETNS=$NET_HOST HSBX_TIMEOUT=5 run --separate-stderr hsbx "$@"
}

pass_named() {
	local p=$ADDR_PORT
	# The control: unsandboxed, the world answers.
	run in_ns_usr "$NET_HOST" curl -sS --noproxy '*' "http://44.55.66.10:$p/"
	assert_eq "$output" "hello from 44.55.66.10"
	: >"$W/reached"
	off --status-fd=3 -- sh -c '
		curl -sSf "http://global.test:$1/" >/dev/null; echo "rc=$?"
		curl -sS "https://global.test:$1/" >/dev/null; echo "rc=$?"
		curl -sSf "http://44.55.66.10:$1/" >/dev/null; echo "rc=$?"' \
		sh "$p" 3>"$W/status"
	assert_status 0
	assert_eq "$output" "rc=22"$'\n'"rc=56"$'\n'"rc=22"
	assert_contains "$stderr" "sbox-exec: refused global.test:$p (no network); to allow: --allow-host=global.test:$p"
	assert_contains "$stderr" "sbox-exec: refused 44.55.66.10:$p (no network); to allow: --allow-host=44.55.66.10:$p"
	assert_eq "$(jq -r .net "$W/status")" none
	assert_eq "$(cat "$W/reached")" ""
	# Each option printed, applied alone, lets its request through.
	off --allow-host="global.test:$p" -- curl -sS "http://global.test:$p/"
	assert_status 0
	assert_eq "$output" "hello from 44.55.66.10"
	off --allow-host="44.55.66.10:$p" -- curl -sS "http://44.55.66.10:$p/"
	assert_status 0
	assert_eq "$output" "hello from 44.55.66.10"
}

@test "the network off: a request by name or address is refused at once, named with the option that works, and reaches nothing" {
	each_user pass_named
}

pass_npm() {
	local p=$ADDR_PORT reg
	requires npm
	reg="http://global.test:$p/"
	# The control: unsandboxed, npm's request reaches the registry's
	# address (the listener is no registry: npm then fails).
	run in_ns_usr "$NET_HOST" env HOME=/nonexistent \
		npm_config_cache="$W/npm-$(id -u)-${AS:-root}" npm view left-pad \
		--registry="http://44.55.66.10:$p/" --fetch-retries=0
	assert_contains "$(cat "$W/reached")" "44.55.66.10"
	: >"$W/reached"
	# In the sandbox, without the network: within 5 s, the registry's
	# host and the option named; the default registry as well.
	off -- env npm_config_cache=/tmp/npm npm view left-pad --registry="$reg"
	assert_failed
	assert_contains "$stderr" "sbox-exec: refused global.test:$p (no network); to allow: --allow-host=global.test:$p"
	off -- env npm_config_cache=/tmp/npm npm view left-pad
	assert_failed
	assert_contains "$stderr" "sbox-exec: refused registry.npmjs.org:443 (no network); to allow: --allow-host=registry.npmjs.org"
	assert_eq "$(cat "$W/reached")" ""
	# The option printed: npm reaches the registry.
	off --allow-host="global.test:$p" -- env npm_config_cache=/tmp/npm \
		npm view left-pad --registry="$reg" --fetch-retries=0
	assert_contains "$(cat "$W/reached")" "44.55.66.10"
}

@test "the network off: npm fails within 5 s, naming the registry's host and the option" {
	each_user pass_npm
}

pass_learn() {
	local p=$ADDR_PORT f
	f=$W/learned-$(id -u)-${AS:-root}
	rm -f "$f"
	: >"$W/reached"
	# The manual's loop: the first run learns, the second works.
	off --learn="$f" --policy="$f" -- curl -sSf "http://global.test:$p/"
	assert_status 22
	assert_eq "$(grep -v '^#' "$f")" "--allow-host global.test:$p"
	assert_eq "$(cat "$W/reached")" ""
	off --learn="$f" --policy="$f" -- curl -sSf "http://global.test:$p/"
	assert_status 0
	assert_eq "$output" "hello from 44.55.66.10"
	run ! grep -e '--net' "$f"
}

@test "the network off: --learn writes an allow-host line, and the next run reaches the host" {
	each_user pass_learn
}

pass_callers_proxy() {
	start_listener tcp "$W"
	# The control: unsandboxed, the caller's proxy variable is used.
	run usr env https_proxy="http://127.0.0.1:$LISTEN_ADDR" \
		curl -sS -m 5 "https://global.test/"
	assert_eq "$(connections)" 1
	# In the sandbox the variables are the launcher's: the caller's proxy
	# (and any credentials in its URL) is neither seen nor reached.
	https_proxy="http://u:secret@127.0.0.1:$LISTEN_ADDR" \
		HTTPS_PROXY="http://u:secret@127.0.0.1:$LISTEN_ADDR" \
		NETNS=$NET_HOST HSBX_TIMEOUT=5 run --separate-stderr hsbx -- \
		sh -c 'env | grep -i proxy | grep -c secret;
			curl -sS "https://global.test/"'
	assert_eq "$output" 0
	assert_contains "$stderr" "sbox-exec: refused global.test:443 (no network); to allow: --allow-host=global.test"
	assert_eq "$(connections)" 1
}

@test "the network off: the caller's proxy variables are replaced by the launcher's, never reached" {
	each_user pass_callers_proxy
}

pass_lazy() {
	local pid tasks
	# A run that never connects: the launcher has no thread but its
	# own (the proxy's starts at the first connection).
	bg usr_exec "$SBOX" -- sh -c 'sleep 3'
	pid=$BG_PID
	wait_for 5 test -e "/proc/$pid/task"
	sleep 1
	tasks=$(ls "/proc/$pid/task" | wc -l)
	assert_eq "$tasks" 1
	wait "$pid"
	forget_bg "$pid"
	# The control: one that tries the network has the proxy's thread.
	bg usr_exec "$SBOX" -- sh -c 'curl -s https://global.test/ >/dev/null; sleep 6'
	pid=$BG_PID
	wait_for 5 sh -c "[ \$(ls /proc/$pid/task | wc -l) -gt 1 ]"
	wait "$pid" || true
	forget_bg "$pid"
}

@test "the network off: no thread serves the proxy until the command connects" {
	each_user pass_lazy
}

pass_loopback() {
	local p down
	mkdir -p "$W/www"
	start_web "$W"
	p=$WEB_PORT
	echo "hello from the host" >"$W/www/index.html"
	# The control: on the host, its loopback service answers.
	run usr curl -sS "http://127.0.0.1:$p/index.html"
	assert_eq "$output" "hello from the host"
	# Without the option, the sandbox's loopback is its own: nothing
	# answers there, and the proxy names the option.
	run --separate-stderr hsbx -- curl -sS --noproxy '*' \
		"http://127.0.0.1:$p/index.html"
	assert_failed
	# An allowed loopback address and port is served on the sandbox's
	# own loopback: every client reaches the host's service there, by
	# address and as localhost, directly (NO_PROXY keeps both) or
	# through the proxy, Node's own http and fetch (which ignore the
	# proxy variables) too.
	run --separate-stderr hsbx --allow-host="127.0.0.1:$p" -- sh -c \
		'curl -sS "http://127.0.0.1:$1/index.html" &&
		 curl -sS "http://localhost:$1/index.html" &&
		 curl -sS -x http://127.0.0.1:3128 --noproxy "" \
			"http://127.0.0.1:$1/index.html" &&
		 printf "%s\n" "$NO_PROXY"' sh "$p"
	assert_status 0
	assert_eq "$output" "hello from the host"$'\n'"hello from the host"$'\n'"hello from the host"$'\n'"localhost,127.0.0.1,::1"
	if command -v node >/dev/null; then
		run --separate-stderr hsbx --allow-host="127.0.0.1:$p" -- node -e '
			const u = process.argv[1];
			require("http").get(u, r => r.pipe(process.stdout))
				.on("error", e => { console.error(e.message); process.exit(3); });
			fetch(u.replace("127.0.0.1", "localhost")).then(r => r.text())
				.then(t => process.stdout.write(t));' \
			"http://127.0.0.1:$p/index.html"
		assert_status 0
		assert_eq "$output" "hello from the host"$'\n'"hello from the host"
	fi
	if command -v npm >/dev/null; then
		: >"$W/log"
		run --separate-stderr hsbx --allow-host="127.0.0.1:$p" -- \
			env npm_config_cache=/tmp/npm npm view left-pad \
			--registry="http://127.0.0.1:$p/" --fetch-retries=0
		grep -q "GET /left-pad" "$W/log"
	fi
	# That port of the sandbox's loopback is the host's service: the
	# command cannot listen there itself.
	run --separate-stderr hsbx --allow-host="127.0.0.1:$p" -- \
		/usr/bin/python3 -c 'import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))' "$p"
	assert_status 1
	assert_contains "$stderr" "Address already in use"
	# A service that is down: the connection closes, and the failure is
	# named with nothing to allow.
	down=$(/usr/bin/python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
	run --separate-stderr hsbx --allow-host="127.0.0.1:$down" -- \
		curl -sS "http://127.0.0.1:$down/"
	assert_failed
	assert_contains "$stderr" "sbox-exec: could not reach 127.0.0.1:$down, which is allowed (cannot connect: Connection refused)"
	# Below 1024, where nothing inside may listen, the port is reached
	# through the proxy alone, and NO_PROXY sends the address there.
	run --separate-stderr hsbx --allow-host="127.0.0.1:80" -- \
		sh -c 'printf "%s\n" "$NO_PROXY"'
	assert_status 0
	assert_eq "$output" "::1"
	# The proxy's own port cannot be one of them.
	run --separate-stderr hsbx --allow-host="127.0.0.1:3128" -- true
	assert_status 125
	assert_contains "$stderr" "sbox-exec: --allow-host=127.0.0.1:3128: that port of the sandbox's loopback is its own proxy's"
	# IPv6's loopback too, where the host has one.
	if grep -q '^0\{31\}1 ' /proc/net/if_inet6 2>/dev/null; then
		rm -f "$W/port6"
		bg /usr/bin/python3 -c 'import http.server, socket, sys, os
class S(http.server.HTTPServer):
    address_family = socket.AF_INET6
os.chdir(sys.argv[1])
s = S(("::1", 0), http.server.SimpleHTTPRequestHandler)
open(sys.argv[2] + ".tmp", "w").write(str(s.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
s.serve_forever()' "$W/www" "$W/port6"
		wait_for 10 test -s "$W/port6"
		run --separate-stderr hsbx --allow-host="[::1]:$(cat "$W/port6")" -- \
			curl -sS "http://[::1]:$(cat "$W/port6")/index.html"
		assert_status 0
		assert_eq "$output" "hello from the host"
	fi
	# Without a loopback address allowed, the sandbox's own servers on
	# its loopback are reached directly, by address and as localhost.
	run --separate-stderr hsbx --allow-host="global.test" -- sh -c '
		/usr/bin/python3 -m http.server -b 127.0.0.1 \
			-d /usr/share/doc/bash 18080 >/dev/null 2>&1 &
		for i in $(seq 50); do
			curl -s -o /dev/null "http://127.0.0.1:18080/" && break
			sleep 0.1
		done
		curl -sS -o /dev/null -w "%{http_code}\n" "http://127.0.0.1:18080/"
		curl -sS -o /dev/null -w "%{http_code}\n" "http://localhost:18080/"
		kill $!'
	assert_eq "$output" "200"$'\n'"200"
}

@test "--allow-host of this host's loopback address for a port is served on the sandbox's own loopback: curl, Node and npm reach the host's service, by address and as localhost" {
	each_user pass_loopback
}

pass_direct() {
	local p f
	mkdir -p "$W/www"
	echo "hello from the host" >"$W/www/index.html"
	start_web "$W"
	p=$WEB_PORT
	f=$W/direct-$(id -u)-${AS:-root}
	rm -f "$f"
	# The control: on the host, a client that ignores the proxy
	# variables reaches the service directly.
	run usr curl -sS --noproxy '*' "http://127.0.0.1:$p/index.html"
	assert_eq "$output" "hello from the host"
	# Watched, in the sandbox: that direct connect is named with the
	# option, and --learn leaves it out (a host service acts for the
	# user); one to another address is named with why no option serves;
	# the command's own server on its loopback, and UDP, are not named.
	run --separate-stderr sbx --learn="$f" -- sh -c '
		curl -sS --noproxy "*" "http://127.0.0.1:$1/index.html"
		curl -sS --noproxy "*" "http://10.9.8.7:81/"
		/usr/bin/python3 -c "import socket, threading
def go():
    try:
        socket.create_connection((\"10.9.8.7\", 82), 2)
    except OSError:
        pass
t = threading.Thread(target=go); t.start(); t.join()"
		/usr/bin/python3 -c "import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect((\"127.0.0.1\", 53)); s.connect((\"10.9.8.7\", 53))"
		/usr/bin/python3 -m http.server -b 127.0.0.1 -d /usr/share/doc/bash \
			18081 >/dev/null 2>&1 &
		for i in $(seq 100); do # listening on 18081 (0x46A1)
			grep -qi ":46A1 00000000:0000 0A" /proc/net/tcp && break
			sleep 0.1
		done
		curl -sS -o /dev/null -w "%{http_code}\n" --noproxy "*" \
			"http://127.0.0.1:18081/"
		kill $!' sh "$p"
	assert_eq "$output" "200"
	assert_contains "$stderr" "sbox-exec: refused 127.0.0.1:$p (a direct connection to the sandbox's own loopback, where nothing listens); to allow: --allow-host=127.0.0.1:$p (the host's loopback,"
	assert_contains "$stderr" "sbox-exec: refused 10.9.8.7:81 (no network: a direct connection); no option serves a direct connection"
	# From a thread other than the process's first, the same.
	assert_contains "$stderr" "sbox-exec: refused 10.9.8.7:82 (no network: a direct connection)"
	refute_contains "$stderr" ":53"
	refute_contains "$stderr" "18081"
	run ! grep -e '^--' "$f"
	# The option, pasted: the same direct connect goes through.
	run --separate-stderr sbx --allow-host="127.0.0.1:$p" -- \
		curl -sS --noproxy "*" "http://127.0.0.1:$p/index.html"
	assert_eq "$output" "hello from the host"
}

@test "--watch: a direct TCP connect to the host's loopback service is named with --allow-host of it (never learned), one elsewhere with why no option serves; the command's own server and UDP are not named" {
	each_user pass_direct
}
