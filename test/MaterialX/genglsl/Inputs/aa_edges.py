#!/usr/bin/env python3
"""MaterialX's derivative-based node functions (stdlib/, unchanged) against analytic values.

The eight splitlr/splittb nodes antialias through mx_aastep: with the texture coordinate
changing by (a, b) per pixel step along x and y, the edge's half-width is
w = |(a, b)| / sqrt(2), and the blend is smoothstep(center - w, center + w, coord): 0.5
on the edge, the pure value beyond w, smoothstep's cubic in between. heighttonormal of a
height plane h = p*u + q*v, with u and v the texture coordinates stepping by d per pixel,
is the plane's normal (-p*k, -q*k, 1)/|...| with k = scale/16 (MaterialX's Sobel parity
factor), encoded as n*0.5 + 0.5; no slope at all gives (0, 0, 1). The expected values
are computed here in double precision from those formulas; the program is FMAG's
compile of MaterialX's file, fed the derivative inputs of docs/Derivatives.md.

    aa_edges.py --genglsl DIR --tmp DIR [--slc slc] [--run fmag-run]

Prints `NAME: N points, max error E, M mismatches` per node (tolerance 4e-6 on the
ramp and the normal, exact beyond the edge).
"""
import argparse
import math
import os
import struct
import subprocess
import sys

TOL = 4e-6


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def smoothstep(e0, e1, x):
    t = min(max((x - e0) / (e1 - e0), 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


def split_cases(name):
    """(inputs, expected outputs, exact?) for a split node of any width."""
    size = {"float": 1, "vector2": 2, "vector3": 3, "vector4": 4}[name.split("_")[2]]
    lr = "splitlr" in name
    first = [f32(0.25 + 0.125 * i) for i in range(size)]   # valuel / valuet
    second = [f32(2.0 - 0.5 * i) for i in range(size)]     # valuer / valueb
    center = f32(0.5)
    cases = []
    # Pixel footprints of the split coordinate: along x only, along y only, both.
    for a, b in ((0.02, 0.0), (0.0, 0.01), (0.006, 0.008)):
        a, b = f32(a), f32(b)
        w = math.hypot(a, b) / math.sqrt(2.0)
        for off, exact in ((-3.0, True), (-1.5, True), (-0.5, False), (0.0, False),
                           (0.25, False), (0.75, False), (1.5, True), (3.0, True)):
            c = f32(center + off * w)
            other = f32(0.3)
            tex = (c, other) if lr else (other, c)
            dtex_x = (a, 0.0) if lr else (0.0, a)
            dtex_y = (b, 0.0) if lr else (0.0, b)
            s = smoothstep(center - w, center + w, c)
            # splitlr: mix(valuel, valuer, s); splittb: mix(valueb, valuet, s).
            lo, hi = (first, second) if lr else (second, first)
            want = [x * (1.0 - s) + y * s for x, y in zip(lo, hi)]
            ins = first + second + [center] + list(tex)
            zeros = [0.0] * (2 * size + 1)
            cases.append((ins + zeros + list(dtex_x) + zeros + list(dtex_y), want, exact))
    return cases


def normal_cases():
    cases = []
    for p, q, scale, d in ((0.0, 0.0, 1.0, 0.01), (8.0, 0.0, 1.0, 0.01), (0.0, -4.0, 2.0, 0.02),
                           (3.0, 5.0, 1.5, 0.005), (-16.0, 16.0, 0.5, 0.01), (2.0, 0.0, 1.0, -0.01)):
        p, q, scale, d = f32(p), f32(q), f32(scale), f32(d)
        u, v = f32(0.4), f32(0.7)
        h = f32(p * u + q * v)
        k = scale / 16.0
        # dh = p du + q dv; u steps along x, v along y (a mirrored u when d < 0: the node
        # flips n to face +z, and the plane's normal then flips the x slope's sign twice).
        dhx, dhy = p * d, q * abs(d)
        if p == 0.0 and q == 0.0:
            n = (0.0, 0.0, 1.0)
        else:
            tx, ty = (d, 0.0, dhx * k), (0.0, abs(d), dhy * k)
            n = (tx[1] * ty[2] - tx[2] * ty[1], tx[2] * ty[0] - tx[0] * ty[2],
                 tx[0] * ty[1] - tx[1] * ty[0])
            if n[2] < 0:
                n = tuple(-c for c in n)
        ln = math.sqrt(sum(c * c for c in n))
        want = [c / ln * 0.5 + 0.5 for c in n]
        ins = [h, scale, u, v, f32(dhx), 0.0, d, 0.0, f32(dhy), 0.0, 0.0, f32(abs(d))]
        cases.append((ins, want, False))
    return cases


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), (r.stderr or r.stdout).strip()))
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--genglsl", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--slc", default="slc")
    ap.add_argument("--run", default="fmag-run")
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    names = ["mx_split%s_%s" % (d, t) for d in ("lr", "tb")
             for t in ("float", "vector2", "vector3", "vector4")]
    failed = False
    for name in names + ["mx_heighttonormal_vector3"]:
        cases = normal_cases() if "height" in name else split_cases(name)
        src = os.path.join(a.tmp, name + ".glsl")
        with open(src, "w") as f:
            f.write('#include "prelude.glsl"\n#include "stdlib/%s.glsl"\n' % name)
        prog = os.path.join(a.tmp, name + ".fmag")
        run([a.slc, src, "-I", a.genglsl, "-entry", name, "-o", prog])
        cmd = [a.run, prog]
        for ins, _, _ in cases:
            cmd += ["--in", ",".join("%.9g" % x for x in ins)]
        lines = run(cmd).strip().split("\n")
        worst, bad = 0.0, []
        for (ins, want, exact), line in zip(cases, lines):
            got = [float(x) for x in line.split()]
            err = max(abs(g - w) for g, w in zip(got, want)) if len(got) == len(want) else math.inf
            worst = max(worst, err)
            if len(got) != len(want) or (exact and got != [f32(w) for w in want]) or err > TOL:
                bad.append((ins, want, got))
        print("%s: %d points, max error %.2g, %d mismatches" % (name, len(cases), worst, len(bad)))
        for ins, want, got in bad[:4]:
            print("  inputs %s: want %s, got %s" % (" ".join("%.9g" % x for x in ins),
                                                   " ".join("%.9g" % x for x in want),
                                                   " ".join("%.9g" % x for x in got)))
        failed |= bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
