#!/usr/bin/env bash
# The long proofs of -legalize-int (docs/Integers.md), left out of scripts/test.sh:
#   - every 32-bit input of each one-operand operation whose domain is 2^32: every
#     float for fptosi, fptoui, bitcast.i32 (the -O2 program on the batch engine and,
#     every 64th, the reference VM; a non-finite float on the legalized IR through the
#     interpreter); every integer for sitofp, uitofp, bitcast.f32, ineg and not;
#   - every pair of 16-bit limbs in each limb position that an expansion of two
#     operands treats differently (--pairs: add and sub with and without a carry into
#     the high limb, the multiply's low and cross partial products, the unsigned and
#     signed compares and eq), and every dividend of a division and remainder by
#     literals of each expansion (--exhaustive OP --literal C: a power of two, c <= 256
#     by limbs, c > 256 a byte at a time, negative divisors);
#   - 10^5 random integer programs (interpreter at -O0 against -O2 on both VMs).
# The 2^32 sweeps split into JOBS slices run side by side (default: nproc): about 3
# CPU-minutes per operation on a 2026 x86 core.
#   scripts/intcheck-long.sh [BUILD_DIR] [JOBS] [--ci]
# --ci (CI's longer step, two cores): the edges of each domain instead of all of it
# (the first and last 2^24 inputs and the 2^25 around the sign bit: every denormal,
# both zeros, infinities, NaNs and the saturation bounds; of the pair and literal
# sweeps the first and last 2^24 and the 2^24 around the middle) and 2 x 10^4 random
# programs, about 5 minutes; the whole run needs a machine with many cores (docs/Testing.md has
# the last one: 16 cores, 279 s).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
jobs=${2:-$(nproc)}
ci=${3:-}
tool=$build/bin/fmag-intcheck
status=0
# OP XHALF YHALF OTHER-LIMBS for --pairs
pairs=("iadd lo lo 0,0" "iadd hi hi 0,0" "iadd hi hi 0xFFFF,1" "isub lo lo 0,0" "isub hi hi 0,0"
  "isub hi hi 0,1" "imul lo lo 0,0" "imul hi lo 0,0" "icmp.ult lo lo 0x1234,0x1234"
  "icmp.ult hi hi 0,0" "icmp.slt hi hi 0,0" "icmp.eq lo lo 0x8000,0x8000")
# OP LITERAL for --exhaustive --literal (4294967289 is -7)
literals=("udiv 16" "udiv 10" "urem 1000" "udiv 65535" "sdiv 4294967289" "srem 10" "smod 1000"
  "smod 4294967289")
# one sweep of 2^32 cases in JOBS slices side by side, and its total
sweep() {
  local name=$1
  shift
  local step=$(((1 << 32) / jobs + 1)) pids=() j from to pid
  for ((j = 0; j < jobs; j++)); do
    from=$((j * step)); to=$(((j + 1) * step)); ((to > (1 << 32))) && to=$((1 << 32))
    ((from >= to)) && continue
    "$tool" "$@" --from "$from" --to "$to" > "$build/intcheck-$name-$j.log" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  cat "$build"/intcheck-"$name"-*.log | awk -v n="$name" '{c += $(NF-3); f += $(NF-1)} END {printf "%s: %d cases, %d failures\n", n, c, f}'
}
if [ "$ci" = --ci ]; then
  e=$((1 << 24))
  for p in "${pairs[@]}"; do
    set -- $p
    for r in "0 $e" "$((0x80000000 - e / 2)) $((0x80000000 + e / 2))" "$(((1 << 32) - e)) $((1 << 32))"; do
      "$tool" --pairs "$1" --xhalf "$2" --yhalf "$3" --other "$4" --from "${r% *}" --to "${r#* }" || status=1
    done
  done
  for l in "${literals[@]}"; do
    set -- $l
    for r in "0 $e" "$((0x80000000 - e / 2)) $((0x80000000 + e / 2))" "$(((1 << 32) - e)) $((1 << 32))"; do
      "$tool" --exhaustive "$1" --literal "$2" --from "${r% *}" --to "${r#* }" || status=1
    done
  done
  for op in fptosi fptoui bitcast.i32 bitcast.f32 sitofp uitofp ineg not; do
    for r in "0 $e" "$((0x80000000 - e)) $((0x80000000 + e))" "$(((1 << 32) - e)) $((1 << 32))" \
      "$((0x7F000000)) $((0x7F800000 + e))"; do
      set -- $r
      "$tool" --exhaustive "$op" --from "$1" --to "$2" || status=1
    done
  done
  "$tool" --random 20000 --seed 7 || status=1
  exit $status
fi
for op in fptosi fptoui bitcast.i32 bitcast.f32 sitofp uitofp ineg not; do
  sweep "$op" --exhaustive "$op"
done
for p in "${pairs[@]}"; do
  set -- $p
  sweep "pairs-$1-$2-$3-$4" --pairs "$1" --xhalf "$2" --yhalf "$3" --other "$4"
done
for l in "${literals[@]}"; do
  set -- $l
  sweep "literal-$1-$2" --exhaustive "$1" --literal "$2"
done
"$tool" --random 100000 --seed 7 || status=1
exit $status
