/*
 * status.c - render the status line and deliver it.
 *
 * MUST: emit exactly one line of valid UTF-8 JSON of at most STATUS_MAX
 * bytes, whatever bytes the paths in it hold.  MUST NOT print or exit:
 * delivery failures are returned to main.c, which warns.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <time.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "status.h"
#include "util.h"


/*
 * Append S as the inside of a JSON string: invalid UTF-8 becomes U+FFFD,
 * control characters are escaped, and the result stops at a character
 * boundary before CAP bytes (quotes included), marked with an ellipsis.
 */
void
status_json_string(struct buf *out, const char *s, size_t cap)
{
	cleanup_buf struct buf clean = { 0 };
	size_t start = out->len;

	util_utf8_sanitize(&clean, s, strlen(s));
	buf_addc(out, '"');
	for (size_t i = 0; i < clean.len; i++) {
		unsigned char c = (unsigned char)clean.s[i];
		size_t mark = out->len;

		if (c == '"' || c == '\\') {
			buf_addc(out, '\\');
			buf_addc(out, (char)c);
		} else if (c == '\n') {
			buf_adds(out, "\\n");
		} else if (c == '\t') {
			buf_adds(out, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			buf_addf(out, "\\u%04x", c);
		} else {
			/* Copy a whole UTF-8 sequence at once. */
			size_t len = 1;

			while (i + len < clean.len &&
			    ((unsigned char)clean.s[i + len] & 0xc0) == 0x80)
				len++;
			buf_add(out, clean.s + i, len);
			i += len - 1;
		}
		if (out->len - start + 1 > cap) {
			out->len = mark;
			/* Room for the ellipsis: drop whole characters. */
			while (out->len > start + 1 &&
			    out->len - start + 3 + 1 > cap) {
				out->len--;
				while (out->len > start + 1 &&
				    ((unsigned char)out->s[out->len] & 0xc0) ==
					0x80)
					out->len--;
			}
			buf_adds(out, "\xe2\x80\xa6"); /* U+2026 */
			break;
		}
	}
	buf_addc(out, '"');
}

static char *
render(const struct status_report *r, const size_t cap[4])
{
	struct buf b = { 0 };

	buf_addf(&b, "{\"version\":1,\"status\":\"%s\"",
	    sbox_status_name(r->status));
	if (r->bwrap != NULL) {
		buf_adds(&b, ",\"bwrap\":");
		status_json_string(&b, r->bwrap, cap[0]);
		if (r->bwrap_source != NULL)
			buf_addf(&b, ",\"bwrap_source\":\"%s\"",
			    r->bwrap_source);
	}
	if (r->status == SBOX_SUCCESS && r->pid > 0)
		buf_addf(&b, ",\"pid\":%ld", (long)r->pid);
	if (r->status == SBOX_SUCCESS && r->command != NULL) {
		buf_adds(&b, ",\"command\":");
		status_json_string(&b, r->command, cap[3]);
	}
	if (r->net != NULL)
		buf_addf(&b, ",\"net\":\"%s\"", r->net);
	if (r->abstract_unix != NULL)
		buf_addf(&b, ",\"abstract_unix\":\"%s\"", r->abstract_unix);
	if (r->abstract_names != NULL)
		buf_addf(&b, ",\"abstract_names\":\"%s\"", r->abstract_names);
	if (r->nested_userns != NULL)
		buf_addf(&b, ",\"nested_userns\":\"%s\"", r->nested_userns);
	if (r->landlock != NULL)
		buf_addf(&b, ",\"landlock\":\"%s\"", r->landlock);
	if (r->seccomp != NULL)
		buf_addf(&b, ",\"seccomp\":\"%s\"", r->seccomp);
	if (r->limits != NULL)
		buf_addf(&b, ",\"limits\":%s", r->limits);
	if (r->detail != NULL) {
		buf_adds(&b, ",\"detail\":");
		status_json_string(&b, r->detail, cap[1]);
	}
	if (r->hint != NULL) {
		buf_adds(&b, ",\"hint\":");
		status_json_string(&b, r->hint, cap[2]);
	}
	buf_adds(&b, "}\n");
	return buf_steal(&b);
}

/*
 * The line whole if it fits in STATUS_MAX bytes; otherwise the longest of
 * the four free-text fields is shortened until it does.
 */
char *
status_render(const struct status_report *r)
{
	size_t cap[4] = { SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX };
	const char *field[4] = { r->bwrap, r->detail, r->hint,
		r->status == SBOX_SUCCESS ? r->command : NULL };

	for (;;) {
		char *line = render(r, cap);
		size_t len = strlen(line), longest = 0, flen[4];

		if (len <= STATUS_MAX)
			return line;
		/* Measure each field as rendered: its escaped length. */
		for (size_t i = 0; i < 4; i++) {
			struct buf one = { 0 };

			flen[i] = 0;
			if (field[i] != NULL) {
				status_json_string(&one, field[i], cap[i]);
				flen[i] = one.len;
				buf_clear(&one);
			}
			if (flen[i] > flen[longest])
				longest = i;
		}
		free(line);
		cap[longest] = flen[longest] > len - STATUS_MAX + 8 ?
		    flen[longest] - (len - STATUS_MAX) - 8 :
		    8;
	}
}

/*
 * Connect a datagram socket to ADDR ("@name" for the abstract name "name").
 * A bad address is the caller's usage error (-1, ERR set); nobody
 * listening is a delivery failure (-2, errno set), which only warns.
 */
int
status_socket_open(const char *addr, int *fdp, struct sbox_error *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	bool abstract = addr[0] == '@';
	const char *name = abstract ? addr + 1 : addr;
	size_t len = strlen(name);
	socklen_t alen;
	int fd, one = 1;

	*fdp = -1;
	if (len == 0) {
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "--status-socket: empty socket name");
		return -1;
	}
	if (len > sizeof(sun.sun_path) - 1) {
		sbox_error_set(err, SBOX_INVALID_POLICY,
		    "--status-socket: socket name is %zu bytes, at most %zu fit",
		    len, sizeof(sun.sun_path) - 1);
		return -1;
	}
	memcpy(sun.sun_path + (abstract ? 1 : 0), name, len);
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
	    (abstract ? 1 : 0));

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -2;
	(void)setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sun, alen) < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -2;
	}
	*fdp = fd;
	return 0;
}

/* Send LINE as one datagram with our pid, uid and gid attached. */
int
status_send_socket(int fd, const char *line)
{
	struct ucred cred = {
		.pid = getpid(),
		.uid = util_uid(),
		.gid = getgid(),
	};
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)line,
		.iov_len = strlen(line) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cmsg;
	ssize_t n;

	memset(&u, 0, sizeof(u));
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_CREDENTIALS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(cred));
	memcpy(CMSG_DATA(cmsg), &cred, sizeof(cred));

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		int r;

		n = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n >= 0 || (errno != EINTR && errno != EAGAIN))
			break;
		do
			r = poll(&pfd, 1, STATUS_WAIT_MS);
		while (r < 0 && errno == EINTR);
		if (r <= 0) {
			errno = r == 0 ? ETIMEDOUT : errno;
			return -1;
		}
	}
	if (n < 0)
		return -1;
	if ((size_t)n != iov.iov_len) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

/*
 * Whether the stream socket FD can take LEN bytes now in one go.  The
 * kernel cuts a send into pieces of about half the send buffer and takes
 * a piece only while what the peer has not read yet (SIOCOUTQ) is below
 * SO_SNDBUF, so a line may be sent in part when the peer is slow: wait
 * until the peer has read everything, or the buffer has ample room.
 */
static bool
stream_has_room(int fd, size_t len)
{
	int sndbuf, outq;
	socklen_t l = sizeof(sndbuf);

	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &l) < 0 ||
	    ioctl(fd, SIOCOUTQ, &outq) < 0)
		return true; /* cannot tell: try */
	return outq == 0 ||
	    (sndbuf > outq && (size_t)(sndbuf - outq) >= 4 * len + 4096);
}

/* Wait until FD can be written (and, for a stream socket, has room for
 * LEN bytes) or DEADLINE passes: 0, or -1 with errno. */
static int
wait_room(int fd, bool stream, size_t len, long deadline)
{
	bool looked = false;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		long left = deadline - util_now_ms();
		int r;

		/* The first look is taken whatever the clock says: a
		 * millisecond that ended since the caller's deadline was set
		 * (with no wait at all, any one) is no reason to drop a line
		 * the channel has room for. */
		if (left < 0 && looked) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (left < 0)
			left = 0;
		r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		looked = true;
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (!stream || stream_has_room(fd, len))
			return 0;
		/* POLLOUT says some room, not enough: look again shortly. */
		(void)poll(NULL, 0, left < 10 ? (int)left : 10);
	}
}

/*
 * A regular file that took only part of LINE (a full file system) is cut
 * back to where the line began, so that it holds the line whole or not at
 * all.
 */
static int
write_file(int fd, const char *line, size_t len)
{
	struct stat st;
	off_t start;
	size_t off = 0;
	int flags = fcntl(fd, F_GETFL), saved;

	start = (flags >= 0 && (flags & O_APPEND) && fstat(fd, &st) == 0) ?
	    st.st_size :
	    lseek(fd, 0, SEEK_CUR);
	while (off < len) {
		ssize_t n = write(fd, line + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			saved = n < 0 ? errno : ENOSPC;
			if (off > 0 && start >= 0 && ftruncate(fd, start) == 0)
				(void)lseek(fd, start, SEEK_SET);
			errno = saved;
			return -1;
		}
		off += (size_t)n;
	}
	return 0;
}

/*
 * Write LINE to FD whole or not at all, waiting at most STATUS_WAIT_MS
 * for room: a reader that never reads must not hold the command back for
 * ever, and a reader must never see part of a line.  The descriptor is
 * shared with the caller, so its flags are left alone.  A pipe takes a
 * write of at most PIPE_BUF bytes whole (STATUS_MAX is no more); a
 * datagram or seqpacket socket one message; a stream socket is given the
 * line only once it has room for all of it (stream_has_room); a regular
 * file is cut back after a short write.  The caller ignores SIGPIPE.
 */
int
status_write_fd(int fd, const char *line)
{
	return status_write_fd_within(fd, line, STATUS_WAIT_MS);
}

/* status_write_fd(), waiting at most WAIT_MS (0: only if there is room
 * now; -1 with ETIMEDOUT when there is not). */
int
status_write_fd_within(int fd, const char *line, long wait_ms)
{
	size_t len = strlen(line), off = 0;
	long deadline = util_now_ms() + wait_ms;
	struct stat st;
	int type = 0;
	socklen_t tl = sizeof(type);
	bool sock, stream;

	if (fstat(fd, &st) < 0)
		return -1;
	if (S_ISREG(st.st_mode))
		return write_file(fd, line, len);
	sock = S_ISSOCK(st.st_mode);
	stream = sock && getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 &&
	    type == SOCK_STREAM;
	while (off < len) {
		ssize_t n;

		if (wait_room(fd, stream, len - off, deadline) < 0)
			return -1;
		n = sock ? send(fd, line + off, len - off,
			       MSG_DONTWAIT | MSG_NOSIGNAL) :
			   write(fd, line + off, len - off);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -1;
		/* Only a stream taken in part gets here again: finish the
		 * line rather than leave it cut (wait_room made this rare). */
		off += (size_t)n;
	}
	return 0;
}
