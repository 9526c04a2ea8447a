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


# --- policy size -----------------------------------------------------------

def cpu_of(argv, **kw):
    """ARGV run to its end; returns it and the CPU seconds it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = run(argv, **kw)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return p, (after.ru_utime - before.ru_utime
               + after.ru_stime - before.ru_stime)


def grants(files, n):
    out = []
    for i in range(n):
        out += ["--ro", files[i % len(files)]]
    return out


def scenario_policy_size():
    """10 000 grants: resolved in well under a second of CPU; the limits
    (bwrap's arguments, descriptors) refused up front in their own words;
    repeated grants cost one mount."""
    d = os.path.join(SCRATCH, "many")
    os.makedirs(d, exist_ok=True)
    files = []
    for i in range(10000):
        f = os.path.join(d, "f%d" % i)
        open(f, "w").close()
        files.append(f)
    out = []
    # Resolution alone (--print runs no bwrap), 10 000 distinct files and
    # 10 000 mentions of 1 000: CPU time, which load does not stretch.
    for label, files_used in (("distinct", files), ("1000", files[:1000])):
        p, cpu = cpu_of([SBOX, "--print"] + grants(files_used, 10000)
                        + ["--", "true"])
        stderr_is_ours(p.stderr)
        if label == "distinct":
            check(p.returncode == 125 and b"9000" in p.stderr and
                  b"arguments to bwrap" in p.stderr,
                  "10 000 distinct grants: exit %d, %r"
                  % (p.returncode, p.stderr[-300:]))
        else:
            check(p.returncode == 0, "10 000 grants of 1 000 files: exit %d %r"
                  % (p.returncode, p.stderr[-300:]))
            check(p.stdout.count(b"--ro-bind") <= 1000 + 20,
                  "repeated grants made repeated mounts")
        check(cpu < 1.0, "%s: %.2f s of CPU to resolve 10 000 grants"
              % (label, cpu))
        out.append("%s %.2fs" % (label, cpu))
    # The launch itself: 10 000 mentions of 300 files run the command.
    marker = os.path.join(SCRATCH, "m-size")
    r, w = os.pipe()
    p, cpu = cpu_of([SBOX, "--status-fd", str(w), "--rw", SCRATCH]
                    + grants(files[:300], 10000) + ["--"]
                    + marker_cmd(marker), pass_fds=[w])
    os.close(w)
    st = one_or_none(os.read(r, 1 << 16))
    os.close(r)
    check(p.returncode == 0, "10 000 grants of 300 files: exit %d %r"
          % (p.returncode, p.stderr[-300:]))
    check(check_marker(marker, st), "10 000 grants: the command did not run")
    check(cpu < 3.0, "10 000 grants: %.2f s of CPU to launch" % cpu)
    out.append("launch %.2fs" % cpu)
    # Descriptors: named, before bwrap, with the number wanted.
    r, w = os.pipe()
    p = run([SBOX, "--status-fd", str(w)] + grants(files[:1000], 1000)
            + ["--", "true"], pass_fds=[w],
            preexec_fn=with_limit(resource.RLIMIT_NOFILE, 1024))
    os.close(w)
    st = one_or_none(os.read(r, 1 << 16))
    os.close(r)
    stderr_is_ours(p.stderr)
    check(p.returncode == 125 and st is not None and
          st["status"] == "invalid-policy" and
          b"limit on open files (1024)" in p.stderr and
          b"ulimit -n" in p.stderr,
          "1 000 grants under ulimit -n 1024: exit %d %r %r"
          % (p.returncode, st, p.stderr))
    out.append("nofile named")
    # Repeats: 10 000 --setenv of one name give bwrap the last, and 300
    # mentions of one host count once against the 256 entries.
    rep = []
    for i in range(10000):
        rep += ["--setenv", "V", "v%d" % i]
    for i in range(300):
        rep += ["--allow-host", "repeat.example", "--deny-host",
                "*.bad.example"]
    p, cpu = cpu_of([SBOX] + rep + ["--", "/bin/sh", "-c", 'echo "$V"'])
    check(p.returncode == 0 and p.stdout == b"v9999\n",
          "10 000 --setenv of one name, 300 of one host: exit %d %r %r"
          % (p.returncode, p.stdout, p.stderr[-300:]))
    check(cpu < 3.0, "repeats: %.2f s of CPU to launch" % cpu)
    out.append("repeats once")
    return ", ".join(out)


def refused_up_front(argv, words, what, marker, **kw):
    """ARGV refused as invalid-policy with exit 125 and WORDS on stderr,
    stdout empty, the command (writing MARKER) never run."""
    r, w = os.pipe()
    kw.setdefault("pass_fds", [])
    kw["pass_fds"] = list(kw["pass_fds"]) + [w]
    p = run([SBOX, "--status-fd", str(w)] + argv + ["--"]
            + marker_cmd(marker), **kw)
    os.close(w)
    st = one_or_none(os.read(r, 1 << 16))
    os.close(r)
    check(not check_marker(marker, st), "%s: the command ran" % what)
    stderr_is_ours(p.stderr)
    check(p.returncode == 125 and p.stdout == b"" and st is not None and
          st["status"] == "invalid-policy" and
          all(x.encode() in p.stderr for x in words),
          "%s: exit %d, stdout %r, status %r, stderr %r"
          % (what, p.returncode, p.stdout[:100], st, p.stderr[-400:]))


def ran(argv, what, marker, **kw):
    """The control: ARGV runs its command (writing MARKER)."""
    r, w = os.pipe()
    kw.setdefault("pass_fds", [])
    kw["pass_fds"] = list(kw["pass_fds"]) + [w]
    p = run([SBOX, "--status-fd", str(w)] + argv + ["--"]
            + marker_cmd(marker), **kw)
    os.close(w)
    st = one_or_none(os.read(r, 1 << 16))
    os.close(r)
    check(p.returncode == 0 and check_marker(marker, st),
          "%s (the control): exit %d, %r" % (what, p.returncode,
                                              p.stderr[-400:]))


def scenario_exec_size():
    """What execve() gives bwrap, and the descriptors the caller holds
    already, refused before bwrap runs in words that name them
    (sbox-exec(1), Policy size); each beside a control that runs."""
    marker = os.path.join(SCRATCH, "m-exec")
    out = []
    # Long paths: under a stack limit of 512 KiB the kernel gives a
    # program's arguments and environment 128 KiB, which 150 grants of
    # paths of 1 000 bytes pass; 50 of them fit.
    deep = SCRATCH
    while len(deep) < 1000:
        deep = os.path.join(deep, "d" * 40)
    os.makedirs(deep, exist_ok=True)
    for i in range(150):
        open(os.path.join(deep, "f%d" % i), "w").close()

    def deep_policy(n):
        path = os.path.join(SCRATCH, "deep-%d.policy" % n)
        with open(path, "w") as f:
            for i in range(n):
                f.write("--ro %s\n" % os.path.join(deep, "f%d" % i))
        return path

    small_stack = with_limit(resource.RLIMIT_STACK, 512 << 10)
    ran(["--rw", SCRATCH, "--policy", deep_policy(50)], "50 long grants",
        marker, preexec_fn=small_stack)
    refused_up_front(["--rw", SCRATCH, "--policy", deep_policy(150)],
                     ["above the 131072 the kernel gives", "ARG_MAX"],
                     "150 long grants", marker, preexec_fn=small_stack)
    out.append("ARG_MAX named")
    # One value longer than the kernel takes for one string (128 KiB),
    # from a policy file (argv could not carry it).
    for size in (100000, 200000):
        path = os.path.join(SCRATCH, "env-%d.policy" % size)
        with open(path, "w") as f:
            f.write("--setenv BIG %s\n" % ("v" * size))
        argv = ["--rw", SCRATCH, "--policy", path]
        if size < 128 << 10:
            ran(argv, "a 100 000-byte --setenv", marker)
        else:
            refused_up_front(argv, ["the variable BIG takes 200001 bytes",
                                    "(131072 bytes)"],
                             "a 200 000-byte --setenv", marker)
            check(b"vvvv" not in run([SBOX, "--policy", path, "--", "true"]
                                     ).stderr, "the value shown")
    out.append("one long value named")
    # Descriptors the caller holds (900 of them, kept for the command)
    # count against the same limit as the grants' own.
    fds = [os.open("/dev/null", os.O_RDONLY) for _ in range(900)]
    try:
        keep = []
        for fd in fds:
            keep += ["--keep-fd", str(fd)]
        files = os.path.join(SCRATCH, "fds")
        os.makedirs(files, exist_ok=True)
        grants_ = []
        for i in range(400):
            f = os.path.join(files, "f%d" % i)
            open(f, "w").close()
            grants_ += ["--ro", f]
        limit = with_limit(resource.RLIMIT_NOFILE, 1300)
        ran(["--rw", SCRATCH] + keep + grants_[:100], "900 kept, 50 grants",
            marker, pass_fds=fds, preexec_fn=limit)
        refused_up_front(["--rw", SCRATCH] + keep + grants_,
                         ["descriptors", "open already",
                          "limit on open files (1300)", "ulimit -n"],
                         "900 kept, 400 grants", marker, pass_fds=fds,
                         preexec_fn=limit)
    finally:
        for fd in fds:
            os.close(fd)
    out.append("kept descriptors counted")
    return ", ".join(out)


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


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def wait_depth(pid, depth, seconds=5.0):
    """Wait until PID has descendants DEPTH generations down (bwrap's
    child, then stage two below it); False when PID ended first."""
    end = time.time() + seconds
    while time.time() < end:
        gen = children(pid)
        for _ in range(depth):
            gen = [c for g in gen for c in children(g)]
        if gen:
            return True
        time.sleep(0.0005)
    return False


def scenario_kill_bwrap():
    """bwrap killed at a random moment of its setup: after a random delay
    from the launch, or a random moment (0-4 ms) after bwrap has started,
    after its own child has, or after stage two has below that."""
    n = int(ARGS.get("--n", 100))
    token = "sbox-fault-kb-%d-%d" % (os.getpid(), SEED)
    marker = os.path.join(SCRATCH, "m-kill")
    worst = 0.0
    seen = {}
    for i in range(n):
        p, r = launch_marked(marker, token, 1)
        moment = rng.choice([None, 0, 1, 2])
        if moment is None:
            time.sleep(rng.uniform(0, float(ARGS.get("--max-delay",
                                                     0.02))))
        else:
            wait_depth(p.pid, moment)
            time.sleep(rng.uniform(0, 0.004))
        kids = children(p.pid)
        for k in kids:
            try:
                os.kill(k, signal.SIGKILL)
            except ProcessLookupError:
                pass
        t = time.time()
        err = p.communicate(timeout=30)[1]
        dt = time.time() - t
        worst = max(worst, dt)
        st = one_or_none(os.read(r, 1 << 16))
        os.close(r)
        check_marker(marker, st)
        check(dt < 3, "launch %d: %.1f s to end after bwrap was killed (%r)"
              % (i, dt, err))
        check(st is None or st["status"] != "bwrap-untrusted",
              "launch %d: a killed bwrap reported as untrusted: %r (%r)"
              % (i, st, err))
        if p.returncode == 125:
            check(b"not ready within" not in err,
                  "a killed bwrap reported as a timeout: %r" % err)
            check(b"killed by signal 9" in err,
                  "launch %d: the refusal does not name the kill: %r"
                  % (i, err))
            stderr_is_ours(err)
        check_nothing_left(token)
        key = "%s:%d" % ("delay" if moment is None else moment, p.returncode)
        seen[key] = seen.get(key, 0) + 1
    return ("%d launches (moment:exit %s), the slowest ended %.2f s after "
            "the kill" % (n, dict(sorted(seen.items())), worst))


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


def scenario_detached_bwrap():
    """A bwrap that starts a process leaving by a double fork and setsid()
    with the caller's stdout, then hangs or exits: after the refusal the
    caller reads end-of-file at once, and nothing is left."""
    fake = ARGS["--fake"]
    out = []
    for how in ("detach-hang", "detach-exit"):
        token = "sbox-fault-db-%d-%d-%s" % (os.getpid(), SEED, how)
        d = os.path.join(SCRATCH, "fb-" + how)
        os.makedirs(d, exist_ok=True)
        bw = os.path.join(d, "bwrap")
        with open(fake) as f, open(bw, "w") as g:
            g.write(f.read())
        os.chmod(bw, 0o755)
        with open(os.path.join(d, "mode"), "w") as f:
            f.write("%s %s\n" % (how, token))
        t = time.time()
        p = subprocess.Popen([SBOX, "--bwrap", bw, "--probe-timeout", "2",
                              "--", "true"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            # communicate() returns at end-of-file on both pipes.
            o, err = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            left = leftovers(token)
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            raise Broken("%s: no end-of-file on stdout/stderr 20 s after "
                         "the launch; left: %s" % (how, left))
        dt = time.time() - t
        check(p.returncode == 125, "%s: exit %d %r" % (how, p.returncode,
                                                      err))
        check(o == b"", "%s: stdout %r" % (how, o))
        stderr_is_ours(err)
        check(dt < 8, "%s: end-of-file %.1f s after the launch" % (how, dt))
        check_nothing_left(token, wait=0.5)
        out.append("%s %.1fs" % (how, dt))
    return ", ".join(out)


def scenario_orphan_report():
    """What reports in after its bwrap has ended (a real bwrap killed
    during its setup can leave its sandbox to the launcher, a child
    subreaper): the refusal names bwrap's end, never an untrusted bwrap,
    and comes at once, not after the 2 s given a bwrap's init to
    install its filter."""
    d = os.path.join(SCRATCH, "fb-orphan")
    os.makedirs(d, exist_ok=True)
    bw = os.path.join(d, "bwrap")
    with open(ARGS["--fake"]) as f, open(bw, "w") as g:
        g.write(f.read())
    os.chmod(bw, 0o755)
    with open(os.path.join(d, "mode"), "w") as f:
        f.write("orphan\n")
    worst = 0.0
    for i in range(int(ARGS.get("--n", 5))):
        r, w = os.pipe()
        t = time.time()
        p = run([SBOX, "--bwrap", bw, "--status-fd", str(w), "--", "true"],
                pass_fds=[w])
        dt = time.time() - t
        os.close(w)
        st = one_or_none(os.read(r, 1 << 16))
        os.close(r)
        worst = max(worst, dt)
        stderr_is_ours(p.stderr)
        check(p.returncode == 125 and st is not None and
              st["status"] == "sandbox-probe-failed" and
              b"exited with status 0" in p.stderr,
              "launch %d: exit %d, status %r, stderr %r"
              % (i, p.returncode, st, p.stderr))
        check(dt < 1.5, "launch %d: refused after %.2f s" % (i, dt))
    return "refused as bwrap's end, the slowest in %.2f s" % worst


# --- proxy tunnels --------------------------------------------------------

class SilentUpstream:
    """A TCP server on 127.0.0.1 that accepts and never answers or closes;
    with backlog_full, one whose queue is full, so that connect() hangs."""

    def __init__(self, backlog_full=False, flood=False):
        import threading
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.s.bind(("127.0.0.1", 0))
        self.port = self.s.getsockname()[1]
        self.held = []
        self.flood = flood
        if backlog_full:
            self.s.listen(0)
            # Fill the queue: later SYNs are dropped, connect() waits.
            for _ in range(8):
                c = socket.socket()
                c.setblocking(False)
                try:
                    c.connect(("127.0.0.1", self.port))
                except BlockingIOError:
                    pass
                self.held.append(c)
            return
        self.s.listen(128)
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        import threading
        while True:
            c, _ = self.s.accept()
            self.held.append(c)
            if self.flood:
                threading.Thread(target=self.pour, args=(c,),
                                 daemon=True).start()

    @staticmethod
    def pour(c):
        """Send until the client's side is full, then block there."""
        try:
            while True:
                c.sendall(b"x" * 65536)
        except OSError:
            pass


TUNNELS_INNER = r"""
import os, socket, sys, time
port, sync, n, stuck = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
flood = sys.argv[5]

def step(name):
    open(os.path.join(sync, name), "w").close()
    while not os.path.exists(os.path.join(sync, name + ".go")):
        time.sleep(0.02)

def tunnel(p):
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(b"CONNECT 127.0.0.1:%s HTTP/1.1\r\n\r\n" % p.encode())
    s.settimeout(30)
    try:
        line = s.recv(100).split(b"\r\n")[0]
    except OSError:
        line = b""
    return s, line

def many():
    got = [tunnel(port) for _ in range(n)]
    return [s for s, _ in got], sum(l.startswith(b"HTTP/1.1 200") for _, l in got)

step("ready")
held, ok = many()
print("first", ok, flush=True)
step("opened")
for s in held:
    s.close()
step("closed")
held, ok = many()
print("again", ok, flush=True)
for s in held:
    s.close()
step("closed-again")
# Held open and idle by the client: the proxy ends them, the client
# reads end-of-file.
held, ok = many()
t = time.monotonic()
for s in held:
    s.settimeout(30)
    try:
        s.recv(1)
    except OSError:
        pass
print("idle", ok, round(time.monotonic() - t), flush=True)
for s in held:
    s.close()
step("idle")
# An upstream that floods a client that never reads: once both sides'
# buffers are full no byte moves, and the idle timeout ends it.
held = [tunnel(flood)[0] for _ in range(5)]
step("flooded")
for s in held:
    s.close()
t = time.monotonic()
s, line = tunnel(stuck)
print("stuck", line.decode(), round(time.monotonic() - t), flush=True)
"""


def tasks_and_fds(pid):
    return (len(os.listdir("/proc/%d/task" % pid)),
            len(os.listdir("/proc/%d/fd" % pid)))


def wait_until(cond, seconds, what):
    end = time.time() + seconds
    while time.time() < end:
        if cond():
            return
        time.sleep(0.05)
    raise Broken("%s, not within %d s" % (what(), seconds))


def scenario_held_tunnels():
    """Tunnels to an upstream that accepts and never answers: after the
    client closes them they end at --net-idle-timeout, giving back their
    threads and descriptors; at the cap (12 under a limit of 100
    descriptors) the rest are refused with one net-limit event, and the
    capacity comes back; tunnels the client holds open and idle, and
    tunnels whose upstream floods a client that never reads, end at the
    idle timeout too; a connect that hangs ends at its timeout."""
    up = SilentUpstream()
    stuck = SilentUpstream(backlog_full=True)
    flood = SilentUpstream(flood=True)
    sync = os.path.join(SCRATCH, "tunnels")
    os.makedirs(sync, exist_ok=True)
    for f in os.listdir(sync):
        os.unlink(os.path.join(sync, f))
    os.chmod(sync, 0o777)
    n = 30
    r, w = os.pipe()
    # Network entries: the host's loopback ports reached through the
    # proxy alone, whose thread the first connection starts (an address
    # with a port is also served on the sandbox's own loopback, and its
    # thread starts at launch).
    p = subprocess.Popen(
        [SBOX, "--allow-host=127.0.0.0/8:%d" % up.port,
         "--allow-host=127.0.0.0/8:%d" % stuck.port,
         "--allow-host=127.0.0.0/8:%d" % flood.port,
         "--net-idle-timeout=1s", "--log-fd", str(w), "--rw", sync, "--",
         "python3", "-c", TUNNELS_INNER, str(up.port), sync, str(n),
         str(stuck.port), str(flood.port)],
        pass_fds=[w], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=with_limit(resource.RLIMIT_NOFILE, 100))
    os.close(w)

    def at(name):
        wait_until(lambda: os.path.exists(os.path.join(sync, name)), 30,
                   lambda: "the command did not reach %r (exit %r)"
                   % (name, p.poll()))

    def go(name):
        open(os.path.join(sync, name + ".go"), "w").close()

    try:
        at("ready")
        # Before the first connection: and the proxy's accepting thread,
        # which that connection starts, and which stays.
        base = tasks_and_fds(p.pid)
        base = (base[0] + 1, base[1])
        go("ready")
        at("opened")
        held = tasks_and_fds(p.pid)
        check(held[0] >= base[0] + 12 and held[1] >= base[1] + 12,
              "12 tunnels held: threads and descriptors %r, before %r"
              % (held, base))
        go("opened")
        # The client closed them (the upstream never will), closed a
        # second set, held a set idle, and left a set flooded unread
        # (still open on its side: the idle timeout alone ends them).
        for stage, what in (("closed", "after the tunnels closed"),
                            ("closed-again",
                             "after the second tunnels closed"),
                            ("idle", "after the idle tunnels ended"),
                            ("flooded", "with flooded tunnels the client "
                             "never reads")):
            at(stage)
            wait_until(lambda: tasks_and_fds(p.pid) == base, 15,
                       lambda: "threads and descriptors %r %s, %r before"
                       % (tasks_and_fds(p.pid), what, base))
            go(stage)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    with os.fdopen(r, "rb") as f:
        events = [json.loads(x) for x in f.read().splitlines()]
    lines = out.decode().splitlines()
    check(p.returncode == 0, "exit %d %r %r" % (p.returncode, out, err))
    check(lines[0] == "first 12" and lines[1] == "again 12",
          "tunnels at the cap, then after the held ones ended: %r" % lines)
    check(lines[2].startswith("idle 12 ") and int(lines[2].split()[-1]) <= 5,
          "tunnels held idle by the client, ended by the proxy: %r"
          % lines[2])
    lines.remove(lines[2])
    check(lines[2].startswith("stuck HTTP/1.1 502") and
          8 <= int(lines[2].split()[-1]) <= 20,
          "a connect that hangs: %r" % lines[2])
    # Its reason is the time out, not connect()'s EINPROGRESS.
    check(b"cannot connect: no answer within 10 s" in err and
          b"in progress" not in err,
          "a connect that hangs, on stderr: %r" % err[-600:])
    limits = [e for e in events if e["event"] == "net-limit"]
    check(len(limits) == 3 and limits[0]["connections"] == 12 and
          limits[0]["idle_timeout_ms"] == 1000,
          "net-limit events %r" % limits)
    refused = [e for e in events if e.get("reason") == "too many connections"]
    # The proxy's events never wait (EVENTS in the manual): one that met
    # another being written is dropped, and the exit event counts it.
    dropped = sum(e.get("dropped", 0) for e in events if e["event"] == "exit")
    check(len(refused) + dropped == 3 * (n - 12),
          "%d refusals at the cap, %d events dropped" % (len(refused), dropped))
    return "held %r, back to %r; %s" % (held, base, lines[2])


def main():
    # A suite started in the background by a script (`make check &`)
    # inherits SIGINT and SIGQUIT ignored, one started under nohup SIGHUP
    # too, and so would every launcher started here, which would then
    # rightly go on: the signal scenarios would not test what they say.
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM):
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
