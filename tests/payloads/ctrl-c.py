#!/usr/bin/python3
"""Ctrl-C typed at `sbox-exec --tty -- sh -c 'echo ready; exec sleep 30'`
on a new terminal.

Usage: ctrl-c.py SBOX-EXEC

Types ^C once the command has said "ready" on the terminal (giving up
after 20 s) and prints the exit code.
"""
import os
import pty
import select
import signal
import sys
import time

pid, fd = pty.fork()
if pid == 0:
    # As at an interactive shell, even when the tests were started with
    # SIGINT ignored (in the background of a script).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.execv(sys.argv[1], [sys.argv[1], "--tty", "--", "sh", "-c",
                           "echo ready; exec sleep 30"])
seen = b""
end = time.time() + 20
while b"ready" not in seen and time.time() < end:
    if select.select([fd], [], [], 0.1)[0]:
        try:
            seen += os.read(fd, 4096)
        except OSError:
            break
os.write(fd, b"\x03")
# Read what else comes, so that the command never waits on a full terminal.
while True:
    try:
        if not os.read(fd, 4096):
            break
    except OSError:
        break
_, st = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(st))
