#!/usr/bin/env python3
"""MaterialX's own GLSL node functions: FMAG against the same GLSL run natively on Vulkan.

Each case is GLSL text that includes the generator's prelude (prelude.glsl) and a node
file of MaterialX's standard library (stdlib/, unchanged); an entry function of the case
is compiled by FMAG (`slc -entry NAME`, run by fmag-run) and, with a compute-shader main
appended, by glslc for the Vulkan driver (fmag-vk-compute). Both get the same float32
inputs; the outputs are compared bit for bit (`exact`) or within B ulps of the larger
result, a result below 1 counted at 1.0's ulp (2^-23): the noises' intermediate values
are of order 1, so near 0 their rounding differences are absolute, not relative
(docs/MaterialX.md "Checked against MaterialX's GLSL" says why each bound is what it is).

    vk_xcheck.py --genglsl DIR --tmp DIR [--count N] [--seed S] [--engine ref|batch] CASE...

Prints one line per case: `NAME: N points, max diff D (bound B), 0 over bound`. Exit 77
when there is no Vulkan driver, 1 on a mismatch or a failed step.
"""
import argparse
import math
import os
import random
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SIZE = {"float": 1, "int": 1, "uint": 1, "bool": 1, "vec2": 2, "vec3": 3, "vec4": 4,
        "mat3": 9, "mat4": 16}


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def ulp(v):
    """The spacing of float32 at v >= 1."""
    return 2.0 ** (math.frexp(v)[1] - 24)


def signature(text, name):
    """The parameters (qualifier, type, name) and result type of function NAME in text."""
    m = re.search(r"(\w+)\s+%s\s*\(([^)]*)\)\s*\{" % re.escape(name), text)
    if not m:
        raise RuntimeError("no definition of %s" % name)
    params = []
    for p in m.group(2).split(","):
        words = p.split()
        if not words:
            continue
        qual = words[0] if words[0] in ("in", "out", "inout") else "in"
        words = [w for w in words if w not in ("in", "out", "inout", "const")]
        params.append((qual, words[0], words[1]))
    return m.group(1), params


def expand_includes(path, seen, incdir):
    """The text of path with its quoted #includes inlined (only to read signatures)."""
    out = []
    for line in open(path):
        m = re.match(r'\s*#include\s+"([^"]+)"', line)
        if m:
            inc = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
            if not os.path.exists(inc):
                inc = os.path.normpath(os.path.join(incdir, m.group(1)))
            if inc not in seen:
                seen.add(inc)
                out.append(expand_includes(inc, seen, incdir))
        else:
            out.append(line)
    return "".join(out)


# Input ranges by parameter name: texture coordinates and positions over many lattice
# cells (negative ones included: mx_floor and the hash of negative integers), the
# integer style of Worley noise, jitter in [0, 1].
NAMED = ("jitter", "lacunarity", "diminish", "amplitude", "pivot", "low", "high", "amount")


def draw(rng, ptype, pname):
    if ptype in ("int", "uint"):
        if pname == "style":
            return [rng.randint(0, 1)]
        if pname == "octaves":
            return [rng.randint(1, 8)]
        if pname.startswith("k"):
            return [rng.randint(-40000, 40000)]
        return [rng.randint(-1000, 1000)]
    if pname == "jitter":
        return [f32(rng.uniform(0.0, 1.0))]
    if pname in ("lacunarity",):
        return [f32(rng.uniform(1.5, 2.5))]
    if pname in ("diminish",):
        return [f32(rng.uniform(0.3, 0.7))]
    # smoothstep's edges in their usual order (low < high: glsl-vs-mtlx.test; the other
    # orders are mtlx-disagree.test's).
    if pname == "amount":
        return [f32(rng.uniform(-360.0, 360.0))]
    if pname == "low":
        return [f32(rng.uniform(-1.0, 0.4))]
    if pname == "high":
        return [f32(rng.uniform(0.6, 2.0))]
    if pname in ("amplitude", "pivot"):
        return [f32(rng.uniform(-2.0, 2.0)) for _ in range(SIZE[ptype])]
    return [f32(rng.uniform(-50.0, 50.0)) for _ in range(SIZE[ptype])]


def compute_main(entry, ret, params):
    """A compute-shader main: element i's record is its inputs then its outputs."""
    nin = sum(SIZE[t] for q, t, _ in params if q != "out")
    nout = (SIZE[ret] if ret != "void" else 0) + sum(SIZE[t] for q, t, _ in params if q != "in")
    lines = ["void main() {", "    uint i = gl_GlobalInvocationID.x;", "    if (i >= n) return;",
             "    uint b = i * %du;" % (nin + nout)]
    k = 0
    args = []
    for j, (q, t, _) in enumerate(params):
        lines.append("    %s a%d;" % (t, j))
        if q != "out":
            if SIZE[t] == 1:
                lines.append("    a%d = %s(v[b + %du]);" % (j, t, k))
            else:
                lines.append("    a%d = %s(%s);" % (j, t, ", ".join("v[b + %du]" % (k + c) for c in range(SIZE[t]))))
            k += SIZE[t]
        args.append("a%d" % j)
    call = "%s(%s)" % (entry, ", ".join(args))
    o = nin
    if ret != "void":
        lines.append("    %s r = %s;" % (ret, call))
        lines += store("r", ret, o)
        o += SIZE[ret]
    else:
        lines.append("    %s;" % call)
    for j, (q, t, _) in enumerate(params):
        if q != "in":
            lines += store("a%d" % j, t, o)
            o += SIZE[t]
    lines.append("}")
    return "\n".join(lines) + "\n", nin, nout


def store(var, t, o):
    if SIZE[t] == 1:
        return ["    v[b + %du] = float(%s);" % (o, var)]
    return ["    v[b + %du] = %s[%d];" % (o + c, var, c) for c in range(SIZE[t])]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), (r.stderr or r.stdout).strip()))
    return r.stdout


def check(a, case, bound, glsl_path, entry, tmp):
    if os.path.dirname(os.path.relpath(glsl_path, a.genglsl)) == "stdlib":
        # A node file: compiled as the generator emits it, after the prelude.
        wrapper = os.path.join(tmp, case + ".glsl")
        with open(wrapper, "w") as f:
            f.write('#include "prelude.glsl"\n#include "stdlib/%s"\n' % os.path.basename(glsl_path))
        glsl_path = wrapper
    text = expand_includes(glsl_path, set(), a.genglsl)
    ret, params = signature(text, entry)
    main, nin, nout = compute_main(entry, ret, params)
    rng = random.Random("%s/%d" % (case, a.seed))
    elems = []
    for _ in range(a.count):
        vals = []
        for q, t, pn in params:
            if q != "out":
                vals += draw(rng, t, pn)
        elems.append(vals)
    base = os.path.join(tmp, case)
    # FMAG: the case's GLSL as it is.
    prog = base + ".fmag"
    run([a.slc, glsl_path, "-I", a.genglsl, "-entry", entry, "-o", prog])
    with open(base + ".csv", "w") as f:
        f.write("".join(",".join("%.9g" % x for x in e) + "\n" for e in elems))
    lines = run([a.run, prog, "--backend", a.engine, "--in-file", base + ".csv"]).split("\n")
    got = [[f32(float(w)) for w in lines[i].split()] for i in range(len(elems))]
    # Vulkan: the same text after a compute-shader header, with main appended.
    comp = base + ".comp"
    with open(comp, "w") as f:
        f.write("#version 450\nlayout(local_size_x = 64) in;\n"
                "layout(std430, binding = 0) buffer B { float v[]; };\n"
                "layout(push_constant) uniform P { uint n; };\n"
                "#include \"%s\"\n%s" % (os.path.relpath(glsl_path, tmp), main))
    run(["glslc", "-I", a.genglsl, "-fshader-stage=comp", comp, "-o", base + ".spv"])
    with open(base + ".in.f32", "wb") as f:
        for e in elems:
            f.write(struct.pack("<%df" % (nin + nout), *(e + [0.0] * nout)))
    # Mesa's lavapipe leaks from a module the Vulkan loader unloads before LeakSanitizer
    # looks (unittests/VM/CMakeLists.txt, vm-emit-unittests): leak checks stay off for
    # this one process of the ASan build.
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    r = subprocess.run([a.vk, base + ".spv", base + ".in.f32", base + ".out.f32", str(len(elems))],
                       capture_output=True, text=True, env=env)
    if r.returncode == 77:
        print("no Vulkan driver: %s" % r.stderr.strip())
        sys.exit(77)
    if r.returncode != 0:
        raise RuntimeError("fmag-vk-compute: %s" % r.stderr.strip())
    raw = open(base + ".out.f32", "rb").read()
    rec = nin + nout
    want = [list(struct.unpack_from("<%df" % nout, raw, 4 * (i * rec + nin))) for i in range(len(elems))]
    worst, over = 0.0, []
    for e, g, w in zip(elems, got, want):
        if len(g) != nout:
            over.append((e, g, w))
            continue
        for x, y in zip(g, w):
            if bound == "exact":
                bad = bits(x) != bits(y) and not (x != x and y != y)
                d = 0.0 if not bad else abs(x - y)
            else:
                d = abs(x - y) / ulp(max(abs(x), abs(y), 1.0))
                bad = not d <= bound
            worst = max(worst, d)
            if bad:
                over.append((e, g, w))
                break
    print("%s: %d points, max diff %s (bound %s), %d over bound"
          % (case, len(elems), ("%.3g" % worst) if bound != "exact" else ("0" if not over else "nonzero"),
             bound, len(over)))
    for e, g, w in over[:4]:
        print("  inputs %s: FMAG %s, Vulkan %s" % (" ".join("%.9g" % x for x in e),
                                                  " ".join("%.9g" % x for x in g),
                                                  " ".join("%.9g" % x for x in w)))
    return not over


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--genglsl", required=True, help="test/MaterialX/genglsl")
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--slc", default="slc")
    ap.add_argument("--run", default="fmag-run")
    ap.add_argument("--vk", default="fmag-vk-compute")
    ap.add_argument("--engine", default="ref")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("cases", nargs="+",
                    help="NAME=FILE:ENTRY:BOUND, BOUND 'exact' or a number of ulps")
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    ok = True
    for c in a.cases:
        name, spec = c.split("=", 1)
        path, entry, bound = spec.rsplit(":", 2)
        bound = bound if bound == "exact" else float(bound)
        try:
            ok &= check(a, name, bound, os.path.join(a.genglsl, path), entry, a.tmp)
        except RuntimeError as e:
            print("%s: error: %s" % (name, e))
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
