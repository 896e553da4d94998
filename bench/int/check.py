#!/usr/bin/env python3
"""The hashes of bench/int, compiled by slc, against Python's integers (the oracle
functions of test/SPIRV/Inputs/int_hash.py) on N keys each, on the reference VM and
the batch engine; then each one's throughput on the batch engine.

    python3 bench/int/check.py [--build build] [--count 10000] [--bench 1000000]

Keys are floats holding integers (an export's u32/i32 parameter takes the input's
integer part): random ones below 2^24, multiples of 256 up to 2^32 (exact floats),
and edges; the 32-bit hash comes out as two 16-bit halves."""
import argparse
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "SPIRV", "Inputs"))
import int_hash as H  # noqa: E402

ORACLE = {  # program: (number of inputs, signed inputs, hash of the input integers)
    "pcg": (1, False, H.pcg_hash),
    "xxh32_avalanche": (1, False, H.xxh32_avalanche),
    "xxh32": (1, False, lambda p: H.xxhash32(p, 0x9E3779B9)),
    "fmix32": (1, False, H.fmix32),
    "wang": (1, False, H.wang_hash),
    "lookup3": (2, True, H.jenkins_hash),
    "iq": (1, False, H.iq_hash),
    "iq2": (2, False, H.iq_hash2),
}


def key(rng, signed):
    c = rng.randrange(4)
    if c == 0:
        k = rng.choice([0, 1, 2, 255, 65535, 65536, (1 << 24) - 1, 1 << 24])
    elif c == 1:
        k = rng.randrange(1 << 24) << 8  # exact floats up to 2^32
    else:
        k = rng.randrange(1 << 24)
    if signed:
        k = (k % (1 << 31)) * rng.choice([1, -1])
    return k


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--bench", type=int, default=1000000)
    a = ap.parse_args()
    slc, fr, asm = (os.path.join(a.build, "bin", t) for t in ("slc", "fmag-run", "fmag-as"))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (nin, signed, fn) in ORACLE.items():
            prog = os.path.join(tmp, name + ".fmag")
            run([slc, os.path.join(HERE, name + ".sl"), "-o", prog])
            info = run([asm, "-i", prog])
            ninstr = info.split("instructions=")[1].split()[0]
            rng = random.Random(27)
            keys = [[key(rng, signed) for _ in range(nin)] for _ in range(a.count)]
            path = os.path.join(tmp, name + ".csv")
            with open(path, "w") as f:
                f.writelines(",".join("%d" % k for k in ks) + "\n" for ks in keys)
            want = []
            for ks in keys:
                h = fn(*[k & H.M for k in ks]) if not signed else fn(*ks)
                want.append((h >> 16, h & 0xFFFF))
            for engine in ("ref", "batch"):
                out = run([fr, prog, "--backend", engine, "--in-file", path]).split("\n")
                got = [tuple(int(float(v)) for v in line.split()) for line in out if line]
                miss = sum(1 for w, g in zip(want, got) if w != g) + abs(len(got) - len(want))
                bad += miss
                print(f"{name} {engine}: {len(want)} keys, {miss} mismatches")
            if a.bench:
                b = run([fr, prog, "--backend", "batch", "--threads", "1", "--bench",
                         str(a.bench)])
                rate = b.split(" elements/s")[0].split()[-1]
                print(f"{name}: {ninstr} instructions, batch engine 1 thread {rate} elements/s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
