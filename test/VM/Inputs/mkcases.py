#!/usr/bin/env python3
"""Writes a .fmas file of deterministic pseudo-random programs (every operand
kind, computed and literal guards) and a per-lane CSV of 4000 elements with
special inputs (+-0, denormals, inf, nan, huge and tiny values), for comparing
engines with each other."""
import random
import struct
import sys

rng = random.Random(20261129)
SPECIAL = ["0", "-0", "1", "-1", "0.5", "1e-45", "-1e-45", "1.17549435e-38", "3.4028235e38",
           "-3.4028235e38", "inf", "-inf", "nan", "16777216", "0x1.fffffep-1", "7.25"]
LITS = ["0", "-0.0", "1", "-1", "2", "0.5", "-0.25", "1e-45", "0x1p-126", "3.4028235e38",
        "1e10", "-7.5", "0.1"]


def value():
    r = rng.random()
    if r < 0.4:
        return rng.choice(SPECIAL)
    if r < 0.7:
        return repr(rng.uniform(-4, 4))
    return repr(struct.unpack("<f", struct.pack("<f", rng.uniform(-1e30, 1e30)))[0])


progs = []
with open(sys.argv[1], "w") as f:
    for p in range(6):
        regs = rng.randint(2, 24)
        nin = rng.randint(0, min(regs, 5))
        nout = rng.randint(1, min(regs, 4))
        progs.append(nin)
        f.write(f".def p{p}, {nin}, {nout}\n.regs {regs}\n")
        for _ in range(rng.randint(0, 60)):
            def opnd():
                return f"%r{rng.randrange(regs)}" if rng.random() < 0.6 else rng.choice(LITS)
            g = f"%r{rng.randrange(regs)}" if rng.random() < 0.5 else rng.choice(LITS)
            f.write(f"  %r{rng.randrange(regs)} = fmag %r{rng.randrange(regs)}, {opnd()}, "
                    f"{opnd()}, {g}\n")
with open(sys.argv[2], "w") as f:
    for k in range(4000):
        p = rng.randrange(len(progs)) if k % 200 else 0
        f.write(",".join([str(p)] + [value() for _ in range(progs[p])]) + "\n")
