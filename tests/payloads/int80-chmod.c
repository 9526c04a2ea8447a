/*
 * int80-chmod - chmod through the i386 system call table (int $0x80)
 * from a 64-bit program.
 *
 * Usage: int80-chmod PATH MODE     (MODE in octal)
 *
 * Prints "changed" and exits 0, or "refused: MESSAGE" and exits 1.  A
 * kernel without 32-bit emulation kills the program at the instruction
 * (the test reads that as "the route does not exist here").  The path is
 * copied to memory below 2 GiB (MAP_32BIT), where a 32-bit call can
 * point.  Exits 77 on anything but x86_64.  A test tool: it confines
 * nothing.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__) && !defined(__ILP32__)
/* The i386 numbers, without the 64-bit ones of <sys/syscall.h>. */
#include <asm/unistd_32.h>

int
main(int argc, char **argv)
{
	char *low;
	long r;

	if (argc != 3 || strlen(argv[1]) >= 4096)
		return 2;
	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED) {
		perror("int80-chmod: mmap");
		return 2;
	}
	strcpy(low, argv[1]);
	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "0"((long)__NR_chmod), "b"(low),
			 "c"(strtol(argv[2], NULL, 8))
			 : "memory", "r8", "r9", "r10", "r11");
	if (r < 0) {
		printf("refused: %s\n", strerror((int)-r));
		return 1;
	}
	printf("changed\n");
	return 0;
}
#else
int
main(void)
{
	fprintf(stderr, "int80-chmod: x86_64 only\n");
	return 77;
}
#endif
