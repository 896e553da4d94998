"""Every tool under tools/ answers --help and --version and rejects an unknown option
the same way (docs/Tools.md).

usage: every_tool.py SRC_ROOT BIN_DIR
"""
import os
import subprocess
import sys

src, bindir = sys.argv[1], sys.argv[2]
names = sorted(d for d in os.listdir(os.path.join(src, "tools"))
               if d != "common" and os.path.isdir(os.path.join(src, "tools", d)))
fail = []
for name in names:
    tool = os.path.join(bindir, name)
    if not os.path.exists(tool):
        continue  # not built in this configuration
    h = subprocess.run([tool, "--help"], capture_output=True, text=True)
    if h.returncode != 0 or not h.stdout.startswith("usage: " + name) or "--help, --version" not in h.stdout:
        fail.append("%s --help: exit %d, %r" % (name, h.returncode, h.stdout[:80]))
    v = subprocess.run([tool, "--version"], capture_output=True, text=True)
    if v.returncode != 0 or not v.stdout.startswith(name + " (FMAG) ") or v.stdout.count("\n") != 1:
        fail.append("%s --version: exit %d, %r" % (name, v.returncode, v.stdout))
    u = subprocess.run([tool, "--no-such-option"], capture_output=True, text=True)
    want = "%s: error: unknown option '--no-such-option' (see --help)\n" % name
    if u.returncode != 1 or u.stderr != want or u.stdout:
        fail.append("%s --no-such-option: exit %d, %r" % (name, u.returncode, u.stderr))
    print("%s: ok" % name if not any(f.startswith(name + " ") for f in fail) else "%s: FAILED" % name)
if fail:
    print("\n".join(fail))
    sys.exit(1)
