#!/usr/bin/env python3
"""A small web server for tests/net-allow.bats, on the host's loopback.

web-server.py DIR PORTFILE [CERT KEY]: serves DIR over HTTP (HTTPS with
CERT and KEY) on 127.0.0.1 (or the address in $WEB_BIND) at a port the
kernel picks, writes the port to PORTFILE once it listens, and logs each
request line to DIR/../log.
"""
import http.server
import os
import ssl
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, fmt, *args):
        with open(os.path.join(sys.argv[1], "..", "log"), "a") as f:
            f.write("%s\n" % self.requestline)


def main():
    root, portfile = sys.argv[1], sys.argv[2]
    os.chdir(root)
    srv = http.server.ThreadingHTTPServer(
        (os.environ.get("WEB_BIND", "127.0.0.1"), 0), Handler)
    if len(sys.argv) > 4:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[3], sys.argv[4])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    tmp = portfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, portfile)
    srv.serve_forever()


main()
