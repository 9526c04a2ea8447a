#!/usr/bin/env bats
# An agent's loop (sbox-exec(1), DENIALS): a command is run in the
# sandbox with the project writable and nothing else; when it fails, the
# agent either learns a policy (--learn=F --policy=F, run again) or
# applies only the options sbox-exec printed (the summary's command line,
# pasted, watched again).  Each everyday scenario must succeed within 3
# runs either way, and the learned file must never grant the home, /,
# --net, a credential store, a place that runs code later or a shared
# cache.  Each scenario first succeeds unsandboxed (the control).
# sbox-exec runs in "the host" of two network namespaces (test_networks),
# the package registries in "the world", reached by the name
# registry.test.  Every pass as root and as an unprivileged user.

# shellcheck disable=SC2016,SC2030,SC2031
load helpers

setup() {
	requires bwrap userns root setpriv ip nsenter
	D=$(scratch_dir)
	HOSTS=$D/hosts
	printf '%s\n' "127.0.0.1 localhost" "44.55.66.10 registry.test" >"$HOSTS"
	chmod 0644 "$HOSTS"
}

# The registries' web server in the world, on 44.55.66.10: $REG_PORT, its
# request log $D/log.
start_registry() {
	test_networks 44.55.66.0/24
	mkdir -p "$D/www"
	chmod 0777 "$D/www"
	bg nsenter --net="$NET_WORLD" -- env WEB_BIND=44.55.66.10 \
		"$PY" "$(payload web-server.py)" "$D/www" "$D/port"
	wait_for 10 test -s "$D/port"
	REG_PORT=$(cat "$D/port")
}

# The project $P and a home $H (with its ~/.cache, as homes have) of the
# pass's user, HOME exported; the test runs in $P.  $B: a directory
# beside the project.
tree() {
	local who=${AS:-root}
	P=$D/proj-$who
	H=$D/home-$who
	B=$D/build-$who
	rm -rf "$P" "$H" "$B"
	usr mkdir -p "$P" "$H/.cache"
	export HOME=$H
	cd "$P" || return 1
}

# hrun CMD...: CMD unsandboxed as the pass's user, where the sandbox runs
# (the host's namespace, $HOSTS as /etc/hosts): the controls.
hrun() {
	local drop=() enter=()
	if [ -n "${AS:-}" ]; then
		drop=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
	fi
	if [ -n "${NET_HOST:-}" ]; then
		enter=(nsenter --net="$NET_HOST" --)
	fi
	"${enter[@]}" unshare -m --propagation private -- sh -c \
		'mount --bind "$1" /etc/hosts && shift && exec "$@"' \
		sh "$HOSTS" "${drop[@]}" "$@"
}

# agent ARGS...: sbox-exec ARGS as the agent runs it, in the host's
# namespace; $status, $output, $stderr.
agent() {
	NETNS=${NET_HOST:-} HSBX_TIMEOUT=120 run --separate-stderr hsbx "$@"
}

# assert_learned_safe FILE: no line of FILE grants the home or above it,
# /, a place outside the test's scratch tree (where the never-learned
# places and credential stores of the machine are), --net, --fs or a
# socket.  --cache, --setenv and --allow-host of a name are what is left.
assert_learned_safe() {
	local opt val
	while read -r opt val; do
		case $opt in
		'' | '#'*) continue ;;
		--rw | --rw-create | --ro | --rw-try | --ro-try)
			case $val in
			"$H" | "$H"/* | "$D") ;;
			"$D"/?*) continue ;;
			esac
			echo "learned a grant it must not: $opt $val"
			return 1
			;;
		--cache | --setenv) ;;
		--allow-host)
			case $val in
			registry.test*) ;;
			*)
				echo "learned a host it must not: $val"
				return 1
				;;
			esac
			;;
		*)
			echo "learned an option it must not: $opt $val"
			return 1
			;;
		esac
	done <"$1"
}

# learn_loop NAME CMD...: the manual's loop, --learn=F --policy=F with
# the project writable, at most 3 runs until one succeeds; the runs in
# $RUNS, the file in $LEARNED.
learn_loop() {
	LEARNED=$D/learned-$1-${AS:-root}
	shift
	rm -f "$LEARNED"
	for RUNS in 1 2 3; do
		agent --learn="$LEARNED" --policy="$LEARNED" --rw . -- "$@"
		if [ "$status" = 0 ]; then
			assert_learned_safe "$LEARNED"
			echo "# ${AS:-root}: $RUNS runs with --learn" >&3
			return 0
		fi
	done
	printf 'no success in 3 runs with --learn; the last stderr:\n%s\nlearned:\n%s\n' \
		"$stderr" "$(cat "$LEARNED")"
	return 1
}

# paste_loop CMD...: watched, with the project writable; after a
# failure, the command line the summary printed, taken as it is (it names
# the command too) and watched again; at most 3 runs.
paste_loop() {
	local args=(--rw . -- "$@") line
	for RUNS in 1 2 3; do
		agent --watch "${args[@]}"
		if [ "$status" = 0 ]; then
			echo "# ${AS:-root}: $RUNS runs with the printed options" >&3
			return 0
		fi
		line=$(printf '%s\n' "$stderr" | sed -n \
			's/^sbox-exec: [0-9]* refused ([0-9]* distinct): .*; to allow what an option can: //p')
		if [ -z "$line" ]; then
			printf 'run %d failed with nothing to paste:\n%s\n' "$RUNS" "$stderr"
			return 1
		fi
		eval "set -- $line"
		shift # sbox-exec
		args=("$@")
	done
	printf 'no success in 3 runs with the printed options; the last stderr:\n%s\n' "$stderr"
	return 1
}

# --- make writing ../build ---------------------------------------------------

pass_make() {
	tree
	printf 'all:\n\tmkdir -p %s\n\techo built >%s/out\n' "$B" "$B" >Makefile
	chmod 0666 Makefile
	run usr make -s
	assert_status 0
	assert_file "$B/out" built
	rm -rf "$B"
	learn_loop make make -s
	assert_file "$B/out" built
	assert_eq "$(grep -- '^--' "$LEARNED")" "--rw-create $B"
	rm -rf "$B"
	paste_loop make -s
	assert_file "$B/out" built
}

@test "agent loop: make writing ../build converges with --learn and with the printed options" {
	requires make
	each_user pass_make
}

# --- git commit --------------------------------------------------------------

pass_git() {
	local commit=(sh -c 'date +%s%N >f && git add f && git commit -qm change')
	tree
	usr git init -q .
	usr git config user.name agent
	usr git config user.email agent@example.org
	run usr "${commit[@]}"
	assert_status 0
	assert_eq "$(usr git rev-list --count HEAD)" 1
	learn_loop git "${commit[@]}"
	assert_eq "$(usr git rev-list --count HEAD)" 2
	assert_eq "$(grep -- '^--' "$LEARNED")" "--rw $P/.git"
	paste_loop "${commit[@]}"
	assert_eq "$(usr git rev-list --count HEAD)" 3
}

@test "agent loop: git commit converges (the learned file grants its .git alone)" {
	requires git
	each_user pass_git
}

# --- a test writing ~/.cache/NAME and /tmp ------------------------------------

pass_cache() {
	local script='d=${XDG_CACHE_HOME:-$HOME/.cache}/sboxagent
		t=/tmp/sboxagent-$(id -u)-$$
		mkdir -p "$d" && echo cached >"$d/f" && echo tmp >"$t" &&
		cat "$d/f" "$t" && rm "$t"'
	tree
	run usr sh -c "$script"
	assert_eq "$output" "cached"$'\n'"tmp"
	rm -rf "$H/.cache/sboxagent"
	learn_loop cache sh -c "$script"
	assert_eq "$output" "cached"$'\n'"tmp"
	paste_loop sh -c "$script"
	assert_eq "$output" "cached"$'\n'"tmp"
	# The home's cache is never written: a private one serves.
	assert_absent "$H/.cache/sboxagent"
}

@test "agent loop: a test writing ~/.cache/NAME and /tmp converges, the home's cache untouched" {
	each_user pass_cache
}

# --- npm install from a registry not allowed ----------------------------------

pass_npm() {
	local cmd
	tree
	"$PY" "$(payload fake-registry.py)" npm "$D/www" \
		"http://registry.test:$REG_PORT" "$P"
	printf 'registry=http://registry.test:%s/\n' "$REG_PORT" >.npmrc
	chmod -R a+rwX "$P" "$D/www"
	cmd=(sh -c 'npm ci --no-audit --no-fund --fetch-retries=0 &&
		node -p "require(\"sboxnpmpkg\")"')
	run hrun env npm_config_cache="$D/npm-control-${AS:-root}" "${cmd[@]}"
	assert_status 0
	assert_contains "$output" "hello from the proxy"
	rm -rf node_modules
	learn_loop npm "${cmd[@]}"
	assert_contains "$output" "hello from the proxy"
	rm -rf node_modules
	paste_loop "${cmd[@]}"
	assert_contains "$output" "hello from the proxy"
	assert_absent "$H/.npm"
}

@test "agent loop: npm install from a registry not allowed converges; its cache private, the home untouched" {
	requires npm node
	start_registry
	each_user pass_npm
}

# --- pip install from a local index ---------------------------------------------

pass_pip() {
	local cmd
	tree
	"$PY" "$(payload fake-registry.py)" pip "$D/www"
	chmod -R a+rX "$D/www"
	cmd=(sh -c '/usr/bin/python3 -m pip install -q --disable-pip-version-check \
		--index-url "http://registry.test:$1/simple/" \
		--trusted-host registry.test --target vendor sboxpippkg &&
		PYTHONPATH=vendor /usr/bin/python3 -c \
			"import sboxpippkg; print(sboxpippkg.GREETING)"' sh "$REG_PORT")
	run hrun env PIP_CACHE_DIR="$D/pip-control-${AS:-root}" "${cmd[@]}"
	assert_status 0
	assert_contains "$output" "hello from the proxy"
	rm -rf vendor
	learn_loop pip "${cmd[@]}"
	assert_contains "$output" "hello from the proxy"
	rm -rf vendor
	paste_loop "${cmd[@]}"
	assert_contains "$output" "hello from the proxy"
	assert_absent "$H/.cache/pip"
}

@test "agent loop: pip install from an index not allowed converges; its cache private, the home untouched" {
	start_registry
	each_user pass_pip
}

# --- go build with its default caches -------------------------------------------

pass_go() {
	local cmd=(sh -c 'go build -o app . && ./app')
	tree
	printf 'module example.test/agent\n\ngo 1.19\n' >go.mod
	printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("built") }\n' >main.go
	chmod -R a+rwX "$P"
	run usr env GOCACHE="$D/go-control-${AS:-root}" GOFLAGS=-buildvcs=false "${cmd[@]}"
	assert_status 0
	assert_eq "$output" built
	rm -f app
	learn_loop go "${cmd[@]}"
	assert_eq "$output" built
	rm -f app
	paste_loop "${cmd[@]}"
	assert_eq "$output" built
	assert_absent "$H/.cache/go-build"
}

@test "agent loop: go build with its default caches converges; the home's caches untouched" {
	requires go
	each_user pass_go
}

# --- cargo build --offline --------------------------------------------------------

pass_cargo() {
	# Debian's cargo and rustc, whatever rustup put first on PATH; not
	# make's jobserver when the suite runs under make -j (its descriptors
	# are not passed into the sandbox, and rustc would take them).
	local cmd=(sh -c 'unset MAKEFLAGS MFLAGS CARGO_MAKEFLAGS
		PATH=/usr/bin:/bin cargo build --offline -q && ./target/debug/agent')
	tree
	usr mkdir src
	printf '[package]\nname = "agent"\nversion = "0.1.0"\nedition = "2018"\n' >Cargo.toml
	printf 'fn main() { println!("built"); }\n' >src/main.rs
	chmod -R a+rwX "$P"
	run usr env CARGO_HOME="$D/cargo-control-${AS:-root}" "${cmd[@]}"
	assert_status 0
	assert_eq "$output" built
	rm -rf target
	learn_loop cargo "${cmd[@]}"
	assert_eq "$output" built
	rm -rf target
	paste_loop "${cmd[@]}"
	assert_eq "$output" built
	assert_absent "$H/.cargo"
}

@test "agent loop: cargo build --offline converges; CARGO_HOME private, the home untouched" {
	[ -x /usr/bin/cargo ] || skip_or_fail "needs Debian's cargo"
	each_user pass_cargo
}
