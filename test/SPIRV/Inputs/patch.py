"""patch.py IN OUT WORD=VALUE...: rewrites 32-bit little-endian words of a
SPIR-V file (malformed-input tests); `swap` byte-swaps every word; `cut=N`
keeps the first N bytes."""
import struct
import sys

data = open(sys.argv[1], "rb").read()
for arg in sys.argv[3:]:
    if arg == "swap":
        n = len(data) // 4
        data = struct.pack(">%dI" % n, *struct.unpack("<%dI" % n, data))
    elif arg.startswith("cut="):
        data = data[: int(arg[4:])]
    else:
        k, v = arg.split("=")
        k, v = int(k, 0), int(v, 0)
        data = data[: 4 * k] + struct.pack("<I", v) + data[4 * k + 4 :]
open(sys.argv[2], "wb").write(data)
