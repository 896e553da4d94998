#!/bin/bash
# bench/gpu/e2e.sh: the device command for the runners' call path (issue 32, "the runner call
# at the speed of the bus"). Builds the library (CUDA fatbin; Vulkan SPIR-V from .spv where
# glslc is missing), times the end-to-end rows (bench/gpu/E2EBench.c: fmag_run from the host
# on examples/node_graph_a.sl, 4,194,304 elements, against the copies alone and the batch
# engine on 16 threads), then runs the GPU and API unit tests on both runners.
#   bench/gpu/e2e.sh [fmag-gpu-e2e args]      (logs in $OUT, else ./build-gpu-e2e)
#   FMAG_E2E_BIN=DIR: the three programs built elsewhere (x86-64, CUDA enabled: the device
#   time then goes to the runs alone), in DIR instead of a build here
# Carry `.gl` (the Vulkan loader .debs: libvulkan1 and the libglvnd packages libglvnd0, libegl1,
# libgl1, libglx0, libgles2, libopengl0, which NVIDIA's ICD needs; docs/GPU.md) and `.spv`
# (bash bench/gpu/prepare.sh BUILD).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR=${OUT:-$ROOT/build-gpu-e2e}
mkdir -p "$OUTDIR"
B=/tmp/fmag-gpu-e2e
cd "$ROOT"
export PATH=/usr/local/cuda/bin:$PATH
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
    echo "cpus: $(nproc)"
} 2>&1 | tee "$OUTDIR/env.txt"
if ls .gl/*.deb >/dev/null 2>&1; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    if [ ! -e /usr/share/vulkan/icd.d/nvidia_icd.json ] && [ -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
        export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    fi
fi
CMARGS="-DCMAKE_BUILD_TYPE=Release -DFMAG_WERROR=OFF"
if [ -e .spv/fmag_run.spv ] && ! command -v glslc >/dev/null; then
    CMARGS="$CMARGS -DFMAG_SPIRV_PREBUILT=$ROOT/.spv/fmag_run.spv -DFMAG_VULKAN_INCLUDE_DIR=$ROOT/.spv/include"
fi
E2E=$B/bin/fmag-gpu-e2e GPUTEST=$B/unittests/GPU/fmag-gpu-unittests
APITEST=$B/unittests/API/fmag-api-unittests
if [ -n "${FMAG_E2E_BIN:-}" ]; then
    E2E=$FMAG_E2E_BIN/fmag-gpu-e2e GPUTEST=$FMAG_E2E_BIN/fmag-gpu-unittests
    APITEST=$FMAG_E2E_BIN/fmag-api-unittests
else
echo "== build"
t0=$(date +%s)
cmake -S . -B $B $CMARGS >"$OUTDIR/config.txt" 2>&1 || { tail -20 "$OUTDIR/config.txt"; exit 1; }
grep "fmagGPU:" "$OUTDIR/config.txt"
cmake --build $B -j"$(nproc)" --target fmag-gpu-e2e fmag-gpu-unittests fmag-api-unittests \
    >"$OUTDIR/build.txt" 2>&1 || { grep -B2 -A8 "error" "$OUTDIR/build.txt" | head -60; exit 1; }
echo "built in $(($(date +%s) - t0)) s"
fi
echo "== end to end"
$E2E examples/node_graph_a.sl --n=4194304 --reps=10 --threads=16 "$@" 2>&1 |
    tee "$OUTDIR/e2e.txt"
echo "== GPU unit tests (both runners against the reference VM)"
t0=$(date +%s)
timeout 150 $GPUTEST >"$OUTDIR/gputest.txt" 2>&1
echo "rc=$? in $(($(date +%s) - t0)) s"
grep -v "^vulkan: design\|^  " "$OUTDIR/gputest.txt" | tail -25
echo "== API unit tests"
timeout 30 $APITEST >"$OUTDIR/apitest.txt" 2>&1
echo "rc=$?"
tail -5 "$OUTDIR/apitest.txt"
