/*
 * netproxy.h - the launcher's egress proxy for --allow-host (sbox-exec(1),
 * NETWORK BY NAME): served from outside the sandbox, on a listening
 * socket stage two made inside the sandbox's network namespace.
 */
#ifndef SBOX_NETPROXY_H
#define SBOX_NETPROXY_H

#include <stdbool.h>
#include <stddef.h>

#include "netpolicy.h"
#include "sbox.h"
#include "upstream.h"

/* The proxy's port on the sandbox's loopback: free by construction, in
 * a network namespace made for this sandbox alone. */
#define NETPROXY_PORT 3128

/* The reason of every refusal with the network off. */
#define NETPROXY_OFF "no network"

int netproxy_start(int, const struct netpolicy *, bool, bool,
    struct sbox_error *);
int netproxy_forward(int, struct sbox_error *);
bool netproxy_forwarding(void);
int netproxy_waiting(void);
void netproxy_set_idle_timeout(long long);
void netproxy_set_upstream(const struct upstream_conf *);
void netproxy_keep_fds(int *, size_t *);
void netproxy_serve(void);
void netproxy_stop(void);

#endif
