#!/usr/bin/env python3
"""GLSL's pack/unpack builtins (packHalf2x16, packUnorm4x8, ... and their unpack forms)
compiled with slc, checked bit for bit against NumPy (float16 conversion, float32
arithmetic with round half to even) on every 16-bit half and every byte, and on many
floats, special ones included (half denormals, the ties, the overflow boundary).

    int_pack.py --slc slc --run fmag-run --tmp DIR [--engines fir,ref,batch]

The GLSL definitions (4.60 §8.4): packUnorm: round(clamp(c, 0, 1) * (2^n - 1)),
packSnorm: round(clamp(c, -1, 1) * (2^(n-1) - 1)), round half to even;
unpackUnorm: f / (2^n - 1); unpackSnorm: clamp(f / (2^(n-1) - 1), -1, 1).
packHalf2x16 of -0.0 gives +0.0's half (0x0000) here: the IR's bit cast cannot tell
-0.0 from +0.0 (SPEC §2b), so the oracle does the same.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

SRC = r"""
uint key(float hi, float lo) { return (uint(hi) << 16) | uint(lo); }
vec2 halves(uint h) { return vec2(float(h & 0xFFFFu), float(h >> 16)); }
void p_half(float x, float y, out vec2 r) { r = halves(packHalf2x16(vec2(x, y))); }
void u_half(float hi, float lo, out vec2 r) { r = unpackHalf2x16(key(hi, lo)); }
void p_unorm4(vec4 v, out vec2 r) { r = halves(packUnorm4x8(v)); }
void u_unorm4(float hi, float lo, out vec4 r) { r = unpackUnorm4x8(key(hi, lo)); }
void p_snorm4(vec4 v, out vec2 r) { r = halves(packSnorm4x8(v)); }
void u_snorm4(float hi, float lo, out vec4 r) { r = unpackSnorm4x8(key(hi, lo)); }
void p_unorm2(vec2 v, out vec2 r) { r = halves(packUnorm2x16(v)); }
void u_unorm2(float hi, float lo, out vec2 r) { r = unpackUnorm2x16(key(hi, lo)); }
void p_snorm2(vec2 v, out vec2 r) { r = halves(packSnorm2x16(v)); }
void u_snorm2(float hi, float lo, out vec2 r) { r = unpackSnorm2x16(key(hi, lo)); }
"""

F = np.float32


def half_bits(x):
    x = F(x)
    if x == 0:
        return 0  # -0.0 included: the IR's exception
    with np.errstate(over="ignore"):  # past 65520: infinity, as wanted
        return int(np.array([x], dtype=np.float32).astype(np.float16).view(np.uint16)[0])


def pack_norm(vals, bits, signed):
    scale = F((1 << (bits - 1)) - 1 if signed else (1 << bits) - 1)
    lo = F(-1.0) if signed else F(0.0)
    out = 0
    for k, c in enumerate(vals):
        q = int(np.rint(np.clip(F(c), lo, F(1.0)) * scale))
        out |= (q & ((1 << bits) - 1)) << (k * bits)
    return out


def unpack_norm(u, n, bits, signed):
    scale = F((1 << (bits - 1)) - 1 if signed else (1 << bits) - 1)
    out = []
    for k in range(n):
        v = (u >> (k * bits)) & ((1 << bits) - 1)
        if signed and v >> (bits - 1):
            v -= 1 << bits
        f = F(v) / scale
        out.append(float(np.clip(f, F(-1.0), F(1.0)) if signed else f))
    return out


def halves(h):
    return [float(h & 0xFFFF), float(h >> 16)]


def float_inputs(rng, count):
    """Floats for the pack functions: specials, half boundaries and ties, random."""
    special = [0.0, -0.0, 1.0, -1.0, 0.5, 65504.0, 65519.996, 65520.0, 65536.0, 1e9, -1e9,
               2.0 ** -14, 2.0 ** -24, 2.0 ** -25, 1.5 * 2.0 ** -25, 2.0 ** -26, 3.0 * 2.0 ** -25,
               1.0 + 2.0 ** -11, 1.0 + 3.0 * 2.0 ** -11, 1.0 + 2.0 ** -11 + 2.0 ** -20,
               0.0019607844, 0.5 / 255.0, 1.5 / 255.0, 2.5 / 255.0, 0.5 / 127.0, 1.00001, -1.00001,
               1e-40, -1e-40, 6.1e-5, 6.0e-8]
    xs = [F(x) for x in special]
    bits = rng.integers(0, 1 << 32, size=count, dtype=np.uint64).astype(np.uint32)
    wide = bits.view(np.float32)
    wide = wide[np.isfinite(wide)]
    xs += list(wide[: count // 2])
    xs += list(rng.uniform(-1.5, 1.5, size=count // 2).astype(np.float32))
    xs += list((rng.integers(-70000, 70000, size=count // 4) * F(2.0 ** -10)).astype(np.float32))
    return xs


def fmt(x):
    return "%.9g" % float(x)


def same(got, want, signed_zero):
    """Bit for bit (%.9g reads back to the same float32); +0 and -0 count equal on the
    compiled engines, as FMAG's strict contract counts them (SPEC §2): the optimizer
    may turn one into the other. The IR interpreter keeps the sign."""
    g, w = F(float(got)), F(want)
    if np.isnan(w):
        return bool(np.isnan(g))
    if g == 0 and w == 0 and not signed_zero:
        return True
    return g.view(np.uint32) == w.view(np.uint32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--slc", default="slc")
    ap.add_argument("--run", default="fmag-run")
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--engines", default="fir")
    ap.add_argument("--count", type=int, default=20000)
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    src = os.path.join(a.tmp, "pack.glsl")
    open(src, "w").write(SRC)
    rng = np.random.default_rng(27)
    fl = float_inputs(rng, a.count)
    every16 = [(0, lo) for lo in range(65536)] + [(hi, 0) for hi in range(65536)]
    bytes4 = [(v >> 16, v & 0xFFFF) for v in
              [b * 0x01010101 for b in range(256)] + list(rng.integers(0, 1 << 32, size=a.count))]
    cases = {
        "p_half": ([(x, fl[(i * 7 + 3) % len(fl)]) for i, x in enumerate(fl)],
                   lambda x, y: halves(half_bits(x) | half_bits(y) << 16)),
        "u_half": (every16, lambda hi, lo: [float(np.array([(hi << 16 | lo) & 0xFFFF], np.uint16)
                                                 .view(np.float16)[0].astype(np.float32)),
                                            float(np.array([hi], np.uint16).view(np.float16)[0]
                                                  .astype(np.float32))]),
        "p_unorm4": ([tuple(fl[(i + k * 101) % len(fl)] for k in range(4)) for i in range(len(fl))],
                     lambda *v: halves(pack_norm(v, 8, False))),
        "u_unorm4": (bytes4, lambda hi, lo: unpack_norm(hi << 16 | lo, 4, 8, False)),
        "p_snorm4": ([tuple(fl[(i + k * 103) % len(fl)] for k in range(4)) for i in range(len(fl))],
                     lambda *v: halves(pack_norm(v, 8, True))),
        "u_snorm4": (bytes4, lambda hi, lo: unpack_norm(hi << 16 | lo, 4, 8, True)),
        "p_unorm2": ([(x, fl[(i * 5 + 1) % len(fl)]) for i, x in enumerate(fl)],
                     lambda *v: halves(pack_norm(v, 16, False))),
        "u_unorm2": (every16, lambda hi, lo: unpack_norm(hi << 16 | lo, 2, 16, False)),
        "p_snorm2": ([(x, fl[(i * 5 + 2) % len(fl)]) for i, x in enumerate(fl)],
                     lambda *v: halves(pack_norm(v, 16, True))),
        "u_snorm2": (every16, lambda hi, lo: unpack_norm(hi << 16 | lo, 2, 16, True)),
    }
    failed = False
    for name, (inputs, oracle) in cases.items():
        path = os.path.join(a.tmp, name + ".csv")
        with open(path, "w") as f:
            f.write("".join(",".join(fmt(v) for v in row) + "\n" for row in inputs))
        for engine in a.engines.split(","):
            if engine == "fir":
                prog = os.path.join(a.tmp, name + ".fir")
                subprocess.run([a.slc, src, "-entry", name, "-emit-ir", "-o", prog], check=True)
                cmd = [a.run, prog, "--in-file", path]
            else:
                prog = os.path.join(a.tmp, name + ".fmag")
                subprocess.run([a.slc, src, "-entry", name, "-o", prog], check=True)
                cmd = [a.run, prog, "--backend", engine, "--in-file", path]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split("\n")
            bad = []
            for i, row in enumerate(inputs):
                want = oracle(*row)
                got = out[i].split() if i < len(out) else []
                if len(got) != len(want) or not all(same(g, w, engine == "fir")
                                                    for g, w in zip(got, want)):
                    bad.append((row, want, got))
            print("%s %s: %d inputs, %d mismatches" % (name, engine, len(inputs), len(bad)))
            for row, want, got in bad[:5]:
                print("  %s: want %s, got %s" % (" ".join(fmt(v) for v in row),
                                                  " ".join(fmt(w) for w in want), " ".join(got)))
            failed |= bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
