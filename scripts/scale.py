#!/usr/bin/python3
"""Launch N sandboxes at once and check that every one did its job.

usage: scale.py SBOX_EXEC WORKDIR [N] [--raw]

Each launch runs `sh -c 'echo I > out.I'` in WORKDIR with its own status
pipe.  Checked: every status line arrives exactly once and says success,
every command ran, no process of ours is left, and the launcher leaks no
descriptor.  With --raw, the same commands run under the bwrap command line
that `sbox-exec --print` gives, for comparison: no status there, and no
stage two (no Landlock), no seccomp filter, grants bound by path.
Prints launches per second; exits 1 if anything was missed.
"""
import json
import os
import shlex
import subprocess
import sys
import time


def main():
    sbox, work = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3].isdigit() else 200
    raw = "--raw" in sys.argv
    os.chdir(work)
    for f in os.listdir(work):
        if f.startswith("out."):
            os.unlink(f)
    fds_before = len(os.listdir("/proc/self/fd"))

    procs = []
    start = time.monotonic()
    for i in range(n):
        cmd = ["sh", "-c", "echo %d > out.%d" % (i, i)]
        if raw:
            line = subprocess.run([sbox, "-q", "--print", "--rw", work,
                                   "--"] + cmd,
                                  check=True, capture_output=True,
                                  text=True).stdout
            # It runs as printed (sbox-exec(1), --print): no seccomp
            # filter, hidden files from /dev/null, as the benchmark's
            # raw bwrap runs.
            argv = shlex.split(line)
            procs.append((subprocess.Popen(argv), None))
        else:
            r, w = os.pipe()
            # What is checked is delivery, not the deadline: 200 sandboxes
            # made at once on two cores under a sanitizer can take longer
            # than the default 10 s each, and would then be refused.
            p = subprocess.Popen([sbox, "--status-fd=%d" % w,
                                  "--probe-timeout=120", "--rw", work,
                                  "--"] + cmd, pass_fds=[w])
            os.close(w)
            procs.append((p, r))
    if raw:
        start = time.monotonic()  # the --print calls are not the point
        procs = [(subprocess.Popen(p.args), r) for p, r in procs]
    bad = []
    statuses = 0
    for i, (p, r) in enumerate(procs):
        if p.wait(timeout=120) != 0:
            bad.append("launch %d exited %d" % (i, p.returncode))
        if r is not None:
            data = b""
            while True:
                chunk = os.read(r, 8192)
                if not chunk:
                    break
                data += chunk
            os.close(r)
            lines = data.decode().splitlines()
            if len(lines) != 1 or json.loads(lines[0])["status"] != "success":
                bad.append("launch %d: status %r" % (i, data))
            statuses += len(lines)
    elapsed = time.monotonic() - start
    for i in range(n):
        try:
            with open("out.%d" % i) as f:
                if f.read().strip() != str(i):
                    bad.append("out.%d has the wrong content" % i)
        except OSError:
            bad.append("command %d did not run" % i)
    time.sleep(0.2)
    # Only our own sandboxes: their command lines name WORKDIR.
    left = [p for p in subprocess.run(["pgrep", "-f", work],
                                      capture_output=True,
                                      text=True).stdout.split()
            if int(p) != os.getpid()]
    if left:
        bad.append("processes left: %s" % " ".join(left))
    if len(os.listdir("/proc/self/fd")) != fds_before:
        bad.append("descriptors leaked")
    what = "raw bwrap" if raw else "sbox-exec"
    print("%s: %d launches at once in %.2f s: %.0f launches/s%s" %
          (what, n, elapsed, n / elapsed,
           "" if raw else ", %d status lines" % statuses))
    for b in bad[:10]:
        print("  FAIL:", b)
        print("scale.py: FAIL:", b, file=sys.stderr)
    sys.exit(1 if bad else 0)


main()
