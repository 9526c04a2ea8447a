#!/usr/bin/python3
"""Ctrl-C typed at `sbox-exec --tty -- sleep 30` on a new terminal.

Usage: ctrl-c.py SBOX-EXEC

Types ^C a second after the start and prints the exit code.
"""
import os
import pty
import sys
import time

pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "--tty", "--", "sleep", "30"])
time.sleep(1)
os.write(fd, b"\x03")
_, st = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(st))
