#!/usr/bin/python3
"""Sends one datagram to a unix datagram socket.

Usage: send-dgram.py PATH TEXT

Prints "sent", or "refused: ERROR" and exits 1.
"""
import socket
import sys

s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
try:
    s.sendto(sys.argv[2].encode(), sys.argv[1])
except OSError as e:
    print("refused:", e)
    sys.exit(1)
print("sent")
