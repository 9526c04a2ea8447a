/*
 * netwatch.h - under --watch, the command's own TCP connects to IP
 * addresses, named when the sandbox refuses them (sbox-exec(1), DENIALS).
 */
#ifndef SBOX_NETWATCH_H
#define SBOX_NETWATCH_H

#include <sys/types.h>

/* A connect()'s address: AF_INET (an IPv4-mapped one made so) or
 * AF_INET6, in network order, and its port. */
struct netwatch_conn {
	int family;
	unsigned char addr[16];
	int port;
};

int netwatch_read(pid_t, unsigned long long, unsigned long long,
    struct netwatch_conn *);
void netwatch_decide(pid_t, int, const struct netwatch_conn *);

#endif
