#!/usr/bin/python3
"""close-twice.py OUT -- COMMAND...: run COMMAND under strace -f (its
output in OUT) and report on the first process and its threads alone,
not on what it starts: how many close() calls they made, and each call
on a descriptor that failed with EBADF, or that poll() found closed
(POLLNVAL): a descriptor closed, or used, when it was no longer theirs.
A second close of a number is not always EBADF (by then another thread
may own it); the first one that is, is what this finds.  Prints "closes
N" and one "EBADF CALL(FD" line per failure; exits as COMMAND did, or
with 125 when strace could not trace it."""
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
try:
    lines = open(out, encoding="utf-8", errors="replace").read().splitlines()
except OSError as e:
    print("close-twice.py: strace left no trace:", e, file=sys.stderr)
    sys.exit(125)
head = re.compile(r"^(\d+) +(.*)$")
calls = [(int(m.group(1)), m.group(2))
         for m in map(head.match, lines) if m is not None]
if not calls:
    print("close-twice.py: strace traced nothing", file=sys.stderr)
    sys.exit(125)

# First pass: which thread made which.  A thread's own calls may come
# before the line that says its creator's clone returned, so the family
# is known before any call is judged.
made = {}
pending = set()
for pid, rest in calls:
    if rest.startswith("clone") and "CLONE_THREAD" in rest:
        if rest.endswith("<unfinished ...>"):
            pending.add(pid)
            continue
    elif not (rest.startswith("<... clone") and pid in pending):
        continue
    pending.discard(pid)
    tid = re.search(r" = (\d+)$", rest)
    if tid:
        made.setdefault(pid, []).append(int(tid.group(1)))
ours = set()
todo = [calls[0][0]]
while todo:
    pid = todo.pop()
    if pid not in ours:
        ours.add(pid)
        todo.extend(made.get(pid, []))

# Second pass: the calls of those threads.  A call another thread
# interrupted ends on a later line that resumes it.
started = {}
closes = 0
bad = []
for pid, rest in calls:
    if pid not in ours:
        continue
    if rest.endswith("<unfinished ...>"):
        started[pid] = rest
        continue
    if rest.startswith("<... "):
        rest = started.pop(pid, "") + rest
    if re.match(r"close(?:_range)?\(", rest):
        closes += 1
    if rest.endswith("EBADF (Bad file descriptor)") or "POLLNVAL" in rest:
        bad.append(rest.split(",")[0].split(")")[0].split(" <")[0])
print("closes", closes)
for call in bad:
    print("EBADF", call)
sys.exit(rc)
