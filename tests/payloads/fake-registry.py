#!/usr/bin/python3
"""Package registries for tests/net-allow.bats, as files a web server serves.

Usage: fake-registry.py go WWW
       fake-registry.py cargo WWW BASEURL
       fake-registry.py npm WWW BASEURL PROJECT
       fake-registry.py pip WWW

go writes a Go module proxy (GOPROXY=BASEURL/goproxy) under WWW/goproxy
holding one module, example.test/sboxhello v0.1.0.

cargo writes what a Cargo registry of one crate, sboxtestcrate 0.1.0,
is made of: its .crate under WWW/crates (the index's "dl" points there,
below BASEURL) and the index's files under WWW/index-src, to be made a
git repository by the caller.

npm writes the tarball of one package, sboxnpmpkg 1.0.0, under WWW/npm,
and in PROJECT a package.json that needs it and the package-lock.json
that `npm ci` installs from (its "resolved" below BASEURL).

pip writes a simple index (PEP 503) under WWW/simple holding one wheel,
sboxpippkg 1.0.0, under WWW/wheels.
"""
import base64
import hashlib
import io
import json
import os
import sys
import tarfile
import zipfile


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def tar_gz(files, prefix):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(prefix + path)
            info.size, info.mode, info.mtime = len(data), 0o644, 1767225600
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def go(www):
    mod, ver = "example.test/sboxhello", "v0.1.0"
    base = os.path.join(www, "goproxy", mod, "@v")
    gomod = "module %s\n\ngo 1.19\n" % mod
    write(os.path.join(base, "list"), ver + "\n")
    write(os.path.join(base, ver + ".info"),
          json.dumps({"Version": ver, "Time": "2026-01-01T00:00:00Z"}))
    write(os.path.join(base, ver + ".mod"), gomod)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("%s@%s/go.mod" % (mod, ver), gomod)
        z.writestr("%s@%s/hello.go" % (mod, ver),
                   'package sboxhello\n\nconst Greeting = "hello from the proxy"\n')
    write(os.path.join(base, ver + ".zip"), buf.getvalue())


def cargo(www, baseurl):
    name, ver = "sboxtestcrate", "0.1.0"
    crate = tar_gz({
        "Cargo.toml": '[package]\nname = "%s"\nversion = "%s"\nedition = "2018"\n'
                      % (name, ver),
        "src/lib.rs": 'pub const GREETING: &str = "hello from the proxy";\n',
    }, "%s-%s/" % (name, ver))
    write(os.path.join(www, "crates", name, ver, "download"), crate)
    index = os.path.join(www, "index-src")
    write(os.path.join(index, "config.json"),
          json.dumps({"dl": baseurl + "/crates/{crate}/{version}/download"}))
    write(os.path.join(index, name[:2], name[2:4], name),
          json.dumps({"name": name, "vers": ver, "deps": [],
                      "cksum": hashlib.sha256(crate).hexdigest(),
                      "features": {}, "yanked": False}) + "\n")


def npm(www, baseurl, project):
    name, ver = "sboxnpmpkg", "1.0.0"
    tgz = tar_gz({
        "package.json": json.dumps({"name": name, "version": ver,
                                    "main": "index.js"}),
        "index.js": 'module.exports = "hello from the proxy";\n',
    }, "package/")
    write(os.path.join(www, "npm", name, "-", "%s-%s.tgz" % (name, ver)), tgz)
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode()
    deps = {name: ver}
    write(os.path.join(project, "package.json"),
          json.dumps({"name": "proj", "version": "1.0.0", "dependencies": deps}))
    write(os.path.join(project, "package-lock.json"), json.dumps({
        "name": "proj", "version": "1.0.0", "lockfileVersion": 3,
        "requires": True,
        "packages": {
            "": {"name": "proj", "version": "1.0.0", "dependencies": deps},
            "node_modules/" + name: {
                "version": ver,
                "resolved": "%s/npm/%s/-/%s-%s.tgz" % (baseurl, name, name, ver),
                "integrity": integrity,
            },
        },
    }))


def pip(www):
    name, ver = "sboxpippkg", "1.0.0"
    dist = "%s-%s.dist-info" % (name, ver)
    files = {
        name + ".py": 'GREETING = "hello from the proxy"\n',
        dist + "/METADATA": "Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
                            % (name, ver),
        dist + "/WHEEL": "Wheel-Version: 1.0\nGenerator: fake-registry\n"
                         "Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = ""
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(
            hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record += "%s,sha256=%s,%d\n" % (path, digest, len(text.encode()))
    files[dist + "/RECORD"] = record + dist + "/RECORD,,\n"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
    wheel = "%s-%s-py3-none-any.whl" % (name, ver)
    write(os.path.join(www, "wheels", wheel), buf.getvalue())
    write(os.path.join(www, "simple", name, "index.html"),
          '<html><body><a href="../../wheels/%s#sha256=%s">%s</a></body></html>\n'
          % (wheel, hashlib.sha256(buf.getvalue()).hexdigest(), wheel))


if sys.argv[1] == "go":
    go(sys.argv[2])
elif sys.argv[1] == "npm":
    npm(sys.argv[2], sys.argv[3], sys.argv[4])
elif sys.argv[1] == "pip":
    pip(sys.argv[2])
else:
    cargo(sys.argv[2], sys.argv[3])
