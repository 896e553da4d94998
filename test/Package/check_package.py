"""Checks what an install promises (package.test): every tool's --version and
fmag/Version.h report the version of project(FMAG VERSION ...); libfmag.so exports
every function the public headers declare and nothing else.
usage: check_package.py SRC_ROOT OBJ_ROOT"""
import glob
import os
import re
import subprocess
import sys

src, obj = sys.argv[1], sys.argv[2]
fail = []
with open(os.path.join(src, "CMakeLists.txt")) as f:
    version = re.search(r"project\(\s*FMAG\s+VERSION\s+([0-9.]+)", f.read()).group(1)

with open(os.path.join(obj, "include", "fmag", "Version.h")) as f:
    if '#define FMAG_VERSION_STRING "%s"' % version not in f.read():
        fail.append("Version.h does not say %s" % version)
# the tools: one per tools/ folder
tools = [os.path.join(obj, "bin", os.path.basename(d)) for d in glob.glob(os.path.join(src, "tools", "*"))
         if os.path.isdir(d) and os.path.exists(os.path.join(obj, "bin", os.path.basename(d)))]
for t in sorted(tools):
    r = subprocess.run([t, "--version"], capture_output=True, text=True)
    if r.returncode != 0 or version not in r.stdout:
        fail.append("%s --version: exit %d, %r" % (os.path.basename(t), r.returncode, r.stdout))

# The public API: every function the headers declare, read from the preprocessed
# headers (Passes.def's X-macro prototypes included), outside any braces, not static.
headers = sorted(os.path.basename(h) for h in glob.glob(os.path.join(src, "include", "fmag", "*.h")))
tu = "".join('#include "fmag/%s"\n' % h for h in headers)
pp = subprocess.run(["cc", "-E", "-P", "-D_POSIX_C_SOURCE=200809L", "-I", os.path.join(src, "include"),
                     "-I", os.path.join(obj, "include"), "-x", "c", "-"], input=tu,
                    capture_output=True, text=True, check=True).stdout
top, depth = [], 0
for ch in pp:
    if ch == "{":
        depth += 1
        top.append(" {} " if depth == 1 else "")
    elif ch == "}":
        depth -= 1
    elif depth == 0:
        top.append(ch)
declared = set()
for stmt in re.split(r"[;]|\{\}", "".join(top)):
    m = re.search(r"\b(fmag_\w+)\s*\(", stmt)
    if m and "static" not in stmt and "typedef" not in stmt:
        declared.add(m.group(1))
lib = os.path.join(obj, "lib", "libfmag.so")
nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True)
exported = {l.split()[-1] for l in nm.stdout.splitlines() if l.split()[1] in "TDRB"}
for s in sorted(exported - declared):
    fail.append("libfmag.so exports %s, which no public header declares" % s)
# Declared but not defined anywhere in the library (an API of a part not built, or a
# header without the visibility pragmas).
for s in sorted(declared - exported):
    fail.append("libfmag.so does not export %s (declared in include/fmag)" % s)

for f_ in fail:
    print("FAIL:", f_)
print("package: version %s, %d tools, %d exported functions%s" % (
    version, len(tools), len(exported), "" if not fail else ", %d problems" % len(fail)))
sys.exit(1 if fail else 0)
