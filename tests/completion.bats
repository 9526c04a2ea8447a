#!/usr/bin/env bats
# Shell completion (completion/, installed by make install): scripted
# completion requests in a real bash (with bash-completion), zsh and fish,
# and the candidates each offers.  That every option is there at all is
# scripts/lint's to check (lint_completion).

# shellcheck disable=SC2016 # single-quoted scripts run by an inner shell
load helpers

setup() {
	COMPLETION=${SBOX_COMPLETION:-$(dirname "$SBOX_EXEC")/../completion}
	[ -f "$COMPLETION/bash/sbox-exec" ] ||
		fail_setup "no built completion in $COMPLETION: run make"
	# The user's profile directory, and sbox-exec (its build tree's
	# ../profiles, the shipped ones) on PATH.
	export XDG_CONFIG_HOME=$BATS_TEST_TMPDIR/config
	mkdir -p "$XDG_CONFIG_HOME/sbox-exec/profiles"
	: >"$XDG_CONFIG_HOME/sbox-exec/profiles/my-own.policy"
	PATH=$(dirname "$SBOX_EXEC"):$PATH
	# A program of our own, so that its completion after "--" is ours.
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\n' >"$BATS_TEST_TMPDIR/bin/sbxtestprog"
	chmod +x "$BATS_TEST_TMPDIR/bin/sbxtestprog"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH
	export PATH
}

fail_setup() {
	echo "$*" >&2
	return 1
}

# --- bash -------------------------------------------------------------------

# bash_complete LINE [SORT]: the candidates bash offers for LINE (the
# cursor at its end), one a line, as bash-completion's own tests ask for
# them, through SORT (default: sort -u; "sort" keeps duplicates).
bash_complete() {
	run bash --norc --noprofile -c '
		source /usr/share/bash-completion/bash_completion
		source "$1"
		complete -F _sbxtestprog_complete sbxtestprog
		_sbxtestprog_complete() { COMPREPLY=(--sbxtest-flag); }
		line=$2
		COMP_LINE=$line COMP_POINT=${#line}
		read -ra COMP_WORDS <<<"$line"
		[[ $line == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_sbox_exec sbox-exec "${COMP_WORDS[COMP_CWORD]}" \
			"${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}" | $3
	' bash "$COMPLETION/bash/sbox-exec" "$1" "${2:-sort -u}"
}

@test "bash: options, --fs values, --limit names" {
	requires bash-completion
	bash_complete "sbox-exec --ti"
	assert_eq "$output" "--timeout="
	bash_complete "sbox-exec --k"
	assert_eq "$output" $'--keep-fd=\n--kill-after='
	bash_complete "sbox-exec --fs="
	assert_eq "$output" $'host\nminimal'
	bash_complete "sbox-exec --fs m"
	assert_eq "$output" minimal
	bash_complete "sbox-exec --limit="
	assert_eq "$output" "$(printf '%s=\n' as core cpu data fsize memlock nofile nproc stack)"
	bash_complete "sbox-exec --limit=n"
	assert_eq "$output" $'nofile=\nnproc='
}

@test "bash: profile names, the user's and the shipped ones" {
	requires bash-completion
	bash_complete "sbox-exec --profile="
	assert_contains "$output" my-own
	assert_contains "$output" agent
	bash_complete "sbox-exec --profile my"
	assert_eq "$output" my-own
}

@test "bash: each profile once, from an installed sbox-exec and a user's profile of a shipped name" {
	requires bash-completion
	local inst
	# An installation as make install lays it out, where it was
	# configured to be (the Debian package's /usr): its profiles are
	# both @pkgdatadir@/profiles and ../share/sbox-exec/profiles beside
	# the executable.
	inst=$BATS_TEST_TMPDIR/inst
	mkdir -p "$inst/bin" "$inst/share/sbox-exec"
	cp "$SBOX_EXEC" "$inst/bin/sbox-exec"
	cp -R "$(dirname "$SBOX_EXEC")/../profiles/." \
		"$inst/share/sbox-exec/profiles"
	sed "s|^\(\t*\)\"[^\"]*/profiles\" \\\${exe|\1\"$inst/share/sbox-exec/profiles\" \${exe|" \
		"$COMPLETION/bash/sbox-exec" >"$BATS_TEST_TMPDIR/installed"
	grep -qF "\"$inst/share/sbox-exec/profiles\" \${exe" \
		"$BATS_TEST_TMPDIR/installed"
	COMPLETION=$BATS_TEST_TMPDIR
	mkdir "$COMPLETION/bash"
	mv "$COMPLETION/installed" "$COMPLETION/bash/sbox-exec"
	: >"$XDG_CONFIG_HOME/sbox-exec/profiles/agent.policy"
	PATH=$inst/bin:$PATH bash_complete "sbox-exec --profile=" sort
	assert_contains "$output" my-own
	assert_contains "$output" agent
	assert_contains "$output" clangd
	assert_eq "$(uniq -d <<<"$output")" ""
}

@test "bash: paths, and the command after -- with its own completion" {
	requires bash-completion
	local d
	d=$(scratch_dir)
	mkdir "$d/sub-dir"
	: >"$d/sub-file"
	bash_complete "sbox-exec --rw=$d/sub-"
	assert_eq "$output" $"$d/sub-dir"$'\n'"$d/sub-file"
	bash_complete "sbox-exec -C $d/sub-"
	assert_eq "$output" "$d/sub-dir"
	bash_complete "sbox-exec --rw=$d -- sbxtestp"
	assert_eq "$output" sbxtestprog
	bash_complete "sbox-exec --rw=$d --setenv A B -- sbxtestprog --"
	assert_eq "$output" --sbxtest-flag
	# Without "--": the first word that is no option is the command.
	bash_complete "sbox-exec --rw $d --setenv A B sbxtestprog -"
	assert_eq "$output" --sbxtest-flag
}

# --- zsh --------------------------------------------------------------------

# zsh_complete LINE: the candidates zsh offers for LINE, one a line: an
# interactive zsh on a pseudo-terminal (zpty) completes it with compinit,
# and compadd records what it is given (waited for up to 20 s before the
# line is cleared).  Paths go to that zsh quoted
# (${(q)...}): a checkout's path may have a blank.
zsh_complete() {
	local script=$BATS_TEST_TMPDIR/complete.zsh
	cat >"$script" <<-'EOF'
		zmodload zsh/zpty
		out=$3
		zpty z zsh -f -i
		zpty -w z "fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
		zpty -w z "compdef '_files' sbxtestprog 2>/dev/null; _sbxtestprog() { compadd -- --sbxtest-flag }; compdef _sbxtestprog sbxtestprog"
		zpty -w z "compadd() { builtin compadd \"\$@\"; local -a a; builtin compadd -O a \"\$@\"; print -rl -- \$a >>${(q)out}; }"
		zpty -w z "zstyle ':completion:*' menu no; bindkey '^I' complete-word; print READY\$((1+1))"
		zpty -r -m z x '*READY2*'
		zpty -w -n z "$2"$'\t'
		# Completion done (it wrote what it offered) before the line is
		# cleared: a loaded machine may take its time.
		for i in {1..200}; do [[ -s $out ]] && break; sleep 0.1; done
		zpty -w z $'\C-u'"print DONE\$((1+1))"
		zpty -r -m z x '*DONE2*'
		zpty -d z
	EOF
	rm -f "$BATS_TEST_TMPDIR/zsh.out"
	run timeout 30 zsh -f "$script" "$COMPLETION/zsh" "$1" \
		"$BATS_TEST_TMPDIR/zsh.out"
	assert_status 0
	output=$(grep -v '^$' "$BATS_TEST_TMPDIR/zsh.out" | sort -u)
}

@test "zsh: options, values, profiles, the command after --" {
	requires zsh
	zsh_complete "sbox-exec --kill"
	assert_contains "$output" --kill-after
	zsh_complete "sbox-exec --fs="
	assert_contains "$output" $'host\nminimal'
	zsh_complete "sbox-exec --limit=me"
	assert_contains "$output" memlock
	refute_contains "$output" nproc
	zsh_complete "sbox-exec --profile="
	assert_contains "$output" my-own
	assert_contains "$output" agent
	zsh_complete "sbox-exec --timeout=1 -- sbxtestp"
	assert_contains "$output" sbxtestprog
	zsh_complete "sbox-exec --rw=/ -- sbxtestprog --sbx"
	assert_contains "$output" --sbxtest-flag
}

# --- fish -------------------------------------------------------------------

# fish_complete LINE: fish's candidates for LINE (complete -C), one a
# line, the description cut off.
fish_complete() {
	run fish --no-config -c '
		source $argv[1]
		complete -c sbxtestprog -l sbxtest-flag
		complete -C $argv[2] | string replace -r "\t.*" ""
		true
	' "$COMPLETION/fish/sbox-exec.fish" "$1"
	assert_status 0
	output=$(printf '%s\n' "$output" | sort -u)
}

@test "fish: options, values, profiles, the command after --" {
	requires fish
	fish_complete "sbox-exec --kill"
	assert_eq "$output" --kill-after
	fish_complete "sbox-exec --fs="
	assert_eq "$output" $'--fs=host\n--fs=minimal'
	fish_complete "sbox-exec --limit=c"
	assert_eq "$output" $'--limit=core=\n--limit=cpu='
	fish_complete "sbox-exec --profile="
	assert_contains "$output" --profile=my-own
	assert_contains "$output" --profile=agent
	fish_complete "sbox-exec --timeout 1 -- sbxtestp"
	assert_eq "$output" sbxtestprog
	fish_complete "sbox-exec --setenv A B -- sbxtestprog --sbx"
	assert_eq "$output" --sbxtest-flag
	fish_complete "sbox-exec -C / sbxtestprog --sbx"
	assert_eq "$output" --sbxtest-flag
}
