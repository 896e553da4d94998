"""The reference noises of MaterialX's GLSL noise library, transcribed into Python
from the algorithms (Jenkins' lookup3 final mix and mix, Perlin gradient noise with
the quintic fade and MaterialX's gradient selection and scales, cell noise, Worley
noise, the fractal sum): the oracle test/MaterialX/noise.test checks lib/MaterialX's
IR against. Float arithmetic is float32 as in GLSL: every operation is done in double
and rounded to float32 with f32() (exact for one +, - or * of float32 operands);
integers are 32-bit."""
import math
import struct


def f32(x):
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]

M = 0xFFFFFFFF


def rotl(x, k):
    return ((x << k) | (x >> (32 - k))) & M


def bjmix(a, b, c):
    a = (a - c) & M; a ^= rotl(c, 4); c = (c + b) & M
    b = (b - a) & M; b ^= rotl(a, 6); a = (a + c) & M
    c = (c - b) & M; c ^= rotl(b, 8); b = (b + a) & M
    a = (a - c) & M; a ^= rotl(c, 16); c = (c + b) & M
    b = (b - a) & M; b ^= rotl(a, 19); a = (a + c) & M
    c = (c - b) & M; c ^= rotl(b, 4); b = (b + a) & M
    return a, b, c


def bjfinal(a, b, c):
    c ^= b; c = (c - rotl(b, 14)) & M
    a ^= c; a = (a - rotl(c, 11)) & M
    b ^= a; b = (b - rotl(a, 25)) & M
    c ^= b; c = (c - rotl(b, 16)) & M
    a ^= c; a = (a - rotl(c, 4)) & M
    b ^= a; b = (b - rotl(a, 14)) & M
    c ^= b; c = (c - rotl(b, 24)) & M
    return c


def hash_int(*xs):
    n = len(xs)
    seed = (0xDEADBEEF + (n << 2) + 13) & M
    xs = [x & M for x in xs]
    if n == 1:
        return bjfinal((seed + xs[0]) & M, seed, seed)
    a = (seed + xs[0]) & M
    b = (seed + xs[1]) & M
    c = (seed + xs[2]) & M if n >= 3 else seed
    if n > 3:
        a, b, c = bjmix(a, b, c)
        a = (a + xs[3]) & M
        if n > 4:
            b = (b + xs[4]) & M
    return bjfinal(a, b, c)


def floorfrac(x):
    fl = f32(math.floor(x))
    return int(fl), f32(f32(x) - fl)


def fade(t):
    t = f32(t)
    return f32(t * t * t * f32(t * f32(t * f32(6) - f32(15)) + f32(10)))


def grad2(h, x, y):
    h &= 7
    u = x if h < 4 else y
    v = f32(2) * (y if h < 4 else x)
    return f32((-u if h & 1 else u) + (-v if h & 2 else v))


def grad3(h, x, y, z):
    h &= 15
    u = x if h < 8 else y
    v = y if h < 4 else (x if h in (12, 14) else z)
    return f32((-u if h & 1 else u) + (-v if h & 2 else v))


def lerp(a, b, t):
    return f32(a * f32(f32(1) - t) + b * t)


def perlin(p, nout=1):
    """p: 2 or 3 floats; nout 1 (float) or 3 (one byte of the hash per channel)."""
    dim = len(p)
    I, f = zip(*[floorfrac(f32(v)) for v in p])
    w = [fade(t) for t in f]
    out = []
    for ch in range(nout):
        vals = []
        for c in range(1 << dim):
            ci = [I[k] + ((c >> k) & 1) for k in range(dim)]
            fc = [f32(f[k] - f32((c >> k) & 1)) for k in range(dim)]
            h = hash_int(*ci)
            if nout == 3:
                h = (h >> (8 * ch)) & 0xFF
            vals.append(grad2(h, *fc) if dim == 2 else grad3(h, *fc))
        m = len(vals)
        for k in range(dim):
            m //= 2
            vals = [lerp(vals[2 * c], vals[2 * c + 1], w[k]) for c in range(m)]
        out.append(f32(f32(0.6616 if dim == 2 else 0.9820) * vals[0]))
    return out


def bits_to_01(h):
    return f32(f32(h) * f32(1.0 / 4294967296.0))


def cellnoise(p, nout=1):
    I = [int(math.floor(f32(v))) for v in p]
    if nout == 1:
        return [bits_to_01(hash_int(*I))]
    return [bits_to_01(hash_int(*I, ch)) for ch in range(nout)]


def worley(p, jitter=1.0, metric=0, nout=None):
    """F1 (nout None: the float), or [F1, F2] / [F1, F2, F3] (nout 2, 3): the distances to
    the nearest jittered points, kept sorted by the reference's if/else chain."""
    dim = len(p)
    I, loc = zip(*[floorfrac(f32(v)) for v in p])
    sq = [f32(1e6)] * 3
    rng = [(x, y, z) for x in (-1, 0, 1) for y in (-1, 0, 1) for z in ((-1, 0, 1) if dim == 3 else (0,))]
    for off in rng:
        ci = [I[k] + off[k] for k in range(dim)]
        jit = [bits_to_01(hash_int(*ci, ch)) for ch in range(3)]
        diff = [f32(f32(off[k]) + f32((jit[k] - f32(0.5)) * f32(jitter) + f32(0.5)) - loc[k])
                for k in range(dim)]
        if metric == 2:
            d = f32(sum(abs(x) for x in diff))
        elif metric == 3:
            d = f32(max(abs(x) for x in diff))
        else:
            d = f32(sum(x * x for x in diff))
        if d < sq[0]:
            sq = [d, sq[0], sq[1]]
        elif d < sq[1]:
            sq = [sq[0], d, sq[1]]
        elif d < sq[2]:
            sq[2] = d
    res = [f32(math.sqrt(v)) if metric == 0 else v for v in sq]
    return res[0] if nout is None else res[:nout]


def fractal(p, nout=1, octaves=3, lacunarity=2.0, diminish=0.5):
    res = [f32(0)] * nout
    amp = f32(1)
    q = [f32(v) for v in p]
    for _ in range(octaves):
        v = perlin(q, nout)
        res = [f32(res[i] + amp * v[i]) for i in range(nout)]
        amp = f32(amp * f32(diminish))
        q = [f32(x * f32(lacunarity)) for x in q]
    return res
