#!/bin/sh
# The H200 machine's half of docs/PERFORMANCE.md "CPU engines on real programs": one device
# call. Run from a folder holding fmag-cpu-bench (a Release build from here), progs/*.fmag
# (bench/cpu/run.sh's programs) and this script; the emitted C is compiled there with gcc.
# Full outputs go to $OUT (the device tool brings them back); a short summary is printed.
#
#   mkdir -p D/progs && cp build-bench/bin/fmag-cpu-bench bench/cpu/device.sh D/ && cp P/*.fmag D/progs/
#   run(command="cd D && sh device.sh", carry=["D"])
set -u
out=${OUT:-.}
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"
    grep -m1 'flags' /proc/cpuinfo | grep -o 'avx512f\|avx2\|constant_tsc\|nonstop_tsc' | tr '\n' ' '
    echo
    lscpu 2>/dev/null | grep -i 'cache\|MHz\|Thread\|Core\|Socket'
    echo "compiler: $(gcc --version | head -1)"
    echo "objdump: $(objdump --version 2>/dev/null | head -1 || echo none)"
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"
t=$(nproc)
[ "$t" -gt 16 ] && t=16
# The table (every SL example and graph, one thread, columns, all threads, emitted C) and
# the per-lane mixes; then thread scaling at 4e6 elements with both SIMD kernels and the
# core-clock probe.
# fbm16 is left out: gcc -O3 takes about a minute over its emitted C.
b=./fmag-cpu-bench
$b --help > /dev/null 2>&1 || b=./fmag-cpu-bench-static
timeout 110 $b --cc=gcc --tmp=/tmp --threads="$t" --no-scaling $(ls progs/sl_*.fmag | grep -v fbm16) \
    > "$out/table.txt" 2>&1
echo "table: exit $?"
p=progs
timeout 60 $b --no-native --elements=4000000 --threads="$t" \
    $p/sl_cook_torrance.fmag $p/sl_value_noise.fmag $p/sl_node_graph_a.fmag \
    $p/sl_blinn_phong.fmag $p/sl_shade_chain.fmag > "$out/scaling.txt" 2>&1
echo "scaling: exit $?"
timeout 30 $b --only-scaling --isa=avx2 --elements=4000000 --threads="$t" \
    $p/sl_cook_torrance.fmag $p/sl_node_graph_a.fmag $p/sl_blinn_phong.fmag \
    > "$out/scaling-avx2.txt" 2>&1
echo "scaling avx2: exit $?"
grep -c '| yes |' "$out/table.txt"
grep -c '| NO |' "$out/table.txt"
tail -4 "$out/scaling.txt"
