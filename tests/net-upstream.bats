#!/usr/bin/env bats
# --upstream-proxy, the environment's HTTPS_PROXY/HTTP_PROXY/NO_PROXY and
# --upstream-proxy-auth-file: the launcher's proxy chained to an upstream
# proxy (sbox-exec(1), --upstream-proxy, NETWORK BY NAME, ENVIRONMENT).
# The upstream is tests/payloads/upstream-proxy.py on the host's
# loopback: it records every request head it receives and sends every
# name to a local origin (tests/payloads/web-server.py), so the names
# asked for resolve nowhere but there.  Every pass as root and as an
# unprivileged user (each_user); every "never arrives" next to a request
# that does arrive, showing the recorder works.

# shellcheck disable=SC2016,SC2030,SC2031
load helpers

# The credentials of the tests: the password is what must appear nowhere.
PASSWORD='pw-7Hq%Zk9'
PASSWORD_URL=${PASSWORD//%/%25} # as a URL's userinfo writes it
USERPASS="alice:$PASSWORD"

setup() {
	requires bwrap userns root setpriv
	unset HTTPS_PROXY https_proxy HTTP_PROXY http_proxy NO_PROXY no_proxy
	command -v curl >/dev/null || skip_or_fail "needs curl"
	command -v openssl >/dev/null || skip_or_fail "needs openssl"
	W=$(scratch_dir)
	mkdir -p "$W/plain/www" "$W/tls/www" "$W/out"
	chmod 0777 "$W/out" "$W/plain" "$W/tls"
	echo "plain from the origin" >"$W/plain/www/index.html"
	echo "tls from the origin" >"$W/tls/www/index.html"
	chmod -R a+rX "$W/plain/www" "$W/tls/www"
	start_web "$W/plain"
	PLAIN_PORT=$WEB_PORT
	start_web "$W/tls" tls
	TLS_PORT=$WEB_PORT
	BASIC="Basic $(printf '%s' "$USERPASS" | base64)"
	HOSTS=$W/hosts
	echo "127.0.0.1 site.test" >"$HOSTS"
	chmod 0644 "$HOSTS"
}

# start_upstream NAME [AUTH]: a recording upstream proxy; its port in
# $UP_PORT, its record in $W/NAME.log (empty until a request arrives).
start_upstream() {
	local server
	server=$(payload upstream-proxy.py)
	: >"$W/$1.log"
	chmod 0644 "$W/$1.log"
	rm -f "$W/$1.port"
	bg "$PY" "$server" "$W/$1.port" "$W/$1.log" "$PLAIN_PORT" "$TLS_PORT" \
		${2:+"$2"}
	wait_for 10 test -s "$W/$1.port"
	UP_PORT=$(cat "$W/$1.port")
}

# dead_port: a loopback port where nothing listens, in $DEAD_PORT.
dead_port() {
	DEAD_PORT=$("$PY" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
}

# The sandbox's two requests: HTTPS (CONNECT, port 443) and plain HTTP.
TWO_REQUESTS='curl -sS --cacert "$1/tls/cert.pem" https://site.test/index.html &&
	curl -sS http://site.test/index.html'

# --- the chain: what arrives upstream ---------------------------------------

pass_chain() {
	start_upstream up
	# The control: the upstream, asked directly, tunnels to the origin.
	run usr curl -sS -x "http://127.0.0.1:$UP_PORT" --cacert "$W/tls/cert.pem" \
		https://site.test/index.html
	assert_status 0
	assert_eq "$output" "tls from the origin"
	: >"$W/up.log"
	run sbx --upstream-proxy="http://127.0.0.1:$UP_PORT" \
		--allow-host=site.test --status-fd=3 --log-fd=4 -- \
		sh -c "$TWO_REQUESTS"' &&
		curl -sS -x socks5h://127.0.0.1:3128 --noproxy "" \
			--cacert "$1/tls/cert.pem" https://site.test/index.html' \
		sh "$W" 3>"$W/status" 4>"$W/events"
	assert_status 0
	assert_eq "$output" "tls from the origin"$'\n'"plain from the origin"$'\n'"tls from the origin"
	# The name as asked, never an address (a SOCKS5 request's too);
	# plain HTTP in absolute form.
	assert_eq "$(grep -c '^CONNECT ' "$W/up.log")" 2
	assert_eq "$(grep -cx 'CONNECT site.test:443 HTTP/1.1' "$W/up.log")" 2
	grep -qx 'Host: site.test:443' "$W/up.log"
	grep -qx 'GET http://site.test:80/index.html HTTP/1.1' "$W/up.log"
	! grep -qi '^Proxy-Authorization' "$W/up.log" || return 1
	assert_eq "$(jq -r .net "$W/status")" allow-list
	# -v is off: no net-allowed event; the exit only.
	assert_eq "$(jq -r .event "$W/events")" exit
}

@test "an allowed name goes through --upstream-proxy: CONNECT name:443 (from CONNECT and SOCKS5) and absolute-form HTTP arrive there, the bodies reach the sandbox" {
	each_user pass_chain
}

pass_denied_never_arrives() {
	start_upstream up
	run sbx --upstream-proxy="http://127.0.0.1:$UP_PORT" \
		--allow-host=site.test --log-fd=3 -- sh -c \
		'curl -sS https://other.test/ ; echo "https $?";
		 curl -sS http://other.test/ ; echo "http $?";
		 curl -sS -x socks5h://127.0.0.1:3128 --noproxy "" https://other.test/ ; echo "socks $?"' \
		3>"$W/events"
	assert_status 0
	assert_contains "$output" "https 56"
	assert_contains "$output" "sbox-exec: other.test port 80: not in allow-list"
	assert_contains "$output" "socks 97"
	# Nothing arrived upstream: the refusal was the launcher's.
	assert_eq "$(cat "$W/up.log")" ""
	assert_eq "$(jq -r 'select(.event == "net-denied") | .reason' "$W/events" | sort -u)" \
		"not in allow-list"
	# The control: in the same way, an allowed name arrives.
	run sbx --upstream-proxy="http://127.0.0.1:$UP_PORT" \
		--allow-host=site.test -- curl -sS http://site.test/index.html
	assert_status 0
	assert_eq "$output" "plain from the origin"
	grep -qx 'GET http://site.test:80/index.html HTTP/1.1' "$W/up.log"
}

@test "a denied name never reaches the upstream proxy; the sandbox sees the refusal" {
	each_user pass_denied_never_arrives
}

pass_address_request() {
	start_upstream up
	# An address no pattern covers: refused here, never sent on.
	run sbx --upstream-proxy="http://127.0.0.1:$UP_PORT" \
		--allow-host="10.0.0.0/8:$PLAIN_PORT" -- \
		curl -sS -p -x http://127.0.0.1:3128 --noproxy "" \
		"http://127.0.0.1:$PLAIN_PORT/index.html"
	assert_failed "a CONNECT to an address no pattern covers"
	assert_contains "$output" "403"
	assert_eq "$(cat "$W/up.log")" ""
	# The control: an address the pattern covers is sent on as asked.
	run sbx --upstream-proxy="http://127.0.0.1:$UP_PORT" \
		--allow-host="127.0.0.0/8:$PLAIN_PORT" -- \
		curl -sS -p -x http://127.0.0.1:3128 --noproxy "" \
		"http://127.0.0.1:$PLAIN_PORT/index.html"
	assert_status 0
	assert_eq "$output" "plain from the origin"
	grep -qx "CONNECT 127.0.0.1:$PLAIN_PORT HTTP/1.1" "$W/up.log"
}

@test "a request for an address is judged on the address before the upstream proxy sees it" {
	each_user pass_address_request
}

# --- this host's names, through a real upstream (tinyproxy) -----------------

# start_tinyproxy: Debian's tinyproxy as the upstream, on a loopback port,
# with a configuration written here, seeing $W/tp-hosts as /etc/hosts
# (this host's name and localhost on 127.0.0.1, so that the controls do
# not depend on the machine's files); its port in $TP_PORT, its log in
# $W/tp.log.
start_tinyproxy() {
	local try
	printf '127.0.0.1 localhost %s\n' "$(hostname)" >"$W/tp-hosts"
	for try in 1 2 3 4 5; do
		dead_port
		TP_PORT=$DEAD_PORT
		cat >"$W/tp.conf" <<-EOF
			Port $TP_PORT
			Listen 127.0.0.1
			Timeout 30
			LogFile "$W/tp.log"
			LogLevel Connect
			MaxClients 20
			Allow 127.0.0.1
		EOF
		: >"$W/tp.log"
		bg unshare -m --propagation private -- sh -c \
			'mount --bind "$1" /etc/hosts && exec "$2" -d -c "$3"' \
			sh "$W/tp-hosts" "$TINYPROXY" "$W/tp.conf"
		# Another test may have taken the port meanwhile: try another.
		if wait_for 5 "$PY" -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$TP_PORT"; then
			return 0
		fi
	done
	return 1
}

# The sandbox's requests for $1 (a host) through sbox-exec's proxy, as
# plain HTTP and as CONNECT: each prints its HTTP status.
THIS_HOST='curl -sS -x http://127.0.0.1:3128 --noproxy "" -o /dev/null \
		-w "http %{http_code}\n" "http://$1/index.html"
	curl -sS -p -x http://127.0.0.1:3128 --noproxy "" -o /dev/null \
		-w "connect %{http_connect}\n" "http://$1/index.html"
	true'

# this_host_refused HOST REASON SBX...: the control first (through
# tinyproxy, unsandboxed, HOST:$SVC_PORT answers 200 and the service logs
# it), then the sandbox run by SBX... (sbx or hsbx) with
# --allow-host=HOST:$SVC_PORT ($ALLOW:$SVC_PORT with $ALLOW) and tinyproxy
# as the upstream: both
# requests refused with 403, REASON named on stderr, and neither
# tinyproxy nor the service sees anything.
this_host_refused() {
	local host=$1 reason=$2
	shift 2
	: >"$W/svc/log"
	run usr curl -sS -x "http://127.0.0.1:$TP_PORT" -o /dev/null \
		-w '%{http_code}' "http://$host:$SVC_PORT/index.html"
	assert_status 0
	assert_eq "$output" 200
	assert_eq "$(grep -c 'GET /index.html' "$W/svc/log")" 1
	grep -q "Request .*$host:$SVC_PORT" "$W/tp.log"
	: >"$W/svc/log"
	: >"$W/tp.log"
	HTTPS_PROXY="http://127.0.0.1:$TP_PORT" \
		HTTP_PROXY="http://127.0.0.1:$TP_PORT" \
		run "$@" --allow-host="${ALLOW:-$host}:$SVC_PORT" --log-fd=3 -- \
		sh -c "$THIS_HOST" sh "$host:$SVC_PORT" 3>"$W/events"
	assert_status 0
	assert_contains "$output" "http 403"
	assert_contains "$output" "connect 403"
	assert_contains "$output" "sbox-exec: refused $host:$SVC_PORT ($reason)"
	assert_eq "$(jq -r 'select(.event == "net-denied") | .reason' "$W/events" | sort -u)" \
		"$reason"
	[ "$(jq -r 'select(.upstream != null)' "$W/events")" = "" ]
	assert_eq "$(cat "$W/svc/log")" ""
	! grep -q 'Request' "$W/tp.log"
}

pass_this_host() {
	local me
	me=$(hostname)
	start_tinyproxy
	mkdir -p "$W/svc/www"
	echo "the host's own service" >"$W/svc/www/index.html"
	chmod -R a+rX "$W/svc"
	start_web "$W/svc"
	SVC_PORT=$WEB_PORT
	# localhost, as this machine's /etc/hosts resolves it (127.0.0.1):
	# the direct path's reason.
	this_host_refused localhost "resolves to a loopback address" sbx
	# Where nothing resolves (no hosts entry, no name server), the
	# names mean this host by themselves.
	HOSTS=$W/no-hosts RESOLV=$W/no-resolv \
		this_host_refused localhost "resolves to a loopback address" hsbx
	HOSTS=$W/no-hosts RESOLV=$W/no-resolv \
		this_host_refused "$me" "resolves to this host's own address" hsbx
	# The host's name resolving here to 127.0.0.1: the direct path's
	# reason.
	HOSTS=$W/tp-hosts this_host_refused "$me" \
		"resolves to a loopback address" hsbx
	# The address itself, allowed by name only: no pattern covers it.
	ALLOW=localhost this_host_refused 127.0.0.1 \
		"address not in allow-list" sbx
	# The control: a name that does not resolve here goes to the
	# upstream as before (tinyproxy cannot resolve it either: 500).
	: >"$W/tp.log"
	HTTPS_PROXY="http://127.0.0.1:$TP_PORT" HTTP_PROXY="http://127.0.0.1:$TP_PORT" \
		RESOLV=$W/no-resolv run hsbx --allow-host="nowhere.test:$SVC_PORT" -- \
		sh -c "$THIS_HOST" sh "nowhere.test:$SVC_PORT"
	assert_status 0
	assert_contains "$output" "http 500"
	grep -q "Request .*nowhere.test:$SVC_PORT" "$W/tp.log"
}

@test "through an upstream proxy (tinyproxy), localhost, the host's own name and 127.0.0.1 are refused before the upstream sees them, as without one" {
	requires tinyproxy unshare
	TINYPROXY=$(command -v tinyproxy)
	# sbox-exec's view where nothing resolves: an empty hosts file, and
	# a name server that answers nothing at once.
	: >"$W/no-hosts"
	printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$W/no-resolv"
	chmod 0644 "$W/no-hosts" "$W/no-resolv"
	each_user pass_this_host
}

# --- credentials ------------------------------------------------------------

# check_secret_absent: run the sandbox in the background through $UP_PORT
# with the credentials given by "$@" (sbox-exec options), and while it
# runs look at the command lines of the launcher and of everything below
# it (bwrap, the sandbox) and at the environment of everything below it:
# no password, no Basic value.  Then the events, status, stderr and the
# sandbox's environment.  Prefix: $CRED_ENV (VAR=VALUE), or none.
check_secret_absent() {
	local launcher pids p f
	rm -f "$W/out/up" "$W/out/go" "$W/out/env" "$W/out/body"
	# Not bg: the launcher's descriptors 3 and 4 are its channels.
	(usr_exec env ${CRED_ENV:+"$CRED_ENV"} "$SBOX" "$@" \
		--allow-host=site.test --rw="$W/out" -v --status-fd=3 --log-fd=4 -- \
		sh -c 'env >"$1/out/env" &&
		 curl -sS --cacert "$1/tls/cert.pem" https://site.test/index.html >"$1/out/body" &&
		 curl -sS http://site.test/index.html >>"$1/out/body" &&
		 touch "$1/out/up" &&
		 while [ ! -e "$1/out/go" ]; do sleep 0.1; done' sh "$W") \
		</dev/null >/dev/null 3>"$W/status" 4>"$W/events" 2>"$W/stderr" &
	launcher=$!
	forget_bg "$launcher"
	wait_for 20 test -e "$W/out/up"
	# The control: the launcher's own environment holds what the caller
	# gave it, and this search finds it there.
	if [ -n "${CRED_ENV:-}" ]; then
		tr '\0' '\n' </proc/"$launcher"/environ | grep -qF "$PASSWORD_URL"
	fi
	pids=$(descendants "$launcher")
	[ -n "$pids" ]
	! tr '\0' ' ' </proc/"$launcher"/cmdline | grep -qF -e "$PASSWORD" -e "$PASSWORD_URL" -e "${BASIC#Basic }" || return 1
	for p in $pids; do
		[ -r /proc/"$p"/cmdline ] || continue
		! tr '\0' ' ' </proc/"$p"/cmdline | grep -qF -e "$PASSWORD" -e "$PASSWORD_URL" -e "${BASIC#Basic }" || return 1
		! tr '\0' '\n' </proc/"$p"/environ 2>/dev/null |
			grep -qF -e "$PASSWORD" -e "$PASSWORD_URL" -e "${BASIC#Basic }" || return 1
	done
	touch "$W/out/go"
	wait_for 20 test -s "$W/status"
	wait_for 20 grep -q '"event":"exit"' "$W/events"
	assert_eq "$(cat "$W/out/body")" "tls from the origin"$'\n'"plain from the origin"
	# The credentials arrived upstream, for both requests...
	assert_eq "$(grep -cxF "Proxy-Authorization: $BASIC" "$W/up.log")" 2
	# ...and nowhere else.
	for f in "$W/status" "$W/events" "$W/stderr" "$W/out/env"; do
		! grep -qF -e "$PASSWORD" -e "$PASSWORD_URL" -e "${BASIC#Basic }" \
			-e alice "$f" || return 1
	done
	# The sandbox's proxy variables point at sbox-exec's own proxy.
	grep -qx 'HTTPS_PROXY=http://127.0.0.1:3128' "$W/out/env"
	grep -qx 'https_proxy=http://127.0.0.1:3128' "$W/out/env"
	grep -q 'upstream proxy 127.0.0.1:' "$W/stderr"
	assert_eq "$(jq -r 'select(.event == "net-allowed") | .upstream' "$W/events" | sort -u)" \
		"127.0.0.1:$UP_PORT"
}

# descendants PID: every process below PID.
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}

pass_auth_file() {
	start_upstream up "$BASIC"
	printf '%s\n' "$USERPASS" >"$W/auth"
	chmod 0644 "$W/auth"
	[ -z "${AS:-}" ] || chown 65534:65534 "$W/auth"
	# Readable by others: refused before anything runs, without the
	# password in the message.
	run sbx --upstream-proxy="http://127.0.0.1:$UP_PORT" \
		--upstream-proxy-auth-file="$W/auth" --allow-host=site.test -- true
	assert_status 125
	assert_contains "$output" "chmod 600"
	refute_contains "$output" "$PASSWORD"
	chmod 0600 "$W/auth"
	# The control: without the credentials the upstream answers 407.
	run sbx --upstream-proxy="http://127.0.0.1:$UP_PORT" \
		--allow-host=site.test -- curl -sS http://site.test/index.html
	assert_contains "$output" "407"
	: >"$W/up.log"
	CRED_ENV=""
	check_secret_absent --upstream-proxy="http://127.0.0.1:$UP_PORT" \
		--upstream-proxy-auth-file="$W/auth"
}

@test "credentials from --upstream-proxy-auth-file arrive as Proxy-Authorization and appear nowhere else" {
	each_user pass_auth_file
}

pass_auth_env() {
	start_upstream up "$BASIC"
	# A shell variable, not exported: as an assignment before the call it
	# would be in the launcher's environment under its own name, and so
	# in bwrap's, which is the caller's (the secret check would find the
	# test's variable, not a leak).
	CRED_ENV="HTTPS_PROXY=http://alice:$PASSWORD_URL@127.0.0.1:$UP_PORT"
	check_secret_absent
	unset CRED_ENV
	# --print and --check's status, from the same environment.
	run usr env "HTTPS_PROXY=http://alice:$PASSWORD_URL@127.0.0.1:$UP_PORT" \
		"$SBOX" --allow-host=site.test --print -- true
	assert_status 0
	refute_contains "$output" "$PASSWORD_URL"
	refute_contains "$output" "alice"
	run usr env "HTTPS_PROXY=http://alice:$PASSWORD_URL@127.0.0.1:$UP_PORT" \
		"$SBOX" --allow-host=site.test --check --json -v
	assert_status 0
	assert_contains "$output" "upstream proxy 127.0.0.1:$UP_PORT (from HTTPS_PROXY)"
	refute_contains "$output" "$PASSWORD_URL"
	refute_contains "$output" "alice"
}

@test "credentials from HTTPS_PROXY's URL arrive as Proxy-Authorization and appear nowhere else" {
	each_user pass_auth_env
}

pass_no_secret_on_argv() {
	run sbx --upstream-proxy="http://alice:$PASSWORD@127.0.0.1:3128" \
		--allow-host=site.test --status-fd=3 -- true 3>"$W/status"
	assert_status 125
	assert_contains "$output" "--upstream-proxy-auth-file"
	refute_contains "$output" "$PASSWORD"
	refute_contains "$(cat "$W/status")" "$PASSWORD"
	assert_eq "$(jq -r .status "$W/status")" invalid-policy
	run sbx --upstream-proxy="https://127.0.0.1:3128" --allow-host=site.test -- true
	assert_status 125
	assert_contains "$output" "TLS"
	# Malformed: refused by --check too, before anything runs.
	for bad in "http://127.0.0.1:0" "http://127.0.0.1:99999" "socks5://127.0.0.1:1080" \
		"http://127.0.0.1:3128/path" "http://bad host:1" ""; do
		run sbx --upstream-proxy="$bad" --allow-host=site.test --check \
			--status-fd=3 3>"$W/status"
		assert_status 125
		assert_eq "$(jq -r .status "$W/status")" invalid-policy
	done
	# The environment's malformed URL is refused, and none ignores it.
	run usr env HTTPS_PROXY="ftp://alice:$PASSWORD@proxy" "$SBOX" \
		--allow-host=site.test -- true
	assert_status 125
	assert_contains "$output" "HTTPS_PROXY"
	refute_contains "$output" "$PASSWORD"
	run usr env HTTPS_PROXY="ftp://alice:$PASSWORD@proxy" "$SBOX" \
		--upstream-proxy=none --allow-host=site.test -- true
	assert_status 0
	# A policy file cannot choose where the traffic and credentials go.
	printf -- '--upstream-proxy=http://127.0.0.1:3128\n' >"$W/p.policy"
	chmod 0644 "$W/p.policy"
	run sbx --policy="$W/p.policy" --allow-host=site.test -- true
	assert_status 125
	assert_contains "$output" "belongs on the command line"
}

@test "credentials on the command line, https:// and malformed upstream URLs are refused (125, invalid-policy) without echoing the password" {
	each_user pass_no_secret_on_argv
}

# --- the environment: the default, NO_PROXY, the opt-out --------------------

pass_env_default_and_opt_out() {
	start_upstream up
	# HTTP_PROXY alone serves plain HTTP and tunnels alike.
	run usr env HTTP_PROXY="http://127.0.0.1:$UP_PORT" "$SBOX" \
		--allow-host=site.test -- sh -c "$TWO_REQUESTS" sh "$W"
	assert_status 0
	assert_eq "$output" "tls from the origin"$'\n'"plain from the origin"
	grep -qx 'CONNECT site.test:443 HTTP/1.1' "$W/up.log"
	grep -qx 'GET http://site.test:80/index.html HTTP/1.1' "$W/up.log"
	# --upstream-proxy=none: direct, as without the variable (site.test
	# is 127.0.0.1 in the hosts file the launcher sees).
	: >"$W/up.log"
	HTTPS_PROXY="http://127.0.0.1:$UP_PORT" HTTP_PROXY="http://127.0.0.1:$UP_PORT" \
		run hsbx --upstream-proxy=none --allow-host="site.test:$PLAIN_PORT" \
		--allow-host="127.0.0.1:$PLAIN_PORT" -- \
		curl -sS "http://site.test:$PLAIN_PORT/index.html"
	assert_status 0
	assert_eq "$output" "plain from the origin"
	assert_eq "$(cat "$W/up.log")" ""
	# The control: the same run without the opt-out arrives upstream.
	HTTPS_PROXY="http://127.0.0.1:$UP_PORT" HTTP_PROXY="http://127.0.0.1:$UP_PORT" \
		run hsbx --allow-host="site.test:$PLAIN_PORT" \
		--allow-host="127.0.0.1:$PLAIN_PORT" -- \
		curl -sS "http://site.test:$PLAIN_PORT/index.html"
	assert_status 0
	assert_eq "$output" "plain from the origin"
	grep -qx "GET http://site.test:$PLAIN_PORT/index.html HTTP/1.1" "$W/up.log"
}

@test "HTTP_PROXY in the launcher's environment is the upstream by default; --upstream-proxy=none connects directly" {
	each_user pass_env_default_and_opt_out
}

pass_no_proxy() {
	start_upstream up
	for list in "site.test" ".site.test" "*" "other.example, SITE.test:80"; do
		: >"$W/up.log"
		HTTPS_PROXY="http://127.0.0.1:$UP_PORT" NO_PROXY="$list" \
			run hsbx --allow-host="site.test:$PLAIN_PORT" \
			--allow-host="127.0.0.1:$PLAIN_PORT" -- \
			curl -sS "http://site.test:$PLAIN_PORT/index.html"
		assert_status 0
		assert_eq "$output" "plain from the origin"
		assert_eq "$(cat "$W/up.log")" ""
	done
	# A direct connection keeps every check: site.test is loopback, and
	# without the address entry it is refused.
	HTTPS_PROXY="http://127.0.0.1:$UP_PORT" NO_PROXY=site.test \
		run hsbx --allow-host="site.test:$PLAIN_PORT" -- \
		curl -sS "http://site.test:$PLAIN_PORT/index.html"
	assert_contains "$output" "resolves to a loopback address"
	assert_eq "$(cat "$W/up.log")" ""
	# Nor does the upstream take it there: site.test resolves here to
	# loopback, which is judged before the name is passed on.
	HTTPS_PROXY="http://127.0.0.1:$UP_PORT" NO_PROXY=other.test \
		run hsbx --allow-host="site.test:$PLAIN_PORT" -- \
		curl -sS "http://site.test:$PLAIN_PORT/index.html"
	assert_contains "$output" "resolves to a loopback address"
	assert_eq "$(cat "$W/up.log")" ""
	# The control: a name NO_PROXY does not cover goes upstream, where it
	# is passed on unresolved, once the address pattern allows what it
	# resolves to here.
	HTTPS_PROXY="http://127.0.0.1:$UP_PORT" NO_PROXY=other.test \
		run hsbx --allow-host="site.test:$PLAIN_PORT" \
		--allow-host="127.0.0.1:$PLAIN_PORT" -- \
		curl -sS "http://site.test:$PLAIN_PORT/index.html"
	assert_status 0
	assert_eq "$output" "plain from the origin"
	grep -qx "GET http://site.test:$PLAIN_PORT/index.html HTTP/1.1" "$W/up.log"
}

@test "NO_PROXY's names connect directly, with every address check" {
	each_user pass_no_proxy
}

# --- failures of the upstream -----------------------------------------------

pass_dead_upstream() {
	dead_port
	run sbx --upstream-proxy="http://127.0.0.1:$DEAD_PORT" \
		--allow-host=site.test --log-fd=3 -- sh -c \
		'curl -sS -o /dev/null -w "%{http_code}\n" http://site.test/;
		 curl -sS https://site.test/ ; echo "https $?"' 3>"$W/events"
	assert_status 0
	assert_contains "$output" "502"
	assert_contains "$output" "https 56"
	assert_contains "$output" "through the upstream proxy"
	assert_contains "$output" "2 failed"
	refute_contains "$output" "refused site.test"
	assert_eq "$(jq -r 'select(.event == "net-failed") | .upstream' "$W/events" | sort -u)" \
		"127.0.0.1:$DEAD_PORT"
	jq -r 'select(.event == "net-failed") | .reason' "$W/events" |
		grep -q "cannot connect: Connection refused"
	[ "$(jq -r 'select(.event == "net-denied")' "$W/events")" = "" ]
	# The control: a live upstream on the same command serves it.
	start_upstream up
	run sbx --upstream-proxy="http://127.0.0.1:$UP_PORT" \
		--allow-host=site.test -- curl -sS http://site.test/index.html
	assert_status 0
	assert_eq "$output" "plain from the origin"
}

@test "a dead upstream proxy: 502 to the sandbox, a net-failed event and a failure line, not a refusal" {
	each_user pass_dead_upstream
}

pass_407() {
	start_upstream up "$BASIC"
	run sbx --upstream-proxy="http://127.0.0.1:$UP_PORT" \
		--allow-host=site.test --log-fd=3 -- sh -c \
		'curl -sS -o /dev/null -w "%{http_code}\n" http://site.test/;
		 curl -sS https://site.test/ ; echo "https $?"' 3>"$W/events"
	assert_contains "$output" "502"
	assert_contains "$output" "https 56"
	assert_eq "$(jq -r 'select(.event == "net-failed") | .reason' "$W/events" | sort -u)" \
		"the upstream proxy 127.0.0.1:$UP_PORT answered 407 Proxy Authentication Required"
	# Both requests did arrive: the upstream refused them.
	assert_eq "$(grep -c '^CONNECT\|^GET' "$W/up.log")" 2
}

@test "an upstream proxy's 407 is a failure the sandbox is told of (502), for tunnels and plain HTTP" {
	each_user pass_407
}

pass_503_and_silence() {
	UPSTREAM_ANSWER=503 start_upstream up
	run sbx --upstream-proxy="http://127.0.0.1:$UP_PORT" \
		--allow-host=site.test --log-fd=3 -- sh -c \
		'curl -sS https://site.test/ ; echo "https $?"' 3>"$W/events"
	assert_contains "$output" "response 502"
	assert_contains "$output" "through the upstream proxy"
	assert_eq "$(jq -r 'select(.event == "net-failed") | .reason' "$W/events")" \
		"the upstream proxy 127.0.0.1:$UP_PORT answered 503 Service Unavailable"
	grep -qx 'CONNECT site.test:443 HTTP/1.1' "$W/up.log"
	# An upstream that accepts and never answers: 504 after 10 seconds.
	UPSTREAM_ANSWER=silent start_upstream quiet
	run sbx --upstream-proxy="http://127.0.0.1:$UP_PORT" \
		--allow-host=site.test --log-fd=3 -- sh -c \
		'curl -sS https://site.test/ ; echo "https $?"' 3>"$W/events"
	assert_contains "$output" "response 504"
	assert_eq "$(jq -r 'select(.event == "net-failed") | .reason' "$W/events")" \
		"the upstream proxy 127.0.0.1:$UP_PORT did not answer within 10 s"
	grep -qx 'CONNECT site.test:443 HTTP/1.1' "$W/quiet.log"
}

@test "an upstream proxy's 503, and one that never answers (504), are failures the sandbox is told of" {
	each_user pass_503_and_silence
}

# --- without --allow-host ---------------------------------------------------

# With --net no proxy of sbox-exec's is in use: the variables are the
# caller's to pass.  With the network off the launcher's proxy refuses
# every request, and the variables name it (tests/net-off.bats): the
# caller's, and its credentials, never reach the command.
@test "with --net the proxy variables are left alone; with the network off they are the launcher's, the caller's credentials kept out" {
	run --separate-stderr env HTTPS_PROXY="http://alice:$PASSWORD@127.0.0.1:1" \
		"$SBOX_EXEC" --net -- sh -c 'printf "%s\n" "$HTTPS_PROXY"'
	assert_status 0
	assert_eq "$output" "http://alice:$PASSWORD@127.0.0.1:1"
	run --separate-stderr env HTTPS_PROXY="http://alice:$PASSWORD@127.0.0.1:1" \
		"$SBOX_EXEC" -- sh -c 'printf "%s\n" "$HTTPS_PROXY"; env | grep -c -- "$1"' \
		sh "$PASSWORD"
	assert_eq "$output" "http://127.0.0.1:3128"$'\n'"0"
}

# --- one request a connection ---------------------------------------------

# start_raw NAME: a server on the loopback that writes every byte it gets
# to $W/NAME.raw, answers one 200 after the first request head, and
# reads on for a second before it closes; its port in $RAW_PORT.
start_raw() {
	: >"$W/$1.raw"
	chmod 0666 "$W/$1.raw"
	rm -f "$W/$1.rawport"
	bg "$PY" -c '
import socket, sys, threading, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1] + "port", "w").write("%d\n" % s.getsockname()[1])
def serve(c):
    got, answered, end = b"", False, None
    c.settimeout(0.2)
    while end is None or time.time() < end:
        try:
            b = c.recv(65536)
        except socket.timeout:
            continue
        if not b:
            break
        got += b
        with open(sys.argv[1], "ab") as f:
            f.write(b)
        if not answered and b"\r\n\r\n" in got:
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
            answered, end = True, time.time() + 1
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
' "$W/$1.raw"
	wait_for 10 test -s "$W/$1.rawport"
	RAW_PORT=$(cat "$W/$1.rawport")
}

# PIPELINED: a request for the allowed host, a second on the same
# connection for another (argv: PROXY-PORT FIRST-URL).
PIPELINED='import socket, sys, time
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
c.sendall(b"GET " + sys.argv[2].encode() + b" HTTP/1.1\r\nHost: " +
          sys.argv[2].split("/")[2].encode() + b"\r\n\r\n"
          b"GET http://evil.test/steal HTTP/1.1\r\nHost: evil.test\r\n\r\n")
c.settimeout(5)
out = b""
try:
    while True:
        b = c.recv(65536)
        if not b:
            break
        out += b
except socket.timeout:
    pass
sys.stdout.write(out.decode(errors="replace"))'

pass_one_request() {
	start_raw up
	# The control: sent straight to the server, both requests arrive.
	run usr "$PY" -c "$PIPELINED" "$RAW_PORT" "http://site.test/first"
	assert_contains "$(cat "$W/up.raw")" "GET http://evil.test/steal"
	: >"$W/up.raw"
	# Through --upstream-proxy: the first request only.
	run sbx --upstream-proxy="http://127.0.0.1:$RAW_PORT" \
		--allow-host=site.test -- \
		"$PY" -c "$PIPELINED" 3128 "http://site.test/first"
	assert_status 0
	assert_contains "$output" "200 OK"
	assert_contains "$(cat "$W/up.raw")" "GET http://site.test:80/first HTTP/1.1"
	refute_contains "$(cat "$W/up.raw")" "evil.test"
	# Directly, to an address the allow-list covers: the same.
	start_raw direct
	run sbx --upstream-proxy=none --allow-host="127.0.0.0/8:$RAW_PORT" -- \
		"$PY" -c "$PIPELINED" 3128 "http://127.0.0.1:$RAW_PORT/first"
	assert_status 0
	assert_contains "$output" "200 OK"
	assert_contains "$(cat "$W/direct.raw")" "GET /first HTTP/1.1"
	refute_contains "$(cat "$W/direct.raw")" "evil.test"
	# TRACE, which would echo the upstream's credentials, is not passed on.
	: >"$W/up.raw"
	run sbx --upstream-proxy="http://127.0.0.1:$RAW_PORT" \
		--allow-host=site.test -- \
		curl -sS -X TRACE -x http://127.0.0.1:3128 http://site.test/
	assert_contains "$output" "TRACE is not passed on"
	assert_eq "$(cat "$W/up.raw")" ""
}

@test "a plain HTTP request is one a connection: a second one after it (for any host) never reaches the upstream or the server; TRACE is not passed on" {
	each_user pass_one_request
}
