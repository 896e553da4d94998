#!/usr/bin/env python3
"""The ABI of libfmag.so as text: the symbols it exports (nm -D), each with the public
header that declares it, and the layout of the public types (fmag_abi_entry: struct
sizes, field offsets and sizes, enum values), one line each, sorted.

    python3 utils/abi-dump.py build/lib/libfmag.so               # print it
    python3 utils/abi-dump.py build/lib/libfmag.so --check test/ABI/libfmag.abi
    scripts/record-abi.sh                                         # re-record

--check compares with a recorded file and fails on any difference, naming each line
added or gone. A header whose every recorded symbol is missing is a layer this build
left out (GPU.h without lib/GPU, say): its lines are skipped, not failed.
"""
import argparse
import ctypes
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECL = re.compile(r"\b(fmag_[A-Za-z0-9_]+)\s*\(")
DEF_ROW = re.compile(r"\b(fmag_[A-Za-z0-9_]+)\s*[,)]")  # Passes.def: ("cse", fmag_opt_cse, ..)


def header_of_symbols():
    """symbol -> the include/fmag header that declares it."""
    owner = {}
    inc = os.path.join(ROOT, "include", "fmag")
    for h in sorted(os.listdir(inc)):
        if not h.endswith((".h", ".def")):
            continue
        text = open(os.path.join(inc, h), encoding="utf-8").read()
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        for name in (DECL if h.endswith(".h") else DEF_ROW).findall(text):
            owner.setdefault(name, h)
    return owner


def dump(lib):
    out = []
    nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                        check=True).stdout
    owner = header_of_symbols()
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2].startswith("fmag_"):
            out.append("symbol %s %s" % (owner.get(parts[2], "?"), parts[2]))
    so = ctypes.CDLL(os.path.abspath(lib))
    entry = so.fmag_abi_entry
    entry.restype = ctypes.c_bool
    kind, name = ctypes.c_char(), ctypes.c_char_p()
    value, extra = ctypes.c_longlong(), ctypes.c_longlong()
    i = 0
    while entry(i, ctypes.byref(kind), ctypes.byref(name), ctypes.byref(value),
                ctypes.byref(extra)):
        k, n = kind.value.decode(), name.value.decode()
        if k == "S":
            out.append("struct %s size %d" % (n, value.value))
        elif k == "F":
            out.append("field %s offset %d size %d" % (n, value.value, extra.value))
        else:
            out.append("enum %s %d" % (n, value.value))
        i += 1
    return sorted(set(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("--check", metavar="RECORDED")
    a = ap.parse_args()
    now = dump(a.lib)
    if not a.check:
        print("\n".join(now))
        return 0
    recorded = [l for l in open(a.check, encoding="utf-8").read().splitlines()
                if l and not l.startswith("#")]
    present = set(now)
    headers = {}
    for l in recorded:
        if l.startswith("symbol "):
            headers.setdefault(l.split()[1], []).append(l in present)
    absent = {h for h, seen in headers.items() if not any(seen)}
    recorded = [l for l in recorded if not (l.startswith("symbol ") and l.split()[1] in absent)]
    gone = sorted(set(recorded) - present)
    new = sorted(present - set(recorded))
    for l in gone:
        print("abi: gone:  %s" % l)
    for l in new:
        print("abi: added: %s" % l)
    if gone or new:
        print("abi: libfmag.so's ABI differs from %s (%d gone, %d added): a change an "
              "embedder built against the old header would see; if it is meant, re-record "
              "with scripts/record-abi.sh and say so in the commit" % (a.check, len(gone),
                                                                      len(new)))
        return 1
    print("abi: %d lines match %s%s" % (len(recorded), os.path.basename(a.check),
                                          " (left out: %s)" % ", ".join(sorted(absent))
                                          if absent else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
