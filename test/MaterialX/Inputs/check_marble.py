#!/usr/bin/env python3
"""The marble graph of marble.mtlx at a few points against its formula, with the
fractal noise from the reference transcription (mx_noise_ref.py).
usage: check_marble.py FILE.fmag"""
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mx_noise_ref as ref  # noqa: E402

c1, c2 = [0.8, 0.8, 0.8], [0.1, 0.1, 0.3]
pts = [[0.1, 0.2, 0.3], [-1.5, 0.25, 2.0], [3.0, -2.0, 0.7], [0.0, 0.0, 0.0], [10.5, 4.25, -7.0]]
bad = 0
for p in pts:
    args = c1 + c2 + [6.0, 4.0, 3.0, 3.0] + p
    out = subprocess.run(["fmag-run", sys.argv[1], "--program", "NG_marble.out", "--in",
                          ",".join(repr(a) for a in args)], capture_output=True, text=True)
    got = [float(x) for x in out.stdout.split()]
    n = ref.fractal([ref.f32(4.0 * x) for x in p], 1, 3, 2.0, 0.5)[0]
    t = (0.5 * math.sin(6.0 * sum(p) + 3.0 * n) + 0.5) ** 3.0
    want = [a * (1 - t) + b * t for a, b in zip(c1, c2)]
    if len(got) != 3 or any(abs(g - w) > 2e-4 for g, w in zip(got, want)):
        bad += 1
        print("MISMATCH at %s: got %s want %s %s" % (p, got, want, out.stderr.strip()))
print("marble: %d points, %d mismatches" % (len(pts), bad))
