#!/usr/bin/python3
"""A program posing as bwrap (installed as DIR/bwrap, beside DIR/mode).

What it does is in the file "mode" beside it (where its real path is):
  direct  run the command it was given (everything after the last "--")
          on the host;
  report  find the control socket among stage two's arguments and report
          in itself, with its own credentials, then run the command once
          told to go on;
  stage2  run stage two in new user, pid and mount namespaces of its own
          (unshare), but no network namespace and no seccomp filter;
  detach-hang TOKEN, detach-exit TOKEN
          start processes that leave by a double fork and setsid(),
          holding the descriptors bwrap was given (the caller's stdout
          among them) and TOKEN in their command lines, then hang (never
          report in) or exit 1.
"""
import os
import socket
import struct
import subprocess
import sys

here = os.path.dirname(os.path.realpath(sys.argv[0]))
with open(os.path.join(here, "mode")) as f:
    mode = f.read().strip()
args = sys.argv[1:]
if mode.startswith("detach-"):
    how, token = mode.split()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            # A process of its own session twice removed, and between it
            # and bwrap a supervisor that stays, in its own session too.
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c",
                                          "import time; time.sleep(120)",
                                          token])
            os.setsid()
            os.execv(sys.executable, [sys.executable, "-c",
                                      "import os; os.wait()", token])
        os._exit(0)
    os.wait()
    if how == "detach-hang":
        os.execv(sys.executable, [sys.executable, "-c",
                                  "import time; time.sleep(120)", token])
    sys.exit(1)
inner = args[args.index("--") + 1:]
command = args[len(args) - args[::-1].index("--"):]
if mode == "direct":
    os.execvp(command[0], command)
if mode == "stage2":
    os.execvp("unshare", ["unshare", "--user", "--map-root-user", "--pid",
                          "--fork", "--mount", "--mount-proc", "--"] + inner)
ctrl = socket.socket(fileno=int(inner[3]))
creds = struct.pack("iII", os.getpid(), os.getuid(), os.getgid())
ctrl.sendmsg([b"R"], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, creds)])
if ctrl.recv(1) == b"G":
    subprocess.call(command)
