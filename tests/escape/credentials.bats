#!/usr/bin/env bats
# Escape catalogue: credentials.  sbox-exec(1) HOST PROTECTION:
# credential stores in the home directory are hidden unless named; man
# page HOST PROTECTION: a grant that reaches a masked path only through a
# symlink is refused (invalid-policy); THE SANDBOX: the kernel keyring
# calls are refused, since keyrings are shared with the host.  Every test
# uses a scratch HOME (HOME=$d/home) with a key in ~/.ssh/id_test, owned
# by the pass's user.  See tests/README for the shape of every test.

# shellcheck disable=SC2016,SC2030,SC2031
load ../helpers

setup() {
	requires bwrap userns
}

# plant_home DIR: HOME=DIR/home, with a private key in ~/.ssh/id_test;
# the key's text in $KEY.
plant_home() {
	KEY="sbox-test-private-key-$RANDOM$RANDOM"
	export HOME=$1/home
	usr sh -c 'umask 077 && mkdir -p "$1/.ssh" && printf "%s\n" "$2" >"$1/.ssh/id_test"' \
		sh "$HOME" "$KEY"
	chmod 0755 "$HOME"
}

# control_reads_key: unsandboxed, this user reads the key.
control_reads_key() {
	run usr cat "$HOME/.ssh/id_test"
	assert_status 0
	assert_eq "$output" "$KEY"
}

_ssh_key() {
	local d
	d=$(scratch_dir)
	plant_home "$d"
	cd "$d" || return 1
	control_reads_key

	run sbx -- sh -c 'echo started; ls -A "$HOME/.ssh"; cat "$HOME/.ssh/id_test"'
	assert_failed "reading ~/.ssh/id_test"
	assert_contains "$output" started
	refute_contains "$output" "$KEY"
	! grep -qx id_test <<<"$output" || { echo "ls shows id_test" >&2; return 1; }
	assert_file "$HOME/.ssh/id_test" "$KEY"
}

@test "a key in ~/.ssh cannot be read" {
	each_user _ssh_key
}

_ssh_key_rw_home() {
	local d before
	d=$(scratch_dir)
	plant_home "$d"
	cd "$HOME" || return 1
	control_reads_key
	# Control: unsandboxed, this user also writes in ~/.ssh.
	run usr sh -c 'echo control >"$HOME/.ssh/authorized_keys"'
	assert_status 0
	assert_file "$HOME/.ssh/authorized_keys" control
	rm -f "$HOME/.ssh/authorized_keys"

	before=$(tree_state "$HOME/.ssh")
	run sbx --rw "$HOME" -- sh -c '
		echo started
		cat "$HOME/.ssh/id_test"
		echo evil >"$HOME/.ssh/authorized_keys" && echo wrote-authorized-keys
		rm -f "$HOME/.ssh/id_test"
		mv "$HOME/.ssh" "$HOME/.ssh.old" && echo renamed'
	assert_contains "$output" started
	refute_contains "$output" "$KEY"
	refute_contains "$output" wrote-authorized-keys
	refute_contains "$output" renamed
	assert_eq "$(tree_state "$HOME/.ssh")" "$before"
	assert_absent "$HOME/.ssh.old"
	assert_file "$HOME/.ssh/id_test" "$KEY"
}

@test "with --rw \"\$HOME\" the ~/.ssh mask still applies: no reading, writing or renaming it" {
	each_user _ssh_key_rw_home
}

_ssh_key_minimal_ro_home() {
	local d
	d=$(scratch_dir)
	plant_home "$d"
	cd "$HOME" || return 1
	control_reads_key

	run sbx --fs=minimal --ro "$HOME" -- sh -c 'echo started; cat "$HOME/.ssh/id_test"'
	assert_failed "reading ~/.ssh/id_test"
	assert_contains "$output" started
	refute_contains "$output" "$KEY"
	assert_file "$HOME/.ssh/id_test" "$KEY"
}

@test "with --fs=minimal --ro \"\$HOME\" the ~/.ssh mask still applies" {
	each_user _ssh_key_minimal_ro_home
}

# plant_link TARGET NAME: an earlier sandboxed run with --rw $WORK plants
# $WORK/NAME -> TARGET, which lands on the host.
plant_link() {
	run sbx --rw "$WORK" -- ln -s "$1" "$WORK/$2"
	assert_status 0
	[ -L "$WORK/$2" ] || { echo "the planted link is not on the host" >&2; return 1; }
}

# assert_refused_grant OPTION PATH READ-PATH: sbox-exec OPTION PATH --
# cat READ-PATH is refused with invalid-policy, and no key is printed.
assert_refused_grant() {
	local st=$WORK/../status
	run sbx --status-fd=3 "$1" "$2" -- sh -c 'echo command-started; cat "$1"' sh "$3" 3>"$st"
	assert_status 125
	refute_contains "$output" command-started
	refute_contains "$output" "$KEY"
	assert_eq "$(json_get "$(cat "$st")" status)" invalid-policy
}

_planted_symlink_file() {
	local d
	d=$(scratch_dir)
	plant_home "$d"
	WORK=$d/work
	usr mkdir "$WORK"
	cd "$WORK" || return 1
	plant_link "$HOME/.ssh/id_test" notes

	# Control: unsandboxed, the link reads the key.
	run usr cat "$WORK/notes"
	assert_status 0
	assert_eq "$output" "$KEY"

	assert_refused_grant --ro "$WORK/notes" "$WORK/notes"
	assert_refused_grant --rw "$WORK/notes" "$WORK/notes"
	assert_file "$HOME/.ssh/id_test" "$KEY"
}

@test "a symlink to ~/.ssh/id_test planted in a --rw dir, granted later with --ro or --rw, is refused" {
	requires jq
	each_user _planted_symlink_file
}

_planted_symlink_dir() {
	local d
	d=$(scratch_dir)
	plant_home "$d"
	WORK=$d/work
	usr mkdir "$WORK"
	cd "$WORK" || return 1
	plant_link "$HOME/.ssh" keys

	# Control: unsandboxed, the link reads the key.
	run usr cat "$WORK/keys/id_test"
	assert_status 0
	assert_eq "$output" "$KEY"

	assert_refused_grant --ro "$WORK/keys" "$WORK/keys/id_test"
	assert_refused_grant --rw "$WORK/keys" "$WORK/keys/id_test"
	assert_file "$HOME/.ssh/id_test" "$KEY"
}

@test "a symlink to ~/.ssh planted in a --rw dir, granted later with --ro or --rw, is refused" {
	requires jq
	each_user _planted_symlink_dir
}

# renameat2(AT_FDCWD, A, AT_FDCWD, B, RENAME_EXCHANGE) swaps A and B.
AT_FDCWD=-100 RENAME_EXCHANGE=2

# A grant is resolved on the host, then bound by bwrap: a sandboxed
# command running at the same time, with --rw on the directory above,
# can turn the granted directory into a symlink in between.
_symlink_race() {
	local d swapper end n=0 out
	d=$(scratch_dir)
	plant_home "$d"
	WORK=$d/work
	usr mkdir -p "$WORK/sub"
	usr ln -s "$HOME/.ssh" "$WORK/link"
	cd "$WORK" || return 1

	# Control: unsandboxed, the link reads the key.
	run usr cat "$WORK/link/id_test"
	assert_status 0
	assert_eq "$output" "$KEY"

	# The attacker: a sandbox with --rw WORK, swapping sub and link as
	# fast as it can for 60 s.
	bg usr_exec "$SBOX" --rw "$WORK" -- "$TRY" --for 60 renameat2 \
		"$AT_FDCWD" "$WORK/sub" "$AT_FDCWD" "$WORK/link" "$RENAME_EXCHANGE"
	swapper=$BG_PID
	wait_for 10 test -L "$WORK/sub"

	# The victim: grants WORK/sub read-only, again and again, for 10 s.
	end=$((SECONDS + 10))
	while [ "$SECONDS" -lt "$end" ]; do
		n=$((n + 1))
		out=$(sbx --ro "$WORK/sub" -- cat "$WORK/sub/id_test" 2>&1) || true
		case $out in
		*"$KEY"*)
			echo "attempt $n: the key leaked through a raced symlink" >&2
			return 1 ;;
		esac
	done
	echo "# $n attempts, no leak" >&3
	kill -TERM "$swapper"
	assert_file "$HOME/.ssh/id_test" "$KEY"
}

@test "a granted dir swapped for a symlink to ~/.ssh by a concurrent sandbox (a race) shows no key" {
	TRY=$(payload try-syscall)
	each_user _symlink_race
}

# The kernel keyrings, through tests/payloads/try-syscall: it prints
# "ok RESULT" or "refused: ERROR (ENAME)" (exit 1).
KEYCTL_GET_KEYRING_ID=0 KEYCTL_SEARCH=10 KEYCTL_INVALIDATE=21
KEY_SPEC_SESSION_KEYRING=-3 KEY_SPEC_USER_KEYRING=-4

# key_find RUN... DESC: whether the user keyring holds a "user" key DESC
# (keyctl KEYCTL_SEARCH), asked by RUN (usr, or sbx --); its id after "ok".
key_find() {
	local desc=${*: -1}
	"${@:1:$#-1}" "$TRY" keyctl "$KEYCTL_SEARCH" "$KEY_SPEC_USER_KEYRING" \
		s:user "s:$desc" 0
}

# key_add RUN... DESC: add a "user" key DESC to the user keyring (add_key).
key_add() {
	local desc=${*: -1}
	"${@:1:$#-1}" "$TRY" add_key s:user "s:$desc" s:secret 6 \
		"$KEY_SPEC_USER_KEYRING"
}

# key_drop DESC: the pass's user invalidates its key DESC
# (KEYCTL_INVALIDATE).
key_drop() {
	local id
	id=$(key_find usr "$1") &&
		usr "$TRY" keyctl "$KEYCTL_INVALIDATE" "${id#ok }" >/dev/null
}

_keyring() {
	local d desc
	d=$(scratch_dir)
	cd "$d" || return 1
	desc=sbox-test-key-$RANDOM$RANDOM

	# Control: unsandboxed, this user reads and adds to its keyrings.
	run usr "$TRY" keyctl "$KEYCTL_GET_KEYRING_ID" "$KEY_SPEC_SESSION_KEYRING" 0
	assert_status 0
	assert_contains "$output" ok
	run key_add usr "$desc-ctl"
	assert_status 0
	run key_find usr "$desc-ctl"
	assert_status 0
	key_drop "$desc-ctl"

	run sbx -- "$TRY" keyctl "$KEYCTL_GET_KEYRING_ID" "$KEY_SPEC_SESSION_KEYRING" 0
	assert_status 1
	assert_contains "$output" "refused: Operation not permitted"
	# Should it get there, teardown takes it out of the user's keyring.
	on_teardown "AS=${AS:-} key_drop $desc >/dev/null 2>&1"
	run key_add sbx -- "$desc"
	assert_status 1
	assert_contains "$output" "refused: Operation not permitted"
	# Nothing was added to the host's keyring.
	run key_find usr "$desc"
	assert_status 1
	assert_contains "$output" refused
}

@test "the kernel keyrings (keyctl, add_key) are out of reach and the host's is unchanged" {
	requires setpriv
	TRY=$(payload try-syscall)
	each_user _keyring
}

# Credential stores by data (man page HOST PROTECTION, the credential
# list): a sample of the shipped entries, the moved ones, the user's own
# list, and a store created while the sandbox runs.

# plant FILE TEXT: FILE (below the scratch HOME, or absolute) holds TEXT,
# made by the pass's user, private.
plant() {
	usr sh -c 'umask 077 && mkdir -p "$(dirname "$1")" && printf "%s\n" "$2" >"$1"' \
		sh "$1" "$2"
}

# assert_hidden_files SBX-OPTIONS -- FILE...: unsandboxed, the pass's user
# reads each FILE and finds its secret ($SECRET); inside the sandbox
# (with SBX-OPTIONS) none of them shows it; on the host they are intact.
assert_hidden_files() {
	local opts=() f
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	for f in "$@"; do
		run usr cat "$f"
		assert_status 0
		assert_eq "$output" "$SECRET $f"
	done
	run sbx "${opts[@]}" -- sh -c 'echo started; for f; do cat "$f"; done' sh "$@"
	assert_contains "$output" started
	refute_contains "$output" "$SECRET"
	for f in "$@"; do
		assert_file "$f" "$SECRET $f"
	done
}

# A sample of the stores the shipped list names, each with its secret.
# A sample of the stores the shipped list names, one a line.
SAMPLE_STORES=".npmrc
.config/gh/hosts.yml
.config/git/credentials
.cargo/credentials.toml
.pypirc
.config/containers/auth.json
.pgpass
.vault-token
.terraform.d/credentials.tfrc.json
.config/rclone/rclone.conf
.gem/credentials
.bash_history
.zsh_history
.python_history
.psql_history
.mysql_history
.node_repl_history
.sqlite_history
.lesshst
.local/share/fish/fish_history
.aws/credentials
snap/firefox/common/.mozilla/firefox/profiles.ini
snap/chromium/common/chromium/Default/Cookies
.var/app/org.mozilla.firefox/.mozilla/firefox/profiles.ini
.var/app/com.google.Chrome/config/google-chrome/Default/Login Data
.var/app/org.chromium.Chromium/config/chromium/Default/Cookies"

_listed_stores() {
	local d f files=()
	d=$(scratch_dir)
	plant_home "$d"
	cd "$d" || return 1
	SECRET="sbox-test-secret-$RANDOM$RANDOM"
	unset XDG_CONFIG_HOME XDG_DATA_HOME GNUPGHOME PASSWORD_STORE_DIR
	while IFS= read -r f; do
		plant "$HOME/$f" "$SECRET $HOME/$f"
		files+=("$HOME/$f")
	done <<<"$SAMPLE_STORES"
	assert_hidden_files -- "${files[@]}"
	# A granted home changes nothing for them.
	assert_hidden_files --rw "$HOME" -- "${files[@]}"
	assert_hidden_files --fs=minimal --ro "$HOME" --ro "$d" -- "${files[@]}"
}

@test "stores on the credential list (npm, gh, git, cargo, pypi, containers, pgpass, vault, terraform, rclone, gem, histories, snap and flatpak browsers) cannot be read" {
	each_user _listed_stores
}

_moved_stores() {
	local d f files
	d=$(scratch_dir)
	plant_home "$d"
	cd "$d" || return 1
	SECRET="sbox-test-secret-$RANDOM$RANDOM"
	export XDG_CONFIG_HOME=$d/xdg-config XDG_DATA_HOME=$d/xdg-data
	export GNUPGHOME=$d/gpg PASSWORD_STORE_DIR=$d/pass
	files=("$XDG_CONFIG_HOME/gh/hosts.yml" "$XDG_CONFIG_HOME/git/credentials"
		"$XDG_DATA_HOME/keyrings/login.keyring" "$GNUPGHOME/private-keys-v1.d/k.key"
		"$PASSWORD_STORE_DIR/mail.gpg")
	for f in "${files[@]}"; do
		plant "$f" "$SECRET $f"
	done
	assert_hidden_files -- "${files[@]}"
	assert_hidden_files --rw "$d" -- "${files[@]}"
}

@test "stores moved by XDG_CONFIG_HOME, XDG_DATA_HOME, GNUPGHOME and PASSWORD_STORE_DIR cannot be read" {
	each_user _moved_stores
}

# The credential list by class (man page HOST PROTECTION, the credential
# list): for each class, stores in their documented places, each with
# its secret, planted by the pass's user in the scratch HOME ($STORES,
# one a line, below HOME) or where a variable moves them ($MOVED: "NAME
# FILE" lines, NAME set to a directory of the scratch's and FILE below
# it; FILE "-" when NAME names the file itself).  Unsandboxed the user
# reads each; in the sandbox, with the home granted or not, none shows
# its secret; on the host each is intact.  $KEPT: files beside them that
# builds use, which the sandbox still shows.
STORES="" MOVED="" KEPT=""

_class_stores() {
	local d f name files=()
	d=$(scratch_dir)
	plant_home "$d"
	cd "$d" || return 1
	SECRET="sbox-test-secret-$RANDOM$RANDOM"
	unset XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_STATE_HOME
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		files+=("$HOME/$f")
	done <<<"$STORES"
	while read -r name f; do
		[ -n "$name" ] || continue
		export "$name=$d/env-$name"
		if [ "$f" = - ]; then files+=("$d/env-$name"); else files+=("$d/env-$name/$f"); fi
	done <<<"$MOVED"
	for f in "${files[@]}"; do
		plant "$f" "$SECRET $f"
	done
	assert_hidden_files -- "${files[@]}"
	assert_hidden_files --rw "$HOME" -- "${files[@]}"
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		plant "$HOME/$f" "kept $HOME/$f"
		run sbx -- cat "$HOME/$f"
		assert_status 0
		assert_eq "$output" "kept $HOME/$f"
	done <<<"$KEPT"
}

@test "secret tools' stores (sops and age keys, passage, gopass, lastpass, 1Password CLI, rbw, aws-vault, Doppler) cannot be read" {
	STORES=".config/sops/age/keys.txt
.passage/identities
.passage/store/mail.age
.local/share/gopass/stores/root/mail.age
.config/gopass/age/identities
.lpass/session_privatekey
.local/share/lpass/blob
.config/op/config
.local/share/rbw/db.json
.awsvault/keys/default
.doppler/.doppler.yaml"
	MOVED="SOPS_AGE_KEY_FILE -
PASSAGE_IDENTITIES_FILE -"
	each_user _class_stores
}

@test "cloud CLIs' credentials (IBM Cloud, Alibaba, Tencent, Linode, Scaleway, Exoscale, OpenStack, Cloudflare, Vultr, B2, MinIO, Databricks, Supabase, Railway, ngrok, Terraform, Pulumi, HCP) cannot be read" {
	STORES=".bluemix/config.json
.aliyun/config.json
.tccli/default.credential
.config/linode-cli
.linode-cli
.config/scw/config.yaml
.config/exoscale/exoscale.toml
.config/openstack/clouds.yaml
.config/openstack/secure.yaml
.config/.wrangler/config/default.toml
.wrangler/config/default.toml
.vultr-cli.yaml
.b2_account_info
.mc/config.json
.databrickscfg
.supabase/access-token
.railway/config.json
.config/ngrok/ngrok.yml
.ngrok2/ngrok.yml
.terraformrc
.pulumi/credentials.json
.config/hcp/credentials/cred_file.json"
	MOVED="AWS_SHARED_CREDENTIALS_FILE -
AWS_CONFIG_FILE -
AZURE_CONFIG_DIR msal_token_cache.json
CLOUDSDK_CONFIG credentials.db
TF_CLI_CONFIG_FILE -
PULUMI_HOME credentials.json"
	KEPT=".pulumi/plugins/resource-aws/README"
	each_user _class_stores
}

@test "cluster and container credentials (helm registries, minikube, Talos, Rancher, Apptainer, JFrog, podman's runtime auth file, DOCKER_CONFIG) cannot be read" {
	STORES=".config/helm/registry/config.json
.config/helm/repositories.yaml
.minikube/profiles/minikube/client.key
.minikube/ca.key
.talos/config
.rancher/cli2.json
.apptainer/remote.yaml
.apptainer/docker-config.json
.singularity/remote.yaml
.singularity/docker-config.json
.jfrog/jfrog-cli.conf.v6"
	MOVED="XDG_RUNTIME_DIR containers/auth.json
REGISTRY_AUTH_FILE -
DOCKER_CONFIG config.json"
	each_user _class_stores
}

@test "forge and CI tokens (CircleCI, Travis, tea, hut, GitHub Copilot, GitLab Runner, Git Credential Manager, Sentry) cannot be read" {
	STORES=".circleci/cli.yml
.travis/config.yml
.config/tea/config.yml
.config/hut/config
.config/github-copilot/hosts.json
.config/github-copilot/apps.json
.gitlab-runner/config.toml
.gcm/store/git/https/example.org/user.credential
.sentryclirc"
	each_user _class_stores
}

@test "package-registry credentials (pnpm, bun, hex, pub, conan, stack, leiningen, sbt and ivy, NuGet, gradle) cannot be read, and the registries' caches still can" {
	STORES=".config/pnpm/rc
.bunfig.toml
.hex/hex.config
.config/dart/pub-credentials.json
.config/dart/pub-tokens.json
.pub-cache/credentials.json
.conan/.conan.db
.conan2/.conan.db
.conan2/credentials.json
.stack/upload/credentials.json
.lein/credentials.clj.gpg
.sbt/.credentials
.ivy2/.credentials
.config/NuGet/NuGet.Config
.gradle/gradle.properties"
	MOVED="NPM_CONFIG_USERCONFIG -
HEX_HOME hex.config
PUB_CACHE credentials.json
CONAN_HOME credentials.json
GRADLE_USER_HOME gradle.properties"
	KEPT=".gradle/caches/modules-2/files-2.1/org.example/lib.pom
.m2/repository/org/example/lib.pom
.pub-cache/hosted/pub.dev/lib/pubspec.yaml
.conan2/p/lib/conanfile.py
.hex/packages/hexpm/lib.tar
.ivy2/cache/org.example/ivy.xml
.sbt/boot/sbt.boot.properties"
	each_user _class_stores
}

@test "database passwords and clients' histories (pg_service, ODBC, MongoDB, Cassandra, Snowflake, sqlcmd, DBeaver) cannot be read" {
	STORES=".pg_service.conf
.odbc.ini
.mongodb/mongosh/mongosh_repl_history
.dbshell
.cassandra/cqlshrc
.snowsql/config
.snowflake/connections.toml
.sqlcmd/sqlconfig
.local/share/DBeaverData/workspace6/General/.dbeaver/credentials-config.json"
	MOVED="PGPASSFILE -"
	each_user _class_stores
}

@test "mail and chat secrets (authinfo, msmtp, fetchmail, mbsync, offlineimap, getmail, aerc, weechat, Slack, Discord, Signal, Telegram) cannot be read" {
	STORES=".authinfo
.authinfo.gpg
.msmtprc
.config/msmtp/config
.fetchmailrc
.mbsyncrc
.isyncrc
.config/isync/mbsyncrc
.offlineimaprc
.config/offlineimap/config
.getmail/getmailrc
.config/aerc/accounts.conf
.config/weechat/sec.conf
.weechat/sec.conf
.config/Slack/Cookies
.config/discord/Local Storage/leveldb/000003.log
.config/Signal/config.json
.local/share/TelegramDesktop/tdata/key_datas"
	each_user _class_stores
}

@test "VPN client keys kept by the user (~/.cert) cannot be read" {
	STORES=".cert/nm-openvpn/client.key
.cert/nm-openvpn/ta.key"
	each_user _class_stores
}

@test "mobile signing keys (adb's key, keytool's keystore, App Store Connect keys, Expo's session) cannot be read, and the debug keystore still can" {
	STORES=".android/adbkey
.keystore
.appstoreconnect/private_keys/AuthKey_TEST.p8
.private_keys/AuthKey_TEST.p8
.expo/state.json"
	MOVED="ANDROID_USER_HOME adbkey"
	KEPT=".android/debug.keystore
.android/avd/test.ini"
	each_user _class_stores
}

# The listed paths are looked for in a listing of the home and of its
# directories, made once a launch: a home that cannot be listed, and a
# directory of it that is a symlink elsewhere, hide nothing from that.
_unlisted_home() {
	local d files
	d=$(scratch_dir)
	plant_home "$d"
	cd "$d" || return 1
	SECRET="sbox-test-secret-$RANDOM$RANDOM"
	unset XDG_CONFIG_HOME XDG_DATA_HOME GNUPGHOME PASSWORD_STORE_DIR
	files=("$HOME/.aws/credentials" "$HOME/.config/gh/hosts.yml"
		"$HOME/.config/git/credentials" "$HOME/.npmrc")
	for f in "${files[@]}"; do
		plant "$f" "$SECRET $f"
	done
	usr mv "$HOME/.config" "$d/config-elsewhere"
	usr ln -s "$d/config-elsewhere" "$HOME/.config"
	assert_hidden_files -- "${files[@]}"
	usr rm "$HOME/.config"
	usr mv "$d/config-elsewhere" "$HOME/.config"
	# Searchable, not readable: the home cannot be listed (but by root).
	chmod 0311 "$HOME"
	if [ "$(usr id -u)" != 0 ] && usr ls "$HOME" >/dev/null 2>&1; then
		echo "a home of mode 0311 could be listed" >&2
		return 1
	fi
	assert_hidden_files -- "${files[@]}"
	assert_hidden_files --rw "$d" -- "${files[@]}"
}

@test "stores in a home that cannot be listed, or below a symlinked ~/.config, cannot be read" {
	each_user _unlisted_home
}

_user_list() {
	local d notes
	d=$(scratch_dir)
	plant_home "$d"
	cd "$d" || return 1
	SECRET="sbox-test-secret-$RANDOM$RANDOM"
	unset XDG_CONFIG_HOME
	notes=$HOME/work-tokens/prod.txt
	plant "$notes" "$SECRET $notes"
	# Control: on no list, the sandbox reads it.
	run sbx -- cat "$notes"
	assert_status 0
	assert_eq "$output" "$SECRET $notes"

	usr mkdir -p "$HOME/.config/sbox-exec"
	printf '# mine\n~/work-tokens\n' | usr tee "$HOME/.config/sbox-exec/credentials" >/dev/null
	assert_hidden_files -- "$notes"
	# The same through XDG_CONFIG_HOME.
	usr mkdir -p "$d/xdg/sbox-exec"
	usr mv "$HOME/.config/sbox-exec/credentials" "$d/xdg/sbox-exec/credentials"
	XDG_CONFIG_HOME=$d/xdg assert_hidden_files -- "$notes"
}

@test "the user's own list (~/.config/sbox-exec/credentials) adds a store" {
	each_user _user_list
}

_user_list_malformed() {
	local d
	d=$(scratch_dir)
	plant_home "$d"
	cd "$d" || return 1
	unset XDG_CONFIG_HOME
	usr mkdir -p "$HOME/.config/sbox-exec"
	echo 'work-tokens' | usr tee "$HOME/.config/sbox-exec/credentials" >/dev/null
	run sbx --status-fd=3 -- echo command-started 3>"$d/status"
	assert_status 125
	refute_contains "$output" command-started
	assert_contains "$output" "$HOME/.config/sbox-exec/credentials:1:"
	assert_eq "$(json_get "$(cat "$d/status")" status)" invalid-policy
}

@test "a malformed line in the user's list is refused (invalid-policy), not skipped" {
	requires jq
	each_user _user_list_malformed
}

# A store created while the sandbox runs: the first `gh auth login` or
# `git push` with a store helper, inside a tool directory that exists.
_created_later() {
	local d x f
	d=$(scratch_dir)
	plant_home "$d"
	x=$d/exchange
	usr mkdir "$x"
	cd "$d" || return 1
	unset XDG_CONFIG_HOME
	SECRET="sbox-test-secret-$RANDOM$RANDOM"
	usr mkdir -p "$HOME/.config/gh" "$HOME/.config/rclone"
	# The sandbox starts, then waits for the host to log in.
	bg usr_exec "$SBOX" --rw "$x" -- sh -c '
		echo >"$1/ready"
		while [ ! -e "$1/go" ]; do sleep 0.1; done
		for f in "$2" "$3"; do cat "$f"; done >"$1/out" 2>&1
		echo finished >>"$1/out"' sh "$x" "$HOME/.config/gh/hosts.yml" \
		"$HOME/.config/rclone/rclone.conf"
	wait_for 20 test -e "$x/ready"
	for f in "$HOME/.config/gh/hosts.yml" "$HOME/.config/rclone/rclone.conf"; do
		plant "$f" "$SECRET $f"
		# Control: unsandboxed, the user (and so a thief) reads it now.
		run usr cat "$f"
		assert_eq "$output" "$SECRET $f"
	done
	usr touch "$x/go"
	wait_for 20 grep -q finished "$x/out"
	refute_contains "$(cat "$x/out")" "$SECRET"
	assert_contains "$(cat "$x/out")" "No such file"
}

@test "a store created in a listed tool directory while the sandbox runs cannot be read" {
	each_user _created_later
}

# The user's profiles (man page PROFILES, HOST PROTECTION): a sandbox that
# can write the home must not leave a profile that a later run trusts.
_profile_dir_ro() {
	local d prof before
	d=$(scratch_dir)
	plant_home "$d"
	cd "$HOME" || return 1
	unset XDG_CONFIG_HOME
	prof=$HOME/.config/sbox-exec/profiles
	usr mkdir -p "$prof"
	echo '--no-net' | usr tee "$prof/mine.policy" >/dev/null
	# Control: unsandboxed, the user writes there.
	run usr sh -c 'echo --net >"$1/agent.policy" && echo wrote' sh "$prof"
	assert_eq "$output" wrote
	usr rm -f "$prof/agent.policy"

	before=$(tree_state "$HOME/.config/sbox-exec")
	run sbx --rw "$HOME" -- sh -c '
		echo started
		echo "--rw /" >"$1/agent.policy" && echo wrote-profile
		echo "--rw /" >>"$1/mine.policy" && echo changed-profile
		echo "# none" >"$1/../credentials" && echo wrote-list
		mv "$1" "$1.old" && echo renamed' sh "$prof"
	assert_contains "$output" started
	refute_contains "$output" wrote-profile
	refute_contains "$output" changed-profile
	refute_contains "$output" wrote-list
	refute_contains "$output" renamed
	assert_eq "$(tree_state "$HOME/.config/sbox-exec")" "$before"
	assert_absent "$prof/agent.policy"
}

@test "with --rw \"\$HOME\" the user's profile directory is read-only: no profile can be planted or changed" {
	each_user _profile_dir_ro
}

# The swap (man page PROFILES, HOST PROTECTION): the configuration
# directory renamed away, a new one made in its place with a profile that
# replaces a shipped one.  Prints what succeeded.
SWAP='cfg=$1
mv "$cfg" "$cfg.old" 2>/dev/null && echo moved-config
mv "$cfg/sbox-exec" "$cfg/sbox-exec.old" 2>/dev/null && echo moved-sbox-exec
{ mkdir -p "$cfg/sbox-exec/profiles" &&
	echo --net >"$cfg/sbox-exec/profiles/clangd.policy"; } 2>/dev/null &&
	echo planted
:'

# One layout of the user's configuration: $1 is XDG_CONFIG_HOME, or ""
# for ~/.config.
_profile_swap_in() {
	local cfg=${1:-$HOME/.config} before
	if [ -n "$1" ]; then export XDG_CONFIG_HOME=$1; else unset XDG_CONFIG_HOME; fi
	usr mkdir -p "$cfg/sbox-exec/profiles"
	echo '--no-net' | usr tee "$cfg/sbox-exec/profiles/mine.policy" >/dev/null
	# Control: unsandboxed, the user swaps the directory and plants one.
	run usr sh -c "$SWAP" sh "$cfg"
	assert_eq "$output" "moved-config
planted"
	run --separate-stderr sbx --check --json --profile clangd
	assert_eq "$(jq -r .net <<<"$output")" host
	usr rm -rf "$cfg"
	usr mv "$cfg.old" "$cfg"

	before=$(tree_state "$HOME")
	run sbx --rw "$HOME" -- sh -c "echo started; $SWAP" sh "$cfg"
	assert_status 0
	assert_eq "$output" started
	assert_eq "$(tree_state "$HOME")" "$before"
	# The next run of the shipped profile gets the shipped policy.
	run --separate-stderr sbx --check --json --profile clangd
	assert_status 0
	assert_eq "$(jq -r .net <<<"$output")" none
	refute_contains "$stderr" replaces
	usr rm -rf "$cfg"
}

_profile_swap() {
	local d
	d=$(scratch_dir)
	plant_home "$d"
	usr mkdir "$d/project"
	cd "$d/project" || return 1
	_profile_swap_in ""
	_profile_swap_in "$HOME/etc/xdg"
}

@test "with --rw \"\$HOME\" the configuration directory cannot be renamed away and a profile planted in a new one" {
	each_user _profile_swap
}

# A repository in a writable home whose git directory leads into a
# masked store: .git/hooks a link to ~/.ssh (one a sandbox with --rw .git
# could make where hooks was missing), or its configuration including a
# file there.  What git reads is made read-only where it leads; below a
# mask, that must not show what the mask hides (man page HOST
# PROTECTION).
_git_into_mask() {
	local d repo
	d=$(scratch_dir)
	plant_home "$d"
	repo=$HOME/proj
	usr git init -q "$repo"
	cd "$repo" || return 1
	control_reads_key
	usr rm -rf "$repo/.git/hooks"
	usr ln -s "$HOME/.ssh" "$repo/.git/hooks"
	run sbx --rw "$HOME" -- cat "$HOME/.ssh/id_test"
	refute_contains "$output" "$KEY"
	run sbx --rw "$HOME" --rw "$repo/.git" -- cat "$repo/.git/hooks/id_test"
	refute_contains "$output" "$KEY"
	usr rm "$repo/.git/hooks"
	usr git -C "$repo" config include.path "$HOME/.ssh/id_test"
	run sbx --rw "$HOME" -- cat "$HOME/.ssh/id_test"
	refute_contains "$output" "$KEY"
}

@test "a git entry or include that leads into ~/.ssh does not show the key in a writable home" {
	each_user _git_into_mask
}

# A symbolic link on the way to the configuration directory (a dotfiles
# layout): no mount can hold a link, so the command can point it
# elsewhere and leave a profile of its own for a later run, one that
# replaces the user's own without a word.  The launch that grants the
# link says so (man page HOST PROTECTION); -q silences it, and a grant
# that leaves the link alone says nothing.
RELINK='mkdir -p "$HOME/evil/sbox-exec/profiles" &&
	echo --allow-host=example.org >"$HOME/evil/sbox-exec/profiles/mine.policy" &&
	ln -s "$2" "$1.new" && mv -T "$1.new" "$1" && echo relinked'

_profile_link() {
	local d cfg link to
	d=$(scratch_dir)
	plant_home "$d"
	usr mkdir "$d/project"
	cd "$d/project" || return 1
	unset XDG_CONFIG_HOME
	cfg=$HOME/.config
	for link in "$cfg" "$cfg/sbox-exec"; do
		usr rm -rf "$cfg" "$HOME/dot" "$HOME/evil"
		usr mkdir -p "$HOME/dot/sbox-exec/profiles" "$cfg"
		if [ "$link" = "$cfg" ]; then
			usr rmdir "$cfg"
			usr ln -s dot "$cfg"
		else
			usr ln -s ../dot/sbox-exec "$link"
		fi
		echo --no-net | usr tee "$cfg/sbox-exec/profiles/mine.policy" >/dev/null
		to=$HOME/evil
		[ "$link" = "$cfg" ] || to=$HOME/evil/sbox-exec
		# Control: unsandboxed, the link is pointed elsewhere and the
		# user's own profile is another's, with no word.
		run usr sh -c "$RELINK" sh "$link" "$to"
		assert_eq "$output" relinked
		run --separate-stderr sbx --check --json --profile mine
		assert_status 0
		assert_eq "$(jq -r .net <<<"$output")" allow-list
		assert_eq "$stderr" ""
		usr rm -rf "$link" "$HOME/evil"
		usr ln -s "$([ "$link" = "$cfg" ] && echo dot || echo ../dot/sbox-exec)" "$link"
		# In the sandbox the same works, and stderr says it can.
		run --separate-stderr sbx --rw "$HOME" -- sh -c "$RELINK" sh "$link" "$to"
		assert_status 0
		assert_eq "$output" relinked
		assert_contains "$stderr" "sbox-exec: warning: $link is a symbolic link the command can replace (it lies in a writable grant), and with it the user's profiles and credential list in $cfg/sbox-exec;"
		usr rm -rf "$link" "$HOME/evil"
		usr ln -s "$([ "$link" = "$cfg" ] && echo dot || echo ../dot/sbox-exec)" "$link"
		# -q: nothing; a grant that cannot reach the link: nothing.
		run --separate-stderr sbx -q --rw "$HOME" -- true
		assert_status 0
		assert_eq "$stderr" ""
		run --separate-stderr sbx --rw "$d/project" -- true
		assert_status 0
		assert_eq "$stderr" ""
		run --separate-stderr sbx --check --json --profile mine
		assert_eq "$(jq -r .net <<<"$output")" none
	done
}

@test "a symbolic link on the way to the user's profile directory in a writable grant is named on stderr at launch, but with -q" {
	each_user _profile_link
}

# Where the user has no sbox-exec directory, a sandbox that writes the
# home can make one: the directories above it stay pinned, and a profile
# made there that replaces a shipped one is named at every launch.
_profile_created() {
	local d cfg
	d=$(scratch_dir)
	plant_home "$d"
	cd "$HOME" || return 1
	unset XDG_CONFIG_HOME
	cfg=$HOME/.config
	usr mkdir -p "$cfg"
	# Control: unsandboxed, ~/.config can be renamed away.
	run usr sh -c 'mv "$1" "$1.old" && mv "$1.old" "$1" && echo moved' sh "$cfg"
	assert_eq "$output" moved
	run sbx --rw "$HOME" -- sh -c "echo started; $SWAP" sh "$cfg"
	assert_status 0
	assert_eq "$output" "started
planted"
	assert_file "$cfg/sbox-exec/profiles/clangd.policy" --net
	run --separate-stderr sbx --profile clangd -- true
	assert_status 0
	assert_contains "$stderr" "sbox-exec: warning: the user's profile $cfg/sbox-exec/profiles/clangd.policy replaces the shipped profile 'clangd'"
	run --separate-stderr sbx -q --profile clangd -- true
	assert_status 0
	assert_eq "$stderr" ""
}

@test "a profile made where the user had no sbox-exec directory is named at every launch; ~/.config stays pinned" {
	each_user _profile_created
}

_profile_shadow() {
	local d prof
	d=$(scratch_dir)
	plant_home "$d"
	cd "$d" || return 1
	export XDG_CONFIG_HOME=$d/config
	prof=$XDG_CONFIG_HOME/sbox-exec/profiles
	usr mkdir -p "$prof"
	# A profile of a name that is not shipped: nothing to say.
	echo '--no-net' | usr tee "$prof/mine.policy" >/dev/null
	run --separate-stderr sbx -v --profile mine -- true
	assert_status 0
	refute_contains "$stderr" replaces
	# One that shadows the shipped agent profile, with a network (not
	# --net, which has its own warning at each run).
	echo '--allow-host=example.org' | usr tee "$prof/agent.policy" >/dev/null
	run --separate-stderr sbx -v --profile agent -- true
	assert_status 0
	assert_contains "$stderr" "the user's profile $prof/agent.policy replaces the shipped profile 'agent'"
	run --separate-stderr sbx --check --profile agent
	assert_status 0
	assert_contains "$stderr" "$prof/agent.policy replaces the shipped profile 'agent'"
	# Without -v too, at every launch: a sandbox may have put it there.
	run --separate-stderr sbx --profile agent -- true
	assert_status 0
	assert_contains "$stderr" "sbox-exec: warning: the user's profile $prof/agent.policy replaces the shipped profile 'agent' ("
	assert_eq "${#stderr_lines[@]}" 1
	# -q silences it.
	run --separate-stderr sbx -q --profile agent -- true
	assert_status 0
	assert_eq "$stderr" ""
}

@test "a user profile that shadows a shipped one is named on stderr at every launch, but with -q" {
	each_user _profile_shadow
}

# The shipped list is required (man page FILES): without it, or with a
# line that cannot be read, sbox-exec refuses instead of protecting less.
@test "the shipped credential list missing or malformed: refused (invalid-policy), the command never runs" {
	requires jq
	local d prefix bin
	d=$(scratch_dir)
	cd "$d" || return 1
	prefix=$d/prefix
	bin=$(install_sbox "$prefix")
	# Control: installed with its list, it runs.
	run "$bin" -- echo command-started
	assert_status 0
	assert_eq "$output" command-started

	rm "$prefix/share/sbox-exec/credentials"
	run "$bin" --status-fd=3 -- echo command-started 3>"$d/status"
	assert_status 125
	refute_contains "$output" command-started
	assert_contains "$output" "cannot read the shipped credential list"
	assert_eq "$(json_get "$(cat "$d/status")" status)" invalid-policy

	# shellcheck disable=SC2088 # a pattern, not a path
	printf '~/.ssh\n.relative\n' >"$prefix/share/sbox-exec/credentials"
	run "$bin" --status-fd=3 -- echo command-started 3>"$d/status"
	assert_status 125
	refute_contains "$output" command-started
	assert_contains "$output" "$prefix/share/sbox-exec/credentials:2:"
	assert_eq "$(json_get "$(cat "$d/status")" status)" invalid-policy

	mkdir "$prefix/share/sbox-exec/credentials.d"
	rm "$prefix/share/sbox-exec/credentials"
	ln -s credentials.d "$prefix/share/sbox-exec/credentials"
	run "$bin" -- echo command-started
	assert_status 125
	refute_contains "$output" command-started
}

# As root, root's home directory is masked whole unless named; a store on
# the credential list inside it stays masked when a grant names the home
# or a directory between the home and the store (HOST PROTECTION: naming
# a masked path lifts only its own mask).  The store is added by the
# user's own list, with its absolute path.
_root_home_store() {
	local d top secret
	d=$(scratch_dir)
	top=$(mktemp -d "$ROOT_HOME/sbox-test-store.XXXXXX")
	on_teardown "rm -rf $(printf %q "$top")"
	secret="sbox-test-secret-$RANDOM$RANDOM"
	mkdir -p "$top/tokens"
	printf '%s\n' "$secret" >"$top/tokens/prod"
	export HOME=$d/home
	mkdir -p "$HOME/.config/sbox-exec"
	unset XDG_CONFIG_HOME
	# Control: on no list, a grant of the home shows it.
	run sbx --ro "$ROOT_HOME" -- cat "$top/tokens/prod"
	assert_status 0
	assert_eq "$output" "$secret"

	printf '%s\n' "$top/tokens" >"$HOME/.config/sbox-exec/credentials"
	local grant
	for grant in "--ro $ROOT_HOME" "--rw $ROOT_HOME" "--ro $top" "--rw $top"; do
		# shellcheck disable=SC2086 # two words
		run sbx $grant -- sh -c 'echo started; ls -A "$1"; cat "$1/prod"' sh "$top/tokens"
		assert_contains "$output" started
		refute_contains "$output" "$secret"
		! grep -qx prod <<<"$output" || { echo "ls shows prod with $grant" >&2; return 1; }
	done
	assert_file "$top/tokens/prod" "$secret"
	# Naming the store itself shows it, as the manual says.
	run sbx --ro "$top/tokens" -- cat "$top/tokens/prod"
	assert_status 0
	assert_eq "$output" "$secret"
}

@test "as root, a store inside root's own home stays masked when a grant names the home or a directory above the store" {
	requires root
	ROOT_HOME=$(getent passwd root | cut -d: -f6)
	[ -d "$ROOT_HOME" ] && [ "$ROOT_HOME" != / ] ||
		skip_or_fail "root's home directory ($ROOT_HOME) is not a directory of its own"
	SBOX=$SBOX_EXEC AS="" _root_home_store
}
