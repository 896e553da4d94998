#!/usr/bin/env python3
"""The node corpus: one <nodegraph> per case, whose interface inputs feed one standard
node, written to nodes.mtlx (`gen`), and each program's outputs on random inputs checked
against the node's formula from the MaterialX Standard Nodes specification, worked here
in Python (`check FILE.fir|FILE.fmag`: the IR interpreter or the reference VM).

usage: check_nodes.py gen OUT.mtlx
       check_nodes.py check FILE COUNT SEED"""
import math
import random
import re
import subprocess
import sys

SIZE = {"float": 1, "integer": 1, "boolean": 1, "vector2": 2, "vector3": 3, "vector4": 4,
        "color3": 3, "color4": 4, "matrix33": 9, "matrix44": 16}


def u(lo, hi):
    return lambda r: r.uniform(lo, hi)


def choice(*vals):
    return lambda r: r.choice(vals)


POS = u(0.1, 4.0)
ANY = u(-4.0, 4.0)
UNIT = u(0.0, 1.0)
BOOL = choice(0.0, 1.0)


def comp(f, n):
    return lambda a: [f(*[x[i] if len(x) > 1 else x[0] for x in a]) for i in range(n)]


def mod(x, y):
    return x - y * math.floor(x / y)


def fmod(x, y):
    return math.fmod(x, y)


def mix(a, b, t):
    return a * (1 - t) + b * t


def clamp(x, lo, hi):
    return min(max(x, lo), hi)


def smooth(e0, e1, x):
    t = clamp((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3 - 2 * t)


def aastep(center, x, dx, dy):
    """MaterialX's mx_aastep: smoothstep over center -/+ |(dx, dy)| / sqrt 2; with no
    derivative, the step x >= center."""
    w = math.hypot(dx, dy) * 0.70710678
    return smooth(center - w, center + w, x) if w > 0 else (1.0 if x >= center else 0.0)


# Nodes whose programs take derivative inputs (docs/Derivatives.md): the check gives
# the texture coordinate random derivatives (du/dx, du/dy, dv/dx, dv/dy; the other
# inputs 0), puts it near the edge so that the antialiased band is hit, and the
# formula gets the derivatives as a second argument.
DERIV_CASES = {"splitlr": 0, "splittb": 1}


def rgb2hsv(c):
    r, g, b = c[:3]
    mx, mn = max(r, g, b), min(r, g, b)
    d = mx - mn
    s = d / mx if mx > 0 else 0.0
    if s <= 0:
        h = 0.0
    else:
        if r >= mx:
            h = (g - b) / d
        elif g >= mx:
            h = 2 + (b - r) / d
        else:
            h = 4 + (r - g) / d
        h /= 6
        if h < 0:
            h += 1
    return [h, s, mx]


def hsv2rgb(c):
    h, s, v = c[:3]
    if s < 0.0001:
        return [v, v, v]
    h = 6 * (h - math.floor(h))
    hi = math.floor(h)
    f = h - hi
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    return [[v, t, p], [q, v, p], [p, v, t], [p, q, v], [t, p, v], [v, p, q]][min(int(hi), 5)]


ACES = [0.2722287, 0.6740818, 0.0536895]


def luma(c, w=ACES):
    return sum(c[i] * w[i] for i in range(3))


def rot2(v, deg):
    a = math.radians(deg)
    s, c = math.sin(a), math.cos(a)
    return [c * v[0] + s * v[1], c * v[1] - s * v[0]]


def matmul(a, b, n):
    return [sum(a[i * n + k] * b[k * n + j] for k in range(n)) for i in range(n) for j in range(n)]


def det(m, n):
    if n == 1:
        return m[0]
    s = 0.0
    for j in range(n):
        minor = [m[r * n + c] for r in range(1, n) for c in range(n) if c != j]
        s += (-1) ** j * m[j] * det(minor, n - 1)
    return s


def inverse(m, n):
    d = det(m, n)
    cof = []
    for i in range(n):
        for j in range(n):
            minor = [m[r * n + c] for r in range(n) for c in range(n) if r != i and c != j]
            cof.append((-1) ** (i + j) * det(minor, n - 1))
    return [cof[j * n + i] / d for i in range(n) for j in range(n)]


def porter(op, f, b, m):
    fa, ba = f[3], b[3]
    res = []
    for i in range(4):
        F, B = f[i], b[i]
        if op == "over":
            v = F + B * (1 - fa)
        elif op == "disjointover":
            if i == 3:
                v = min(fa + ba, 1.0)
            elif fa + ba <= 1:
                v = F + B
            else:
                v = F + B * (1 - fa) / ba
        elif op == "in":
            v = F * ba
        elif op == "mask":
            v = B * fa
        elif op == "matte":
            v = (fa + ba * (1 - fa)) if i == 3 else F * fa + B * (1 - fa)
        elif op == "out":
            v = F * (1 - ba)
        else:  # atop
            v = ba if i == 3 else F * ba + B * (1 - fa)
        res.append(mix(B, v, m))
    return res


def blend(op, f, b):
    if op == "plus":
        return f + b
    if op == "minus":
        return b - f
    if op == "difference":
        return abs(b - f)
    if op == "burn":
        return 0.0 if abs(f) < 1e-8 else 1 - (1 - b) / f
    if op == "dodge":
        return 0.0 if abs(1 - f) < 1e-8 else b / (1 - f)
    if op == "screen":
        return 1 - (1 - f) * (1 - b)
    return 2 * f * b if f < 0.5 else 1 - 2 * (1 - f) * (1 - b)  # overlay


# (case, category, type, [(input, type, sampler)], expected(inputs) -> list, tolerance)
CASES = []


def case(name, cat, typ, ins, fn, tol=2e-5):
    CASES.append((name, cat, typ, ins, fn, tol))


for t in ["float", "color3", "vector2", "vector4"]:
    n = SIZE[t]
    case("add_" + t, "add", t, [("in1", t, ANY), ("in2", t, ANY)], lambda a, n=n: comp(lambda x, y: x + y, n)(a))
    case("sub_" + t, "subtract", t, [("in1", t, ANY), ("in2", t, ANY)], lambda a, n=n: comp(lambda x, y: x - y, n)(a))
    case("mul_" + t, "multiply", t, [("in1", t, ANY), ("in2", "float", ANY)], lambda a, n=n: comp(lambda x, y: x * y, n)(a))
    case("div_" + t, "divide", t, [("in1", t, ANY), ("in2", t, POS)], lambda a, n=n: comp(lambda x, y: x / y, n)(a))
    case("mod_" + t, "modulo", t, [("in1", t, ANY), ("in2", t, POS)], lambda a, n=n: comp(mod, n)(a), 1e-4)
    case("min_" + t, "min", t, [("in1", t, ANY), ("in2", t, ANY)], lambda a, n=n: comp(min, n)(a))
    case("max_" + t, "max", t, [("in1", t, ANY), ("in2", t, ANY)], lambda a, n=n: comp(max, n)(a))
    case("clamp_" + t, "clamp", t, [("in", t, ANY), ("low", t, u(-1, 0)), ("high", t, u(0, 1))], lambda a, n=n: comp(clamp, n)(a))
case("add_integer", "add", "integer", [("in1", "integer", choice(-3.0, 2.0, 7.0)), ("in2", "integer", choice(1.0, 5.0))], lambda a: [a[0][0] + a[1][0]], 0)
case("fmod", "fmod", "float", [("in1", "float", ANY), ("in2", "float", POS)], lambda a: [fmod(a[0][0], a[1][0])], 1e-4)
case("invert", "invert", "color3", [("in", "color3", ANY), ("amount", "color3", ANY)], lambda a: comp(lambda x, y: y - x, 3)(a))
case("power", "power", "float", [("in1", "float", POS), ("in2", "float", u(-2, 2))], lambda a: [a[0][0] ** a[1][0]], 1e-4)
case("safepower", "safepower", "float", [("in1", "float", ANY), ("in2", "float", u(-2, 2))], lambda a: [math.copysign(abs(a[0][0]) ** a[1][0], a[0][0])], 1e-4)
for cat, fn, smp in [("absval", abs, ANY), ("sign", lambda x: (x > 0) - (x < 0), ANY), ("floor", math.floor, ANY), ("ceil", math.ceil, ANY),
                     ("round", lambda x: float(round(x)), ANY), ("sin", math.sin, ANY), ("cos", math.cos, ANY), ("tan", math.tan, u(-1.2, 1.2)),
                     ("asin", math.asin, u(-1, 1)), ("acos", math.acos, u(-1, 1)), ("sqrt", math.sqrt, POS), ("ln", math.log, POS),
                     ("exp", math.exp, ANY), ("dot", lambda x: x, ANY)]:
    case(cat, cat, "vector3", [("in", "vector3", smp)], lambda a, fn=fn: comp(fn, 3)(a), 5e-5)
case("atan2", "atan2", "float", [("iny", "float", ANY), ("inx", "float", ANY)], lambda a: [math.atan2(a[0][0], a[1][0])], 5e-5)
case("normalize", "normalize", "vector3", [("in", "vector3", ANY)], lambda a: [x / math.sqrt(sum(y * y for y in a[0])) for x in a[0]], 5e-5)
case("magnitude", "magnitude", "float", [("in", "vector3", ANY)], lambda a: [math.sqrt(sum(y * y for y in a[0]))], 5e-5)
case("distance", "distance", "float", [("in1", "vector2", ANY), ("in2", "vector2", ANY)], lambda a: [math.dist(a[0], a[1])], 5e-5)
case("dotproduct", "dotproduct", "float", [("in1", "vector4", ANY), ("in2", "vector4", ANY)], lambda a: [sum(x * y for x, y in zip(*a))], 5e-5)
case("crossproduct", "crossproduct", "vector3", [("in1", "vector3", ANY), ("in2", "vector3", ANY)],
     lambda a: [a[0][1] * a[1][2] - a[0][2] * a[1][1], a[0][2] * a[1][0] - a[0][0] * a[1][2], a[0][0] * a[1][1] - a[0][1] * a[1][0]], 5e-5)
case("transformpoint", "transformpoint", "vector3", [("in", "vector3", ANY)], lambda a: a[0])
case("transformmatrix", "transformmatrix", "vector3", [("in", "vector3", ANY), ("mat", "matrix33", ANY)],
     lambda a: [sum(a[0][i] * a[1][i * 3 + j] for i in range(3)) for j in range(3)], 1e-4)
case("transformmatrix44", "transformmatrix", "vector3", [("in", "vector3", ANY), ("mat", "matrix44", ANY)],
     lambda a: [sum((a[0] + [1.0])[i] * a[1][i * 4 + j] for i in range(4)) for j in range(3)], 1e-4)
case("transpose", "transpose", "matrix44", [("in", "matrix44", ANY)], lambda a: [a[0][j * 4 + i] for i in range(4) for j in range(4)])
case("determinant", "determinant", "float", [("in", "matrix33", ANY)], lambda a: [det(a[0], 3)], 1e-3)
case("invertmatrix", "invertmatrix", "matrix33", [("in", "matrix33", ANY)], lambda a: inverse(a[0], 3), 5e-3)
case("mulmatrix", "multiply", "matrix33", [("in1", "matrix33", ANY), ("in2", "matrix33", ANY)], lambda a: matmul(a[1], a[0], 3), 1e-3)
case("addmatrix", "add", "matrix44", [("in1", "matrix44", ANY), ("in2", "matrix44", ANY)], lambda a: comp(lambda x, y: x + y, 16)(a))
case("rotate2d", "rotate2d", "vector2", [("in", "vector2", ANY), ("amount", "float", u(-360, 360))], lambda a: rot2(a[0], a[1][0]), 1e-4)
case("place2d", "place2d", "vector2", [("texcoord", "vector2", UNIT), ("pivot", "vector2", UNIT), ("scale", "vector2", POS), ("rotate", "float", u(-90, 90)), ("offset", "vector2", ANY)],
     lambda a: [x + p - o for x, p, o in zip(rot2([(t - p) / s for t, p, s in zip(a[0], a[1], a[2])], a[3][0]), a[1], a[4])], 1e-4)


def rot3(v, deg, axis):
    L = math.sqrt(sum(x * x for x in axis))
    k = [x / L for x in axis]
    t = math.radians(deg)
    c, s = math.cos(t), math.sin(t)
    # MaterialX turns v as the row vector v M: v c + (v x k) s + k (k . v)(1 - c)
    vxk = [v[1] * k[2] - v[2] * k[1], v[2] * k[0] - v[0] * k[2], v[0] * k[1] - v[1] * k[0]]
    kd = sum(x * y for x, y in zip(k, v))
    return [v[i] * c + vxk[i] * s + k[i] * kd * (1 - c) for i in range(3)]


case("rotate3d", "rotate3d", "vector3", [("in", "vector3", ANY), ("amount", "float", u(-180, 180)), ("axis", "vector3", u(0.2, 1))], lambda a: rot3(a[0], a[1][0], a[2]), 1e-4)
case("remap", "remap", "float", [("in", "float", ANY), ("inlow", "float", u(-1, 0)), ("inhigh", "float", u(1, 2)), ("outlow", "float", ANY), ("outhigh", "float", ANY)],
     lambda a: [a[3][0] + (a[0][0] - a[1][0]) * (a[4][0] - a[3][0]) / (a[2][0] - a[1][0])], 1e-4)
case("smoothstep", "smoothstep", "color3", [("in", "color3", u(-1, 2)), ("low", "color3", u(-0.5, 0.2)), ("high", "color3", u(0.5, 1.5))], lambda a: comp(lambda x, lo, hi: smooth(lo, hi, x), 3)(a), 5e-5)
case("luminance", "luminance", "color3", [("in", "color3", UNIT)], lambda a: [luma(a[0])] * 3)
case("luminance4", "luminance", "color4", [("in", "color4", UNIT)], lambda a: [luma(a[0])] * 3 + [a[0][3]])
case("rgbtohsv", "rgbtohsv", "color3", [("in", "color3", UNIT)], lambda a: rgb2hsv(a[0]), 5e-5)
case("hsvtorgb", "hsvtorgb", "color3", [("in", "color3", UNIT)], lambda a: hsv2rgb(a[0]), 5e-5)
case("contrast", "contrast", "color3", [("in", "color3", UNIT), ("amount", "float", u(0, 2)), ("pivot", "float", UNIT)], lambda a: [(x - a[2][0]) * a[1][0] + a[2][0] for x in a[0]])
case("range", "range", "float", [("in", "float", u(0.1, 0.9)), ("inlow", "float", u(-1, 0)), ("inhigh", "float", u(1, 2)), ("gamma", "float", u(0.5, 2)),
                                 ("outlow", "float", ANY), ("outhigh", "float", ANY), ("doclamp", "boolean", BOOL)],
     lambda a: [(lambda o: clamp(o, min(a[4][0], a[5][0]), max(a[4][0], a[5][0])) if a[6][0] else o)(
         a[4][0] + ((a[0][0] - a[1][0]) / (a[2][0] - a[1][0])) ** (1 / a[3][0]) * (a[5][0] - a[4][0]))], 2e-4)
case("hsvadjust", "hsvadjust", "color3", [("in", "color3", UNIT), ("amount", "vector3", u(0.2, 0.9))],
     lambda a: hsv2rgb([rgb2hsv(a[0])[0] + a[1][0], rgb2hsv(a[0])[1] * a[1][1], rgb2hsv(a[0])[2] * a[1][2]]), 5e-5)
case("saturate", "saturate", "color3", [("in", "color3", UNIT), ("amount", "float", u(0, 2))], lambda a: [luma(a[0]) + a[1][0] * (x - luma(a[0])) for x in a[0]])
case("extract", "extract", "float", [("in", "vector4", ANY)], lambda a: [a[0][2]], 0)  # index set below
case("combine3", "combine3", "color3", [("in1", "float", ANY), ("in2", "float", ANY), ("in3", "float", ANY)], lambda a: [a[0][0], a[1][0], a[2][0]], 0)
case("combine2", "combine2", "vector4", [("in1", "vector2", ANY), ("in2", "vector2", ANY)], lambda a: a[0] + a[1], 0)
case("combine4", "combine4", "vector4", [("in1", "float", ANY), ("in2", "float", ANY), ("in3", "float", ANY), ("in4", "float", ANY)], lambda a: [x[0] for x in a], 0)
case("convert", "convert", "color4", [("in", "color3", ANY)], lambda a: a[0] + [1.0], 0)
case("convertf", "convert", "vector3", [("in", "float", ANY)], lambda a: a[0] * 3, 0)
case("premult", "premult", "color4", [("in", "color4", UNIT)], lambda a: [x * a[0][3] for x in a[0][:3]] + [a[0][3]])
case("unpremult", "unpremult", "color4", [("in", "color4", u(0.1, 1))], lambda a: [x / a[0][3] for x in a[0][:3]] + [a[0][3]])
for op in ["plus", "minus", "difference", "burn", "dodge", "screen", "overlay"]:
    case(op, op, "color3", [("fg", "color3", u(0.05, 0.95)), ("bg", "color3", UNIT), ("mix", "float", UNIT)],
         lambda a, op=op: [mix(b, blend(op, f, b), a[2][0]) for f, b in zip(a[0], a[1])], 1e-4)
for op in ["over", "disjointover", "in", "mask", "matte", "out", "atop"]:
    case(op, op, "color4", [("fg", "color4", UNIT), ("bg", "color4", u(0.05, 1)), ("mix", "float", UNIT)], lambda a, op=op: porter(op, a[0], a[1], a[2][0]), 1e-4)
case("inside", "inside", "color3", [("in", "color3", ANY), ("mask", "float", UNIT)], lambda a: [x * a[1][0] for x in a[0]])
case("outside", "outside", "color3", [("in", "color3", ANY), ("mask", "float", UNIT)], lambda a: [x * (1 - a[1][0]) for x in a[0]])
case("mix", "mix", "color3", [("fg", "color3", ANY), ("bg", "color3", ANY), ("mix", "float", UNIT)], lambda a: [mix(b, f, a[2][0]) for f, b in zip(a[0], a[1])])
case("ifgreater", "ifgreater", "color3", [("value1", "float", choice(-1.0, 0.0, 1.0)), ("value2", "float", choice(-1.0, 0.0, 1.0)), ("in1", "color3", ANY), ("in2", "color3", ANY)],
     lambda a: a[2] if a[0][0] > a[1][0] else a[3], 0)
case("ifgreatereq", "ifgreatereq", "float", [("value1", "float", choice(-1.0, 0.0, 1.0)), ("value2", "float", choice(-1.0, 0.0, 1.0)), ("in1", "float", ANY), ("in2", "float", ANY)],
     lambda a: a[2] if a[0][0] >= a[1][0] else a[3], 0)
case("ifequal", "ifequal", "vector2", [("value1", "integer", choice(0.0, 1.0, 2.0)), ("value2", "integer", choice(0.0, 1.0, 2.0)), ("in1", "vector2", ANY), ("in2", "vector2", ANY)],
     lambda a: a[2] if a[0][0] == a[1][0] else a[3], 0)
case("ifgreater_bool", "ifgreater", "boolean", [("value1", "float", ANY), ("value2", "float", ANY)], lambda a: [1.0 if a[0][0] > a[1][0] else 0.0], 0)
case("switch", "switch", "float", [("in1", "float", ANY), ("in2", "float", ANY), ("in3", "float", ANY), ("in4", "float", ANY), ("in5", "float", ANY), ("which", "float", u(-0.5, 6))],
     lambda a: a[min(max(int(math.floor(a[5][0])), 0), 4)] if a[5][0] >= 0 else a[0], 0)
case("switch_int", "switch", "color3", [("in1", "color3", ANY), ("in2", "color3", ANY), ("in3", "color3", ANY), ("which", "integer", choice(0.0, 1.0, 2.0, 3.0))],
     lambda a: (a[:3] + [[0.0] * 3, [0.0] * 3])[int(a[3][0])], 0)
case("and", "and", "boolean", [("in1", "boolean", BOOL), ("in2", "boolean", BOOL)], lambda a: [float(bool(a[0][0]) and bool(a[1][0]))], 0)
case("or", "or", "boolean", [("in1", "boolean", BOOL), ("in2", "boolean", BOOL)], lambda a: [float(bool(a[0][0]) or bool(a[1][0]))], 0)
case("xor", "xor", "boolean", [("in1", "boolean", BOOL), ("in2", "boolean", BOOL)], lambda a: [float(bool(a[0][0]) != bool(a[1][0]))], 0)
case("not", "not", "boolean", [("in", "boolean", BOOL)], lambda a: [float(not a[0][0])], 0)
case("constant", "constant", "color3", [("value", "color3", ANY)], lambda a: a[0], 0)
case("ramplr", "ramplr", "color3", [("valuel", "color3", ANY), ("valuer", "color3", ANY), ("texcoord", "vector2", u(-0.5, 1.5))],
     lambda a: [mix(l, r, clamp(a[2][0], 0, 1)) for l, r in zip(a[0], a[1])])
case("ramptb", "ramptb", "float", [("valuet", "float", ANY), ("valueb", "float", ANY), ("texcoord", "vector2", u(-0.5, 1.5))],
     lambda a: [mix(a[1][0], a[0][0], clamp(a[2][1], 0, 1))])
case("ramp4", "ramp4", "float", [("valuetl", "float", ANY), ("valuetr", "float", ANY), ("valuebl", "float", ANY), ("valuebr", "float", ANY), ("texcoord", "vector2", UNIT)],
     lambda a: [mix(mix(a[2][0], a[3][0], a[4][0]), mix(a[0][0], a[1][0], a[4][0]), a[4][1])])
case("splitlr", "splitlr", "color3", [("valuel", "color3", ANY), ("valuer", "color3", ANY), ("center", "float", UNIT), ("texcoord", "vector2", UNIT)],
     lambda a, d: comp(lambda l, r: mix(l, r, aastep(a[2][0], a[3][0], d[0], d[1])), 3)([a[0], a[1]]), 1e-4)
case("splittb", "splittb", "float", [("valuet", "float", ANY), ("valueb", "float", ANY), ("center", "float", UNIT), ("texcoord", "vector2", UNIT)],
     lambda a, d: [mix(a[1][0], a[0][0], aastep(a[2][0], a[3][1], d[2], d[3]))], 1e-4)
case("checkerboard", "checkerboard", "color3", [("color1", "color3", ANY), ("color2", "color3", ANY), ("uvtiling", "vector2", u(1, 10)), ("uvoffset", "vector2", ANY), ("texcoord", "vector2", UNIT)],
     lambda a: a[0] if mod(math.floor(a[4][0] * a[2][0] - a[3][0]) + math.floor(a[4][1] * a[2][1] - a[3][1]), 2) == 1 else a[1], 0)
case("circle", "circle", "float", [("texcoord", "vector2", UNIT), ("center", "vector2", UNIT), ("radius", "float", u(0.1, 0.6))],
     lambda a: [1.0 if (a[0][0] - a[1][0]) ** 2 + (a[0][1] - a[1][1]) ** 2 < a[2][0] ** 2 else 0.0], 0)


def seg(p, a, b):
    l = [b[0] - a[0], b[1] - a[1]]
    q = [p[0] - a[0], p[1] - a[1]]
    t = clamp((q[0] * l[0] + q[1] * l[1]) / (l[0] ** 2 + l[1] ** 2), 0, 1)
    return (q[0] - l[0] * t) ** 2 + (q[1] - l[1] * t) ** 2


case("line", "line", "float", [("texcoord", "vector2", UNIT), ("radius", "float", u(0.05, 0.3)), ("point1", "vector2", UNIT), ("point2", "vector2", UNIT)],
     lambda a: [1.0 if seg(a[0], a[2], a[3]) <= a[1][0] ** 2 else 0.0], 0)
case("cloverleaf", "cloverleaf", "float", [("texcoord", "vector2", UNIT), ("center", "vector2", UNIT), ("radius", "float", u(0.2, 0.8))],
     lambda a: [1.0 if any((abs(a[0][0] - a[1][0]) - dx) ** 2 + (abs(a[0][1] - a[1][1]) - dy) ** 2 < (a[2][0] / 2) ** 2
                           for dx, dy in [(a[2][0] / 2, 0), (0, a[2][0] / 2)]) else 0.0], 0)
case("hexagon", "hexagon", "float", [("texcoord", "vector2", UNIT), ("center", "vector2", UNIT), ("radius", "float", u(0.2, 0.8))],
     lambda a: [1.0 if abs(a[0][1] - a[1][1]) < a[2][0] * math.sqrt(3) / 2 and
                abs(a[0][0] - a[1][0]) * math.sqrt(3) / 2 + abs(a[0][1] - a[1][1]) / 2 < a[2][0] * math.sqrt(3) / 2 else 0.0], 0)
case("texcoord", "texcoord", "vector2", [], None, 0)  # the stream itself: checked in gen
case("swizzle", "swizzle", "vector3", [("in", "color4", ANY)], lambda a: [a[0][2], a[0][0], 1.0], 0)

EXTRA = {  # constant inputs written as values
    "extract": '<input name="index" type="integer" value="2"/>',
    "swizzle": '<input name="channels" type="string" value="br1"/>',
}


def gen(path):
    out = ['<?xml version="1.0"?>',
           "<!-- Generated by check_nodes.py gen: one graph per case, its interface inputs",
           "     feeding one node (test/MaterialX/nodes.test). -->",
           '<materialx version="1.38">']
    for name, cat, typ, ins, fn, tol in CASES:
        if fn is None:
            continue
        out.append('  <nodegraph name="T_%s">' % name)
        for i, t, _ in ins:
            out.append('    <input name="%s" type="%s" value="%s"/>' % (i, t, ", ".join(["0"] * SIZE[t]) if t != "boolean" else "false"))
        out.append('    <%s name="node" type="%s">' % (cat, typ))
        for i, t, _ in ins:
            out.append('      <input name="%s" type="%s" interfacename="%s"/>' % (i, t, i))
        if name in EXTRA:
            out.append("      " + EXTRA[name])
        out.append("    </%s>" % cat)
        out.append('    <output name="out" type="%s" nodename="node"/>' % typ)
        out.append("  </nodegraph>")
    out.append("</materialx>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def params_of(path):
    """program name -> parameter names, from the .fir text or `fmag-as -d`."""
    text = open(path, errors="replace").read() if path.endswith(".fir") else ""
    res = {}
    for m in re.finditer(r"export func @([\w.]+)\(([^)]*)\)", text):
        res[m.group(1)] = [p.strip().lstrip("%") for p in m.group(2).split(",") if p.strip()]
    return res


def check(path, count, seed, fir_for_params):
    r = random.Random(seed)
    params = params_of(fir_for_params)
    total = bad = 0
    for name, cat, typ, ins, fn, tol in CASES:
        if fn is None:
            continue
        prog = "T_%s.out" % name
        rows, want = [], []
        for _ in range(count):
            vals = [[float(struct_f32(smp(r))) for _ in range(SIZE[t])] for _, t, smp in ins]
            axis = DERIV_CASES.get(name)
            if axis is not None:
                names = [i for i, _, _ in ins]
                center, tc = vals[names.index("center")][0], vals[names.index("texcoord")]
                tc[axis] = float(struct_f32(center + r.uniform(-0.06, 0.06)))
                # du/dx du/dy dv/dx dv/dy: 0, or 0.01 to 0.05 either way (a band
                # at least 0.014 wide: float rounding of x - (center - w) grows as
                # 1 / w, and the tolerance, 1e-4, covers it down to that width)
                derivs = [float(struct_f32(r.choice([0.0, r.choice([-1, 1]) * r.uniform(0.01, 0.05)])))
                          for _ in range(4)]
            byname = {}
            for (i, t, _), v in zip(ins, vals):
                if SIZE[t] == 1:
                    byname[i] = v[0]
                else:
                    sfx = "rgba" if t.startswith("color") else "xyzw"
                    for k, x in enumerate(v):
                        byname["%s.%s" % (i, sfx[k] if SIZE[t] <= 4 else k)] = x
            row = [byname[p] for p in params[prog]]
            if axis is not None:
                tc_deriv = {"texcoord.x": (derivs[0], derivs[1]), "texcoord.y": (derivs[2], derivs[3])}
                row += [tc_deriv.get(p, (0.0, 0.0))[0] for p in params[prog]]
                row += [tc_deriv.get(p, (0.0, 0.0))[1] for p in params[prog]]
                want.append(fn(vals, derivs))
            else:
                want.append(fn(vals))
            rows.append(row)
        csv = "\n".join(",".join(repr(x) for x in row) for row in rows) + "\n"
        res = subprocess.run(["fmag-run", path, "--program", prog, "--in-file", "-"], input=csv,
                             capture_output=True, text=True)
        if res.returncode:
            print("FAIL %s: %s" % (prog, res.stderr.strip()[:300]))
            bad += 1
            continue
        for row, w, line in zip(rows, want, res.stdout.strip().split("\n")):
            got = [struct_f32(float(x)) for x in line.split()]
            w = [struct_f32(x) for x in w]
            total += 1
            if len(got) != len(w) or any(abs(g - e) > tol * max(1.0, abs(e)) for g, e in zip(got, w)):
                bad += 1
                if bad < 12:
                    print("MISMATCH %s inputs %s: got %s want %s" % (prog, row, got, w))
    print("nodes: %d cases, %d results compared, %d mismatches" % (sum(1 for c in CASES if c[4]), total, bad))
    return 1 if bad else 0


def struct_f32(x):
    import struct
    return struct.unpack("<f", struct.pack("<f", x))[0]


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
        sys.exit(0)
    path = sys.argv[2]
    fir = sys.argv[5] if len(sys.argv) > 5 else path
    sys.exit(check(path, int(sys.argv[3]), int(sys.argv[4]), fir))
