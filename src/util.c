/*
 * util.c - the small helpers every module shares.
 *
 * Allocation failure is the one error handled by dying here: nothing can be
 * reported without memory.  Everything else returns a value.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

void
util_freep(void *p)
{
	free(*(void **)p);
}

void
util_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		close(*fd);
		errno = saved;
	}
}

int
steal_fd(int *fd)
{
	int r = *fd;

	*fd = -1;
	return r;
}

static void SBOX_NORETURN
xdie_oom(void)
{
	/* errx, not err: errno is not reliable after a failed malloc. */
	errx(125, "out of memory");
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		xdie_oom();
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		xdie_oom();
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	void *q = reallocarray(p, n ? n : 1, size ? size : 1);

	if (q == NULL)
		xdie_oom();
	return q;
}

/*
 * The one way arrays grow here: V holds N elements of SIZE bytes in room
 * for *CAP; returns V (moved, perhaps) with room for at least one more,
 * doubling so that adding N elements one by one costs O(N).
 */
void *
util_grow(void *v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 8;
	return xreallocarray(v, *cap, size);
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		xdie_oom();
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (p == NULL)
		xdie_oom();
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		xdie_oom();
	return s;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void
strv_take(struct strv *sv, char *s)
{
	/* Room for S and the NULL after it. */
	sv->v = util_grow(sv->v, sv->n + 1, &sv->cap, sizeof(*sv->v));
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
strv_add(struct strv *sv, const char *s)
{
	strv_take(sv, xstrdup(s));
}

void
strv_addf(struct strv *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		xdie_oom();
	strv_take(sv, s);
}

void
strv_clear(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	if (n > SIZE_MAX / 2 - b->len - 1)
		xdie_oom();
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->s = xreallocarray(b->s, cap, 1);
		b->cap = cap;
	}
	/* Nothing to copy may come with no pointer (an empty buffer's). */
	if (n > 0)
		memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		xdie_oom();
	buf_add(b, s, (size_t)r);
	free(s);
}

void
buf_clear(struct buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

char *
buf_steal(struct buf *b)
{
	char *s = b->s ? b->s : xstrdup("");

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

/* "DIR/NAME": no formatting, and no doubled slash when DIR is "/". */
char *
util_path_join(const char *dir, const char *name)
{
	size_t dlen = strlen(dir), nlen = strlen(name);
	char *s;

	if (dlen > 0 && dir[dlen - 1] == '/')
		dlen--;
	s = xmalloc(dlen + nlen + 2);
	memcpy(s, dir, dlen);
	s[dlen] = '/';
	memcpy(s + dlen + 1, name, nlen + 1);
	return s;
}

/*
 * Append the N bytes at P to OUT, an absolute path already normalised
 * (empty for the root), normalising lexically as it goes: "." and empty
 * components go, ".." drops the previous component.  OUT stays empty
 * for the root.
 */
void
util_path_append(struct buf *out, const char *p, size_t n)
{
	const char *stop = p + n;

	while (p < stop) {
		const char *end;
		size_t len;

		while (p < stop && *p == '/')
			p++;
		end = memchr(p, '/', (size_t)(stop - p));
		if (end == NULL)
			end = stop;
		len = (size_t)(end - p);
		if (len == 0 || (len == 1 && p[0] == '.')) {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (out->len > 0 && out->s[out->len - 1] != '/')
				out->len--;
			if (out->len > 0)
				out->len--;
			if (out->s != NULL)
				out->s[out->len] = '\0';
		} else {
			buf_addc(out, '/');
			buf_add(out, p, len);
		}
		p = end;
	}
}

/*
 * Make PATH absolute against CWD and normalise it lexically (see
 * util_path_append).  Symlinks are left for the caller to resolve on the
 * host; this is the path the sandbox shows.
 */
char *
util_path_absolute(const char *path, const char *cwd)
{
	struct buf out = { 0 };

	if (path[0] != '/')
		util_path_append(&out, cwd, strlen(cwd));
	util_path_append(&out, path, strlen(path));
	if (out.len == 0)
		buf_addc(&out, '/');
	return buf_steal(&out);
}

/* Number of components of a normalised absolute path; "/" has none. */
size_t
util_path_depth(const char *path)
{
	size_t n = 0;

	for (const char *p = path; *p != '\0'; p++)
		if (*p == '/' && p[1] != '\0')
			n++;
	return n;
}

/* Whether normalised PATH is DIR or lies below it, component-wise. */
bool
util_path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	if (strncmp(path, dir, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/';
}

/* Parse a descriptor number: decimal, 0..INT_MAX, nothing else. */
int
util_parse_fd(const char *s, int *fd)
{
	const char *errstr;
	long long v;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	v = strtonum(s, 0, INT_MAX, &errstr);
	if (errstr != NULL)
		return -1;
	*fd = (int)v;
	return 0;
}

/* Append S quoted for a POSIX shell; plain words stay as they are. */
void
util_shell_quote(struct buf *b, const char *s)
{
	const char *safe =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_";

	if (*s != '\0' && strspn(s, safe) == strlen(s)) {
		buf_adds(b, s);
		return;
	}
	buf_addc(b, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addc(b, *s);
	}
	buf_addc(b, '\'');
}

/* Length of the valid UTF-8 sequence at P (at most N bytes), or 0. */
static size_t
utf8_seq_len(const unsigned char *p, size_t n)
{
	size_t len;
	uint32_t cp, min;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
		min = 0x80;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
		min = 0x800;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
		min = 0x10000;
	} else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Append N bytes of S with every invalid UTF-8 byte replaced by U+FFFD. */
void
util_utf8_sanitize(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		size_t len = utf8_seq_len(p + i, n - i);

		if (len == 0) {
			buf_adds(b, "\xef\xbf\xbd");
			i++;
		} else {
			buf_add(b, p + i, len);
			i += len;
		}
	}
}

/* util_terminal_safe(), and util_line_safe() without LINES. */
static void
escape_controls(struct buf *b, const char *s, size_t n, bool lines)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		size_t len = p[i] < 0x80 ? 1 : utf8_seq_len(p + i, n - i);
		bool keep;

		if (len == 1)
			keep = (p[i] >= 0x20 && p[i] < 0x7f) ||
			    (lines && (p[i] == '\n' || p[i] == '\t'));
		else /* U+0080..U+009F, two bytes: C2 80..C2 9F */
			keep = len > 1 && !(p[i] == 0xc2 && p[i + 1] < 0xa0);
		if (keep) {
			buf_add(b, p + i, len);
			i += len;
		} else {
			buf_addf(b, "\\x%02x", p[i]);
			i++;
		}
	}
}

/*
 * Append N bytes of S as text safe for a terminal: printable ASCII, tab,
 * newline and valid UTF-8 from U+00A0 up are kept; every other byte
 * (escape sequences, C1 controls, invalid UTF-8) is written as \xHH.
 */
void
util_terminal_safe(struct buf *b, const char *s, size_t n)
{
	escape_controls(b, s, n, true);
}

/*
 * The same for text that must stay within one line (a name a sandboxed
 * command chose, inside a message): newline and tab are \xHH too.
 */
void
util_line_safe(struct buf *b, const char *s, size_t n)
{
	escape_controls(b, s, n, false);
}

/*
 * One message on stderr, "sbox-exec: " and a newline around it, made safe
 * for a terminal: it may quote paths a sandboxed command chose, or bwrap's
 * words about them.
 */
void
util_say(const char *fmt, ...)
{
	cleanup_free char *text = NULL;
	cleanup_buf struct buf b = { 0 };
	va_list ap;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	buf_adds(&b, "sbox-exec: ");
	util_terminal_safe(&b, text, strlen(text));
	buf_addc(&b, '\n');
	fputs(b.s, stderr);
}

/* FNV-1a of the string S: a place in a table of strings. */
size_t
util_text_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Milliseconds on the monotonic clock, for deadlines. */
long
util_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * open(2) of PATH, close-on-exec, as one system call: musl's open()
 * follows an O_CLOEXEC open with an fcntl(F_SETFD) for kernels before
 * 2.6.23, and its fcntl(F_DUPFD_CLOEXEC) does the same; a launch opens
 * and copies a few dozen descriptors.  MODE counts with O_CREAT only.
 * util_dup(): a close-on-exec copy of FD numbered FLOOR or above.
 */
int
util_open(const char *path, int flags, mode_t mode)
{
	return openat(AT_FDCWD, path, flags | O_CLOEXEC, mode);
}

int
util_dup(int fd, int floor)
{
	return (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, floor);
}

/*
 * What util_realpath() answered for absolute paths while planning a
 * launch (util_realpath_keep()): the policy, the credential list and the
 * host checks ask for the same few paths (the working directory, the
 * homes, the executable, /run) more than once, and the answer cannot
 * have changed in the meantime for the plan's purposes; the launch binds
 * what it planned by descriptor, checked again (launch.c).  Only what
 * exists is kept: the plan makes placeholders (protect.c), so that a
 * path missing once may be there when asked again.  Off again before
 * anything runs: a host that changed since must be seen (a replan, the
 * audit after the run, --watch's thread).
 */
#define MEMO_MAX 32
static struct memo {
	char *path, *real;
} memo[MEMO_MAX];
static size_t nmemo;
static bool memo_on;
/* util_lstat()'s answers, kept alike. */
static struct lmemo {
	char *path;
	struct stat st;
} lmemo[MEMO_MAX];
static size_t nlmemo;

void
util_realpath_keep(bool on)
{
	for (; !on && nmemo > 0; nmemo--) {
		free(memo[nmemo - 1].path);
		free(memo[nmemo - 1].real);
	}
	for (; !on && nlmemo > 0; nlmemo--)
		free(lmemo[nlmemo - 1].path);
	memo_on = on;
}

bool
util_realpath_known(const char *path, char **real)
{
	if (!memo_on || path[0] != '/')
		return false;
	for (size_t i = 0; i < nmemo; i++)
		if (strcmp(memo[i].path, path) == 0) {
			*real = xstrdup(memo[i].real);
			return true;
		}
	return false;
}

static char *
remember(const char *path, char *real)
{
	if (memo_on && real != NULL && path[0] == '/' && nmemo < MEMO_MAX) {
		memo[nmemo].path = xstrdup(path);
		memo[nmemo].real = xstrdup(real);
		nmemo++;
	}
	return real;
}

/*
 * lstat(2), answered from what the same launch's plan learned already
 * while util_realpath_keep() holds (for the same reasons).
 */

int
util_lstat(const char *path, struct stat *st)
{
	if (memo_on && path[0] == '/')
		for (size_t i = 0; i < nlmemo; i++)
			if (strcmp(lmemo[i].path, path) == 0) {
				*st = lmemo[i].st;
				return 0;
			}
	if (lstat(path, st) < 0)
		return -1;
	if (memo_on && path[0] == '/' && nlmemo < MEMO_MAX) {
		lmemo[nlmemo].path = xstrdup(path);
		lmemo[nlmemo].st = *st;
		nlmemo++;
	}
	return 0;
}

/*
 * PATH with every symlink resolved, as realpath(3) gives it, or NULL with
 * errno set.  The kernel resolves the path once (an O_PATH open, which
 * opens no device and runs nothing) and /proc says where it landed:
 * three system calls however deep the path, where realpath(3) reads each
 * component's link.  Where /proc cannot say (not mounted, the file gone
 * meanwhile), and where no descriptor is to be had (a limit that
 * realpath(3) needs none under), realpath(3) itself.
 */
static char *
resolve_path(const char *path)
{
	char link[32], buf[PATH_MAX];
	ssize_t n = -1;
	int fd, e;

	fd = util_open(path, O_PATH, 0);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE))
		return realpath(path, NULL);
	if (fd < 0)
		return NULL;
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf));
	e = errno;
	close(fd);
	errno = e;
	if (n <= 0 || (size_t)n >= sizeof(buf) || buf[0] != '/' ||
	    (n >= 10 && memcmp(buf + n - 10, " (deleted)", 10) == 0))
		return realpath(path, NULL);
	return xstrndup(buf, (size_t)n);
}

char *
util_realpath(const char *path)
{
	char *real;

	if (util_realpath_known(path, &real))
		return real;
	return remember(path, resolve_path(path));
}

uid_t
util_uid(void)
{
	static uid_t uid = (uid_t)-1;

	if (uid == (uid_t)-1)
		uid = getuid();
	return uid;
}

/*
 * Every entry of the directory open at FD but "." and "..", given to FN
 * with its d_type, in the order the kernel lists them, until FN returns
 * false.  0, or -1 with errno when the listing failed.  The kernel's
 * records read straight into a buffer on the stack, where readdir(3)
 * would allocate and free a DIR of a few kilobytes (with musl, an mmap()
 * and a munmap() each time) and read half as much at a time.  One page:
 * a larger buffer pushes FN's frames deeper, and the launcher's resident
 * memory with them.
 */
int
util_dir_each(int fd, bool (*fn)(void *, const char *, unsigned char),
    void *ctx)
{
	char buf[4096];
	long n;

	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			/* struct linux_dirent64: ino, off, reclen, type, name */
			unsigned short reclen;
			unsigned char type = (unsigned char)buf[off + 18];
			const char *name = buf + off + 19;

			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			if (reclen == 0) {
				errno = EIO;
				return -1;
			}
			off += reclen;
			if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
				continue;
			if (!fn(ctx, name, type))
				return 0;
		}
	}
	return n < 0 ? -1 : 0;
}

/*
 * The directory of the running executable, or NULL.  Looked up once: a
 * launch asks for it several times (its own files, the shipped list).
 */
char *
util_exe_dir(void)
{
	static char *dir;
	char *slash;

	if (dir == NULL) {
		dir = util_realpath("/proc/self/exe");
		if (dir == NULL)
			return NULL;
		slash = strrchr(dir, '/');
		if (slash == NULL) {
			free(dir);
			dir = NULL;
			return NULL;
		}
		*slash = '\0';
	}
	return xstrdup(dir);
}

/*
 * A small file of the kernel's (/proc, /proc/sys) read whole into BUF of
 * SIZE bytes, NUL-terminated; a longer one is cut at SIZE - 1.  Returns
 * the length, or -1 when it cannot be read or is empty.
 */
ssize_t
util_read_small(const char *path, char *buf, size_t size)
{
	cleanup_fd int fd = -1;
	size_t got = 0;

	fd = util_open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	while (got < size - 1) {
		ssize_t r = read(fd, buf + got, size - 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	return got > 0 ? (ssize_t)got : -1;
}
