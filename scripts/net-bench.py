#!/usr/bin/env python3
"""The network side of scripts/bench-net: a loopback server and its clients.

net-bench.py serve PORTFILE          serve on 127.0.0.1 (port to PORTFILE)
net-bench.py bulk PORT BYTES [proxy] read BYTES; print MB/s
net-bench.py latency PORT N [proxy]  N round trips; print the median, in ms
net-bench.py many PORT N READY GO    N tunnels at once, all echoing; touch
                                     READY when all are up, end when GO exists

With "proxy" (and always for many) the client goes through the proxy of
sbox-exec --allow-host, CONNECT to 127.0.0.1:PORT; without it, straight
to the server.  A connection's first line says what the server does:
"BULK n" sends n bytes, "ECHO" echoes.
"""
import os
import socket
import statistics
import sys
import threading
import time

PROXY = ("127.0.0.1", 3128)
CHUNK = 1 << 20


def handle(conn):
    with conn:
        line = b""
        while not line.endswith(b"\n"):
            data = conn.recv(1)
            if not data:
                return
            line += data
        line = line.split()
        if line and line[0] == b"BULK":
            left = int(line[1])
            buf = bytes(CHUNK)
            while left > 0:
                n = conn.send(buf[:min(left, CHUNK)])
                left -= n
        elif line and line[0] == b"ECHO":
            while True:
                data = conn.recv(65536)
                if not data:
                    break
                conn.sendall(data)


def serve(portfile):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1024)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


def dial(port, proxy):
    if not proxy:
        return socket.create_connection(("127.0.0.1", port))
    s = socket.create_connection(PROXY)
    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n" % port)
    head = b""
    while b"\r\n\r\n" not in head:
        # Nothing comes after the answer before we send: read it whole.
        data = s.recv(4096)
        if not data:
            raise OSError("the proxy closed the connection")
        head += data
    if b" 200 " not in head.split(b"\r\n")[0]:
        raise OSError("the proxy refused: %r" % head)
    return s


def bulk(port, size, proxy):
    s = dial(port, proxy)
    s.sendall(b"BULK %d\n" % size)
    buf = bytearray(CHUNK)
    got, start = 0, time.monotonic()
    while got < size:
        n = s.recv_into(buf)
        if n == 0:
            break
        got += n
    secs = time.monotonic() - start
    print("%.0f MB/s (%d bytes in %.2f s)" % (got / secs / 1e6, got, secs))


def latency(port, n, proxy):
    times = []
    for _ in range(n):
        start = time.monotonic()
        s = dial(port, proxy)
        s.sendall(b"ECHO\nx")
        s.recv(1)
        times.append(time.monotonic() - start)
        s.close()
    print("%.3f" % (statistics.median(times) * 1000))


def many(port, n, ready, go):
    socks = []
    for _ in range(n):
        s = dial(port, True)
        s.sendall(b"ECHO\nping")
        socks.append(s)
    ok = sum(1 for s in socks if s.recv(4) == b"ping")
    open(ready, "w").close()
    while not os.path.exists(go):
        time.sleep(0.05)
    print("%d of %d connections complete" % (ok, n))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    proxy = len(args) > 2 and args[2] == "proxy"
    if cmd == "serve":
        serve(args[0])
    elif cmd == "bulk":
        bulk(int(args[0]), int(args[1]), proxy)
    elif cmd == "latency":
        latency(int(args[0]), int(args[1]), proxy)
    elif cmd == "many":
        many(int(args[0]), int(args[1]), args[2], args[3])


main()
