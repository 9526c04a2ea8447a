#!/usr/bin/env bats
# The shipped language-server profiles (sbox-exec(1), PROFILES) with the
# real servers: each one holds an LSP session (tests/payloads/lsp-session.py:
# initialize, didOpen, a definition in another file of the project, hover,
# completion, shutdown, exit 0) from a fresh home, as root and as nobody;
# in the same test, what the profile keeps out: a secret outside the
# project, writes outside the project and its private cache (--cache), the
# tool caches an unsandboxed tool reads, the network.  Each server starts
# once per pass.  scripts/install-deps installs the servers: clangd, gopls,
# pylsp and cargo from Debian, pyright and typescript-language-server from
# npm into tests/node/.

load helpers

# The npm-installed servers, where nobody can read them too.
NODE_MODULES=${SBOX_NODE_MODULES:-$TESTS_DIR/node/node_modules}

setup() {
	requires bwrap setpriv python3 jq
	W=$(scratch_dir)
	mkdir -m 0755 "$W/proj"
}

# node_modules_for_nobody: $NODE_MODULES, or a copy nobody can read (a
# checkout may live below a 0700 home directory).
node_modules_for_nobody() {
	[ -x "$NODE_MODULES/.bin/pyright-langserver" ] &&
		[ -x "$NODE_MODULES/.bin/typescript-language-server" ] ||
		skip_or_fail "no npm servers in $NODE_MODULES: run scripts/install-deps"
	if as_user test -r "$NODE_MODULES/pyright/package.json"; then
		NODE=$NODE_MODULES
	else
		NODE=$(scratch_dir)/node_modules
		cp -a "$NODE_MODULES" "$NODE"
		chmod -R a+rX "$NODE"
	fi
}

# project FILE TEXT...: a file of the project $W/proj, readable by all.
project() {
	local f=$W/proj/$1
	shift
	mkdir -p "$(dirname "$f")"
	printf '%s\n' "$@" >"$f"
	chmod -R a+rX "$W/proj"
}

# fresh_home: an empty home directory of the pass's user, in $HOMEDIR,
# with a secret in it and one beside the project.
fresh_home() {
	HOMEDIR=$W/home-${AS:-root}
	usr mkdir -m 0700 "$HOMEDIR"
	usr sh -c 'echo secret >"$1/secret"; echo secret >"$2/secret-${3:-root}"' \
		sh "$HOMEDIR" "$W" "$AS"
	chmod 0777 "$W"
}

# in_profile PROFILE ARGS...: sbox-exec --profile=PROFILE on the project,
# as the pass's user, from the fresh home (no XDG variables).
in_profile() {
	local p=$1
	shift
	sbx_env --profile="$p" --project="$W/proj" "$@"
}

sbx_env() {
	usr env -u XDG_CACHE_HOME -u XDG_CONFIG_HOME -u XDG_DATA_HOME \
		HOME="$HOMEDIR" "$SBOX" "$@"
}

# confined PROFILE ARGS...: what the profile keeps out, each shown possible
# without the sandbox first (sbox-exec(1), PROFILES), tried in one sandbox.
# ARGS go before the command (--ro for a server's prefix).
confined() {
	local p=$1 secret=$W/secret-${AS:-root} client
	shift
	client=$(payload connect.py)
	start_listener tcp "$W"
	# The controls: the pass's user reads both secrets, writes beside
	# them and reaches the listener.
	usr cat "$HOMEDIR/secret" "$secret" >/dev/null
	usr sh -c 'echo x >"$1/w" && echo x >"$2/w-${3:-root}"' sh \
		"$HOMEDIR" "$W" "$AS"
	usr rm -f "$HOMEDIR/w" "$W/w-${AS:-root}"
	run usr timeout 10 "$PY" "$client" tcp "$LISTEN_ADDR"
	assert_contains "$output" pong
	# Inside: no secret read, no write but to the private cache (not the
	# home, not beside the project, not the project, read-only for a
	# server), no connection.
	run --separate-stderr in_profile "$p" "$@" -- /bin/sh -c '
		py=$1 client=$2 port=$3
		shift 3
		cat "$1" 2>/dev/null && echo "read $1"
		cat "$2" 2>/dev/null && echo "read $2"
		for f in "$1.w" "$3" "$4"; do
			{ echo x >"$f"; } 2>/dev/null && echo "wrote $f"
		done
		"$py" "$client" tcp "$port" 2>/dev/null && echo connected
		echo x >"$XDG_CACHE_HOME/probe" && echo cache' sh \
		"$PY" "$client" "$LISTEN_ADDR" "$HOMEDIR/secret" "$secret" \
		"$W/w-${AS:-root}" "$W/proj/w"
	assert_eq "$output" cache
	assert_absent "$HOMEDIR/secret.w"
	assert_absent "$W/w-${AS:-root}"
	assert_absent "$W/proj/w"
	assert_eq "$(connections)" 1
	assert_file "$(echo "$HOMEDIR"/.cache/sbox-exec/proj-*/"$p"/probe)" x
}

# session PROFILE FILE LANG LINE COL EXPECT [ARGS... --] COMMAND...: one
# LSP session through sbox-exec; ARGS before -- go to sbox-exec.
session() {
	local p=$1 file=$2 lang=$3 line=$4 col=$5 expect=$6 driver
	shift 6
	driver=$(payload lsp-session.py)
	run --separate-stderr usr env -u XDG_CACHE_HOME -u XDG_CONFIG_HOME \
		-u XDG_DATA_HOME HOME="$HOMEDIR" "$PY" "$driver" \
		--log "$W/server-${AS:-root}.log" "$W/proj" "$file" "$lang" \
		"$line" "$col" "$expect" -- \
		"$SBOX" --profile="$p" --project="$W/proj" "$@"
	if [ "$status" -ne 0 ]; then
		echo "$stderr" >&2
		tail -20 "$W/server-${AS:-root}.log" >&2
	fi
	assert_status 0
	assert_eq "$(jq -r .definition <<<"$output")" "$expect"
}

# untouched: the fresh home holds only what the test put there and
# sbox-exec's own caches; no ~/.cache/go-build, ~/.cache/jedi...
untouched() {
	assert_eq "$(cd "$HOMEDIR" && ls -A | tr '\n' ' ')" ".cache secret "
	assert_eq "$(ls -A "$HOMEDIR/.cache")" sbox-exec
	assert_eq "$(stat -c %a "$HOMEDIR/.cache/sbox-exec")" 700
}

@test "clangd profile: a session from a fresh home, confined, as root and as nobody" {
	requires clangd
	project lib.h 'int helper(int x);'
	project main.c '#include "lib.h"' 'int main(void) { return helper(1); }'
	each_user clangd_body
}

clangd_body() {
	fresh_home
	confined clangd
	session clangd main.c c 1 24 lib.h -- clangd
	untouched
}

@test "gopls profile: a session from a fresh home, confined, as root and as nobody" {
	requires gopls go
	project go.mod 'module example.com/p' '' 'go 1.19'
	project lib.go 'package main' '' 'func helper(x int) int { return x + 1 }'
	project main.go 'package main' '' 'func main() { println(helper(1)) }'
	each_user gopls_body
}

gopls_body() {
	fresh_home
	confined gopls
	session gopls main.go go 2 22 lib.go -- gopls
	untouched
	# The go command gopls ran built into the private cache.
	[ -n "$(ls "$HOMEDIR"/.cache/sbox-exec/proj-*/gopls/go-build)" ]
}

@test "python-lsp profile: a pylsp session from a fresh home, confined, as root and as nobody" {
	requires pylsp
	project lib.py 'def helper(x):' '    """Add one."""' '    return x + 1'
	project main.py 'from lib import helper' '' 'print(helper(1))'
	each_user pylsp_body
}

pylsp_body() {
	fresh_home
	confined python-lsp
	session python-lsp main.py python 2 7 lib.py -- pylsp
	untouched
}

@test "python-lsp by its command's name: --profile=pylsp -- pylsp holds a session, as root and as nobody" {
	requires pylsp
	project lib.py 'def helper(x):' '    """Add one."""' '    return x + 1'
	project main.py 'from lib import helper' '' 'print(helper(1))'
	each_user pylsp_alias_body
}

pylsp_alias_body() {
	fresh_home
	session pylsp main.py python 2 7 lib.py -- pylsp
	# python-lsp's private cache, and nothing else in the home.
	untouched
	[ -d "$(echo "$HOMEDIR"/.cache/sbox-exec/proj-*/python-lsp)" ]
}

@test "pyright profile: a session from a fresh home, confined, as root and as nobody" {
	requires node
	node_modules_for_nobody
	project lib.py 'def helper(x):' '    """Add one."""' '    return x + 1'
	project main.py 'from lib import helper' '' 'print(helper(1))'
	each_user pyright_body
}

pyright_body() {
	fresh_home
	confined pyright
	# The server is found through ${COMMAND_NODE_MODULES}.
	session pyright main.py python 2 7 lib.py -- \
		"$NODE/.bin/pyright-langserver" --stdio
	untouched
}

@test "typescript profile: a session from a fresh home, confined, as root and as nobody" {
	requires node
	node_modules_for_nobody
	project lib.ts 'export function helper(x: number): number {' \
		'  return x + 1;' '}'
	project main.ts 'import * as lib from "./lib";' '' \
		'console.log(lib.helper(1));'
	project tsconfig.json '{"compilerOptions": {"strict": true}, "files": ["main.ts", "lib.ts"]}'
	each_user typescript_body
}

typescript_body() {
	fresh_home
	confined typescript
	# Started through node: the server's directory granted by hand.
	session typescript main.ts typescript 2 16 lib.ts --ro="$NODE" -- \
		node "$NODE/typescript-language-server/lib/cli.mjs" --stdio
	untouched
}

# rust-analyzer cannot be installed here (no crates.io): its profile is
# shown with the cargo check it runs, Debian's cargo, on a crate with a
# build script and a proc macro from a path dependency.
@test "rust-analyzer profile: cargo check with build.rs and a proc macro, confined; --print names the private cache" {
	[ -x /usr/bin/cargo ] || skip_or_fail "/usr/bin/cargo is not installed"
	project Cargo.toml '[package]' 'name = "demo"' 'version = "0.1.0"' \
		'edition = "2021"' '' '[dependencies]' 'mac = { path = "mac" }'
	project build.rs 'fn main() {' \
		'    let out = std::env::var("OUT_DIR").unwrap();' \
		'    std::fs::write(format!("{out}/answer.rs"), "pub const ANSWER: u32 = 42;").unwrap();' '}'
	project src/main.rs 'include!(concat!(env!("OUT_DIR"), "/answer.rs"));' \
		'mac::made!();' 'fn main() { println!("{} {}", ANSWER, made()); }'
	project mac/Cargo.toml '[package]' 'name = "mac"' 'version = "0.1.0"' \
		'edition = "2021"' '' '[lib]' 'proc-macro = true'
	project mac/src/lib.rs 'use proc_macro::TokenStream;' '' \
		'#[proc_macro]' 'pub fn made(_: TokenStream) -> TokenStream {' \
		'    "fn made() -> u32 { 7 }".parse().unwrap()' '}'
	# As cargo writes it: an up-to-date lock file is not written again.
	project Cargo.lock '# This file is automatically @generated by Cargo.' \
		'# It is not intended for manual editing.' 'version = 3' '' '[[package]]' 'name = "demo"' \
		'version = "0.1.0"' 'dependencies = [' ' "mac",' ']' '' \
		'[[package]]' 'name = "mac"' 'version = "0.1.0"'
	each_user rust_body
}

rust_body() {
	local key out
	fresh_home
	key=$(basename "$(echo "$HOMEDIR"/../proj)")
	# --print names the private cache and creates nothing.
	run --separate-stderr in_profile rust-analyzer --print -- rust-analyzer
	assert_status 0
	out=$(printf '%s\n' "$output" | tr ' ' '\n' | grep -A1 -x CARGO_TARGET_DIR)
	assert_contains "$out" "$HOMEDIR/.cache/sbox-exec/$key-"
	assert_contains "$out" "/rust-analyzer/target"
	assert_absent "$HOMEDIR/.cache"
	confined rust-analyzer
	run --separate-stderr in_profile rust-analyzer --setenv PATH /usr/bin:/bin \
		-- /usr/bin/cargo check
	if [ "$status" -ne 0 ]; then echo "$stderr" >&2; fi
	assert_status 0
	# The build script ran, into the private target directory; the crate
	# is as it was.
	assert_file "$(echo "$HOMEDIR"/.cache/sbox-exec/proj-*/rust-analyzer/target/debug/build/demo-*/out/answer.rs)" \
		'pub const ANSWER: u32 = 42;'
	assert_absent "$W/proj/target"
	untouched
}

# An editor's own pid in initialize (sbox-exec(1), "Language servers"):
# servers on vscode-languageserver exit when kill(processId, 0) fails.

# alive_client NAME [--shell] PROCESS_ID ARGS... -- COMMAND...: an
# editor's client (tests/payloads/lsp-alive.py) in the background, as the
# pass's user from the fresh home; its lines in $W/NAME.out.
alive_client() {
	local name=$W/$1-${AS:-root}
	shift
	(usr_exec env -u XDG_CACHE_HOME -u XDG_CONFIG_HOME -u XDG_DATA_HOME \
		HOME="$HOMEDIR" "$PY" "$ALIVE" --log "$name.log" "$@" \
		>"$name.out" 2>&1 </dev/null 3>&-) &
	forget_bg $!
	eval "PID_$(basename "$name" | tr '-' '_')=$!"
}

# said NAME KEY: what the client NAME said last of KEY, once it has said
# whether its server is alive.
said() {
	local f=$W/$1-${AS:-root}.out
	wait_for 120 grep -q '"alive"' "$f" || cat "$f" "${f%.out}.log" >&2
	jq -r "select(has(\"$2\")) | .[\"$2\"]" "$f" | tail -1
}

# proc_id PID: "PID:STARTTIME" while PID runs, nothing once it is gone.
proc_id() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	s=${s##*) }
	echo "$1:$(echo "$s" | cut -d' ' -f20)"
}

# tree_ids PID: proc_id of PID and of every process below it.
tree_ids() {
	local kid
	proc_id "$1"
	for kid in $(ps -o pid= --ppid "$1"); do
		tree_ids "$kid"
	done
}

# all_gone IDS...: none of these processes runs any more.
all_gone() {
	local id
	for id in "$@"; do
		[ "$(proc_id "${id%%:*}")" != "$id" ] || return 1
	done
}

@test "--lsp in the pyright and typescript profiles: an editor's own pid in initialize, the server up after 30 s and gone with the editor, direct or through a shell, as root and as nobody" {
	requires node
	node_modules_for_nobody
	ALIVE=$(payload lsp-alive.py)
	project main.py 'print(1)'
	project main.ts 'console.log(1);'
	each_user alive_body
}

alive_body() {
	local ts_node=("$NODE/typescript-language-server/lib/cli.mjs" --stdio)
	local n ids pid
	fresh_home
	# The controls, unsandboxed: with the client's pid the servers stay
	# up; with a pid that names no process (what the editor's pid is
	# inside the sandbox's pid namespace without --lsp) they exit.
	alive_client py-host self 30 "$W/proj" -- \
		"$NODE/.bin/pyright-langserver" --stdio
	alive_client ts-host self 30 "$W/proj" -- node "${ts_node[@]}"
	alive_client py-gone gone 30 "$W/proj" -- \
		"$NODE/.bin/pyright-langserver" --stdio
	alive_client ts-gone gone 30 "$W/proj" -- node "${ts_node[@]}"
	# Through the profiles, started by the client or by a shell between.
	alive_client py-box self 30 "$W/proj" -- "$SBOX" --profile=pyright \
		--project="$W/proj" -- "$NODE/.bin/pyright-langserver" --stdio
	alive_client ts-box --shell self 30 "$W/proj" -- "$SBOX" \
		--profile=typescript --project="$W/proj" --ro="$NODE" -- \
		node "${ts_node[@]}"
	alive_client py-sh --shell self 30 "$W/proj" -- "$SBOX" \
		--profile=pyright --project="$W/proj" -- \
		"$NODE/.bin/pyright-langserver" --stdio
	for n in py-host ts-host py-box ts-box py-sh; do
		assert_eq "$n: $(said "$n" alive)" "$n: true"
	done
	for n in py-gone ts-gone; do
		assert_eq "$n: $(said "$n" alive) $(said "$n" exit)" \
			"$n: false 1"
	done
	# The editor ends (killed: nothing said to the server): nothing of
	# the sandbox is left, whether the launcher was the client's child
	# or the shell's, which outlives the client.
	for n in py-box ts-box py-sh; do
		eval "pid=\$PID_${n//-/_}_${AS:-root}"
		mapfile -t ids < <(tree_ids "$pid")
		# The launcher (or shell), bwrap, its init and the server.
		[ "${#ids[@]}" -ge 4 ] || {
			echo "$n: ${ids[*]}" >&2
			return 1
		}
		kill -KILL "$pid"
		wait_for 10 all_gone "${ids[@]:1}"
	done
}

@test "--lsp: the process named by processId ends while the editor's input stays open: the server ends, as unsandboxed, as root and as nobody" {
	requires node
	node_modules_for_nobody
	ALIVE=$(payload lsp-alive.py)
	project main.py 'print(1)'
	each_user named_body
}

named_body() {
	local n holder
	fresh_home
	# Not the client: a process of the pass's user that the test ends.
	bg usr_exec sleep 1000
	holder=$BG_PID
	alive_client named-host "$holder" 3 "$W/proj" -- \
		"$NODE/.bin/pyright-langserver" --stdio
	alive_client named-box "$holder" 3 "$W/proj" -- "$SBOX" \
		--profile=pyright --project="$W/proj" -- \
		"$NODE/.bin/pyright-langserver" --stdio
	for n in named-host named-box; do
		assert_eq "$n: $(said "$n" alive)" "$n: true"
	done
	kill -KILL "$holder"
	# The server's own check ends it unsandboxed (exit 1); sbox-exec's
	# ends the sandbox (SIGTERM: 143).
	wait_for 30 grep -q server-ended "$W/named-host-${AS:-root}.out"
	wait_for 30 grep -q server-ended "$W/named-box-${AS:-root}.out"
	assert_eq "$(said named-host server-ended)" 1
	assert_eq "$(said named-box server-ended)" 143
}
