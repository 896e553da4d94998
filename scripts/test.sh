#!/usr/bin/env bash
# Builds FMAG and runs every test (lit + FileCheck suites and CTest unit tests).
#   scripts/test.sh              gcc build in build/: the whole suite (the single header
#                                and the Python module included), then the README's
#                                embedding recipe as written (install to a temporary
#                                prefix; examples/embed by find_package, pkg-config and
#                                the single header, compiled with gcc and with clang)
#   scripts/test.sh --clang      clang build in build-clang/ under -Werror: the unit tests
#                                and the lit directories of the compiler and the VM
#   scripts/test.sh --sanitize   ASan+UBSan build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
mode=${1:-}
dir=build
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
case "$mode" in
  "") ;;
  --sanitize) dir=build-asan flags=(-DCMAKE_BUILD_TYPE=Debug -DFMAG_SANITIZE=ON) ;;
  --clang) dir=build-clang flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang) ;;
  *) echo "usage: scripts/test.sh [--clang|--sanitize]" >&2; exit 1 ;;
esac
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
if [ "$mode" = --clang ]; then
  # The gcc build runs everything; here what the C compiler can change: the unit tests
  # and the suites that run compiled programs (compiler, VM, assembler, tools).
  (cd "$dir" && ctest --output-on-failure -j"$(nproc)")
  python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv \
    "$dir"/test/{IR,Transforms,CodeGen,SL,VM,Asm,tools}
  echo "test.sh --clang: unit tests and lit subset passed"
  exit 0
fi
cmake --build "$dir" --target check-fmag
if [ -z "$mode" ]; then
  for cc in gcc clang; do
    CC=$cc bash examples/embed/readme-recipe.sh
  done
fi
