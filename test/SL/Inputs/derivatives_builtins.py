#!/usr/bin/env python3
"""Each builtin's derivative rule, checked numerically: for every builtin an SL
program returns dfdx and dfdy of it applied to its input, slc compiles them all, and
fmag-run evaluates them at points of the domain with (dx, dy) = (1, 2); the results
must match the derivative written out here in closed form (Python's double math, an
oracle independent of lib/Math) within 4e-6 relative + 4e-7 absolute (a few float32 ulp). Prints one
line per builtin and a summary; exits 1 on any mismatch."""
import argparse, math, os, subprocess, sys

def sgn(x): return (x > 0) - (x < 0)

# name: (SL expression of x, derivative, points)
P = [-2.3, -1.7, -0.6, -0.2, 0.3, 0.7, 1.4, 2.6]
POS = [0.15, 0.4, 0.9, 1.7, 2.9, 6.5]
UNIT = [-0.85, -0.5, -0.1, 0.2, 0.6, 0.88]
CASES = [
    ("sin", "sin(x)", math.cos, P),
    ("cos", "cos(x)", lambda x: -math.sin(x), P),
    ("tan", "tan(x)", lambda x: 1 + math.tan(x) ** 2, [-1.2, -0.5, 0.1, 0.9, 1.3]),
    ("atan", "atan(x)", lambda x: 1 / (1 + x * x), P),
    ("asin", "asin(x)", lambda x: 1 / math.sqrt(1 - x * x), UNIT),
    ("acos", "acos(x)", lambda x: -1 / math.sqrt(1 - x * x), UNIT),
    ("sinh", "sinh(x)", math.cosh, P),
    ("cosh", "cosh(x)", math.sinh, P),
    ("tanh", "tanh(x)", lambda x: 1 - math.tanh(x) ** 2, P),
    ("asinh", "asinh(x)", lambda x: 1 / math.sqrt(x * x + 1), P),
    ("acosh", "acosh(x)", lambda x: 1 / math.sqrt(x * x - 1), [1.1, 1.5, 2.2, 4.0, 9.0]),
    ("atanh", "atanh(x)", lambda x: 1 / (1 - x * x), UNIT),
    ("exp", "exp(x)", math.exp, P),
    ("exp2", "exp2(x)", lambda x: math.log(2) * 2 ** x, P),
    ("log", "log(x)", lambda x: 1 / x, POS),
    ("log2", "log2(x)", lambda x: 1 / (x * math.log(2)), POS),
    ("sqrt", "sqrt(x)", lambda x: 0.5 / math.sqrt(x), POS),
    ("inversesqrt", "inversesqrt(x)", lambda x: -0.5 * x ** -1.5, POS),
    ("rcp", "rcp(x)", lambda x: -1 / (x * x), P),
    ("div", "x / (1.0 + x * x)", lambda x: (1 - x * x) / (1 + x * x) ** 2, P),
    ("pow-x", "pow(x, 2.7)", lambda x: 2.7 * x ** 1.7, POS),
    ("pow-y", "pow(2.5, x)", lambda x: math.log(2.5) * 2.5 ** x, P),
    ("pow-xy", "pow(x, x)", lambda x: x ** x * (math.log(x) + 1), POS),
    ("atan2-y", "atan2(x, 0.7)", lambda x: 0.7 / (x * x + 0.49), P),
    ("atan2-x", "atan2(0.7, x)", lambda x: -0.7 / (x * x + 0.49), P),
    ("floor", "floor(x)", lambda x: 0.0, P),
    ("ceil", "ceil(x)", lambda x: 0.0, P),
    ("round", "round(x)", lambda x: 0.0, P),
    ("trunc", "trunc(x)", lambda x: 0.0, P),
    ("fract", "fract(x)", lambda x: 1.0, P),
    ("mod", "mod(x, 0.7)", lambda x: 1.0, [-2.3, -1.7, -0.6, -0.2, 0.3, 1.6, 2.6]),
    ("step", "step(0.25, x)", lambda x: 0.0, P),
    ("sign", "sign(x)", lambda x: 0.0, P),
    ("abs", "abs(x)", lambda x: float(sgn(x)), P),
    ("min", "min(x, 0.5)", lambda x: 1.0 if x < 0.5 else 0.0, P),
    ("max", "max(x, 0.5)", lambda x: 1.0 if x > 0.5 else 0.0, P),
    ("clamp", "clamp(x, -0.5, 0.5)", lambda x: 1.0 if -0.5 < x < 0.5 else 0.0, P),
    ("saturate", "saturate(x)", lambda x: 1.0 if 0 < x < 1 else 0.0, P),
    ("smoothstep", "smoothstep(-1.0, 2.0, x)",
     lambda x: (lambda t: 6 * t * (1 - t) / 3 if 0 < t < 1 else 0.0)((x + 1) / 3), P),
    ("mix", "mix(1.0, 3.0, x)", lambda x: 2.0, P),
    ("mix-xy", "mix(x, x * x, 0.25)", lambda x: 0.75 + 0.5 * x, P),
    ("fma", "fma(x, x, x)", lambda x: 2 * x + 1, P),
    ("radians", "radians(x)", lambda x: math.pi / 180, P),
    ("degrees", "degrees(x)", lambda x: 180 / math.pi, P),
    ("ldexp", "ldexp(x, 3.0)", lambda x: 8.0, P),
    ("length", "length(f32x2(x, 2.0 * x + 1.0))",
     lambda x: (x + 2 * (2 * x + 1)) / math.hypot(x, 2 * x + 1), P),
    ("distance", "distance(f32x3(x, 1.0, 2.0), f32x3(0.5, x, 0.0))",
     lambda x: ((x - 0.5) - (1 - x)) / math.sqrt((x - 0.5) ** 2 + (1 - x) ** 2 + 4), P),
    ("normalize", "normalize(f32x2(x, 1.0)).x", lambda x: 1 / (x * x + 1) ** 1.5, P),
    ("dot", "dot(f32x3(x, x * x, 1.0), f32x3(2.0, 3.0, x))", lambda x: 2 + 6 * x + 1, P),
    ("cross", "cross(f32x3(x, 1.0, 0.0), f32x3(0.0, x, 1.0)).z", lambda x: 2 * x, P),
    ("select", "select(x - 0.5, x * x, 3.0 * x)", lambda x: 2 * x if x != 0.5 else 3.0, P),
    ("ternary", "x > 0.0 ? sin(x) : x * x", lambda x: math.cos(x) if x > 0 else 2 * x, P),
    ("chain", "exp(sin(x) * 0.5) * sqrt(1.0 + x * x)",
     lambda x: math.exp(math.sin(x) * 0.5) * (0.5 * math.cos(x) * math.sqrt(1 + x * x) +
                                               x / math.sqrt(1 + x * x)), P),
]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--slc", default="slc")
    ap.add_argument("--run", default="fmag-run")
    ap.add_argument("--tmp", required=True)
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    src = os.path.join(a.tmp, "builtins.sl")
    with open(src, "w") as f:
        for k, (name, expr, _, _) in enumerate(CASES):
            f.write("export f32x2 d%d(f32 x) { return f32x2(dfdx(%s), dfdy(%s)); }\n" %
                    (k, expr, expr))
    prog = os.path.join(a.tmp, "builtins.fmag")
    subprocess.run([a.slc, src, "-o", prog], check=True)
    bad = 0
    for k, (name, expr, deriv, pts) in enumerate(CASES):
        csv = os.path.join(a.tmp, "in%d.csv" % k)
        with open(csv, "w") as f:
            for x in pts:
                f.write("%r,1,2\n" % x)
        out = subprocess.run([a.run, prog, "--program", "d%d" % k, "--in-file", csv],
                             check=True, capture_output=True, text=True).stdout.split("\n")
        worst = 0.0
        for x, line in zip(pts, out):
            gx, gy = (float(v) for v in line.split())
            want = deriv(float(x))
            for got, w in ((gx, want), (gy, 2 * want)):
                err = abs(got - w) / (4e-6 * abs(w) + 4e-7)
                worst = max(worst, err)
                if err > 1:
                    print("MISMATCH %s at x=%r: got %.9g, want %.9g" % (name, x, got, w))
                    bad += 1
        print("%-12s ok: worst error %.3f of the tolerance" % (name, worst) if worst <= 1 else
              "%-12s FAILED" % name)
    print("derivative rules: %d builtins, %d mismatches" % (len(CASES), bad))
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
