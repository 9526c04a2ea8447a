#!/usr/bin/python3
"""A listener that answers every connection with "pong".

Usage: listener.py KIND ADDRFILE LOG [PATH [public]]

KIND is tcp (127.0.0.1, any port), abstract (a random name) or path (a
unix socket at PATH; mode 0666 with "public").  Once listening it writes
its address to ADDRFILE and its pid to ADDRFILE.pid; it appends one line
to LOG per connection it accepts, and exits after 60 s without one.
"""
import os
import socket
import sys

kind, out, log = sys.argv[1], sys.argv[2], sys.argv[3]
if kind == "tcp":
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    addr = str(s.getsockname()[1])
elif kind == "abstract":
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    addr = "sbox-test-%d-%s" % (os.getpid(), os.urandom(4).hex())
    s.bind("\0" + addr)
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    addr = sys.argv[4]
    s.bind(addr)
    if sys.argv[5:] == ["public"]:
        os.chmod(addr, 0o666)
s.listen(16)
with open(out + ".pid", "w") as f:
    f.write(str(os.getpid()))
with open(out + ".tmp", "w") as f:
    f.write(addr)
os.rename(out + ".tmp", out)
s.settimeout(60)
while True:
    c, _ = s.accept()
    with open(log, "a") as f:
        f.write("connection\n")
    c.sendall(b"pong\n")
    c.close()
