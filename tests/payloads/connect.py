#!/usr/bin/python3
"""The client of listener.py: prints what it received.

Usage: connect.py tcp PORT | abstract NAME | path PATH

A connection that fails ends in Python's traceback, which names the error
(ConnectionRefusedError...), and exit status 1.
"""
import socket
import sys

kind, addr = sys.argv[1], sys.argv[2]
if kind == "tcp":
    s = socket.create_connection(("127.0.0.1", int(addr)), timeout=3)
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect("\0" + addr if kind == "abstract" else addr)
sys.stdout.write(s.recv(16).decode())
