#!/usr/bin/env python3
"""Runs each noise program of noise.mtlx (IR from `slc -emit-ir`, run by fmag-run's IR
interpreter, or a compiled .fmag) on many points and compares it with the Python
transcription of MaterialX's reference noise (mx_noise_ref.py).

usage: check_noise.py FILE.fir|FILE.fmag COUNT SEED"""
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mx_noise_ref as ref  # noqa: E402
from check_nodes import hsv2rgb  # noqa: E402  (the Standard Nodes formula)

# output -> (dimension of the input, reference, absolute tolerance)
CASES = {
    "n2f": (2, lambda p: ref.perlin(p, 1), 2e-6),
    "n2v": (2, lambda p: ref.perlin(p, 3), 2e-6),
    "n3f": (3, lambda p: ref.perlin(p, 1), 2e-6),
    "n3c": (3, lambda p: ref.perlin(p, 3), 2e-6),
    "c2": (2, lambda p: ref.cellnoise(p, 1), 0.0),
    "c3": (3, lambda p: ref.cellnoise(p, 1), 0.0),
    "c3v": (3, lambda p: ref.cellnoise(p, 3), 0.0),
    "w2": (2, lambda p: [ref.worley(p, 1.0)], 4e-6),
    "w3": (3, lambda p: [ref.worley(p, 0.7)], 4e-6),
    "w2v": (2, lambda p: ref.worley(p, 1.0, 0, 2), 4e-6),
    "w2m": (2, lambda p: ref.worley(p, 0.8, 2, 3), 4e-6),
    "w3v": (3, lambda p: ref.worley(p, 0.7, 1, 3), 4e-6),
    "f3": (3, lambda p: ref.fractal(p, 1, 3, 2.0, 0.5), 8e-6),
    "f3v": (3, lambda p: ref.fractal(p, 3, 2, 1.9, 0.6), 8e-6),
    "f2": (2, lambda p: ref.fractal(p, 1, 3, 2.0, 0.5), 8e-6),
    # graph R: randomfloat and randomcolor of (in, seed), from cell noise (the spec's
    # "stable random value"); inputs (in, seed)
    "R.rf": (2, lambda p: [-2.0 + 5.0 * ref.cellnoise(p, 1)[0]], 4e-6),
    "R.rc": (2, lambda p: hsv2rgb([ref.cellnoise([p[0], p[1] + k])[0] * (0.5 if k == 1 else 1.0)
                                   + (0.5 if k == 1 else 0.0) for k in range(3)]), 2e-5),
}



def main():
    path, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    r = random.Random(seed)
    total = bad = 0
    for name, (dim, fn, tol) in CASES.items():
        pts = []
        for i in range(count):
            scale = r.choice([1.0, 4.0, 40.0, 1000.0])
            pts.append([float(ref.f32(r.uniform(-scale, scale))) for _ in range(dim)])
        pts += [[0.0] * dim, [1.0] * dim, [-1.0] * dim, [0.5] * dim, [-0.5] * dim]
        if name.startswith("R."):  # (in, seed): the seed an integer
            pts = [[p[0], float(int(p[1]))] for p in pts]
        csv = "\n".join(",".join(repr(v) for v in p) for p in pts) + "\n"
        prog = name if "." in name else "N." + name
        out = subprocess.run(["fmag-run", path, "--program", prog, "--in-file", "-"],
                             input=csv, capture_output=True, text=True)
        if out.returncode != 0:
            print("FAIL %s: fmag-run: %s" % (name, out.stderr.strip()))
            bad += 1
            continue
        lines = out.stdout.strip().split("\n")
        for p, line in zip(pts, lines):
            got = [ref.f32(float(x)) for x in line.split()]
            want = [ref.f32(x) for x in fn(p)]
            total += 1
            if len(got) != len(want) or any(abs(g - w) > tol for g, w in zip(got, want)):
                bad += 1
                if bad < 10:
                    print("MISMATCH %s at %s: got %s want %s" % (name, p, got, want))
    print("noise: %d points compared, %d mismatches" % (total, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
