#!/usr/bin/python3
"""A TCP echo server, and its client, for checking a relay's bytes.

Usage: stream-echo.py serve PORTFILE
       stream-echo.py send HOST PORT MIB [PROXY]

serve listens on 127.0.0.1 (its port written to PORTFILE) and sends back
every byte of each connection as it arrives; at the connection's end of
input it ends its output too, and exits after 60 s without a connection.

send writes MIB MiB of random bytes while it reads the echo, then ends
its output and reads to the end; it prints "same N" when the N bytes that
came back are those it sent, "differ N M" otherwise (M came back, within
30 s of the last).  With PROXY
(HOST:PORT of an HTTP proxy) it goes through a CONNECT tunnel.
"""
import hashlib
import os
import socket
import sys
import threading


def serve(portfile):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    srv.settimeout(60)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    while True:
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            return
        threading.Thread(target=echo, args=(conn,), daemon=True).start()


def echo(conn):
    with conn:
        while True:
            data = conn.recv(1 << 20)
            if not data:
                break
            conn.sendall(data)
        conn.shutdown(socket.SHUT_WR)


def dial(host, port, proxy):
    if not proxy:
        return socket.create_connection((host, port))
    phost, pport = proxy.rsplit(":", 1)
    s = socket.create_connection((phost, int(pport)))
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\n\r\n" % (host.encode(), port))
    head = b""
    while b"\r\n\r\n" not in head:
        data = s.recv(1)
        if not data:
            raise SystemExit("the proxy closed the connection")
        head += data
    if b" 200 " not in head.split(b"\r\n")[0]:
        raise SystemExit("the proxy refused: %r" % head)
    return s


def send(host, port, mib, proxy):
    s = dial(host, port, proxy)
    s.settimeout(30)  # a lost half-close ends the reader, not the test
    out, back = hashlib.sha256(), hashlib.sha256()
    got = [0]

    def reader():
        while True:
            data = s.recv(1 << 20)
            if not data:
                return
            got[0] += len(data)
            back.update(data)

    t = threading.Thread(target=reader)
    t.start()
    for _ in range(mib * 4):
        chunk = os.urandom(1 << 18)
        out.update(chunk)
        s.sendall(chunk)
    s.shutdown(socket.SHUT_WR)
    t.join()
    sent = mib << 20
    if got[0] == sent and out.digest() == back.digest():
        print("same %d" % sent)
    else:
        print("differ %d %d" % (sent, got[0]))


def main():
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
             sys.argv[5] if len(sys.argv) > 5 else None)


main()
