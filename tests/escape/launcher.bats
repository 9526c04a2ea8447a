#!/usr/bin/env bats
# Escape catalogue: fooling the launcher.  Man page FINDING BWRAP: a bwrap
# found on PATH (or the bundled copy) is refused with bwrap-untrusted when
# its file or a directory above it can be written by someone other than
# root (the caller too, unless the caller is root); one named with --bwrap
# is the caller's choice.  Man page STATUS: success is reported only for
# a process that the launcher has seen, from outside, in new user, mount,
# pid (and without --net network) namespaces, under the seccomp filter.
# See tests/README.

# shellcheck disable=SC2016,SC2030,SC2031
load ../helpers

# tests/payloads/fake-bwrap.py poses as bwrap: it runs the command on the
# host (mode direct), reports in itself (report), or runs stage two in
# namespaces of its own without the filter (stage2).  The control for the
# fakes, tests/payloads/naive-launcher.py, is a launcher that believes
# whatever reports in.

setup() {
	requires bwrap userns
	requires python3 jq
	NAIVE=$(payload naive-launcher.py)
}

# fake_bwrap DIR MODE: the fake as DIR/bwrap (DIR is created).
fake_bwrap() {
	mkdir -p "$1"
	cp "$TESTS_DIR/payloads/fake-bwrap.py" "$1/bwrap"
	echo "$2" >"$1/mode"
	chmod 0755 "$1" "$1/bwrap"
	chmod 0644 "$1/mode"
}

# The command whose trace on the host shows that it ran.
MARK=(sh -c 'echo ran >"$1/marker"' sh)

# assert_untrusted DIR [TEXT]: exit 125, status bwrap-untrusted with TEXT
# in its detail, a hint, no success, and the command left no trace.
assert_untrusted() {
	assert_status 125
	assert_eq "$(jq -r .status "$1/status")" bwrap-untrusted
	[ -z "${2:-}" ] || assert_contains "$(jq -r .detail "$1/status")" "$2"
	[ -n "$(jq -r '.hint // empty' "$1/status")" ]
	assert_absent "$1/marker"
}

@test "a bwrap planted in a PATH directory the user can write: refused, the command does not run" {
	body() {
		local d plant
		d=$(scratch_dir)
		plant=$d/home/.local/bin
		usr mkdir -p "$plant"
		usr cp "$(readlink -f "$(command -v bwrap)")" "$plant/bwrap"
		fake_bwrap "$d/fake" direct
		usr cp "$d/fake/bwrap" "$d/fake/mode" "$plant/"
		# Control: what was planted runs the command on the host.
		run usr env PATH="$plant:/usr/bin:/bin" bwrap -- "${MARK[@]}" "$d"
		assert_file "$d/marker" ran
		rm -f "$d/marker"

		run --separate-stderr usr env PATH="$plant:/usr/bin:/bin" "$SBOX" \
			--status-fd=3 --rw "$d" -- "${MARK[@]}" "$d" 3>"$d/status"
		assert_untrusted "$d" "$plant"
		assert_contains "$stderr" "$plant"
	}
	each_user body
}

@test "a real bwrap copy in a directory the unprivileged user owns: refused on PATH, accepted with --bwrap" {
	requires setpriv
	local d s own
	d=$(scratch_dir)
	s=$(unpriv_sbox)
	own=$d/own
	as_user mkdir -m 0755 "$own"
	as_user cp "$(readlink -f "$(command -v bwrap)")" "$own/bwrap"
	run --separate-stderr as_user env PATH="$own:/usr/bin:/bin" "$s" \
		--status-fd=3 --rw "$d" -- "${MARK[@]}" "$d" 3>"$d/status"
	assert_untrusted "$d" "$own"
	# Named by the caller, the same file is used.
	run --separate-stderr as_user "$s" --status-fd=3 --bwrap="$own/bwrap" \
		--rw "$d" -- "${MARK[@]}" "$d" 3>"$d/status"
	assert_status 0
	assert_eq "$(jq -r .status "$d/status")" success
	assert_file "$d/marker" ran
}

@test "as root: a bwrap copy in a root-owned 0755 directory on PATH is used; in a 0777 one refused" {
	requires root
	local d t
	d=$(scratch_dir)
	t=$(mktemp -d /var/tmp/sbox-trusted.XXXXXX)
	on_teardown "rm -rf '$t'"
	chmod 0755 "$t"
	cp "$(readlink -f "$(command -v bwrap)")" "$t/bwrap"
	run --separate-stderr env PATH="$t:/usr/bin:/bin" "$SBOX_EXEC" \
		--status-fd=3 --rw "$d" -- "${MARK[@]}" "$d" 3>"$d/status"
	assert_status 0
	assert_eq "$(jq -r .bwrap "$d/status")" "$t/bwrap"
	assert_file "$d/marker" ran
	rm -f "$d/marker"
	chmod 0777 "$t"
	run --separate-stderr env PATH="$t:/usr/bin:/bin" "$SBOX_EXEC" \
		--status-fd=3 --rw "$d" -- "${MARK[@]}" "$d" 3>"$d/status"
	assert_untrusted "$d" "$t is writable by others"
}

@test "a fake bwrap named with --bwrap that reports in itself: refused, no success, the command does not run" {
	body() {
		local d
		d=$(scratch_dir)
		fake_bwrap "$d/fake" report
		# Control: a launcher that believes it has the command run.
		run usr "$PY" "$NAIVE" "$d/fake/bwrap" "$SBOX" "$d"
		assert_file "$d/marker" ran
		rm -f "$d/marker"

		run --separate-stderr usr "$SBOX" --status-fd=3 --bwrap="$d/fake/bwrap" \
			--rw "$d" -- "${MARK[@]}" "$d" 3>"$d/status"
		assert_untrusted "$d" "namespace"
		refute_contains "$(cat "$d/status")" success
		assert_contains "$stderr" "not in the sandbox asked for"
	}
	each_user body
}

@test "a fake bwrap that runs stage two in namespaces of its own, without the filter: refused" {
	body() {
		local d
		d=$(scratch_dir)
		fake_bwrap "$d/fake" stage2
		# Control: a launcher that believes it has the command run, by
		# stage two, outside any sandbox of sbox-exec's.
		run usr "$PY" "$NAIVE" "$d/fake/bwrap" "$SBOX" "$d"
		assert_file "$d/marker" ran
		rm -f "$d/marker"

		run --separate-stderr usr "$SBOX" --status-fd=3 --bwrap="$d/fake/bwrap" \
			--rw "$d" -- "${MARK[@]}" "$d" 3>"$d/status"
		assert_untrusted "$d" "seccomp filter"
		refute_contains "$(cat "$d/status")" success
	}
	requires unshare
	each_user body
}
