#!/usr/bin/env python3
"""Writes a .fmag file byte by byte, independently of lib/VM, so tests can build
valid and deliberately corrupt files inside their RUN lines.

Default: one record "f" with regs=2 nin=1 nout=1 and the single instruction
r0 = fmag r0, 2.0, 1.0, 1.0 (so the output is 2*x+1).

  mkfmag.py OUT [--magic XXXX] [--version N] [--flags N] [--regs N] [--nin N]
            [--nout N] [--name S] [--name-len N] [--ninstr N] [--reserved N]
            [--instr B,C,G,D,A ...] [--records K] [--truncate N] [--append HEX]

An operand B, C or G is rN (a NaN-boxed reference 0x7FC00000|N), a float
literal (1.5, -0.0, inf), or w:0xHEX (a raw word). D and A are integers.
--ninstr/--name-len override the header field without changing the bytes.
"""
import argparse
import struct


def word(tok):
    if tok.startswith("r"):
        return 0x7FC00000 | int(tok[1:])
    if tok.startswith("w:"):
        return int(tok[2:], 16)
    return struct.unpack("<I", struct.pack("<f", float(tok)))[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--magic", default="FMAG")
    ap.add_argument("--version", type=int, default=1)
    ap.add_argument("--flags", type=int, default=0)
    ap.add_argument("--regs", type=int, default=2)
    ap.add_argument("--nin", type=int, default=1)
    ap.add_argument("--nout", type=int, default=1)
    ap.add_argument("--name", default="f")
    ap.add_argument("--name-len", type=int)
    ap.add_argument("--ninstr", type=int)
    ap.add_argument("--reserved", type=int, default=0)
    ap.add_argument("--instr", action="append")
    ap.add_argument("--records", type=int, default=1)
    ap.add_argument("--truncate", type=int)
    ap.add_argument("--append", default="")
    a = ap.parse_args()
    instrs = a.instr if a.instr is not None else ["2.0,1.0,1.0,0,0"]
    code = b""
    for ins in instrs:
        if not ins:
            continue
        b, c, g, d, aa = ins.split(",")
        code += struct.pack("<IIII", word(b), word(c), word(g), int(d) | (int(aa) << 16))
    name = a.name.encode()
    ninstr = len(code) // 16 if a.ninstr is None else a.ninstr
    name_len = len(name) if a.name_len is None else a.name_len
    header = a.magic.encode()[:4].ljust(4, b"\0")
    header += struct.pack("<HHIHHHHIQ", a.version, a.flags, ninstr, a.regs, a.nin, a.nout,
                          name_len, a.reserved, 0)
    rec = header + name + b"\0" * ((-len(name)) % 16) + code
    data = rec * a.records
    if a.truncate is not None:
        data = data[:a.truncate]
    data += bytes.fromhex(a.append)
    with open(a.out, "wb") as f:
        f.write(data)


main()
