#!/bin/bash
# bench/gpu/pack.sh BUILD DIR: fills DIR for bench/gpu/carried.sh from BUILD (a CMake build of
# this tree with the CUDA runner on: nvcc found) and builds the benchmark here with nvcc, so
# the device call spends its time running, not compiling. Carry DIR (under .devcarry/, which
# git ignores) to the device machine.
set -eu
B=$(cd "${1:?usage: bench/gpu/pack.sh BUILD DIR}" && pwd)
D=${2:?usage: bench/gpu/pack.sh BUILD DIR}
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$D/bin" "$D/lib" "$D/sl" "$D/gl"
cmake --build "$B" --target fmag-gpu-e2e fmag-gpu-unittests fmag-gpu-tier-unittests \
    fmag-api-unittests slc mtlx-bench slc-bench fmag-bin-bench >/dev/null
for p in bin/fmag-gpu-e2e unittests/GPU/fmag-gpu-unittests unittests/GPU/fmag-gpu-tier-unittests \
    unittests/API/fmag-api-unittests bin/mtlx-bench bin/slc-bench bin/fmag-bin-bench; do
    strip -o "$D/bin/$(basename $p)" "$B/$p"
done
NV="-O3 -std=c++17 -arch=sm_90 -Iinclude -Igpu -Ilib/GPU"
nvcc $NV -DFMAG_BENCH_VULKAN -c -o "$D/bench.o" bench/gpu/fmag_gpu_bench.cu
nvcc $NV -o "$D/bin/fmag_gpu_bench" "$D/bench.o" "$B/lib/GPU/libfmagGPU.a" "$B/lib/VM/libfmagVM.a" \
    -ldl -lpthread -lnvrtc -lcuda -L/usr/local/cuda/lib64/stubs -L/usr/local/cuda/lib64
rm "$D/bench.o"
strip "$D/bin/fmag_gpu_bench"
strip -o "$D/lib/libfmag-shaderc.so" "$B/lib/libfmag-shaderc.so"
cp -L /lib/x86_64-linux-gnu/libexpat.so.1 "$D/lib/"
for x in $(cat bench/gpu/sl-suite.txt); do "$B/bin/slc" "examples/$x.sl" -o "$D/sl/$x.fmag"; done
mkdir -p "$D/int" # issue 27's hash rows (bench/int)
for f in bench/int/*.sl; do "$B/bin/slc" "$f" -o "$D/int/$(basename "$f" .sl).fmag"; done
if ! ls "$D"/gl/*.deb >/dev/null 2>&1; then # the Vulkan loader and glvnd (docs/GPU.md)
    o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
    mkdir -p /tmp/amd64/partial
    apt-get $o update >/dev/null
    (cd "$D/gl" && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fi
du -sh "$D"
