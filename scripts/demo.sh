#!/usr/bin/env bash
# Builds FMAG and runs the demo: a .fir module through the optimizer, lowered to
# the FMAG stream, assembled, and run on the reference VM.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh demo
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
bin=build/bin
demo=docs/examples/lerp.fir
echo "== $demo"
cat "$demo"
echo "== fmag-opt -O2"
$bin/fmag-opt "$demo" -O2
if [ -x $bin/fmag-run ]; then
  echo "== fmag-run (IR interpreter) --in 2,10"
  $bin/fmag-run "$demo" --in 2,10
fi
if $bin/fmag-opt "$demo" -O2 -lower >/dev/null 2>&1; then
  echo "== fmag-opt -O2 -lower (the FMAG stream)"
  $bin/fmag-opt "$demo" -O2 -lower
  $bin/fmag-opt "$demo" -O2 -lower -o build/demo.fmag
  echo "== fmag-run build/demo.fmag --in 2,10 (reference VM)"
  $bin/fmag-run build/demo.fmag --in 2,10
fi
if [ -x $bin/slc ] && [ -f examples/run-demo.sh ]; then
  echo "== examples/*.sl: slc -O2 (and -ffast-math), run on the reference VM, checked"
  echo "   against the IR interpreter on the unoptimized IR"
  sh examples/run-demo.sh build
fi
