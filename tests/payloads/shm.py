#!/usr/bin/python3
"""System V shared memory: attach a segment, write to it or read it.

Usage: shm.py attach ID TEXT | read ID

attach writes TEXT at the start of segment ID and prints "attached";
read prints the segment's first bytes.  When shmat fails: "refused:
ERROR" and exit 1.
"""
import ctypes
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
op, shmid = sys.argv[1], int(sys.argv[2])
addr = libc.shmat(shmid, None, 0)
if addr in (None, ctypes.c_void_p(-1).value):
    print("refused:", os.strerror(ctypes.get_errno()))
    sys.exit(1)
if op == "attach":
    ctypes.memmove(addr, sys.argv[3].encode() + b"\0", len(sys.argv[3]) + 1)
    print("attached")
else:
    print(ctypes.string_at(addr).decode())
