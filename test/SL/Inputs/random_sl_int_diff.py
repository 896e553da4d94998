#!/usr/bin/env python3
"""Differential test of SL integers: random programs over i32 and u32 (every
operator, compound assignment, conversion, builtin, integer condition, integer
loop counters, calls passing i32) are compiled with -O2 (so -legalize-int) and run
on the reference VM, and compared with the IR interpreter running the unoptimized
IR. Integer results leave the program as 16-bit halves, so equality is bit-exact.

usage: random_sl_int_diff.py WORKDIR COUNT SEED"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import random_sl_diff  # noqa: E402

IOPS = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"]
CMPS = ["<", ">", "<=", ">=", "==", "!="]


def lit(r, t):
    k = r.randrange(4)
    if k == 0:
        v = str(r.randrange(0, 40))
    elif k == 1:
        v = "0x%X" % r.randrange(1 << 32) if t == "u32" else "0x%X" % r.randrange(1 << 31)
    elif k == 2:
        v = str(r.randrange(1 << 31))
    else:
        v = str(r.choice([0, 1, 2, 31, 32, 33, 255, 65535, 16777216]))
    return v + "u" if t == "u32" and r.random() < 0.5 else v


def iexpr(r, depth, t, vs):
    """An expression of type t ('i32' or 'u32') over the variables vs[t]."""
    other = "u32" if t == "i32" else "i32"
    if depth <= 0 or r.random() < 0.2:
        return lit(r, t) if r.random() < 0.3 else r.choice(vs[t])
    k = r.randrange(12)
    a = iexpr(r, depth - 1, t, vs)
    b = iexpr(r, depth - 1, t, vs)
    if k <= 4:
        return "(%s %s %s)" % (a, r.choice(IOPS), b)
    if k == 5:
        return "(%s %s %s)" % (a, r.choice(["<<", ">>"]), iexpr(r, depth - 1, other, vs))
    if k == 6:
        return "%s(%s)" % (r.choice(["-", "~"]), a)
    if k == 7:
        return "%s(%s)" % (t, iexpr(r, depth - 1, other, vs))
    if k == 8:
        f = r.choice(["min", "max"])
        return "%s(%s, %s)" % (f, a, b) if r.random() < 0.7 else "clamp(%s, %s, %s)" % (
            a, b, iexpr(r, 0, t, vs))
    if k == 9:
        c = "(%s %s %s)" % (a, r.choice(CMPS), b)
        if r.random() < 0.3:
            c = iexpr(r, 0, r.choice(["i32", "u32"]), vs)
        return "(%s ? %s : %s)" % (c, iexpr(r, depth - 1, t, vs), b)
    if k == 10:
        return "%s(f32(%s) * %s)" % (t, a, r.choice(["0.5", "1.5", "-0.25", "3.0"]))
    return "abs(%s)" % a


def program(r):
    vs = {"i32": ["a", "b"], "u32": ["c", "d"]}
    lines = ["u32 hmix(u32 p, i32 q, out i32 o) {",
             "    o = %s;" % iexpr(r, 2, "i32", {"i32": ["q"], "u32": ["p"]}),
             "    return %s;" % iexpr(r, 2, "u32", {"i32": ["q"], "u32": ["p"]}),
             "}",
             "export f32x4 f(i32 a, i32 b, u32 c, u32 d, out f32x2 side) {",
             "    i32 t = %s;" % iexpr(r, 3, "i32", vs),
             "    u32 s = %s;" % iexpr(r, 3, "u32", vs)]
    vs2 = {"i32": ["a", "b", "t"], "u32": ["c", "d", "s"]}
    n = r.randrange(1, 5)
    if r.random() < 0.7:
        lines.append("    for (i32 i = 0; i < %d; i++) {" % n)
        vs3 = {"i32": vs2["i32"] + ["i"], "u32": vs2["u32"]}
        lines.append("        t %s= %s;" % (r.choice(["+", "^", "|", "-"]), iexpr(r, 2, "i32", vs3)))
        lines.append("        s %s= %s;" % (r.choice(["*", "^", "+", ">>", "<<", "%", "/", "&"]),
                                             iexpr(r, 2, "u32", vs3)))
        lines.append("    }")
    if r.random() < 0.6:
        lines.append("    if (%s) {" % iexpr(r, 2, r.choice(["i32", "u32"]), vs2))
        lines.append("        t = %s;" % iexpr(r, 2, "i32", vs2))
        lines.append("    } else {")
        lines.append("        s = %s;" % iexpr(r, 2, "u32", vs2))
        lines.append("    }")
    lines.append("    i32 o;")
    lines.append("    u32 h = hmix(s, t, o);")
    lines.append("    side = f32x2(f32(o >> 16), f32(o & 0xFFFF));")
    lines.append("    return f32x4(f32(t >> 16), f32(t & 0xFFFF), f32(h >> 16), f32(h & 0xFFFFu));")
    lines.append("}")
    return "\n".join(lines) + "\n"


def value(r):
    k = r.randrange(4)
    if k == 0:
        return "%d" % r.randint(-50, 50)
    if k == 1:
        return "%d" % r.randint(-(1 << 24), 1 << 24)
    if k == 2:
        return "%.6g" % r.uniform(-5e9, 5e9)
    return "%.4g" % r.uniform(-100, 100)


def main():
    work, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    r = random.Random(seed)
    compared = 0
    for i in range(count):
        src = "%s/p%d.sl" % (work, i)
        with open(src, "w") as f:
            f.write(program(r))
        args = []
        for _ in range(8):
            args += ["--in", ",".join(value(r) for _ in range(4))]
        vm, ir = random_sl_diff.run_both(src, args)
        if len(vm) != 8 or len(ir) != 8:
            print("MISSING OUTPUT %s" % src)
            return 1
        for k, (x, y) in enumerate(zip(vm, ir)):
            compared += 1
            if x.split() != y.split():
                print("MISMATCH %s input %d: VM %s, IR interpreter %s" % (src, k, x, y))
                return 1
    print("compared %d results of %d programs" % (compared, count))
    return 0


if __name__ == "__main__":
    sys.exit(main())
