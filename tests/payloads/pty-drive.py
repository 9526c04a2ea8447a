"""Run a command on a new pseudo-terminal, as a job of a small shell, and
act on it as a user at that terminal would.

usage: pty-drive.py [STEP]... -- COMMAND...

The command runs in a process group of its own in the terminal's session:
in the foreground, or with the step "bg" first, in the background.  What
it writes to the terminal is collected; at the end the driver prints it
(carriage returns dropped), then "exit=N" (the command's exit code, 128+N
when killed by a signal), then "termios=same" or "termios=changed" (the
terminal's settings after, compared with before).

Steps, in order:
  bg             start the command in the background (before "--" only
                 as the first step)
  size=R,C       the terminal's size before the command starts
  raw-out=FILE   also write the bytes received, unchanged, to FILE
  expect=TEXT    wait until the output contains TEXT
  send=TEXT      type TEXT (Python escapes: \\n, \\x1a for Ctrl-Z, ...)
  sleep=S        wait S seconds
  resize=R,C     change the terminal's size (the kernel sends SIGWINCH)
  stopped        wait until the command and everything below it is stopped
  running        wait until none of them is stopped
  cont           SIGCONT to the command's process group (as bg would)
  fg             the command's process group to the foreground, then
                 SIGCONT to it (as a shell's fg does); waits until the
                 terminal's foreground is the command's
  kill=SIG       a signal (number) to the command
  foreground     print whose process group the terminal's foreground is:
                 "foreground=job", "foreground=shell" or "foreground=other"
Every wait gives up after 10 seconds: the driver then says what it waited
for and exits 90.
"""
import codecs
import fcntl
import os
import select
import signal
import struct
import sys
import termios
import time


def settings(fd):
    a = termios.tcgetattr(fd)
    return ":".join(["%x" % v for v in a[:4]] + [
        "%x" % (c if isinstance(c, int) else ord(c)) for c in a[6]])


def main():
    argv = sys.argv[1:]
    sep = argv.index("--")
    steps, cmd = argv[:sep], argv[sep + 1:]
    background = bool(steps) and steps[0] == "bg"
    if background:
        steps = steps[1:]
    size = (24, 80)
    raw_out = None
    for s in list(steps):
        if s.startswith("size="):
            size = tuple(int(x) for x in s[5:].split(","))
            steps.remove(s)
        elif s.startswith("raw-out="):
            raw_out = open(s[8:], "wb")
            steps.remove(s)

    master, slave = os.openpty()
    fcntl.ioctl(master, termios.TIOCSWINSZ,
                struct.pack("HHHH", size[0], size[1], 0, 0))
    before = settings(slave)
    report_r, report_w = os.pipe()
    shell = os.fork()
    if shell == 0:
        # The terminal's session leader, as a login shell would be.
        os.close(master)
        os.close(report_r)
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in range(3):
            os.dup2(slave, fd)
        if slave > 2:
            os.close(slave)
        signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        job = os.fork()
        if job == 0:
            os.setpgid(0, 0)
            if not background:
                os.tcsetpgrp(0, os.getpgrp())
            signal.signal(signal.SIGTTOU, signal.SIG_DFL)
            # A job of an interactive shell: Ctrl-C and Ctrl-\ work even
            # when the tests were started with them ignored (in the
            # background of a script).
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGQUIT, signal.SIG_DFL)
            os.close(report_w)
            os.execvp(cmd[0], cmd)
        # The job sets its own group too: whichever runs first does it.
        # Once the job has exec'd, this one fails with EACCES, and the
        # group is made already; a shell ignores that, and so does this.
        try:
            os.setpgid(job, job)
        except PermissionError:
            pass
        if not background:
            try:
                os.tcsetpgrp(0, job)
            except ProcessLookupError:
                pass  # the job ended already; its status is below

        def to_foreground(*_):
            os.tcsetpgrp(0, job)
            os.killpg(job, signal.SIGCONT)
        signal.signal(signal.SIGUSR1, to_foreground)
        os.write(report_w, b"%d\n" % job)
        os.close(report_w)
        _, st = os.waitpid(job, 0)
        os._exit(os.waitstatus_to_exitcode(st) if os.WIFEXITED(st)
                 else 128 + os.WTERMSIG(st))
    os.close(slave)
    os.close(report_w)
    job = int(os.read(report_r, 64))
    os.close(report_r)

    out = bytearray()

    def pump(timeout):
        r, _, _ = select.select([master], [], [], timeout)
        if r:
            try:
                b = os.read(master, 65536)
            except OSError:
                return False
            if not b:
                return False
            out.extend(b)
            if raw_out:
                raw_out.write(b)
        return True

    def below(pid):
        """(pid, state, parent) of PID and everything below it."""
        kids, seen, todo = [], set(), [pid]
        stats = {}
        for p in os.listdir("/proc"):
            if p.isdigit():
                try:
                    with open("/proc/%s/stat" % p) as f:
                        s = f.read()
                    rest = s[s.rindex(")") + 2:].split()
                    stats[int(p)] = (rest[0], int(rest[1]))
                except (OSError, ValueError):
                    pass
        while todo:
            p = todo.pop()
            if p in seen:
                continue
            seen.add(p)
            if p in stats:
                kids.append((p, stats[p][0], stats[p][1]))
            todo.extend(q for q, (_, pp) in stats.items() if pp == p)
        return kids

    def all_stopped():
        """Every process below the job is stopped.  A shell that started
        a command with vfork() (dash does) waits in state D until the
        child has exec'd; when Ctrl-Z stops that child first, the shell
        stays in D, as stopped as its child, and is counted so."""
        procs = below(job)
        if not procs:
            return False
        state = {p: st for p, st, _ in procs}

        def stopped(p):
            if state[p] == "T":
                return True
            children = [c for c, _, pp in procs if pp == p]
            return state[p] == "D" and bool(children) and all(
                stopped(c) for c in children)
        return all(stopped(p) for p in state)

    def wait_until(what, cond):
        end = time.time() + 10
        while time.time() < end:
            if cond():
                return
            pump(0.05)
        sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
        print("\ntimed out waiting for: %s (processes: %s)" % (what, " ".join(
            "%d:%s" % (p, st) for p, st, _ in below(job))))
        try:
            os.kill(job, signal.SIGKILL)
        except ProcessLookupError:
            pass
        sys.exit(90)

    for s in steps:
        key, _, val = s.partition("=")
        if key == "expect":
            wait_until(s, lambda: val.encode() in out)
        elif key == "send":
            os.write(master, codecs.decode(val, "unicode_escape").encode(
                "latin-1"))
        elif key == "sleep":
            end = time.time() + float(val)
            while time.time() < end:
                pump(max(0, end - time.time()))
        elif key == "resize":
            r, c = (int(x) for x in val.split(","))
            fcntl.ioctl(master, termios.TIOCSWINSZ,
                        struct.pack("HHHH", r, c, 0, 0))
        elif key == "stopped":
            wait_until(s, all_stopped)
            print("stopped: %d processes" % len(below(job)))
        elif key == "running":
            wait_until(s, lambda: not any(st == "T" for _, st, _ in below(job)))
        elif key == "fg":
            os.kill(shell, signal.SIGUSR1)
            wait_until(s, lambda: os.tcgetpgrp(master) == job)
        elif key == "cont":
            os.killpg(job, signal.SIGCONT)
        elif key == "kill":
            try:
                os.kill(job, int(val))
            except ProcessLookupError:
                print("kill: the command had ended")
        elif key == "foreground":
            pg = os.tcgetpgrp(master)
            print("foreground=%s" % ("job" if pg == job else
                                     "shell" if pg == shell else "other"))
        else:
            sys.exit("pty-drive.py: unknown step %s" % s)

    end = time.time() + 20
    status = None
    while time.time() < end:
        pid, st = os.waitpid(shell, os.WNOHANG)
        if pid:
            status = os.waitstatus_to_exitcode(st)
            break
        pump(0.05)
    while pump(0.05):
        pass
    if status is None:
        try:
            os.killpg(job, signal.SIGKILL)
        except ProcessLookupError:
            pass
        print("timed out waiting for the command to end")
    sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
    print("\nexit=%s" % status)
    print("termios=%s" % ("same" if settings(master) == before else "changed"))


main()
