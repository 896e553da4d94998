#!/bin/bash
# bench/gpu/carried.sh DIR: the whole GPU check in one short device call, with everything built
# here (bench/gpu/pack.sh DIR fills DIR: the GPU/API unit tests, fmag-gpu-e2e and the benchmark
# built with CUDA on, the SL suite and bench/int as .fmag, the shaderc module, the Vulkan loader
# .debs). Runs the end-to-end rows (issue 32's call at the speed of the bus, interpreted and
# baked), the tier unit tests (the NVRTC and shaderc bakes on the real driver), the benchmark's
# --tiers rows (baked against native, binning), issue 27's integer hash rows, and the GPU and
# API unit tests (about 10 minutes at most). Logs in $OUT.
set -u
D=$(cd "${1:?usage: bench/gpu/carried.sh DIR}" && pwd)
OUTDIR=${OUT:-/tmp/fmag-carried}
mkdir -p "$OUTDIR"
cd "$(dirname "$0")/../.."
for f in "$D"/gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ ! -e /usr/share/vulkan/icd.d/nvidia_icd.json ] && [ -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
export LD_LIBRARY_PATH=$D/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export FMAG_SHADERC_LIBRARY=$D/lib/libfmag-shaderc.so
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv
    echo "cpus: $(nproc)"
} 2>&1 | tee "$OUTDIR/env.txt"
step() { # name, seconds, command... (ONLY="a b": just those steps)
    local name=$1 secs=$2
    shift 2
    if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then return; fi
    echo "== $name"
    local t0=$(date +%s)
    timeout "$secs" "$@" >"$OUTDIR/$name.txt" 2>&1
    echo "rc=$? in $(($(date +%s) - t0)) s"
    tail -${TAIL:-30} "$OUTDIR/$name.txt"
}
step e2e 90 "$D/bin/fmag-gpu-e2e" examples/node_graph_a.sl --n=4194304 --reps=10 --threads=16
# the same call once the program is baked (first run to native use included in its log)
TAIL=15 step e2e-eager 60 "$D/bin/fmag-gpu-e2e" examples/node_graph_a.sl --n=4194304 --reps=10 \
    --threads=16 --tier=eager
TAIL=25 step tiertest 90 "$D/bin/fmag-gpu-tier-unittests"
SL=()
for f in "$D"/sl/*.fmag; do
    x=$(basename "$f" .fmag)
    SL+=("--sl=$f@$(head -1 "examples/$x.sl" | sed -n 's#^// demo-input: *##p' | tr -d ' ')")
done
TAIL=80 step bench-tiers 140 "$D/bin/fmag_gpu_bench" --tiers "${SL[@]}"
# issue 27: each integer hash interpreted, baked and native (a run of its own, so the hashes
# do not join the SL suite's SL-mix-L row)
INT=()
for f in "$D"/int/*.fmag; do
    INT+=("--sl=$f@$(sed -n 's#^// demo-input: *##p' "bench/int/$(basename "$f" .fmag).sl" | tr -d ' ')")
done
TAIL=60 step bench-int 300 "$D/bin/fmag_gpu_bench" --tiers "${INT[@]}"
TAIL=12 step gputest 90 "$D/bin/fmag-gpu-unittests"
TAIL=5 step apitest 30 "$D/bin/fmag-api-unittests"
# issue 29's compile latency on the device host's CPU (a dedicated machine, beside the shared
# development machine's figures in docs/PERFORMANCE.md), when pack.sh carried the benches
if [ -x "$D/bin/mtlx-bench" ]; then
    TAIL=8 step cpu-compile 60 bash -c "for t in color3 float; do for m in parse edit; do
        taskset -c 2 $D/bin/mtlx-bench --compile-only --type \$t --mode \$m --min-ms 2000; done; done;
        taskset -c 2 $D/bin/slc-bench --graph 60 --fast-only --min-ms 2000; lscpu | grep 'Model name'"
fi
# issue 32's CPU side: the batch engine's per-lane binning on the host's cores
if [ -x "$D/bin/fmag-bin-bench" ]; then
    TAIL=20 step cpu-bin 120 "$D/bin/fmag-bin-bench" --n=2097152 --threads="$(nproc)" "$D"/sl/*.fmag
fi
# one file back (what comes back from the device is limited in count)
(cd "$OUTDIR" && tar -czf logs.tgz ./*.txt && rm -f ./*.txt)
