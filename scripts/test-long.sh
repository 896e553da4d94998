#!/usr/bin/env bash
# The long checks the default command (scripts/test.sh) leaves out so that no single
# test takes more than a quarter of its time (docs/Testing.md); CI runs them after
# scripts/test.sh, on its build:
#   - the full re-proof of the superopt-peephole rules against their record
#     (scripts/superopt-reprove.sh);
#   - the lit tests that trim their work by default, in full (FMAG_TEST_LONG=1):
#     test/VM/emit-c.test compiles every example's emitted C, the largest included;
#     test/SingleHeader/single-header.test builds fmag.h with gcc and clang in both
#     C99 and C11 (the default suite: gcc C11 and clang C99);
#   - -legalize-int's exhaustive sweeps over each 2^32 one-operand domain and 10^5
#     random integer programs (scripts/intcheck-long.sh, docs/Integers.md).
#   scripts/test-long.sh [BUILD_DIR]      (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bash scripts/superopt-reprove.sh "$build"
FMAG_TEST_LONG=1 python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv "$build/test/VM/emit-c.test" \
  "$build/test/SingleHeader/single-header.test"
bash scripts/intcheck-long.sh "$build"
