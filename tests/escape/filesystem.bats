#!/usr/bin/env bats
# Escape catalogue: the host file system.  SPEC "Filesystem" (only --rw
# paths and the private /tmp are writable), man page THE SANDBOX (fresh
# /dev; the seccomp filter refuses setuid and setgid bits, by chmod or by
# creating a file with such a mode, and system calls of another
# architecture).  See common.bash for the shape of every test.

# C_SRC and C_FLAGS are read by compile (SC2034).
# shellcheck disable=SC2016,SC2030,SC2031,SC2034
load common

# --- writes outside the granted directories ---------------------------

# Every way of changing DIR ($1), each reported as NAME=ok or NAME=fail.
WRITE_ATTACK='
cd "$1" || exit 9
echo started
try() {
	n=$1; shift
	if "$@" 2>/dev/null; then echo "$n=ok"; else echo "$n=fail"; fi
}
try overwrite sh -c "echo changed >victim"
try append sh -c "echo more >>victim"
try truncate truncate -s 0 victim
try chmod chmod 0600 victim
try touch touch -d 2001-01-01 victim
try create sh -c "echo new >new"
try mkdir mkdir newdir
try symlink ln -s / link
try hardlink ln victim hardlink
try remove rm -f sub/keep
try rename mv victim renamed
'
WRITE_OPS="overwrite append truncate chmod touch create mkdir symlink hardlink remove rename"

# make_victim DIR: a file and a sub-directory, owned by the pass's user.
make_victim() {
	usr sh -c 'cd "$1" && echo original >victim && mkdir sub &&
		echo keep >sub/keep' sh "$1"
}

_write_outside() {
	local rw other ctl before op
	rw=$(scratch_dir)
	other=$(scratch_dir)
	ctl=$(scratch_dir)
	make_victim "$other"
	make_victim "$ctl"
	cd "$rw" || return 1

	# Control: unsandboxed, this user changes a host dir every way.
	run usr sh -c "$WRITE_ATTACK" sh "$ctl"
	for op in $WRITE_OPS; do
		assert_contains "$output" "$op=ok"
	done
	assert_absent "$ctl/victim"

	before=$(tree_state "$other")
	run sbx --rw "$rw" -- sh -c "$WRITE_ATTACK" sh "$other"
	assert_contains "$output" started
	for op in $WRITE_OPS; do
		assert_contains "$output" "$op=fail"
	done
	assert_eq "$(tree_state "$other")" "$before"
	assert_file "$other/victim" original
}

@test "writes to a host directory that was not granted all fail and leave it unchanged" {
	each_user _write_outside
}

# --- device nodes -------------------------------------------------------

# What bwrap's fresh /dev holds, and nothing else.
BASIC_DEV="console core fd full null ptmx pts random shm stderr stdin stdout tty urandom zero"

_dev_basic() {
	local d dev name
	d=$(scratch_dir)
	cd "$d" || return 1
	# A block device of the host (a disk, a loop device...).
	for name in /sys/block/*; do
		name=${name##*/}
		if [ -b "/dev/$name" ]; then
			dev=/dev/$name
			break
		fi
	done
	[ -n "${dev:-}" ] || skip_or_fail "no block device in /dev on this host"

	# Control: unsandboxed, this user sees the host's devices.
	run usr sh -c 'test -b "$1" && ls -A /dev' sh "$dev"
	assert_status 0
	assert_contains "$output" "${dev#/dev/}"

	run sbx -- sh -c 'echo started; ls -A /dev; find /dev -type b' sh
	assert_status 0
	assert_contains "$output" started
	refute_contains "$output" "${dev#/dev/}"
	for name in "${lines[@]:1}"; do
		case " $BASIC_DEV " in
		*" $name "*) ;;
		*) echo "unexpected /dev entry inside: $name" >&2; return 1 ;;
		esac
	done
}

@test "/dev holds only the basic devices: no host disk or other device node" {
	each_user _dev_basic
}

# --- setuid and setgid bits -------------------------------------------

# assert_refused_where_control_ok CONTROL INSIDE: every NAME=ok line of
# CONTROL is NAME=fail... in INSIDE, and CONTROL has at least one.
assert_refused_where_control_ok() {
	local line name n=0
	while IFS= read -r line; do
		case $line in
		*=ok)
			name=${line%=ok}
			n=$((n + 1))
			grep -q "^$name=fail" <<<"$2" || {
				echo "inside the sandbox, $name was not refused:" >&2
				printf '%s\n' "$2" >&2
				return 1
			} ;;
		esac
	done <<<"$1"
	[ "$n" -gt 0 ] || { echo "control: no attempt worked: $1" >&2; return 1; }
}

# assert_no_setid DIR: no file below DIR has the setuid or setgid bit.
assert_no_setid() {
	local found
	found=$(find "$1" -perm /6000 -printf '%m %p\n')
	[ -z "$found" ] || {
		echo "setuid/setgid files on the host: $found" >&2
		return 1
	}
}

# The chmod family on files the command owns in DIR ($1).
CHMOD_PY='
import ctypes, os, subprocess, sys
d = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
def mk(name):
    p = os.path.join(d, name)
    open(p, "w").close()
    os.chmod(p, 0o755)
    return p
def sys_call(nr, *args):
    if libc.syscall(nr, *args) < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
def attempt(name, fn):
    try:
        fn()
        print(name + "=ok")
    except (OSError, subprocess.CalledProcessError) as e:
        print(name + "=fail " + str(e))
attempt("fchmodat", lambda: os.chmod(mk("a"), 0o4755))
attempt("fchmodat-setgid", lambda: os.chmod(mk("b"), 0o2755))
attempt("fchmod", lambda: os.fchmod(os.open(mk("c"), os.O_RDONLY), 0o4755))
attempt("fchmodat2", lambda: sys_call(452, -100, mk("d").encode(), 0o4755, 0))
attempt("chmod-u+s", lambda: subprocess.run(["chmod", "u+s", mk("e")],
        check=True, stderr=subprocess.DEVNULL))
if os.uname().machine == "x86_64":
    attempt("chmod-syscall", lambda: sys_call(90, mk("f").encode(), 0o4755))
'

# _setuid_attempt SCRIPT MARKER: SCRIPT (python) tries to put setuid and
# setgid bits on files in its directory argument; unsandboxed it succeeds
# (MARKER printed, a setuid file made), inside every attempt is refused
# and no file in the --rw dir carries either bit.
_setuid_attempt() {
	local rw ctl
	rw=$(scratch_dir)
	ctl=$(scratch_dir)
	cd "$rw" || return 1

	run usr "$PY" -c "$1" "$ctl"
	assert_status 0
	assert_contains "$output" "$2"
	[ -u "$ctl/a" ] || { echo "control: $ctl/a is not setuid" >&2; return 1; }
	local control=$output

	run sbx --rw "$rw" -- "$PY" -c "$1" "$rw"
	assert_status 0
	assert_refused_where_control_ok "$control" "$output"
	assert_no_setid "$rw"
}

_setuid_chmod() {
	_setuid_attempt "$CHMOD_PY" "fchmodat=ok"
}

@test "chmod, fchmod, fchmodat, fchmodat2 cannot set a setuid or setgid bit in a --rw dir" {
	requires python3
	each_user _setuid_chmod
}

# Creating a file with a setuid or setgid mode in DIR ($1).
CREATE_PY='
import ctypes, os, stat, sys
d = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
os.umask(0o022)
def p(name):
    return os.path.join(d, name)
def sys_call(nr, *args):
    if libc.syscall(nr, *args) < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
def tmpfile():
    fd = os.open(d, os.O_TMPFILE | os.O_WRONLY, 0o4755)
    # linkat(AT_FDCWD, "/proc/self/fd/N", AT_FDCWD, PATH, AT_SYMLINK_FOLLOW)
    if libc.linkat(-100, b"/proc/self/fd/%d" % fd, -100,
                   p("tmpfile").encode(), 0x400) < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
def attempt(name, fn):
    try:
        fn()
        print(name + "=ok")
    except OSError as e:
        print(name + "=fail " + str(e))
attempt("openat", lambda: os.open(p("a"), os.O_CREAT | os.O_WRONLY, 0o4755))
attempt("openat-setgid", lambda: os.open(p("b"), os.O_CREAT | os.O_WRONLY, 0o2755))
attempt("mknodat", lambda: os.mknod(p("c"), stat.S_IFREG | 0o4755))
attempt("o_tmpfile", tmpfile)
if os.uname().machine == "x86_64":
    attempt("open-syscall", lambda: sys_call(2, p("d").encode(), os.O_CREAT | os.O_WRONLY, 0o4755))
    attempt("creat-syscall", lambda: sys_call(85, p("e").encode(), 0o4755))
    attempt("mknod-syscall", lambda: sys_call(133, p("f").encode(), stat.S_IFREG | 0o4755, 0))
'

_setuid_create() {
	_setuid_attempt "$CREATE_PY" "openat=ok"
}

@test "open(O_CREAT), O_TMPFILE, creat and mknod cannot create a setuid or setgid file in a --rw dir" {
	requires python3
	each_user _setuid_create
}

# chmod through the i386 system call table (int $0x80) from a 64-bit
# program: argv PATH MODE (octal).  The path is copied to .bss, which a
# non-PIE executable has below 4 GiB, where a 32-bit call can point.
INT80_C='
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static char path[4096];
int main(int argc, char **argv) {
	long r;
	if (argc != 3 || strlen(argv[1]) >= sizeof(path))
		return 2;
	strcpy(path, argv[1]);
	/* 15 is chmod in the i386 table. */
	__asm__ volatile ("int $0x80" : "=a"(r)
	    : "0"(15L), "b"(path), "c"(strtol(argv[2], NULL, 8))
	    : "memory", "r8", "r9", "r10", "r11");
	if (r < 0) {
		printf("refused: %s\n", strerror((int)-r));
		return 1;
	}
	printf("changed\n");
	return 0;
}
'

_setuid_int80() {
	local rw ctl
	rw=$(scratch_dir)
	ctl=$(scratch_dir)
	cd "$rw" || return 1
	usr touch "$ctl/f" "$rw/f"

	# Control: unsandboxed, the 32-bit chmod sets the bit.
	run usr "$INT80" "$ctl/f" 4755
	if [ "$status" -ne 0 ]; then
		# A kernel without 32-bit emulation (ia32_emulation=0 or
		# CONFIG_IA32_EMULATION unset) kills the program at int $0x80:
		# the route does not exist here.  Still, nothing inside may end
		# up setuid.
		[ ! -u "$ctl/f" ] && [ "$status" -ge 128 ] ||
			{ echo "control failed without the kernel refusing int \$0x80: $output" >&2; return 1; }
		echo "# no 32-bit system calls on this kernel (the control died with $status): the route does not exist" >&3
		run sbx --rw "$rw" -- "$INT80" "$rw/f" 4755
		assert_failed "a 32-bit chmod 4755"
		assert_no_setid "$rw"
		return
	fi
	assert_eq "$output" changed
	[ -u "$ctl/f" ]

	run sbx --rw "$rw" -- "$INT80" "$rw/f" 4755
	assert_failed "a 32-bit chmod 4755"
	assert_contains "$output" refused
	assert_no_setid "$rw"
}

@test "a 32-bit chmod (int 0x80) from a 64-bit program cannot set the setuid bit" {
	[ "$(uname -m)" = x86_64 ] || skip "x86_64 only"
	requires cc
	C_SRC=$INT80_C C_FLAGS=-no-pie
	INT80=$(compile int80)
	each_user _setuid_int80
}

# Creating a file through io_uring's IORING_OP_OPENAT, with raw system
# calls (no liburing): argv PATH MODE (octal).
URING_C='
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv) {
	struct io_uring_params p;
	struct io_uring_sqe *sqes, *e;
	struct io_uring_cqe *cqe;
	unsigned *tail, *mask, *head, *cmask;
	char *sq, *cq;
	int fd;
	if (argc != 3)
		return 2;
	memset(&p, 0, sizeof(p));
	fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0) {
		printf("refused: io_uring_setup: %s\n", strerror(errno));
		return 1;
	}
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned),
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
	    IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(*cqe),
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
	    IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		printf("mmap: %s\n", strerror(errno));
		return 2;
	}
	e = &sqes[0];
	memset(e, 0, sizeof(*e));
	e->opcode = IORING_OP_OPENAT;
	e->fd = AT_FDCWD;
	e->addr = (unsigned long)argv[1];
	e->len = (unsigned)strtoul(argv[2], NULL, 8);
	e->open_flags = O_CREAT | O_EXCL | O_WRONLY;
	tail = (unsigned *)(sq + p.sq_off.tail);
	mask = (unsigned *)(sq + p.sq_off.ring_mask);
	((unsigned *)(sq + p.sq_off.array))[*tail & *mask] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS,
	    NULL, 0) < 0) {
		printf("refused: io_uring_enter: %s\n", strerror(errno));
		return 1;
	}
	head = (unsigned *)(cq + p.cq_off.head);
	cmask = (unsigned *)(cq + p.cq_off.ring_mask);
	cqe = &((struct io_uring_cqe *)(cq + p.cq_off.cqes))[*head & *cmask];
	if (cqe->res < 0) {
		printf("refused: openat: %s\n", strerror(-cqe->res));
		return 1;
	}
	printf("created\n");
	return 0;
}
'

_setuid_io_uring() {
	local rw ctl
	rw=$(scratch_dir)
	ctl=$(scratch_dir)
	cd "$rw" || return 1

	# Control: unsandboxed, io_uring creates a setuid file.
	run usr sh -c 'umask 022; exec "$@"' sh "$URING" "$ctl/f" 4755
	if [ "$status" -ne 0 ]; then
		skip_or_fail "io_uring is not available here: $output"
		return
	fi
	assert_eq "$output" created
	[ -u "$ctl/f" ]

	run sbx --rw "$rw" -- sh -c 'umask 022; exec "$@"' sh "$URING" "$rw/f" 4755
	assert_no_setid "$rw"
	assert_failed "creating a setuid file through io_uring"
	assert_contains "$output" refused
}

# The seccomp filter sees the mode of openat(2), but not the one in an
# io_uring submission queue entry.
@test "io_uring's IORING_OP_OPENAT cannot create a setuid file in a --rw dir" {
	requires cc
	C_SRC=$URING_C
	URING=$(compile uring_open)
	each_user _setuid_io_uring
}
