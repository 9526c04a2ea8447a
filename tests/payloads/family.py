#!/usr/bin/python3
"""socket() or socketpair() of one address family.

Usage: family.py FAMILY-NAME socket|socketpair

FAMILY-NAME is the socket module's (AF_VSOCK...).  Prints "created", or
the name of the error number (EAFNOSUPPORT...).
"""
import errno
import socket
import sys

fam = getattr(socket, sys.argv[1])
try:
    if sys.argv[2] == "socketpair":
        socket.socketpair(fam, socket.SOCK_STREAM)
    else:
        socket.socket(fam, socket.SOCK_STREAM)
    print("created")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
