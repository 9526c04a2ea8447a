/*
 * seccomp.c - a small classic-BPF filter, written out by hand.
 *
 * Why each rule:
 * - chmod family and file creation with S_ISUID/S_ISGID in the mode: when
 *   sbox-exec runs as root, root inside is root outside without
 *   capabilities, and a setuid-root file left in a writable directory
 *   would give any local user root later.
 * - add_key, request_key, keyctl: the kernel keyrings (session, user) are
 *   not namespaced; they hold Kerberos tickets and other secrets.
 * - io_uring: its requests open and create files (with any mode) without
 *   passing through the system calls above.
 * - TIOCSTI, TIOCLINUX: pushing keystrokes into a terminal.  Only the low
 *   32 bits of the ioctl request are compared, as the kernel does, so
 *   setting high bits does not slip past (CVE-2019-10063).
 * - socket families (without --net): socket() and socketpair() for any
 *   family but AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK fail with
 *   EAFNOSUPPORT, as for a family the kernel lacks.  Families like
 *   AF_VSOCK are not confined by the network namespace: vsock reaches
 *   the host of a virtual machine.  The family is an int: only the low
 *   32 bits are compared, as the kernel reads it.
 * - other architectures' system calls (x32, i386 on x86_64): their numbers
 *   differ, so they are refused rather than mis-filtered.
 *
 * The launcher builds the program and hands it to bwrap (--seccomp),
 * which installs it on its own init process (pid 1 in the sandbox) and on
 * stage two, so that nothing inside runs without it.  Built for x86-64
 * and AArch64; elsewhere seccomp_program_fd() refuses, and no sandbox is
 * made.  MUST NOT print or exit.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "seccomp.h"
#include "util.h"

#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define DENY(e) RET(SECCOMP_RET_ERRNO | ((e)&SECCOMP_RET_DATA))

bool
seccomp_supported(void)
{
#ifdef NATIVE_ARCH
	return true;
#else
	return false;
#endif
}

#ifdef NATIVE_ARCH
/* A system call whose argument ARG (1 to 3) is a mode to check for 06000. */
struct mode_rule {
	long nr;
	unsigned int arg;
};

static const struct mode_rule mode_rules[] = {
	{ SYS_fchmod, 1 },
	{ SYS_fchmodat, 2 },
	{ SYS_fchmodat2, 2 },
	{ SYS_openat, 3 },
	{ SYS_mknodat, 2 },
#ifdef SYS_chmod
	{ SYS_chmod, 1 },
#endif
#ifdef SYS_open
	{ SYS_open, 2 },
#endif
#ifdef SYS_creat
	{ SYS_creat, 1 },
#endif
#ifdef SYS_mknod
	{ SYS_mknod, 1 },
#endif
};

static const long denied[] = {
	SYS_add_key,
	SYS_request_key,
	SYS_keyctl,
	/* io_uring opens and chmods files where this filter cannot look. */
	SYS_io_uring_setup,
	SYS_io_uring_enter,
	SYS_io_uring_register,
};

/*
 * The places a jump can go; all of them lie after every jump to them, as
 * classic BPF jumps only forward.  L_ARG1..L_ARG3 check the mode in that
 * argument.
 */
enum label {
	L_ARG1,
	L_ARG2,
	L_ARG3,
	L_IOCTL,
	L_SOCKET,
	L_EPERM,
	L_ENOSYS,
	NLABELS
};

struct prog {
	struct sock_filter *out;
	size_t n, max;
	size_t at[NLABELS]; /* where each label is, once placed */
	struct {
		size_t insn;
		enum label to;
		bool jt;
	} fix[40]; /* one per jump to a label: 26 on x86_64 */
	size_t nfix;
	bool overflow;
};

static void
emit(struct prog *p, struct sock_filter insn)
{
	if (p->n == p->max) {
		p->overflow = true;
		return;
	}
	p->out[p->n++] = insn;
}

/* A jump on K to label TO when true (JT) or when false. */
static void
jump_to(struct prog *p, unsigned short code, unsigned int k, enum label to,
    bool jt)
{
	if (p->nfix == N_ELEMENTS(p->fix)) {
		p->overflow = true;
		return;
	}
	p->fix[p->nfix].insn = p->n;
	p->fix[p->nfix].to = to;
	p->fix[p->nfix].jt = jt;
	p->nfix++;
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | code | BPF_K, k, 0, 0));
}

static void
place(struct prog *p, enum label l)
{
	p->at[l] = p->n;
}

/* A system call the filter looks at, and where it goes for it. */
struct nr_case {
	long nr;
	enum label to;
};

static int
case_cmp(const void *a, const void *b)
{
	long x = ((const struct nr_case *)a)->nr;
	long y = ((const struct nr_case *)b)->nr;

	return x < y ? -1 : x > y;
}

/*
 * A binary search over the sorted CASES by system-call number, each leaf
 * comparing a few numbers and allowing the rest: a call takes a handful
 * of steps instead of one per case.  That matters because the kernel runs
 * the filter for every system-call number when it is installed, to cache
 * which ones it always allows.
 */
static void
emit_tree(struct prog *p, const struct nr_case *cases, size_t n)
{
	size_t mid = n / 2, split;

	if (n <= 3) {
		for (size_t i = 0; i < n; i++)
			jump_to(p, BPF_JEQ, (unsigned int)cases[i].nr,
			    cases[i].to, true);
		emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
		return;
	}
	split = p->n;
	emit(p,
	    (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
		(unsigned int)cases[mid].nr, 0, 0));
	emit_tree(p, cases, mid);
	if (p->overflow || p->n - split - 1 > 255) {
		p->overflow = true;
		return;
	}
	p->out[split].jt = (unsigned char)(p->n - split - 1);
	emit_tree(p, cases + mid, n - mid);
}

/* Resolve every jump now that all labels are placed; false if one is
 * out of reach (a jump offset is 8 bits). */
static bool
resolve(struct prog *p)
{
	for (size_t i = 0; i < p->nfix; i++) {
		size_t from = p->fix[i].insn, to = p->at[p->fix[i].to];

		if (to <= from || to - from - 1 > 255)
			return false;
		if (p->fix[i].jt)
			p->out[from].jt = (unsigned char)(to - from - 1);
		else
			p->out[from].jf = (unsigned char)(to - from - 1);
	}
	return true;
}
#endif

/*
 * Write the program into OUT (room for MAX instructions) for a sandbox
 * with the host's network (NET) or without; returns its length, or 0
 * when it does not fit or the architecture is unknown.
 * Short on purpose: installing a filter costs time in proportion to its
 * length, on every launch.  Every call but the few named takes a few
 * comparisons down the search tree and is allowed.  A table that cannot
 * be built (a mode argument out of range, a call listed twice, more
 * jumps than the fix-up list holds) gives 0, and the launch is refused.
 */
#ifdef NATIVE_ARCH
/* By argument number; there is no mode in argument 0. */
static const enum label arg_label[] = { NLABELS, L_ARG1, L_ARG2, L_ARG3 };

/* The search tree over the calls the filter looks at; -1 when the table
 * cannot be built (a mode argument out of range, a call listed twice). */
static int
emit_dispatch(struct prog *p, bool net)
{
	struct nr_case cases[N_ELEMENTS(mode_rules) + N_ELEMENTS(denied) + 4];
	size_t n = 0;

	for (size_t i = 0; i < N_ELEMENTS(mode_rules); i++) {
		if (mode_rules[i].arg < 1 || mode_rules[i].arg > 3)
			return -1;
		cases[n++] = (struct nr_case){ mode_rules[i].nr,
			arg_label[mode_rules[i].arg] };
	}
	for (size_t i = 0; i < N_ELEMENTS(denied); i++)
		cases[n++] = (struct nr_case){ denied[i], L_EPERM };
	/* openat2's mode hides in a struct: refused, callers fall
	 * back to openat. */
	cases[n++] = (struct nr_case){ SYS_openat2, L_ENOSYS };
	cases[n++] = (struct nr_case){ SYS_ioctl, L_IOCTL };
	if (!net) {
		cases[n++] = (struct nr_case){ SYS_socket, L_SOCKET };
		cases[n++] = (struct nr_case){ SYS_socketpair, L_SOCKET };
	}
	qsort(cases, n, sizeof(*cases), case_cmp);
	for (size_t i = 1; i < n; i++)
		if (cases[i].nr == cases[i - 1].nr)
			return -1; /* which rule would win is unclear */
	emit_tree(p, cases, n);
	return 0;
}

/* What each label does: check a mode, an ioctl request, a socket family;
 * refuse. */
static void
emit_labels(struct prog *p, bool net)
{
	for (unsigned int a = 1; a <= 3; a++) {
		place(p, arg_label[a]);
		emit(p,
		    (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			ARG_LO(a)));
		jump_to(p, BPF_JSET, S_ISUID | S_ISGID, L_EPERM, true);
		emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
	}
	/* Only the low 32 bits of the request, as the kernel compares. */
	place(p, L_IOCTL);
	emit(p,
	    (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)));
	jump_to(p, BPF_JEQ, TIOCSTI, L_EPERM, true);
	jump_to(p, BPF_JEQ, TIOCLINUX, L_EPERM, true);
	emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
	/* The families a sandbox without --net may use; each a jump to the
	 * allow just after them. */
	place(p, L_SOCKET);
	if (!net) {
		emit(p,
		    (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			ARG_LO(0)));
		emit(p,
		    (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			AF_UNIX, 3, 0));
		emit(p,
		    (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			AF_INET, 2, 0));
		emit(p,
		    (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			AF_INET6, 1, 0));
		emit(p,
		    (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			AF_NETLINK, 0, 1));
		emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
		emit(p, (struct sock_filter)DENY(EAFNOSUPPORT));
	}
	place(p, L_EPERM);
	emit(p, (struct sock_filter)DENY(EPERM));
	place(p, L_ENOSYS);
	emit(p, (struct sock_filter)DENY(ENOSYS));
}
#endif

size_t
seccomp_build(struct sock_filter *out, size_t max, bool net)
{
#ifdef NATIVE_ARCH
	struct prog p = { .out = out, .max = max };

	emit(&p,
	    (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, arch)));
	jump_to(&p, BPF_JEQ, NATIVE_ARCH, L_ENOSYS, false);
	emit(&p,
	    (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, nr)));
#ifdef X32_BIT
	jump_to(&p, BPF_JGE, X32_BIT, L_ENOSYS, true);
#endif
	if (emit_dispatch(&p, net) < 0)
		return 0;
	emit_labels(&p, net);
	return !p.overflow && resolve(&p) ? p.n : 0;
#else
	(void)out;
	(void)max;
	(void)net;
	return 0;
#endif
}

/*
 * The filter for a sandbox with (NET) or without the host's network, as
 * bwrap's --seccomp reads it: the instructions, read to end of file from
 * a pipe.  Returns the read end (close-on-exec), or -1 with ERR set: no
 * sandbox is made without the filter, so an architecture it is not built
 * for is a refusal.
 */
int
seccomp_program_fd(bool net, struct sbox_error *err)
{
	struct sock_filter prog[160];
	size_t n = seccomp_build(prog, N_ELEMENTS(prog), net);
	cleanup_fd int rfd = -1, wfd = -1;
	int fds[2];
	ssize_t w;

	if (!seccomp_supported()) {
		struct utsname u;

		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "sbox-exec has no seccomp filter for this architecture (%s), and makes no sandbox without one",
		    uname(&u) == 0 ? u.machine : "unknown");
		sbox_error_hint(err,
		    "the filter is built for x86-64 and AArch64 (see THE SANDBOX in sbox-exec(1)); run sbox-exec on one of them");
		return -1;
	}
	/* Within PIPE_BUF: written at once, and never waits for a reader. */
	if (n == 0 || n * sizeof(*prog) > PIPE_BUF) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "the seccomp filter does not fit in a pipe (%zu instructions)",
		    n);
		return -1;
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		int e = errno;

		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "cannot prepare the launch: %s", strerror(e));
		if (sbox_errno_hint(e) != NULL)
			sbox_error_hint(err, "%s", sbox_errno_hint(e));
		return -1;
	}
	rfd = fds[0];
	wfd = fds[1];
	do
		w = write(wfd, prog, n * sizeof(*prog));
	while (w < 0 && errno == EINTR);
	if (w != (ssize_t)(n * sizeof(*prog))) {
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "cannot prepare the launch: %s",
		    w < 0 ? strerror(errno) : "a short write to a pipe");
		return -1;
	}
	return steal_fd(&rfd);
}
