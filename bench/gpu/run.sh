#!/bin/bash
# bench/gpu/run.sh: the one command for the H200 (device tool). Builds the GPU benchmark,
# records the compiler's resource report and SASS, runs the suite (bit-exact checks on
# sampled elements) and, where NVIDIA's Vulkan driver loads, the Vulkan runner too.
#   bench/gpu/run.sh [bench args: --n=N --evals=E]   (results in $OUT, else ./build-gpu-bench)
# Carry `.gl` (Vulkan loader .debs, see docs/GPU.md) and `.spv` (SPIR-V built here by glslc).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR=${OUT:-$ROOT/build-gpu-bench}
mkdir -p "$OUTDIR"
B=/tmp/fmag-gpu-bench
mkdir -p $B
cd "$ROOT"
export PATH=/usr/local/cuda/bin:$PATH
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
    nvcc --version | tail -2
} 2>&1 | tee "$OUTDIR/env.txt"

# Vulkan loader (optional): unpack the carried .debs, as the device README says.
VK=0
if ls .gl/*.deb >/dev/null 2>&1; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    if [ ! -e /usr/share/vulkan/icd.d/nvidia_icd.json ] && [ -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
        export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    fi
fi
VKFLAGS=""
if [ -e .spv/fmag_spirv.c ] && [ -d .spv/include ]; then
    VK=1
    gcc -O2 -std=c11 -Iinclude -I.spv/include -I. -c lib/GPU/vulkan_runner.c -o $B/vulkan_runner.o || VK=0
    gcc -O2 -std=c11 -Iinclude -c .spv/fmag_spirv.c -o $B/fmag_spirv.o || VK=0
    if [ $VK = 1 ]; then
        VKFLAGS="-DFMAG_BENCH_VULKAN $B/vulkan_runner.o $B/fmag_spirv.o -ldl"
    fi
fi

echo "== build (ptxas -v in ptxas.txt)"
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -Iinclude -o $B/fmag_gpu_bench bench/gpu/fmag_gpu_bench.cu \
    $VKFLAGS -lnvrtc -lcuda >"$OUTDIR/ptxas.txt" 2>&1 || { tail -30 "$OUTDIR/ptxas.txt"; exit 1; }
cuobjdump -sass $B/fmag_gpu_bench >"$OUTDIR/sass.txt" 2>&1 || true
# the library's kernels as the runner embeds them
if [ -e gpu/fmag_cuda.cu ]; then
    nvcc -O3 -arch=sm_90 -Xptxas -v -cubin -o $B/fmag_cuda.cubin gpu/fmag_cuda.cu >"$OUTDIR/ptxas-lib.txt" 2>&1 || true
fi

echo "== run"
FMAG_BENCH_CSV="$OUTDIR/bench.csv" $B/fmag_gpu_bench "$@" 2>&1 | tee "$OUTDIR/bench.txt"
rc=${PIPESTATUS[0]}

# The library path end to end (fmag-run --backend=cuda|vulkan and the GPU unit tests),
# when the rest of the tree builds here.
if [ -n "${FMAG_BENCH_LIBTEST:-}" ]; then
    echo "== library tests"
    (cmake -S . -B $B/build -DCMAKE_BUILD_TYPE=Release -DFMAG_WERROR=OFF ${FMAG_CMAKE_ARGS:-} >/dev/null &&
        cmake --build $B/build -j16 --target fmag-gpu-unittests >"$OUTDIR/libbuild.txt" 2>&1 &&
        $B/build/unittests/GPU/fmag-gpu-unittests) 2>&1 | tail -30 | tee "$OUTDIR/libtest.txt"
fi
exit $rc
