/*
 * uring-open - create a file through io_uring's IORING_OP_OPENAT, with
 * raw system calls (no liburing).
 *
 * Usage: uring-open PATH MODE     (MODE in octal; O_CREAT | O_EXCL)
 *
 * Prints "created" and exits 0, or "refused: STEP: MESSAGE" and exits 1
 * (io_uring_setup, io_uring_enter or the openat itself); exits 2 when
 * the rings cannot be mapped.  The seccomp filter sees the mode of
 * openat(2), but not the one in a submission queue entry: this is the
 * way around it that the sandbox must close.  A test tool: it confines
 * nothing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct io_uring_params p;
	struct io_uring_sqe *sqes, *e;
	struct io_uring_cqe *cqe;
	unsigned *tail, *mask, *head, *cmask;
	char *sq, *cq;
	int fd;

	if (argc != 3)
		return 2;
	memset(&p, 0, sizeof(p));
	fd = (int)syscall(SYS_io_uring_setup, 4, &p);
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
	if (syscall(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL,
		0) < 0) {
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
