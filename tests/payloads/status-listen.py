#!/usr/bin/python3
"""Receive status datagrams on a unix socket, as an editor would.

Usage: status-listen.py ADDR READYFILE OUTFILE [TIMEOUT]
ADDR is "@name" (abstract) or a path.  Once bound, READYFILE is created.
Every datagram received until TIMEOUT seconds pass with nothing new is
written to OUTFILE as one JSON object per line:
  {"data": "<the datagram>", "pid": N, "uid": N, "gid": N}
"""
import json
import os
import socket
import struct
import sys


def main():
    addr, ready, out = sys.argv[1], sys.argv[2], sys.argv[3]
    timeout = float(sys.argv[4]) if len(sys.argv) > 4 else 5.0
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    s.bind("\0" + addr[1:] if addr.startswith("@") else addr)
    open(ready, "w").close()
    s.settimeout(timeout)
    got = []
    try:
        while True:
            data, anc, _flags, _addr = s.recvmsg(8192, socket.CMSG_SPACE(12))
            rec = {"data": data.decode("utf-8", "surrogateescape")}
            for level, kind, payload in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                    rec["pid"], rec["uid"], rec["gid"] = struct.unpack("iII", payload[:12])
            got.append(rec)
    except socket.timeout:
        pass
    with open(out, "w") as f:
        for rec in got:
            f.write(json.dumps(rec) + "\n")
    if not addr.startswith("@"):
        os.unlink(addr)


main()
