#!/bin/sh
# CPU throughput table (docs/PERFORMANCE.md, "CPU engines"): builds a Release tree,
# compiles the SL examples, the thousand-instruction graphs of bench/cpu/graphs and the
# bench programs (bench/codegen/programs, lowered at -O2), and runs fmag-cpu-bench on all
# of them: reference VM, batch engine on 1 thread (rows and columns) and on all threads,
# the emitted C at -O3 -march=native, the engine's cycles and instruction counts, per-lane
# mixes, thread scaling and a core-clock probe, every result checked bit for bit.
#
#   bench/cpu/run.sh [BUILD_DIR] [fmag-cpu-bench options...]
#   FMAG_BIN=DIR bench/cpu/run.sh - [options...]   (use prebuilt slc, fmag-opt and
#                                                   fmag-cpu-bench from DIR; no build)
#   FMAG_PROGRAMS=DIR ...                            (use the .fmag files already in DIR)
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-bench}
[ $# -gt 0 ] && shift
if [ -z "${FMAG_BIN:-}" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$build" --target slc fmag-opt fmag-cpu-bench -j"$(nproc)" > /dev/null
    bin=$build/bin
else
    bin=$FMAG_BIN
fi
if [ -n "${FMAG_PROGRAMS:-}" ]; then
    progs=$FMAG_PROGRAMS
else
    progs=$(mktemp -d)
    for f in "$src"/examples/*.sl "$src"/bench/cpu/graphs/*.sl; do
        "$bin/slc" "$f" -o "$progs/sl_$(basename "$f" .sl).fmag"
    done
    for f in "$src"/bench/codegen/programs/*.fir; do
        "$bin/fmag-opt" "$f" -O2 -lower -o "$progs/fir_$(basename "$f" .fir).fmag"
    done
fi
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs;" \
    "$(grep -o 'avx512f\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "compiler: $(${CC:-cc} --version 2>/dev/null | head -1 || echo none)"
echo
"$bin/fmag-cpu-bench" --cc="${CC:-cc}" "$@" "$progs"/*.fmag
