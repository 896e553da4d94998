#!/usr/bin/env python3
"""Compile every program of the tree with two builds and compare what they produce.

Issue 31 requires that restructuring the GLSL/HLSL front changes nothing a program
compiles to. This compiles, with the old build and the new one: every examples/ and
bench/ program (.sl with slc, .fir with fmag-opt -O2 -lower, .glsl/.hlsl with slc), every
GLSL, HLSL and SPIR-V file under test/SPIRV (the corpus and the files the lit tests
write with split-file), each GLSL/HLSL file both as main() and under -entry NAME for
every function name it defines, at -O2 and -O0. A case is the same when both exit
codes match and, on success, the .fmag bytes are identical; diagnostics that differ
are listed separately (the exit code still has to match).

Usage: utils/same-bytes.py OLD_BIN_DIR NEW_BIN_DIR [--tmp DIR] [-v]
Exit status 1 when any case differs in bytes or exit code.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHADER = (".glsl", ".hlsl", ".frag", ".vert", ".comp")
FUNC = re.compile(r"^[ \t]*(?:static[ \t]+|inline[ \t]+|const[ \t]+|precise[ \t]+)*"
                  r"[A-Za-z_][A-Za-z_0-9]*(?:<[^>]*>)?[ \t]+([A-Za-z_][A-Za-z_0-9]*)[ \t]*\(",
                  re.M)
KEYWORDS = {"if", "for", "while", "switch", "return", "else", "do"}


def sources(tmp):
    """(path, kind) of every program to compile."""
    out = []
    for pat in ("examples/*.sl", "bench/**/*.sl"):
        out += [(p, "sl") for p in sorted(glob.glob(os.path.join(ROOT, pat), recursive=True))]
    for pat in ("bench/**/*.fir", "examples/**/*.fir"):
        out += [(p, "fir") for p in sorted(glob.glob(os.path.join(ROOT, pat), recursive=True))]
    for pat in ("bench/**/*", "test/SPIRV/**/*"):
        for p in sorted(glob.glob(os.path.join(ROOT, pat), recursive=True)):
            if p.endswith(SHADER):
                out.append((p, "shader"))
            elif p.endswith(".spvasm"):
                out.append((p, "spvasm"))
    split = shutil.which("split-file") or "/usr/lib/llvm-14/bin/split-file"
    for t in sorted(glob.glob(os.path.join(ROOT, "test/SPIRV/*.test"))):
        d = os.path.join(tmp, "split", os.path.basename(t))
        if subprocess.run([split, t, d], capture_output=True).returncode:
            continue
        for p in sorted(glob.glob(d + "/**/*", recursive=True)):
            if p.endswith(SHADER):
                out.append((p, "shader"))
            elif p.endswith(".spvasm"):
                out.append((p, "spvasm"))
    return out


def cases(path, kind, tmp):
    """Argument lists (without the tool and -o) for one source."""
    if kind == "sl":
        return [("slc", [path, f]) for f in ("-O2", "-O0")]
    if kind == "fir":
        return [("fmag-opt", [path, "-O2", "-lower"])]
    if kind == "spvasm":
        spv = os.path.join(tmp, "spv", path.replace("/", "_") + ".spv")
        os.makedirs(os.path.dirname(spv), exist_ok=True)
        if subprocess.run(["spirv-as", path, "-o", spv], capture_output=True).returncode:
            return []
        return [("slc", [spv, "-x", "spirv", f]) for f in ("-O2", "-O0")]
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return []
    names = []
    for m in FUNC.finditer(text):
        if m.group(1) not in KEYWORDS and m.group(1) not in names:
            names.append(m.group(1))
    out = []
    for f in ("-O2", "-O0"):
        out.append(("slc", [path, f]))
        out += [("slc", [path, "-entry", n, f]) for n in names]
    return out


def run(bindir, tool, args, outfile):
    if os.path.exists(outfile):
        os.remove(outfile)
    p = subprocess.run([os.path.join(bindir, tool)] + args + ["-o", outfile],
                       capture_output=True, cwd=ROOT, timeout=300)
    data = open(outfile, "rb").read() if p.returncode == 0 and os.path.exists(outfile) else None
    return p.returncode, data, p.stderr.decode("utf-8", "replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--tmp", default="/tmp/fmag-same-bytes")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    shutil.rmtree(a.tmp, ignore_errors=True)
    os.makedirs(a.tmp)
    n = same = compiled = diag_changed = 0
    bad = []
    for path, kind in sources(a.tmp):
        for tool, args in cases(path, kind, a.tmp):
            n += 1
            ro = run(a.old, tool, args, os.path.join(a.tmp, "old.out"))
            rn = run(a.new, tool, args, os.path.join(a.tmp, "new.out"))
            label = " ".join([tool] + [os.path.relpath(x, ROOT) if x.startswith("/") else x
                                       for x in args])
            if ro[0] != rn[0] or ro[1] != rn[1]:
                bad.append(label)
                print("DIFFERS:", label, f"(exit {ro[0]} -> {rn[0]})")
                if a.v:
                    print("  old:", ro[2].strip()[:400])
                    print("  new:", rn[2].strip()[:400])
                continue
            same += 1
            compiled += ro[0] == 0
            if ro[2] != rn[2]:
                diag_changed += 1
                if a.v:
                    print("DIAG:", label)
                    print("  old:", ro[2].strip()[:400])
                    print("  new:", rn[2].strip()[:400])
    print(f"{n} cases: {same} the same ({compiled} compiled to identical bytes, "
          f"{same - compiled} failed in both), {len(bad)} differ; "
          f"{diag_changed} with changed diagnostic text")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
