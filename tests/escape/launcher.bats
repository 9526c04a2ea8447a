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

# home_install DIR: sbox-exec installed as the pass's user in DIR/home,
# as an editor installs it in a home directory: bin/sbox-exec, the
# bundled bwrap in libexec/sbox-exec, the profiles and the credential
# list in share/sbox-exec (a relocated install: FINDING BWRAP).  DIR is
# root's and 0755, so that the bundled copy lies in a trusted place
# (writable by root and by the owner of sbox-exec only).  Prints the
# prefix.
home_install() {
	local p=$1/home/.local bw
	bw=${SBOX_BUNDLED_BWRAP:-}
	[ -x "$bw" ] || bw=$(readlink -f "$(command -v bwrap)")
	chmod 0755 "$1"
	mkdir -m 0755 "$1/home"
	install_sbox "$p" >/dev/null
	install -D -m 0755 "$bw" "$p/libexec/sbox-exec/bwrap"
	# Its owner's to change, as an install in a home is, even when the
	# copies came from a read-only source tree (make distcheck).
	chmod -R u+w "$1/home"
	[ -z "${AS:-}" ] || chown -R 65534:65534 "$1/home"
	echo "$p"
}

# The attempts on an install below $1: each replaces or changes one of
# sbox-exec's files, or moves it (or a directory above it) away to put
# another in its place.  Prints what succeeded.
TAMPER='p=$1
PATH=/usr/bin:/bin
cp /bin/true "$p/bin/sbox-exec" 2>/dev/null && echo overwrote-sbox-exec
mv "$p/bin" "$p/bin.old" 2>/dev/null && echo moved-bin
printf x >>"$p/libexec/sbox-exec/bwrap" 2>/dev/null && echo wrote-bwrap
mv "$p/libexec/sbox-exec/bwrap" "$p/libexec/sbox-exec/bwrap.old" 2>/dev/null && echo moved-bwrap
mv "$p/libexec" "$p/libexec.old" 2>/dev/null && echo moved-libexec
echo "--rw /" >>"$p/share/sbox-exec/profiles/agent.policy" 2>/dev/null && echo wrote-profile
echo "--rw /" >"$p/share/sbox-exec/profiles/mine.policy" 2>/dev/null && echo added-profile
echo "# none" >"$p/share/sbox-exec/credentials" 2>/dev/null && echo wrote-credentials
mv "$p/share" "$p/share.old" 2>/dev/null && echo moved-share
:'

@test "sbox-exec, its bundled bwrap and its profiles, installed in a home granted --rw: read-only and pinned in the sandbox, as root and as nobody" {
	body() {
		local d p q before
		d=$(mktemp -d /var/tmp/sbox-home.XXXXXX)
		chmod 0755 "$d"
		on_teardown rm -rf -- "$d"
		mkdir -m 0755 "$d/empty"
		# Control: unsandboxed, this user can change every one of them.
		mkdir -m 0755 "$d/control"
		q=$(home_install "$d/control")
		run usr sh -c "$TAMPER" sh "$q"
		assert_status 0
		assert_eq "$(printf '%s\n' "$output" | sort | paste -sd' ')" \
			"added-profile moved-bin moved-bwrap moved-libexec moved-share overwrote-sbox-exec wrote-bwrap wrote-credentials wrote-profile"
		mkdir -m 0755 "$d/sandboxed"
		p=$(home_install "$d/sandboxed")
		before=$(tree_state "$d/sandboxed")
		run --separate-stderr usr env PATH="$d/empty" "$p/bin/sbox-exec" \
			--status-fd=3 --rw "$d/sandboxed/home" -- \
			/bin/sh -c "$TAMPER; echo ran" sh "$p" 3>"$d/status"
		assert_status 0
		assert_eq "$output" ran
		assert_eq "$(jq -r .bwrap_source "$d/status")" bundled
		assert_eq "$(tree_state "$d/sandboxed")" "$before"
		# The grant itself stays writable.
		run usr env PATH="$d/empty" "$p/bin/sbox-exec" \
			--rw "$d/sandboxed/home" -- /bin/sh -c \
			'echo made >"$1/file"' sh "$d/sandboxed/home"
		assert_status 0
		assert_file "$d/sandboxed/home/file" made
	}
	each_user body
}

@test "--check says when the bundled bwrap can be replaced by the caller (a home install), and not otherwise" {
	local d p
	requires root setpriv
	d=$(mktemp -d /var/tmp/sbox-home.XXXXXX)
	chmod 0755 "$d"
	on_teardown rm -rf -- "$d"
	mkdir -m 0755 "$d/empty"
	SBOX=$(unpriv_sbox) AS=as_user
	p=$(home_install "$d")
	run --separate-stderr usr env PATH="$d/empty" "$p/bin/sbox-exec" --check
	assert_status 0
	assert_contains "$stderr" "(the copy installed with sbox-exec; none on PATH)"
	assert_contains "$stderr" "note: $p/bin/../libexec/sbox-exec/bwrap can be replaced by this user ($d/home is theirs to write)"
	# -q: nothing said.
	run --separate-stderr usr env PATH="$d/empty" "$p/bin/sbox-exec" --check -q
	assert_status 0
	assert_eq "$stderr" ""
	# Root's install, run as root: nobody else can replace it.
	rm -rf -- "$d"
	mkdir -p "$d"
	SBOX=$SBOX_EXEC AS=
	mkdir -m 0755 "$d/empty"
	p=$(home_install "$d")
	run --separate-stderr env PATH="$d/empty" "$p/bin/sbox-exec" --check
	assert_status 0
	assert_contains "$stderr" "(the copy installed with sbox-exec; none on PATH)"
	refute_contains "$stderr" "can be replaced"
}
