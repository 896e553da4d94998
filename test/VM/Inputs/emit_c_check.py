#!/usr/bin/env python3
"""Checks fmag-as --emit=c against the reference VM, bit for bit (as %.9g text, which
reads back to the same float32): every file given (.sl through slc, .fmas/.fmag as
they are) is emitted as C, compiled with cc -O2 -ffp-contract=off (and -O3
-march=native) together with emit-driver.c, and run on per-lane inputs with special
values (+-0, denormals, +-inf, nan) next to `fmag-run --per-lane`."""
import os
import random
import re
import subprocess
import sys

tmp, files = sys.argv[1], sys.argv[2:]
os.makedirs(tmp, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
cc = os.environ.get("CC", "cc")
rng = random.Random(20261201)
SPECIAL = ["0", "-0", "1", "-1", "0.5", "1e-45", "-1e-40", "1.17549435e-38", "3.4028235e38",
           "inf", "-inf", "nan", "0x1.fffffep-1", "16777216"]


VECTOR = {"cook_torrance.sl", "blinn_phong.sl", "node_graph_a.sl", "fbm.sl", "value_noise.sl"}
# The default suite keeps this test short (docs/Testing.md): the largest emitted files
# (over 60 KB of C, where cc spends half of this test's time) are not compiled, the
# examples in VECTOR are compiled at -O2 and the others at -O1 (the random programs
# keep -O2 and -O3 -march=native); the long run (FMAG_TEST_LONG=1,
# scripts/test-long.sh in CI) compiles every file at -O2 and VECTOR's at -O3 too.
LONG = os.environ.get("FMAG_TEST_LONG") == "1"
LARGE_C = 60000


def value():
    r = rng.random()
    if r < 0.2:
        return rng.choice(SPECIAL)
    if r < 0.9:
        return repr(rng.uniform(-2, 2))
    return repr(rng.uniform(-100, 100))


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


bad = 0
for src in files:
    name = os.path.basename(src)
    base = os.path.join(tmp, name)
    fmag = src
    if src.endswith(".sl"):
        fmag = base + ".fmag"
        run(["slc", src, "-o", fmag])
    elif src.endswith(".fmas"):
        fmag = base + ".fmag"
        run(["fmag-as", src, "-o", fmag])
    info = run(["fmag-as", "-i", fmag])
    progs = [(int(m.group(1)), int(m.group(2)))
             for m in re.finditer(r"inputs=(\d+) outputs=(\d+)", info)]
    csv = base + ".csv"
    with open(csv, "w") as f:
        for k in range(300):
            p = k % len(progs)
            f.write(",".join([str(p)] + [value() for _ in range(progs[p][0])]) + "\n")
    want = run(["fmag-run", fmag, "--per-lane", "--in-file", csv])
    run(["fmag-as", "--emit=c", fmag, "-o", base + ".c"])
    if not LONG and os.path.getsize(base + ".c") > LARGE_C:
        print("LONG", name, "(compiled in the long run only)")
        continue
    nouts = "{" + ",".join(str(o) for _, o in progs) + "}"
    # Vectorized builds take long to compile: random programs and the five largest examples.
    wide = not src.endswith(".sl") or name in VECTOR
    levels = (["-O2"], ["-O3", "-march=native"])[: 2 if wide else 1]
    if not LONG and src.endswith(".sl"):
        levels = (["-O2"],) if wide else (["-O1"],)
    for flags in levels:
        exe = base + ".exe"
        run([cc, *flags, "-ffp-contract=off", "-DFMAG_NOUTS=" + nouts, "-o", exe,
             os.path.join(here, "emit-driver.c"), base + ".c", "-lm"])
        with open(csv) as f:
            got = run([exe], stdin=f)
        ok = got == want
        bad += not ok
        print(("OK" if ok else "MISMATCH"), name, " ".join(flags), len(want.splitlines()))
sys.exit(1 if bad else 0)
