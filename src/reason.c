/*
 * reason.c - why a sandbox was not made: bwrap's words, or how it ended,
 * turned into the refusal's detail, and a hint found for them.
 *
 * Pure: the outcome ready.c collected in, an error value out; tested with
 * strings (tests/unit/reason_test.c).  What fails here is reported as
 * sandbox-probe-failed, the status's name for it (sbox-exec(1), STATUS).
 * What the host says about it (an AppArmor setting, the bwrap in use) is
 * read by launch.c and handed in.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>

#include "ready.h"
#include "util.h"

#define HINT_ENOSPC                                                            \
	"user namespaces are disabled or used up here (user.max_user_namespaces is 0 or reached); raise it, e.g. sysctl -w user.max_user_namespaces=15000"

/* The hint for bwrap's words TEXT, or NULL. */
static const char *
hint_for(const char *text)
{
	const struct {
		const char *needle;
		const char *hint;
	} hints[] = {
		/* Resource limits first: bwrap words them as a failure to
		 * fork or to create something, which the entries below would
		 * take for a path or a namespace problem. */
		{ "Resource temporarily unavailable", sbox_errno_hint(EAGAIN) },
		{ "Too many open files", sbox_errno_hint(EMFILE) },
		{ "No file descriptors available", sbox_errno_hint(EMFILE) },
		{ "Cannot allocate memory", sbox_errno_hint(ENOMEM) },
		{ "Out of memory", sbox_errno_hint(ENOMEM) },
		{ "setting up uid map: Permission denied",
		    "unprivileged user namespaces are restricted, most likely by AppArmor (Ubuntu 23.10 and later: kernel.apparmor_restrict_unprivileged_userns=1); install an AppArmor profile that allows bwrap to create user namespaces, or set that sysctl to 0" },
		{ "No space left on device", HINT_ENOSPC },
		{ "ENOSPC", HINT_ENOSPC },
		{ "RTM_NEWADDR",
		    "the loopback interface of the new network namespace could not be configured, usually because an outer container or seccomp policy forbids it; run where network namespaces are allowed, or use --net" },
		{ "Operation not permitted",
		    "unprivileged user namespaces are not allowed here (on Debian kernels: sysctl -w kernel.unprivileged_userns_clone=1; in a container: allow unshare/clone of user namespaces)" },
		/* "to creating new" up to 0.8, "to create a new" after. */
		{ "No permissions to creat",
		    "unprivileged user namespaces are not allowed here (on Debian kernels: sysctl -w kernel.unprivileged_userns_clone=1)" },
		{ "Can't ",
		    "a path the policy names could not be set up inside the sandbox; check that it exists and is reachable" },
	};

	for (size_t i = 0; i < N_ELEMENTS(hints); i++)
		if (strstr(text, hints[i].needle) != NULL)
			return hints[i].hint;
	return NULL;
}

/* S's lines joined with "; " into B, blank ones and trailing space
 * dropped. */
static void
join_lines(struct buf *b, const char *s)
{
	while (*s != '\0') {
		const char *end = strchrnul(s, '\n');
		size_t len = (size_t)(end - s);

		while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\r'))
			len--;
		if (len > 0) {
			if (b->len > 0)
				buf_adds(b, "; ");
			buf_add(b, s, len);
		}
		s = *end ? end + 1 : end;
	}
}

/* The bwrap that Ubuntu's bwrap-userns-restrict profile lets create user
 * namespaces. */
#define APPARMOR_COVERED_BWRAP "/usr/bin/bwrap"

/*
 * Whether bwrap's words TEXT, on a host as HOST describes it, mean that
 * AppArmor kept the bwrap in use from making its user namespace: the
 * restriction is on (Ubuntu 23.10 and later), the bwrap is not the one
 * the distribution's profile covers, and bwrap was refused at its user
 * namespace.
 */
static bool
apparmor_refused(const char *text, const struct reason_host *host)
{
	if (host == NULL || !host->apparmor_restricts_userns ||
	    host->bwrap == NULL ||
	    strcmp(host->bwrap, APPARMOR_COVERED_BWRAP) == 0)
		return false;
	if (strstr(text, "Permission denied") == NULL &&
	    strstr(text, "Operation not permitted") == NULL)
		return false;
	return strstr(text, "uid map") != NULL ||
	    strstr(text, "gid map") != NULL ||
	    strstr(text, "setgroups") != NULL ||
	    strstr(text, "namespace") != NULL;
}

/* The refusal for a bwrap AppArmor kept from user namespaces: the cause
 * after bwrap's words TEXT, the remedies in the hint. */
static void
apparmor_error(const char *text, const struct reason_host *host,
    struct sbox_error *err)
{
	sbox_error_set(err, SBOX_PROBE_FAILED,
	    "%s; AppArmor restricts unprivileged user namespaces here (kernel.apparmor_restrict_unprivileged_userns=1), and the bwrap in use, %s, is not /usr/bin/bwrap, the one the distribution's bwrap-userns-restrict profile lets create them",
	    text, host->bwrap);
	sbox_error_hint(err,
	    "install the distribution's bubblewrap (apt install bubblewrap) and sbox-exec will use it from PATH; or give this bwrap an AppArmor profile that allows user namespaces, as root: printf '%%s\\n' 'abi <abi/4.0>,' 'include <tunables/global>' 'profile sbox-exec-bwrap \"%s\" flags=(unconfined) {' '  userns,' '}' >/etc/apparmor.d/sbox-exec-bwrap && apparmor_parser -r /etc/apparmor.d/sbox-exec-bwrap",
	    host->bwrap);
}

/*
 * The refusal of an sbox-exec run inside an sbox-exec sandbox, which
 * allows no sandbox within it: said plainly, with SAID (what bwrap or the
 * bwrap lookup said, or NULL) in brackets, instead of a setting to change.
 */
void
reason_nested(const char *said, struct sbox_error *err)
{
	bool has = said != NULL && said[0] != '\0';

	sbox_error_set(err, SBOX_PROBE_FAILED,
	    "sbox-exec is running inside an sbox-exec sandbox, which allows no sandbox within it%s%s%s",
	    has ? " (" : "", has ? said : "", has ? ")" : "");
	sbox_error_hint(err,
	    "run this sbox-exec outside the sandbox, or run the command directly: it is sandboxed already");
}

/* PATH without bwrap's own prefix for the new or the old root. */
static void
add_setup_path(struct strv *v, const char *path, size_t len)
{
	static const char *const roots[] = { "/newroot/", "/oldroot/" };

	for (size_t i = 0; i < N_ELEMENTS(roots); i++) {
		size_t n = strlen(roots[i]) - 1;

		if (len > n && strncmp(path, roots[i], n + 1) == 0) {
			path += n;
			len -= n;
			break;
		}
	}
	if (len > 0 && path[0] == '/')
		strv_take(v, xstrndup(path, len));
}

/*
 * The host paths bwrap's words TEXT say it could not set up, added to V:
 * "Can't mkdir P: why", "Can't create file at P: why", "Can't bind mount
 * A on B: why" (both).  A path is what runs from the first " /" after
 * "Can't " to the line's last ": ".  launch.c asks whether they still
 * exist: one removed since the launch planned it (a socket's directory
 * under /run, say) makes the launch plan again.
 */
void
reason_setup_paths(const char *text, struct strv *v)
{
	for (const char *s = text; (s = strstr(s, "Can't ")) != NULL;) {
		const char *eol = strchrnul(s, '\n');
		const char *start = NULL, *end = NULL, *on;

		for (const char *c = s; c + 1 < eol; c++) {
			if (start == NULL && c[0] == ' ' && c[1] == '/')
				start = c + 1;
			if (c[0] == ':' && c[1] == ' ')
				end = c;
		}
		if (start != NULL && end != NULL && end > start) {
			on = memmem(start, (size_t)(end - start), " on /", 5);
			if (on != NULL) {
				add_setup_path(v, start, (size_t)(on - start));
				start = on + 4;
			}
			add_setup_path(v, start, (size_t)(end - start));
		}
		s = eol;
	}
}

/* Turn bwrap's words into a detail, and a hint where one is known; HOST
 * (or NULL) says what the host's settings add to them. */
void
reason_classify(const struct ready_outcome *o, long timeout_ms,
    const struct reason_host *host, struct sbox_error *err)
{
	cleanup_buf struct buf text = { 0 };
	const char *hint;

	join_lines(&text, o->bwrap_stderr ? o->bwrap_stderr : "");

	/* Inside our own sandbox, whatever bwrap said: the sandbox forbids
	 * the namespaces another one needs, by design. */
	if (host != NULL && host->nested && !o->timed_out) {
		reason_nested(text.s, err);
		return;
	}

	if (!o->timed_out && text.len > 0 && apparmor_refused(text.s, host)) {
		apparmor_error(text.s, host, err);
		return;
	}
	if (o->timed_out)
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "the sandbox was not ready within %ld.%03ld s%s%s",
		    timeout_ms / 1000, timeout_ms % 1000, text.len ? ": " : "",
		    text.len ? text.s : "");
	else if (text.len > 0)
		sbox_error_set(err, SBOX_PROBE_FAILED, "%s", text.s);
	else if (o->reaped && WIFSIGNALED(o->wait_status))
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "bwrap was killed by signal %d (%s) before the sandbox was ready",
		    WTERMSIG(o->wait_status),
		    strsignal(WTERMSIG(o->wait_status)));
	else if (o->reaped && WIFEXITED(o->wait_status))
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "bwrap exited with status %d before the sandbox was ready",
		    WEXITSTATUS(o->wait_status));
	else
		sbox_error_set(err, SBOX_PROBE_FAILED,
		    "bwrap ended before the sandbox was ready");

	if (o->timed_out && host != NULL &&
	    host->nmounts > REASON_MANY_MOUNTS) {
		sbox_error_hint(err,
		    "bwrap was setting up %zu mounts, and its time grows with the square of their number; grant fewer, wider paths, or allow more time with --probe-timeout",
		    host->nmounts);
		return;
	}
	if (o->timed_out) {
		sbox_error_hint(err,
		    "the machine may be overloaded; allow more time with --probe-timeout");
		return;
	}
	/* A mount refused for want of room: the kernel's limit on mounts in
	 * a namespace, not user namespaces. */
	if (text.len > 0 && strstr(text.s, "mount") != NULL &&
	    strstr(text.s, "No space left on device") != NULL) {
		sbox_error_hint(err,
		    "the kernel's limit on mounts in a namespace (fs.mount-max, %ld) was reached with the %zu mounts of this sandbox and those copied from the host; grant fewer, wider paths, or raise fs.mount-max",
		    host != NULL ? host->mount_max : 0L,
		    host != NULL ? host->nmounts : (size_t)0);
		return;
	}
	hint = text.len > 0 ? hint_for(text.s) : NULL;
	if (hint != NULL)
		sbox_error_hint(err, "%s", hint);
}
