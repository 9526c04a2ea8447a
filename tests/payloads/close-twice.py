#!/usr/bin/python3
"""close-twice.py OUT -- COMMAND...: run COMMAND under strace -f and
report on the first process and its threads alone (not what it starts):
how many close() calls they made, and each call on a descriptor that
failed with EBADF: a descriptor closed, or used, when it was no longer
theirs.  A second close of a number is not always EBADF (by then another
thread may own it); the first one that is, is what this finds.  Prints
"closes N" and one "EBADF CALL(FD" line per failure; exits as COMMAND
did."""
import os
import re
import subprocess
import sys

out = sys.argv[1]
cmd = sys.argv[3:]
# LeakSanitizer cannot work under ptrace: in the sanitized suite, leaks
# are for the runs that are not traced.
env = dict(os.environ)
env["ASAN_OPTIONS"] = ":".join(
    o for o in (env.get("ASAN_OPTIONS"), "detect_leaks=0") if o)
rc = subprocess.call(["strace", "-f", "-qq", "-o", out, "-e",
                      "trace=%desc,close_range,clone,clone3", "--"] + cmd,
                     env=env)
lines = open(out, encoding="utf-8", errors="replace").read().splitlines()
head = re.compile(r"^(\d+) +(.*)$")
first = None
ours = set()
pending = set()
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
    # A thread of ours: clone with CLONE_THREAD, its tid the result,
    # on the same line or, when another thread came between, on the
    # line that resumes it.
    thread = False
    if rest.startswith("clone") and "CLONE_THREAD" in rest:
        if rest.endswith("<unfinished ...>"):
            pending.add(pid)
            continue
        thread = True
    elif rest.startswith("<... clone") and pid in pending:
        pending.discard(pid)
        thread = True
    if thread:
        tid = re.search(r" = (\d+)$", rest)
        if tid:
            ours.add(int(tid.group(1)))
        continue
    if re.match(r"close(?:_range)?\(", rest):
        closes += 1
    if rest.endswith("EBADF (Bad file descriptor)"):
        bad.append(rest.split(",")[0].split(")")[0])
print("closes", closes)
for call in bad:
    print("EBADF", call)
sys.exit(rc)
