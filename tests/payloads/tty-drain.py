#!/usr/bin/python3
"""What waits in the terminal on stdin.

Usage: tty-drain.py LABEL [COMMAND...]

Puts the terminal in non-canonical mode without echo, runs COMMAND (if
given; when it fails, exits with its status without reading), then reads
whatever arrives within a second of quiet and prints "LABEL read: Q" when
a "Q" came, "LABEL read: nothing" otherwise.
"""
import os
import select
import subprocess
import sys
import termios

a = termios.tcgetattr(0)
a[3] &= ~(termios.ICANON | termios.ECHO)
termios.tcsetattr(0, termios.TCSANOW, a)
if len(sys.argv) > 2:
    sys.stdout.flush()
    rc = subprocess.call(sys.argv[2:])
    if rc != 0:
        sys.exit(rc)
got = b""
while select.select([0], [], [], 1)[0]:
    b = os.read(0, 64)
    if not b:
        break
    got += b
print(sys.argv[1], "read:", "Q" if b"Q" in got else "nothing")
