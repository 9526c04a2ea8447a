#!/usr/bin/python3
"""close-twice.py OUT -- COMMAND...: run COMMAND under strace -f and
report on the first process and its threads alone (not what it starts):
how many close() calls they made, and each close() that failed with
EBADF, a descriptor closed when it was no longer theirs.  A second close
of a number is not always EBADF: by then another thread may own it; the
first one that is, is what this finds.  Prints "closes N" and one
"EBADF fd" line per failure; exits as COMMAND did."""
import re
import subprocess
import sys

out = sys.argv[1]
cmd = sys.argv[3:]
rc = subprocess.call(["strace", "-f", "-qq", "-o", out, "-e",
                      "trace=close,close_range,clone,clone3", "--"] + cmd)
lines = open(out, encoding="utf-8", errors="replace").read().splitlines()
head = re.compile(r"^(\d+) +(.*)$")
first = None
ours = set()
closes = 0
bad = []
for line in lines:
    m = head.match(line)
    if not m:
        continue
    pid, rest = int(m.group(1)), m.group(2)
    if first is None:
        first = pid
        ours.add(pid)
    if pid not in ours:
        continue
    # A thread of ours: clone with CLONE_THREAD, its tid the result.
    c = re.match(r"clone3?\((.*)\) += (\d+)$", rest)
    if c and "CLONE_THREAD" in c.group(1):
        ours.add(int(c.group(2)))
        continue
    c = re.match(r"close(?:_range)?\((\d+)", rest)
    if c:
        closes += 1
        if "EBADF" in rest:
            bad.append(c.group(1))
print("closes", closes)
for fd in bad:
    print("EBADF", fd)
sys.exit(rc)
