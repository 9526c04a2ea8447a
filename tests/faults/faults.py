#!/usr/bin/python3
"""The fault suite's driver: sbox-exec under faults, as one user.

Usage: faults.py SBOX SCRATCH SCENARIO [--seed N] [--n N]

Each scenario launches sbox-exec many times under one kind of fault and
checks what a caller sees against the invariants of the manual page:
the command never runs outside a sandbox; "success" only when the command
then runs sandboxed; every status channel holds one whole line or nothing;
the exit status is the right one; nothing is left running; stderr says
what happened in sbox-exec's own words.  Prints one line per scenario and
exits 1 with the reason (and the seed) on the first broken invariant.
"""
import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import time

SBOX, SCRATCH, SCENARIO = sys.argv[1], sys.argv[2], sys.argv[3]
ARGS = dict(zip(sys.argv[4::2], sys.argv[5::2]))
SEED = int(ARGS.get("--seed", random.randrange(1 << 30)))
rng = random.Random(SEED)
HOST_USERNS = os.readlink("/proc/self/ns/user")
# A refusal with a long detail: a grant of a path that does not exist.
LONG_PATH = "/" + "/".join(["nonexistent-" + "x" * 240] * 12)


class Broken(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Broken(what)


def status_lines(data):
    """The status lines in DATA, each checked to be whole."""
    if not data:
        return []
    check(data.endswith(b"\n"), "a status line cut short: %r" % data[-80:])
    lines = data.split(b"\n")[:-1]
    for line in lines:
        try:
            obj = json.loads(line)
        except ValueError:
            raise Broken("not a JSON status line: %r" % line[:200])
        check(obj.get("version") == 1 and "status" in obj,
              "not a status object: %r" % line[:200])
    return [json.loads(x) for x in lines]


def one_or_none(data):
    lines = status_lines(data)
    check(len(lines) <= 1, "%d status lines on one channel" % len(lines))
    return lines[0] if lines else None


def run(argv, **kw):
    kw.setdefault("stdin", subprocess.DEVNULL)
    kw.setdefault("capture_output", True)
    return subprocess.run(argv, timeout=60, **kw)


def marker_cmd(marker):
    """A command that records the user namespace it runs in."""
    return ["/bin/sh", "-c", 'readlink /proc/self/ns/user >"$0"', marker]


def check_marker(marker, status):
    """The command ran sandboxed if at all, and only after a success."""
    if not os.path.exists(marker):
        return False
    with open(marker) as f:
        ns = f.read().strip()
    os.unlink(marker)
    check(ns != HOST_USERNS, "the command ran outside a sandbox (%s)" % ns)
    check(status is not None and status["status"] == "success",
          "the command ran without a success status: %r" % (status,))
    return True


def leftovers(token):
    """Processes whose command line holds TOKEN."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if token.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def check_nothing_left(token, wait=3.0):
    end = time.time() + wait
    while leftovers(token) and time.time() < end:
        time.sleep(0.05)
    left = leftovers(token)
    check(not left, "processes left behind: %s" % left)


def stderr_is_ours(err):
    for line in err.decode(errors="replace").splitlines():
        check(line.startswith("sbox-exec: "),
              "a line on stderr not in sbox-exec's words: %r" % line)


# --- status channels ---------------------------------------------------

def stream_with(fill, sndbuf):
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    if sndbuf:
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    a.setblocking(False)
    sent = 0
    try:
        while sent < fill:
            sent += a.send(b"j" * (fill - sent))
    except BlockingIOError:
        pass
    a.setblocking(True)
    return a, b, sent


def scenario_status_stream():
    """A stream socket whose reader left little or no room."""
    n = 0
    for sndbuf in (0, 2304, 8192):
        for fill in (0, 1, 100, 300, 1000, 3000, 200000):
            a, b, sent = stream_with(fill, sndbuf)
            p = run([SBOX, "--status-fd", str(a.fileno()), "--rw", LONG_PATH,
                     "--", "true"], pass_fds=[a.fileno()])
            a.close()
            data = b""
            while True:
                d = b.recv(1 << 16)
                if not d:
                    break
                data += d
            b.close()
            check(data[:sent] == b"j" * sent, "the reader's bytes changed")
            st = one_or_none(data[sent:])
            check(p.returncode == 125, "exit %d, not 125" % p.returncode)
            stderr_is_ours(p.stderr)
            if st is None:
                check(b"cannot deliver the status" in p.stderr,
                      "nothing delivered and nothing said: %r" % p.stderr)
            else:
                check(st["status"] == "invalid-policy", "status %r" % st)
            n += 1
    return "%d launches" % n


def scenario_status_file_full():
    """A regular file on a full file system (a small tmpfs)."""
    mnt = os.path.join(SCRATCH, "full")
    os.makedirs(mnt, exist_ok=True)
    r = run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", mnt])
    check(r.returncode == 0, "cannot mount a tmpfs: %r" % r.stderr)
    try:
        path = os.path.join(mnt, "status")
        with open(path, "w") as f:
            f.write("0" * 3000 + "\n")
        fill = os.open(os.path.join(mnt, "filler"), os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fill, b"\0" * 4096) > 0:
                pass
        except OSError:
            pass
        os.close(fill)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        p = run([SBOX, "--status-fd", str(fd), "--rw", LONG_PATH, "--",
                 "true"], pass_fds=[fd])
        os.close(fd)
        with open(path, "rb") as f:
            data = f.read()
        check(data[:3001] == b"0" * 3000 + b"\n", "earlier content changed")
        check(one_or_none(data[3001:]) is None,
              "a line where there was no room for it")
        check(len(data) == 3001, "the file holds %d bytes, not 3001" %
              len(data))
        check(p.returncode == 125, "exit %d" % p.returncode)
        check(b"cannot deliver the status" in p.stderr, "nothing said")
        stderr_is_ours(p.stderr)
    finally:
        run(["umount", "-l", mnt])
    return "cut back to 3001 bytes"


def scenario_status_closed():
    """Closed pipes, read-only files and full pipes as channels."""
    marker = os.path.join(SCRATCH, "m-closed")
    # A pipe whose reader is gone.
    r, w = os.pipe()
    os.close(r)
    p = run([SBOX, "--status-fd", str(w), "--rw", SCRATCH, "--"]
            + marker_cmd(marker), pass_fds=[w])
    os.close(w)
    check(p.returncode == 0, "closed pipe: exit %d, %r" % (p.returncode,
                                                          p.stderr))
    check(b"cannot deliver the status" in p.stderr, "closed pipe: silent")
    check(os.path.exists(marker), "closed pipe: the command did not run")
    os.unlink(marker)
    # A file opened read-only.
    ro = os.path.join(SCRATCH, "ro-status")
    open(ro, "w").close()
    fd = os.open(ro, os.O_RDONLY)
    p = run([SBOX, "--status-fd", str(fd), "--", "true"], pass_fds=[fd])
    os.close(fd)
    check(p.returncode == 0, "read-only file: exit %d" % p.returncode)
    check(os.path.getsize(ro) == 0, "read-only file written")
    # A pipe nobody reads, already full: given up after 2 s, not hung.
    r, w = os.pipe()
    os.set_blocking(w, False)
    try:
        while True:
            os.write(w, b"j" * 4096)
    except BlockingIOError:
        pass
    t = time.time()
    p = run([SBOX, "--status-fd", str(w), "--rw", LONG_PATH, "--", "true"],
            pass_fds=[w])
    dt = time.time() - t
    os.close(w)
    data = b""
    os.set_blocking(r, False)
    try:
        while True:
            d = os.read(r, 1 << 16)
            if not d:
                break
            data += d
    except BlockingIOError:
        pass
    os.close(r)
    check(one_or_none(data.replace(b"j", b"")) is None, "full pipe")
    check(p.returncode == 125 and dt < 5, "full pipe: exit %d after %.1f s"
          % (p.returncode, dt))
    return "closed, read-only and full channels"


# --- resource limits ---------------------------------------------------

def with_limit(res, value):
    def pre():
        resource.setrlimit(res, (value, value))
    return pre


def scenario_nofile():
    """Descriptor limits: never 'bwrap-not-found' for an installed bwrap."""
    seen = []
    for n in range(3, 24):
        r, w = os.pipe()
        p = run([SBOX, "--status-fd", str(w), "--", "true"], pass_fds=[w],
                preexec_fn=with_limit(resource.RLIMIT_NOFILE, n))
        os.close(w)
        st = one_or_none(os.read(r, 1 << 16))
        os.close(r)
        stderr_is_ours(p.stderr)
        if p.returncode == 0:
            check(st is None or st["status"] == "success", "%r" % st)
            seen.append("%d:ok" % n)
            continue
        check(p.returncode == 125, "nofile=%d: exit %d" % (n, p.returncode))
        err = p.stderr.decode()
        check("bwrap-not-found" not in json.dumps(st) and
              "install bubblewrap" not in err,
              "nofile=%d: reported as a missing bwrap: %r" % (n, err))
        check("open files" in err or st is None,
              "nofile=%d: the hint does not name the limit: %r" % (n, err))
        seen.append("%d:refused" % n)
    return " ".join(seen)


def scenario_nproc():
    """Process limits (not enforced for root: run as a user)."""
    check(os.getuid() != 0, "run this one as an unprivileged user")
    out = []
    for n in range(1, 8):
        p = run([SBOX, "--", "true"],
                preexec_fn=with_limit(resource.RLIMIT_NPROC, n))
        stderr_is_ours(p.stderr)
        err = p.stderr.decode()
        if p.returncode == 0:
            out.append("%d:ok" % n)
            continue
        check(p.returncode == 125, "nproc=%d: exit %d" % (n, p.returncode))
        check("limit on processes" in err,
              "nproc=%d: the hint does not name the process limit: %r"
              % (n, err))
        out.append("%d:refused" % n)
    return " ".join(out)


def scenario_closed_stdio():
    """Descriptors 0-2 closed, in every combination."""
    marker = os.path.join(SCRATCH, "m-stdio")
    for mask in range(8):
        closed = [fd for fd in range(3) if mask & (1 << fd)]
        prog = ("import os,sys\n"
                "for fd in %r: os.close(fd)\n"
                "os.execv(sys.argv[1], sys.argv[1:])\n" % (closed,))
        r, w = os.pipe()
        p = subprocess.run([sys.executable, "-c", prog, SBOX, "--status-fd",
                            str(w), "--rw", SCRATCH, "--"]
                           + marker_cmd(marker), pass_fds=[w],
                           capture_output=True, timeout=60)
        os.close(w)
        st = one_or_none(os.read(r, 1 << 16))
        os.close(r)
        check(p.returncode == 0, "closed %r: exit %d %r" %
              (closed, p.returncode, p.stderr))
        check(st is not None and st["status"] == "success",
              "closed %r: status %r" % (closed, st))
        check(check_marker(marker, st), "closed %r: did not run" % closed)
    return "8 combinations"


# --- signals, concurrency, bwrap dying -----------------------------------

def launch_marked(marker, token, seconds):
    """sbox-exec started on a command that records its user namespace in
    MARKER and then sleeps SECONDS with TOKEN in its command line; returns
    the process and the read end of its status pipe."""
    r, w = os.pipe()
    cmd = ["/bin/sh", "-c", 'readlink /proc/self/ns/user >"$0"; '
           'sleep %d; :' % seconds, marker, token]
    p = subprocess.Popen([SBOX, "--status-fd", str(w), "--rw", SCRATCH,
                          "--"] + cmd, pass_fds=[w],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    os.close(w)
    return p, r


def scenario_signal_storm():
    """A signal at a random moment of each launch."""
    n = int(ARGS.get("--n", 200))
    token = "sbox-fault-%d-%d" % (os.getpid(), SEED)
    marker = os.path.join(SCRATCH, "m-storm")
    sigs = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL]
    codes = {}
    for i in range(n):
        sig = rng.choice(sigs)
        # 0-80 ms: from before the launcher has parsed its options to
        # after the command has started.
        delay = rng.uniform(0, 0.08)
        p, r = launch_marked(marker, token, 2)
        time.sleep(delay)
        p.send_signal(sig)
        err = p.communicate(timeout=30)[1]
        st = one_or_none(os.read(r, 1 << 16))
        os.close(r)
        rc = p.returncode
        ran = check_marker(marker, st)
        ok = {-signal.SIGKILL} if sig == signal.SIGKILL else \
            {125, 128 + sig, -sig}
        check(rc in ok, "launch %d, %s after %.1f ms: exit %d (stderr %r)"
              % (i, signal.Signals(sig).name, delay * 1000, rc, err))
        if rc == 125:
            check(not ran, "refused, but the command ran")
        codes[rc] = codes.get(rc, 0) + 1
        check_nothing_left(token)
    return "%d launches, exit codes %s" % (n, dict(sorted(codes.items())))


def scenario_concurrent():
    """Launches at once, each checking its own status by credentials."""
    n = int(ARGS.get("--n", 60))
    procs = []
    for i in range(n):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        name = "sbox-fault-%d-%d-%d" % (os.getpid(), SEED, i)
        s.bind("\0" + name)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        p = subprocess.Popen([SBOX, "--status-socket", "@" + name, "--",
                              "true"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        procs.append((p, s))
    for p, s in procs:
        p.communicate(timeout=60)
        check(p.returncode == 0, "exit %d" % p.returncode)
        s.settimeout(5)
        msg, anc, _, _ = s.recvmsg(8192, socket.CMSG_SPACE(12))
        pid = None
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid = int.from_bytes(data[:4], sys.byteorder)
        check(pid == p.pid, "a status from pid %r, not %d" % (pid, p.pid))
        check(one_or_none(msg)["status"] == "success", "status %r" % msg)
        s.setblocking(False)
        try:
            extra = s.recv(8192)
        except BlockingIOError:
            extra = None
        check(extra is None, "a second status: %r" % extra)
        s.close()
    return "%d at once" % n


def scenario_kill_bwrap():
    """bwrap killed at a random moment of its setup."""
    n = int(ARGS.get("--n", 100))
    token = "sbox-fault-kb-%d-%d" % (os.getpid(), SEED)
    marker = os.path.join(SCRATCH, "m-kill")
    worst = 0.0
    for i in range(n):
        p, r = launch_marked(marker, token, 1)
        t = time.time()
        time.sleep(rng.uniform(0, 0.02))
        try:
            with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
                kids = [int(x) for x in f.read().split()]
        except OSError:
            kids = []
        for k in kids:
            try:
                os.kill(k, signal.SIGKILL)
            except ProcessLookupError:
                pass
        err = p.communicate(timeout=30)[1]
        dt = time.time() - t
        worst = max(worst, dt)
        st = one_or_none(os.read(r, 1 << 16))
        os.close(r)
        check_marker(marker, st)
        check(dt < 3, "launch %d: %.1f s to end after bwrap was killed (%r)"
              % (i, dt, err))
        if p.returncode == 125:
            check(b"not ready within" not in err,
                  "a killed bwrap reported as a timeout: %r" % err)
            stderr_is_ours(err)
        check_nothing_left(token)
    return "%d launches, the slowest ended %.2f s after the kill" % (n, worst)


def fake_bwrap(name, body):
    path = os.path.join(SCRATCH, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, 0o755)
    return path


def scenario_bad_bwrap():
    """bwraps that hang, end without a sandbox, or write garbage."""
    token = "sbox-fault-bb-%d" % os.getpid()
    cases = [
        ("hang", "exec sh -c 'sleep 30; :' %s" % token, "not ready within"),
        ("exit0", "exit 0", "exited with status 0"),
        ("garbage", r"printf 'bad\033]0;owned\007\n' >&2; exit 1", r"\x1b"),
    ]
    for name, body, expect in cases:
        bw = fake_bwrap("bwrap-" + name, body)
        r, w = os.pipe()
        t = time.time()
        p = run([SBOX, "--bwrap", bw, "--probe-timeout", "1", "--status-fd",
                 str(w), "--", "true"], pass_fds=[w])
        os.close(w)
        st = one_or_none(os.read(r, 1 << 16))
        os.close(r)
        check(p.returncode == 125, "%s: exit %d" % (name, p.returncode))
        check(st is not None and st["status"] != "success",
              "%s: status %r" % (name, st))
        check(expect.encode() in p.stderr, "%s: %r" % (name, p.stderr))
        check(b"\033" not in p.stderr, "%s: a raw escape on stderr" % name)
        check(time.time() - t < 5, "%s: took too long" % name)
        stderr_is_ours(p.stderr)
    check_nothing_left(token)
    return "hang, exit 0, garbage"


def main():
    # A suite started in the background by a script (`make check &`)
    # inherits SIGINT and SIGQUIT ignored, and so would every launcher
    # started here: the signal scenarios would not test what they say.
    for sig in (signal.SIGINT, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_DFL)
    fn = globals().get("scenario_" + SCENARIO.replace("-", "_"))
    if fn is None:
        sys.exit("faults.py: no scenario %r" % SCENARIO)
    try:
        what = fn()
    except Broken as e:
        print("%s: BROKEN (seed %d): %s" % (SCENARIO, SEED, e))
        sys.exit(1)
    print("%s: held (seed %d): %s" % (SCENARIO, SEED, what))


main()
