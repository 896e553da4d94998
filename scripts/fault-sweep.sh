#!/usr/bin/env bash
# The full fault-injection sweep (docs/Reliability.md): every example compiled with
# the Nth allocation failing, for every N, under ASan + UBSan (build-asan/), then one
# GLSL and one HLSL shader through shaderc and the SPIR-V reader the same way. The
# CTest runs (fault-unittests, shader-fault-unittests) sample N; this runs them all.
#   scripts/fault-sweep.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-asan}
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DFMAG_SANITIZE=ON >/dev/null
fi
cmake --build "$dir" -j"$(nproc)" --target fmag-fault-unittests
FMAG_FAULT_FULL=1 "$dir/unittests/Reliability/fmag-fault-unittests"
# The GLSL/HLSL front door (a test only when shaderc is found).
# (captured first: `ctest -N | grep -q` under pipefail fails when grep quits early)
tests=$(cd "$dir" && ctest -N)
if grep -q shader-fault-unittests <<<"$tests"; then
  cmake --build "$dir" -j"$(nproc)" --target fmag-shader-fault-unittests
  FMAG_FAULT_FULL=1 "$dir/unittests/Reliability/fmag-shader-fault-unittests"
fi
