#!/usr/bin/env python3
"""Prints a .fmag file's records field by field, read with struct and nothing
from lib/VM, so tests can check the encoder against SPEC §1 independently."""
import struct
import sys

data = open(sys.argv[1], "rb").read()
off = 0
rec = 0
while off < len(data):
    magic = data[off:off + 4]
    version, flags, ninstr, regs, nin, nout, name_len, r0, r1 = struct.unpack_from(
        "<HHIHHHHIQ", data, off + 4)
    name = data[off + 32:off + 32 + name_len].decode("utf-8", "backslashreplace")
    print(f"record {rec} magic={magic.decode()} version={version} flags={flags} "
          f"ninstr={ninstr} regs={regs} nin={nin} nout={nout} name_len={name_len} "
          f"reserved={r0},{r1} name={name}")
    code = off + 32 + (name_len + 15) // 16 * 16
    for i in range(ninstr):
        b, c, g, da = struct.unpack_from("<IIII", data, code + 16 * i)
        print(f"  {i}: b={b:08x} c={c:08x} g={g:08x} d={da & 0xffff} a={da >> 16}")
    off = code + 16 * ninstr
    rec += 1
print(f"size {len(data)}")
