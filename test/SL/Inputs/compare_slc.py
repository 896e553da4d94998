#!/usr/bin/env python3
"""Byte comparison of two slc builds (issue 27's requirement that integers change the
meaning of no existing SL program): every SL file given, plus random programs of
random_sl_diff.py (with and without loops), are compiled by both with -S, -S
-ffast-math, -O0 -S and -emit-ir; stdout, stderr and the exit status must agree.

usage: compare_slc.py OLD_SLC NEW_SLC WORKDIR NRANDOM FILE.sl ...
Prints one line per difference and a summary; exits 1 on any difference."""
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import random_sl_diff  # noqa: E402

MODES = [["-S"], ["-S", "-ffast-math"], ["-O0", "-S"], ["-emit-ir"]]


def run(slc, mode, src):
    p = subprocess.run([slc] + mode + [src, "-o", "-"], capture_output=True)
    return p.returncode, p.stdout, p.stderr


def main():
    old, new, work, nrand = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    files = list(sys.argv[5:])
    os.makedirs(work, exist_ok=True)
    r = random.Random(27)
    for i in range(nrand):
        path = os.path.join(work, "r%d.sl" % i)
        with open(path, "w") as f:
            f.write(random_sl_diff.program(r, loops=i % 2 == 1))
        files.append(path)
    same = diff = accepted = 0
    for src in files:
        for mode in MODES:
            a, b = run(old, mode, src), run(new, mode, src)
            if a == b:
                same += 1
                accepted += a[0] == 0
            else:
                diff += 1
                print("DIFF %s %s: rc %d/%d" % (src, " ".join(mode), a[0], b[0]))
    print("%d files, %d compilations identical (%d of them accepted), %d differ" %
          (len(files), same, accepted, diff))
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
