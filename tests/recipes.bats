#!/usr/bin/env bats
# sbox-exec(1), RECIPES: each recipe run as the manual writes it, as root
# and as an unprivileged user.  The editor's (--profile=clangd) is
# tests/examples.bats's, with the example clients.

load helpers

setup() {
	requires bwrap jq
	D=$(scratch_dir)
	mkdir -m 0777 "$D/outside"
}

# project NAME: an empty project directory, open to the pass's user, and
# a home of its own for that user; cd into the project.
project() {
	P=$D/$1-${AS:-root}
	H=$D/home-$1-${AS:-root}
	mkdir -m 0777 "$P"
	usr mkdir -m 0700 "$H"
	cd "$P"
}

# in_home CMD...: CMD as the pass's user, from the project, with HOME the
# pass's own and no XDG directory of the caller's.
in_home() {
	usr env -u XDG_CONFIG_HOME -u XDG_CACHE_HOME HOME="$H" "$@"
}

@test "RECIPES, a shell: --rw . -- make builds in the project and nowhere else" {
	requires make
	body() {
		project shell
		printf 'all:\n\techo built >out.txt\n\t-touch %s/escaped-%s\n' \
			"$D/outside" "${AS:-root}" >Makefile
		# The control: unsandboxed, make writes outside too.
		run in_home make
		assert_status 0
		assert_file "$D/outside/escaped-${AS:-root}" ""
		rm -f "$D/outside/escaped-${AS:-root}" out.txt
		run --separate-stderr in_home "$SBOX" --rw . -- make
		assert_status 0
		assert_file "$P/out.txt" built
		assert_absent "$D/outside/escaped-${AS:-root}"
		# With --watch, the refusal is named with the option for it.
		run --separate-stderr in_home "$SBOX" --rw . --watch -- make
		assert_status 0
		assert_contains "$stderr" "sbox-exec: refused: write to $D/outside/escaped-${AS:-root}"
		assert_absent "$D/outside/escaped-${AS:-root}"
	}
	each_user body
}

@test "RECIPES, CI: --check --json says success; --status-fd=3 with a timeout runs the step" {
	requires make
	body() {
		project ci
		printf 'check:\n\techo checked >checked.txt\n' >Makefile
		run --separate-stderr in_home sh -c '"$1" --check --json | jq -r .status' \
			sh "$SBOX"
		assert_status 0
		assert_eq "$output" success
		run --separate-stderr in_home sh -c \
			'"$1" --status-fd=3 --rw . --timeout=30m -- make check 3>status.json' \
			sh "$SBOX"
		assert_status 0
		assert_file "$P/checked.txt" checked
		assert_eq "$(jq -r .status "$P/status.json")" success
		# A refusal: exit 125, the status says why, the step did not run.
		rm -f checked.txt
		run --separate-stderr in_home sh -c \
			'"$1" --status-fd=3 --rw ./missing --timeout=30m -- make check 3>status.json' \
			sh "$SBOX"
		assert_status 125
		assert_eq "$(jq -r .status "$P/status.json")" invalid-policy
		assert_absent "$P/checked.txt"
	}
	each_user body
}

@test "RECIPES, an agent: --profile=agent --profile=npm, --watch, --learn then --policy" {
	requires npm node
	body() {
		project agent
		cat >package.json <<-EOF
			{"name": "recipe", "version": "1.0.0", "scripts": {"test":
			"node -e \"const fs = require('fs'); fs.writeFileSync('t.txt', 'ok'); fs.writeFileSync('$D/outside/a-${AS:-root}', 'x')\""}}
		EOF
		chmod 0644 package.json
		# The control: unsandboxed, the test writes outside.
		run in_home npm test
		assert_status 0
		assert_file "$D/outside/a-${AS:-root}" x
		rm -f "$D/outside/a-${AS:-root}" t.txt
		run --separate-stderr in_home "$SBOX" --profile=agent --profile=npm \
			--allow-host=github.com --watch -- npm test
		assert_failed "the write outside the project"
		assert_file "$P/t.txt" ok
		assert_absent "$D/outside/a-${AS:-root}"
		assert_contains "$stderr" "sbox-exec: refused: write to $D/outside/a-${AS:-root}"
		# npm's own directory is not refused: the profile's cache is used.
		refute_contains "$stderr" "$H/.npm"
		run --separate-stderr in_home "$SBOX" --profile=agent --profile=npm \
			--learn=extra.policy -- npm test
		assert_failed "the write outside the project"
		assert_absent "$D/outside/a-${AS:-root}"
		grep -qx -- "--rw $D/outside" extra.policy || {
			echo "extra.policy: $(cat extra.policy)" >&2
			return 1
		}
		run --separate-stderr in_home "$SBOX" --profile=agent --profile=npm \
			--policy=extra.policy -- npm test
		assert_status 0
		assert_file "$D/outside/a-${AS:-root}" x
		rm -f "$D/outside/a-${AS:-root}"
	}
	each_user body
}
