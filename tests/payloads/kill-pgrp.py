#!/usr/bin/python3
"""kill(0) from a command in the caller's process group.

Usage: kill-pgrp.py [COMMAND...]

Starts a `sleep` (the victim) in this process group, runs COMMAND... sh
-c 'kill -TERM 0' in it too, then says whether the victim ("victim dead"
or "victim alive") and this process ("orchestrator got TERM") were hit.
"""
import signal
import subprocess
import sys

signal.signal(signal.SIGTERM, lambda *a: print("orchestrator got TERM"))
victim = subprocess.Popen(["sleep", "300"])
subprocess.run(sys.argv[1:] + ["sh", "-c", "kill -TERM 0"])


def hit(pid):
    """The SIGTERM sent by kill(0) has reached PID: it is pending there,
    or PID is exiting, a zombie or gone.  kill() queues the signal before
    it returns, so this needs no waiting."""
    try:
        with open("/proc/%d/status" % pid) as f:
            status = dict(line.split(":", 1) for line in f if ":" in line)
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return True
    pending = int(status["SigPnd"], 16) | int(status["ShdPnd"], 16)
    flags = int(stat[stat.rindex(")") + 2:].split()[6])
    return (status["State"].split()[0] == "Z" or
            pending & (1 << (signal.SIGTERM - 1)) or flags & 0x4)  # PF_EXITING


if victim.poll() is None and hit(victim.pid):
    victim.wait(timeout=20)
print("victim", "dead" if victim.poll() is not None else "alive")
victim.kill()
