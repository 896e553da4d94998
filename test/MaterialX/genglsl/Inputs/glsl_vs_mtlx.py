#!/usr/bin/env python3
"""FMAG's MaterialX reader (lib/MaterialX, the node formulas written from the
specification) against MaterialX's own GLSL node functions (stdlib/, unchanged), both
compiled by FMAG and run on the reference VM on the same inputs.

    glsl_vs_mtlx.py --genglsl DIR --mtlx FILE --tmp DIR [--count N] CASE...

A CASE is GRAPH=GLSLFILE:ENTRY:BOUND[:LO,HI]: the program GRAPH/out of the .mtlx (its
interface inputs in the GLSL parameters' order), the GLSL entry, the bound ('exact' or
ulps of the larger result, a result below 1 counted at 1.0's ulp, as in vk_xcheck.py)
and the range of the plain float inputs (default -50,50; the named ones are drawn as
vk_xcheck.py draws them). Or GRAPH=mtlx:REFGRAPH:BOUND:LO,HI[:K=a|b|...;...]: the
reference is another graph of the same .mtlx (MaterialX's node graph implementations,
wired from standard nodes), every input drawn in [LO, HI] but input K, drawn from the
listed values. Prints `GRAPH: N points, max diff D (bound B), M over
bound`, and the first disagreements with their inputs.
"""
import argparse
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vk_xcheck as vx  # noqa: E402


def outputs(text, count):
    lines = text.split("\n")
    return [[vx.f32(float(w)) for w in lines[i].split()] for i in range(count)]


def compare(x, y, bound):
    if bound == "exact":
        bad = vx.bits(x) != vx.bits(y) and not (x != x and y != y)
        return (abs(x - y) / vx.ulp(max(abs(x), abs(y), 1.0)) if bad else 0.0), bad
    d = abs(x - y) / vx.ulp(max(abs(x), abs(y), 1.0))
    return d, not d <= bound


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--genglsl", required=True)
    ap.add_argument("--mtlx", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--slc", default="slc")
    ap.add_argument("--run", default="fmag-run")
    ap.add_argument("--fmag-as", dest="fmag_as", default="fmag-as")
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("cases", nargs="+")
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    failed = False
    for c in a.cases:
        graph, spec = c.split("=", 1)
        parts = spec.split(":")
        path, entry, bound = parts[0], parts[1], parts[2]
        bound = bound if bound == "exact" else float(bound)
        lo, hi = (float(v) for v in parts[3].split(",")) if len(parts) > 3 else (-50.0, 50.0)
        if path == "mtlx":
            failed |= not against_graph(a, graph, entry, bound, lo, hi,
                                        parts[4] if len(parts) > 4 else "")
            continue
        glsl = os.path.join(a.genglsl, path)
        if os.path.dirname(path) == "stdlib":
            glsl = os.path.join(a.tmp, graph + ".glsl")
            with open(glsl, "w") as f:
                f.write('#include "prelude.glsl"\n#include "%s"\n' % path)
        _, params = vx.signature(vx.expand_includes(glsl, set(), a.genglsl), entry)
        rng = random.Random("%s/%d" % (graph, a.seed))
        elems = []
        for _ in range(a.count):
            vals = []
            for q, t, pn in params:
                if q == "out":
                    continue
                v = vx.draw(rng, t, pn)
                if t not in ("int", "uint") and pn not in vx.NAMED:
                    v = [vx.f32(rng.uniform(lo, hi)) for _ in v]
                vals += v
            elems.append(vals)
        ins = os.path.join(a.tmp, graph + ".csv")
        with open(ins, "w") as f:
            f.write("".join(",".join("%.9g" % x for x in e) + "\n" for e in elems))
        try:
            gprog = os.path.join(a.tmp, graph + ".glsl.fmag")
            vx.run([a.slc, glsl, "-I", a.genglsl, "-entry", entry, "-o", gprog])
            mprog = os.path.join(a.tmp, graph + ".mtlx.fmag")
            vx.run([a.slc, a.mtlx, "-entry", graph + "/out", "-o", mprog])
            want = outputs(vx.run([a.run, gprog, "--in-file", ins]), len(elems))
            got = outputs(vx.run([a.run, mprog, "--in-file", ins]), len(elems))
        except RuntimeError as e:
            print("%s: error: %s" % (graph, e))
            failed = True
            continue
        failed |= not report(graph, elems, got, want, bound, "MaterialX GLSL")
    return 1 if failed else 0


def against_graph(a, graph, ref, bound, lo, hi, choices):
    """GRAPH against REF, both graphs of the .mtlx, on the same random inputs."""
    progs = []
    for g in (graph, ref):
        progs.append(os.path.join(a.tmp, g + ".fmag"))
        try:
            vx.run([a.slc, a.mtlx, "-entry", g + "/out", "-o", progs[-1]])
        except RuntimeError as e:
            print("%s: error: %s" % (graph, e))
            return False
    info = vx.run([a.fmag_as, "-i", progs[0]])
    nin = int(info.split("inputs=")[1].split()[0])
    pick = {}
    for c in filter(None, choices.split(";")):
        k, vals = c.split("=")
        pick[int(k)] = [float(v) for v in vals.split("|")]
    rng = random.Random("%s/%d" % (graph, a.seed))
    elems = [[rng.choice(pick[k]) if k in pick else vx.f32(rng.uniform(lo, hi))
              for k in range(nin)] for _ in range(a.count)]
    ins = os.path.join(a.tmp, graph + ".csv")
    with open(ins, "w") as f:
        f.write("".join(",".join("%.9g" % x for x in e) + "\n" for e in elems))
    got = outputs(vx.run([a.run, progs[0], "--in-file", ins]), len(elems))
    want = outputs(vx.run([a.run, progs[1], "--in-file", ins]), len(elems))
    return report(graph, elems, got, want, bound, "MaterialX's graph " + ref)


def report(graph, elems, got, want, bound, what):
    """Prints the case's line and its first disagreements; True when none."""
    worst, over = 0.0, []
    for e, g, w in zip(elems, got, want):
        bad = len(g) != len(w)
        for x, y in zip(g, w):
            d, b = compare(x, y, bound)
            worst = max(worst, d)
            bad |= b
        if bad:
            over.append((e, g, w))
    print("%s: %d points, max diff %.3g (bound %s), %d over bound"
          % (graph, len(elems), worst, bound, len(over)))
    for e, g, w in over[:3]:
        print("  inputs %s: lib/MaterialX %s, %s %s"
              % (" ".join("%.9g" % x for x in e), " ".join("%.9g" % x for x in g), what,
                 " ".join("%.9g" % x for x in w)))
    return not over


if __name__ == "__main__":
    sys.exit(main())
