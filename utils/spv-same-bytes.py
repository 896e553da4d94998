#!/usr/bin/env python3
"""Compares what two builds of slc make of every GLSL, HLSL and SPIR-V input in the
tree: `slc FILE [-entry NAME] -S` (the FMAG assembly) with each build, case by case.

The integer issue (27) requires that a program without integer arithmetic compiles to
the same bytes before and after the SPIR-V reader emits i32 IR, and that a program
whose only integers are loop counters and constant indices does too (unrolling folds
them away). This script is the check: it prints one line per case that differs (or
that compiles with one build and not the other) and a summary.

Cases: the shader files of test/SPIRV (corpus and Inputs included), bench/glsl and the
files that the split-file tests of test/SPIRV, test/tools and test/GPU carry;
.spvasm files are assembled with spirv-as. Each file is compiled as main() and with
-entry for every function name its text defines (a name the file does not define as
a function is not tried).

    utils/spv-same-bytes.py --old build-old/bin/slc --new build/bin/slc [--jobs 2] [--flag=-O0]
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHADER_EXT = (".glsl", ".frag", ".vert", ".comp", ".hlsl", ".spv", ".spvasm")
TEST_DIRS = ("test/SPIRV", "test/tools", "test/GPU")
FUNC_RE = re.compile(
    r"^[ \t]*(?:static\s+|inline\s+|precise\s+)*"
    r"(?:void|float\d?(?:x\d)?|vec\d|mat\d(?:x\d)?|int\d?|uint\d?|ivec\d|uvec\d|bool\d?|bvec\d|"
    r"half\d?|double)\s+(\w+)\s*\(",
    re.M,
)


def shader_files(tmp):
    files = []
    for d in ("test/SPIRV", "test/SPIRV/corpus", "test/SPIRV/Inputs", "bench/glsl"):
        p = os.path.join(ROOT, d)
        for f in sorted(os.listdir(p)):
            if f.endswith(SHADER_EXT):
                files.append(os.path.join(p, f))
    # Files carried by split-file tests.
    n = 0
    for d in TEST_DIRS:
        p = os.path.join(ROOT, d)
        for f in sorted(os.listdir(p)):
            full = os.path.join(p, f)
            if not os.path.isfile(full):
                continue
            text = open(full, errors="replace").read()
            if "split-file" not in text or not re.search(r"^(#|;|//)--- ", text, re.M):
                continue
            out = os.path.join(tmp, "split%d_%s" % (n, f))
            n += 1
            subprocess.run([split_file(), full, out], check=False, capture_output=True)
            for dp, _, fs in os.walk(out):
                for g in sorted(fs):
                    if g.endswith(SHADER_EXT):
                        files.append(os.path.join(dp, g))
    return files


def split_file():
    return shutil.which("split-file") or "/usr/lib/llvm-14/bin/split-file"


def assemble(path, tmp):
    """A .spvasm becomes a .spv (spirv-as); None when it does not assemble."""
    out = os.path.join(tmp, "asm_%d.spv" % abs(hash(path)))
    for env in ([], ["--target-env", "spv1.0"]):
        r = subprocess.run(["spirv-as"] + env + [path, "-o", out], capture_output=True)
        if r.returncode == 0:
            return out
    return None


def entries(path):
    if path.endswith((".spv", ".spvasm")):
        text = open(path, "rb").read().decode("latin-1")
        names = set(re.findall(r'OpName %\w+ "(\w+)(?:\(|")', text))
        return sorted(names)
    text = open(path, errors="replace").read()
    return sorted(set(FUNC_RE.findall(text)) - {"main"})


def compile_case(slc, path, entry, flags):
    cmd = [slc, path, "-S", "-o", "-"] + flags
    if entry:
        cmd += ["-entry", entry]
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return ("timeout", b"")
    if r.returncode != 0:
        return ("error", r.stderr)
    return ("ok", r.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--list", action="store_true", help="print every case")
    ap.add_argument("--flag", action="append", default=[], help="an slc flag for every case (-O0)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="spv-same-bytes.")
    cases = []
    for f in shader_files(tmp):
        src = f
        if f.endswith(".spvasm"):
            f = assemble(f, tmp)
            if not f:
                continue
        names = entries(src)
        cases.append((src, f, None))
        cases += [(src, f, e) for e in names]

    def run(case):
        src, f, e = case
        return case, compile_case(a.old, f, e, a.flag), compile_case(a.new, f, e, a.flag)

    counts = {"same": 0, "same-error": 0, "differ": 0, "old-only": 0, "new-only": 0}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for (src, f, e), old, new in ex.map(run, cases):
            name = os.path.relpath(src, ROOT) if src.startswith(ROOT) else src
            name = re.sub(r"^.*/spv-same-bytes\.[^/]+/split\d+_", "split:", name)
            label = "%s%s" % (name, ":" + e if e else "")
            if old[0] == "ok" and new[0] == "ok":
                kind = "same" if old[1] == new[1] else "differ"
            elif old[0] != "ok" and new[0] != "ok":
                kind = "same-error"
            else:
                kind = "old-only" if old[0] == "ok" else "new-only"
            counts[kind] += 1
            if kind in ("differ", "old-only", "new-only") or a.list:
                why = ""
                if kind == "old-only":
                    why = ": " + new[1].decode(errors="replace").strip().splitlines()[-1][:200]
                print("%s %s%s" % (kind.upper(), label, why))
    shutil.rmtree(tmp, ignore_errors=True)
    total = sum(counts.values())
    print("cases: %d; same bytes: %d; both refuse: %d; differ: %d; compile only with old: %d; "
          "only with new: %d" % (total, counts["same"], counts["same-error"], counts["differ"],
                                 counts["old-only"], counts["new-only"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
