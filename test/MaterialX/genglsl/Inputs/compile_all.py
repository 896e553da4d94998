#!/usr/bin/env python3
"""Compiles each of MaterialX's node functions in stdlib/ (the 67 that need no texture or
closure, unchanged) through FMAG's GLSL front, as MaterialX's generator would emit it:
the prelude, then the node file. The entry is the function named as the file.

    compile_all.py --genglsl DIR --tmp DIR [--slc slc]

Prints `OK NAME` or `REFUSED NAME: first diagnostic` per node, then `N of M compile`.
"""
import argparse
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--genglsl", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--slc", default="slc")
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    stdlib = os.path.join(a.genglsl, "stdlib")
    names = sorted(f[:-5] for f in os.listdir(stdlib) if f.endswith(".glsl"))
    ok = 0
    for name in names:
        wrapper = os.path.join(a.tmp, name + ".glsl")
        with open(wrapper, "w") as f:
            f.write('#include "prelude.glsl"\n#include "stdlib/%s.glsl"\n' % name)
        r = subprocess.run([a.slc, wrapper, "-I", a.genglsl, "-entry", name,
                            "-o", os.path.join(a.tmp, name + ".fmag")],
                           capture_output=True, text=True)
        if r.returncode == 0:
            ok += 1
            print("OK %s" % name)
        else:
            first = (r.stderr or r.stdout).strip().split("\n")[0]
            print("REFUSED %s: %s" % (name, first.replace(a.genglsl + os.sep, "")))
    print("%d of %d compile" % (ok, len(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
