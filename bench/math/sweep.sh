#!/bin/sh
# The exhaustive float32 accuracy sweeps of docs/Builtins.md, one command: every
# one-input builtin whose row was sampled, default mode and fast-math, run by
# fmag-accuracy --exhaustive on all CPUs, most important first, each sweep in its own
# process under the time left (a sweep that would not finish is skipped and logged).
# Writes to $OUT (default ./sweep-out):
#   strict.md, fast.md  the rows of docs/Builtins.md's two tables (bench/math/splice.py
#                       puts them into the file)
#   detail.txt          fmag-accuracy's line per sweep (worst point, result and exact
#                       value, results not correctly rounded), and the timing of each
#   log.txt             the machine, the commands, what was skipped
#
#   FMAG_ACCURACY=build/bin/fmag-accuracy bench/math/sweep.sh   # a binary built already
#   bench/math/sweep.sh                     # otherwise builds it (cmake, gcc) in build-sweep
# Environment: SWEEP_SECONDS (the whole budget, default 180), SWEEP_LABEL (appended
# to the method column, default "<nproc> cores"), SWEEP_MODE (default --exhaustive;
# e.g. "--samples 100000" for a quick check of the script itself).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-sweep-out}
mkdir -p "$out"
threads=$(nproc)
label=${SWEEP_LABEL:-"$threads cores"}
mode=${SWEEP_MODE:---exhaustive}
budget=${SWEEP_SECONDS:-180}
start=$(date +%s)
bin=${FMAG_ACCURACY:-}
log="$out/log.txt"
{
    echo "sweep.sh $(date -u '+%Y-%m-%d %H:%M:%S UTC') threads=$threads mode=$mode budget=${budget}s"
    grep -m1 'model name' /proc/cpuinfo
    grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|avx512f|fma)$' | tr '\n' ' '
    echo
} >"$log"
if [ -z "$bin" ]; then
    src=$(cd "$here/../.." && pwd)
    cmake -S "$src" -B build-sweep -DCMAKE_BUILD_TYPE=Release >>"$log" 2>&1 &&
        cmake --build build-sweep --target fmag-accuracy -j"$threads" >>"$log" 2>&1 ||
        { echo "build failed" >>"$log"; exit 1; }
    bin=build-sweep/bin/fmag-accuracy
fi
"$bin" --version >>"$log" 2>&1
date=$(date -u +%m-%d)
: >"$out/strict.md"
: >"$out/fast.md"
: >"$out/detail.txt"

# sweep TABLE ARGS...: one builtin in one mode, rows appended to TABLE.md
sweep() {
    table=$1
    shift
    now=$(date +%s)
    left=$((budget - (now - start)))
    if [ "$left" -le 10 ]; then
        echo "skipped (budget): $*" >>"$log"
        return
    fi
    t0=$(date +%s.%N)
    timeout "$left" "$bin" $mode --markdown --threads "$threads" "$@" \
        >"$out/row.tmp" 2>>"$out/detail.txt"
    rc=$?
    t1=$(date +%s.%N)
    echo "$* rc=$rc $(awk "BEGIN { print $t1 - $t0 }") s" >>"$out/detail.txt"
    if [ "$rc" -eq 124 ]; then
        echo "timed out: $*" >>"$log"
        return
    fi
    grep '^| [a-z]' "$out/row.tmp" | grep -v '^| builtin' |
        sed "s/ points) |/ points), $date, $label |/; s/ samples |/ samples, $date, $label |/" \
            >>"$out/$table.md"
}

for f in asin acos sinh cosh tanh asinh acosh atanh; do sweep strict "$f"; done
for f in asin acos sinh cosh tanh asinh acosh atanh; do sweep fast --fast "$f"; done
for f in sin cos tan; do sweep strict --trig-range 1e6 "$f"; done
for f in radians degrees; do sweep strict "$f"; done
for f in radians degrees; do sweep fast --fast "$f"; done
for f in sin cos tan; do sweep fast --fast --trig-range 1e5 "$f"; done
rm -f "$out/row.tmp"
echo "done in $(($(date +%s) - start)) s" >>"$log"
