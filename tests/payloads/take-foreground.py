#!/usr/bin/python3
"""Takes the terminal's foreground, as a job that wants the keyboard back.

Ignores the stop signals, makes a process group of its own (inside a pid
namespace the caller's has no number) the foreground of the terminal on
stdin, prints "tcsetpgrp: done" or "tcsetpgrp: ERROR", and stays 3 s.
"""
import os
import signal
import time

for s in (signal.SIGTSTP, signal.SIGTTOU, signal.SIGTTIN):
    signal.signal(s, signal.SIG_IGN)
try:
    os.setpgid(0, 0)
except OSError:
    pass
try:
    os.tcsetpgrp(0, os.getpgrp())
    print("tcsetpgrp: done")
except OSError as e:
    print("tcsetpgrp:", e)
time.sleep(3)
