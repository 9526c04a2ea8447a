#!/usr/bin/python3
"""An editor's LSP client that sends its own pid, as Neovim, VS Code,
Emacs' eglot and Helix do, and checks that the server stays up.

Usage: lsp-alive.py [--log FILE] [--shell] PROCESS_ID WAIT ROOT -- COMMAND...

Starts COMMAND (a language server, usually under sbox-exec; with --shell
through "/bin/sh -c", which stays the server's parent, as an editor's
shell wrapper does) and initializes it on ROOT with "processId" set to
PROCESS_ID: "self" (this client's pid), "gone" (the pid of a process
that has just ended) or a pid.  Then WAIT seconds of an editor's idle session
(the server's own requests answered), then a request the server does not
know, which any live server answers (with an error).  Prints JSON lines:
{"started": PID} (COMMAND's pid, or the shell's) at once, then
{"alive": true, "answered": SECONDS} or {"alive": false, "exit": CODE,
"after": SECONDS}.  Alive, it stays (reading the server, as an editor
does) until it is killed, or until the server ends: then it prints
{"server-ended": CODE} and exits 1; otherwise it exits 1.  The server's stderr goes
to FILE given with --log (default: discarded).
"""
import json
import os
import select
import subprocess
import sys
import time


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class Server:
    def __init__(self, cmd, log):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=log)
        self.buf = b""

    def send(self, msg):
        msg["jsonrpc"] = "2.0"
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) +
                              body)
        self.proc.stdin.flush()

    def message(self, deadline):
        """The next message, None at the deadline; EOFError when the
        server closed its output."""
        while True:
            head, sep, rest = self.buf.partition(b"\r\n\r\n")
            if sep:
                length = None
                for line in head.split(b"\r\n"):
                    name, _, value = line.decode("ascii").partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                if length is not None and len(rest) >= length:
                    self.buf = rest[length:]
                    return json.loads(rest[:length])
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            fd = self.proc.stdout.fileno()
            if select.select([fd], [], [], left)[0]:
                data = os.read(fd, 65536)
                if not data:
                    raise EOFError
                self.buf += data

    def answer(self, msg):
        """A request of the server's own: a neutral answer."""
        result = None
        if msg["method"] == "workspace/configuration":
            result = [None] * len(msg["params"]["items"])
        self.send({"id": msg["id"], "result": result})

    def until(self, deadline, rid=None):
        """Serve the server until DEADLINE or the answer to RID."""
        while True:
            msg = self.message(deadline)
            if msg is None:
                return None
            if "method" in msg and "id" in msg:
                self.answer(msg)
            elif rid is not None and msg.get("id") == rid:
                return msg


def gone_pid():
    p = subprocess.Popen(["/bin/true"])
    p.wait()
    return p.pid


def main():
    args = sys.argv[1:]
    log, shell = subprocess.DEVNULL, False
    while args and args[0].startswith("--") and args[0] != "--":
        if args[0] == "--log":
            log = open(args[1], "ab")
            args = args[2:]
        elif args[0] == "--shell":
            shell = True
            args = args[1:]
        else:
            sys.exit("lsp-alive: unknown option " + args[0])
    pid_arg, wait, root, dashes = args[0], float(args[1]), args[2], args[3]
    cmd = args[4:]
    if dashes != "--" or not cmd:
        sys.exit(__doc__)
    if shell:
        # Not "exec": the shell stays between this client and the server.
        cmd = ["/bin/sh", "-c", '"$@"; exit $?', "sh"] + cmd
    if pid_arg == "self":
        pid = os.getpid()
    elif pid_arg == "gone":
        pid = gone_pid()
    else:
        pid = int(pid_arg)
    srv = Server(cmd, log)
    say({"started": srv.proc.pid})
    start = time.monotonic()
    root_uri = "file://" + root
    try:
        srv.send({"id": 1, "method": "initialize", "params": {
            "processId": pid, "rootUri": root_uri, "capabilities": {},
            "workspaceFolders": [{"uri": root_uri, "name": "project"}]}})
        if srv.until(time.monotonic() + 60, 1) is None:
            sys.exit("lsp-alive: no answer to initialize")
        srv.send({"method": "initialized", "params": {}})
        srv.until(start + wait)
        srv.send({"id": 2, "method": "sbox/ping", "params": {}})
        if srv.until(time.monotonic() + 30, 2) is None:
            sys.exit("lsp-alive: no answer to a request")
    except (EOFError, BrokenPipeError):
        say({"alive": False, "exit": srv.proc.wait(),
             "after": round(time.monotonic() - start, 1)})
        sys.exit(1)
    say({"alive": True, "answered": round(time.monotonic() - start, 1)})
    try:
        while True:
            srv.until(time.monotonic() + 3600)
    except EOFError:
        pass
    say({"server-ended": srv.proc.wait()})
    sys.exit(1)


main()
