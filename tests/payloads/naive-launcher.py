#!/usr/bin/python3
"""A launcher that believes whatever reports in (the control for the fake
bwraps of tests/escape/launcher.bats).

Usage: naive-launcher.py FAKE-BWRAP SBOX-EXEC DIR

Starts FAKE-BWRAP as sbox-exec would, with stage two and a command that
writes "ran" to DIR/marker, and sends the go-ahead as soon as anything
reports in.
"""
import os
import socket
import subprocess
import sys

fake, sbox, d = sys.argv[1:4]
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
exe = os.open(sbox, os.O_PATH)
err = os.dup(2)
for fd in (b.fileno(), exe, err):
    os.set_inheritable(fd, True)
p = subprocess.Popen([fake, "--unshare-all", "--", "/proc/self/fd/%d" % exe,
                      "--sbox-stage2", "1", str(b.fileno()), str(err), "-",
                      "run", "-", d, "--", "sh", "-c", "echo ran >\"$1/marker\"",
                      "sh", d], close_fds=False)
b.close()
if a.recv(1) == b"R":
    a.send(b"G")
p.wait()
