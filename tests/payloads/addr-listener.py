#!/usr/bin/env python3
"""A TCP listener on every address, for the proxy's address tests.

addr-listener.py PORTFILE LOG: listens on [::] (IPv4 too, as mapped
addresses) at a port the kernel picks, writes the port to PORTFILE once
it listens, and for each connection appends to LOG the address it was
made to (IPv4 ones without the ::ffff: prefix), before reading anything,
then answers an HTTP request with "hello from ADDRESS".  Exits after
120 s without a connection.
"""
import os
import socket
import sys
import threading


def serve(conn, log):
    me = conn.getsockname()[0]
    if me.startswith("::ffff:"):
        me = me[7:]
    with open(log, "a") as f:
        f.write(me + "\n")
    conn.settimeout(10)
    try:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(4096)
            if not chunk:
                return
            data += chunk
        body = ("hello from %s\n" % me).encode()
        conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n%s"
                     % (len(body), body))
    except OSError:
        pass
    finally:
        conn.close()


def main():
    portfile, log = sys.argv[1], sys.argv[2]
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", 0))
    s.listen(64)
    s.settimeout(120)
    tmp = portfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % s.getsockname()[1])
    os.rename(tmp, portfile)
    while True:
        try:
            conn, _ = s.accept()
        except socket.timeout:
            return
        threading.Thread(target=serve, args=(conn, log), daemon=True).start()


main()
