/*
 * hostnet.h - what the proxy of --allow-host must know of this host's
 * own network (sbox-exec(1), NETWORK BY NAME): its addresses, the
 * networks of its interfaces, and whether the kernel routes an address
 * to this host itself; and its own names.
 */
#ifndef SBOX_HOSTNET_H
#define SBOX_HOSTNET_H

#include "netpolicy.h"

int hostnet_read(struct np_host *);
int hostnet_routes_here(int, const unsigned char *);
void hostnet_names(char *, char *, size_t);

#endif
