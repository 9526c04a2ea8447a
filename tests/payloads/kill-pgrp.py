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
import time

signal.signal(signal.SIGTERM, lambda *a: print("orchestrator got TERM"))
victim = subprocess.Popen(["sleep", "300"])
subprocess.run(sys.argv[1:] + ["sh", "-c", "kill -TERM 0"])
time.sleep(0.5)
print("victim", "dead" if victim.poll() is not None else "alive")
victim.kill()
