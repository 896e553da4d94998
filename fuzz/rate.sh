#!/bin/sh
# Executions per CPU-second of each harness, one process at a time (fuzz/scale.sh with a
# one-process plan), and the core-hours 10^8 executions take at that rate: what a scale
# run's plan is sized from (docs/Reliability.md, "Fuzzing").
#   fuzz/rate.sh DIR SECONDS [F|A] [harness...]
# DIR as for fuzz/scale.sh (FMAG_FUZZ_BUILD_ONLY=1 [FMAG_FUZZ_MODE=fast] fuzz/run.sh 1
# DIR); every harness of DIR/bin/<build> by default (build F, the fast one). CPU time
# (user + system, GNU time) rather than wall time, so that a loaded machine reads
# about as an idle one; seeds FMAG_FUZZ_SEED_BASE (default 7000000) + 1000.
set -u
[ $# -ge 2 ] || { echo "usage: fuzz/rate.sh DIR SECONDS [F|A] [harness...]" >&2; exit 2; }
dir=$(cd "$1" && pwd) || exit 2
secs=$2
shift 2
mode=F
case ${1:-} in F | A) mode=$1; shift ;; esac
[ $# -gt 0 ] || set -- $(ls "$dir/bin/$mode")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
status=0
printf '%-18s %5s %12s %8s %12s %12s\n' harness build executions cpu_s exec/cpu_s core_h_1e8
for h in "$@"; do
    echo "$h $mode 1" > "$tmp/plan"
    FMAG_FUZZ_SEED_BASE=${FMAG_FUZZ_SEED_BASE:-7000000} /usr/bin/time -f '%U %S' -o "$tmp/time" \
        sh "$here/scale.sh" "$dir" "$tmp/plan" "$secs" "$tmp/$h" > "$tmp/$h.out" 2>&1 || status=1
    ex=$(awk -v h="$h" '$1 == h {print $4}' "$tmp/$h/summary.txt" 2>/dev/null)
    awk -v h="$h" -v m="$mode" -v ex="${ex:-0}" '{cpu = $1 + $2; r = cpu > 0 ? ex / cpu : 0
        ch = r > 0 ? 1e8 / r / 3600 : 0
        printf "%-18s %5s %12d %8.1f %12.0f %12.2f\n", h, m, ex, cpu, r, ch}' "$tmp/time"
done
rm -rf "$tmp"
exit $status
