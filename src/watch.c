/*
 * watch.c - the filter that shows the launcher the calls a sandbox may
 * refuse, and the launcher's thread that names what was refused (see
 * watch.h and DENIALS in sbox-exec(1)).
 *
 * The thread reads what it needs from the caller of a call (its path
 * arguments, its working directory) while the call waits, checks that
 * the call is still the one it was told about, and answers "carry on".
 * It decides before answering while refusals still get lines of their
 * own (so that the line comes before the command's own words), after
 * answering once they no longer do (so that a flood waits for one read
 * of its memory and one of /proc, not for lookups on the host).  A
 * process that dies mid-call, a path that cannot be read or a flood of
 * calls cost the launcher nothing it keeps.  The decision is the
 * policy's (policy_mount_for()): a write that lands on a read-only,
 * hidden or absent mount is refused there, whatever the command makes of
 * the error.
 *
 * Reads are not sent through the filter (every open would wait for the
 * launcher).  What the credential list hides is watched instead, with
 * inotify on the empty stand-ins inside the sandbox: opening one (or
 * listing an emptied directory) is told as a read of a hidden credential.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "cache.h"
#include "denial.h"
#include "fd.h"
#include "netwatch.h"
#include "nolearn.h"
#include "seccomp.h"
#include "util.h"
#include "watch.h"

/* From Linux 6.6's <linux/seccomp.h>, which older headers lack. */
#define WATCH_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#define WATCH_NOTIF_FD_SYNC_WAKE_UP 1


/* What a watched call does to its path: the rules that tell, from the
 * host's view of the path, whether the sandbox refused it. */
enum op {
	OP_OPEN,    /* by its flags: write, truncate or create */
	OP_CREATE,  /* makes the path: refused if missing, parent there */
	OP_MODIFY,  /* changes the path: refused if it exists */
	OP_RENAME,  /* the first path goes away, the second is made */
	OP_CONNECT, /* a unix socket's path */
};

struct watched {
	long nr;
	const char *name;
	enum op op;
	signed char dirfd;	   /* the argument with the directory, or -1 */
	signed char path;	   /* the argument with the path */
	signed char dirfd2, path2; /* the second path (-1: none) */
	signed char flags; /* OP_OPEN: the flags' argument; -2: open_how */
};

static const struct watched calls[] = {
	{ SYS_openat, "openat", OP_OPEN, 0, 1, -1, -1, 2 },
	{ SYS_openat2, "openat2", OP_OPEN, 0, 1, -1, -1, -2 },
	{ SYS_mkdirat, "mkdirat", OP_CREATE, 0, 1, -1, -1, -1 },
	{ SYS_mknodat, "mknodat", OP_CREATE, 0, 1, -1, -1, -1 },
	{ SYS_unlinkat, "unlinkat", OP_MODIFY, 0, 1, -1, -1, -1 },
	{ SYS_renameat2, "renameat2", OP_RENAME, 0, 1, 2, 3, -1 },
	{ SYS_linkat, "linkat", OP_CREATE, 2, 3, -1, -1, -1 },
	{ SYS_symlinkat, "symlinkat", OP_CREATE, 1, 2, -1, -1, -1 },
	{ SYS_fchmodat, "fchmodat", OP_MODIFY, 0, 1, -1, -1, -1 },
	{ SYS_fchmodat2, "fchmodat2", OP_MODIFY, 0, 1, -1, -1, -1 },
	{ SYS_fchownat, "fchownat", OP_MODIFY, 0, 1, -1, -1, -1 },
	{ SYS_utimensat, "utimensat", OP_MODIFY, 0, 1, -1, -1, -1 },
	{ SYS_truncate, "truncate", OP_MODIFY, -1, 0, -1, -1, -1 },
	{ SYS_setxattr, "setxattr", OP_MODIFY, -1, 0, -1, -1, -1 },
	{ SYS_lsetxattr, "lsetxattr", OP_MODIFY, -1, 0, -1, -1, -1 },
	{ SYS_removexattr, "removexattr", OP_MODIFY, -1, 0, -1, -1, -1 },
	{ SYS_lremovexattr, "lremovexattr", OP_MODIFY, -1, 0, -1, -1, -1 },
	{ SYS_connect, "connect", OP_CONNECT, -1, 1, -1, -1, -1 },
#ifdef SYS_open
	{ SYS_open, "open", OP_OPEN, -1, 0, -1, -1, 1 },
#endif
#ifdef SYS_creat
	{ SYS_creat, "creat", OP_CREATE, -1, 0, -1, -1, -1 },
#endif
#ifdef SYS_mkdir
	{ SYS_mkdir, "mkdir", OP_CREATE, -1, 0, -1, -1, -1 },
#endif
#ifdef SYS_mknod
	{ SYS_mknod, "mknod", OP_CREATE, -1, 0, -1, -1, -1 },
#endif
#ifdef SYS_unlink
	{ SYS_unlink, "unlink", OP_MODIFY, -1, 0, -1, -1, -1 },
#endif
#ifdef SYS_rmdir
	{ SYS_rmdir, "rmdir", OP_MODIFY, -1, 0, -1, -1, -1 },
#endif
#ifdef SYS_rename
	{ SYS_rename, "rename", OP_RENAME, -1, 0, -1, 1, -1 },
#endif
#ifdef SYS_renameat
	{ SYS_renameat, "renameat", OP_RENAME, 0, 1, 2, 3, -1 },
#endif
#ifdef SYS_link
	{ SYS_link, "link", OP_CREATE, -1, 1, -1, -1, -1 },
#endif
#ifdef SYS_symlink
	{ SYS_symlink, "symlink", OP_CREATE, -1, 1, -1, -1, -1 },
#endif
#ifdef SYS_chmod
	{ SYS_chmod, "chmod", OP_MODIFY, -1, 0, -1, -1, -1 },
#endif
#ifdef SYS_chown
	{ SYS_chown, "chown", OP_MODIFY, -1, 0, -1, -1, -1 },
#endif
#ifdef SYS_lchown
	{ SYS_lchown, "lchown", OP_MODIFY, -1, 0, -1, -1, -1 },
#endif
#ifdef SYS_utime
	{ SYS_utime, "utime", OP_MODIFY, -1, 0, -1, -1, -1 },
#endif
#ifdef SYS_utimes
	{ SYS_utimes, "utimes", OP_MODIFY, -1, 0, -1, -1, -1 },
#endif
#ifdef SYS_futimesat
	{ SYS_futimesat, "futimesat", OP_MODIFY, 0, 1, -1, -1, -1 },
#endif
};

/* The open flags that may write: anything else only reads. */
#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)


/*
 * The filter, into OUT (MAX instructions): each watched call is sent to
 * the launcher; open and openat only with a flag that may write, which
 * the filter sees (openat2's flags are behind a pointer: always).  Any
 * other architecture's calls pass: bwrap's filter refuses them.  The
 * number of instructions, or 0 when MAX is too small or the architecture
 * has no filter.
 */
size_t
watch_build(struct sock_filter *out, size_t max)
{
#ifdef NATIVE_ARCH
	size_t n = 0, first, allow, notify, nflag = 0, block;

	for (size_t i = 0; i < N_ELEMENTS(calls); i++)
		nflag += calls[i].op == OP_OPEN && calls[i].flags >= 0;
	/* Layout: arch and number checks, one comparison a call, "allow",
	 * two instructions a flag check, "allow", "notify". */
	if (max < 6 + N_ELEMENTS(calls) + 1 + 2 * nflag + 2)
		return 0;
	out[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	out[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    NATIVE_ARCH, 1, 0);
	out[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	out[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
#ifdef X32_BIT
	out[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
	    X32_BIT, 0, 1);
	out[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
#endif
	first = n;
	allow = first + N_ELEMENTS(calls);
	notify = allow + 1 + 2 * nflag + 1;
	block = allow + 1;
	for (size_t i = 0; i < N_ELEMENTS(calls); i++, n++) {
		size_t to = notify;

		if (calls[i].op == OP_OPEN && calls[i].flags >= 0) {
			to = block;
			out[block] = (struct sock_filter)BPF_STMT(BPF_LD |
				BPF_W | BPF_ABS,
			    ARG_LO((unsigned)calls[i].flags));
			out[block + 1] = (struct sock_filter)BPF_JUMP(BPF_JMP |
				BPF_JSET | BPF_K,
			    WRITE_FLAGS, (unsigned char)(notify - block - 2),
			    (unsigned char)(notify - block - 3));
			block += 2;
		}
		out[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    (unsigned)calls[i].nr, (unsigned char)(to - n - 1), 0);
	}
	out[allow] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	out[notify - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	out[notify] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_USER_NOTIF);
	return notify + 1;
#else
	(void)out;
	(void)max;
	return 0;
#endif
}

/*
 * In stage two: install the filter on this process (and so on the
 * command and all it starts); its listener, or -1 with errno set.
 */
int
watch_install(void)
{
	struct sock_filter prog[WATCH_PROG_MAX];
	struct sock_fprog fprog;
	size_t n = watch_build(prog, N_ELEMENTS(prog));

	if (n == 0) {
		errno = ENOSYS;
		return -1;
	}
	fprog.len = (unsigned short)n;
	fprog.filter = prog;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
}

/* ---- the launcher's side ---------------------------------------------- */

static struct {
	int fd;	     /* the listener */
	int wake[2]; /* watch_stop() writes here */
	pthread_t thread;
	bool running;
	const struct policy *policy;
	const char *home;	  /* or NULL */
	const char *cache_base;	  /* where tools' caches go, or NULL */
	const struct strv *masks; /* the credential list's paths */
	struct seccomp_notif_sizes sizes;
	int hidden_fd;		  /* inotify on the credentials' stand-ins */
	const struct mount **wds; /* by watch descriptor, or NULL */
	size_t nwds;
	/* Held by the thread while it works on a call (it opens and
	 * closes descriptors of its own, reading the host's files), and
	 * by watch_hold() for the launcher's sweep of descriptors. */
	pthread_mutex_t busy;
} w = { .fd = -1,
	.wake = { -1, -1 },
	.hidden_fd = -1,
	.busy = PTHREAD_MUTEX_INITIALIZER };

/* The descriptors the thread needs, added to KEEP (*N so far). */
void
watch_keep_fds(int *keep, size_t *n)
{
	const int all[] = { w.fd, w.wake[0], w.wake[1], w.hidden_fd };

	for (size_t i = 0; i < N_ELEMENTS(all); i++)
		if (all[i] >= 0)
			keep[(*n)++] = all[i];
}

/*
 * Keep the thread from opening or closing a descriptor until
 * watch_release(): a sweep of the launcher's descriptors that ran while
 * the thread held one of its own would close it under the thread, and
 * the thread would close the number again after the sweep, when it may
 * be another's.
 */
void
watch_hold(void)
{
	pthread_mutex_lock(&w.busy);
}

void
watch_release(void)
{
	pthread_mutex_unlock(&w.busy);
}

/* What one notification carried, read while the call waited. */
struct seen {
	const struct watched *call;
	char path[2][PATH_MAX];
	char base[2][PATH_MAX]; /* the directory a relative path is in */
	unsigned long long flags;
	bool inet; /* a connect() to an IP address (netwatch.h): */
	pid_t pid;
	int fd;
	struct netwatch_conn conn;
};

/* Up to SIZE bytes of PID's string at ADDR into BUF, page by page (a
 * string may end just before an unmapped page).  0 when whole. */
static int
read_string(pid_t pid, unsigned long long addr, char *buf, size_t size)
{
	size_t got = 0;

	if (addr == 0)
		return -1;
	while (got < size - 1) {
		size_t page = 4096 - ((addr + got) & 4095), want = page;
		struct iovec local, remote;
		ssize_t n;

		if (want > size - 1 - got)
			want = size - 1 - got;
		local = (struct iovec){ buf + got, want };
		remote = (struct iovec){ (void *)(uintptr_t)(addr + got),
			want };
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n <= 0)
			return -1;
		if (memchr(buf + got, '\0', (size_t)n) != NULL)
			return 0;
		got += (size_t)n;
	}
	return -1;
}

/* The directory a relative path of PID's is looked up in: its working
 * directory, or the directory DIRFD (an int, as the kernel reads it). */
static int
read_base(pid_t pid, unsigned long long dirfd, char *buf, size_t size)
{
	char link[64];
	int fd = (int)(unsigned int)dirfd;
	ssize_t n;

	if (fd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%ld/cwd", (long)pid);
	else
		snprintf(link, sizeof(link), "/proc/%ld/fd/%d", (long)pid, fd);
	n = readlink(link, buf, size - 1);
	if (n <= 0 || buf[0] != '/')
		return -1;
	buf[n] = '\0';
	return 0;
}

/*
 * A path through a descriptor of the caller's (/proc/self/fd/N,
 * /proc/thread-self/fd/N, /dev/fd/N, or below one of them), which the
 * kernel follows to what the descriptor is open on: in PATH (SIZE bytes)
 * the path of that file instead, as the sandbox sees it, from PID's own
 * /proc/PID/fd/N.  PID is the thread the notification is for, and it is
 * read while the call waits: it is trusted only once the call is found
 * still waiting (serve_call()), so the descriptor is the caller's, not a
 * process's that took the pid after it.  A descriptor of no file (a
 * pipe, a socket) leaves PATH as it is.
 */
static void
through_fd(pid_t pid, char *path, size_t size)
{
	static const char *const via[] = { "/proc/self/fd/",
		"/proc/thread-self/fd/", "/dev/fd/" };
	char link[64], target[PATH_MAX];
	const char *rest = NULL;
	char *end;
	long fd;
	ssize_t n;

	for (size_t i = 0; i < N_ELEMENTS(via) && rest == NULL; i++)
		if (strncmp(path, via[i], strlen(via[i])) == 0)
			rest = path + strlen(via[i]);
	if (rest == NULL || *rest < '0' || *rest > '9')
		return;
	errno = 0;
	fd = strtol(rest, &end, 10);
	if (errno != 0 || fd > INT_MAX || (*end != '\0' && *end != '/'))
		return;
	snprintf(link, sizeof(link), "/proc/%ld/fd/%ld", (long)pid, fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0 || target[0] != '/')
		return;
	target[n] = '\0';
	if (strlen(target) + strlen(end) >= size)
		return;
	/* END is within PATH: moved first, then the target put before. */
	memmove(path + n, end, strlen(end) + 1);
	memcpy(path, target, (size_t)n);
}

/* The path argument I of REQ (and its base) into S; 0 when read. */
static int
read_path(const struct seccomp_notif *req, struct seen *s, int i)
{
	const struct watched *c = s->call;
	signed char arg = i == 0 ? c->path : c->path2;
	signed char dir = i == 0 ? c->dirfd : c->dirfd2;
	pid_t pid = (pid_t)req->pid;

	if (arg < 0)
		return -1;
	if (c->op == OP_CONNECT) {
		struct sockaddr_un sun = { 0 };
		struct iovec local = { &sun, sizeof(sun) - 1 };
		struct iovec remote = {
			(void *)(uintptr_t)req->data.args[1],
			sizeof(sun) - 1,
		};
		unsigned long long len = req->data.args[2];

		if (len < offsetof(struct sockaddr_un, sun_path) + 2)
			return -1;
		if (len < remote.iov_len)
			remote.iov_len = local.iov_len = (size_t)len;
		if (process_vm_readv(pid, &local, 1, &remote, 1, 0) <
			(ssize_t)offsetof(struct sockaddr_un, sun_path) + 2 ||
		    sun.sun_family != AF_UNIX || sun.sun_path[0] == '\0')
			return -1;
		snprintf(s->path[i], sizeof(s->path[i]), "%s", sun.sun_path);
	} else if (read_string(pid, req->data.args[arg], s->path[i],
		       sizeof(s->path[i])) < 0 ||
	    s->path[i][0] == '\0') {
		return -1;
	}
	if (s->path[i][0] == '/') {
		through_fd(pid, s->path[i], sizeof(s->path[i]));
		return 0;
	}
	return read_base(pid,
	    dir >= 0 ? req->data.args[dir] : (unsigned long long)AT_FDCWD,
	    s->base[i], sizeof(s->base[i]));
}

/* Read what REQ's call names into S, while it waits.  0 when there is
 * something to decide. */
static int
read_call(const struct seccomp_notif *req, struct seen *s)
{
	int got = 0;

	s->call = NULL;
	for (size_t i = 0; i < N_ELEMENTS(calls); i++)
		if (calls[i].nr == req->data.nr)
			s->call = &calls[i];
	if (s->call == NULL)
		return -1;
	/* Without --net, a connect() to an IP address: netwatch.c's. */
	s->inet = s->call->op == OP_CONNECT && !w.policy->net &&
	    netwatch_read((pid_t)req->pid, req->data.args[1], req->data.args[2],
		&s->conn) == 0;
	if (s->inet) {
		s->pid = (pid_t)req->pid;
		s->fd = (int)req->data.args[0];
		return 0;
	}
	if (s->call->flags >= 0) {
		s->flags = req->data.args[(int)s->call->flags];
	} else if (s->call->flags == -2) {
		struct iovec local = { &s->flags, sizeof(s->flags) };
		struct iovec remote = { (void *)(uintptr_t)req->data.args[2],
			sizeof(s->flags) };

		if (process_vm_readv((pid_t)req->pid, &local, 1, &remote, 1,
			0) != (ssize_t)sizeof(s->flags))
			return -1;
	}
	for (int i = 0; i < 2; i++) {
		s->path[i][0] = '\0';
		if (read_path(req, s, i) == 0)
			got++;
		else
			s->path[i][0] = '\0';
	}
	return got > 0 ? 0 : -1;
}

/* Whether PATH exists on the host; *MODE its type. */
static bool
exists(const char *path, mode_t *mode)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return false;
	if (mode != NULL)
		*mode = st.st_mode & S_IFMT;
	return true;
}

/* PATH's directory, or "/" */
static char *
parent_of(const char *path)
{
	char *d = xstrdup(path), *slash = strrchr(d, '/');

	if (slash == d)
		d[1] = '\0';
	else if (slash != NULL)
		*slash = '\0';
	return d;
}

/* Whether mount kind K is writable inside. */
static bool
writable_kind(enum mount_kind k)
{
	return k == MOUNT_RW || k == MOUNT_TMP || k == MOUNT_DEV ||
	    k == MOUNT_PROC || k == MOUNT_SYMLINK;
}

/*
 * Whether the sandbox refused OP on ABS (FLAGS for an open), judged from
 * the mount that decides ABS and, where the host shows the same files,
 * whether ABS is there.
 */
static bool
refused(const struct mount *m, enum op op, const char *abs,
    unsigned long long flags)
{
	mode_t mode = 0;
	bool there, parent_there;
	cleanup_free char *parent = NULL;

	if (m != NULL && writable_kind(m->kind))
		return false;
	if (m != NULL &&
	    (m->kind == MOUNT_HIDE_DIR || m->kind == MOUNT_HIDE_FILE))
		return true;
	there = exists(abs, &mode);
	parent = parent_of(abs);
	parent_there = exists(parent, NULL);
	switch (op) {
	case OP_OPEN:
		if (there)
			return (flags & (O_WRONLY | O_RDWR | O_TRUNC)) != 0 &&
			    (mode == S_IFREG || mode == S_IFDIR);
		return (flags & O_CREAT) != 0 && parent_there;
	case OP_CREATE:
		return !there && parent_there;
	case OP_MODIFY:
	case OP_RENAME:
		return there;
	case OP_CONNECT:
		break;
	}
	return false;
}

/* A place of the credential list that PATH is in, or that lies within
 * PATH, or NULL. */
static const char *
credential_at(const char *path)
{
	for (size_t i = 0; w.masks != NULL && i < w.masks->n; i++)
		if (util_path_within(w.masks->v[i], path) ||
		    util_path_within(path, w.masks->v[i]))
			return w.masks->v[i];
	return NULL;
}

/* A hidden place of the policy within DIR, or NULL. */
static const struct mount *
hides_within(const char *dir)
{
	for (size_t i = 0; i < w.policy->nmounts; i++) {
		const struct mount *m = &w.policy->mounts[i];

		if ((m->kind == MOUNT_HIDE_DIR || m->kind == MOUNT_HIDE_FILE) &&
		    util_path_within(m->dest, dir))
			return m;
	}
	return NULL;
}

/* The name of the tool cache ABS is in (cache.h's form), or NULL. */
static char *
cache_name(const char *abs)
{
	size_t len;
	const char *rest, *end;
	char *name;

	if (w.cache_base == NULL || !util_path_within(abs, w.cache_base))
		return NULL;
	len = strlen(w.cache_base);
	/* The directory itself names no cache (and has nothing after it
	 * to read). */
	if (strlen(abs) <= len)
		return NULL;
	rest = abs + len + (w.cache_base[len - 1] == '/' ? 0 : 1);
	end = strchr(rest, '/');
	if (end == NULL)
		end = rest + strlen(rest);
	if (end == rest)
		return NULL;
	name = xstrndup(rest, (size_t)(end - rest));
	if (strcmp(name, "sbox-exec") == 0 || !cache_name_ok(name)) {
		free(name);
		return NULL;
	}
	return name;
}

/*
 * A grant of PATH barred by the never-learned list (a place code runs
 * from later, a shared cache: DENIALS in sbox-exec(1)), into *G with
 * NOTE (owned by the caller); HELD: PATH is the grant's, which may hold
 * such a place rather than lie in one.  True when barred.
 */
static bool
never_granted(const char *path, bool held, struct denial_grant *g, char **note,
    char **setenv)
{
	bool unread;
	const struct nolearn_entry *e = denial_never(path, &unread);

	if (unread) {
		g->note =
		    "the list of what is never learned could not be read: no option is suggested";
		return true;
	}
	if (e == NULL || (!held && !util_path_within(path, e->path)))
		return false;
	if (e->kind == NOLEARN_CACHE && util_path_within(path, e->path)) {
		*setenv = xstrdup(e->setenv);
		*note = xasprintf(
		    "%s is a package cache shared with the tools outside the sandbox; a private cache serves instead, which a policy file names with --setenv %s",
		    e->path, e->setenv);
		*g = (struct denial_grant){ .option = "cache",
			.value = e->what,
			.setenv = *setenv,
			.note = *note };
		return true;
	}
	if (util_path_within(path, e->path))
		*note = xasprintf(
		    "%s is %s, which runs code outside the sandbox later: no option is suggested",
		    e->path, e->what);
	else if (e->kind == NOLEARN_CACHE)
		*note = xasprintf(
		    "a grant of %s would hold %s, a package cache shared with the tools outside the sandbox: no option is suggested",
		    path, e->path);
	else
		*note = xasprintf(
		    "a grant of %s would hold %s, %s, which runs code outside the sandbox later: no option is suggested",
		    path, e->path, e->what);
	*g = (struct denial_grant){ .note = *note };
	return true;
}

/* Whether CALL makes a directory. */
static bool
makes_dir(const char *call)
{
	return strcmp(call, "mkdir") == 0 || strcmp(call, "mkdirat") == 0;
}

/*
 * The grant that lets a write to ABS through when host protection keeps
 * the git directory M read-only (HOST PROTECTION in sbox-exec(1)): the
 * git directory named by --rw, which stays read-only in its hooks, its
 * configuration and the names that lead git elsewhere, so no grant serves
 * a write there; what stays writable runs no code (git commit's objects,
 * refs, index and logs), so --learn writes it, unless it is the .git of
 * a work tree above the project, which the projects beside share.  False
 * when there is none.
 */
static bool
git_grant(const struct mount *m, const char *abs, struct denial_grant *g)
{
	static const char *const kept[] = { "hooks", "config",
		"config.worktree", "commondir", "gitdir", "modules" };
	size_t len = strlen(m->dest);
	const char *rest = abs + len, *name = strrchr(m->dest, '/');
	bool above;

	if (m->kind != MOUNT_RO || name == NULL || strcmp(name, "/.git") != 0 ||
	    !util_path_within(abs, m->dest) || rest[0] != '/')
		return false;
	rest++;
	for (size_t i = 0; i < N_ELEMENTS(kept); i++) {
		size_t n = strlen(kept[i]);

		if (strncmp(rest, kept[i], n) == 0 &&
		    (rest[n] == '/' || rest[n] == '\0'))
			return false;
	}
	above = denial_walked_up(m->dest);
	*g = (struct denial_grant){ .option = "rw",
		.value = m->dest,
		.note = above ?
		    "a repository's git directory above the project, which host protection keeps read-only; named, it is writable but for its hooks and configuration (HOST PROTECTION in sbox-exec(1)); --learn leaves it out" :
		    "a repository's git directory, which host protection keeps read-only; named, it is writable but for its hooks and configuration (HOST PROTECTION in sbox-exec(1))",
		.wide = above };
	return true;
}

/*
 * The refused write to ABS said when the place itself decides: kept by
 * host protection, on the never-learned list, or a tool's cache below
 * ~/.cache.  True when said.
 */
static bool
said_by_place(const struct mount *m, const char *abs, const char *call)
{
	struct denial_grant g = { 0 };
	cleanup_free char *name = NULL, *setenv = NULL, *note = NULL;

	/* The home directory hidden whole is no store to keep: below it,
	 * the usual grant. */
	if (m != NULL && m->protection && git_grant(m, abs, &g)) {
		/* g says it */
	} else if (m != NULL && m->protection &&
	    !(w.home != NULL && util_path_within(w.home, m->dest))) {
		g.note = m->kind == MOUNT_HIDE_DIR ||
			m->kind == MOUNT_HIDE_FILE ?
		    "hidden by host protection (a credential store, a socket or sbox-exec's own files): no option is suggested" :
		    "kept read-only by host protection (HOST PROTECTION in sbox-exec(1)): no option is suggested";
	} else if (m != NULL &&
	    (m->kind == MOUNT_HIDE_DIR || m->kind == MOUNT_HIDE_FILE)) {
		/* --hide: named as hidden, nothing of what is below it on
		 * the host (a grant there would show it). */
		g.note = note = xasprintf(
		    "%s is hidden (--hide): no option is suggested", m->dest);
	} else if (!never_granted(abs, false, &g, &note, &setenv)) {
		/* The cache directory itself made: one private cache for
		 * every tool that finds it through XDG_CACHE_HOME. */
		if ((name = cache_name(abs)) == NULL && makes_dir(call) &&
		    w.cache_base != NULL &&
		    util_path_within(abs, w.cache_base) &&
		    util_path_within(w.cache_base, abs))
			name = xstrdup("xdg");
		if (name == NULL)
			return false;
		setenv = xasprintf("XDG_CACHE_HOME ${CACHE}/%s", name);
		note = xasprintf(
		    "a private cache, which the tool finds through XDG_CACHE_HOME; a policy file says --setenv %s",
		    setenv);
		g = (struct denial_grant){ .option = "cache",
			.value = name,
			.setenv = setenv,
			.note = note };
	}
	denial_report(DENIAL_WRITE, abs, call, &g);
	return true;
}

/*
 * Say the refused write to ABS by CALL, with the narrowest grant that
 * lets it through: the directory written in, an existing file alone
 * where its directory would be too wide, a missing directory made by
 * --rw-create; never one that holds the home or the project's siblings,
 * nor a place of the never-learned list.
 */
static void
say_write(const struct mount *m, const char *abs, const char *call)
{
	struct denial_grant g = { 0 };
	cleanup_free char *dir = NULL, *setenv = NULL, *note = NULL;
	const struct mount *hidden;
	const char *cred, *wide, *option = "rw";
	mode_t mode = 0;
	bool there;

	if (!denial_wanted()) {
		denial_report(DENIAL_WRITE, abs, call, NULL);
		return;
	}
	if (said_by_place(m, abs, call))
		return;
	there = exists(abs, &mode);
	if (there && mode == S_IFDIR) {
		dir = xstrdup(abs);
	} else if (!there && makes_dir(call)) {
		dir = xstrdup(abs);
		option = "rw-create";
	} else {
		dir = parent_of(abs);
	}
	if ((wide = denial_too_wide(dir)) == NULL) {
		g = (struct denial_grant){ .option = option, .value = dir };
	} else if (there && mode != S_IFDIR) {
		bool dot = denial_walked_up(abs);

		g = (struct denial_grant){ .option = "rw",
			.value = abs,
			.note = dot ?
			    "the file alone, a file of the home or above the project whose name starts with a dot, which tools outside the sandbox read: --learn leaves it out" :
			    "the file alone: its directory would be too wide a grant",
			.wide = dot };
	} else {
		if (strcmp(dir, "/") == 0)
			g.note =
			    "no option is suggested for a file directly in /";
		else
			g.note = note = xasprintf(
			    "a grant of %s would be too wide (%s), and a new file cannot be granted alone: no option is suggested",
			    dir, wide);
		denial_report(DENIAL_WRITE, abs, call, &g);
		return;
	}
	if (never_granted(g.value, true, &g, &note, &setenv)) {
		denial_report(DENIAL_WRITE, abs, call, &g);
		return;
	}
	if ((cred = credential_at(abs)) != NULL ||
	    (cred = credential_at(g.value)) != NULL) {
		note = util_path_within(cred, g.value) ?
		    xasprintf(
			"%s is on the credential list (HOST PROTECTION in sbox-exec(1)): no option is suggested",
			cred) :
		    xasprintf(
			"%s holds %s, which is on the credential list (HOST PROTECTION in sbox-exec(1)): no option is suggested",
			g.value, cred);
		g = (struct denial_grant){ .note = note };
	} else if (!g.wide && denial_walked_up(g.value)) {
		g.note =
		    "a tool's own place in the home, or one that tools below it find by looking up (a .git or node_modules above the project): tools outside the sandbox read it too; --learn leaves it out: a private cache (--cache) the tool is pointed at is safer";
		g.wide = true;
	} else if ((hidden = hides_within(g.value)) != NULL) {
		note = xasprintf(
		    "%s holds %s, which the sandbox hides (host protection or --hide); a policy file cannot grant it, type --rw=%s if you mean it",
		    g.value, hidden->dest, g.value);
		g = (struct denial_grant){ .note = note };
	}
	denial_report(DENIAL_WRITE, abs, call, &g);
}

/*
 * realpath(3) of DIR, the last answer remembered: a command refused in a
 * loop asks about one directory again and again, and each answer costs a
 * readlink(2) per component.  Only this thread asks.
 */
static char *
real_dir(const char *dir)
{
	static char *last_dir, *last_real;

	if (last_dir == NULL || strcmp(last_dir, dir) != 0) {
		free(last_dir);
		free(last_real);
		last_dir = xstrdup(dir);
		last_real = util_realpath(dir);
	}
	return last_real != NULL ? xstrdup(last_real) : NULL;
}

/* Decide what S saw, after the call was let go. */
static void
decide(struct seen *s)
{
	if (s->inet) {
		netwatch_decide(s->pid, s->fd, &s->conn);
		return;
	}
	for (int i = 0; i < 2; i++) {
		cleanup_free char *abs = NULL, *real = NULL, *parent = NULL;
		const struct mount *m;

		if (s->path[i][0] == '\0')
			continue;
		abs = util_path_absolute(s->path[i],
		    s->path[i][0] == '/' ? "/" : s->base[i]);
		if (abs == NULL)
			continue;
		m = policy_mount_for(w.policy, abs);
		/* Writes inside the grants, the common case, end here. */
		if (s->call->op != OP_CONNECT && m != NULL &&
		    writable_kind(m->kind)) {
			if (s->call->op != OP_RENAME)
				return;
			continue;
		}
		/* Through the host's links where the parent is there. */
		parent = parent_of(abs);
		if ((real = real_dir(parent)) != NULL &&
		    strcmp(real, parent) != 0 && strcmp(abs, "/") != 0) {
			char *joined = util_path_join(real,
			    strrchr(abs, '/') + 1);

			free(abs);
			abs = joined;
			m = policy_mount_for(w.policy, abs);
		}
		if (s->call->op == OP_CONNECT) {
			mode_t mode = 0;

			if (m != NULL &&
			    (m->kind == MOUNT_HIDE_DIR ||
				m->kind == MOUNT_HIDE_FILE) &&
			    exists(abs, &mode) && mode == S_IFSOCK) {
				/* Said, never learned or summed up: a
				 * socket acts for the user outside (a
				 * session bus, an agent), and exposing
				 * one is a choice to make by hand. */
				struct denial_grant g = {
					.option = "allow-socket",
					.value = abs,
					.note =
					    "a socket that acts outside the sandbox; --learn leaves it out: type it if you mean it",
					.wide = true,
				};

				denial_report(DENIAL_SOCKET, abs, "connect",
				    &g);
			}
			return;
		}
		if (i == 1 && s->call->op == OP_RENAME &&
		    refused(m, OP_CREATE, abs, 0)) {
			say_write(m, abs, s->call->name);
			return;
		}
		if (i == 0 && refused(m, s->call->op, abs, s->flags)) {
			say_write(m, abs, s->call->name);
			return;
		}
		if (i == 0 && s->call->op != OP_RENAME)
			return;
	}
}

/*
 * The credential list's stand-ins opened inside the sandbox (the events
 * on w.hidden_fd): each a read of a hidden credential, told once; true
 * when there were events to read.  The
 * file reads as empty, the directory lists as empty; nothing tells the
 * command otherwise.
 */
static bool
hidden_opened(void)
{
	char buf[4096]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n = read(w.hidden_fd, buf, sizeof(buf));

	for (ssize_t i = 0;
	     n > 0 && i + (ssize_t)sizeof(struct inotify_event) <= n;) {
		const struct inotify_event *ev = (const void *)(buf + i);
		const struct mount *m;
		struct denial_grant g = { 0 };
		cleanup_free char *note = NULL;

		i += (ssize_t)sizeof(*ev) + (ssize_t)ev->len;
		if ((ev->mask & IN_OPEN) == 0 || ev->wd < 0 ||
		    (size_t)ev->wd >= w.nwds || (m = w.wds[ev->wd]) == NULL)
			continue;
		note = xasprintf(
		    "on the credential list, so it %s empty in the sandbox (HOST PROTECTION in sbox-exec(1)); no option is suggested: a grant that names %s shows it, a choice to make by hand",
		    m->kind == MOUNT_HIDE_DIR ? "lists as" : "reads as",
		    m->dest);
		g.note = note;
		denial_report(DENIAL_READ, m->dest,
		    m->kind == MOUNT_HIDE_DIR ? "list" : "open", &g);
	}
	return n > 0;
}

/*
 * Watch the stand-ins for the credential list's paths in the sandbox
 * whose stage two is PID (as seen here), through its root: the empty
 * files and directories bwrap made, not the host's.  Before the command
 * starts, so that nothing inside can have moved them.  What cannot be
 * watched is not told; the sandbox is the same.
 */
static void
watch_hidden(pid_t pid)
{
	const struct policy *p = w.policy;

	if (w.masks == NULL || w.masks->n == 0)
		return;
	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount *m = &p->mounts[i];
		cleanup_free char *at = NULL;
		bool listed = false;
		int wd;

		if (m->kind != MOUNT_HIDE_FILE && m->kind != MOUNT_HIDE_DIR)
			continue;
		for (size_t j = 0; j < w.masks->n && !listed; j++)
			listed = strcmp(w.masks->v[j], m->dest) == 0;
		if (!listed)
			continue;
		if (w.hidden_fd < 0 &&
		    (w.hidden_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) < 0)
			return;
		at = xasprintf("/proc/%ld/root%s", (long)pid, m->dest);
		wd = inotify_add_watch(w.hidden_fd, at,
		    IN_OPEN | IN_DONT_FOLLOW);
		if (wd < 0)
			continue;
		if ((size_t)wd >= w.nwds) {
			size_t n = (size_t)wd + 16;

			w.wds = xreallocarray(w.wds, n, sizeof(*w.wds));
			for (size_t k = w.nwds; k < n; k++)
				w.wds[k] = NULL;
			w.nwds = n;
		}
		w.wds[wd] = m;
	}
}

/*
 * One notification: receive it, answer it, and say what it was.  False
 * when the listener cannot be read any more.
 */
static bool
serve_call(struct seccomp_notif *req, struct seccomp_notif_resp *resp,
    struct seen *s)
{
	bool now, seen;

	memset(req, 0, w.sizes.seccomp_notif);
	if (ioctl(w.fd, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
		return errno == EINTR || errno == ENOENT;
	/* What the call names is read while it waits (the caller's
	 * memory and working directory); what it means is decided on the
	 * host's files alone.  While refusals still get a line of their
	 * own, that is done before the call goes on, so that the line
	 * comes before the command's own words about the failure; after,
	 * while the call goes on, so that a command refused thousands of
	 * times is not held up for each.  What is decided is bounded (a
	 * few lstat calls) and a line is dropped rather than waited for
	 * (denial.c). */
	seen = read_call(req, s) == 0 &&
	    ioctl(w.fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) == 0;
	now = seen && denial_lines_left();
	if (now)
		decide(s);
	memset(resp, 0, w.sizes.seccomp_notif_resp);
	resp->id = req->id;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/* ENOENT: the caller is gone, or a signal ended its wait. */
	(void)ioctl(w.fd, SECCOMP_IOCTL_NOTIF_SEND, resp);
	if (seen && !now)
		decide(s);
	return true;
}

static void *
watch_loop(void *arg)
{
	struct seccomp_notif *req = calloc(1, w.sizes.seccomp_notif);
	struct seccomp_notif_resp *resp = calloc(1, w.sizes.seccomp_notif_resp);
	struct seen *s = malloc(sizeof(*s));

	(void)arg;
	/* The launcher waits as SCHED_BATCH (launch.c); a watched call
	 * waits for this thread, which must not wait behind other tasks'
	 * slices. */
	(void)syscall(SYS_sched_setscheduler, 0, SCHED_OTHER,
	    &(struct sched_param){ 0 });
	while (req != NULL && resp != NULL && s != NULL) {
		struct pollfd pfd[3] = { { w.fd, POLLIN, 0 },
			{ w.wake[0], POLLIN, 0 }, { w.hidden_fd, POLLIN, 0 } };
		bool end = false;

		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		pthread_mutex_lock(&w.busy);
		if (pfd[2].revents & POLLIN)
			(void)hidden_opened();
		if (pfd[1].revents != 0) {
			/* The command ended: what it opened last is told. */
			while (w.hidden_fd >= 0 && hidden_opened())
				;
			end = true;
		} else if ((pfd[0].revents & POLLIN) != 0) {
			end = !serve_call(req, resp, s);
		} else {
			/* Anything else: everything under the filter ended. */
			end = pfd[0].revents != 0;
		}
		pthread_mutex_unlock(&w.busy);
		if (end)
			break;
	}
	free(req);
	free(resp);
	free(s);
	return NULL;
}

/*
 * Serve the listener FD (taken) for the sandbox of policy P; HOME and
 * CACHE_BASE (either NULL) shape the grants suggested, and none reaches
 * a path of MASKS (the credential list).  0, or -1 (FD
 * closed) when the thread cannot start: the sandbox then runs as asked,
 * with no denials told, and the caller says so.
 */
int
watch_start(int fd, pid_t pid, const struct policy *p, const char *home,
    const char *cache_base, const struct strv *masks)
{
	sigset_t all, old;
	int rc;

	w.fd = fd;
	w.policy = p;
	w.home = home;
	w.cache_base = cache_base;
	w.masks = masks;
	/* The kernel's sizes, or this build's where it does not say
	 * (a kernel before 5.5 has no listener to serve at all). */
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &w.sizes) < 0)
		w.sizes = (struct seccomp_notif_sizes){
			sizeof(struct seccomp_notif),
			sizeof(struct seccomp_notif_resp),
			sizeof(struct seccomp_data),
		};
	if (pipe2(w.wake, O_CLOEXEC) < 0) {
		fd_close(&w.fd);
		return -1;
	}
	/* Linux 6.6 and later: a watched call and this thread hand over on
	 * one CPU, without a trip through the scheduler each way; where the
	 * kernel does not know the flag, it is the same answer, slower. */
	(void)ioctl(w.fd, WATCH_IOCTL_NOTIF_SET_FLAGS,
	    (__u64)WATCH_NOTIF_FD_SYNC_WAKE_UP);
	watch_hidden(pid);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&w.thread, NULL, watch_loop, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		errno = rc;
		watch_stop(); /* not running: only lets go of the rest */
		return -1;
	}
	w.running = true;
	return 0;
}

/* The command ended: end the thread, close the listener. */
void
watch_stop(void)
{
	if (w.running) {
		(void)!write(w.wake[1], "x", 1);
		pthread_join(w.thread, NULL);
		w.running = false;
	}
	fd_close(&w.fd);
	fd_close(&w.wake[0]);
	fd_close(&w.wake[1]);
	fd_close(&w.hidden_fd);
	free(w.wds);
	w.wds = NULL;
	w.nwds = 0;
}
