/*
 * fd.c - closing every descriptor but a list, and the small helpers around
 * it.
 *
 * MUST: be async-signal-safe in fd_close_except() and
 * fd_set_inheritable(): the launcher calls them between vfork and exec.
 * MUST NOT print, exit or allocate.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

void
fd_sort(int *fds, size_t n)
{
	if (n > 1)
		qsort(fds, n, sizeof(*fds), int_cmp);
}

/*
 * Close descriptors LO to HI.  Before Linux 5.9 there is no close_range():
 * then one close() each, up to the descriptor limit (prlimit64 is a plain
 * system call, safe here too).
 */
static void
close_span(unsigned int lo, unsigned int hi)
{
	struct rlimit rl;

	if (syscall(SYS_close_range, lo, hi, 0) == 0 || errno != ENOSYS)
		return;
	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) == 0 &&
	    rl.rlim_cur < hi)
		hi = rl.rlim_cur == 0 ? 0 : (unsigned int)rl.rlim_cur - 1;
	for (unsigned int fd = lo; fd <= hi && fd < (1U << 20); fd++)
		(void)close((int)fd);
}

/* Close every descriptor above 2 but the SORTED list KEEP. */
void
fd_close_except(const int *keep, size_t n)
{
	unsigned int lo = 3;

	for (size_t i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned int)keep[i] < lo)
			continue;
		if ((unsigned int)keep[i] > lo)
			close_span(lo, (unsigned int)keep[i] - 1);
		lo = (unsigned int)keep[i] + 1;
	}
	close_span(lo, ~0U);
}

/* Close *FD unless it is -1, leave -1 there; errno is kept. */
void
fd_close(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		(void)close(*fd);
		*fd = -1;
		errno = saved;
	}
}

/* Clear FD's close-on-exec flag: it survives the exec that follows. */
int
fd_set_inheritable(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	if (flags < 0)
		return -1;
	return fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
}
