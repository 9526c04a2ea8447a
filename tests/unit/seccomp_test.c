/*
 * Unit tests of seccomp.c: the filter is run here by a small interpreter
 * of the classic-BPF instructions it uses, on made-up system calls, so
 * that every rule and the way around it is checked without a kernel.
 * (tests/escape/ checks the same rules against the kernel.)
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "seccomp.h"
#include "util.h"
#include "tap.h"

#define ALLOW SECCOMP_RET_ALLOW
#define ERRNO(e) (SECCOMP_RET_ERRNO | (e))

/* The verdict of PROG for DATA; 0xdead for an instruction it lacks. */
static uint32_t
run(const struct sock_filter *prog, size_t n, const struct seccomp_data *d)
{
	uint32_t a = 0;

	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &prog[pc];

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k + 4 > sizeof(*d))
				return 0xdead;
			memcpy(&a, (const char *)d + i->k, 4);
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & i->k) ? i->jt : i->jf;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			return 0xdead;
		}
	}
	return 0xdead; /* ran off the end */
}

static uint32_t
call(const struct sock_filter *prog, size_t n, long nr, unsigned int arg,
    uint64_t value)
{
	struct seccomp_data d = { .nr = (int)nr, .arch = AUDIT_ARCH_X86_64 };

	d.args[arg] = value;
	return run(prog, n, &d);
}

int
main(void)
{
#if defined(__x86_64__) && !defined(__ILP32__)
	struct sock_filter prog[160];
	size_t n = seccomp_build(prog, N_ELEMENTS(prog), false);
	struct seccomp_data foreign = { .nr = SYS_getpid,
		.arch = AUDIT_ARCH_I386 };
	struct {
		long nr;
		unsigned int arg;
	} modes[] = {
		{ SYS_chmod, 1 },
		{ SYS_fchmod, 1 },
		{ SYS_fchmodat, 2 },
		{ 452 /* fchmodat2 */, 2 },
		{ SYS_open, 2 },
		{ SYS_openat, 3 },
		{ SYS_creat, 1 },
		{ SYS_mknod, 1 },
		{ SYS_mknodat, 2 },
	};
	long special[] = { SYS_chmod, SYS_fchmod, SYS_fchmodat, 452, SYS_open,
		SYS_openat, SYS_creat, SYS_mknod, SYS_mknodat, SYS_add_key,
		SYS_request_key, SYS_keyctl, SYS_io_uring_setup,
		SYS_io_uring_enter, SYS_io_uring_register, 437, SYS_ioctl,
		SYS_socket, SYS_socketpair };
	static const int allowed_af[] = { AF_UNIX, AF_INET, AF_INET6,
		AF_NETLINK };
	struct sock_filter netprog[160];
	size_t nn = seccomp_build(netprog, N_ELEMENTS(netprog), true);
	bool all = true, net_same = true, families = true;

	ok(n > 0 && n < 160, "the filter builds (%zu instructions)", n);
	ok(run(prog, n, &foreign) == ERRNO(ENOSYS),
	    "another architecture's call: ENOSYS");
	ok(call(prog, n, 0x40000000 | SYS_getpid, 0, 0) == ERRNO(ENOSYS),
	    "an x32 call: ENOSYS");
	for (size_t i = 0; i < N_ELEMENTS(modes); i++) {
		ok(call(prog, n, modes[i].nr, modes[i].arg, 04755) ==
			ERRNO(EPERM),
		    "call %ld with mode 04755: EPERM", modes[i].nr);
		ok(call(prog, n, modes[i].nr, modes[i].arg, 02755) ==
			ERRNO(EPERM),
		    "call %ld with mode 02755: EPERM", modes[i].nr);
		ok(call(prog, n, modes[i].nr, modes[i].arg, S_IFREG | 0755) ==
			ALLOW,
		    "call %ld with mode 0755: allowed", modes[i].nr);
		/* The mode is looked for in its own argument only. */
		ok(call(prog, n, modes[i].nr, modes[i].arg == 1 ? 2 : 1,
		       04755) == ALLOW,
		    "call %ld with 04755 in another argument: allowed",
		    modes[i].nr);
	}
	ok(call(prog, n, SYS_keyctl, 0, 0) == ERRNO(EPERM), "keyctl: EPERM");
	ok(call(prog, n, SYS_add_key, 0, 0) == ERRNO(EPERM), "add_key: EPERM");
	ok(call(prog, n, SYS_request_key, 0, 0) == ERRNO(EPERM),
	    "request_key: EPERM");
	ok(call(prog, n, SYS_io_uring_setup, 0, 0) == ERRNO(EPERM),
	    "io_uring_setup: EPERM");
	ok(call(prog, n, SYS_io_uring_enter, 0, 0) == ERRNO(EPERM),
	    "io_uring_enter: EPERM");
	ok(call(prog, n, SYS_io_uring_register, 0, 0) == ERRNO(EPERM),
	    "io_uring_register: EPERM");
	ok(call(prog, n, 437, 0, 0) == ERRNO(ENOSYS), "openat2: ENOSYS");
	ok(call(prog, n, SYS_ioctl, 1, TIOCSTI) == ERRNO(EPERM),
	    "ioctl TIOCSTI: EPERM");
	ok(call(prog, n, SYS_ioctl, 1, 0xffffffff00000000ULL | TIOCSTI) ==
		ERRNO(EPERM),
	    "ioctl TIOCSTI with the high bits set: EPERM");
	ok(call(prog, n, SYS_ioctl, 1, TIOCLINUX) == ERRNO(EPERM),
	    "ioctl TIOCLINUX: EPERM");
	ok(call(prog, n, SYS_ioctl, 1, TIOCGWINSZ) == ALLOW,
	    "ioctl TIOCGWINSZ: allowed");

	/* Socket families, without --net. */
	for (size_t i = 0; i < N_ELEMENTS(allowed_af); i++) {
		ok(call(prog, n, SYS_socket, 0, (uint64_t)allowed_af[i]) ==
			ALLOW,
		    "socket(%d): allowed", allowed_af[i]);
		ok(call(prog, n, SYS_socketpair, 0, (uint64_t)allowed_af[i]) ==
			ALLOW,
		    "socketpair(%d): allowed", allowed_af[i]);
	}
	ok(call(prog, n, SYS_socket, 0, AF_VSOCK) == ERRNO(EAFNOSUPPORT),
	    "socket(AF_VSOCK): EAFNOSUPPORT");
	ok(call(prog, n, SYS_socketpair, 0, AF_VSOCK) == ERRNO(EAFNOSUPPORT),
	    "socketpair(AF_VSOCK): EAFNOSUPPORT");
	ok(call(prog, n, SYS_socket, 0, AF_PACKET) == ERRNO(EAFNOSUPPORT),
	    "socket(AF_PACKET): EAFNOSUPPORT");
	ok(call(prog, n, SYS_socket, 0, AF_ALG) == ERRNO(EAFNOSUPPORT),
	    "socket(AF_ALG): EAFNOSUPPORT");
	/* The way around: bits above the int the kernel reads. */
	ok(call(prog, n, SYS_socket, 0, 0xffffffff00000000ULL | AF_VSOCK) ==
		ERRNO(EAFNOSUPPORT),
	    "socket(AF_VSOCK with the high bits set): EAFNOSUPPORT");
	ok(call(prog, n, SYS_socket, 0, (1ULL << 32) | AF_UNIX) == ALLOW,
	    "socket(AF_UNIX with a high bit set, AF_UNIX to the kernel): "
	    "allowed");
	ok(call(prog, n, SYS_socket, 0, (1ULL << 32) | AF_UNIX) ==
		call(prog, n, SYS_socket, 0, AF_UNIX),
	    "the family is compared as the kernel reads it, in 32 bits");
	for (uint64_t af = 0; af < 64; af++) {
		bool want = af == AF_UNIX || af == AF_INET || af == AF_INET6 ||
		    af == AF_NETLINK;
		uint32_t got = call(prog, n, SYS_socket, 0, af);

		if (got != (want ? ALLOW : ERRNO(EAFNOSUPPORT))) {
			families = false;
			printf("# family %llu: %#x\n", (unsigned long long)af,
			    got);
		}
	}
	ok(families, "families 0 to 63: the four allowed, the rest refused");
	{
		struct seccomp_data d = { .nr = SYS_socket,
			.arch = AUDIT_ARCH_X86_64,
			.args = { AF_UNIX, AF_VSOCK, AF_VSOCK } };

		ok(run(prog, n, &d) == ALLOW,
		    "socket(AF_UNIX, ...) with AF_VSOCK's number in the other "
		    "arguments: allowed (the family is argument 0)");
	}

	/* With --net: the same filter but for the socket families. */
	ok(nn > 0 && nn < n, "the filter with --net builds (%zu instructions)",
	    nn);
	ok(call(netprog, nn, SYS_socket, 0, AF_VSOCK) == ALLOW,
	    "--net: socket(AF_VSOCK): allowed");
	ok(call(netprog, nn, SYS_socketpair, 0, AF_VSOCK) == ALLOW,
	    "--net: socketpair(AF_VSOCK): allowed");
	for (size_t i = 0; i < N_ELEMENTS(special); i++)
		for (unsigned int a = 0; a < 4; a++)
			for (int v = 0; v < 3; v++) {
				uint64_t val = v == 0 ? 04755 :
				    v == 1	      ? TIOCSTI :
							0;

				if (special[i] == SYS_socket ||
				    special[i] == SYS_socketpair)
					continue;
				if (call(netprog, nn, special[i], a, val) !=
				    call(prog, n, special[i], a, val)) {
					net_same = false;
					printf(
					    "# call %ld differs with --net\n",
					    special[i]);
				}
			}
	ok(net_same, "--net: every other rule the same");
	ok(run(netprog, nn, &foreign) == ERRNO(ENOSYS),
	    "--net: another architecture's call: ENOSYS");
	/* Everything else, whatever its arguments: allowed. */
	for (long nr = 0; nr < 1024; nr++) {
		bool is_special = false;

		for (size_t i = 0; i < N_ELEMENTS(special); i++)
			is_special |= special[i] == nr;
		if (!is_special &&
		    (call(prog, n, nr, 1, 06777) != ALLOW ||
			call(prog, n, nr, 2, 06777) != ALLOW ||
			call(prog, n, nr, 3, 06777) != ALLOW)) {
			all = false;
			printf("# call %ld is not allowed\n", nr);
		}
	}
	ok(all, "every other call from 0 to 1023 is allowed");
	ok(call(prog, n, 0x3fffffff, 1, 06777) == ALLOW,
	    "the highest number below the x32 bit: allowed");
	ok(call(prog, n, -1, 0, 0) == ERRNO(ENOSYS),
	    "call number -1 (the x32 bit set): ENOSYS");
#else
	ok(1, "# SKIP the filter is checked on x86_64 only");
#endif
	return tap_done();
}
