#!/usr/bin/env python3
"""The GLSL/HLSL corpus checked against its formulas evaluated in double (stdlib only).

Every case compiles one function of the corpus unchanged with `slc FILE -entry NAME`,
runs the stream on the reference VM (`fmag-run --in-file`) over 32 inputs drawn from a
domain where the formula is well conditioned (fixed seed), and compares each output
with the formula below evaluated in double on the same float32 inputs.

A case passes when |got - ref| <= ulps * 2^-23 * max(|ref|, scale) for every output:
`ulps` is the error budget in float32 ulps, `scale` the magnitude of the intermediate
values where a final cancellation makes a relative bound meaningless (sdSphere's
length(p) - r is good to ulps of |p|, not of the difference). Each case says why its
budget holds, from the bounds of docs/Builtins.md: + - * are correctly rounded
(0.5 ulp), division 0.51 ulp, sqrt 0.5, inversesqrt 0.91, exp2 0.95, exp 1.06, log2
1.06, sin/cos 1.49, pow 1.68; dot/length/normalize compose those.

Hashes are chaotic by design (a fract of a product), so their reference is the same
formula evaluated with float32 rounding after every operation (`f32`), compared on the
circle (fract's 0 and 1 meet).

Usage: reference.py --slc SLC --run FMAG_RUN --dir CORPUS --tmp DIR [--list]
Exit status 1 when a case that is not listed in EXPECTED_FAIL fails.
"""
import argparse
import math
import os
import random
import struct
import subprocess
import sys
from fractions import Fraction

ULP = 2.0 ** -23


def f32(x):
    """x rounded to the nearest float32."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


# ---------------------------------------------------------------- GLSL in Python

def fract(x):
    return x - math.floor(x)


def mod(x, y):
    return x - y * math.floor(x / y)


def clamp(x, lo, hi):
    return min(max(x, lo), hi)


def mix(a, b, t):
    return a + (b - a) * t


def smoothstep(e0, e1, x):
    t = clamp((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def step(edge, x):
    return 0.0 if x < edge else 1.0


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def length(a):
    return math.sqrt(dot(a, a))


def normalize(a):
    n = length(a)
    return [x / n for x in a]


def add(a, b):
    return [x + y for x, y in zip(a, b)]


def sub(a, b):
    return [x - y for x, y in zip(a, b)]


def scale(a, s):
    return [x * s for x in a]


def vmix(a, b, t):
    return [mix(x, y, t) for x, y in zip(a, b)]


def mat_vec(cols, v):
    """cols: list of columns (GLSL order); returns M * v."""
    rows = len(cols[0])
    return [sum(cols[c][r] * v[c] for c in range(len(cols))) for r in range(rows)]


def hlsl_mul(rows, v):
    """rows: list of rows (HLSL order); returns mul(M, v)."""
    return [dot(r, v) for r in rows]


# ---------------------------------------------------------------- the formulas

def reinhard(x):
    return [c / (1 + c) for c in x]


def reinhard_white(x):
    c, w = x[:3], x[3]
    return [v * (1 + v / (w * w)) / (1 + v) for v in c]


def filmic(x):
    a, b, c, d, e = 2.2, 0.05, 2.1, 0.55, 0.16
    v = x[0]
    return [clamp((v * (a * v + b)) / (v * (c * v + d) + e), 0.0, 1.0)]


SH = (0.20, 0.45, 0.12, 0.25, 0.02, 0.31)


def shoulder1(v):
    A, B, C, D, E, F = SH
    return ((v * (A * v + C * B) + D * E) / (v * (A * v + B) + D * F)) - E / F


def shoulder(x):
    return [shoulder1(v) for v in x]


def shoulder_tonemap(x):
    ws = 1.0 / shoulder1(4.0)
    return [shoulder1(v * x[3]) * ws for v in x[:3]]


def expose_gamma(x):
    k = 2.0 ** x[3]
    return [(v * k) ** (1 / 2.2) for v in x[:3]]


LUMA = (0.2126, 0.7152, 0.0722)


def srgb_to_linear(x):
    c = x[0]
    return [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4]


def lin_to_srgb1(c):
    return c * 12.92 if c < 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def hsv_to_rgb(x):
    h, s, v = x
    out = []
    for off in (0.0, 2.0 / 3.0, 1.0 / 3.0):
        k = fract(h + off) * 6.0
        p = clamp(abs(k - 3.0) - 1.0, 0.0, 1.0)
        out.append(v * mix(1.0, p, s))
    return out


def rgb_to_hsv(x):
    r, g, b = x
    hi, lo = max(r, g, b), min(r, g, b)
    d = hi - lo
    h = 0.0
    if d > 1e-6:
        if hi == r:
            h = (g - b) / d
        elif hi == g:
            h = 2 + (b - r) / d
        else:
            h = 4 + (r - g) / d
        h = fract(h / 6)
    return [h, d / hi if hi > 0 else 0.0, hi]


def sd_box(x):
    p, b = x[:3], x[3:]
    q = [abs(a) - c for a, c in zip(p, b)]
    return [length([max(v, 0.0) for v in q]) + min(max(q), 0.0)]


def sd_torus(x):
    p, t = x[:3], x[3:]
    q = [length([p[0], p[2]]) - t[0], p[1]]
    return [length(q) - t[1]]


def sd_capsule(x):
    p, a, b, r = x[0:3], x[3:6], x[6:9], x[9]
    pa, ba = sub(p, a), sub(b, a)
    h = clamp(dot(pa, ba) / dot(ba, ba), 0.0, 1.0)
    return [length(sub(pa, scale(ba, h))) - r]


def sd_round_rect(x):
    p, hs, r = x[0:2], x[2:4], x[4]
    d = [abs(a) - b + r for a, b in zip(p, hs)]
    return [min(max(d), 0.0) + length([max(v, 0.0) for v in d]) - r]


def smooth_union(x):
    d1, d2, k = x
    h = clamp(0.5 + 0.5 * (d2 - d1) / k, 0.0, 1.0)
    return [mix(d2, d1, h) - k * h * (1 - h)]


def op_repeat(x):
    p, c = x[:3], x[3:]
    return [mod(a + 0.5 * b, b) - 0.5 * b for a, b in zip(p, c)]


# Hashes: float32 rounding after every operation, in source order. A dot product may be
# evaluated with a rounding per product and sum or as an fma chain (FMAG's dot builtin is
# "a multiply, then an fma per further lane"); both are legitimate float32 evaluations and
# the hash amplifies their difference ~100x, so the reference tries each variant.
def f32_exact(fr):
    """The Fraction fr rounded once to the nearest float32 (ties to even; normal range)."""
    if fr == 0:
        return 0.0
    sign = -1.0 if fr < 0 else 1.0
    a = abs(fr)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    m = a / Fraction(2) ** (e - 23)          # in [2^23, 2^24)
    q, r = divmod(m.numerator, m.denominator)
    twice = 2 * r
    if twice > m.denominator or (twice == m.denominator and q % 2 == 1):
        q += 1
    return sign * math.ldexp(float(q), e - 23)


def fma32(a, b, c):
    return f32_exact(Fraction(a) * Fraction(b) + Fraction(c))


DOT_VARIANTS = ("rounded", "fma-xyz", "fma-zyx")


def dot3_f32(a, b, variant):
    if variant == "rounded":
        return f32(f32(f32(a[0] * b[0]) + f32(a[1] * b[1])) + f32(a[2] * b[2]))
    order = (0, 1, 2) if variant == "fma-xyz" else (2, 1, 0)
    acc = f32(a[order[0]] * b[order[0]])
    for k in order[1:]:
        acc = fma32(a[k], b[k], acc)
    return acc


def ffract(x):
    return f32(fract(x))


def hash12_f32(px, py, variant):
    k = f32(0.1313)
    p3 = [ffract(f32(px * k)), ffract(f32(py * k)), ffract(f32(px * k))]
    c = f32(27.71)
    q = [f32(p3[1] + c), f32(p3[2] + c), f32(p3[0] + c)]
    d = dot3_f32(p3, q, variant)
    p3 = [f32(v + d) for v in p3]
    return ffract(f32(f32(p3[0] + p3[1]) * p3[2]))


def hash22_f32(px, py, variant):
    k = [f32(0.1313), f32(0.1277), f32(0.1409)]
    p3 = [ffract(f32(px * k[0])), ffract(f32(py * k[1])), ffract(f32(px * k[2]))]
    c = f32(21.37)
    q = [f32(p3[1] + c), f32(p3[2] + c), f32(p3[0] + c)]
    d = dot3_f32(p3, q, variant)
    p3 = [f32(v + d) for v in p3]
    return [ffract(f32(f32(p3[0] + p3[1]) * p3[2])), ffract(f32(f32(p3[0] + p3[2]) * p3[1]))]


def value_noise(px, py, variant):
    ix, iy = math.floor(px), math.floor(py)
    fx, fy = f32(px - ix), f32(py - iy)
    ux, uy = fx * fx * (3 - 2 * fx), fy * fy * (3 - 2 * fy)
    a = hash12_f32(ix, iy, variant)
    b = hash12_f32(ix + 1, iy, variant)
    c = hash12_f32(ix, iy + 1, variant)
    d = hash12_f32(ix + 1, iy + 1, variant)
    return mix(mix(a, b, ux), mix(c, d, ux), uy)


def fbm(x, variant):
    px, py = x
    s, amp = 0.0, 0.5
    for _ in range(4):
        s += amp * value_noise(px, py, variant)
        px, py = f32(f32(px * 2) + f32(3.1)), f32(f32(py * 2) + f32(1.7))
        amp *= 0.5
    return [s]


def hash31_f32(x, variant):
    k = f32(0.1137)
    p = [ffract(f32(v * k)) for v in x]
    c = f32(31.32)
    q = [f32(p[2] + c), f32(p[1] + c), f32(p[0] + c)]
    d = dot3_f32(p, q, variant)
    p = [f32(v + d) for v in p]
    return [ffract(f32(f32(p[0] + p[1]) * p[2]))]


PI = 3.14159265


def ggx(x):
    nh, r = x
    a2 = (r * r) ** 2
    d = nh * nh * (a2 - 1) + 1
    return [a2 / (PI * d * d)]


def smith_g1(v, k):
    return v / (v * (1 - k) + k)


def geometry_smith(x):
    n, v, l, r = x[0:3], x[3:6], x[6:9], x[9]
    k = (r + 1) ** 2 / 8
    return [smith_g1(max(dot(n, v), 0.0), k) * smith_g1(max(dot(n, l), 0.0), k)]


def fresnel(x):
    c, f0 = x[0], x[1:]
    return [f + (1 - f) * (1 - c) ** 5 for f in f0]


def lambert(x):
    return [max(dot(normalize(x[:3]), normalize(x[3:])), 0.0) / PI]


def blinn_phong(x):
    n, l, v, sh = x[0:3], x[3:6], x[6:9], x[9]
    N = normalize(n)
    H = normalize(add(normalize(l), normalize(v)))
    spec = max(dot(N, H), 0.0) ** sh
    diff = max(dot(N, normalize(l)), 0.0)
    return [diff + spec * w for w in (1.0, 0.9, 0.8)]


def overlay1(b, s):
    return 2 * b * s if b < 0.5 else 1 - 2 * (1 - b) * (1 - s)


def soft_light(x):
    out = []
    for b, s in zip(x[:3], x[3:]):
        lo = 2 * b * s + b * b * (1 - 2 * s)
        hi = math.sqrt(b) * (2 * s - 1) + 2 * b * (1 - s)
        out.append(mix(lo, hi, step(0.5, s)))
    return out


def color_dodge(x):
    b, s = x
    return [1.0 if s >= 1 else min(b / (1 - s), 1.0)]


def alpha_over(x):
    src, dst = x[:4], x[4:]
    a = src[3] + dst[3] * (1 - src[3])
    rgb = [(s * src[3] + d * dst[3] * (1 - src[3])) / max(a, 1e-6) for s, d in zip(src[:3], dst[:3])]
    return rgb + [a]


def ease_in_out_cubic(x):
    t = x[0]
    return [4 * t ** 3 if t < 0.5 else 1 - (-2 * t + 2) ** 3 / 2]


def ease_out_elastic(x):
    t = x[0]
    if t <= 0:
        return [0.0]
    if t >= 1:
        return [1.0]
    return [2 ** (-10 * t) * math.sin((t * 10 - 0.75) * (2 * PI / 3)) + 1]


def ease_out_bounce(x):
    t = x[0]
    n1, d1 = 7.5625, 2.75
    if t < 1 / d1:
        return [n1 * t * t]
    if t < 2 / d1:
        t -= 1.5 / d1
        return [n1 * t * t + 0.75]
    if t < 2.5 / d1:
        t -= 2.25 / d1
        return [n1 * t * t + 0.9375]
    t -= 2.625 / d1
    return [n1 * t * t + 0.984375]


def ring(uv, radius, width):
    return smoothstep(width, 0.0, abs(length(uv) - radius))


def main_image(x):
    res = (640.0, 360.0)
    uv = [(2 * x[i] - res[i]) / res[1] for i in range(2)]
    r = ring(uv, 0.5, 0.05)
    col = vmix([0.1, 0.12, 0.2], [1.0, 0.8, 0.3], r)
    col = scale(col, 1 - 0.3 * dot(uv, uv))
    return col + [1.0]


def poly_horner(x):
    c = (1.0, -0.5, 0.25, -0.125, 0.0625)
    r = 0.0
    for k in reversed(c):
        r = r * x[0] + k
    return [r]


def bezier(x):
    p = [x[3 * i:3 * i + 3] for i in range(4)]
    t = x[12]
    for level in (3, 2, 1):
        for i in range(level):
            p[i] = vmix(p[i], p[i + 1], t)
    return p[0]


def rotation_z(x):
    c, s = math.cos(x[0]), math.sin(x[0])
    return [c, s, 0, -s, c, 0, 0, 0, 1]          # column by column


def transform_point(x):
    m = [x[0:3], x[3:6], x[6:9]]
    return add(mat_vec(m, x[9:12]), x[12:15])


def outer2(x):
    a, b = x[:2], x[2:]
    return [a[0] * b[0], a[1] * b[0], a[0] * b[1], a[1] * b[1]]


def split_matrix(x):
    c0, c1, tr = x[0:3], x[3:6], x[6]
    return c0 + c1 + [tr + c0[0] + c1[1]]


def globals_main(x):
    uv, t, n = x[0:2], x[2], x[3:6]
    nz = normalize(n)[2]
    pulse = 0.5 + 0.5 * math.sin(t)
    return [uv[0] * pulse, uv[1] * pulse, nz * 0.5 + 0.5, 1.0, uv[0] * uv[1]]


IN_MAT = [[0.59719, 0.35458, 0.04823], [0.07600, 0.90834, 0.01566], [0.02840, 0.13383, 0.83777]]
OUT_MAT = [[1.60475, -0.53108, -0.07367], [-0.10208, 1.10813, -0.00605], [-0.00327, -0.07276, 1.07602]]


def rrt_fit1(v):
    return (v * (v + 0.0245786) - 0.000090537) / (v * (0.983729 * v + 0.4329510) + 0.238081)


def filmic_matrix(x):
    c = hlsl_mul(IN_MAT, x)
    c = [rrt_fit1(v) for v in c]
    c = hlsl_mul(OUT_MAT, c)
    return [clamp(v, 0.0, 1.0) for v in c]


LUMA601 = (0.299, 0.587, 0.114)


def d_ggx(nh, a):
    a2 = a * a
    f = (nh * a2 - nh) * nh + 1
    return a2 / (f * f) * 0.31830988


def v_smith(nv, nl, a):
    a2 = a * a
    gv = nl * math.sqrt(nv * nv * (1 - a2) + a2)
    gl = nv * math.sqrt(nl * nl * (1 - a2) + a2)
    return 0.5 / (gv + gl)


def f_schlick(f0, voh):
    f = (1 - voh) ** 5
    return [f + c * (1 - f) for c in f0]


def specular_ggx(x):
    N, V, L, rough, f0 = x[0:3], x[3:6], x[6:9], x[9], x[10:13]
    H = normalize(add(V, L))
    nv = abs(dot(N, V)) + 1e-5
    nl = clamp(dot(N, L), 0, 1)
    nh = clamp(dot(N, H), 0, 1)
    lh = clamp(dot(L, H), 0, 1)
    a = rough * rough
    k = d_ggx(nh, a) * v_smith(nv, nl, a)
    return [k * f * nl for f in f_schlick(f0, lh)]


def decompose(x):
    n = length(x)
    return [n] + [v / n for v in x]


def rot2_rows(a):
    c, s = math.cos(a), math.sin(a)
    return [[c, -s], [s, c]]


def rot2(x):
    r = rot2_rows(x[0])
    return [r[0][0], r[1][0], r[0][1], r[1][1]]   # column by column


def rotate_uv(x):
    return hlsl_mul(rot2_rows(x[2]), x[:2])


def smooth_max(x):
    a, b, k = x
    h = clamp(0.5 + 0.5 * (a - b) / k, 0, 1)
    return [mix(b, a, h) + k * h * (1 - h)]


def checker(x):
    c = [math.floor(x[0] * x[2]), math.floor(x[1] * x[2])]
    return [math.fmod(abs(c[0] + c[1]), 2.0)]


def dither4(x):
    bayer = (0.0, 0.5, 0.75, 0.25)
    i = int(math.fmod(math.floor(x[0]), 2)) + 2 * int(math.fmod(math.floor(x[1]), 2))
    return [bayer[i]]


def reflect_view(x):
    i, n = normalize(x[:3]), normalize(x[3:])
    d = dot(n, i)
    return [a - 2 * d * b for a, b in zip(i, n)]


def face_normal(x):
    a, b, c = x[0:3], x[3:6], x[6:9]
    u, v = sub(b, a), sub(c, a)
    return normalize([u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]])


def fast_falloff(x):
    t = x[0] / x[1]
    s = (1 - t) ** 2
    return [s if t < 1 else (-s if t > 1 else 0.0)]


# ---------------------------------------------------------------- the cases

U = (0.0, 1.0)        # unit interval
S = (-1.0, 1.0)       # signed unit
P = (-4.0, 4.0)       # positions
HDR = (0.0, 16.0)
POS = (0.05, 1.0)     # strictly positive

ARITH = "a few correctly rounded + - * / (0.5-0.51 ulp each), no cancellation"


class Case:
    def __init__(self, file, entry, domain, ref, ulps, scale=0.0, why=ARITH, circular=False):
        self.file, self.entry, self.domain, self.ref = file, entry, domain, ref
        self.ulps, self.scale, self.why, self.circular = ulps, scale, why, circular
        # A reference of two arguments is float32-emulated and takes a dot variant.
        self.variants = DOT_VARIANTS if ref.__code__.co_argcount == 2 else (None,)


C = Case
CASES = [
    # tonemap.glsl
    C("tonemap.glsl", "reinhard", [HDR] * 3, reinhard, 4),
    C("tonemap.glsl", "reinhardWhite", [HDR] * 3 + [(1, 8)], reinhard_white, 8),
    C("tonemap.glsl", "filmic", [HDR], filmic, 8),
    C("tonemap.glsl", "shoulder", [HDR] * 3, shoulder, 16, 1.0,
      "about 10 roundings, then the constant E/F subtracted: bounded relative to the unit scale"),
    C("tonemap.glsl", "shoulderTonemap", [HDR] * 3 + [(0.5, 2)], shoulder_tonemap, 24, 1.0,
      "shoulder twice (16 ulp of 1 each) and a product"),
    C("tonemap.glsl", "exposeGamma", [U] * 3 + [(-2, 2)], expose_gamma, 8, 0.0,
      "exp2 0.95 ulp, a product, pow 1.68 ulp of a power 1/2.2 (damps the input error)"),
    # colorspace.glsl
    C("colorspace.glsl", "luminance", [U] * 3, lambda x: [dot(x, LUMA)], 4),
    C("colorspace.glsl", "srgbToLinear", [U], srgb_to_linear, 8, 0.0,
      "a division then pow 1.68 ulp; the exponent 2.4 multiplies the base's 1 ulp by 2.4"),
    C("colorspace.glsl", "linearToSrgbChannel", [U], lambda x: [lin_to_srgb1(x[0])], 8, 1.0,
      "pow 1.68 ulp, a multiply and a subtraction of 0.055 (absolute, unit scale)"),
    C("colorspace.glsl", "linearToSrgb", [U] * 3, lambda x: [lin_to_srgb1(v) for v in x], 8, 1.0,
      "as linearToSrgbChannel, per channel"),
    C("colorspace.glsl", "hsvToRgb", [U] * 3, hsv_to_rgb, 16, 1.0,
      "fract and abs are exact; one rounding of h + 1/3 is amplified by 6 before clamp"),
    C("colorspace.glsl", "rgbToHsv", [U] * 3, rgb_to_hsv, 8, 1.0,
      "one subtraction and a division (hue), exact min/max and comparisons"),
    C("colorspace.glsl", "rgbToYCoCg", [U] * 3, lambda x: mat_vec(
        [[0.25, 0.5, -0.25], [0.5, 0.0, 0.5], [0.25, -0.5, -0.25]], x), 4, 1.0,
      "a 3x3 matrix product: three roundings per row on values below 1"),
    # sdf.glsl
    C("sdf.glsl", "sdSphere", [P] * 3 + [(0.5, 2)], lambda x: [length(x[:3]) - x[3]], 8, 8.0,
      "length: dot (3 roundings) and sqrt 0.5 ulp; the subtraction cancels: scale |p|"),
    C("sdf.glsl", "sdBox", [P] * 3 + [(0.5, 2)] * 3, sd_box, 8, 8.0,
      "abs/max/min exact; length as in sdSphere; scale |p|"),
    C("sdf.glsl", "sdTorus", [P] * 3 + [(1, 2), (0.2, 0.5)], sd_torus, 8, 8.0,
      "two lengths and two subtractions; scale |p|"),
    C("sdf.glsl", "sdCapsule", [P] * 3 + [(-1, 1)] * 6 + [(0.1, 0.5)], sd_capsule, 32, 8.0,
      "dot/dot division feeds h (scaled by |b-a| ~ 2), then length; scale |p|"),
    C("sdf.glsl", "sdRoundRect", [P] * 2 + [(0.5, 2)] * 2 + [(0.05, 0.4)], sd_round_rect, 8, 8.0,
      "length and a few additions; scale |p|"),
    C("sdf.glsl", "smoothUnion", [P, P, (0.1, 1)], smooth_union, 32, 8.0,
      "(d2-d1)/k amplifies by 1/k <= 10 the rounding of d2-d1; mix then k*h*(1-h); scale |d|"),
    C("sdf.glsl", "opRepeat", [P] * 3 + [(0.5, 2)] * 3, op_repeat, 16, 8.0,
      "mod = x - y*floor(x/y) with the correctly rounded division (floor exact); scale |p|"),
    # noise.glsl
    C("noise.glsl", "hash12", [(-100, 100)] * 2, lambda x, v: [hash12_f32(x[0], x[1], v)], 64, 1.0,
      "float32-emulated reference; terms stay below 64 (ulp 2^-18) with no large multiplier "
      "after them, so reassociation or a fused dot moves the result by a few 2^-18",
      circular=True),
    C("noise.glsl", "hash22", [(-100, 100)] * 2, lambda x, v: hash22_f32(x[0], x[1], v), 64, 1.0,
      "as hash12", circular=True),
    C("noise.glsl", "valueNoise", [(-50, 50)] * 2, lambda x, v: [value_noise(x[0], x[1], v)], 64, 1.0,
      "bilinear mix of four hash12 values (each within 64 ulp of 1), floor/fract exact"),
    C("noise.glsl", "fbm", [(-20, 20)] * 2, fbm,  128, 1.0,
      "four valueNoise octaves with weights 1/2..1/16; the octave coordinates are "
      "emulated in float32 as the shader rounds them"),
    C("noise.glsl", "gradientDir", [U], lambda x: [math.cos(x[0] * 6.2831853),
                                                   math.sin(x[0] * 6.2831853)], 8, 1.0,
      "the argument's rounding (ulp 2^-21 at 6.3: 2 ulp of 1) plus sin/cos 1.49 ulp"),
    # brdf.glsl
    C("brdf.glsl", "ggxDistribution", [(0, 1), (0.2, 1)], ggx, 16, 0.0,
      "a2 after 3 products, d = fma-free nh^2(a2-1)+1 (d >= a2, no cancellation), a2/(pi d^2)"),
    C("brdf.glsl", "smithG1", [POS, U], lambda x: [smith_g1(*x)], 8),
    C("brdf.glsl", "geometrySmith", [S] * 9 + [U], geometry_smith, 16, 1.0,
      "two dots clamped at 0 (absolute error at unit scale), two smithG1"),
    C("brdf.glsl", "fresnelSchlick", [U] * 4, fresnel, 16, 1.0,
      "pow 1.68 ulp of (1-c)^5 (an exponent 5 amplifies the base's rounding 5x), unit scale"),
    C("brdf.glsl", "lambert", [S] * 6, lambert, 16, 1.0,
      "two normalize (inversesqrt 0.91 ulp) and a dot, unit scale"),
    C("brdf.glsl", "blinnPhong", [S] * 9 + [(1, 32)], blinn_phong, 512, 1.0,
      "pow(n.h, s) with s up to 32 multiplies the ~6 ulp error of n.h by s; unit scale"),
    # blend.glsl
    C("blend.glsl", "overlayChannel", [U] * 2, lambda x: [overlay1(*x)], 4, 1.0),
    C("blend.glsl", "blendOverlay", [U] * 6, lambda x: [overlay1(a, b) for a, b in zip(x[:3], x[3:])],
      4, 1.0),
    C("blend.glsl", "blendScreen", [U] * 6, lambda x: [1 - (1 - a) * (1 - b) for a, b in zip(x[:3], x[3:])],
      4, 1.0),
    C("blend.glsl", "blendSoftLight", [U] * 6, soft_light, 8, 1.0,
      "sqrt 0.5 ulp and a handful of products on unit values"),
    C("blend.glsl", "blendColorDodge", [U, (0, 0.9)], color_dodge, 4, 1.0),
    C("blend.glsl", "alphaOver", [U] * 4 + [U] * 3 + [(0.1, 1)], alpha_over, 16, 1.0,
      "a product chain and a division by a >= 0.1"),
    # easing.glsl
    C("easing.glsl", "easeInOutCubic", [U], ease_in_out_cubic, 8, 1.0,
      "pow 1.68 ulp of a value <= 1, halved and subtracted from 1"),
    C("easing.glsl", "easeInOutSine", [U], lambda x: [-(math.cos(PI * x[0]) - 1) / 2], 8, 1.0,
      "argument rounding (ulp of pi: 2 ulp of 1) plus cos 1.49 ulp"),
    C("easing.glsl", "easeOutElastic", [U], ease_out_elastic, 48, 1.0,
      "the sine's argument reaches 19.4 (ulp 2^-19 = 16 ulp of 1) before sin 1.49 ulp"),
    C("easing.glsl", "easeOutBounce", [U], ease_out_bounce, 8, 1.0),
    C("easing.glsl", "easeInExpo", [U], lambda x: [0.0 if x[0] == 0 else 2 ** (10 * x[0] - 10)], 16,
      0.0, "exp2 0.95 ulp of an argument up to 10 whose rounding (2^-20) scales the result by "
           "2^-20 ln 2, about 6 ulp"),
    # shadertoy.glsl
    C("shadertoy.glsl", "mainImage", [(0, 640), (0, 360)], main_image, 64, 1.0,
      "smoothstep's (x-e0)/(e1-e0) scales length()'s error by 1/0.05 = 20"),
    C("shadertoy.glsl", "ring", [S, S, (0.2, 0.8), (0.02, 0.1)],
      lambda x: [ring(x[:2], x[2], x[3])], 256, 1.0,
      "as mainImage with a width down to 0.02 (50x amplification)"),
    # arrays.glsl
    C("arrays.glsl", "polyHorner", [S], poly_horner, 8, 1.0, "four fused-free Horner steps"),
    C("arrays.glsl", "bezierCubic", [P] * 12 + [U], bezier, 16, 8.0,
      "six mixes of values up to 4 (2 roundings each), scale |p|"),
    C("arrays.glsl", "weightedSum", [S] * 8, lambda x: [dot(x[:4], x[4:])], 8, 4.0,
      "four products and sums; cancellation, so unit-times-4 scale"),
    C("arrays.glsl", "rotationZ", [(-3, 3)], rotation_z, 4, 1.0, "sin/cos 1.49 ulp"),
    C("arrays.glsl", "transformPoint", [S] * 15, transform_point, 8, 4.0,
      "a 3x3 product and an addition; cancellation, so scale 4"),
    C("arrays.glsl", "outerProduct2", [P] * 4, outer2, 1, 0.0, "one product each, exact rounding"),
    C("arrays.glsl", "splitMatrix", [P] * 7, split_matrix, 2, 8.0, "copies and two additions"),
    # math.glsl: the wider GLSL.std.450 set
    C("math.glsl", "reflectView", [S] * 6, reflect_view, 16, 1.0,
      "two normalize (inversesqrt 0.91 ulp), a dot and one fma-free update per lane"),
    C("math.glsl", "angleBetween", [S] * 6,
      lambda x: [math.acos(clamp(dot(normalize(x[:3]), normalize(x[3:])), -1, 1))], 64, 1.0,
      "the dot's few ulp of 1 times acos' slope 1/sqrt(1 - d^2), plus acos' own error"),
    C("math.glsl", "softClip", [(-2, 2), (0.5, 3)], lambda x: [math.tanh(x[0] * x[1]) / math.tanh(x[1])],
      16, 1.0, "two tanh and a division"),
    C("math.glsl", "toPolar", [S, S], lambda x: [math.hypot(x[0], x[1]), math.atan2(x[1], x[0])], 8, 1.0,
      "length (sqrt 0.5 ulp) and atan2 1.40 ulp"),
    C("math.glsl", "latitude", [S] * 3,
      lambda x: [math.asin(clamp(normalize(x)[1], -1, 1))], 64, 1.0,
      "normalize's few ulp times asin's slope near +-1"),
    C("math.glsl", "faceNormal", [S] * 9, face_normal, 64, 1.0,
      "cross products of differences cancel for thin triangles; normalize"),
    C("math.glsl", "logLuminance", [(0.01, 1)] * 3,
      lambda x: [math.log(max(dot(x, (0.25, 0.5, 0.25)), 1e-4))], 8, 1.0,
      "a dot and log 0.85 ulp (absolute at unit scale near log 1 = 0)"),
    C("math.glsl", "fastFalloff", [(0, 2), (0.5, 2)], fast_falloff, 16, 1.0,
      "inversesqrt 0.91 ulp, a product, the exact sign and a square"),
    # globals.frag (main)
    C("globals.frag", None, [U, U, (-3, 3), S, S, S], globals_main, 16, 1.0,
      "sin 1.49 ulp, normalize (inversesqrt 0.91) and products, unit scale"),
    # tonemap.hlsl
    C("tonemap.hlsl", "RrtOdtFit", [HDR] * 3, lambda x: [rrt_fit1(v) for v in x], 16, 1.0,
      "two quadratics and a division; the numerator's -9e-5 cancels near 0 (unit scale)"),
    C("tonemap.hlsl", "FilmicMatrixTonemap", [(0, 4)] * 3, filmic_matrix, 32, 1.0,
      "two 3x3 products around RrtOdtFit; the output matrix has entries up to 1.6"),
    C("tonemap.hlsl", "ExposureCurve", [U] * 3 + [(0.5, 4)], lambda x: [1 - math.exp(-v * x[3]) for v in x[:3]],
      8, 1.0, "exp 1.06 ulp of a product, subtracted from 1 (unit scale)"),
    # color.hlsl
    C("color.hlsl", "Luma", [U] * 3, lambda x: [dot(x, LUMA601)], 4),
    C("color.hlsl", "AdjustSaturation", [U] * 3 + [(0, 2)],
      lambda x: [mix(dot(x[:3], LUMA601), v, x[3]) for v in x[:3]], 8, 1.0,
      "a dot and a lerp, unit scale"),
    C("color.hlsl", "LinearToGamma", [U] * 3, lambda x: [v ** (1 / 2.2) for v in x], 8, 0.0,
      "pow 1.68 ulp"),
    C("color.hlsl", "ContrastAround", [U] * 3 + [(0.5, 2), U],
      lambda x: [clamp((v - x[4]) * x[3] + x[4], 0, 1) for v in x[:3]], 8, 1.0,
      "three roundings, unit scale"),
    C("color.hlsl", "Premultiply", [U] * 4, lambda x: [v * x[3] for v in x[:3]] + [x[3]], 1),
    # lighting.hlsl
    C("lighting.hlsl", "D_GGX", [U, (0.1, 1)], lambda x: [d_ggx(*x)], 16, 0.0,
      "as ggxDistribution"),
    C("lighting.hlsl", "V_SmithCorrelated", [POS, POS, (0.1, 1)], lambda x: [v_smith(*x)], 16, 0.0,
      "two sqrt (0.5 ulp) of sums of positive terms, a division"),
    C("lighting.hlsl", "F_Schlick", [U] * 3 + [U], lambda x: f_schlick(x[:3], x[3]), 16, 1.0,
      "as fresnelSchlick"),
    C("lighting.hlsl", "SpecularGGX", [S] * 9 + [(0.3, 1)] + [U] * 3, specular_ggx, 2048, 1.0,
      "a product of D (1/a^2 up to 1/0.0081), V and F; each dot's unit-scale error is "
      "amplified by D's steepness near n.h = 1"),
    C("lighting.hlsl", "HalfLambert", [S] * 6, lambda x: [(dot(x[:3], x[3:]) * 0.5 + 0.5) ** 2], 16, 1.0,
      "a dot and a square, unit scale"),
    # util.hlsl
    C("util.hlsl", "Decompose", [P] * 3, decompose, 8, 1.0, "length then a division per lane"),
    C("util.hlsl", "Accumulate", [P] * 3 + [U] * 3 + [U],
      lambda x: [a + c * x[6] for a, c in zip(x[:3], x[3:6])], 2, 4.0, "one product, one sum"),
    C("util.hlsl", "Remap", [U, (-1, -0.5), (0.5, 1), P, P],
      lambda x: [x[3] + (x[0] - x[1]) * (x[4] - x[3]) / (x[2] - x[1])], 16, 8.0,
      "four roundings and a division; scale |out|"),
    C("util.hlsl", "Rot2", [(-3, 3)], rot2, 4, 1.0, "sin/cos 1.49 ulp"),
    C("util.hlsl", "RotateUV", [S, S, (-3, 3)], rotate_uv, 8, 1.0,
      "sin/cos 1.49 ulp and a 2x2 product"),
    C("util.hlsl", "Scale3", [P] * 3, lambda x: [x[0], 0, 0, 0, x[1], 0, 0, 0, x[2]], 0, 0.0,
      "copies: exact"),
    C("util.hlsl", "SumSquares", [P] * 4, lambda x: [dot(x, x)], 4),
    # noise.hlsl
    C("noise.hlsl", "Hash31", [(-100, 100)] * 3, hash31_f32, 64, 1.0, "as hash12", circular=True),
    C("noise.hlsl", "SmoothMax", [P, P, (0.1, 1)], smooth_max, 32, 8.0, "as smoothUnion"),
    C("noise.hlsl", "SdOctahedron", [P] * 3 + [(0.5, 2)],
      lambda x: [(sum(abs(v) for v in x[:3]) - x[3]) * 0.57735027], 8, 8.0,
      "three additions and a product; scale |p|"),
    C("noise.hlsl", "Checker", [(-4, 4), (-4, 4), (1, 8)], checker, 0, 1.0,
      "floor, abs and fmod of small integers are exact"),
    C("noise.hlsl", "Dither4", [(0, 16)] * 2, dither4, 0, 1.0, "table lookup: exact"),
]

# Cases that do not compile or do not match yet, with the reason (docs/SPIRV.md).
EXPECTED_FAIL = {}

NSAMPLES = 32


def samples(case):
    rng = random.Random(f"{case.file}:{case.entry}")
    rows = []
    for _ in range(NSAMPLES):
        rows.append([f32(rng.uniform(lo, hi)) for lo, hi in case.domain])
    return rows


def check(case, args):
    name = f"{case.file}:{case.entry or 'main'}"
    path = os.path.join(args.dir, case.file)
    tag = name.replace(":", "_").replace(".", "_")
    out = os.path.join(args.tmp, tag + ".fmag")
    cmd = [args.slc, path, "-o", out] + (["-entry", case.entry] if case.entry else []) + args.flag
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        msg = (r.stderr.strip().splitlines() or ["(no message)"])[0]
        return "compile", msg
    rows = samples(case)
    csv = os.path.join(args.tmp, tag + ".csv")
    with open(csv, "w") as f:
        for row in rows:
            f.write(",".join(repr(v) for v in row) + "\n")
    r = subprocess.run([args.run, out, "--in-file", csv], capture_output=True, text=True)
    if r.returncode != 0:
        return "run", (r.stderr.strip().splitlines() or ["(no message)"])[0]
    lines = r.stdout.strip().splitlines()
    if len(lines) != len(rows):
        return "run", f"{len(lines)} output lines for {len(rows)} inputs"
    worst = 0.0
    for row, line in zip(rows, lines):
        got = [f32(float(v)) for v in line.split()]
        best = None  # (excess, worst ulp, message) of the best dot variant
        for variant in case.variants:
            ref = case.ref(row) if variant is None else case.ref(row, variant)
            if len(got) != len(ref):
                return "match", f"{len(got)} outputs, the formula has {len(ref)}"
            excess, wulp, msg = 0.0, 0.0, ""
            for k, (g, e) in enumerate(zip(got, ref)):
                d = abs(g - e)
                if case.circular:
                    d = min(d, abs(1.0 - d))
                unit = max(abs(e), case.scale) * ULP
                ulps = d / unit if unit else (0.0 if d == 0 else math.inf)
                wulp = max(wulp, ulps)
                if ulps > case.ulps and ulps - case.ulps > excess:
                    excess = ulps - case.ulps
                    msg = (f"input {row} output {k}: got {g!r}, formula {e!r} "
                           f"({ulps:.3g} ulp, budget {case.ulps})")
            if best is None or (excess, wulp) < best[:2]:
                best = (excess, wulp, msg)
        if best[0] > 0:
            return "match", best[2]
        worst = max(worst, best[1])
    return "ok", f"worst {worst:.2f} ulp (budget {case.ulps})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slc", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--dir", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--only", help="check one case, FILE:ENTRY")
    ap.add_argument("--flag", action="append", default=[], help="pass this flag to slc (-O0 ...)")
    ap.add_argument("--list", action="store_true", help="print every case with its budget")
    args = ap.parse_args()
    if args.list:
        for c in CASES:
            print(f"{c.file}:{c.entry or 'main'}  {c.ulps} ulp  scale {c.scale}  {c.why}")
        return 0
    os.makedirs(args.tmp, exist_ok=True)
    counts = {"ok": 0, "compile": 0, "run": 0, "match": 0}
    unexpected = 0
    for case in CASES:
        name = f"{case.file}:{case.entry or 'main'}"
        if args.only and args.only != name:
            continue
        status, detail = check(case, args)
        counts[status] += 1
        expected = EXPECTED_FAIL.get(name)
        if status == "ok":
            print(f"PASS {name}: {detail}" + (" (listed as expected to fail)" if expected else ""))
        elif expected:
            print(f"XFAIL {name}: {status}: {detail} [{expected}]")
        else:
            print(f"FAIL {name}: {status}: {detail}")
            unexpected += 1
    total = sum(counts.values())
    compiled = total - counts["compile"]
    glsl = sum(1 for c in CASES if not c.file.endswith(".hlsl"))
    print(f"corpus: {total} functions ({glsl} GLSL, {total - glsl} HLSL), {compiled} compile, "
          f"{counts['ok']} match")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
