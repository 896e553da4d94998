#!/usr/bin/env bash
# ThreadSanitizer step (docs/Reliability.md): builds with -DFMAG_TSAN=ON in
# build-tsan/ and runs the unit tests that use threads: context-per-thread
# compiles (threads-unittests), the batch engine's pool (vm-unittests) and the
# superoptimizer's parallel proof (superopt -e ... with its worker threads), and the GPU
# runners' bake cache (fmag-gpu-tier-unittests --cache-only: threads asking for the same
# programs while the bake thread bakes them).
# Any data race report fails the step (halt_on_error).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-tsan}
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFMAG_TSAN=ON >/dev/null
cmake --build "$dir" -j"$(nproc)" --target fmag-threads-unittests fmag-vm-unittests superopt fmag-run \
    fmag-gpu-tier-unittests
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1"
(cd "$dir" && ctest --output-on-failure -R '^(threads|vm)-unittests$')
# The tier cache: the bake thread and six threads on one cache (a stand-in compiler).
"$dir/unittests/GPU/fmag-gpu-tier-unittests" --cache-only
# The superoptimizer's proof: four worker threads over sampled input pairs (the
# exhaustive one-input proof is the same code, 2^32 inputs: minutes under TSan).
"$dir/bin/superopt" -e "max(x, y)" --threads 4 --samples 200000 --no-compare >/dev/null
# The batch engine with every thread count through the tool.
printf '.def f, 2, 1\n  %%r0 = fmag %%r0, %%r1, 1.0, %%r1\n' > "$dir/tsan.fmas"
python3 -c "
import struct,sys
sys.stdout.buffer.write(b''.join(struct.pack('<ff', i * 0.25, 1.0 - i * 0.5) for i in range(100000)))" \
    > "$dir/tsan-in.f32"
"$dir/bin/fmag-run" "$dir/tsan.fmas" --backend=batch --in-file "$dir/tsan-in.f32" >/dev/null
echo "tsan: clean"
