#!/bin/sh
# Fuzzing at scale on a machine without clang (docs/Reliability.md, "Fuzzing"): runs
# prebuilt harness binaries as independent libFuzzer processes, one per core, and
# sums libFuzzer's final statistics per harness.
#   fuzz/scale.sh DIR PLAN SECONDS OUT
# DIR holds bin/F/<harness> (FMAG_FUZZ_MODE=fast: libFuzzer + UBSan, -O2),
# bin/A/<harness> (ASan + UBSan), corpus/<harness>/ (the seeds) and dict/ (the
# dictionaries), as made by
#   FMAG_FUZZ_BUILD_ONLY=1 [FMAG_FUZZ_MODE=fast] fuzz/run.sh 1 DIR
# PLAN has one line per harness and build: "harness F|A processes"; every process
# runs SECONDS with -seed=<base + its index> (base 1000 * line number, plus
# FMAG_FUZZ_SEED_BASE when set, so that later campaigns differ), its own
# output corpus and the seeds. OUT receives one log per process, any crash, leak
# or timeout input (crash-*, leak-*, timeout-*) and summary.txt; the logs are
# gzipped at the end. The exit status
# is non-zero when a process fails (a crash, a sanitizer report, a timeout).
set -u
[ $# -eq 4 ] || { echo "usage: fuzz/scale.sh DIR PLAN SECONDS OUT" >&2; exit 2; }
plan=$2
secs=$3
mkdir -p "$4/logs" "$4/artifacts" "$4/work"
# Absolute paths: each process runs in DIR (its corpus paths are relative to it), and
# DIR and OUT may be given relative to where this starts (a device run's repository
# root, DIR a carried build-fuzz).
dir=$(cd "$1" && pwd) || exit 2
out=$(cd "$4" && pwd) || exit 2
line=0
pids=""
while read -r h mode procs; do
    case $h in '' | '#'*) continue ;; esac
    line=$((line + 1))
    bin=$dir/bin/$mode/$h
    [ -x "$bin" ] || { echo "scale.sh: no $bin" >&2; exit 2; }
    extra=""
    # The fast build uses glibc's malloc: keep freed memory in the process instead of
    # handing it back to the kernel between runs (trimming cost the compile-and-run
    # harness a brk call every three executions and a third more page faults, which a
    # sandboxed kernel makes expensive). The ASan build has its own allocator.
    tun=""
    [ "$mode" = F ] && tun="glibc.malloc.trim_threshold=1073741824:glibc.malloc.top_pad=16777216"
    # The compile-and-run harness reads 11 bytes; entropic scheduling cost it a third
    # of its time (docs/Reliability.md).
    [ "$h" = e2e-fuzz ] && extra="-max_len=11 -entropic=0"
    # The harness's dictionary, as fuzz/run.sh passes it (slc's keywords).
    [ -f "$dir/dict/$h.dict" ] && extra="$extra -dict=$dir/dict/$h.dict"
    i=0
    while [ "$i" -lt "$procs" ]; do
        seed=$((${FMAG_FUZZ_SEED_BASE:-0} + 1000 * line + i))
        tag=$h-$mode-$i
        mkdir -p "$out/work/$tag"
        echo "$bin -seed=$seed -max_total_time=$secs -timeout=60 -print_final_stats=1 $extra" \
            "-artifact_prefix=$out/artifacts/$tag- work/$tag corpus/$h" > "$out/logs/$tag.log"
        # shellcheck disable=SC2086
        (cd "$dir" && GLIBC_TUNABLES=$tun "$bin" -seed="$seed" -max_total_time="$secs" -timeout=60 \
            -print_final_stats=1 $extra -artifact_prefix="$out/artifacts/$tag-" \
            "$out/work/$tag" "corpus/$h" >> "$out/logs/$tag.log" 2>&1; echo "exit: $?" >> "$out/logs/$tag.log") &
        pids="$pids $!"
        i=$((i + 1))
    done
done < "$plan"
for p in $pids; do
    wait "$p"
done
status=0
# Executions are libFuzzer's stat::number_of_executed_units of each completed run.
{
    echo "# harness build processes executions failed incomplete"
    for log in "$out"/logs/*.log; do
        tag=$(basename "$log" .log)
        ex=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | head -1)
        fail=$(grep -c '^exit: [1-9]' "$log")
        echo "${tag%-*} ${ex:-0} $fail $([ -n "$ex" ] && echo 0 || echo 1)"
    done | awk '{n[$1]++; e[$1]+=$2; f[$1]+=$3; i[$1]+=$4}
        END {for (k in n) printf "%s %d %.0f %d %d\n", k, n[k], e[k], f[k], i[k]}' |
        sed 's/-\([FA]\) / \1 /' | sort
} > "$out/summary.txt"
cat "$out/summary.txt"
grep -l '^exit: [1-9]' "$out"/logs/*.log && status=1
ls "$out/artifacts" | head -20
rm -rf "$out/work"
gzip -9 "$out"/logs/*.log
exit $status
