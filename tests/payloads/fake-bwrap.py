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
  orphan  report in as "report" does, but from a child left behind that
          carries a seccomp filter (one that allows everything) as a
          sandbox's process does: bwrap exits first, as a real one killed
          during its setup can leave its sandbox (the launcher, a child
          subreaper, inherits it);
  detach-hang TOKEN, detach-exit TOKEN
          start processes that leave by a double fork and setsid(),
          holding the descriptors bwrap was given (the caller's stdout
          among them) and TOKEN in their command lines, then hang (never
          report in) or exit 1.
"""
import ctypes
import os
import signal
import socket
import struct
import subprocess
import sys
import time

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

def state(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0]


if mode == "orphan":
    # The launcher is stopped meanwhile, so that when it looks, the
    # report has come and bwrap has ended both: it reads the report
    # first, and the walk up from the reporter meets the launcher.
    parent, launcher = os.getpid(), os.getppid()
    os.kill(launcher, signal.SIGSTOP)
    while state(launcher) != "T":
        time.sleep(0.001)
    if os.fork() != 0:
        os._exit(0)
    while os.getppid() == parent:
        time.sleep(0.001)
    # prctl(PR_SET_NO_NEW_PRIVS), then PR_SET_SECCOMP with a one-line
    # program: return SECCOMP_RET_ALLOW.
    libc = ctypes.CDLL(None, use_errno=True)
    program = ctypes.create_string_buffer(struct.pack("HBBI", 0x06, 0, 0,
                                                      0x7fff0000))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(1, ctypes.cast(program, ctypes.c_void_p))
    if libc.prctl(38, 1, 0, 0, 0) != 0 or \
            libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:
        sys.exit("fake-bwrap: no seccomp filter: errno %d"
                 % ctypes.get_errno())
ctrl = socket.socket(fileno=int(inner[3]))
creds = struct.pack("iII", os.getpid(), os.getuid(), os.getgid())
ctrl.sendmsg([b"R"], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, creds)])
if mode == "orphan":
    os.kill(launcher, signal.SIGCONT)
if ctrl.recv(1) == b"G":
    subprocess.call(command)
