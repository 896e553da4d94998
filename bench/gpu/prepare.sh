#!/bin/bash
# bench/gpu/prepare.sh BUILD: fills .spv (ignored by git, carried to the device machine, which
# has no glslc, no Vulkan headers and may not build slc) with the SPIR-V builds of
# lib/GPU/CMakeLists.txt, the Vulkan headers, and the SL examples of the suite compiled by this
# checkout's slc (bench/gpu/run.sh prefers compiling them there; these are the fallback).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:?usage: bench/gpu/prepare.sh BUILD-DIR (with slc built)}
cd "$ROOT"
mkdir -p .spv/include .spv/sl
V="-O --target-env=vulkan1.1 -I gpu gpu/fmag_run.comp"
glslc $V -o .spv/fmag_run.spv
glslc $V -DFMAG_PREDECODED -o .spv/fmag_run_pd.spv
glslc $V -DFMAG_WORKGROUP_RF -DFMAG_PREDECODED -o .spv/fmag_run_wg_pd.spv
F="-O --target-env=vulkan1.1 -I gpu gpu/fmag_fast.comp"
glslc $F -o .spv/fmag_fast.spv
glslc $F -DFMAG_VEC=2 -o .spv/fmag_fast_v2.spv
glslc $F -DFMAG_VEC=4 -o .spv/fmag_fast_v4.spv
glslc -O --target-env=vulkan1.1 -I gpu -o .spv/fmag_bin.spv gpu/fmag_bin.comp # per-lane binning
mkdir -p .spv/include/vulkan && cp /usr/include/vulkan/*.h .spv/include/vulkan/
[ -d /usr/include/vk_video ] && cp -r /usr/include/vk_video .spv/include/
# the Vulkan tiers' GLSL compiler (lib/GPU/CMakeLists.txt), where this build made it
[ -e "$BUILD/lib/libfmag-shaderc.so" ] && strip -o .spv/libfmag-shaderc.so "$BUILD/lib/libfmag-shaderc.so"
# the SL examples only where this build has slc (bench/gpu/e2e.sh needs none)
if [ -x "$BUILD/bin/slc" ]; then
    for x in $(cat bench/gpu/sl-suite.txt); do
        "$BUILD/bin/slc" "examples/$x.sl" -o ".spv/sl/$x.fmag"
    done
fi
ls -la .spv .spv/sl
