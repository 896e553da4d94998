#!/usr/bin/env python3
"""FMAG instructions per integer operation after -legalize-int (docs/Integers.md).

Full width: the operands are i32 phis of a diamond (so they arrive as 16-bit limbs
and nothing else), and the count is the instructions -legalize-int leaves in the
block of the operation: the operation and, for an i32 result, bringing the result
to limbs (where the next phi takes it), which is what the next operation would pay.
In range: the operands are fptosi of values bounded to [-1000, 1000] (or [0, 1000]
for the unsigned forms), which the range analysis keeps as one float; the count is
the instructions of the operation alone.

    python3 bench/integers/op_costs.py [build/bin/fmag-opt] [--markdown]
"""
import re
import subprocess
import sys

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
OPT = ARGS[0] if ARGS else "build/bin/fmag-opt"
I, F = "i", "f"
OPS = [  # name, operand types, result type, second operand literal (or None)
    ("iadd", [I, I], I), ("isub", [I, I], I), ("imul", [I, I], I), ("ineg", [I], I),
    ("sdiv", [I, I], I), ("udiv", [I, I], I), ("srem", [I, I], I), ("urem", [I, I], I),
    ("smod", [I, I], I), ("and", [I, I], I), ("or", [I, I], I), ("xor", [I, I], I),
    ("not", [I], I), ("shl", [I, I], I), ("lshr", [I, I], I), ("ashr", [I, I], I),
    ("icmp.eq", [I, I], F), ("icmp.ne", [I, I], F), ("icmp.slt", [I, I], F),
    ("icmp.sle", [I, I], F), ("icmp.ult", [I, I], F), ("icmp.ule", [I, I], F),
    ("iselect", [I, I, F], I), ("sitofp", [I], F), ("uitofp", [I], F),
    ("fptosi", [F], I), ("fptoui", [F], I), ("bitcast.i32", [F], I), ("bitcast.f32", [I], F),
]


def legalize(text):
    out = subprocess.run([OPT, "-", "-legalize-int"], input=text, capture_output=True,
                         text=True, check=True).stdout
    return out


def count_block(text, block):
    n, inside = 0, False
    for line in text.splitlines():
        if re.match(r"^\^\w+:", line):
            inside = line.startswith("^" + block + ":")
            continue
        if inside and "=" in line and " phi " not in line:
            n += 1
    return n


def full(op, tys, rt, lit=None):
    args = []
    body = ["export func @f(%x, %y, %g) -> 1 {", "^entry:", "  br %g, ^a, ^b", "^a:",
            "  jmp ^j", "^b:", "  jmp ^j", "^j:"]
    for k, t in enumerate(tys):
        if t == I:
            if k == 1 and lit is not None:
                args.append(str(lit))
                continue
            body.append(f"  %p{k} = phi i32 [0x9E3779B9, ^a], [0x12345678, ^b]")
            args.append(f"%p{k}")
        else:
            args.append("%x" if k == 0 else "%g")
    body.append(f"  %r = {op} {', '.join(args)}")
    if rt == I:
        body += ["  jmp ^out", "^out:", "  %o = phi i32 [%r, ^j]", "  %f = uitofp %o", "  ret %f", "}"]
    else:
        body += ["  ret %r", "}"]
    text = legalize("\n".join(body) + "\n")
    return count_block(text, "j") - (1 if rt == F else 0) * 0


def small(op, tys, rt, lit=None):
    unsigned = op in ("udiv", "urem", "lshr", "icmp.ult", "icmp.ule", "uitofp")
    lo = "0.0" if unsigned else "-1000.0"
    body = ["export func @f(%x, %y, %g) -> 1 {", "^entry:",
            f"  %cx = select 1000.0, {lo}, %x", f"  %cy = select 1000.0, {lo}, %y",
            "  %a0 = fptosi %cx", "  %a1 = fptosi %cy"]
    args = []
    for k, t in enumerate(tys):
        if t == I:
            args.append(str(lit) if (k == 1 and lit is not None) else f"%a{k}")
        else:
            args.append("%x" if k == 0 else "%g")
    if tys[0] == F:
        return None
    base = legalize("\n".join(body + ["  %s = iadd %a0, %a1", "  %f = sitofp %s", "  ret %f", "}"]) + "\n")
    body.append(f"  %r = {op} {', '.join(args)}")
    if rt == I:
        body += ["  %f = sitofp %r", "  ret %f", "}"]
    else:
        body += ["  ret %r", "}"]
    text = legalize("\n".join(body) + "\n")
    # the base program has the operands and one add: subtract it
    return count_block(text, "entry") - (count_block(base, "entry") - 1)


LITERALS = {  # the second operand of the "by a literal" rows
    "imul": [0x85EBCA6B], "and": [0xFFFF], "shl": [13], "lshr": [13], "ashr": [13],
    "udiv": [10, 1000, 16], "urem": [10, 1000, 16], "sdiv": [10, 1000, -7],
    "srem": [10, 1000, -7], "smod": [10, 1000, -7], "or": [0x80000001], "xor": [0x9E3779B9],
}


def main():
    """Prints the table of docs/Integers.md (markdown) with --markdown, else plain."""
    md = "--markdown" in sys.argv
    if md:
        print("| operation | full width | in range |\n|---|---:|---:|")
    else:
        print(f"{'operation':<26}{'full width':>11}{'in range':>10}")
    for op, tys, rt in OPS:
        rows = [(op, None)] + [(f"{op} by {k if abs(k) < 65536 else hex(k)}", k)
                               for k in LITERALS.get(op, [])]
        for name, lit in rows:
            f = full(op, tys, rt, lit)
            s = small(op, tys, rt, lit)
            s = "-" if s is None else s
            print(f"| {name} | {f} | {s} |" if md else f"{name:<26}{f:>11}{s:>10}")


if __name__ == "__main__":
    main()
