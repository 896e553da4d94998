#!/usr/bin/env python3
"""The cost of derivatives on the example programs (docs/Derivatives.md): for each
export of examples/*.sl without `out` parameters, compiles it as it is, and as
`T name_d(params, out T dx, out T dy)` returning its value and dfdx/dfdy of it, with
every input carrying derivatives and with only the first parameter's (-derivs=).
Prints a Markdown table of instruction counts (slc -O2 -S).
    utils/deriv-cost.py [--slc build/bin/slc] [FILE.sl ...]"""
import argparse, glob, os, re, subprocess, sys, tempfile

EXPORT = re.compile(r"export\s+(f32(?:x[234])?)\s+(\w+)\s*\(([^)]*)\)")

def count(slc, path, entry, extra=()):
    r = subprocess.run([slc, "-S", path, "-entry", entry, "-o", "-", *extra],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return sum(1 for l in r.stdout.splitlines() if l.strip().startswith("%r"))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--slc", default="build/bin/slc")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = a.files or sorted(glob.glob(os.path.join(root, "examples", "*.sl")))
    print("| program | inputs | instructions | with dfdx, dfdy of the result (all inputs) | only the first parameter's |")
    print("|---|---:|---:|---:|---:|")
    tot = [0, 0, 0]
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            src = open(f).read()
            for m in EXPORT.finditer(src):
                ty, name, params = m.groups()
                if re.search(r"\bout\b", params):
                    continue
                plist = [p.split() for p in params.split(",") if p.strip()]
                nin = sum({"f32": 1, "f32x2": 2, "f32x3": 3, "f32x4": 4}[p[0]] for p in plist)
                args = ", ".join(p[1] for p in plist)
                wrapped = src.replace("export ", "") + (
                    "\nexport %s %s_d(%s, out %s ddx, out %s ddy) {\n"
                    "    %s r = %s(%s);\n    ddx = dfdx(r);\n    ddy = dfdy(r);\n    return r;\n}\n"
                    % (ty, name, params, ty, ty, ty, name, args))
                w = os.path.join(tmp, "w.sl")
                open(w, "w").write(wrapped)
                n0 = count(a.slc, f, name)
                n1 = count(a.slc, w, name + "_d")
                n2 = count(a.slc, w, name + "_d", ["-derivs=" + plist[0][1]]) if plist else None
                if None in (n0, n1, n2):
                    continue
                tot = [tot[0] + n0, tot[1] + n1, tot[2] + n2]
                print("| %s `%s` | %d | %d | %d (%.2fx) | %d (%.2fx) |" %
                      (os.path.basename(f), name, nin, n0, n1, n1 / max(n0, 1), n2, n2 / max(n0, 1)))
    print("| total | | %d | %d (%.2fx) | %d (%.2fx) |" %
          (tot[0], tot[1], tot[1] / max(tot[0], 1), tot[2], tot[2] / max(tot[0], 1)))

if __name__ == "__main__":
    sys.exit(main())
