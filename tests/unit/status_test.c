/* Unit tests of status.c: the JSON line. */
#include <stdlib.h>

#include "status.h"
#include "tap.h"
#include "util.h"

static void
test_render(void)
{
	struct status_report ok_r = { .status = SBOX_SUCCESS,
		.bwrap = "/usr/bin/bwrap",
		.pid = 42,
		.abstract_unix = "blocked" };
	struct status_report bad = { .status = SBOX_PROBE_FAILED,
		.bwrap = "/b",
		.pid = 42,
		.detail = "a \"q\" \\ \n\t\x01",
		.hint = "h" };
	struct status_report nf = { .status = SBOX_BWRAP_NOT_FOUND };
	char *s;

	s = status_render(&ok_r);
	is_str(s,
	    "{\"version\":1,\"status\":\"success\",\"bwrap\":"
	    "\"/usr/bin/bwrap\",\"pid\":42,\"abstract_unix\":\"blocked\"}\n",
	    "success line");
	free(s);
	s = status_render(&bad);
	is_str(s,
	    "{\"version\":1,\"status\":\"sandbox-probe-failed\","
	    "\"bwrap\":\"/b\",\"detail\":\"a \\\"q\\\" \\\\ \\n\\t\\u0001\","
	    "\"hint\":\"h\"}\n",
	    "escapes; no pid unless success");
	free(s);
	s = status_render(&nf);
	is_str(s, "{\"version\":1,\"status\":\"bwrap-not-found\"}\n",
	    "no bwrap field when none was found");
	free(s);
	ok_r.landlock = "none";
	ok_r.seccomp = "filter";
	s = status_render(&ok_r);
	is_str(s,
	    "{\"version\":1,\"status\":\"success\",\"bwrap\":"
	    "\"/usr/bin/bwrap\",\"pid\":42,\"abstract_unix\":\"blocked\","
	    "\"landlock\":\"none\",\"seccomp\":\"filter\"}\n",
	    "what is in force: landlock and seccomp");
	free(s);
	nf.status = SBOX_BWRAP_UNTRUSTED;
	s = status_render(&nf);
	is_str(s, "{\"version\":1,\"status\":\"bwrap-untrusted\"}\n",
	    "bwrap-untrusted");
	free(s);
	ok_r.bwrap_source = "bundled";
	s = status_render(&ok_r);
	is_str(s,
	    "{\"version\":1,\"status\":\"success\",\"bwrap\":"
	    "\"/usr/bin/bwrap\",\"bwrap_source\":\"bundled\",\"pid\":42,"
	    "\"abstract_unix\":\"blocked\",\"landlock\":\"none\","
	    "\"seccomp\":\"filter\"}\n",
	    "bwrap_source right after bwrap");
	free(s);
	ok_r.limits = "{\"nproc\":50,\"core\":0}";
	s = status_render(&ok_r);
	is_str(s,
	    "{\"version\":1,\"status\":\"success\",\"bwrap\":"
	    "\"/usr/bin/bwrap\",\"bwrap_source\":\"bundled\",\"pid\":42,"
	    "\"abstract_unix\":\"blocked\",\"landlock\":\"none\","
	    "\"seccomp\":\"filter\",\"limits\":{\"nproc\":50,\"core\":0}}\n",
	    "limits, an object, after seccomp");
	free(s);
	ok_r.abstract_names = "shared";
	ok_r.limits = NULL;
	s = status_render(&ok_r);
	is_str(s,
	    "{\"version\":1,\"status\":\"success\",\"bwrap\":"
	    "\"/usr/bin/bwrap\",\"bwrap_source\":\"bundled\",\"pid\":42,"
	    "\"abstract_unix\":\"blocked\",\"abstract_names\":\"shared\","
	    "\"landlock\":\"none\",\"seccomp\":\"filter\"}\n",
	    "abstract_names right after abstract_unix");
	free(s);
}

static void
test_utf8(void)
{
	struct status_report r = { .status = SBOX_INVALID_POLICY,
		.detail = "/x\xff/\xc3\xa9/\xe2\x82/\xed\xa0\x80" };
	char *s = status_render(&r);

	is_str(s,
	    "{\"version\":1,\"status\":\"invalid-policy\",\"detail\":"
	    "\"/x\xef\xbf\xbd/\xc3\xa9/\xef\xbf\xbd\xef\xbf\xbd/"
	    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"}\n",
	    "invalid UTF-8 becomes U+FFFD, valid kept");
	free(s);
}

/* The command's lookup (sbox-exec(1), STATUS): the success line names the
 * file; a command that cannot start has a status and exit code of its own. */
static void
test_command(void)
{
	struct status_report r = { .status = SBOX_SUCCESS,
		.pid = 7,
		.command = "/usr/bin/clang\"d" };
	char *s = status_render(&r);

	is_str(s,
	    "{\"version\":1,\"status\":\"success\",\"pid\":7,"
	    "\"command\":\"/usr/bin/clang\\\"d\"}\n",
	    "success names the command, after the pid");
	free(s);
	r.status = SBOX_COMMAND_NOT_FOUND;
	r.detail = "clangd: not found";
	s = status_render(&r);
	is_str(s,
	    "{\"version\":1,\"status\":\"command-not-found\","
	    "\"detail\":\"clangd: not found\"}\n",
	    "command-not-found: no command, no pid");
	free(s);
	r.status = SBOX_COMMAND_NOT_EXECUTABLE;
	s = status_render(&r);
	is_str(s,
	    "{\"version\":1,\"status\":\"command-not-executable\","
	    "\"detail\":\"clangd: not found\"}\n",
	    "command-not-executable");
	free(s);
	ok(sbox_status_exit(SBOX_COMMAND_NOT_FOUND) == 127, "not found: 127");
	ok(sbox_status_exit(SBOX_COMMAND_NOT_EXECUTABLE) == 126,
	    "not executable: 126");
	ok(sbox_status_exit(SBOX_INVALID_POLICY) == 125 &&
		sbox_status_exit(SBOX_PROBE_FAILED) == 125,
	    "other refusals: 125");
}

/* Whatever the inputs, one line of at most STATUS_MAX bytes. */
static void
test_limit(void)
{
	char *big = xmalloc(100000);
	struct status_report r = { .status = SBOX_PROBE_FAILED };
	char *s;

	memset(big, '\x01', 99999);
	big[99999] = '\0';
	r.bwrap = r.detail = r.hint = big;
	s = status_render(&r);
	ok(strlen(s) <= STATUS_MAX, "capped at %d bytes (got %zu)", STATUS_MAX,
	    strlen(s));
	ok(strchr(s, '\n') == s + strlen(s) - 1, "exactly one newline, last");
	free(s);
	r.status = SBOX_SUCCESS;
	r.command = big;
	s = status_render(&r);
	ok(strlen(s) <= STATUS_MAX, "capped with a long command too");
	free(s);
	r.status = SBOX_PROBE_FAILED;
	memset(big, '\xe9', 99999);
	s = status_render(&r);
	ok(strlen(s) <= STATUS_MAX, "capped with multibyte replacements");
	free(s);
	free(big);
}

int
main(void)
{
	test_render();
	test_utf8();
	test_command();
	test_limit();
	return tap_done();
}
