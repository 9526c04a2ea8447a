#!/usr/bin/env bats
# --allow-host and --deny-host: the egress allow-list the launcher serves
# as a proxy from outside the sandbox (sbox-exec(1), NETWORK BY NAME).
# Real servers on the host's loopback (tests/payloads/web-server.py);
# their names come from a hosts file seen only by the sbox-exec under
# test (hsbx in tests/helpers.bash).  Every pass as root and as an
# unprivileged user (each_user); every refusal next to the same request
# working without the sandbox or with the name allowed.

# shellcheck disable=SC2016,SC2030,SC2031
load helpers

setup() {
	requires bwrap userns root setpriv
	command -v curl >/dev/null || skip_or_fail "needs curl"
	command -v openssl >/dev/null || skip_or_fail "needs openssl"
	W=$(scratch_dir)
	mkdir -p "$W/www"
	echo "hello from site.test" >"$W/www/index.html"
	chmod -R a+rX "$W"
	HOSTS=$W/hosts
	printf '%s\n' "127.0.0.1 site.test other.test" \
		"169.254.169.254 meta.test" >"$HOSTS"
	chmod 0644 "$HOSTS"
}

# The site on the host's loopback, allowed by name and (since its
# address is loopback) by address: sbox-exec(1) NETWORK BY NAME.
site_opts() {
	SITE=(--allow-host="site.test:$WEB_PORT"
		--allow-host="127.0.0.1:$WEB_PORT")
}

# --- an allowed name works --------------------------------------------------

pass_http_https_socks() {
	start_web "$W" tls
	site_opts
	# The control: unsandboxed, the site answers.
	run usr curl -sS --cacert "$W/cert.pem" --resolve "site.test:$WEB_PORT:127.0.0.1" \
		"https://site.test:$WEB_PORT/index.html"
	assert_status 0
	assert_eq "$output" "hello from site.test"
	run hsbx "${SITE[@]}" --status-fd=3 -- sh -c \
		'curl -sS --cacert "$1" "https://site.test:$2/index.html" &&
		 curl -sS -x "socks5h://127.0.0.1:3128" --noproxy "" \
			--cacert "$1" "https://site.test:$2/index.html"' \
		sh "$W/cert.pem" "$WEB_PORT" 3>"$W/status"
	assert_status 0
	assert_eq "$output" "hello from site.test"$'\n'"hello from site.test"
	assert_eq "$(jq -r .net "$W/status")" allow-list
	grep -q "GET /index.html" "$W/log"
}

@test "an allowed name: HTTPS through CONNECT and through socks5h, status net allow-list" {
	each_user pass_http_https_socks
}

pass_plain_http() {
	start_web "$W"
	# 127.0.0.1:PORT allowed: served on the sandbox's own loopback, so
	# NO_PROXY keeps it and localhost (tests/net-off.bats).
	site_opts
	run hsbx "${SITE[@]}" -- sh -c \
		'curl -sS "http://site.test:$1/index.html" &&
		 curl -sS -x "socks5h://127.0.0.1:3128" --noproxy "" "http://site.test:$1/index.html" &&
		 printf "%s\n" "$HTTP_PROXY" "$ALL_PROXY" "$NO_PROXY" "$NODE_USE_ENV_PROXY"' \
		sh "$WEB_PORT"
	assert_status 0
	assert_eq "$output" "hello from site.test
hello from site.test
http://127.0.0.1:3128
socks5h://127.0.0.1:3128
localhost,127.0.0.1,::1
1"
	# Passed on in origin form, as a server expects it.
	grep -q "^GET /index.html HTTP/1.1$" "$W/log"
}

@test "an allowed name: plain HTTP through the proxy, and the proxy variables" {
	each_user pass_plain_http
}

pass_git_clone() {
	command -v git >/dev/null || skip_or_fail "needs git"
	git init -q --bare "$W/www/repo.git"
	git clone -q "$W/www/repo.git" "$W/work" 2>/dev/null
	echo content >"$W/work/file"
	git -C "$W/work" add file
	git -C "$W/work" -c user.name=t -c user.email=t@t commit -qm one
	git -C "$W/work" push -q origin HEAD:refs/heads/main 2>/dev/null
	git -C "$W/www/repo.git" symbolic-ref HEAD refs/heads/main
	git -C "$W/www/repo.git" update-server-info
	chmod -R a+rX "$W/www"
	mkdir -m 0777 "$W/out"
	start_web "$W" tls
	site_opts
	# stderr: the git audit's warning about the new clone's hooks.
	run --separate-stderr hsbx "${SITE[@]}" --rw "$W/out" -- sh -c \
		'GIT_SSL_CAINFO="$1" git clone -q "https://site.test:$2/repo.git" "$3/clone" &&
		 cat "$3/clone/file"' sh "$W/cert.pem" "$WEB_PORT" "$W/out"
	assert_status 0
	assert_eq "$output" content
	rm -rf "$W/out" "$W/work" "$W/www/repo.git"
}

@test "git clone over HTTPS of an allowed name" {
	each_user pass_git_clone
}

pass_bulk_both_ways() {
	local echo_server port
	echo_server=$(payload stream-echo.py)
	rm -f "$W/echo-port"
	bg "$PY" "$echo_server" serve "$W/echo-port"
	wait_for 10 test -s "$W/echo-port"
	port=$(cat "$W/echo-port")
	# The control: straight to the server, the bytes come back.
	run usr "$PY" "$echo_server" send 127.0.0.1 "$port" 4
	assert_status 0
	assert_eq "$output" "same 4194304"
	# 24 MiB each way at once, enough for the relay's buffers to grow to
	# their largest while both directions run; the end of the client's
	# output reaches the server as a half-close.
	run hsbx --allow-host="site.test:$port" --allow-host="127.0.0.1:$port" -- \
		"$PY" "$echo_server" send site.test "$port" 24 127.0.0.1:3128
	assert_status 0
	assert_eq "$output" "same 25165824"
}

@test "a bulk transfer both ways at once: every byte through, in order, and the half-close" {
	each_user pass_bulk_both_ways
}

# A name server that never answers, on the host's loopback: a name it is
# asked for resolves only when the resolver gives up.
pass_slow_dns() {
	start_web "$W"
	site_opts
	printf 'nameserver 127.0.0.9\noptions timeout:30 attempts:1\n' >"$W/resolv.conf"
	chmod 0644 "$W/resolv.conf"
	rm -f "$W/dns-ready"
	bg "$PY" -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.9", 53))
open(sys.argv[1], "w").close()
end = time.monotonic() + 120
while time.monotonic() < end:
    s.settimeout(1)
    try:
        s.recv(512)
    except socket.timeout:
        pass' "$W/dns-ready"
	local dns=$BG_PID
	wait_for 10 test -e "$W/dns-ready"
	# While one connection waits for its name, another is decided,
	# connected and answered: resolution holds up only its own.
	RESOLV=$W/resolv.conf run --separate-stderr hsbx "${SITE[@]}" \
		--allow-host="slow.test:$WEB_PORT" -- "$PY" -c '
import socket, sys, time
a = socket.create_connection(("127.0.0.1", 3128))
a.sendall(b"CONNECT slow.test:%s HTTP/1.1\r\n\r\n" % sys.argv[1].encode())
time.sleep(0.5)
b = socket.create_connection(("127.0.0.1", 3128))
b.sendall(b"CONNECT site.test:%s HTTP/1.1\r\n\r\n" % sys.argv[1].encode())
b.settimeout(3)
print(b.recv(100).split(b"\r\n")[0].decode())
b.sendall(b"GET /index.html HTTP/1.0\r\nHost: site.test\r\n\r\n")
print(b.recv(4096).split(b"\r\n")[0].decode())
a.settimeout(0.5)
try:
    print("slow.test answered:", a.recv(100))
except socket.timeout:
    print("slow.test still resolving")' "$WEB_PORT"
	assert_status 0
	assert_eq "$output" "HTTP/1.1 200 Connection established"$'\n'"HTTP/1.0 200 OK"$'\n'"slow.test still resolving"
	kill "$dns"
	wait_for 10 sh -c "! kill -0 $dns 2>/dev/null"
}

@test "a name that takes long to resolve holds up no other connection" {
	each_user pass_slow_dns
}

# --- refusals -----------------------------------------------------------

pass_not_listed() {
	start_web "$W"
	site_opts
	# The control: other.test is the same server, allowed here.
	run hsbx --allow-host="other.test:$WEB_PORT" \
		--allow-host="127.0.0.1:$WEB_PORT" -- \
		curl -sS "http://other.test:$WEB_PORT/index.html"
	assert_status 0
	assert_eq "$output" "hello from site.test"
	: >"$W/log"
	run hsbx "${SITE[@]}" -- sh -c \
		'curl -sS -o /dev/null -w "%{http_code}\n" "http://other.test:$1/index.html"
		 curl -sS -w "%{http_code}\n" -x socks5h://127.0.0.1:3128 --noproxy "" \
			"http://other.test:$1/index.html" 2>&1
		 curl -sS -p -w "%{http_code}\n" "http://other.test:$1/index.html" 2>&1' \
		sh "$WEB_PORT"
	assert_contains "$output" "403"
	assert_contains "$output" "SOCKS"
	refute_contains "$output" "hello"
	assert_eq "$(wc -c <"$W/log")" 0
	# The event names the host refused (sbox-exec(1), EVENTS).
	run hsbx "${SITE[@]}" --log-fd=3 -- \
		curl -sS "http://other.test:$WEB_PORT/index.html" 3>"$W/events"
	assert_eq "$(jq -c 'select(.event == "net-denied")' "$W/events")" \
		'{"event":"net-denied","host":"other.test","port":'"$WEB_PORT"',"reason":"not in allow-list"}'
	# With -v, what was allowed too.
	run hsbx -v "${SITE[@]}" --log-fd=3 -- \
		curl -sS "http://site.test:$WEB_PORT/index.html" 3>"$W/events"
	assert_eq "$(jq -c 'select(.event == "net-allowed")' "$W/events")" \
		'{"event":"net-allowed","host":"site.test","port":'"$WEB_PORT"',"address":"127.0.0.1"}'
	assert_contains "$output" "sbox-exec: network: allowed site.test port $WEB_PORT (127.0.0.1)"
}

@test "a name not on the list: 403, the SOCKS refusal, nothing reaches the server" {
	each_user pass_not_listed
}

pass_denied_reason() {
	start_web "$W"
	run hsbx -v --allow-host='*.test' --deny-host=other.test -- sh -c \
		'curl -sS "http://other.test/"; curl -sS "http://site.test/"'
	assert_contains "$output" "other.test port 80: denied by --deny-host"
	assert_contains "$output" "site.test port 80: resolves to a loopback address"
	# Said by the launcher too, with no option to suggest (sbox-exec(1),
	# DENIALS).
	assert_contains "$output" "sbox-exec: refused other.test:80 (denied by --deny-host); not allowed by any option"
	# A name whose address a --deny-host entry names.
	run --separate-stderr hsbx --allow-host='*.test' --deny-host=127.0.0.1 -- \
		curl -sS "http://site.test/"
	assert_eq "$output" "sbox-exec: site.test port 80: resolves to an address denied by --deny-host"
}

@test "the refusal's reason: in the 403 and on stderr" {
	each_user pass_denied_reason
}

pass_rebinding() {
	start_web "$W"
	# Allowed by name only: the name leads to 127.0.0.1, which is refused.
	run --separate-stderr hsbx --allow-host="site.test:$WEB_PORT" -- \
		curl -sS "http://site.test:$WEB_PORT/index.html"
	assert_eq "$output" "sbox-exec: site.test port $WEB_PORT: resolves to a loopback address"
	# The address in the option, said but never learned (sbox-exec(1),
	# DENIALS).
	assert_contains "$stderr" "sbox-exec: refused site.test:$WEB_PORT (resolves to a loopback address); to allow: --allow-host=127.0.0.1:$WEB_PORT (an address entry, for the address the name resolves to here; --learn leaves it out)"
	# That option alone, added: the same request goes through.
	run hsbx --allow-host="site.test:$WEB_PORT" \
		--allow-host="127.0.0.1:$WEB_PORT" -- \
		curl -sS "http://site.test:$WEB_PORT/index.html"
	assert_status 0
	assert_eq "$output" "hello from site.test"
	# With an address entry covering it, the same request goes through.
	site_opts
	run hsbx "${SITE[@]}" -- curl -sS "http://site.test:$WEB_PORT/index.html"
	assert_status 0
	assert_eq "$output" "hello from site.test"
}

@test "an allowed name that resolves to 127.0.0.1 is refused unless an address entry covers it" {
	each_user pass_rebinding
}

pass_own_address() {
	WEB_BIND=0.0.0.0 start_web "$W"
	# The control: unsandboxed, the server answers on that address.
	run usr curl -sS --noproxy '*' "http://$OWN_ADDR:$WEB_PORT/index.html"
	assert_eq "$output" "hello from site.test"
	run hsbx --allow-host="self.test:$WEB_PORT" --log-fd=3 -- \
		curl -sS -w "%{http_code}\n" "http://self.test:$WEB_PORT/index.html" \
		3>"$W/events"
	assert_contains "$output" 403
	refute_contains "$output" hello
	assert_eq "$(jq -r 'select(.event == "net-denied") | .host' "$W/events")" \
		self.test
	# An address entry covering it lets the same request through.
	run hsbx --allow-host="self.test:$WEB_PORT" \
		--allow-host="$OWN_ADDR:$WEB_PORT" -- \
		curl -sS "http://self.test:$WEB_PORT/index.html"
	assert_status 0
	assert_eq "$output" "hello from site.test"
}

@test "an allowed name that resolves to the host's own address is refused unless an address entry covers it" {
	own_address
	echo "$OWN_ADDR self.test" >>"$HOSTS"
	each_user pass_own_address
}

# --- special-purpose addresses, this host's own and on-link -------------
# Two network namespaces (test_networks): sbox-exec runs in "the host",
# the listener in "the world", which answers on every address of the
# networks below; names lead there through $HOSTS.

# NAME ADDRESS WHY: a name, where it leads, and the reason a name that
# leads there is refused (sbox-exec(1), NETWORK BY NAME).
SPECIAL_NAMES='doc1.test 192.0.2.10 documentation address
doc2.test 198.51.100.10 documentation address
doc3.test 203.0.113.10 documentation address
bench.test 198.18.0.10 benchmarking address
shared.test 100.64.0.10 private address
ietf.test 192.0.0.10 reserved address
relay.test 192.88.99.10 reserved address
classe.test 240.0.0.10 reserved address
doc6.test 2001:db8::10 documentation address
ula.test fd00:5::10 private address
discard.test 100::10 special-purpose address
nat64local.test 64:ff9b:1::10 private address
teredo.test 2001::10 reserved address
ietf6.test 2001:1::1 special-purpose address
doc6b.test 3fff::10 documentation address
sixtofour.test 2002:c000:20a::1 documentation address
nat64.test 64:ff9b::c000:20a documentation address'
WORLD_NETS="192.0.2.0/24 198.51.100.0/24 203.0.113.0/24 198.18.0.0/15
100.64.0.0/10 192.0.0.0/24 192.88.99.0/24 240.0.0.0/4 44.55.66.0/24
2001:db8::/32 fd00:5::/64 100::/64 64:ff9b:1::/48 2001::/23 3fff::/20
2002::/16 64:ff9b::/96 2a09:2::/32"

special_hosts() {
	while read -r name addr _; do
		echo "$addr $name"
	done <<<"$SPECIAL_NAMES" >>"$HOSTS"
	printf '%s\n' "44.55.66.10 global.test" "2a09:2::10 global6.test" \
		"11.22.33.1 self.test" "11.22.33.7 peer.test" \
		"2a09:1::7 peer6.test" "44.0.0.5 anyip.test" \
		"::ffff:11.22.33.1 mapped.test" "44.0.1.5 anyipsrc.test" >>"$HOSTS"
}

pass_special() {
	local name addr why expected="" got
	start_addr_listener "$NET_WORLD" "$W"
	# The control: unsandboxed, in the same network, every address of
	# the list reaches the listener.
	while read -r name addr why; do
		case $addr in *:*) addr="[$addr]" ;; esac
		run in_ns_usr "$NET_HOST" curl -sS --max-time 10 --noproxy '*' \
			"http://$addr:$ADDR_PORT/"
		assert_eq "$output" "hello from ${addr//[\[\]]/}"
		expected+="sbox-exec: $name port $ADDR_PORT: resolves to a $why"$'\n'
	done <<<"$SPECIAL_NAMES"
	: >"$W/reached"
	# Allowed by name, every one is refused (no address pattern covers
	# it) and the listener sees no connection; global addresses, through
	# the same route, are reached.
	NETNS=$NET_HOST run --separate-stderr hsbx --allow-host="*.test:$ADDR_PORT" -- sh -c '
		for n in $(printf "%s\n" "$2" | cut -d" " -f1) global.test global6.test; do
			curl -sS "http://$n:$1/"
		done' sh "$ADDR_PORT" "$SPECIAL_NAMES"
	got=$output
	assert_eq "$got" "${expected}hello from 44.55.66.10"$'\n'"hello from 2a09:2::10"
	assert_eq "$(cat "$W/reached")" "44.55.66.10"$'\n'"2a09:2::10"
	# An address pattern covering one lets that one through, and only it.
	: >"$W/reached"
	NETNS=$NET_HOST run --separate-stderr hsbx --allow-host="*.test:$ADDR_PORT" \
		--allow-host="192.0.2.0/24:$ADDR_PORT" \
		--allow-host="[2001:db8::/32]:$ADDR_PORT" -- sh -c \
		'curl -sS "http://doc1.test:$1/"; curl -sS "http://doc6.test:$1/";
		 curl -sS "http://doc2.test:$1/"' sh "$ADDR_PORT"
	assert_eq "$output" "hello from 192.0.2.10
hello from 2001:db8::10
sbox-exec: doc2.test port $ADDR_PORT: resolves to a documentation address"
	assert_eq "$(cat "$W/reached")" "192.0.2.10"$'\n'"2001:db8::10"
}

@test "an allowed name that resolves into an IANA special-purpose block is refused before connecting, unless an address pattern covers it" {
	requires ip nsenter
	test_networks $WORLD_NETS
	special_hosts
	each_user pass_special
}

# ask HOST PORT: the proxy's answer to a CONNECT, to plain HTTP and to
# SOCKS5 for HOST:PORT, from inside the sandbox, each on a line, the
# port written as PORT.
ASK='
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
def ask(req):
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(req)
    s.settimeout(15)
    out = b""
    while True:
        try:
            d = s.recv(4096)
        except socket.timeout:
            out += b" (no end)"
            break
        if not d:
            break
        out += d
    return out.replace(str(port).encode(), b"PORT")
print(ask(b"CONNECT %s:%d HTTP/1.1\r\n\r\n" % (host.encode(), port)))
print(ask(b"GET http://%s:%d/ HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (host.encode(), port, host.encode(), port)))
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"\x05\x01\x00")
s.recv(2)
s.sendall(b"\x05\x01\x00\x03" + bytes([len(host)]) + host.encode() + port.to_bytes(2, "big"))
print(s.recv(10))
'

pass_local() {
	local name addr open closed first port
	start_addr_listener "$NET_HOST" "$W"
	PORT_HOST=$ADDR_PORT
	mkdir -p "$W/world"
	chmod 0777 "$W/world"
	start_addr_listener "$NET_WORLD" "$W/world"
	PORT_WORLD=$ADDR_PORT
	[ "$PORT_HOST" != "$PORT_WORLD" ]
	# The control, unsandboxed: each address answers on its listener's
	# port and refuses the other, so that telling the two apart is
	# telling what listens there.
	while read -r addr open closed; do
		run in_ns_usr "$NET_HOST" curl -sS --noproxy '*' \
			"http://$addr:$open/"
		assert_contains "$output" "hello from"
		run in_ns_usr "$NET_HOST" curl -sS --noproxy '*' \
			"http://$addr:$closed/"
		# curl's 7: the connection was refused.
		assert_status 7
	done <<EOF
11.22.33.1 $PORT_HOST $PORT_WORLD
11.22.33.7 $PORT_WORLD $PORT_HOST
44.0.0.5 $PORT_HOST $PORT_WORLD
44.0.1.5 $PORT_HOST $PORT_WORLD
[2a09:1::7] $PORT_WORLD $PORT_HOST
EOF
	: >"$W/reached"
	: >"$W/world/reached"
	# In the sandbox, the host's own address (also IPv4-mapped), an
	# on-link one (IPv4 and IPv6) and one the kernel routes to the host:
	# every port allowed by name, open or closed, gets the same answer,
	# and no listener sees a connection.
	for name in self.test:"this host's own address" \
		peer.test:"an address on this host's network" \
		peer6.test:"an address on this host's network" \
		anyip.test:"this host's own address" \
		mapped.test:"this host's own address" \
		anyipsrc.test:"this host's own address"; do
		first=""
		for port in "$PORT_HOST" "$PORT_WORLD"; do
			NETNS=$NET_HOST run --separate-stderr hsbx \
				--allow-host="${name%%:*}:$PORT_HOST" \
				--allow-host="${name%%:*}:$PORT_WORLD" -- \
				"$PY" -c "$ASK" "${name%%:*}" "$port"
			assert_status 0
			assert_contains "$output" "403 Forbidden"
			assert_contains "$output" "${name%%:*} port PORT: resolves to ${name#*:}"
			assert_contains "$output" "b'\\x05\\x02"
			if [ -z "$first" ]; then
				first=$output
			else
				assert_eq "$output" "$first"
			fi
		done
	done
	assert_eq "$(wc -c <"$W/reached")" 0
	assert_eq "$(wc -c <"$W/world/reached")" 0
	# An address pattern covering one: the connection is made.
	NETNS=$NET_HOST run --separate-stderr hsbx --allow-host="peer.test:$PORT_WORLD" \
		--allow-host="11.22.33.7:$PORT_WORLD" -- \
		curl -sS "http://peer.test:$PORT_WORLD/"
	assert_eq "$output" "hello from 11.22.33.7"
	NETNS=$NET_HOST run --separate-stderr hsbx --allow-host="self.test:$PORT_HOST" \
		--allow-host="11.22.33.1:$PORT_HOST" -- \
		curl -sS "http://self.test:$PORT_HOST/"
	assert_eq "$output" "hello from 11.22.33.1"
}

@test "the host's own, on-link and locally routed addresses are refused before connecting, with the same answer whether or not something listens" {
	requires ip nsenter
	test_networks 44.55.66.0/24
	# Addresses the kernel delivers to the host without an interface
	# holding them, one route with a source address of its own.
	in_ns "$NET_HOST" ip route add local 44.0.0.0/24 dev lo
	in_ns "$NET_HOST" ip route add local 44.0.1.0/24 dev lo src 11.22.33.1
	special_hosts
	each_user pass_local
}

pass_failed() {
	local closed
	# A port nothing listens on: the kernel's pick, let go.
	closed=$("$PY" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
	# The control: unsandboxed, nothing answers there either.
	run usr curl -sS --noproxy '*' "http://127.0.0.1:$closed/"
	assert_failed "connecting to a closed port"
	# Allowed, but nothing to reach: a 502 and net-failed, not net-denied.
	run --separate-stderr hsbx --allow-host="site.test:$closed" \
		--allow-host="127.0.0.1:$closed" \
		--allow-host=nowhere.test --log-fd=3 -- sh -c \
		'curl -sS -w "%{http_code}\n" "http://site.test:$1/"
		 curl -sS -w "%{http_code}\n" "http://nowhere.test/"' sh "$closed" \
		3>"$W/events"
	assert_contains "$output" "site.test port $closed: cannot connect: Connection refused"
	assert_contains "$output" "nowhere.test port 80: cannot resolve"
	assert_eq "$(grep -c '502$' <<<"$output")" 2
	assert_eq "$(jq -r 'select(.event | startswith("net-")) | .event + " " + .host' "$W/events")" \
		"net-failed site.test"$'\n'"net-failed nowhere.test"
}

@test "an allowed name that does not resolve or connect: 502 and a net-failed event" {
	each_user pass_failed
}

pass_metadata() {
	run hsbx --allow-host=meta.test --allow-host=site.test -- sh -c \
		'curl -sS http://meta.test/latest/meta-data/
		 curl -sS -w "%{http_code}\n" http://169.254.169.254/latest/meta-data/
		 curl -sS -x socks5h://127.0.0.1:3128 --noproxy "" http://169.254.169.254/ 2>&1'
	assert_contains "$output" "sbox-exec: meta.test port 80: resolves to a link-local address"
	assert_contains "$output" "sbox-exec: 169.254.169.254 port 80: address not in allow-list"
	assert_contains "$output" "403"
	assert_contains "$output" "SOCKS"
}

@test "169.254.169.254, by name and as an address, is refused" {
	each_user pass_metadata
}

pass_direct() {
	local other
	start_web "$W"
	mkdir -p "$W/two/www"
	echo "the host's other service" >"$W/two/www/index.html"
	chmod -R a+rX "$W/two"
	start_web "$W/two"
	other=$WEB_PORT
	WEB_PORT=$(cat "$W/port")
	site_opts
	# The control: unsandboxed, both of the host's loopback servers
	# answer a client that ignores the proxy variables.
	run usr curl -sS --noproxy '*' "http://127.0.0.1:$WEB_PORT/index.html"
	assert_eq "$output" "hello from site.test"
	run usr curl -sS --noproxy '*' "http://127.0.0.1:$other/index.html"
	assert_eq "$output" "the host's other service"
	: >"$W/two/log"
	# In the sandbox, the allowed address and port is served on its own
	# loopback; the other port of the same address is not.
	run hsbx "${SITE[@]}" -- curl -sS --noproxy '*' \
		"http://127.0.0.1:$WEB_PORT/index.html"
	assert_status 0
	assert_eq "$output" "hello from site.test"
	run hsbx "${SITE[@]}" -- curl -sS --noproxy '*' \
		"http://127.0.0.1:$other/index.html"
	assert_failed "a direct connection to another port of the host's loopback"
	refute_contains "$output" "other service"
	assert_eq "$(cat "$W/two/log")" ""
}

@test "a direct connection to the host's loopback reaches the allowed port alone" {
	each_user pass_direct
}

pass_abstract() {
	local client
	client=$(payload connect.py)
	start_listener abstract "$W"
	run usr timeout 10 "$PY" "$client" abstract "$LISTEN_ADDR"
	assert_eq "$output" pong
	run hsbx --allow-host=site.test -- timeout 10 "$PY" "$client" abstract "$LISTEN_ADDR"
	assert_failed "connecting to the host's abstract socket"
	refute_contains "$output" pong
	assert_eq "$(connections)" 1
}

@test "abstract unix sockets stay blocked with --allow-host" {
	each_user pass_abstract
}

pass_port_private() {
	start_web "$W"
	site_opts
	mkdir -m 0777 "$W/run"
	# A sandbox that serves site.test waits until told to end.
	bg hsbx "${SITE[@]}" --rw "$W/run" -- sh -c \
		'touch "$1/up"; while [ ! -e "$1/end" ]; do sleep 0.1; done;
		 curl -sS "http://site.test:$2/index.html" >"$1/late"' sh "$W/run" "$WEB_PORT"
	on_teardown "touch '$W/run/end'"
	wait_for 20 test -e "$W/run/up"
	# Not from the host...
	run usr curl -sS -x http://127.0.0.1:3128 "http://site.test:$WEB_PORT/index.html"
	assert_failed "the proxy from the host"
	refute_contains "$output" hello
	# ...nor from a second sandbox, with no list or with another list.
	# (Without the network, the port is that sandbox's own proxy, which
	# refuses everything: NETWORK BY NAME.)
	run hsbx -- curl -sSf -x http://127.0.0.1:3128 "http://site.test:$WEB_PORT/index.html"
	assert_failed "the proxy from a sandbox without --allow-host"
	assert_contains "$output" "refused site.test:$WEB_PORT (no network)"
	refute_contains "$output" hello
	run hsbx --allow-host=other.test -- curl -sS "http://site.test:$WEB_PORT/index.html"
	assert_contains "$output" "not in allow-list"
	refute_contains "$output" hello
	# The first sandbox's own proxy still serves it.
	touch "$W/run/end"
	wait_for 20 test -s "$W/run/late"
	assert_eq "$(cat "$W/run/late")" "hello from site.test"
	rm -rf "$W/run"
}

@test "the proxy port is reachable neither from the host nor from a second sandbox" {
	each_user pass_port_private
}

pass_newline_name() {
	# A SOCKS5 name is any bytes but NUL: a newline in it stays on the
	# one -v line (sbox-exec(1), NETWORK BY NAME).
	run --separate-stderr hsbx -v --allow-host=site.test -- "$PY" -c '
import socket
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"\x05\x01\x00")
s.recv(2)
name = b"evil.test\nsbox-exec: network: allowed forged.test"
s.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + b"\x00\x50")
print(s.recv(10)[1])'
	assert_eq "$output" 2
	refute_contains "$stderr" $'\nsbox-exec: network: allowed forged.test'
	assert_contains "$stderr" 'sbox-exec: refused evil.test\x0asbox-exec: network: allowed forged.test:80 (not a host name or address)'
}

@test "a newline in a requested name does not start a second line on stderr" {
	each_user pass_newline_name
}

pass_event_flood() {
	local name
	name=$(printf 'a%.0s' {1..60}).$(printf 'b%.0s' {1..60}).$(printf 'c%.0s' {1..60}).test
	# 600 refusals, more than a pipe holds, while the reader sleeps;
	# then the command waits for the reader before it ends.
	{ hsbx --allow-host=site.test --log-fd=3 -- "$PY" -c '
import socket, sys, time
h = sys.argv[1].encode()
for i in range(600):
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(b"GET http://%s/ HTTP/1.1\r\nHost: %s\r\n\r\n" % (h, h))
    s.recv(4096)
    s.close()
time.sleep(3)
sys.exit(5)' "$name" 3>&1 >/dev/null 2>&1; } | (sleep 4; cat) >"$W/events"
	run jq -s -c 'last' "$W/events"
	assert_contains "$output" '{"event":"exit","code":5,"dropped":'
	run jq -s '[.[] | select(.event == "net-denied")] | length' "$W/events"
	[ "$output" -gt 100 ]
	run jq -s '[.[] | select(.event == "exit")] | length' "$W/events"
	assert_eq "$output" 1
}

@test "a flood of refusals on a slow --log-fd reader: the exit event still comes, last, with the count dropped" {
	each_user pass_event_flood
}

pass_timeout_many_connections() {
	start_web "$W"
	site_opts
	mkdir -m 0777 "$W/out"
	# 150 tunnels held open, two descriptors each in the launcher, more
	# than a soft limit of 256 allows (the launcher raises it): the
	# SIGTERM of --timeout still arrives (sbox-exec(1), TIMEOUT AND LIMITS).
	run --separate-stderr limited_hsbx 256 "${SITE[@]}" --timeout=4 --kill-after=3 \
		--rw "$W/out" -- "$PY" -c '
import signal, socket, sys, time
def term(*_):
    open(sys.argv[3] + "/term", "w").write("got-term\n")
    sys.exit(0)
signal.signal(signal.SIGTERM, term)
held = []
for i in range(150):
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(b"CONNECT site.test:%s HTTP/1.1\r\n\r\n" % sys.argv[2].encode())
    held.append(s)
ok = 0
for s in held:
    s.settimeout(5)
    try:
        ok += s.recv(100).startswith(b"HTTP/1.1 200")
    except OSError:
        pass
print(ok, flush=True)
while True:
    time.sleep(0.1)' x "$WEB_PORT" "$W/out"
	assert_eq "$output" 150
	assert_eq "$(cat "$W/out/term" 2>/dev/null)" got-term
	assert_contains "$stderr" "after SIGTERM"
	rm -rf "$W/out"
}

@test "--timeout's SIGTERM arrives while the command holds 150 connections under ulimit -n 256" {
	each_user pass_timeout_many_connections
}

pass_too_many() {
	start_web "$W"
	site_opts
	# A hard limit of 100 descriptors leaves (100 - 64) / 3 = 12
	# connections at once (two sockets each, and the resolver's); the others are closed at once (sbox-exec(1),
	# NETWORK BY NAME).
	run --separate-stderr limited_hsbx_hard 100 "${SITE[@]}" --log-fd=3 -- \
		"$PY" -c '
import socket, sys
held, ok = [], 0
for i in range(30):
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(b"CONNECT site.test:%s HTTP/1.1\r\n\r\n" % sys.argv[1].encode())
    s.settimeout(5)
    try:
        ok += s.recv(100).startswith(b"HTTP/1.1 200")
    except OSError:
        pass
    held.append(s)
print(ok)' "$WEB_PORT" 3>"$W/events"
	assert_status 0
	assert_eq "$output" 12
	assert_eq "$(jq -c 'select(.reason == "too many connections")' "$W/events" | sort -u)" \
		'{"event":"net-denied","reason":"too many connections"}'
}

@test "connections beyond what the descriptor limit allows are closed, with a net-denied event" {
	each_user pass_too_many
}

# --- the launcher stays what it was ---------------------------------------

pass_exit_and_signals() {
	local start end tun pid
	run hsbx --allow-host=site.test -- sh -c 'exit 7'
	assert_status 7
	run hsbx --allow-host=site.test -- sh -c 'kill -TERM $$'
	assert_status 143
	# An open tunnel does not hold the exit up: timed from the command's
	# last act, not from the start, which a loaded machine slows.
	start_web "$W"
	site_opts
	tun=$W/tunnel-${AS:-root}
	mkdir -m 0777 "$tun"
	run hsbx "${SITE[@]}" --rw "$tun" -- sh -c \
		'curl -sS -N -x http://127.0.0.1:3128 -p "telnet://site.test:$1" </dev/zero >/dev/null 2>&1 &
		 sleep 0.5; touch "$2/exiting"; exit 3' sh "$WEB_PORT" "$tun"
	end=$(date +%s%3N)
	assert_status 3
	start=$(stat -c %.3Y "$tun/exiting")
	[ $((end - ${start/./})) -lt 5000 ] ||
		{ echo "the launcher ended $((end - ${start/./})) ms after the command" >&2; return 1; }
	# A signal to the launcher reaches the command, as without the list.
	mkdir -m 0777 "$W/sig"
	bg hsbx --allow-host=site.test --rw "$W/sig" -- sh -c \
		'trap "echo got-term >\"$1/out\"; exit 9" TERM; touch "$1/up"; while :; do sleep 0.1; done' \
		sh "$W/sig"
	wait_for 20 test -e "$W/sig/up"
	# (The [g]: a pattern that does not match the pgrep line itself; no
	# anchor before the name: the checkout's path may have a blank.)
	pid=$(pgrep -f -- "sbox-exec --allow-host=site.test --rw $W/si[g]")
	kill -TERM "$pid"
	wait_for 10 test -s "$W/sig/out"
	assert_eq "$(cat "$W/sig/out")" got-term
	# Nothing left: not the launcher, not bwrap, not the command.
	wait_for 10 sh -c "! pgrep -f -- '$W/si[g]' >/dev/null"
	rm -rf "$W/sig"
}

@test "exit code and signals unchanged, an open tunnel does not delay the exit, nothing left running" {
	each_user pass_exit_and_signals
}

pass_proxy_cannot_start() {
	local hide
	hide=$(payload hide-landlock)
	start_web "$W"
	site_opts
	rm -rf "$W/out" && mkdir -m 0777 "$W/out"
	# The control: under the same filter, without --listen, the command
	# runs and reaches the site through the proxy.
	run --separate-stderr usr "$hide" "$SBOX" "${SITE[@]}" --rw "$W/out" \
		--status-fd=3 -- sh -c 'touch "$1/ran" &&
		curl -sS --noproxy "" -x http://127.0.0.1:3128 "http://127.0.0.1:$2/index.html"' \
		sh "$W/out" "$WEB_PORT" 3>"$W/status"
	assert_status 0
	assert_eq "$output" "hello from site.test"
	assert_eq "$(jq -r .net "$W/status")" allow-list
	rm -f "$W/out/ran"
	# listen() refused: stage two cannot make the proxy's socket, and
	# the command does not run at all, with or without a network.
	run --separate-stderr usr "$hide" --listen "$SBOX" "${SITE[@]}" --rw "$W/out" \
		--status-fd=3 -- touch "$W/out/ran" 3>"$W/status"
	assert_status 125
	assert_sbox_message "$stderr"
	assert_contains "$stderr" "cannot start the network proxy on 127.0.0.1 port 3128 inside the sandbox"
	assert_eq "$output" ""
	[ ! -e "$W/out/ran" ]
	refute_contains "$(cat "$W/status")" '"success"'
}

@test "a proxy that cannot start is a refusal: 125, nothing runs" {
	each_user pass_proxy_cannot_start
}

pass_request_deadline() {
	start_web "$W"
	site_opts
	# Half a request, then nothing: the proxy closes it at its deadline
	# (10 s, sbox-exec(1) NETWORK BY NAME), not at once and not never,
	# and still answers the next connection.
	run --separate-stderr hsbx "${SITE[@]}" -- "$PY" -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT site.test:%s HTTP/1.1\r\n" % sys.argv[1].encode())
s.settimeout(40)
start = time.monotonic()
try:
    data = s.recv(100)
except ConnectionResetError:
    data = b""
waited = time.monotonic() - start
print("closed" if data == b"" else data, "late" if waited >= 8 else "early")
t = socket.create_connection(("127.0.0.1", 3128))
t.sendall(b"CONNECT site.test:%s HTTP/1.1\r\n\r\n" % sys.argv[1].encode())
t.settimeout(15)
print(t.recv(100).split(b"\r\n")[0].decode())' "$WEB_PORT"
	assert_status 0
	assert_eq "$output" "closed late"$'\n'"HTTP/1.1 200 Connection established"
}

@test "a request that never ends is closed at the proxy's deadline; the proxy goes on" {
	each_user pass_request_deadline
}

# --- bad input ------------------------------------------------------------

@test "malformed patterns, --net, and too many entries: 125 and a clear message, nothing runs" {
	local bad many=()
	for bad in '*' '*.' 'a..b' 'example.org:0' 'example.org:65536' \
		'10.1.2.3/24' "$(printf 'a%.0s' {1..300}).org" 'a.*.org'; do
		run --separate-stderr "$SBOX_EXEC" --allow-host="$bad" -- touch "$W/ran"
		assert_status 125
		assert_sbox_message "$stderr"
		assert_contains "$stderr" "--allow-host: '"
	done
	run --separate-stderr "$SBOX_EXEC" --allow-host=example.org --net -- touch "$W/ran"
	assert_status 125
	assert_contains "$stderr" "do not go with --net"
	for i in $(seq 1 257); do many+=(--allow-host="h$i.example"); done
	run --separate-stderr "$SBOX_EXEC" "${many[@]}" -- touch "$W/ran"
	assert_status 125
	assert_contains "$stderr" "at most 256"
	[ ! -e "$W/ran" ]
}

# --- tools that read the proxy variables ----------------------------------

# A registry's answers as static files: npm's document for a package,
# pip's simple index.
fake_registries() {
	echo '{"name":"sboxtestpkg","dist-tags":{"latest":"1.2.3"},"versions":{"1.2.3":{"name":"sboxtestpkg","version":"1.2.3","dist":{"tarball":"http://site.test/sboxtestpkg-1.2.3.tgz","shasum":"0"}}}}' \
		>"$W/www/sboxtestpkg"
	mkdir -p "$W/www/simple/sboxtestpkg"
	echo '<html><body><a href="../../sboxtestpkg-1.2.3-py3-none-any.whl">sboxtestpkg-1.2.3-py3-none-any.whl</a></body></html>' \
		>"$W/www/simple/sboxtestpkg/index.html"
	chmod -R a+rX "$W/www"
}

pass_npm() {
	fake_registries
	start_web "$W"
	site_opts
	run --separate-stderr hsbx "${SITE[@]}" -- npm view sboxtestpkg version \
		--registry "http://site.test:$WEB_PORT/" --cache /tmp/npm-cache
	assert_status 0
	assert_eq "$output" 1.2.3
	grep -q "GET /sboxtestpkg" "$W/log"
	# Not on the list: npm is refused by the proxy, and says so.
	run hsbx --allow-host=other.test -- npm view sboxtestpkg version \
		--registry "http://site.test:$WEB_PORT/" --cache /tmp/npm-cache \
		--fetch-retries=0
	assert_failed "npm with site.test not on the list"
	assert_contains "$output" 403
}

@test "npm honours the proxy variables" {
	requires npm
	each_user pass_npm
}

# fetch_allowed_then_refused WHAT SCRIPT GET PATH...: SCRIPT (sh -c, its
# $1 the site's port, $2 $W/out, writable) fetches "hello from the proxy"
# from site.test, with "GET" in the site's log, while site.test is allowed;
# then, the PATHs (what the first run fetched) removed, it fails with a
# 403 on stderr when only other.test is, and nothing reaches the site.
fetch_allowed_then_refused() {
	local what=$1 script=$2 get=$3
	shift 3
	run --separate-stderr hsbx "${SITE[@]}" --rw "$W/out" -- \
		sh -c "$script" sh "$WEB_PORT" "$W/out"
	assert_status 0
	assert_contains "$output" "hello from the proxy"
	grep -q "$get" "$W/log"
	rm -rf "$@" && : >"$W/log"
	run --separate-stderr hsbx --allow-host=other.test --rw "$W/out" -- \
		sh -c "$script" sh "$WEB_PORT" "$W/out"
	assert_failed "$what with site.test not on the list"
	assert_contains "$stderr" 403
	refute_contains "$(cat "$W/log")" GET
}

# The use the manual and README show: `npm ci` in a project, with the
# registry allowed by name and the project writable, and nothing else.
pass_npm_ci() {
	rm -rf "$W/out"
	start_web "$W"
	site_opts
	mkdir -p "$W/out/proj"
	"$PY" "$(payload fake-registry.py)" npm "$W/www" \
		"http://site.test:$WEB_PORT" "$W/out/proj"
	chmod -R a+rX "$W/www" && chmod -R a+rwX "$W/out"
	# shellcheck disable=SC2016
	local script='cd "$2/proj" && HOME="$2" npm ci --no-audit --no-fund \
		--fetch-retries=0 --registry "http://site.test:$1/" \
		--cache "$2/npm-cache" &&
	    node -p "require(\"sboxnpmpkg\")"'
	fetch_allowed_then_refused "npm ci" "$script" \
		"GET /npm/sboxnpmpkg/-/sboxnpmpkg-1.0.0.tgz" \
		"$W/out/proj/node_modules" "$W/out/npm-cache"
	# and the package is not installed.
	[ ! -e "$W/out/proj/node_modules/sboxnpmpkg/index.js" ]
}

@test "npm ci installs a project's locked dependencies through the proxy" {
	requires npm node
	each_user pass_npm_ci
}

pass_pip() {
	fake_registries
	start_web "$W"
	site_opts
	run --separate-stderr hsbx "${SITE[@]}" -- "$PY" -m pip index versions \
		sboxtestpkg --index-url "http://site.test:$WEB_PORT/simple/" \
		--trusted-host site.test --no-cache-dir --disable-pip-version-check
	assert_status 0
	assert_contains "$output" "sboxtestpkg (1.2.3)"
	grep -q "GET /simple/sboxtestpkg/" "$W/log"
}

@test "pip honours the proxy variables" {
	"$PY" -m pip --version >/dev/null 2>&1 ||
		skip_or_fail "pip is not installed for $PY"
	each_user pass_pip
}

pass_node_fetch() {
	local major
	start_web "$W"
	site_opts
	major=$(node -p 'process.versions.node.split(".")[0]')
	# The site's address by a network entry, which the sandbox's own
	# loopback does not serve (an address with a port would be served
	# there, and reached without the proxy: net-off.bats).
	run hsbx --allow-host="site.test:$WEB_PORT" \
		--allow-host="127.0.0.0/8:$WEB_PORT" -- node -e \
		'fetch(process.argv[1]).then(r => r.text()).then(t => process.stdout.write(t),
			e => { console.log("failed", e.cause && e.cause.code); process.exit(1); })' \
		"http://site.test:$WEB_PORT/index.html"
	# The sandbox has no other way out: an answer came through the proxy.
	if [ "$status" = 0 ]; then
		assert_eq "$output" "hello from site.test"
	fi
	if [ "$major" -ge 24 ]; then
		assert_status 0
	elif [ "$major" -le 20 ]; then
		# Node 20's fetch ignores NODE_USE_ENV_PROXY: it connects by
		# itself and fails closed (sbox-exec(1), NETWORK BY NAME).
		assert_failed "Node $major's fetch without proxy support"
		refute_contains "$output" hello
	fi
}

@test "Node's fetch: through the proxy with NODE_USE_ENV_PROXY where Node has it, closed where not" {
	requires node
	each_user pass_node_fetch
}

# Go: a module from a module proxy (GOPROXY) named by an allowed name;
# the checksum database is switched off, as it would need its own entry.
pass_go() {
	rm -rf "$W/out"
	start_web "$W"
	site_opts
	"$PY" "$(payload fake-registry.py)" go "$W/www"
	chmod -R a+rX "$W/www"
	mkdir -m 0777 "$W/out"
	# shellcheck disable=SC2016
	local script='env HOME="$2" GOPROXY="http://site.test:$1/goproxy" GOSUMDB=off \
		GOENV=off GOPATH="$2/gopath" GOMODCACHE="$2/mod" GOCACHE="$2/cache" \
		go mod download example.test/sboxhello@v0.1.0 &&
	    cat "$2/mod/example.test/sboxhello@v0.1.0/hello.go"'
	fetch_allowed_then_refused go "$script" \
		"GET /goproxy/example.test/sboxhello/@v/v0.1.0.zip" \
		"$W/out/mod" "$W/out/cache" "$W/out/gopath"
}

@test "go honours the proxy variables" {
	requires go
	each_user pass_go
}

# Cargo (Debian's, /usr/bin/cargo): a crate from a registry whose index is
# a git repository served over HTTP and fetched with the git command, as
# Debian's cargo has no sparse registries.
# cargo_registry: the registry sboxtest (fake-registry.py cargo) served
# as a git index (index.git) and as a sparse one (index-src/).
cargo_registry() {
	rm -rf "$W/www/index-src" "$W/www/index.git"
	start_web "$W"
	site_opts
	"$PY" "$(payload fake-registry.py)" cargo "$W/www" \
		"http://site.test:$WEB_PORT"
	git -C "$W/www/index-src" init -q
	git -C "$W/www/index-src" add .
	git -C "$W/www/index-src" -c user.name=t -c user.email=t@t commit -qm index
	git clone -q --bare "$W/www/index-src" "$W/www/index.git"
	git -C "$W/www/index.git" update-server-info
	chmod -R a+rX "$W/www"
}

# cargo_manifest DIR: a crate in DIR, the pass's user's, that depends on
# the registry's crate.
cargo_manifest() {
	usr sh -c 'mkdir -p "$1/src" && printf "%s\n" "[package]" \
		"name = \"proj\"" "version = \"0.1.0\"" "edition = \"2018\"" \
		"[dependencies]" \
		"sboxtestcrate = { version = \"0.1\", registry = \"sboxtest\" }" \
		>"$1/Cargo.toml" && : >"$1/src/lib.rs"' sh "$1"
}

pass_cargo() {
	rm -rf "$W/out"
	cargo_registry
	mkdir -m 0777 "$W/out"
	cargo_manifest "$W/out/proj"
	chmod -R a+rwX "$W/out"
	# shellcheck disable=SC2016
	local script='env HOME="$2" CARGO_HOME="$2/cargo-home" \
		CARGO_REGISTRIES_SBOXTEST_INDEX="http://site.test:$1/index.git" \
		CARGO_NET_GIT_FETCH_WITH_CLI=true \
		/usr/bin/cargo fetch -q --manifest-path "$2/proj/Cargo.toml" &&
	    cat "$2"/cargo-home/registry/src/*/sboxtestcrate-0.1.0/src/lib.rs'
	fetch_allowed_then_refused cargo "$script" \
		"GET /crates/sboxtestcrate/0.1.0/download" \
		"$W/out/cargo-home" "$W/out/proj/Cargo.lock"
}

@test "cargo honours the proxy variables" {
	[ -x /usr/bin/cargo ] || skip_or_fail "Debian's cargo is not installed"
	requires git
	each_user pass_cargo
}

# --- the package-manager profiles (sbox-exec(1), PROFILES) -----------------
# Each installs through the proxy into the project and the profile's
# private cache, from a fresh home that holds nothing else afterwards: the
# caches an unsandboxed tool reads (~/.npm, ~/.cache/pip, ~/.cargo) are
# never written (tests/escape/caches.bats tries to poison them).

# pm_home: an empty home ($HOMEDIR, exported as HOME) and an empty
# project ($PROJ, the working directory), the pass's user's.
pm_home() {
	HOMEDIR=$W/home-${AS:-root}
	PROJ=$W/proj-${AS:-root}
	rm -rf "$HOMEDIR" "$PROJ"
	usr mkdir -m 0700 "$HOMEDIR"
	usr mkdir "$PROJ"
	unset XDG_CACHE_HOME XDG_CONFIG_HOME
	export HOME=$HOMEDIR
	cd "$PROJ"
}

# pm_private PROFILE: the home holds the private caches and nothing else;
# prints the profile's private cache directory.
pm_private() {
	assert_eq "$(cd "$HOMEDIR" && ls -A)" .cache
	assert_eq "$(ls -A "$HOMEDIR/.cache")" sbox-exec
	echo "$HOMEDIR"/.cache/sbox-exec/"$(basename "$PROJ")"-*/"$1"
}

pass_npm_profile() {
	local cache
	pm_home
	usr sh -c 'echo "{\"name\":\"proj\",\"version\":\"1.0.0\"}" >package.json'
	run --separate-stderr sbx --profile=npm "${MIRROR[@]}" -- npm install \
		--no-audit --no-fund --fetch-retries=0 is-number@7.0.0
	echo "$stderr" >&2
	assert_status 0
	assert_contains "$(cat "$PROJ/node_modules/is-number/package.json")" '"7.0.0"'
	cache=$(pm_private npm)
	[ -n "$(ls "$cache/npm/_cacache")" ]
	# Not on the list: the same install is refused, nothing installed.
	rm -rf "$PROJ/node_modules" "$PROJ/package-lock.json"
	run --separate-stderr sbx --profile=npm "${MIRROR[@]}" \
		--deny-host=registry.npmjs.org -- npm install --no-audit --no-fund --fetch-retries=0 \
		--prefer-online is-number@7.0.0
	assert_failed "npm install with registry.npmjs.org denied"
	assert_contains "$stderr" 403
	assert_absent "$PROJ/node_modules/is-number"
}

@test "the npm profile: npm install from the public registry, its cache private, the home untouched" {
	requires npm
	# The one test that needs a network beyond this machine: the npm
	# registry, reachable wherever scripts/install-deps could install.
	curl -sS -m 20 -o /dev/null https://registry.npmjs.org/is-number ||
		skip_or_fail "the npm registry is not reachable from here"
	# Where this machine's resolver points the registry at a mirror on an
	# address the proxy refuses by default (a special-purpose block,
	# sbox-exec(1) NETWORK BY NAME), an address entry allows it, as it
	# would for a user behind such a mirror.
	MIRROR=()
	for addr in $(getent ahosts registry.npmjs.org | awk '{print $1}' | sort -u); do
		case $addr in
		*:*) MIRROR+=(--allow-host="[$addr]") ;;
		*) MIRROR+=(--allow-host="$addr") ;;
		esac
	done
	each_user pass_npm_profile
}

pass_pip_profile() {
	local cache
	pm_home
	fake_registries
	"$PY" "$(payload fake-registry.py)" pip "$W/www"
	chmod -R a+rX "$W/www"
	start_web "$W"
	site_opts
	run --separate-stderr hsbx --profile=pip "${SITE[@]}" -- sh -c \
		'"$1" -m pip cache dir &&
		 "$1" -m pip download -q -d dl --no-deps --disable-pip-version-check \
			--index-url "http://site.test:$2/simple/" \
			--trusted-host site.test sboxpippkg' sh "$PY" "$WEB_PORT"
	echo "$stderr" >&2
	assert_status 0
	cache=$(pm_private pip)
	assert_eq "$output" "$cache/pip"
	[ -f "$PROJ/dl/sboxpippkg-1.0.0-py3-none-any.whl" ]
	grep -q "GET /wheels/sboxpippkg-1.0.0-py3-none-any.whl" "$W/log"
}

@test "the pip profile: pip download through an allowed index, its cache private, the home untouched" {
	"$PY" -m pip --version >/dev/null 2>&1 ||
		skip_or_fail "pip is not installed for $PY"
	each_user pass_pip_profile
}


# cargo_fetch INDEX CARGO-ARGS...: cargo fetch under --profile=cargo with
# the registry's index at INDEX; the crate lands in the private
# CARGO_HOME, Cargo.lock in the project, and the home holds nothing else.
cargo_fetch() {
	local index=$1 cache
	shift
	rm -rf "$PROJ/Cargo.lock" "$HOMEDIR/.cache"
	export CARGO_REGISTRIES_SBOXTEST_INDEX=$index
	export CARGO_NET_GIT_FETCH_WITH_CLI=true
	run --separate-stderr hsbx --profile=cargo "${SITE[@]}" -- "$@" fetch
	unset CARGO_REGISTRIES_SBOXTEST_INDEX CARGO_NET_GIT_FETCH_WITH_CLI
	echo "$stderr" >&2
	assert_status 0
	cache=$(pm_private cargo)
	[ -f "$(echo "$cache"/home/registry/src/*/sboxtestcrate-0.1.0/src/lib.rs)" ]
	grep -q sboxtestcrate "$PROJ/Cargo.lock"
}

pass_cargo_profile() {
	pm_home
	cargo_registry
	cargo_manifest "$PROJ"
	: >"$W/log"
	cargo_fetch "http://site.test:$WEB_PORT/index.git" /usr/bin/cargo
	grep -q "GET /index.git/info/refs" "$W/log"
	# The sparse index: current cargo's default; Debian 12's cargo has it
	# behind -Z sparse-registry.
	: >"$W/log"
	cargo_fetch "sparse+http://site.test:$WEB_PORT/index-src/" \
		env RUSTC_BOOTSTRAP=1 /usr/bin/cargo -Z sparse-registry
	grep -q "GET /index-src/sb/ox/sboxtestcrate" "$W/log"
}

@test "the cargo profile: Debian's cargo through a git index and a sparse index, CARGO_HOME private, the home untouched" {
	[ -x /usr/bin/cargo ] || skip_or_fail "Debian's cargo is not installed"
	requires git
	each_user pass_cargo_profile
}

# --- what was refused, said (sbox-exec(1), DENIALS) -------------------------

# npm with its registry not on the list: the line names the host and the
# option that would allow it; an allowed name that does not resolve and
# an allowed port where nothing listens have lines of their own, which do
# not call them refused.
pass_denial_lines() {
	local free
	fake_registries
	start_web "$W"
	site_opts
	# The control: allowed, npm gets its answer.
	run --separate-stderr hsbx "${SITE[@]}" -- npm view sboxtestpkg version \
		--registry "http://site.test:$WEB_PORT/" --cache /tmp/npm-cache
	assert_eq "$output" 1.2.3
	refute_contains "$stderr" "sbox-exec:"
	run --separate-stderr hsbx --allow-host=other.test -- npm view \
		sboxtestpkg version --registry "http://site.test:$WEB_PORT/" \
		--cache /tmp/npm-cache --fetch-retries=0
	assert_failed "npm with site.test not on the list"
	assert_contains "$stderr" "sbox-exec: refused site.test:$WEB_PORT (not in allow-list); to allow: --allow-host=site.test:$WEB_PORT"
	assert_contains "$stderr" "to allow what an option can: "
	refute_contains "$output" "sbox-exec"
	# An allowed name that does not resolve.
	run --separate-stderr hsbx --allow-host=nosuch.invalid -- \
		curl -fsS "http://nosuch.invalid/"
	assert_failed "curl of a name that does not resolve"
	assert_contains "$stderr" "sbox-exec: could not resolve nosuch.invalid:80, which is allowed (cannot resolve:"
	refute_contains "$stderr" "refused"
	# An allowed name and address where nothing listens (by its name:
	# the proxy variables leave 127.0.0.1 out of the proxy).
	free=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	run --separate-stderr hsbx --allow-host="site.test:$free" \
		--allow-host="127.0.0.1:$free" -- curl -fsS "http://site.test:$free/"
	assert_failed "curl of a port where nothing listens"
	assert_contains "$stderr" "sbox-exec: could not reach site.test:$free, which is allowed (cannot connect:"
	# -v does not call either "denied".
	run --separate-stderr hsbx -v --allow-host=nosuch.invalid -- \
		curl -sS "http://nosuch.invalid/"
	refute_contains "$stderr" "denied"
	# -q: nothing of ours.
	run --separate-stderr hsbx -q --allow-host=other.test -- \
		curl -fsS "http://site.test:$WEB_PORT/"
	assert_failed "curl of a name not on the list"
	refute_contains "$stderr" "sbox-exec:"
}

@test "a host refused, a name that does not resolve, a host not reached: one line each, the option where one allows it" {
	requires npm
	each_user pass_denial_lines
}
