#!/usr/bin/env python3
"""Oracle for test/SL/int-run.sl and int-hash.sl: the programs' integer semantics
written again in Python (arbitrary-precision integers masked to 32 bits), run on
edge and random inputs, compared with `fmag-run PROGRAM` (a .fir runs on the IR
interpreter, a .fmag on the reference VM). Inputs and outputs are float32: an
integer parameter is i32(x) / u32(x) of its float (truncating, saturating), an
integer output the float nearest to it.

usage: int_oracle.py ops|hash WORKDIR PROGRAM"""
import math
import random
import struct
import subprocess
import sys

M = 0xFFFFFFFF


def f32(x):
    """The float32 nearest x (round to nearest even), as a Python float."""
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


def s32(x):
    x &= M
    return x - (1 << 32) if x >> 31 else x


def u32(x):
    return x & M


def fptosi(x):
    if math.isnan(x):
        return 0
    t = math.trunc(x)
    return max(-(1 << 31), min((1 << 31) - 1, t))


def fptoui(x):
    if math.isnan(x):
        return 0
    return max(0, min(M, math.trunc(x)))


def sdiv(a, b):
    a, b = s32(a), s32(b)
    if b == 0:
        return -1
    if a == -(1 << 31) and b == -1:
        return a
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def srem(a, b):
    a, b = s32(a), s32(b)
    if b == 0:
        return a
    if a == -(1 << 31) and b == -1:
        return 0
    return a - b * sdiv(a, b)


def udiv(a, b):
    return M if b == 0 else a // b


def urem(a, b):
    return a if b == 0 else a % b


def shl(a, n):
    return s32(a << (n & 31))


def ashr(a, n):
    return s32(a) >> (n & 31)


def lshr(a, n):
    return u32(a) >> (n & 31)


def b(x):
    return 1.0 if x else 0.0


def fsum(*xs):
    """Left-to-right float32 additions, as the program's f32 arithmetic does."""
    acc = xs[0]
    for x in xs[1:]:
        acc = f32(acc + x)
    return acc


def iarith(x, y):
    a, c = fptosi(x), fptosi(y)
    r, q = srem(a, c), sdiv(a, c)
    more = [s32(a * c), s32(a - c), s32(-a), s32(abs(a))]
    bits = [s32(a & c), s32(a | c), s32(a ^ c), s32(~a)]
    cmp = fsum(b(a < c), 2.0 * b(a <= c), 4.0 * b(a > c), 8.0 * b(a >= c), 16.0 * b(a == c),
               32.0 * b(a != c))
    truth = fsum(b(a), 2.0 * b(not c), 4.0 * b(a and c), 8.0 * b(a or c))
    t = (1 if a & 4 else 0) + (2 if c else 0)
    cl = s32(max(-100, min(a, 100)) + (1000 if c else 2000) + (a if a & 1 else 5))
    s = s32(a + 7)
    s = s32(s * c)
    s = s32(s - 3)
    s = sdiv(s, 2)
    s = srem(s, 1000)
    s = s32(s | 0x30)
    s = s32(s & 0xFF0F)
    s = s32(s ^ 5)
    ret = [s32(a + c), q, r, s32(s32(min(a, c) * 3) + max(a, c) + s)]
    return [f32(v) for v in ret + more + bits] + [cmp, truth, f32(t), f32(cl)]


def ishift(x, y):
    a, c = fptosi(x), fptosi(y)
    xx = ashr(shl(a, 2), 1)
    yy = ashr(a, c)
    more = [xx, yy, ashr(a, 31), shl(1, c & 31)]
    ret = [shl(a, c), ashr(a, c), shl(a, 3), ashr(a, 4) & 0xFF]
    return [f32(v) for v in ret + more]


def uarith(x, y):
    c, d = fptoui(x), fptoui(y)
    more = [lshr(c, d), u32(c << (d & 7)), u32(c * d), u32(c - d)]
    m = fsum(b(c < d), 2.0 * b(c <= d), 4.0 * b(c > d), 8.0 * b(c >= d), 16.0 * b(c == d))
    s = u32((c >> 3) + 0xFFFFFFFF)
    cmp = [m, f32(min(c, d)), f32(max(c, d)), f32(max(10, min(s, 4000000000)))]
    ret = [udiv(c, d), urem(c, d), u32(ashr(c, 1)), u32(~c ^ 0xFF)]
    return [f32(v) for v in ret] + [f32(v) for v in more] + cmp


def conv(x, _y):
    i, u = fptosi(x), fptoui(x)
    more = [u32(i), s32(u), fptosi(f32(-x)), fptoui(f32(x * 0.5))]
    ret = [f32(i), f32(u), f32(f32(i) - x), f32(sdiv(i, 3))]
    return ret + [f32(v) for v in more]


def vec(x, y):
    a, c = fptosi(x), fptosi(y)
    v = [a, c, a ^ c]
    v = [shl(t, 1) for t in v]
    v = [s32(s32(t * 3) + k) for t, k in zip(v, (1, 2, 3))]
    v[0], v[1] = v[1], v[0]
    w = [u32(v[0]) >> 1, u32(v[2]) >> 1]
    f = [f32(t) for t in v]
    lits = [3.5, 3.0, 1.0, 33.0]
    return [f[0], f32(f[1] + f[2]), f32(w[0]), f32(w[1])] + lits


def loops(x, _y):
    a = fptosi(x)
    s, h = 0, fptoui(x)
    h = u32(a)
    for i in range(5):
        s = s32(s + s32(a * i))
        j = i
        while j >= 0:
            s = s32(s ^ shl(j, i))
            j -= 2
    for k in (3, 2, 1):
        h = u32(h * 16777619 + k)
    return [f32(s), f32(h >> 8)]


def bits(x, _y):
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    i = s32(u)

    def flt(w):
        return struct.unpack("<f", struct.pack("<I", w & M))[0]
    return [f32(i >> 16), f32(i & 0xFFFF), f32(u >> 23), flt(0x40490FDB), flt(u ^ 0x80000000),
            flt(u + 1)]


def pcg(v):
    state = u32(v * 747796405 + 2891336453)
    word = u32(((state >> ((state >> 28) + 4)) ^ state) * 277803737)
    return (word >> 22) ^ word


def wang(seed):
    seed = (seed ^ 61) ^ (seed >> 16)
    seed = u32(seed * 9)
    seed ^= seed >> 4
    seed = u32(seed * 0x27D4EB2D)
    return seed ^ (seed >> 15)


def hashes(x, _y):
    v = fptoui(x)
    h = pcg(v)
    g = v
    for i in range(4):
        g = wang(u32(g + i))
    return [float(h >> 16), float(h & 0xFFFF), float(g >> 16), float(g & 0xFFFF)]


EDGE = [0.0, 1.0, -1.0, 2.0, -2.0, 7.0, -7.0, 31.0, 32.0, 33.0, -2.75, 2.75, 0.5, -0.5,
        65535.0, 65536.0, 16777216.0, -16777216.0, 2147483648.0, -2147483648.0, 3e9, 4294967296.0,
        1e10, -1e10, 123456789.0]


def inputs(r, n):
    pairs = [(a, b) for a in EDGE for b in EDGE]
    for _ in range(n):
        k = r.randrange(4)
        if k == 0:
            pairs.append((float(r.randint(-100, 100)), float(r.randint(-40, 40))))
        elif k == 1:
            pairs.append((float(r.randint(-(1 << 24), 1 << 24)), float(r.randint(-(1 << 24), 1 << 24))))
        elif k == 2:
            pairs.append((f32(r.uniform(-5e9, 5e9)), f32(r.uniform(-5e9, 5e9))))
        else:
            pairs.append((f32(r.uniform(-1000, 1000)), float(r.randint(-70, 70))))
    return [(f32(a), f32(b)) for a, b in pairs]


def check(name, fn, nin, pairs, work, prog):
    path = "%s/%s.csv" % (work, name)
    with open(path, "w") as f:
        for a, c in pairs:
            f.write(",".join("%.9g" % v for v in (a, c)[:nin]) + "\n")
    out = subprocess.run(["fmag-run", prog, "--program", name, "--in-file", path], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    if len(out) != len(pairs):
        print("%s: %d output lines for %d inputs" % (name, len(out), len(pairs)))
        return False
    nvals = 0
    for (a, c), line in zip(pairs, out):
        got = [f32(float(t)) for t in line.split()]
        want = fn(a, c)
        if len(got) != len(want) or any(g != w for g, w in zip(got, want)):
            print("MISMATCH %s(%r, %r): got %s, want %s" %
                  (name, a, c, line, " ".join("%.9g" % w for w in want)))
            return False
        nvals += len(want)
    print("%s: %d inputs, %d values agree" % (name, len(pairs), nvals))
    return True


def main():
    mode, work, prog = sys.argv[1], sys.argv[2], sys.argv[3]
    r = random.Random(27)
    ok = True
    if mode == "ops":
        pairs = inputs(r, 400)
        for name, fn, nin in (("iarith", iarith, 2), ("ishift", ishift, 2), ("uarith", uarith, 2),
                              ("conv", conv, 1), ("vec", vec, 2), ("loops", loops, 1),
                              ("bits", bits, 1)):
            ok = check(name, fn, nin, pairs, work, prog) and ok
    else:
        # 10^4 inputs exact as u32: 0..4999 and 5000 random up to 2^24.
        vals = [float(v) for v in range(5000)] + \
            [float(r.randrange(1 << 24)) for _ in range(5000)]
        ok = check("hashes", hashes, 1, [(v, 0.0) for v in vals], work, prog)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
