#!/usr/bin/env python3
"""Differential test of slc: random SL programs (expressions, vectors, if/else
chains, early returns, calls with out parameters, builtins) are compiled with -O2
and lowered, run on the reference VM, and compared with the IR interpreter running
the unoptimized IR from -emit-ir. Under the strict contract (SPEC §2) the outputs
must be identical (+0 and -0 equal) whenever no infinity or NaN appears.
With `loops`, the programs also have counted `for` loops (every comparison and
step form, nested and triangular, with ifs and returns inside), which -O2 unrolls
and the interpreter runs as loops.

usage: random_sl_diff.py WORKDIR COUNT SEED [loops]"""
import random
import subprocess
import sys

SAFE1 = ["abs", "floor", "ceil", "round", "trunc", "fract", "saturate", "sin", "cos", "atan",
         "sign"]


def expr(r, depth, scalars):
    if depth <= 0 or r.random() < 0.25:
        if r.random() < 0.3:
            return repr(round(r.uniform(-3, 3), 3))
        return r.choice(scalars)
    k = r.randrange(11)
    a = expr(r, depth - 1, scalars)
    b = expr(r, depth - 1, scalars)
    if k == 0:
        return "(%s %s %s)" % (a, r.choice("+-*"), b)
    if k == 1:
        return "(%s / (abs(%s) + 0.5))" % (a, b)
    if k == 2:
        return "%s(%s)" % (r.choice(SAFE1), a)
    if k == 3:
        return "%s(%s, %s)" % (r.choice(["min", "max", "step", "mod"]), a, b)
    if k == 4:
        return "(%s %s %s)" % (a, r.choice(["<", ">", "<=", ">=", "==", "!="]), b)
    if k == 5:
        return "(%s %s %s)" % (a, r.choice(["&&", "||"]), b)
    if k == 6:
        return "(%s ? %s : %s)" % (a, b, expr(r, depth - 1, scalars))
    if k == 7:
        return "clamp(%s, -1.0, 1.0)" % a
    if k == 8:
        return "mix(%s, %s, 0.25)" % (a, b)
    if k == 9:
        return "sqrt(abs(%s))" % a
    return "exp(clamp(%s, -5.0, 5.0))" % a


def for_header(r, var, outer=None):
    """A counted loop header over f32 `var` with 0 to 5 trips (exact literals)."""
    start = r.choice([0.0, 1.0, -2.0, 0.5])
    step = r.choice([1.0, 1.0, 0.5, 2.0, 0.25])
    trips = r.randrange(6)
    if r.random() < 0.5:  # counting up
        if outer and r.random() < 0.4:
            return "for (f32 %s = %r; %s < %s; %s++)" % (var, start, var, outer, var)
        if trips and r.random() < 0.5:
            cond = "%s <= %r" % (var, start + step * (trips - 1))
        else:
            cond = "%s < %r" % (var, start + step * trips - step / 2)
        if step == 1.0:
            inc = r.choice(["%s++", "++%s", "%s += 1.0", "%s = %s + 1.0"]).replace("%s", var)
        else:
            inc = "%s += %r" % (var, step)
    else:
        if trips and r.random() < 0.5:
            cond = "%s >= %r" % (var, start - step * (trips - 1))
        else:
            cond = "%s > %r" % (var, start - step * trips + step / 2)
        if step == 1.0:
            inc = r.choice(["%s--", "--%s", "%s -= 1.0"]).replace("%s", var)
        else:
            inc = "%s -= %r" % (var, step)
    return "for (f32 %s = %r; %s; %s)" % (var, start, cond, inc)


def loop_block(r, sc2, indent, depth, outer=None):
    var = "i%d" % depth
    sc3 = sc2 + [var]
    lines = [indent + for_header(r, var, outer) + " {"]
    lines.append(indent + "    t = %s;" % expr(r, 2, sc3))
    if r.random() < 0.5:
        lines.append(indent + "    if (%s) w.%s = %s;" % (expr(r, 1, sc3), r.choice("xyz"),
                                                          expr(r, 2, sc3)))
    if r.random() < 0.15:
        lines.append(indent + "    if (%s) return f32x2(t, %s);" % (expr(r, 1, sc3), var))
    if depth == 0 and r.random() < 0.4:
        lines += loop_block(r, sc3, indent + "    ", depth + 1, var)
    lines.append(indent + "}")
    return lines


def program(r, loops=False):
    sc = ["a", "b", "c", "v.x", "v.y", "v.z"]
    lines = ["f32 helper(f32 p, f32 q, out f32 o) {",
             "    o = %s;" % expr(r, 2, ["p", "q"]),
             "    if (%s) return %s;" % (expr(r, 2, ["p", "q"]), expr(r, 2, ["p", "q"])),
             "    return %s;" % expr(r, 2, ["p", "q"]),
             "}",
             "export f32x2 f(f32 a, f32 b, f32 c, f32x3 v, out f32 side) {",
             "    f32 t = %s;" % expr(r, 3, sc),
             "    f32x3 w = v * t + %s;" % expr(r, 2, sc),
             "    side = 0.0;"]
    sc2 = sc + ["t", "w.x", "w.y", "w.z"]
    if loops:
        for _ in range(r.randrange(1, 3)):
            lines += loop_block(r, sc2, "    ", 0)
    for _ in range(r.randrange(1, 4)):
        lines.append("    if (%s) {" % expr(r, 2, sc2))
        lines.append("        t = %s;" % expr(r, 3, sc2))
        lines.append("        w.%s = %s;" % (r.choice(["x", "y", "z"]), expr(r, 2, sc2)))
        if r.random() < 0.3:
            lines.append("        return f32x2(t, %s);" % expr(r, 2, sc2))
        lines.append("    } else if (%s) {" % expr(r, 1, sc2))
        lines.append("        t += helper(t, %s, side);" % expr(r, 2, sc2))
        lines.append("    } else {")
        lines.append("        w.xy = w.yx;")
        lines.append("    }")
    lines.append("    return f32x2(t + w.x, dot(w, v) * %s);" % expr(r, 2, sc2))
    lines.append("}")
    return "\n".join(lines) + "\n"


def norm(out):
    vals = out.split()
    if any(v in ("nan", "-nan", "inf", "-inf") for v in vals):
        return None
    return ["0" if v == "-0" else v for v in vals]


def run_both(src, args):
    """Compiles src with -O2 for the VM and with -emit-ir for the IR interpreter, runs
    both on the fmag-run arguments args; returns their output lines."""
    subprocess.run(["slc", src, "-o", src + ".fmag"], check=True)
    subprocess.run(["slc", "-emit-ir", src, "-o", src + ".fir"], check=True)
    vm = subprocess.run(["fmag-run", src + ".fmag"] + args, check=True,
                        capture_output=True, text=True).stdout.splitlines()
    ir = subprocess.run(["fmag-run", src + ".fir"] + args, check=True,
                        capture_output=True, text=True).stdout.splitlines()
    return vm, ir


def main():
    work, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    loops = len(sys.argv) > 4 and sys.argv[4] == "loops"
    r = random.Random(seed)
    compared = 0
    for i in range(count):
        src = "%s/p%d.sl" % (work, i)
        with open(src, "w") as f:
            f.write(program(r, loops))
        args = []
        for _ in range(8):
            args += ["--in", ",".join("%.4g" % r.uniform(-4, 4) for _ in range(6))]
        vm, ir = run_both(src, args)
        for k, (x, y) in enumerate(zip(vm, ir)):
            nx, ny = norm(x), norm(y)
            if nx is None or ny is None:
                continue
            compared += 1
            if nx != ny:
                print("MISMATCH %s input %d: VM %s, IR interpreter %s" % (src, k, x, y))
                return 1
    print("compared %d results of %d programs" % (compared, count))
    return 0


if __name__ == "__main__":
    sys.exit(main())
