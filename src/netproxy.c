/*
 * netproxy.c - the egress proxy of --allow-host, served by the launcher
 * from outside the sandbox (sbox-exec(1), NETWORK BY NAME).
 *
 * Stage two made the listening socket inside the sandbox's network
 * namespace (127.0.0.1, NETPROXY_PORT) and passed it out on the control
 * socket; connections made inside arrive here, in the host's network
 * namespace, and are decided by netpolicy.c before anything is resolved
 * or connected.  MUST: connect only to an address netpolicy.c allowed;
 * answer every refusal with a 403 (or SOCKS5's refusal) and a net-denied
 * event; never delay the launcher's exit, nor change its signals: the
 * waiting, signal forwarding and exit mirroring of launch.c stay the main
 * thread's alone.
 *
 * Why a thread per connection: name resolution must not hold up other
 * connections, and getaddrinfo() is blocking; a thread each keeps it
 * (and connect()) in plain blocking calls, with the resolver the C
 * library already has (musl's reads /etc/hosts and /etc/resolv.conf),
 * instead of an event library and its own resolver in the launcher of
 * every sandbox.  The threads have small explicit stacks (the memory is
 * what their pages touch), every signal blocked, and are detached: when
 * the command ends the launcher exits and they end with it.  The relay is
 * a thread each way with a buffer that grows while a transfer fills it
 * (relay() says why not splice); a half-close is passed on as
 * shutdown(SHUT_WR).  MUST: every connection ends, giving back its
 * threads and descriptors, when both sides have closed, when either
 * fails, or when no byte has moved either way for --net-idle-timeout
 * (an upstream that accepts and never answers, a client that left):
 * held connections must not use up the cap for good.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "denial.h"
#include "events.h"
#include "hostnet.h"
#include "netproxy.h"
#include "netreq.h"
#include "upstream.h"
#include "util.h"

#define REQUEST_TIMEOUT_S 10 /* for the request, and to connect */
#define MAX_CONNECTIONS 1024 /* at once; more are closed at once */
/* A connection's descriptors: its two sockets, and the resolver's while
 * its name is looked up. */
#define CONN_FDS 3
#define FD_RESERVE 64 /* the launcher's own, /proc for --timeout */
#define CONN_STACK (256 * 1024)
#define PUMP_STACK (64 * 1024)
#define RELAY_MIN (16 * 1024)			/* a direction's first buffer */
#define RELAY_MAX (4 * 1024 * 1024)		/* its largest */
#define RELAY_BUDGET ((size_t)64 * 1024 * 1024) /* all growth at once */
#define RELAY_IDLE_MS 1000 /* without a byte: back to the first buffer */
/* How often a quiet direction looks at its tunnel's idle time, at most. */
#define TUNNEL_TICK_MAX_MS 5000
#define TUNNEL_TICK_MIN_MS 50
#define UPSTREAM_HEAD_MAX 8192 /* the upstream proxy's answer to CONNECT */

/* A loopback address and port served inside the sandbox on the same
 * address and port, relayed to the host's (netpolicy_forwards()). */
struct forward {
	int fd; /* listening, inside the sandbox's namespace */
	int family;
	unsigned char addr[16];
	int port;
};

static struct {
	int fd; /* listening, inside the sandbox's namespace */
	struct forward fwd[NETPOLICY_MAX_FORWARDS];
	size_t nfwd;
	struct netpolicy np; /* our own copy: the caller's is freed first */
	bool verbose;
	bool off;	     /* the network off: every request refused */
	bool serving;	     /* the accept thread runs */
	atomic_bool stopped; /* the command has ended: no more events */
	atomic_int active;
	atomic_bool at_cap; /* said on --log-fd; again below 3/4 of it */
	long long idle_ms;  /* --net-idle-timeout */
	atomic_size_t relay_growth; /* the buffers' bytes above RELAY_MIN */
	int max_active;	     /* MAX_CONNECTIONS, or fewer by RLIMIT_NOFILE */
	pthread_attr_t attr; /* a connection's thread: detached */
	pthread_attr_t pump_attr; /* its relay's second thread: joined */
	struct upstream_conf up;  /* --upstream-proxy, or none */
} px = {
	.fd = -1,
};

/* One connection's state while it is decided. */
struct conn {
	int client, up;
	struct netreq r;
	char why[512];
	char addr[INET6_ADDRSTRLEN];
	char refused_addr[INET6_ADDRSTRLEN]; /* a name's address refused */
	bool denied;	     /* refused by the list, not failed */
	bool late;	     /* the upstream proxy did not answer in time */
	bool own_name;	     /* refused as a name of this host (check_here) */
	unsigned char socks; /* SOCKS5's reply code for the refusal */
	char name[NETPOLICY_NAME_MAX + 3]; /* the host decided on */
	const struct upstream *via;	   /* the upstream proxy, or NULL */
	const struct forward *fwd;	   /* served on the loopback, or NULL */
	unsigned char early[UPSTREAM_HEAD_MAX]; /* its bytes after its head */
	size_t nearly;
};

/* A connection accepted, for its thread: from a forward's listener
 * (FWD), or from the proxy's (NULL). */
struct accepted {
	int fd;
	const struct forward *fwd;
};

static void
set_timeout(int fd, int opt, int seconds)
{
	struct timeval tv = { .tv_sec = seconds };

	(void)setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

static void
set_timeout_ms(int fd, int opt, long long ms)
{
	struct timeval tv = { .tv_sec = (time_t)(ms / 1000),
		.tv_usec = (suseconds_t)(ms % 1000 * 1000) };

	(void)setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

static int
send_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read more of the request into IN (LEN so far, CAP at most), by the
 * deadline.  -1 at the end, an error or the deadline. */
static int
read_more(int fd, unsigned char *in, size_t *len, size_t cap, long deadline)
{
	ssize_t n;

	if (*len >= cap || util_now_ms() > deadline)
		return -1;
	do
		n = recv(fd, in + *len, cap - *len, 0);
	while (n < 0 && errno == EINTR && util_now_ms() <= deadline);
	if (n <= 0)
		return -1;
	*len += (size_t)n;
	return 0;
}

/*
 * The -v line and the event for C's decision.  Events never wait for the
 * channel (a flood of refusals must not cost the "exit" event, EVENTS in
 * sbox-exec(1)); after "exit" the channel is closed and they are dropped.
 */
static void
report(const struct conn *c, bool allowed)
{
	struct event ev;

	if (!allowed || px.verbose) {
		event_start(&ev,
		    allowed	  ? "net-allowed" :
			c->denied ? "net-denied" :
				    "net-failed");
		event_str(&ev, "host", c->r.host);
		event_int(&ev, "port", c->r.port);
		if (c->via != NULL)
			event_str(&ev, "upstream", c->via->shown);
		if (allowed)
			event_str(&ev, "address", c->addr);
		else
			event_str(&ev, "reason", c->why);
		event_emit_nowait(&ev);
	}
	/* Every refusal and failure is a denial (denial.h), said once;
	 * -v adds the allowed ones. */
	if (!allowed && c->r.host[0] != '\0' && !atomic_load(&px.stopped))
		denial_net(c->r.host, c->r.port, c->denied, c->own_name, c->why,
		    c->refused_addr);
	/* After the command's end, silence on stderr too.  Not under a
	 * lock: a write to a full stderr must not hold up the exit. */
	if (px.verbose && allowed && !atomic_load(&px.stopped)) {
		cleanup_buf struct buf host = { 0 };
		cleanup_buf struct buf why = { 0 };
		cleanup_free char *line = NULL;
		cleanup_free char *text = c->via != NULL ?
		    xasprintf("through the upstream proxy %s, %s",
			c->via->shown, c->addr) :
		    xstrdup(c->addr);

		/* One line: the name is the command's, \n included. */
		util_line_safe(&host, c->r.host, strlen(c->r.host));
		util_line_safe(&why, text, strlen(text));
		line =
		    xasprintf("sbox-exec: network: allowed %s port %d (%s)\n",
			host.s ? host.s : "", c->r.port, why.s ? why.s : "");
		(void)!write(STDERR_FILENO, line, strlen(line));
	}
}

/* The bytes of AI's address. */
static const unsigned char *
ai_bytes(const struct addrinfo *ai)
{
	if (ai->ai_family == AF_INET)
		return (const unsigned char *)&(
		    (struct sockaddr_in *)ai->ai_addr)
		    ->sin_addr;
	return (const unsigned char *)&((struct sockaddr_in6 *)ai->ai_addr)
	    ->sin6_addr;
}

/*
 * Judge AI's address for C, reached for a name (BY_NAME) or asked for as
 * an address, with HOST this host's addresses and networks (the
 * address is added to them when the kernel delivers it here): NULL when
 * it may be connected to, or the reason it may not; NULL with *ERR set
 * when the kernel could not be asked.
 */
static const char *
judge(const struct conn *c, struct np_host *host, const struct addrinfo *ai,
    bool by_name, int *err)
{
	const unsigned char *a = ai_bytes(ai);
	int here = by_name ? hostnet_routes_here(ai->ai_family, a) : 0;

	*err = 0;
	if (here < 0) {
		*err = errno;
		return NULL;
	}
	if (here > 0)
		netpolicy_host_add(host, ai->ai_family, a,
		    ai->ai_family == AF_INET ? 32 : 128, false);
	return netpolicy_check_addr(&px.np, ai->ai_family, a, c->r.port,
	    by_name, host);
}

/* What C's client and the events are told: REFUSED (an address's
 * reason), or else the error LAST. */
static void
say_refused(struct conn *c, const char *refused, int last, bool by_name)
{
	/* No address at all (getaddrinfo gives none on success): failed. */
	if (refused == NULL && last == 0)
		last = EADDRNOTAVAIL;
	c->denied = last == 0;
	c->socks = c->denied ? 2 : last == ECONNREFUSED ? 5 : 4;
	if (c->denied && by_name &&
	    strcmp(refused, "denied by --deny-host") == 0)
		snprintf(c->why, sizeof(c->why),
		    "resolves to an address denied by --deny-host");
	else if (c->denied && by_name &&
	    (strncmp(refused, "this ", 5) == 0 ||
		strncmp(refused, "an ", 3) == 0))
		snprintf(c->why, sizeof(c->why), "resolves to %s", refused);
	else if (c->denied && by_name)
		snprintf(c->why, sizeof(c->why), "resolves to a %s", refused);
	else if (c->denied)
		snprintf(c->why, sizeof(c->why), "%s", refused);
	else if (last == EINPROGRESS || last == EAGAIN)
		/* SO_SNDTIMEO's end of a connect() nobody answered. */
		snprintf(c->why, sizeof(c->why),
		    "cannot connect: no answer within %d s", REQUEST_TIMEOUT_S);
	else
		snprintf(c->why, sizeof(c->why), "cannot connect: %s",
		    strerror(last));
}

/* This host's addresses and networks, into HOST; -1 with C->why (a
 * failure) when they cannot be read: what cannot be judged is not
 * connected to. */
static int
read_host(struct conn *c, struct np_host *host)
{
	if (hostnet_read(host) == 0)
		return 0;
	c->denied = false;
	c->socks = 1;
	snprintf(c->why, sizeof(c->why),
	    "cannot read this host's addresses: %s", strerror(errno));
	return -1;
}

/* Try AI's addresses allowed for C; the connected socket, or -1 with
 * C->why set.  Each is judged before anything is connected, this host's
 * own addresses and networks included (hostnet.c): a refused address
 * sees no connection, whether or not something listens there. */
static int
connect_allowed(struct conn *c, const struct addrinfo *ai, bool by_name)
{
	cleanup_host struct np_host host = { 0 };
	const char *refused = NULL;
	int last = 0;

	if (by_name && read_host(c, &host) < 0)
		return -1;
	for (; ai != NULL; ai = ai->ai_next) {
		int fd, err;
		const char *why = judge(c, &host, ai, by_name, &err);

		if (err != 0) {
			last = err;
			continue;
		}
		if (why != NULL) {
			refused = why;
			inet_ntop(ai->ai_family, ai_bytes(ai), c->refused_addr,
			    sizeof(c->refused_addr));
			continue;
		}
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			last = errno;
			continue;
		}
		set_timeout(fd, SO_SNDTIMEO, REQUEST_TIMEOUT_S);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
			last = errno;
			close(fd);
			continue;
		}
		inet_ntop(ai->ai_family, ai_bytes(ai), c->addr,
		    sizeof(c->addr));
		return fd;
	}
	say_refused(c, refused, last, by_name);
	return -1;
}

/*
 * Before C's name goes to an upstream proxy unresolved, the checks of a
 * direct connection that can be made here (sbox-exec(1), Upstream
 * proxy): a name that means this host (netpolicy_this_host()) is
 * refused, whatever it resolves to and whatever address entries say (the
 * upstream proxy resolves it to its own host, or to ours); and where the
 * name resolves here, every address it resolves to is judged as
 * connect_allowed() judges it (the upstream proxy resolves it again and
 * may take any of them).  A name that does not resolve here is the
 * upstream proxy's to resolve.  The reason is a direct connection's
 * ("resolves to a loopback address") where the name resolves here to a
 * refused address.  0, or -1 with C->why.
 */
static int
check_here(struct conn *c)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	cleanup_host struct np_host host = { 0 };
	char name[NETPOLICY_NAME_MAX + 1], fqdn[NETPOLICY_NAME_MAX + 1];
	const char *refused = NULL, *own[] = { name, fqdn }, *named;
	int err = 0;

	hostnet_names(name, fqdn, sizeof(name));
	named = netpolicy_this_host(c->name, own, N_ELEMENTS(own));
	if (getaddrinfo(c->name, NULL, &hints, &ai) == 0) {
		if (read_host(c, &host) < 0) {
			freeaddrinfo(ai);
			return -1;
		}
		for (const struct addrinfo *a = ai;
		     a != NULL && refused == NULL && err == 0; a = a->ai_next)
			if ((refused = judge(c, &host, a, true, &err)) != NULL)
				inet_ntop(a->ai_family, ai_bytes(a),
				    c->refused_addr, sizeof(c->refused_addr));
		freeaddrinfo(ai);
	}
	if (refused == NULL && err == 0)
		refused = named;
	if (refused == NULL && err == 0)
		return 0;
	c->own_name = named != NULL && refused != NULL;
	say_refused(c, refused, err, true);
	return -1;
}

/* The N bytes of S, printable ASCII only, into OUT (SIZE bytes). */
static void
printable_copy(char *out, size_t size, const unsigned char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < size; i++)
		out[o++] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
	out[o] = '\0';
}

/*
 * Ask upstream proxy U, connected on FD, for a tunnel to C's host: a
 * CONNECT with the name as asked (it is resolved there, not here) and
 * the credentials.  0, with any bytes after its answer in C->early; or
 * -1 with C->why.
 */
static int
upstream_tunnel(struct conn *c, int fd, const struct upstream *u)
{
	cleanup_buf struct buf req = { 0 };
	unsigned char *in = c->early;
	long deadline = util_now_ms() + REQUEST_TIMEOUT_S * 1000L;
	size_t len = 0, end = 0;
	const char *v6 = strchr(c->name, ':') != NULL ? "[" : "";
	char reason[64];
	int code = 0, rc;

	buf_addf(&req, "CONNECT %s%s%s:%d HTTP/1.1\r\nHost: %s%s%s:%d\r\n", v6,
	    c->name, *v6 ? "]" : "", c->r.port, v6, c->name, *v6 ? "]" : "",
	    c->r.port);
	if (u->auth != NULL)
		buf_addf(&req, "Proxy-Authorization: %s\r\n", u->auth);
	buf_adds(&req, "\r\n");
	rc = send_all(fd, req.s, req.len);
	explicit_bzero(req.s, req.len);
	set_timeout(fd, SO_RCVTIMEO, REQUEST_TIMEOUT_S);
	while (rc == 0 && end == 0) {
		size_t before = len;

		errno = 0;
		if (read_more(fd, in, &len, sizeof(c->early) - 1, deadline) <
		    0) {
			c->late = len == before &&
			    (errno == EAGAIN || errno == EWOULDBLOCK ||
				util_now_ms() > deadline);
			rc = -1;
			break;
		}
		for (size_t i = 3; i < len && end == 0; i++)
			if (memcmp(in + i - 3, "\r\n\r\n", 4) == 0)
				end = i + 1;
	}
	c->socks = 1;
	if (rc < 0) {
		c->socks = c->late ? 4 : 1;
		snprintf(c->why, sizeof(c->why),
		    c->late ?
			"the upstream proxy %s did not answer within %d s" :
			"the upstream proxy %s closed the connection",
		    u->shown, REQUEST_TIMEOUT_S);
		return -1;
	}
	if (end < 13 || memcmp(in, "HTTP/1.", 7) != 0 || in[8] != ' ' ||
	    sscanf((char *)in + 9, "%3d", &code) != 1) {
		snprintf(c->why, sizeof(c->why),
		    "the upstream proxy %s answered something other than HTTP",
		    u->shown);
		return -1;
	}
	if (code / 100 != 2) {
		size_t n = strcspn((char *)in + 12, "\r\n");

		printable_copy(reason, sizeof(reason), in + 12,
		    n < end - 12 ? n : end - 12);
		snprintf(c->why, sizeof(c->why),
		    "the upstream proxy %s answered %d%s", u->shown, code,
		    reason);
		return -1;
	}
	memmove(in, in + end, len - end);
	c->nearly = len - end;
	return 0;
}

/*
 * Connect C through upstream proxy U: its name resolved and connected
 * without the checks of connect_allowed() (it is the user's own proxy,
 * often on this host or its network), then, for a tunnel, its CONNECT.
 * C->up, or -1 with C->why: a failure, never a refusal.
 */
static int
via_upstream(struct conn *c, const struct upstream *u)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICSERV },
			*ai = NULL;
	char port[8];
	int fd = -1, rc, last = EADDRNOTAVAIL;

	c->via = u;
	c->denied = false;
	c->socks = 4;
	snprintf(port, sizeof(port), "%d", u->port);
	rc = getaddrinfo(u->host, port, &hints, &ai);
	if (rc != 0) {
		snprintf(c->why, sizeof(c->why),
		    "the upstream proxy %s: cannot resolve it: %s", u->shown,
		    gai_strerror(rc));
		return -1;
	}
	for (const struct addrinfo *a = ai; a != NULL; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			last = errno;
			continue;
		}
		set_timeout(fd, SO_SNDTIMEO, REQUEST_TIMEOUT_S);
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
			inet_ntop(a->ai_family,
			    a->ai_family == AF_INET ?
				(const void *)&(
				    (struct sockaddr_in *)a->ai_addr)
				    ->sin_addr :
				(const void *)&(
				    (struct sockaddr_in6 *)a->ai_addr)
				    ->sin6_addr,
			    c->addr, sizeof(c->addr));
			break;
		}
		last = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		c->socks = last == ECONNREFUSED ? 5 : 4;
		c->late = last == EINPROGRESS || last == ETIMEDOUT ||
		    last == EAGAIN;
		if (c->late)
			snprintf(c->why, sizeof(c->why),
			    "the upstream proxy %s: cannot connect: no answer within %d s",
			    u->shown, REQUEST_TIMEOUT_S);
		else
			snprintf(c->why, sizeof(c->why),
			    "the upstream proxy %s: cannot connect: %s",
			    u->shown, strerror(last));
		return -1;
	}
	if (c->r.kind != NETREQ_HTTP && upstream_tunnel(c, fd, u) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The upstream proxy C's request goes through, or NULL: none, or
 * NO_PROXY names C's host (the name as asked, never an address it
 * resolves to). */
static const struct upstream *
upstream_for(const struct conn *c)
{
	const struct upstream *u = c->r.kind == NETREQ_HTTP ? &px.up.plain :
							      &px.up.tunnel;

	if (u->host[0] == '\0' || upstream_bypass(px.up.no_proxy, c->name))
		return NULL;
	return u;
}

/* Whether the address C asked for is allowed (its text in C->name):
 * through an upstream proxy, the check connect_allowed() makes here. */
static const char *
check_literal(const struct conn *c)
{
	unsigned char a[16];
	int family = inet_pton(AF_INET, c->name, a) == 1 ? AF_INET : AF_INET6;

	if (family == AF_INET6 && inet_pton(AF_INET6, c->name, a) != 1)
		return "not a host name or address";
	return netpolicy_check_addr(&px.np, family, a, c->r.port, false, NULL);
}

/* Decide C's request and connect; C->up, or -1 with C->why. */
static int
decide(struct conn *c)
{
	char *host = c->name, port[8];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int kind = netpolicy_host(c->r.host, host, sizeof(c->name)), rc;
	const struct upstream *u = NULL;
	const char *why = NULL;

	c->denied = true;
	c->socks = 2;
	if (kind < 0)
		why = "not a host name or address";
	else if (px.off)
		why = NETPROXY_OFF;
	else if (kind == 0)
		why = netpolicy_check_name(&px.np, host, c->r.port);
	if (why == NULL && (u = upstream_for(c)) != NULL && kind == 1)
		why = check_literal(c);
	if (why != NULL) {
		snprintf(c->why, sizeof(c->why), "%s", why);
		return -1;
	}
	/* Decided on the name, and on what it resolves to here: the
	 * upstream proxy resolves it again. */
	if (u != NULL && kind == 0 && check_here(c) < 0)
		return -1;
	if (u != NULL)
		return c->up = via_upstream(c, u);
	hints.ai_flags = AI_NUMERICSERV | (kind == 1 ? AI_NUMERICHOST : 0);
	snprintf(port, sizeof(port), "%d", c->r.port);
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc != 0) {
		c->denied = false;
		c->socks = 4;
		snprintf(c->why, sizeof(c->why), "cannot resolve: %s",
		    gai_strerror(rc));
		return -1;
	}
	c->up = connect_allowed(c, ai, kind == 0);
	freeaddrinfo(ai);
	return c->up;
}

/* The refusal of an HTTP request: STATUS and C's reason. */
static void
http_refuse(const struct conn *c, const char *status)
{
	cleanup_free char *body = xasprintf("sbox-exec: %s port %d: %s\n",
	    c->r.host[0] != '\0' ? c->r.host : "request", c->r.port, c->why);
	cleanup_free char *msg = xasprintf(
	    "HTTP/1.1 %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
	    status, strlen(body), body);

	(void)send_all(c->client, msg, strlen(msg));
}

static void
socks_reply(int fd, unsigned char code)
{
	unsigned char r[10] = { 5, code, 0, 1 };

	(void)send_all(fd, r, sizeof(r));
}

/* Read the request of C: SOCKS5 or HTTP.  0, or -1 (answered). */
static int
read_request(struct conn *c, unsigned char *in, size_t *len, size_t cap)
{
	long deadline = util_now_ms() + REQUEST_TIMEOUT_S * 1000L;
	enum netreq_state st = NETREQ_MORE;
	unsigned char hello[2] = { 5, 0 };
	size_t used = 0;

	if (read_more(c->client, in, len, cap, deadline) < 0)
		return -1;
	if (in[0] != 5) {
		while (
		    (st = netreq_http((char *)in, *len, &c->r)) == NETREQ_MORE)
			if (read_more(c->client, in, len, cap, deadline) < 0)
				return -1;
		if (st == NETREQ_DONE)
			return 0;
		snprintf(c->why, sizeof(c->why), "%s", c->r.why);
		http_refuse(c, "400 Bad Request");
		return -1;
	}
	while ((st = netreq_socks_hello(in, *len, &used)) == NETREQ_MORE)
		if (read_more(c->client, in, len, cap, deadline) < 0)
			return -1;
	hello[1] = st == NETREQ_DONE ? 0 : 0xff;
	(void)send_all(c->client, hello, sizeof(hello));
	if (st != NETREQ_DONE)
		return -1;
	memmove(in, in + used, *len - used);
	*len -= used;
	while ((st = netreq_socks(in, *len, &c->r)) == NETREQ_MORE)
		if (read_more(c->client, in, len, cap, deadline) < 0)
			return -1;
	if (st == NETREQ_BAD)
		socks_reply(c->client, c->r.reply);
	return st == NETREQ_DONE ? 0 : -1;
}

/*
 * C's plain HTTP request to the upstream proxy: its head (origin form,
 * netreq.c) back in absolute form, with the upstream's credentials after
 * the request line.
 */
static int
send_absolute(const struct conn *c)
{
	cleanup_buf struct buf b = { 0 };
	const char *head = c->r.head.s, *sp = strchr(head, ' '),
		   *eol = strstr(head, "\r\n");
	const char *v6 = strchr(c->name, ':') != NULL ? "[" : "";
	int rc;

	if (sp == NULL || eol == NULL || sp > eol)
		return -1;
	buf_add(&b, head, (size_t)(sp + 1 - head));
	buf_addf(&b, "http://%s%s%s:%d", v6, c->name, *v6 ? "]" : "",
	    c->r.port);
	buf_add(&b, sp + 1, (size_t)(eol + 2 - (sp + 1)));
	if (c->via->auth != NULL)
		buf_addf(&b, "Proxy-Authorization: %s\r\n", c->via->auth);
	buf_adds(&b, eol + 2);
	rc = send_all(c->up, b.s, b.len);
	explicit_bzero(b.s, b.len);
	return rc;
}

/* Tell C's client the outcome; 0 when the relay may start. */
static int
answer(struct conn *c)
{
	static const char
	    established[] = "HTTP/1.1 200 Connection established\r\n\r\n";

	report(c, c->up >= 0);
	if (c->up < 0) {
		if (c->r.kind == NETREQ_SOCKS5)
			socks_reply(c->client, c->socks);
		else
			http_refuse(c,
			    c->denied	? "403 Forbidden" :
				c->late ? "504 Gateway Timeout" :
					  "502 Bad Gateway");
		return -1;
	}
	switch (c->r.kind) {
	case NETREQ_CONNECT:
		if (send_all(c->client, established, sizeof(established) - 1) <
		    0)
			return -1;
		return send_all(c->client, c->early, c->nearly);
	case NETREQ_SOCKS5:
		socks_reply(c->client, 0);
		return send_all(c->client, c->early, c->nearly);
	case NETREQ_HTTP:
		if (c->via != NULL)
			return send_absolute(c);
		return send_all(c->up, c->r.head.s, c->r.head.len);
	}
	return -1;
}

/*
 * One direction of a relay: SRC's bytes to DST through a buffer that
 * starts at RELAY_MIN and doubles each time a read fills it, up to
 * RELAY_MAX while the relays' growth together stays within RELAY_BUDGET,
 * and goes back to the first after RELAY_IDLE_MS without a byte.  A slow
 * or quiet connection keeps the small buffer (and touches only the pages
 * its reads fill); a bulk transfer moves up to 4 MiB per system call,
 * which is what made it fast (see relay()).
 */
struct tunnel {
	atomic_llong last; /* when a byte last moved, either way */
};

struct pump {
	struct tunnel *t;
	struct conn *proxied; /* plain HTTP through an upstream: its answer */
	long long limit;      /* bytes still to pass on, or -1: no end */
	int src, dst;
	unsigned char *first; /* RELAY_MIN bytes on the relay's stack */
	unsigned char *buf;   /* FIRST, or a grown buffer of CAP bytes */
	size_t cap;
};

/* A grown buffer of CAP bytes, mapped on its own so that only the pages
 * a read fills are resident and all of it goes back when unmapped. */
static unsigned char *
buf_map(size_t cap)
{
	void *b = mmap(NULL, cap, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return b == MAP_FAILED ? NULL : b;
}

/* Double P's buffer if the budget allows; its bytes have been sent. */
static void
pump_grow(struct pump *p)
{
	unsigned char *bigger;

	if (p->cap >= RELAY_MAX)
		return;
	if (atomic_fetch_add(&px.relay_growth, p->cap) + p->cap >
	    RELAY_BUDGET) {
		atomic_fetch_sub(&px.relay_growth, p->cap);
		return;
	}
	if ((bigger = buf_map(p->cap * 2)) == NULL) {
		atomic_fetch_sub(&px.relay_growth, p->cap);
		return;
	}
	if (p->buf != p->first)
		(void)munmap(p->buf, p->cap);
	p->buf = bigger;
	p->cap *= 2;
}

/* Back to P's first buffer, the growth given back. */
static void
pump_shrink(struct pump *p)
{
	if (p->buf == p->first)
		return;
	(void)munmap(p->buf, p->cap);
	atomic_fetch_sub(&px.relay_growth, p->cap - RELAY_MIN);
	p->buf = p->first;
	p->cap = RELAY_MIN;
}

/* Whether FD has something to read (or an error to say) within MS. */
static bool
readable_within(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) != 0;
}

/*
 * The first N bytes from an upstream proxy that a plain HTTP request went
 * through: its 407 (the credentials missing or wrong) is the upstream's
 * failure, answered as one (502 and a net-failed event), not passed on as
 * if the sandbox's own proxy asked it for credentials.  Any other answer
 * is the origin's (a 5xx may be either's: it passes).
 */
static bool
upstream_refused(struct pump *p, size_t n)
{
	struct conn *c = p->proxied;

	p->proxied = NULL;
	if (n < 12 || memcmp(p->buf, "HTTP/1.", 7) != 0 ||
	    memcmp(p->buf + 8, " 407", 4) != 0)
		return false;
	snprintf(c->why, sizeof(c->why),
	    "the upstream proxy %s answered 407 Proxy Authentication Required",
	    c->via->shown);
	c->denied = false;
	report(c, false);
	http_refuse(c, "502 Bad Gateway");
	return true;
}

/*
 * Move P's bytes until its source ends, then pass the half-close on.  On
 * an error, and when no byte has moved either way for the idle timeout
 * (recv() wakes up every tick to look; a send() that moves nothing for
 * that long fails), both sockets are shut down, which ends the other
 * direction's blocking recv() too.
 */
static void
pump_run(struct pump *p)
{
	for (;;) {
		ssize_t n;
		size_t want = p->cap;

		/* A plain HTTP request's body passed on whole: what the
		 * client sends after it (a second request, for any host) is
		 * never read. */
		if (p->limit == 0)
			return;
		if (p->limit > 0 && (long long)want > p->limit)
			want = (size_t)p->limit;
		if (p->buf != p->first &&
		    !readable_within(p->src, RELAY_IDLE_MS))
			pump_shrink(p);
		n = recv(p->src, p->buf, want, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
		    util_now_ms() - atomic_load(&p->t->last) < px.idle_ms)
			continue;
		if (n == 0) {
			(void)shutdown(p->dst, SHUT_WR);
			return;
		}
		if (n < 0)
			break;
		atomic_store(&p->t->last, util_now_ms());
		if (p->proxied != NULL && upstream_refused(p, (size_t)n))
			break;
		if (send_all(p->dst, p->buf, (size_t)n) < 0)
			break;
		if (p->limit > 0)
			p->limit -= n;
		atomic_store(&p->t->last, util_now_ms());
		if ((size_t)n == p->cap)
			pump_grow(p);
	}
	(void)shutdown(p->src, SHUT_RDWR);
	(void)shutdown(p->dst, SHUT_RDWR);
}

static void *
pump_main(void *arg)
{
	pump_run(arg);
	return NULL;
}

/*
 * Relay between A and B until both directions are closed: this thread
 * one way, a second (with a smaller stack) the other, each in blocking
 * calls, which measured faster than one thread polling both.
 *
 * Why recv() and send() through a buffer and not splice(2) through a
 * pipe: measured with 4 GiB from a loopback server (scripts/net-bench.py,
 * 2 cores, kernel 6.18), splicing moved 1.3 GB/s for 1.7 CPU-seconds of
 * the launcher, this 2.5 GB/s for 1.2.  A user's pipe holds at most 1 MiB
 * (fs.pipe-max-size) and splicing a socket moves its pages one reference
 * at a time; on loopback what costs is wake-ups and packets, not copying
 * bytes that are still in the cache, so the larger batch wins.
 */
static void
relay(struct conn *c, int a, int b, long long limit)
{
	/* The first buffers are on this thread's stack: a connection that
	 * never fills them costs no system call and the pages it touches. */
	unsigned char first[2][RELAY_MIN];
	struct tunnel t = { .last = util_now_ms() };
	struct pump p[2] = { { .t = &t, .limit = limit, .src = a, .dst = b },
		{ .t = &t, .limit = -1, .src = b, .dst = a } };
	pthread_t back;
	long long tick = px.idle_ms / 4;

	if (tick > TUNNEL_TICK_MAX_MS)
		tick = TUNNEL_TICK_MAX_MS;
	if (tick < TUNNEL_TICK_MIN_MS)
		tick = TUNNEL_TICK_MIN_MS;
	for (int i = 0; i < 2; i++) {
		set_timeout_ms(i ? b : a, SO_RCVTIMEO, tick);
		set_timeout_ms(i ? b : a, SO_SNDTIMEO, px.idle_ms);
	}

	for (int i = 0; i < 2; i++) {
		p[i].first = p[i].buf = first[i];
		p[i].cap = RELAY_MIN;
	}
	if (c->via != NULL && c->r.kind == NETREQ_HTTP)
		p[1].proxied = c;
	if (pthread_create(&back, &px.pump_attr, pump_main, &p[1]) == 0) {
		pump_run(&p[0]);
		pthread_join(back, NULL);
	}
	pump_shrink(&p[0]);
	pump_shrink(&p[1]);
}

/* A connection has ended: one fewer at once. */
static void
conn_done(void)
{
	/* Said again when reached again after falling to 3/4 of it. */
	if (atomic_fetch_sub(&px.active, 1) - 1 <=
	    px.max_active - px.max_active / 4)
		atomic_store(&px.at_cap, false);
}

/* A connection from the proxy's listener: the request, the decision,
 * the relay. */
static void
serve_request(struct conn *c)
{
	unsigned char in[NETREQ_HEAD_MAX + 1];
	size_t len = 0;

	set_timeout(c->client, SO_RCVTIMEO, REQUEST_TIMEOUT_S);
	if (read_request(c, in, &len, NETREQ_HEAD_MAX) == 0) {
		size_t early = len - c->r.used;
		long long rest = -1;

		(void)decide(c);
		/* What came after the request goes on first: the start of
		 * a TLS handshake, a request's body.  A plain HTTP request
		 * ends with its body: one request a connection, for the
		 * host decided on. */
		if (c->r.kind == NETREQ_HTTP) {
			if ((long long)early > c->r.body)
				early = (size_t)c->r.body;
			rest = c->r.body - (long long)early;
		}
		if (answer(c) == 0 &&
		    send_all(c->up, in + c->r.used, early) == 0)
			relay(c, c->client, c->up, rest);
	}
}

/*
 * A connection refused before its request was read: over the limit.  The
 * first refusal at the cap also says the cap (EVENTS in sbox-exec(1)).
 */
static void
too_many(void)
{
	struct event ev;

	if (!atomic_exchange(&px.at_cap, true)) {
		event_start(&ev, "net-limit");
		event_int(&ev, "connections", px.max_active);
		event_int(&ev, "idle_timeout_ms", px.idle_ms);
		event_emit_nowait(&ev);
	}
	event_start(&ev, "net-denied");
	event_str(&ev, "reason", "too many connections");
	event_emit_nowait(&ev);
}

/*
 * The launcher's descriptors are the relay's: raise the soft
 * RLIMIT_NOFILE to the hard one (the command's own limits were set when
 * bwrap was forked), and take at most what leaves FD_RESERVE of it for
 * the launcher itself (--timeout reads /proc, --log-fd, the pidfds).
 */
static int
connections_allowed(void)
{
	struct rlimit rl;
	rlim_t n;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return MAX_CONNECTIONS;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		return MAX_CONNECTIONS;
	n = rl.rlim_cur > FD_RESERVE + CONN_FDS ?
	    (rl.rlim_cur - FD_RESERVE) / CONN_FDS :
	    1;
	return n < MAX_CONNECTIONS ? (int)n : MAX_CONNECTIONS;
}

/*
 * A connection to a loopback address served inside (C->fwd): the same
 * address and port of the host's loopback, which the allow-list names
 * one by one, so no request is read and nothing is resolved; the bytes
 * relayed both ways as a tunnel's are.
 */
static void
forward(struct conn *c)
{
	const struct forward *f = c->fwd;
	struct sockaddr_storage ss = { 0 };
	socklen_t len = f->family == AF_INET ? sizeof(struct sockaddr_in) :
					       sizeof(struct sockaddr_in6);

	inet_ntop(f->family, f->addr, c->addr, sizeof(c->addr));
	snprintf(c->r.host, sizeof(c->r.host),
	    f->family == AF_INET ? "%s" : "[%s]", c->addr);
	c->r.port = f->port;
	ss.ss_family = (sa_family_t)f->family;
	if (f->family == AF_INET) {
		((struct sockaddr_in *)&ss)->sin_port = htons(
		    (uint16_t)f->port);
		memcpy(&((struct sockaddr_in *)&ss)->sin_addr, f->addr, 4);
	} else {
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(
		    (uint16_t)f->port);
		memcpy(&((struct sockaddr_in6 *)&ss)->sin6_addr, f->addr, 16);
	}
	c->up = socket(f->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->up >= 0) {
		set_timeout(c->up, SO_SNDTIMEO, REQUEST_TIMEOUT_S);
		if (connect(c->up, (struct sockaddr *)&ss, len) == 0) {
			report(c, true);
			relay(c, c->client, c->up, -1);
			return;
		}
	}
	say_refused(c, NULL, errno, false);
	report(c, false);
}

/* A connection's thread for the listener its argument names: the
 * proxy's (a request decided, then relayed), or a forward's; then its
 * descriptors given back. */
static void *
conn_main(void *arg)
{
	struct accepted *a = arg;
	struct conn c = { .client = a->fd, .up = -1, .fwd = a->fwd };

	free(a);
	if (c.fwd != NULL)
		forward(&c);
	else
		serve_request(&c);
	netreq_free(&c.r);
	if (c.up >= 0)
		close(c.up);
	close(c.client);
	conn_done();
	return NULL;
}

/* Whether accept(2)'s ERR is worth another try: no connection this
 * time (EAGAIN: the listener is non-blocking), one that failed before it
 * was taken, or a moment's shortage (then after a pause). */
static bool
accept_again(int err)
{
	switch (err) {
	case EMFILE:
	case ENFILE:
	case ENOBUFS:
	case ENOMEM:
		(void)nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 },
		    NULL);
		return true;
	case EAGAIN:
	case EINTR:
	case ECONNABORTED:
	case EPROTO:
	case ENETDOWN:
	case ENOPROTOOPT:
	case EHOSTDOWN:
	case ENONET:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EOPNOTSUPP:
		return true;
	default:
		return false;
	}
}

/* Take one connection from listener L (the proxy's, or forward F's) and
 * start its thread; -1 when the listener failed for good. */
static int
take_one(int l, const struct forward *f)
{
	int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	struct accepted *a;
	pthread_t t;

	if (c < 0)
		return accept_again(errno) ? 0 : -1;
	a = xcalloc(1, sizeof(*a));
	a->fd = c;
	a->fwd = f;
	if (atomic_fetch_add(&px.active, 1) >= px.max_active) {
		atomic_fetch_sub(&px.active, 1);
		close(c);
		free(a);
		too_many();
	} else if (pthread_create(&t, &px.attr, conn_main, a) != 0) {
		atomic_fetch_sub(&px.active, 1);
		close(c);
		free(a);
	}
	return 0;
}

/* The accept loop, from the first connection on (netproxy_serve()): the
 * proxy's listener and the forwards'. */
static void *
accept_main(void *unused)
{
	struct pollfd pfd[1 + NETPOLICY_MAX_FORWARDS];
	size_t n = 0;

	(void)unused;
	/*
	 * The launcher waits as SCHED_BATCH (launch.c); the relay is the
	 * command's traffic and must not wait behind other tasks' slices.
	 * This thread's policy, inherited by the connections' threads.
	 */
	(void)syscall(SYS_sched_setscheduler, 0, SCHED_OTHER,
	    &(struct sched_param){ 0 });
	pfd[n++] = (struct pollfd){ px.fd, POLLIN, 0 };
	for (size_t i = 0; i < px.nfwd; i++)
		pfd[n++] = (struct pollfd){ px.fwd[i].fd, POLLIN, 0 };
	for (;;) {
		if (poll(pfd, n, -1) < 0) {
			if (errno != EINTR && errno != ENOMEM)
				return NULL;
			continue;
		}
		/* A listener that failed for good is closed: a connection
		 * to it is refused, never left waiting. */
		for (size_t i = 0; i < n; i++)
			if (pfd[i].revents != 0 &&
			    take_one(pfd[i].fd,
				i == 0 ? NULL : &px.fwd[i - 1]) < 0) {
				shutdown(pfd[i].fd, SHUT_RDWR);
				pfd[i].fd = -1;
			}
	}
}

/* Whether FD is what stage two promised: a listening TCP socket, of
 * FAMILY. */
static bool
is_listener(int fd, int family)
{
	int v = 0, type = 0, domain = 0;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &len) < 0 || !v)
		return false;
	len = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
		return false;
	len = sizeof(domain);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0)
		return false;
	return type == SOCK_STREAM && (family == 0 || domain == family);
}

/*
 * Take FD, the listening socket from inside the sandbox, for the policy
 * NP, or, with OFF (the network off), for none: every request is refused
 * as "no network", before anything is resolved.  No thread starts yet:
 * the launcher polls netproxy_waiting() and calls netproxy_serve() when
 * the command first connects, so that a run that never tries the network
 * pays no more than the socket.
 */
int
netproxy_start(int fd, const struct netpolicy *np, bool off, bool verbose,
    struct sbox_error *err)
{
	if (!is_listener(fd, AF_INET)) {
		close(fd);
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "the network proxy's socket from the sandbox is not a listening TCP socket");
		return -1;
	}
	px.fd = fd;
	px.np.v = xreallocarray(NULL, np->n, sizeof(*np->v));
	/* With the network off, the list may be empty, and no array. */
	if (np->n > 0)
		memcpy(px.np.v, np->v, np->n * sizeof(*np->v));
	px.np.n = px.np.cap = np->n;
	px.off = off;
	px.verbose = verbose;
	return 0;
}

/*
 * Take FD, a listening socket from inside the sandbox on one of the
 * loopback addresses and ports the policy serves there (after
 * netproxy_start()): what it is bound to is the host's address it
 * leads to, which must be one of netpolicy_forwards().
 */
int
netproxy_forward(int fd, struct sbox_error *err)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len = sizeof(ss);
	struct forward f = { .fd = fd };

	if (is_listener(fd, 0) &&
	    getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
		f.family = ss.ss_family;
		if (f.family == AF_INET) {
			const struct sockaddr_in *sin = (void *)&ss;

			memcpy(f.addr, &sin->sin_addr, 4);
			f.port = ntohs(sin->sin_port);
		} else if (f.family == AF_INET6) {
			const struct sockaddr_in6 *sin6 = (void *)&ss;

			memcpy(f.addr, &sin6->sin6_addr, 16);
			f.port = ntohs(sin6->sin6_port);
		}
	}
	for (size_t i = 0; i < px.nfwd; i++)
		if (px.fwd[i].family == f.family && px.fwd[i].port == f.port &&
		    memcmp(px.fwd[i].addr, f.addr, 16) == 0)
			f.port = 0; /* twice: refused */
	if (px.nfwd == N_ELEMENTS(px.fwd) ||
	    !netpolicy_forwarded(&px.np, f.family, f.addr, f.port)) {
		close(fd);
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "a loopback socket from the sandbox is not one the allow-list serves");
		return -1;
	}
	px.fwd[px.nfwd++] = f;
	return 0;
}

/* --net-idle-timeout: a tunnel through which nothing moved for MS ends. */
void
netproxy_set_idle_timeout(long long ms)
{
	px.idle_ms = ms;
}

/* The upstream proxy of --upstream-proxy or the environment, copied. */
void
netproxy_set_upstream(const struct upstream_conf *up)
{
	upstream_copy(&px.up.tunnel, &up->tunnel);
	upstream_copy(&px.up.plain, &up->plain);
	px.up.no_proxy = up->no_proxy != NULL ? xstrdup(up->no_proxy) : NULL;
}

/* The listening sockets, added to the launcher's list of descriptors to
 * keep, KEEP (*N of them): the proxy's and the forwards'. */
void
netproxy_keep_fds(int *keep, size_t *n)
{
	if (px.fd >= 0)
		keep[(*n)++] = px.fd;
	for (size_t i = 0; i < px.nfwd; i++)
		keep[(*n)++] = px.fwd[i].fd;
}

/* Whether loopback addresses are served inside: then the proxy is served
 * from the start, since the command connects to them directly. */
bool
netproxy_forwarding(void)
{
	return px.nfwd > 0;
}

/* The listening socket while no thread serves it, for the launcher to
 * poll; -1 once served (or without a proxy). */
int
netproxy_waiting(void)
{
	return px.serving ? -1 : px.fd;
}

/* The command has ended: the launcher is about to say so and exit, and
 * nothing the proxy's threads still do may be reported after that. */
void
netproxy_stop(void)
{
	atomic_store(&px.stopped, true);
}

/*
 * The command connects: start the thread that accepts, with every signal
 * blocked (its connections' threads inherit that).  Called once the
 * launcher holds nothing else (launch.c's sweep).  A thread that cannot
 * start leaves the socket closed: the command's connections are refused,
 * never sent anywhere else.
 */
void
netproxy_serve(void)
{
	sigset_t all, old;
	pthread_t t;
	int rc;

	if (px.serving || px.fd < 0)
		return;
	px.serving = true;
	/* One thread accepts on every listener: none may hold it. */
	(void)fcntl(px.fd, F_SETFL, O_NONBLOCK);
	for (size_t i = 0; i < px.nfwd; i++)
		(void)fcntl(px.fwd[i].fd, F_SETFL, O_NONBLOCK);
	px.max_active = connections_allowed();
	pthread_attr_init(&px.attr);
	pthread_attr_setdetachstate(&px.attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&px.attr, CONN_STACK);
	pthread_attr_init(&px.pump_attr);
	pthread_attr_setstacksize(&px.pump_attr, PUMP_STACK);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&t, &px.attr, accept_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		util_say("the network proxy cannot start: %s", strerror(rc));
		close(px.fd);
		px.fd = -1;
		while (px.nfwd > 0)
			close(px.fwd[--px.nfwd].fd);
	}
}
