#!/usr/bin/env bats
# A real editor: Debian's Neovim, headless, with its own LSP client and
# its defaults (it sends its own pid as processId in initialize), drives
# clangd, gopls, pylsp, pyright and typescript-language-server through
# their profiles for 60 s each, all at once (tests/payloads/nvim-lsp.lua):
# diagnostics arrive, go-to-definition lands in the other file, and every
# server is still up at the end; then nvim is killed and nothing of the
# sandboxes is left (sbox-exec(1), "Language servers").  The same editor
# with the servers unsandboxed is the control.  As root and as nobody.

load helpers

NODE_MODULES=${SBOX_NODE_MODULES:-$TESTS_DIR/node/node_modules}

setup() {
	requires bwrap userns setpriv jq
	local t
	for t in nvim clangd gopls go pylsp node; do
		command -v "$t" >/dev/null || skip_or_fail "needs $t"
	done
	W=$(scratch_dir)
	chmod 0755 "$W"
	node_modules
	projects
}

# NODE: the npm servers where nobody can read them too.
node_modules() {
	[ -x "$NODE_MODULES/.bin/pyright-langserver" ] &&
		[ -x "$NODE_MODULES/.bin/typescript-language-server" ] ||
		skip_or_fail "no npm servers in $NODE_MODULES: run scripts/install-deps"
	if as_user test -r "$NODE_MODULES/pyright/package.json"; then
		NODE=$NODE_MODULES
	else
		NODE=$W/node_modules
		cp -a "$NODE_MODULES" "$NODE"
		chmod -R a+rX "$NODE"
	fi
}

# file PATH LINE...: a file below $W, readable by all.
file() {
	local f=$W/$1
	shift
	mkdir -p "$(dirname "$f")"
	printf '%s\n' "$@" >"$f"
	chmod -R a+rX "$W"
}

# One project a server, each with an error to diagnose and a use of a
# function defined in another file.
projects() {
	file c/lib.h 'int helper(int x);'
	file c/main.c '#include "lib.h"' \
		'int main(void) { return helper(1) + undefined_name; }'
	file go/go.mod 'module example.com/p' '' 'go 1.19'
	file go/lib.go 'package main' '' 'func helper(x int) int { return x + 1 }'
	file go/main.go 'package main' '' \
		'func main() { println(helper(1)); var unused int }'
	file pylsp/lib.py 'def helper(x):' '    return x + 1'
	file pylsp/main.py 'import os' 'from lib import helper' '' 'x=helper(1)'
	file pyright/lib.py 'def helper(x: int) -> int:' '    return x + 1'
	file pyright/main.py 'from lib import helper' '' \
		'print(helper(1), undefined_name)'
	file ts/lib.ts 'export function helper(x: number): number { return x + 1; }'
	file ts/main.ts 'import * as lib from "./lib";' \
		'const n: number = "s";' 'console.log(lib.helper(n));'
	file ts/tsconfig.json \
		'{"compilerOptions": {"strict": true}, "files": ["main.ts", "lib.ts"]}'
}

# spec SANDBOXED: the servers' list for nvim-lsp.lua (in $SPEC), each
# through its profile when SANDBOXED is 1, else the server alone.
spec() {
	local box=$1 who=${AS:-root}
	SPEC=$W/spec-$who-$box.json
	jq -n --arg sbox "$SBOX" --arg w "$W" --arg node "$NODE" \
		--argjson box "$box" '
		def run(p; root; extra; cmd):
			if $box == 1 then
				[$sbox, "--profile=" + p, "--project=" + root] + extra +
					["--"] + cmd
			else cmd end;
		[
		 {name: "clangd", root: ($w + "/c"), file: "main.c", line: 1,
		  col: 24, expect: ($w + "/c/lib.h"),
		  cmd: run("clangd"; $w + "/c"; []; ["clangd"])},
		 {name: "gopls", root: ($w + "/go"), file: "main.go", line: 2,
		  col: 22, expect: ($w + "/go/lib.go"),
		  cmd: run("gopls"; $w + "/go"; []; ["gopls"])},
		 {name: "pylsp", root: ($w + "/pylsp"), file: "main.py", line: 3,
		  col: 2, expect: ($w + "/pylsp/lib.py"),
		  cmd: run("pylsp"; $w + "/pylsp"; []; ["pylsp"])},
		 {name: "pyright", root: ($w + "/pyright"), file: "main.py",
		  line: 2, col: 6, expect: ($w + "/pyright/lib.py"),
		  cmd: run("pyright-langserver"; $w + "/pyright"; [];
			[$node + "/.bin/pyright-langserver", "--stdio"])},
		 {name: "typescript", root: ($w + "/ts"), file: "main.ts",
		  line: 2, col: 16, expect: ($w + "/ts/lib.ts"),
		  cmd: run("typescript-language-server"; $w + "/ts";
			["--ro=" + $node];
			["node", $node + "/typescript-language-server/lib/cli.mjs",
			 "--stdio"])}
		]' >"$SPEC"
	chmod 0644 "$SPEC"
}

# editor SANDBOXED: nvim with every server of spec SANDBOXED, in the
# background, as the pass's user from a fresh home; its pid in $NVIM_PID,
# what it found in $OUT once $OUT.done exists.
editor() {
	local box=$1 who=${AS:-root} dir home
	spec "$box"
	# The user's own: its home, and where nvim writes what it found.
	dir=$W/run-$who-$box
	home=$dir/home
	OUT=$dir/out.json
	mkdir -m 0700 "$dir" "$home"
	[ -z "${AS:-}" ] || chown -R 65534:65534 "$dir"
	bg usr_exec env -u XDG_CACHE_HOME -u XDG_CONFIG_HOME -u XDG_DATA_HOME \
		-u XDG_STATE_HOME HOME="$home" NVLSP_SPEC="$SPEC" \
		NVLSP_OUT="$OUT" NVLSP_SECONDS="${NVLSP_SECONDS:-60}" \
		nvim --headless --clean -i NONE -n \
		-c "luafile $(payload nvim-lsp.lua)"
	NVIM_PID=$BG_PID
}

# descendants PID: every process below PID, one pid a line.
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}

# check OUT SPEC: every server of SPEC published diagnostics, found the
# definition in its other file, and was still up after the 60 s.
check() {
	local name expect
	while read -r name expect; do
		assert_eq "$(jq -r --arg n "$name" '.[$n].alive' "$1")" true
		assert_eq "$(jq -r --arg n "$name" '.[$n].definition' "$1")" "$expect"
		[ "$(jq -r --arg n "$name" '.[$n].diagnostics' "$1")" -gt 0 ] || {
			echo "$name: no diagnostics: $(cat "$1")"
			return 1
		}
	done < <(jq -r '.[] | "\(.name) \(.expect)"' "$2")
}

# start PASS SANDBOXED: editor SANDBOXED as root (PASS root) or nobody,
# its pid, output and list kept under PASS-SANDBOXED.
declare -gA NVIM OUTS SPECS
start() {
	if [ "$1" = root ]; then
		SBOX=$SBOX_EXEC AS="" editor "$2"
	else
		SBOX=$(unpriv_sbox) AS=as_user editor "$2"
	fi
	NVIM[$1-$2]=$NVIM_PID OUTS[$1-$2]=$OUT SPECS[$1-$2]=$SPEC
}

@test "Neovim's own LSP client, its pid in initialize: clangd, gopls, pylsp, pyright and typescript-language-server through their profiles for 60 s, diagnostics and definitions, up to the end, gone with the editor; as root and as nobody" {
	local passes=() p k left pid
	[ "$(id -u)" != 0 ] || passes+=(root)
	passes+=(nobody)
	# Every editor at once: the root and nobody passes, each sandboxed
	# and unsandboxed (the control), for the same 60 s.
	for p in "${passes[@]}"; do
		start "$p" 1
		start "$p" 0
	done
	for k in "${!OUTS[@]}"; do
		wait_for $((${NVLSP_SECONDS:-60} + 90)) test -e "${OUTS[$k]}.done"
	done
	for p in "${passes[@]}"; do
		# The control: unsandboxed, the editor and its servers work.
		check "${OUTS[$p-0]}" "${SPECS[$p-0]}"
		# Through the profiles, the same.
		check "${OUTS[$p-1]}" "${SPECS[$p-1]}"
		# The editor killed: nothing of its sandboxes is left.
		left=$(descendants "${NVIM[$p-1]}")
		[ -n "$left" ]
		kill -KILL "${NVIM[$p-1]}" "${NVIM[$p-0]}"
		for pid in $left; do
			wait_for 20 sh -c "! kill -0 $pid 2>/dev/null ||
				grep -q '^State:.*Z' /proc/$pid/status"
		done
	done
}
