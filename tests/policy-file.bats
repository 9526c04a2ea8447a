#!/usr/bin/env bats
# sbox-exec(1) POLICY FILES and PROFILES: --policy=FILE and --profile=NAME.  Every test
# runs from $D/work, and grants (or not) $D/work/sub through a file; the
# proof is a file the command writes on the host.

load helpers

setup() {
	requires bwrap jq
	D=$(scratch_dir)
	mkdir -p "$D/work/sub" "$D/conf" "$D/config"
	cd "$D/work"
	export XDG_CONFIG_HOME=$D/config
	unset SBOX_EXEC_BWRAP SBOX_T_UNSET
	# Writes $D/work/sub/f, which only a grant of sub makes possible.
	WRITE=(sh -c 'echo ok >"$1/f"' sh "$D/work/sub")
}

# policy FILE: FILE (relative to $D/conf) gets stdin, verbatim.
policy() {
	mkdir -p "$(dirname "$D/conf/$1")"
	cat >"$D/conf/$1"
}

# sbox ARGS...: sbox-exec with ARGS, the status in $D/status.
sbox() {
	run --separate-stderr "$SBOX_EXEC" --status-fd=3 "$@" 3>"$D/status"
}

assert_wrote() {
	assert_status 0
	assert_eq "$(cat "$D/work/sub/f" 2>/dev/null)" ok
}

# assert_refused NEEDLE...: invalid-policy, one message naming each NEEDLE.
assert_refused() {
	local n
	assert_status 125
	assert_eq "$output" ""
	assert_sbox_message "$stderr"
	assert_eq "$(jq -r .status "$D/status")" invalid-policy
	for n in "$@"; do
		assert_contains "$stderr" "$n"
		assert_contains "$(jq -r .detail "$D/status")" "$n"
	done
	[ ! -e "$D/work/sub/f" ] || { echo "the command ran" >&2; return 1; }
}

@test "control: without a grant the command cannot write sub" {
	sbox -- "${WRITE[@]}"
	[ "$status" -ne 0 ]
	[ ! -e "$D/work/sub/f" ]
}

@test "--rw \${CWD}/sub" {
	policy p.policy <<'EOF'
--rw ${CWD}/sub
EOF
	sbox --policy="$D/conf/p.policy" -- "${WRITE[@]}"
	assert_wrote
}

@test "--rw=\${CWD}/sub, and --policy FILE as two words" {
	policy p.policy <<'EOF'
--rw=${CWD}/sub
EOF
	sbox --policy "$D/conf/p.policy" -- "${WRITE[@]}"
	assert_wrote
}

@test "the short form: -w \${CWD}/sub" {
	policy p.policy <<'EOF'
-w ${CWD}/sub
EOF
	sbox --policy="$D/conf/p.policy" -- "${WRITE[@]}"
	assert_wrote
}

@test "blank lines, comments (indented too) and trailing blanks" {
	printf '%s\n' '' '# a comment' '   # indented with spaces' \
		$'\t# indented with a tab' '   ' $'\t' \
		$'--rw ${CWD}/sub  \t ' '# --rw /nonexistent/commented-out' '' \
		| policy p.policy
	sbox --policy="$D/conf/p.policy" -- "${WRITE[@]}"
	assert_wrote
}

@test "a last line without a newline still counts" {
	printf '%s' '--rw ${CWD}/sub' | policy p.policy
	sbox --policy="$D/conf/p.policy" -- "${WRITE[@]}"
	assert_wrote
}

@test "--setenv NAME VALUE: VALUE is the rest of the line, blanks inside kept" {
	policy p.policy <<'EOF'
--setenv GREETING some value  with   spaces
--setenv HASH value # not a comment
--setenv EQ a=b
EOF
	sbox --policy="$D/conf/p.policy" -- \
		sh -c 'printf "%s|%s|%s" "$GREETING" "$HASH" "$EQ"'
	assert_status 0
	assert_eq "$output" "some value  with   spaces|value # not a comment|a=b"
}

@test "--setenv VALUE: trailing blanks stripped" {
	printf '%s\n' $'--setenv A  x y \t ' | policy p.policy
	sbox --policy="$D/conf/p.policy" -- sh -c 'printf "[%s]" "$A"'
	assert_status 0
	assert_eq "$output" "[x y]"
}

@test "\${HOME} and other variables expand" {
	policy p.policy <<'EOF'
--rw ${HOME}/sub
--setenv X pre-${SBOX_T_VAR}-post
--setenv W ${CWD}
EOF
	run --separate-stderr env HOME="$D/work" SBOX_T_VAR='a b' "$SBOX_EXEC" \
		--policy="$D/conf/p.policy" -- \
		sh -c 'echo ok >"$HOME/sub/f"; printf "%s|%s" "$X" "$W"'
	assert_wrote
	assert_eq "$output" "pre-a b-post|$D/work"
}

@test "expansion is done once: a value holding \${...} stays as it is" {
	policy p.policy <<'EOF'
--setenv X ${SBOX_T_VAR}
EOF
	run --separate-stderr env SBOX_T_VAR='${HOME}' "$SBOX_EXEC" \
		--policy="$D/conf/p.policy" -- sh -c 'printf %s "$X"'
	assert_status 0
	assert_eq "$output" '${HOME}'
}

@test "an unset variable: invalid-policy naming it" {
	policy p.policy <<'EOF'
--rw ${CWD}/sub
--rw ${SBOX_T_UNSET}/sub
EOF
	sbox --policy="$D/conf/p.policy" -- "${WRITE[@]}"
	assert_refused SBOX_T_UNSET
}

@test "an unset variable in --setenv: invalid-policy naming it" {
	policy p.policy <<'EOF'
--setenv A ${SBOX_T_UNSET}
EOF
	sbox --policy="$D/conf/p.policy" -- "${WRITE[@]}"
	assert_refused SBOX_T_UNSET
}

@test "an unset variable on --ro-try / --rw-try lines: skipped, the rest applies" {
	policy p.policy <<'EOF'
--ro-try ${SBOX_T_UNSET}/cache
--rw-try ${SBOX_T_UNSET}
--rw-try=${SBOX_T_UNSET}/x
--rw ${CWD}/sub
EOF
	sbox --policy="$D/conf/p.policy" -- "${WRITE[@]}"
	assert_wrote
	assert_eq "$(jq -r .status "$D/status")" success
}

@test "--rw-try / --ro-try of a missing path: skipped" {
	policy p.policy <<'EOF'
--rw-try ${CWD}/no-such-dir
--ro-try=${CWD}/no-such-dir
--rw ${CWD}/sub
EOF
	sbox --policy="$D/conf/p.policy" -- "${WRITE[@]}"
	assert_wrote
}

@test "a missing path written with '*' in a file is refused, -try and --hide too (OPTIONS)" {
	local line
	for line in '--hide ${CWD}/**/.env' '--ro-try ${CWD}/*.key' \
		'--rw-try=${CWD}/sub/[ab]' '--rw ${CWD}/su?'; do
		printf '%s\n--rw ${CWD}/sub\n' "$line" | policy p.policy
		sbox --policy="$D/conf/p.policy" -- "${WRITE[@]}"
		assert_refused "p.policy:1:" "does not exist" \
			"does not expand '*', '?' or '['"
	done
}

@test "a misspelt word in a file names the nearest option, with the file and line" {
	policy p.policy <<'EOF'
--rw ${CWD}/sub
--no-network
EOF
	sbox --policy="$D/conf/p.policy" -- "${WRITE[@]}"
	assert_refused "p.policy:2: '--no-network' is not an option; did you mean '--no-net'?"
}

@test "a variable's value with '*' or '[' is no pattern: a missing -try path is skipped, an existing one granted" {
	mkdir -p "$D/work/[x]*"
	policy p.policy <<'EOF'
--ro-try ${SBOX_T_ODD}/missing
--hide ${SBOX_T_ODD}/missing
--rw ${SBOX_T_ODD}
--rw ${CWD}/sub
EOF
	SBOX_T_ODD="$D/work/[x]*" sbox --policy="$D/conf/p.policy" -- \
		sh -c 'echo ok >"$1/f" && echo ok >"$2/f"' sh "$D/work/sub" \
		"$D/work/[x]*"
	assert_wrote
	assert_eq "$(cat "$D/work/[x]*/f")" ok
}

@test "a path with spaces and an = needs no quoting" {
	mkdir "$D/work/a b=c"
	policy p.policy <<'EOF'
--rw ${CWD}/a b=c
EOF
	sbox --policy="$D/conf/p.policy" -- sh -c 'echo ok >"a b=c/f"'
	assert_status 0
	assert_eq "$(cat "$D/work/a b=c/f")" ok
}

@test "include: --policy inside a file" {
	policy a.policy <<EOF
# includes b
--policy $D/conf/b.policy
EOF
	policy b.policy <<'EOF'
--rw ${CWD}/sub
EOF
	sbox --policy="$D/conf/a.policy" -- "${WRITE[@]}"
	assert_wrote
}

@test "include: --policy=\${CWD}/... and --profile inside a file" {
	cp /dev/null "$D/work/b.policy"
	echo '--profile inc' >>"$D/work/b.policy"
	mkdir -p "$XDG_CONFIG_HOME/sbox-exec/profiles"
	echo '--rw ${CWD}/sub' >"$XDG_CONFIG_HOME/sbox-exec/profiles/inc.policy"
	policy a.policy <<'EOF'
--policy=${CWD}/b.policy
EOF
	sbox --policy="$D/conf/a.policy" -- "${WRITE[@]}"
	assert_wrote
}

@test "include: the same file twice, not in a cycle (a diamond), is fine" {
	policy a.policy <<EOF
--policy $D/conf/b.policy
--policy $D/conf/c.policy
EOF
	echo "--policy $D/conf/d.policy" | policy b.policy
	echo "--policy $D/conf/d.policy" | policy c.policy
	echo '--rw ${CWD}/sub' | policy d.policy
	sbox --policy="$D/conf/a.policy" -- "${WRITE[@]}"
	assert_wrote
}

@test "a file that includes itself: invalid-policy" {
	policy a.policy <<EOF
--rw \${CWD}/sub
--policy $D/conf/a.policy
EOF
	sbox --policy="$D/conf/a.policy" -- "${WRITE[@]}"
	assert_refused a.policy
}

@test "a includes b includes a: invalid-policy" {
	echo "--policy $D/conf/b.policy" | policy a.policy
	printf '%s\n' '--rw ${CWD}/sub' "--policy $D/conf/a.policy" | policy b.policy
	sbox --policy="$D/conf/a.policy" -- "${WRITE[@]}"
	assert_refused a.policy
}

@test "a cycle through a symlinked name of the same file: invalid-policy" {
	ln -s a.policy "$D/conf/link.policy"
	echo "--policy $D/conf/link.policy" | policy a.policy
	sbox --policy="$D/conf/a.policy" -- "${WRITE[@]}"
	assert_refused link.policy
}

@test "a profile that includes itself: invalid-policy" {
	mkdir -p "$XDG_CONFIG_HOME/sbox-exec/profiles"
	echo '--profile loop' >"$XDG_CONFIG_HOME/sbox-exec/profiles/loop.policy"
	sbox --profile=loop -- "${WRITE[@]}"
	assert_refused loop
}

@test "garbage lines: invalid-policy naming the file and the line number" {
	local bad file=$D/conf/garbage.policy
	for bad in 'hello' '--bogus' '--bogus value' '--net extra' '--rw' \
		'--rw   ' '--setenv' '-Z' '--rw-try' '--fs=bogus' \
		'--ro /nonexistent/sbox-test'; do
		# The bad line is line 5.
		printf '%s\n' '# garbage' '' '--rw ${CWD}/sub' '--no-net' "$bad" \
			'--net' >"$file"
		sbox --policy="$file" -- "${WRITE[@]}"
		assert_refused garbage.policy
		[[ $stderr =~ garbage\.policy.*[^0-9]5([^0-9]|$) ]] || {
			echo "line 5 not named for '$bad': $stderr" >&2
			return 1
		}
	done
}

@test "a bad line in an included file names that file and its line" {
	printf '%s\n' '# outer' "--policy $D/conf/inner.policy" | policy outer.policy
	printf '%s\n' '--rw ${CWD}/sub' '' 'hello' | policy inner.policy
	sbox --policy="$D/conf/outer.policy" -- "${WRITE[@]}"
	assert_refused inner.policy
	[[ $stderr =~ inner\.policy.*[^0-9]3([^0-9]|$) ]]
}

@test "command-line options apply after the file: --setenv A 2 wins" {
	echo '--setenv A 1' | policy p.policy
	sbox --policy="$D/conf/p.policy" --setenv A 2 -- sh -c 'printf %s "$A"'
	assert_status 0
	assert_eq "$output" 2
}

@test "command-line options apply after the file, even when given before --policy" {
	# sbox-exec(1) POLICY FILES: the command line is applied after the files.
	echo '--setenv A 1' | policy p.policy
	sbox --setenv A 2 --policy="$D/conf/p.policy" -- sh -c 'printf %s "$A"'
	assert_status 0
	assert_eq "$output" 2
}

@test "file --net, command line --no-net: no network" {
	local host_ifs
	host_ifs=$(tail -n +3 /proc/net/dev | grep -vc '^ *lo:' || true)
	[ "$host_ifs" -gt 0 ] || skip "the host has only loopback"
	echo '--net' | policy p.policy
	sbox --policy="$D/conf/p.policy" -- sh -c 'tail -n +3 /proc/net/dev'
	assert_status 0
	# Control: the file alone shares the host network.
	[ "$(printf '%s\n' "$output" | grep -vc '^ *lo:')" -gt 0 ]
	sbox --policy="$D/conf/p.policy" --no-net -- sh -c 'tail -n +3 /proc/net/dev'
	assert_status 0
	assert_eq "$(printf '%s\n' "$output" | grep -vc '^ *lo:')" 0
}

@test "--profile=NAME from \$XDG_CONFIG_HOME/sbox-exec/profiles/NAME.policy" {
	mkdir -p "$XDG_CONFIG_HOME/sbox-exec/profiles"
	echo '--rw ${CWD}/sub' >"$XDG_CONFIG_HOME/sbox-exec/profiles/mine.policy"
	sbox --profile=mine -- "${WRITE[@]}"
	assert_wrote
}

@test "--profile=NAME from ~/.config/sbox-exec/profiles when XDG_CONFIG_HOME is unset" {
	mkdir -p "$D/home/.config/sbox-exec/profiles"
	echo '--rw ${CWD}/sub' >"$D/home/.config/sbox-exec/profiles/mine.policy"
	run --separate-stderr env -u XDG_CONFIG_HOME HOME="$D/home" \
		"$SBOX_EXEC" --profile=mine -- "${WRITE[@]}"
	assert_wrote
}

# profiles/aliases: a server's command names its shipped profile.
@test "--profile=COMMAND reads the shipped profile profiles/aliases names for it; a user's profile of that name comes first" {
	local d alias target want aliases=$TESTS_DIR/../profiles/aliases
	d=$(scratch_dir)
	[ -f "$aliases" ] || skip_or_fail "no profiles/aliases beside the tests"
	# The commands of the servers the shipped profiles are for.
	assert_eq "$(awk '!/^#/ && NF { print $1 "=" $2 }' "$aliases" | sort |
		tr '\n' ' ')" "pylsp=python-lsp pyright-langserver=pyright typescript-language-server=typescript "
	while read -r alias target; do
		case $alias in '#'* | '') continue ;; esac
		# Each names a shipped profile and is none itself.
		[ -f "$TESTS_DIR/../profiles/$target.policy" ]
		[ ! -e "$TESTS_DIR/../profiles/$alias.policy" ]
		run --separate-stderr env -u XDG_CONFIG_HOME HOME="$d" \
			"$SBOX_EXEC" --print --profile="$target" -- true
		assert_status 0
		# The target's own private cache: the line is the profile's.
		assert_contains "$output" "/$target "
		want=$output
		run --separate-stderr env -u XDG_CONFIG_HOME HOME="$d" \
			"$SBOX_EXEC" --print --profile="$alias" -- true
		assert_status 0
		assert_eq "$output" "$want"
	done <"$aliases"
	# A user's profile named as the command replaces the alias, said.
	mkdir -p "$XDG_CONFIG_HOME/sbox-exec/profiles"
	echo '--rw ${CWD}/sub' >"$XDG_CONFIG_HOME/sbox-exec/profiles/pylsp.policy"
	sbox --profile=pylsp -- "${WRITE[@]}"
	assert_wrote
	assert_contains "$stderr" "the user's profile $XDG_CONFIG_HOME/sbox-exec/profiles/pylsp.policy replaces the shipped profile 'python-lsp', which 'pylsp' names"
	# A user's profile named as the target is what the alias reads.
	rm "$XDG_CONFIG_HOME/sbox-exec/profiles/pylsp.policy" "$D/work/sub/f"
	echo '--rw ${CWD}/sub' >"$XDG_CONFIG_HOME/sbox-exec/profiles/python-lsp.policy"
	sbox --profile=pylsp -- "${WRITE[@]}"
	assert_wrote
	assert_contains "$stderr" "the user's profile $XDG_CONFIG_HOME/sbox-exec/profiles/python-lsp.policy replaces the shipped profile 'python-lsp'"
}

@test "relative paths in a file resolve against sbox-exec's cwd, not the file's dir" {
	# conf/sub exists too: a wrong resolution would grant it instead.
	mkdir "$D/conf/sub"
	echo '--rw sub' | policy p.policy
	sbox --policy="$D/conf/p.policy" -- sh -c \
		'echo ok >"$1/work/sub/f"; echo bad >"$1/conf/sub/f"' sh "$D"
	assert_eq "$(cat "$D/work/sub/f")" ok
	[ ! -e "$D/conf/sub/f" ]
}

@test "a relative --policy inside a file resolves against the cwd too" {
	echo '--rw sub' >"$D/work/inner.policy"
	echo 'hello' | policy inner.policy
	echo '--policy inner.policy' | policy outer.policy
	sbox --policy="$D/conf/outer.policy" -- "${WRITE[@]}"
	assert_wrote
}

@test "a relative --policy on the command line resolves against the cwd" {
	echo '--rw ${CWD}/sub' >"$D/work/p.policy"
	sbox --policy=p.policy -- "${WRITE[@]}"
	assert_wrote
}

# The shipped profiles, found in the build tree as an installed copy would
# find them in $(pkgdatadir): each parses and runs, and agent makes the
# working directory (and only it) writable.
@test "shipped profiles: each one runs a command; agent grants the working directory" {
	local p d
	d=$(scratch_dir)
	for p in agent clangd rust-analyzer pyright typescript gopls python-lsp \
		npm cargo pip git-https; do
		run --separate-stderr env -u XDG_CONFIG_HOME HOME="$d" \
			"$SBOX_EXEC" --profile="$p" -- true
		assert_status 0
	done
	mkdir "$d/proj" "$d/other"
	cd "$d/proj"
	run env -u XDG_CONFIG_HOME HOME="$d" "$SBOX_EXEC" --profile=agent -- \
		sh -c 'echo in > here; echo out > ../other/there'
	[ "$status" -ne 0 ]
	assert_eq "$(cat "$d/proj/here")" in
	[ ! -e "$d/other/there" ]
	# The control: the same writes without the sandbox both land.
	sh -c 'echo in > here2; echo out > ../other/there'
	[ -e "$d/other/there" ]
}

# docs/SECURITY.md, "What each shipped profile may write": its table is
# the claim; every shipped profile's --print, from a home holding every
# shared cache a tool would use and a project holding every optional
# directory, makes exactly the listed host directories writable (--bind)
# and no other.
@test "shipped profiles: what each may write on the host is what docs/SECURITY.md lists" {
	local d p want got cache table
	table=$TESTS_DIR/../docs/SECURITY.md
	[ -f "$table" ] || skip_or_fail "no docs/SECURITY.md beside the tests"
	d=$(scratch_dir)
	mkdir -p "$d/home/.npm/_npx" "$d/home/.cache/pip" "$d/home/.cargo/registry" \
		"$d/home/.cargo/git" "$d/home/.cache/go-build" "$d/home/go/pkg/mod" \
		"$d/home/.cache/jedi" "$d/home/.cache/clangd" "$d/proj/.cache/clangd" \
		"$d/proj/target" "$d/proj/.venv"
	: >"$d/proj/Cargo.lock"
	cd "$d/proj"
	for p in "$TESTS_DIR"/../profiles/*.policy; do
		p=$(basename "$p" .policy)
		# The table's row: "| `NAME` | WRITABLE | CACHE | ...".
		want=$(awk -F'|' -v p="\`$p\`" '$2 ~ "^ *" p " *$" { print $3 "|" $4 }' \
			"$table")
		[ -n "$want" ] || {
			echo "docs/SECURITY.md lists no row for the profile $p" >&2
			return 1
		}
		cache=$(grep -o '`[^`]*`' <<<"${want#*|}" | tr -d '`')
		want=${want%%|*}
		want=$(grep -o '`[^`]*`' <<<"$want" | tr -d '`' | sort | tr '\n' ' ')
		[ -z "$cache" ] || want="${want}cache:$cache "
		run --separate-stderr env -u XDG_CONFIG_HOME -u XDG_CACHE_HOME \
			HOME="$d/home" "$SBOX_EXEC" --print --profile="$p" -- true
		assert_status 0
		got=$("$PY" -c '
import shlex, sys
home, proj = sys.argv[1], sys.argv[2]
words, out = shlex.split(sys.stdin.read()), []
for i, w in enumerate(words[:-2]):
    if w not in ("--bind", "--bind-try", "--dev-bind"):
        continue
    src = words[i + 1]
    # A hidden file in the line (sbox-exec(1), --print): the null
    # device, which keeps nothing written to it.
    if w == "--dev-bind" and src == "/dev/null":
        continue
    cache = home + "/.cache/sbox-exec/"
    if src.startswith(cache) and src.count("/") == cache.count("/") + 1:
        out.append("cache:" + src.rsplit("/", 1)[1])
    elif src == proj or src.startswith(proj + "/"):
        out.append("${PROJECT}" + src[len(proj):])
    else:
        out.append(src)
print(" ".join(sorted(out)))' "$d/home" "$d/proj" <<<"$output")
		# ${CWD} and ${PROJECT} are one directory here.
		want=${want//\$\{CWD\}/\$\{PROJECT\}}
		assert_eq "$got " "$(tr ' ' '\n' <<<"$want" | sed '/^$/d' |
			sort | tr '\n' ' ')"
	done
}

@test "--rw-create makes exactly the missing directory, then grants it; --print makes nothing; no parents, no link from a file" {
	local new=$D/work/new
	# The control: without the grant, the command cannot make it.
	run "$SBOX_EXEC" -- mkdir "$new"
	assert_failed "mkdir without a grant"
	assert_absent "$new"
	run "$SBOX_EXEC" --print --rw-create "$new" -- true
	assert_status 0
	assert_absent "$new"
	sbox --rw-create "$new" -- sh -c 'echo ok >"$1/f"' sh "$new"
	assert_status 0
	assert_file "$new/f" ok
	# Existing now: granted as --rw would.
	sbox --rw-create "$new" -- sh -c 'echo again >"$1/f"' sh "$new"
	assert_status 0
	assert_file "$new/f" again
	# Never its parents.
	sbox --rw-create "$D/work/a/b" -- true
	assert_status 125
	assert_contains "$stderr" "--rw-create: $D/work/a"
	assert_absent "$D/work/a"
	# From a policy file, never through a planted link below the
	# working directory.
	ln -s "$D/conf" "$D/work/link"
	printf '%s\n' "--rw-create \${CWD}/link/made" | policy linked.policy
	sbox --policy="$D/conf/linked.policy" -- true
	assert_status 125
	assert_contains "$stderr" "passes through a symlink"
	assert_absent "$D/conf/made"
}

@test "--rw-create-try makes the directory and its parents, then grants it; skipped with nothing said where it cannot be made; no link from a file" {
	local new=$D/work/a/b/c
	run "$SBOX_EXEC" --print --rw-create-try "$new" -- true
	assert_status 0
	assert_contains "$output" "--bind $new $new"
	assert_absent "$D/work/a"
	sbox --rw-create-try "$new" -- sh -c 'echo ok >"$1/f"' sh "$new"
	assert_status 0
	assert_file "$new/f" ok
	# What was made above it is not granted.
	sbox --rw-create-try "$new" -- sh -c 'echo x >"$1/g"' sh "$D/work/a"
	assert_failed "writing beside the grant"
	assert_absent "$D/work/a/g"
	# A file where a directory should be: skipped, the run goes on.
	: >"$D/work/file"
	sbox --rw-create-try "$D/work/file/x" -- echo ran
	assert_status 0
	assert_eq "$output" ran
	refute_contains "$stderr" "sbox-exec:"
	# A place the user cannot write: as nobody, in a directory of
	# root's (the control: nobody cannot make it there unsandboxed).
	if [ "$(id -u)" = 0 ]; then
		mkdir -m 0755 "$D/rootonly"
		chmod 0755 "$D"
		run as_user mkdir "$D/rootonly/x"
		assert_failed "nobody making a directory in root's"
		run --separate-stderr as_user "$(unpriv_sbox)" \
			--rw-create-try "$D/rootonly/x/y" -- echo ran
		assert_status 0
		assert_eq "$output" ran
		refute_contains "$stderr" "sbox-exec:"
		assert_absent "$D/rootonly/x"
	fi
	# From a policy file, never through a planted link: skipped.
	ln -s "$D/conf" "$D/work/link"
	printf '%s\n' "--rw-create-try \${CWD}/link/made/deeper" | policy linked-try.policy
	sbox --policy="$D/conf/linked-try.policy" -- echo ran
	assert_status 0
	assert_absent "$D/conf/made"
}

@test "the clangd profile keeps its index: .cache/clangd made in a writable project and writable, .cache itself read-only; a project the user cannot write runs without it" {
	local p=$D/work/cproj
	mkdir -p "$p"
	sbox --profile=clangd --project="$p" -- sh -c \
		'echo idx >"$1/.cache/clangd/probe"; echo x >"$1/.cache/other" 2>/dev/null || echo "other refused"' sh "$p"
	assert_status 0
	assert_eq "$output" "other refused"
	assert_file "$p/.cache/clangd/probe" idx
	assert_absent "$p/.cache/other"
	# The next launch finds it: the index is kept.
	sbox --profile=clangd --project="$p" -- cat "$p/.cache/clangd/probe"
	assert_eq "$output" idx
	if [ "$(id -u)" = 0 ]; then
		mkdir -m 0755 "$D/work/rproj"
		chmod 0755 "$D" "$D/work"
		mkdir -m 0700 "$D/nhome"
		chown 65534:65534 "$D/nhome"
		run --separate-stderr as_user env HOME="$D/nhome" \
			"$(unpriv_sbox)" --profile=clangd --project="$D/work/rproj" -- echo ran
		assert_status 0
		assert_eq "$output" ran
		assert_absent "$D/work/rproj/.cache"
	fi
}
