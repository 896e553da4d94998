#!/usr/bin/env python3
"""Checks that two builds compile every program to the same bytes: slc and fmag-opt
of OLD (e.g. build-old, a build of main) and NEW (build) run on the examples, the bench
programs and the test corpus in several modes, and everything they print or write
(standard output, standard error with the build paths masked, the exit status and the
output file) must be identical.

    python3 scripts/same-bytes.py [--old build-old/bin] [--new build/bin] [-j N] [-v]

Modes: slc -o x.fmag at -O2, -O1 and -O0, -S, -S -ffast-math, -S -lowering=fast,
-emit-ir, --emit=c, -emit-spirv (GLSL/HLSL); GLSL and HLSL once per -entry their
test RUN lines name and once without; fmag-opt with no pass, -O2, -O2 -print-raw,
-O2 -lower, -O2 -lower -o x.fmag, -O0 -lower -stats. Prints the count of runs
compared and every difference; exit 1 on any.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHADER = (".glsl", ".hlsl", ".frag", ".vert", ".comp")


def inputs():
    for top in ("examples", "bench", "test"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith((".sl", ".fir", ".spv") + SHADER):
                    yield os.path.join(d, f)


def entries(path):
    """The -entry names the file's own RUN lines use (GLSL/HLSL), and None."""
    names = [None]
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return names
    for m in re.finditer(r"-entry[ =]([A-Za-z_][A-Za-z0-9_]*)", text):
        if m.group(1) not in names:
            names.append(m.group(1))
    return names


def jobs():
    for path in inputs():
        if path.endswith(".fir"):
            for flags in ([], ["-O2"], ["-O2", "-print-raw"], ["-O2", "-lower"],
                          ["-O2", "-lower", "-o", "{out}.fmag"], ["-O0", "-lower", "-stats"]):
                yield ("fmag-opt", [path] + flags)
            continue
        modes = [["-o", "{out}.fmag"], ["-O1", "-o", "{out}.fmag"], ["-O0", "-o", "{out}.fmag"],
                 ["-S"], ["-S", "-ffast-math"], ["-S", "-lowering=fast"], ["-emit-ir"],
                 ["--emit=c"]]
        shader = path.endswith(SHADER)
        if shader:
            modes.append(["-emit-spirv", "-o", "{out}.spv"])
        for e in entries(path) if shader else [None]:
            for m in modes:
                yield ("slc", [path] + (["-entry", e] if e else []) + m)


def run(bindir, tool, args, tmp):
    args = [a.replace("{out}", os.path.join(tmp, "out")) for a in args]
    p = subprocess.run([os.path.join(bindir, tool)] + args, capture_output=True, timeout=300)
    outs = [a for a in args if a.startswith(tmp)]
    data = b""
    for o in outs:
        if os.path.exists(o):
            with open(o, "rb") as f:
                data += f.read()
            os.remove(o)
    # Paths and tool locations differ between the builds; nothing else may.
    err = p.stderr.replace(tmp.encode(), b"<tmp>").replace(bindir.encode(), b"<bin>")
    return p.returncode, p.stdout.replace(tmp.encode(), b"<tmp>"), err, data


def compare(old, new, job):
    tool, args = job
    with tempfile.TemporaryDirectory() as t1, tempfile.TemporaryDirectory() as t2:
        a = run(old, tool, args, t1)
        b = run(new, tool, args, t2)
    return job, a, b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default=os.path.join(ROOT, "build-old", "bin"))
    ap.add_argument("--new", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    all_jobs = list(jobs())
    diffs = 0
    ok_runs = 0
    with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
        for job, x, y in ex.map(lambda j: compare(a.old, a.new, j), all_jobs):
            if x == y:
                ok_runs += x[0] == 0
                continue
            diffs += 1
            print("DIFF %s %s" % (job[0], " ".join(os.path.relpath(s, ROOT) if s.startswith(ROOT)
                                                    else s for s in job[1])))
            for name, u, v in zip(("status", "stdout", "stderr", "file"), x, y):
                if u != v:
                    show = lambda s: s if isinstance(s, int) else s[:600]
                    print("  %s:\n    old: %r\n    new: %r" % (name, show(u), show(v)))
    files = len(set(j[1][0] for j in all_jobs))
    print("same-bytes: %d runs over %d files compared (%d compiled successfully in both), "
          "%d differ" % (len(all_jobs), files, ok_runs, diffs))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
