#!/usr/bin/env python3
"""Integer hash functions compiled from GLSL and HLSL (hashes.glsl, hashes.hlsl),
checked bit for bit against Python's own integers (the oracle below, written from the
algorithms' definitions and masked to 32 bits) on many keys.

A key is 32 bits passed as two 16-bit halves (a, b) = (key >> 16, key & 0xFFFF) and
the hash comes back as (lo, hi) 16-bit halves, so every bit of the key and of the
result is exercised and compared. Engines: `fir` runs the IR before legalization in
the IR interpreter (`slc -emit-ir`, `fmag-run x.fir`); `ref`, `batch`, `vulkan` run the
compiled program on that fmag-run backend.

    int_hash.py --slc slc --run fmag-run --tmp DIR --engines fir,ref,batch [--count N]

Prints one line per (language, hash, engine): `glsl h_pcg ref: 100016 keys, 0
mismatches`, then the first mismatches if any, and exits 1 when any differ.
"""
import argparse
import os
import random
import subprocess
import sys

M = 0xFFFFFFFF
HERE = os.path.dirname(os.path.abspath(__file__))


def rotl(x, k):
    return ((x << k) | (x >> (32 - k))) & M


def pcg_hash(v):
    state = (v * 747796405 + 2891336453) & M
    word = (((state >> ((state >> 28) + 4)) ^ state) * 277803737) & M
    return (word >> 22) ^ word


def xxh32_avalanche(h):
    h ^= h >> 15
    h = (h * 2246822519) & M
    h ^= h >> 13
    h = (h * 3266489917) & M
    h ^= h >> 16
    return h


def xxhash32(p, seed):
    h = (seed + 374761393 + 4) & M
    h = (h + p * 3266489917) & M
    h = (668265263 * rotl(h, 17)) & M
    return xxh32_avalanche(h)


def fmix32(h):
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M
    h ^= h >> 16
    return h


def wang_hash(s):
    s = (s ^ 61) ^ (s >> 16)
    s = (s * 9) & M
    s ^= s >> 4
    s = (s * 0x27D4EB2D) & M
    s ^= s >> 15
    return s


def jenkins_hash(x, y):
    a = b = c = (0xDEADBEEF + (2 << 2) + 13) & M
    a = (a + (x & M)) & M
    b = (b + (y & M)) & M
    c ^= b; c = (c - rotl(b, 14)) & M
    a ^= c; a = (a - rotl(c, 11)) & M
    b ^= a; b = (b - rotl(a, 25)) & M
    c ^= b; c = (c - rotl(b, 16)) & M
    a ^= c; a = (a - rotl(c, 4)) & M
    b ^= a; b = (b - rotl(a, 14)) & M
    c ^= b; c = (c - rotl(b, 24)) & M
    return c


def iq_hash(n):
    n = ((n << 13) & M) ^ n
    return (n * ((n * n * 15731 + 789221) & M) + 1376312589) & M


def iq_hash2(x, y):
    qx = (1103515245 * ((x >> 1) ^ y)) & M
    qy = (1103515245 * ((y >> 1) ^ x)) & M
    return (1103515245 * (qx ^ (qy >> 3))) & M


def key(hi, lo):
    return (hi << 16) | lo


ORACLE = {
    "h_pcg": lambda a, b: pcg_hash(key(a, b)),
    "h_xxa": lambda a, b: xxh32_avalanche(key(a, b)),
    "h_xx": lambda a, b: xxhash32(key(a, b), 0x9E3779B9),
    "h_fmix": lambda a, b: fmix32(key(a, b)),
    "h_wang": lambda a, b: wang_hash(key(a, b)),
    "h_jenkins": lambda a, b: jenkins_hash(a - 32768, b - 32768),
    "h_iq": lambda a, b: iq_hash(key(a, b)),
    "h_iq2": lambda a, b: iq_hash2(key(a, b), key(b, a) ^ 0x5BD1E995),
}


def keys(count, seed):
    rng = random.Random(seed)
    edge = [0, 1, 2, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF]
    ks = [(a, b) for a in edge for b in edge]
    while len(ks) < count:
        ks.append((rng.getrandbits(16), rng.getrandbits(16)))
    return ks


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), (r.stderr or r.stdout).strip()))
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--slc", default="slc")
    ap.add_argument("--run", default="fmag-run")
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--engines", default="fir")
    ap.add_argument("--langs", default="glsl,hlsl")
    ap.add_argument("--hashes", default=",".join(ORACLE))
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=27)
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    ks = keys(a.count, a.seed)
    inputs = os.path.join(a.tmp, "keys.csv")
    with open(inputs, "w") as f:
        f.write("".join("%d,%d\n" % k for k in ks))
    failed = False
    for lang in a.langs.split(","):
        src = os.path.join(HERE, "hashes." + lang)
        for name in a.hashes.split(","):
            want = [ORACLE[name](x, y) for x, y in ks]
            for engine in a.engines.split(","):
                if engine == "fir":
                    prog = os.path.join(a.tmp, "%s_%s.fir" % (lang, name))
                    run([a.slc, src, "-entry", name, "-emit-ir", "-o", prog])
                    cmd = [a.run, prog, "--in-file", inputs]
                else:
                    prog = os.path.join(a.tmp, "%s_%s.fmag" % (lang, name))
                    if not os.path.exists(prog):
                        run([a.slc, src, "-entry", name, "-o", prog])
                    cmd = [a.run, prog, "--backend", engine, "--in-file", inputs]
                lines = run(cmd).split("\n")
                bad = []
                for i, (k, w) in enumerate(zip(ks, want)):
                    got = lines[i].split() if i < len(lines) else []
                    ok = len(got) == 2 and got[0] == str(w & 0xFFFF) and got[1] == str(w >> 16)
                    if not ok:
                        bad.append((k, w, got))
                print("%s %s %s: %d keys, %d mismatches" % (lang, name, engine, len(ks), len(bad)))
                for (x, y), w, got in bad[:5]:
                    print("  key 0x%04x%04x: want 0x%08x (%d %d), got %s"
                          % (x, y, w, w & 0xFFFF, w >> 16, " ".join(got) or "nothing"))
                failed |= bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
