#!/bin/bash
# bench/gpu/run.sh: the one command for the H200 (device tool). Builds the GPU benchmark,
# records the compiler's resource report and SASS, runs the suite (bit-exact checks on
# sampled elements) and, where NVIDIA's Vulkan driver loads, the Vulkan runner too.
#   bench/gpu/run.sh [bench args: --n=N --evals=E --quick --tiers]   (results in $OUT, else
#   ./build-gpu-bench; --quick skips the design variants that lost in earlier runs; --tiers
#   runs only the native rows, the runners' automatic rows and the tier and binning rows
#   (docs/GPU.md, "Tiers"), with the GPU unit tests after the benchmark;
#   FMAG_BENCH_OLD_NATIVE=1 adds the bench's former CUDA generator as the `native-old` row
#   beside the library emitter's `native`; the driver's internal representations of some
#   Vulkan pipelines, where it offers any, land in $OUT/ir)
# Carry `.gl` (Vulkan loader .debs, see docs/GPU.md) and `.spv` (SPIR-V, Vulkan headers,
# fallback SL .fmag files and libfmag-shaderc.so for the Vulkan tiers, made here by
# `bash bench/gpu/prepare.sh BUILD`).
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
if ls .gl/*.deb >/dev/null 2>&1; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    if [ ! -e /usr/share/vulkan/icd.d/nvidia_icd.json ] && [ -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
        export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    fi
fi
# The benchmark compiles (about a minute) while the library builds.
NVFLAGS="-O3 -std=c++17 -arch=sm_90 -Iinclude -Igpu -Ilib/GPU"
(nvcc $NVFLAGS -Xptxas -v -DFMAG_BENCH_VULKAN -c -o $B/bench.o bench/gpu/fmag_gpu_bench.cu \
    >"$OUTDIR/ptxas.txt" 2>&1; echo $? >$B/bench.rc) &
BPID=$!

# The library (fmagGPU + fmagVM) through CMake: the Vulkan runner for the bench's Vulkan rows,
# and the GPU unit tests (CUDA and Vulkan runners against the reference VM) on this machine.
# SPIR-V and Vulkan headers come prebuilt in .spv when glslc / vulkan-dev are missing.
VKFLAGS=""
CMARGS="-DCMAKE_BUILD_TYPE=Release -DFMAG_WERROR=OFF"
if [ -e .spv/fmag_run.spv ] && ! command -v glslc >/dev/null; then
    CMARGS="$CMARGS -DFMAG_SPIRV_PREBUILT=$ROOT/.spv/fmag_run.spv -DFMAG_VULKAN_INCLUDE_DIR=$ROOT/.spv/include"
fi
# the Vulkan baker's GLSL compiler (the device has no shaderc): the module built here
if [ -e .spv/libfmag-shaderc.so ] && [ -z "${FMAG_SHADERC_LIBRARY:-}" ]; then
    export FMAG_SHADERC_LIBRARY=$ROOT/.spv/libfmag-shaderc.so
fi
TIERS=0
for a in "$@"; do [ "$a" = --tiers ] && TIERS=1; done
echo "== library build"
SLARGS=()
if cmake -S . -B $B/build $CMARGS >"$OUTDIR/libconfig.txt" 2>&1 &&
    cmake --build $B/build -j16 --target fmagGPU fmag-gpu-unittests fmag-gpu-tier-unittests \
        >"$OUTDIR/libbuild.txt" 2>&1; then
    grep "fmagGPU:" "$OUTDIR/libconfig.txt"
    VKFLAGS="$B/build/lib/GPU/libfmagGPU.a $B/build/lib/VM/libfmagVM.a -ldl -lpthread"
    echo "== GPU tier unit tests (bake cache; baked code vs the reference VM; binning)"
    $B/build/unittests/GPU/fmag-gpu-tier-unittests 2>&1 | tail -40 | tee "$OUTDIR/tiertest.txt"
    if [ $TIERS = 0 ]; then
        echo "== GPU unit tests (runners vs the reference VM)"
        $B/build/unittests/GPU/fmag-gpu-unittests 2>&1 | tail -40 | tee "$OUTDIR/libtest.txt"
    fi
    # SL examples of the suite: compiled here by slc, else the ones prepare.sh carried
    echo "== SL examples (bench/gpu/sl-suite.txt)"
    SLDIR=$B/sl
    mkdir -p $SLDIR
    # FMAG_BENCH_CARRIED_SL=1: the carried .fmag files, no slc, fmag-opt or fmag-run build
    # (a short device call: the P2c rows and the fmag-run lines are left out)
    LEAN=${FMAG_BENCH_CARRIED_SL:-}
    if [ -z "$LEAN" ] && cmake --build $B/build -j16 --target slc >>"$OUTDIR/libbuild.txt" 2>&1; then
        SLC="$B/build/bin/slc"
    else
        SLC=""
        echo "slc did not build here: using the .fmag files carried in .spv/sl"
    fi
    for x in $(cat bench/gpu/sl-suite.txt); do
        f=$SLDIR/$x.fmag
        if [ -n "$SLC" ] && "$SLC" "examples/$x.sl" -o "$f"; then :; else cp ".spv/sl/$x.fmag" "$f" || continue; fi
        demo=$(head -1 "examples/$x.sl" | sed -n 's#^// demo-input: *##p' | tr -d ' ')
        SLARGS+=("--sl=$f@$demo")
    done
    # FMAG_BENCH_INT=1: the integer hashes of bench/int (issue 27's throughput rows); off by
    # default, since every --sl program joins SL-mix-L and would change that row's mix
    if [ -n "$SLC" ] && [ "${FMAG_BENCH_INT:-0}" = 1 ]; then
        for f in bench/int/*.sl; do
            o=$SLDIR/int-$(basename "$f" .sl).fmag
            "$SLC" "$f" -o "$o" && SLARGS+=("--sl=$o@$(sed -n 's#^// demo-input: *##p' "$f" | tr -d ' ')")
        done
    fi
    echo "${SLARGS[@]}"
    # the compiled node graphs (P2c) need fmag-opt
    FMAG_OPT=""
    if [ -z "$LEAN" ] && cmake --build $B/build -j16 --target fmag-opt >>"$OUTDIR/libbuild.txt" 2>&1; then
        FMAG_OPT="$B/build/bin/fmag-opt"
    fi
    # fmag-run end to end (needs the rest of the tree to build here)
    if [ -z "$LEAN" ] && cmake --build $B/build -j16 --target fmag-run >>"$OUTDIR/libbuild.txt" 2>&1; then
        for bk in ref cuda vulkan; do
            echo "fmag-run --backend=$bk test/GPU/cuda-exact.fmas:" $($B/build/bin/fmag-run \
                --backend=$bk test/GPU/cuda-exact.fmas --in 1.000244140625,1.000244140625,-1.00048828125 \
                --in 2,3,4 --in -0,5,-0 2>&1)
        done
    fi
else
    echo "library build failed (see libbuild.txt); benchmark without the Vulkan runner"
    tail -20 "$OUTDIR/libbuild.txt"
fi

echo "== benchmark build (ptxas -v in ptxas.txt, SASS in sass.txt.gz)"
wait $BPID
if [ "$(cat $B/bench.rc)" != 0 ]; then tail -30 "$OUTDIR/ptxas.txt"; exit 1; fi
if [ -n "$VKFLAGS" ]; then
    nvcc $NVFLAGS -o $B/fmag_gpu_bench $B/bench.o $VKFLAGS -lnvrtc -lcuda || exit 1
else
    nvcc $NVFLAGS -o $B/fmag_gpu_bench bench/gpu/fmag_gpu_bench.cu -lnvrtc -lcuda || exit 1
fi
cuobjdump -sass $B/fmag_gpu_bench >$B/sass.txt 2>&1 || true
gzip -c $B/sass.txt >"$OUTDIR/sass.txt.gz" # the whole SASS is over the 16 MB a file may bring back

# P2c: the benchmark writes its P2live node graphs as .fir; the toolchain compiles them
if [ -n "${FMAG_OPT:-}" ]; then
    P2C=$B/p2c
    rm -rf $P2C && mkdir -p $P2C
    if $B/fmag_gpu_bench --write-fir=$P2C; then
        ok=1
        for f in $P2C/u.fir $P2C/l*.fir; do "$FMAG_OPT" -O2 -lower "$f" -o "${f%.fir}.fmag" || ok=0; done
        [ $ok = 1 ] && SLARGS+=("--p2c=$P2C")
    fi
fi

echo "== run"
# the driver's internal representations of some pipelines, where it offers them
mkdir -p "$OUTDIR/ir"
FMAG_BENCH_IR_DIR="$OUTDIR/ir" FMAG_BENCH_CSV="$OUTDIR/bench.csv" $B/fmag_gpu_bench ${SLARGS[@]+"${SLARGS[@]}"} "$@" 2>&1 | tee "$OUTDIR/bench.txt"
rc=${PIPESTATUS[0]}
if [ $TIERS = 1 ] && [ -x $B/build/unittests/GPU/fmag-gpu-unittests ]; then
    echo "== GPU unit tests (runners vs the reference VM), ${FMAG_BENCH_UNITTEST_S:-300} s at most"
    timeout "${FMAG_BENCH_UNITTEST_S:-300}" $B/build/unittests/GPU/fmag-gpu-unittests 2>&1 |
        tail -40 | tee "$OUTDIR/libtest.txt"
fi

exit $rc
