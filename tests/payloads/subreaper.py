"""subreaper.py [--signal SIG,FILE] COMMAND...: run COMMAND as a child of
a subreaper (prctl(PR_SET_CHILD_SUBREAPER)) that, like the pid 1 of a
container that does not reap, leaves to be reaped whatever is orphaned
below it.  With --signal, send COMMAND the signal SIG (a number) once the
file FILE exists (30 s at most).  Once COMMAND has ended and been waited
for, wait a moment for any process still running below, then print one
line per child left: "left PID STATE NAME" (STATE from /proc/PID/stat: Z
for a zombie); then "exit=CODE" (COMMAND's exit code, 128+N for a signal
N), and kill and reap what is left."""
import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def children():
    """This process's children, as (pid, state, name) from /proc."""
    me, kids = os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == me:
            kids.append((int(name), fields[0], comm))
    return kids


def main():
    args, sig = sys.argv[1:], None
    if args[0] == "--signal":
        number, ready = args[1].split(",", 1)
        sig, args = (int(number), ready), args[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("prctl: %s" % os.strerror(ctypes.get_errno()))
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(args[0], args)
        finally:
            os._exit(127)
    if sig is not None:
        deadline = time.monotonic() + 30
        while not os.path.exists(sig[1]) and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(pid, sig[0])
    # Only COMMAND: waitpid(-1) would reap what this looks for.
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    # Something still running below is given a moment to end (it may be
    # on its way out); a zombie waits for us and stays as it is.
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and any(
            state != "Z" for _, state, _ in children()):
        time.sleep(0.05)
    for kid, state, name in children():
        print("left %d %s %s" % (kid, state, name))
    print("exit=%d" % (128 - code if code < 0 else code))
    sys.stdout.flush()
    for kid, _, _ in children():
        try:
            os.kill(kid, signal.SIGKILL)
        except OSError:
            pass
    try:
        while True:
            os.waitpid(-1, 0)
    except ChildProcessError:
        pass


main()
