/*
 * seccomp-program - write the seccomp filter sbox-exec hands to bwrap.
 *
 * Usage: seccomp-program [--net]
 *
 * The program, as bwrap's --seccomp reads it, on standard output: what a
 * line printed by sbox-exec --print expects on its --seccomp descriptor.
 */
#include "config.h"

#include <linux/filter.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "seccomp.h"

int
main(int argc, char **argv)
{
	struct sock_filter prog[160];
	bool net = argc > 1 && strcmp(argv[1], "--net") == 0;
	size_t n = seccomp_build(prog, sizeof(prog) / sizeof(*prog), net);

	if (n == 0) {
		fprintf(stderr, "seccomp-program: no filter here\n");
		return 1;
	}
	return write(STDOUT_FILENO, prog, n * sizeof(*prog)) ==
		(ssize_t)(n * sizeof(*prog)) ?
	    0 :
	    1;
}
