#!/usr/bin/env python3
"""A recording upstream proxy for tests/net-upstream.bats.

upstream-proxy.py PORTFILE LOG ORIGIN_PORT [TLS_ORIGIN_PORT [AUTH]]:
listens on 127.0.0.1 at a port the kernel picks and writes it to PORTFILE
once it listens.  Every request head it receives goes to LOG as it came
(the request line, each header, then an empty line), before anything is
decided.  A CONNECT to any host on port 443 is tunnelled to
127.0.0.1:TLS_ORIGIN_PORT, on any other port to 127.0.0.1:ORIGIN_PORT; a
request in absolute form (http://host[:port]/path) goes to
127.0.0.1:ORIGIN_PORT in origin form.  The names are never resolved: the
test's names exist nowhere else.  With AUTH (the expected
Proxy-Authorization value), a request without it gets 407.  With
$UPSTREAM_ANSWER=503 every request gets 503; with "silent", none gets an
answer (the connection is held until the client closes it).
"""
import os
import socket
import socketserver
import sys
import threading

LOCK = threading.Lock()


def record(head):
    with LOCK, open(sys.argv[2], "ab") as f:
        f.write(head.replace(b"\r\n", b"\n"))


def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def relay(a, b):
    t = threading.Thread(target=pipe, args=(b, a), daemon=True)
    t.start()
    pipe(a, b)
    t.join()


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        c = self.request
        data = b""
        while b"\r\n\r\n" not in data:
            more = c.recv(65536)
            if not more:
                return
            data += more
        head, rest = data.split(b"\r\n\r\n", 1)
        record(head + b"\r\n\r\n")
        lines = head.split(b"\r\n")
        method, target, version = lines[0].split(b" ")
        headers = lines[1:]
        answer = os.environ.get("UPSTREAM_ANSWER", "")
        if answer == "503":
            c.sendall(b"HTTP/1.1 503 Service Unavailable\r\n"
                      b"Content-Length: 0\r\nConnection: close\r\n\r\n")
            return
        if answer == "silent":
            while c.recv(65536):
                pass
            return
        if len(sys.argv) > 5:
            want = b"Proxy-Authorization: " + sys.argv[5].encode()
            if want not in headers:
                c.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                          b"Proxy-Authenticate: Basic realm=\"test\"\r\n"
                          b"Content-Length: 0\r\nConnection: close\r\n\r\n")
                return
        if method == b"CONNECT":
            port = int(target.rsplit(b":", 1)[1])
            up = socket.create_connection(
                ("127.0.0.1", int(sys.argv[4] if port == 443 else sys.argv[3])))
            c.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            if rest:
                up.sendall(rest)
            relay(c, up)
            return
        path = b"/" + target.split(b"/", 3)[3] if target.count(b"/") >= 3 \
            else b"/"
        up = socket.create_connection(("127.0.0.1", int(sys.argv[3])))
        keep = [h for h in headers
                if not h.lower().startswith((b"proxy-", b"connection:"))]
        up.sendall(b"\r\n".join([method + b" " + path + b" " + version] +
                                keep + [b"Connection: close", b"", b""]) +
                   rest)
        relay(c, up)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    srv = Server(("127.0.0.1", 0), Handler)
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, sys.argv[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()
