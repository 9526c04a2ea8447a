"""fork-until.py MAX REPORT [HOLD]: fork children that sleep, until MAX of
them run or fork fails; then write "COUNT ERROR" to the file REPORT (ERROR
is the errno name, or "none"), keep the children HOLD seconds (default 0)
and kill them.  The fork bomb of tests/bounds.bats, bounded either way."""
import errno
import os
import signal
import sys
import time


def main():
    most, report = int(sys.argv[1]), sys.argv[2]
    hold = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    kids, why = [], "none"
    while len(kids) < most:
        try:
            pid = os.fork()
        except OSError as e:
            why = errno.errorcode.get(e.errno, str(e.errno))
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        kids.append(pid)
    with open(report + ".part", "w") as f:
        f.write("%d %s\n" % (len(kids), why))
    os.rename(report + ".part", report)
    time.sleep(hold)
    for pid in kids:
        os.kill(pid, signal.SIGKILL)
    for pid in kids:
        os.waitpid(pid, 0)


main()
