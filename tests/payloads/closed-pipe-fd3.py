#!/usr/bin/python3
"""Runs a command with descriptor 3 a pipe whose read end is closed.

Usage: closed-pipe-fd3.py COMMAND...

A write to fd 3 fails with EPIPE.
"""
import os
import sys

r, w = os.pipe()
os.close(r)
os.dup2(w, 3)
os.execv(sys.argv[1], sys.argv[1:])
