#!/usr/bin/env python3
"""The SPIR-V opcode names for the reader's diagnostics, generated from the Khronos
header spirv/unified1/spirv.h (Debian spirv-headers) so that they cannot drift from it.

The one generator of SPIRVOpNames.inc: lib/SPIRV/CMakeLists.txt runs it at configure
time, utils/amalgamate.py imports op_names() for the single header.

    python3 utils/spirv_opnames.py SPIRV_H OUT   writes OUT (only when it changes)
"""
import re
import sys


def op_names(spirv_h_text):
    """The rows of SPIRVOpNames.inc: `{number, "OpName"},` per opcode, in header order."""
    rows = re.findall(r"^ *SpvOp([A-Za-z0-9_]+) = ([0-9]+),", spirv_h_text, re.M)
    return "".join('{%s, "Op%s"},\n' % (num, name) for name, num in rows)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: spirv_opnames.py SPIRV_H OUT")
    with open(sys.argv[1], encoding="utf-8") as f:
        text = "/* Generated from spirv.h by utils/spirv_opnames.py. */\n" + op_names(f.read())
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    from glsl_snippet import write_if_changed  # utils/, beside this script
    write_if_changed(sys.argv[2], text)


if __name__ == "__main__":
    main()
