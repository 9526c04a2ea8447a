#!/usr/bin/python3
"""Binds a unix stream socket (no listener) at each path given.

Usage: bind-unix.py PATH...
"""
import socket
import sys

for p in sys.argv[1:]:
    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).bind(p)
