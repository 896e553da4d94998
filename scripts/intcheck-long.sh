#!/usr/bin/env bash
# The long proofs of -legalize-int (docs/Integers.md), left out of scripts/test.sh:
#   - every 32-bit input of each one-operand operation whose domain is 2^32: every
#     float for fptosi, fptoui, bitcast.i32 (the -O2 program on the batch engine and,
#     every 64th, the reference VM; a non-finite float on the legalized IR through the
#     interpreter); every integer for sitofp, uitofp, bitcast.f32, ineg and not;
#   - 10^5 random integer programs (interpreter at -O0 against -O2 on both VMs).
# The 2^32 sweeps split into JOBS slices run side by side (default: nproc): about 3
# CPU-minutes per operation on a 2026 x86 core.
#   scripts/intcheck-long.sh [BUILD_DIR] [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
jobs=${2:-$(nproc)}
tool=$build/bin/fmag-intcheck
status=0
for op in fptosi fptoui bitcast.i32 bitcast.f32 sitofp uitofp ineg not; do
  step=$(( (1 << 32) / jobs + 1 ))
  pids=()
  for ((j = 0; j < jobs; j++)); do
    from=$(( j * step )); to=$(( (j + 1) * step )); (( to > (1 << 32) )) && to=$(( 1 << 32 ))
    (( from >= to )) && continue
    "$tool" --exhaustive "$op" --from "$from" --to "$to" > "$build/intcheck-$op-$j.log" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  cat "$build"/intcheck-"$op"-*.log | awk -v op="$op" '{c += $(NF-3); f += $(NF-1)} END {printf "%s: %d inputs, %d failures\n", op, c, f}'
done
"$tool" --random 100000 --seed 7 || status=1
exit $status
