#!/usr/bin/env python3
"""Generates valid, structured .fir modules for the round-trip and parser tests.

Usage: gen-fir.py SEED [NINSTR]   (prints one module)
Each module has helper functions with several results, diamonds, triangles,
early returns and phis, and literals of every kind (+0, -0, denormals, hex, huge).
"""
import random
import struct
import sys

LITS = ["0.0", "-0.0", "1.0", "-1.0", "0.5", "2.0", "3.25", "1e-45", "1.17549435e-38",
        "0x1.8p1", "-0x1.fffffep127", "3.40282347e38", "1e-40", "0.1", "-7.5", "1e10"]


def gen_func(rng, name, nparams, nres, callees, ninstr, export):
    params = [f"%p{i}" for i in range(nparams)]
    out = [f"{'export ' if export else ''}func @{name}({', '.join(params)}) -> {nres} {{"]
    avail = list(params)
    counter = [0]
    blocks = [0]

    def fresh():
        counter[0] += 1
        return f"%v{counter[0]}"

    def opnd():
        if rng.random() < 0.25:
            return rng.choice(LITS)
        return rng.choice(avail)

    def arith(lines, pool):
        ops = ["add", "sub", "mul", "neg", "fma", "select", "relu", "max", "min", "abs", "fmag"]
        op = rng.choice(ops)
        nops = {"add": 2, "sub": 2, "mul": 2, "neg": 1, "fma": 3, "select": 3, "relu": 1,
                "max": 2, "min": 2, "abs": 1, "fmag": 5}[op]
        args = [opnd() if rng.random() < 0.2 else rng.choice(pool) for _ in range(nops)]
        v = fresh()
        lines.append(f"  {v} = {op} {', '.join(args)}")
        return v

    def label():
        blocks[0] += 1
        return f"^b{blocks[0]}"

    lines = ["^entry:"]
    cur_avail = list(params)
    emitted = 0
    while emitted < ninstr:
        r = rng.random()
        if r < 0.12 and callees:
            callee, cn, cr = rng.choice(callees)
            args = [rng.choice(cur_avail) if rng.random() < 0.8 else rng.choice(LITS) for _ in range(cn)]
            res = [fresh() for _ in range(cr)]
            lines.append(f"  {', '.join(res)} = call @{callee}({', '.join(args)})")
            cur_avail += res
            emitted += 1
        elif r < 0.25:
            # A diamond (or triangle) joined by a phi.
            g = rng.choice(cur_avail)
            t, e, j = label(), label(), label()
            triangle = rng.random() < 0.3
            lines.append(f"  br {g}, {t}, {j if triangle else e}")
            lines.append(f"{t}:")
            tv = arith(lines, cur_avail)
            lines.append(f"  jmp {j}")
            if not triangle:
                lines.append(f"{e}:")
                ev = arith(lines, cur_avail)
                lines.append(f"  jmp {j}")
            lines.append(f"{j}:")
            p = fresh()
            other = rng.choice(cur_avail) if triangle else ev
            src = f"^{lines[-5][0:0]}"  # placeholder, replaced below
            pred_e = e if not triangle else None
            if triangle:
                # The false edge comes straight from the block holding the br.
                brblock = [l for l in lines if l.endswith(":") and not l.startswith(" ")][-3]
                lines.append(f"  {p} = phi [{tv}, {t}], [{other}, ^{brblock[1:-1]}]")
            else:
                lines.append(f"  {p} = phi [{tv}, {t}], [{other}, {pred_e}]")
            cur_avail.append(p)
            emitted += 4
        elif r < 0.28 and nres:
            # An early return.
            g = rng.choice(cur_avail)
            t, c = label(), label()
            lines.append(f"  br {g}, {t}, {c}")
            lines.append(f"{t}:")
            lines.append(f"  ret {', '.join(opnd() for _ in range(nres))}")
            lines.append(f"{c}:")
            emitted += 2
        else:
            cur_avail.append(arith(lines, cur_avail))
            emitted += 1
    lines.append(f"  ret {', '.join(rng.choice(cur_avail) for _ in range(nres))}")
    out += lines
    out.append("}")
    return "\n".join(out)


def main():
    seed = int(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    rng = random.Random(seed)
    funcs = []
    callees = []
    if rng.random() < 0.2:
        print("fastmath\n")
    for k in range(rng.randint(0, 2)):
        np, nr = rng.randint(1, 3), rng.randint(1, 3)
        funcs.append(gen_func(rng, f"helper{k}", np, nr, list(callees), max(3, n // 4), False))
        callees.append((f"helper{k}", np, nr))
    funcs.append(gen_func(rng, "main", rng.randint(1, 4), rng.randint(1, 3), callees, n, True))
    print("\n\n".join(funcs))


if __name__ == "__main__":
    main()
