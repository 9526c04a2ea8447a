#!/usr/bin/python3
"""One language server session over stdio, as an editor would hold it.

Usage: lsp-session.py [--log FILE] ROOT FILE LANG LINE COL EXPECT -- COMMAND...

Starts COMMAND (a language server, usually under sbox-exec), initializes
it on the project ROOT with "processId": null, opens FILE (relative to
ROOT, language LANG) and asks at LINE:COL (0-based; a use of a symbol
defined in the file EXPECT, relative to ROOT) for the definition, a hover
and completion; then shutdown and exit.  Prints one JSON line saying what
came back; exits 0 only when the definition is in EXPECT, the hover and
the completion are not empty and the server exited 0 by itself.  The
server's stderr goes to FILE given with --log (default: discarded).
"""
import json
import os
import signal
import subprocess
import sys
import time


def fail(msg):
    sys.stderr.write("lsp-session: %s\n" % msg)
    sys.exit(1)


class Server:
    def __init__(self, cmd, log):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=log)
        self.next_id = 0

    def send(self, msg):
        msg["jsonrpc"] = "2.0"
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body))
        self.proc.stdin.write(body)
        self.proc.stdin.flush()

    def read(self):
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                fail("the server closed its output (exit %s)" %
                     self.proc.wait())
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode("ascii").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        if length is None:
            fail("a message without Content-Length")
        return json.loads(self.proc.stdout.read(length))

    def answer(self, msg):
        """A request of the server's own: a neutral answer."""
        result = None
        if msg["method"] == "workspace/configuration":
            result = [None] * len(msg["params"]["items"])
        self.send({"id": msg["id"], "result": result})

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.send({"id": rid, "method": method, "params": params})
        while True:
            msg = self.read()
            if "method" in msg and "id" in msg:
                self.answer(msg)
            elif msg.get("id") == rid:
                if "error" in msg:
                    fail("%s: %s" % (method, msg["error"]))
                return msg.get("result")

    def notify(self, method, params):
        self.send({"method": method, "params": params})


def definition_files(result):
    if isinstance(result, dict):
        result = [result]
    return [loc.get("uri") or loc.get("targetUri") for loc in result or []]


def hover_text(result):
    if not result:
        return ""
    c = result.get("contents")
    if isinstance(c, dict):
        return c.get("value", "")
    if isinstance(c, list):
        return " ".join(x if isinstance(x, str) else x.get("value", "")
                        for x in c)
    return c or ""


def session(srv, root, path, lang, pos, expect):
    root_uri = "file://" + root
    uri = root_uri + "/" + path
    caps = {"textDocument": {
        "hover": {"contentFormat": ["plaintext", "markdown"]},
        "definition": {"linkSupport": False},
        "completion": {"completionItem": {"snippetSupport": False}}}}
    srv.request("initialize", {"processId": None, "rootUri": root_uri,
                               "capabilities": caps, "workspaceFolders":
                               [{"uri": root_uri, "name": "project"}]})
    srv.notify("initialized", {})
    with open(os.path.join(root, path)) as f:
        text = f.read()
    srv.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": lang, "version": 1, "text": text}})
    where = {"textDocument": {"uri": uri}, "position": pos}
    got = []
    for _ in range(60):  # a server may answer nothing while it loads
        got = definition_files(srv.request("textDocument/definition", where))
        if got:
            break
        time.sleep(0.5)
    if root_uri + "/" + expect not in got:
        fail("definition: %s, not %s" % (got, expect))
    hover = hover_text(srv.request("textDocument/hover", where))
    comp = srv.request("textDocument/completion", where)
    items = comp.get("items", []) if isinstance(comp, dict) else comp or []
    return {"definition": expect, "hover": hover[:60], "completion":
            len(items)}


def main(argv):
    log = subprocess.DEVNULL
    if argv[:1] == ["--log"]:
        log = open(argv[1], "w")
        argv = argv[2:]
    if len(argv) < 8 or argv[6] != "--":
        fail("usage: lsp-session.py [--log FILE] ROOT FILE LANG LINE COL "
             "EXPECT -- COMMAND...")
    root, path, lang, line, col, expect = argv[:6]
    signal.alarm(120)
    srv = Server(argv[7:], log)
    out = session(srv, root, path, lang,
                  {"line": int(line), "character": int(col)}, expect)
    srv.request("shutdown", None)
    srv.notify("exit", None)
    srv.proc.stdin.close()
    out["exit"] = srv.proc.wait(timeout=30)
    print(json.dumps(out))
    if not out["hover"].strip():
        fail("empty hover")
    if out["completion"] == 0:
        fail("no completion")
    if out["exit"] != 0:
        fail("the server exited %d" % out["exit"])


main(sys.argv[1:])
