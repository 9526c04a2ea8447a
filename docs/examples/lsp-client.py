#!/usr/bin/python3
"""An editor's side of a sandboxed language server, in Python.

Usage: lsp-client.py [--sbox=PATH] [--server=NAME] [--sbox-option=OPT]...
                     PROJECT

Starts NAME (default: clangd) under `sbox-exec --profile=clangd` in the C
project PROJECT, which holds main.c and util.h: main.c calls answer(),
which util.h defines.  The status arrives on an abstract datagram socket
(`--status-socket=@name`); a datagram is believed only when the kernel
says it comes from the process we spawned, running as us.  Then one LSP
session: initialize (processId null), initialized, didOpen main.c,
textDocument/definition on the call (which must lead to util.h), shutdown,
exit.  See docs/INTEGRATION.md.

Exit: 0 the session worked; 1 it did not; 2 usage; 3 the sandbox was
refused (the reason is printed); 4 the server is not installed in the
sandbox's view, or cannot be executed there.
"""

import json
import os
import queue
import secrets
import select
import socket
import struct
import subprocess
import sys
import threading
import time

TIMEOUT = 30  # seconds, for the status and for each answer


def receive_status(sock, proc):
    """The status sbox-exec sent us, or None when it ended without one.

    Waits on the socket and on the process at once: a mode that sends no
    status (--help, --print), or a launcher killed before it could send,
    must not leave us waiting for the whole timeout.
    """
    exited = os.pidfd_open(proc.pid)
    deadline = time.monotonic() + TIMEOUT
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                proc.kill()
                return None
            ready, _, _ = select.select([sock, exited], [], [], left)
            if sock in ready:
                status = own_datagram(sock, proc)
                if status is not None:
                    return status
            elif ready:
                # The status, when there is one, is queued before the
                # process can end: look once more, without waiting.
                try:
                    return own_datagram(sock, proc)
                except BlockingIOError:
                    return None
    finally:
        os.close(exited)


def own_datagram(sock, proc):
    """One datagram, as JSON, if our child sent it; otherwise None.

    Anyone on the machine may send to an abstract name: the credentials
    the kernel attaches (SO_PASSCRED) must name our child and our uid.
    """
    data, anc, _, _ = sock.recvmsg(
        4096, socket.CMSG_SPACE(struct.calcsize("iII")), socket.MSG_DONTWAIT
    )
    for level, kind, payload in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid, uid, _gid = struct.unpack("iII", payload[:12])
            if pid == proc.pid and uid == os.getuid():
                return json.loads(data)
    return None


class Lsp:
    """JSON-RPC with Content-Length framing over the server's stdio; a
    thread reads the server's messages into a queue."""

    def __init__(self, proc):
        self.proc = proc
        self.next_id = 1
        self.inbox = queue.Queue()
        threading.Thread(target=self.reader, daemon=True).start()

    def reader(self):
        try:
            while True:
                self.inbox.put(self.read_message())
        except (EOFError, ValueError, OSError) as e:
            self.inbox.put(e)

    def read_message(self):
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError("the server closed its output")
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        if length is None:
            raise ValueError("a message without Content-Length")
        return json.loads(self.proc.stdout.read(length))

    def send(self, method, params, notify=False):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            msg["id"] = self.next_id
            self.next_id += 1
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return msg.get("id")

    def request(self, method, params):
        want = self.send(method, params)
        deadline = time.monotonic() + TIMEOUT
        while True:
            left = deadline - time.monotonic()
            try:
                msg = self.inbox.get(timeout=max(left, 0.001))
            except queue.Empty:
                raise TimeoutError(f"no answer to {method} in {TIMEOUT} s")
            if isinstance(msg, Exception):
                raise msg
            if msg.get("id") == want and "method" not in msg:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result")
            # Notifications (diagnostics, logs) are not what we wait for.


def session(proc, project):
    """The LSP session; raises on anything unexpected."""
    lsp = Lsp(proc)
    root = "file://" + project
    # processId null: the server runs in the sandbox's own pid namespace,
    # where our pid names nobody (a server that checks it with
    # kill(pid, 0) would exit at once, unless sbox-exec runs with --lsp,
    # as the language-server profiles do); the sandbox dies with
    # sbox-exec anyway, and sbox-exec with us.
    lsp.request("initialize", {"processId": None, "rootUri": root,
                               "capabilities": {}})
    lsp.send("initialized", {}, notify=True)
    main_c = os.path.join(project, "main.c")
    with open(main_c, encoding="utf-8") as f:
        text = f.read()
    lsp.send("textDocument/didOpen", {"textDocument": {
        "uri": "file://" + main_c, "languageId": "c", "version": 1,
        "text": text}}, notify=True)
    # The call of answer() in main.c.
    line = next(i for i, s in enumerate(text.splitlines()) if "answer()" in s)
    col = text.splitlines()[line].index("answer")
    result = lsp.request("textDocument/definition", {
        "textDocument": {"uri": "file://" + main_c},
        "position": {"line": line, "character": col}})
    locations = result if isinstance(result, list) else [result]
    with open(os.path.join(project, "util.h"), encoding="utf-8") as f:
        want = next(i for i, s in enumerate(f.read().splitlines())
                    if "answer(void)" in s)
    got = [(loc.get("uri", loc.get("targetUri")),
            (loc.get("range") or loc.get("targetSelectionRange"))
            ["start"]["line"]) for loc in locations if loc]
    if ("file://" + os.path.join(project, "util.h"), want) not in got:
        raise RuntimeError(f"definition: expected util.h line {want + 1}, "
                           f"got {got}")
    print(f"definition: util.h:{want + 1}")
    lsp.request("shutdown", None)
    lsp.send("exit", None, notify=True)
    proc.stdin.close()


def parse_args(argv):
    opts = {"sbox": os.environ.get("SBOX_EXEC", "sbox-exec"),
            "server": "clangd", "extra": []}
    rest = []
    for arg in argv:
        if arg.startswith("--sbox="):
            opts["sbox"] = arg[len("--sbox="):]
        elif arg.startswith("--server="):
            opts["server"] = arg[len("--server="):]
        elif arg.startswith("--sbox-option="):
            opts["extra"].append(arg[len("--sbox-option="):])
        else:
            rest.append(arg)
    if len(rest) != 1:
        sys.exit(__doc__.split("\n\n")[1])
    return opts, os.path.realpath(rest[0])


def main(argv):
    opts, project = parse_args(argv)
    name = "sbox-exec-" + secrets.token_hex(8)  # hard to guess
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    sock.bind("\0" + name)  # "@name": abstract, no file to clean up

    proc = subprocess.Popen(
        [opts["sbox"], "--status-socket=@" + name, "--profile=clangd",
         *opts["extra"], "--", opts["server"]],
        cwd=project, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    # The server's log (and sbox-exec's words): kept, shown on failure.
    log = []
    threading.Thread(target=lambda: log.extend(proc.stderr), daemon=True
                     ).start()
    status = receive_status(sock, proc)
    sock.close()

    if status is None:
        code = proc.wait()
        print(f"no status: sbox-exec ended with {code}", file=sys.stderr)
        return 1
    if status["status"] in ("command-not-found", "command-not-executable"):
        # An editor says "clangd is not installed" here, not "crashed".
        proc.wait()
        print(f"{opts['server']} cannot start in the sandbox: "
              f"{status['status']}: {status.get('detail')}")
        return 4
    if status["status"] != "success":
        # Refused: nothing runs.  An editor shows the reason and offers
        # to run the server unsandboxed (marked as such) or not at all.
        proc.wait()
        print(f"sandbox refused: {status['status']}: {status.get('detail')}"
              + (f" (hint: {status['hint']})" if status.get("hint") else ""))
        return 3
    print(f"sandboxed: {status.get('command')}")
    try:
        session(proc, project)
        code = proc.wait(timeout=TIMEOUT)
    except Exception as e:  # noqa: BLE001 - an example reports them all
        proc.kill()
        proc.wait()
        print(f"LSP session failed: {e}", file=sys.stderr)
        sys.stderr.write(b"".join(log[-20:]).decode(errors="replace"))
        return 1
    print(f"server exited with {code}")
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
