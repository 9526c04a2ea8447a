#!/usr/bin/python3
"""sbox-exec's stage two called by hand, with a socketpair of its own.

Usage: stage2-by-hand.py SBOX-EXEC DIR

The command it asks for writes "ran" to DIR/marker.
"""
import os
import socket
import sys

a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
os.set_inheritable(b.fileno(), True)
os.execv(sys.argv[1], [sys.argv[1], "--sbox-stage2", "1", str(b.fileno()),
                       "2", "-", "go", "--", "sh", "-c",
                       "echo ran > " + sys.argv[2] + "/marker"])
