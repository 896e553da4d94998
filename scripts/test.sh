#!/usr/bin/env bash
# Builds FMAG and runs every test (lit + FileCheck suites and CTest unit tests).
#   scripts/test.sh              gcc build in build/: the whole suite (the single header
#                                and the Python module included), then the README's
#                                embedding recipe as written (install to a temporary
#                                prefix; examples/embed by find_package, pkg-config and
#                                the single header, compiled with gcc and with clang)
#   scripts/test.sh --clang      clang build in build-clang/ under -Werror, with
#                                -DBUILD_SHARED_LIBS=ON: the unit tests, the lit directories
#                                of the compiler and the VM, and examples/embed built by
#                                find_package and pkg-config against that install (libfmag.so)
#   scripts/test.sh --sanitize   ASan+UBSan build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
mode=${1:-}
# Debian's clang-14 package installs clang-14; `clang` comes with the clang package.
clang=$(command -v clang || command -v clang-14)
dir=build
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
case "$mode" in
  "") ;;
  --sanitize) dir=build-asan flags=(-DCMAKE_BUILD_TYPE=Debug -DFMAG_SANITIZE=ON)
              # the Vulkan driver's own leaks (utils/lsan.supp), for CTest as for lit
              export LSAN_OPTIONS="suppressions=$PWD/utils/lsan.supp" ;;
  --clang) dir=build-clang flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$clang"
                                  -DBUILD_SHARED_LIBS=ON) ;;
  *) echo "usage: scripts/test.sh [--clang|--sanitize]" >&2; exit 1 ;;
esac
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
if [ "$mode" = --clang ]; then
  # The gcc build runs everything; here what the C compiler can change: the unit tests
  # and the suites that run compiled programs (compiler, VM, assembler, tools).
  (cd "$dir" && ctest --output-on-failure -j"$(nproc)")
  python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv \
    "$dir"/test/{IR,Transforms,CodeGen,SL,VM,AsmParser,tools,Package}
  prefix=$(mktemp -d)
  trap 'rm -rf "$prefix"' EXIT
  cmake --install "$dir" --prefix "$prefix" >/dev/null
  cmake -S examples/embed -B "$prefix/embed" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_COMPILER="$clang" >/dev/null
  cmake --build "$prefix/embed" >/dev/null
  "$clang" -std=c11 -O2 examples/embed/embed.c \
    $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs fmag) -lm \
    -Wl,-rpath,"$prefix/lib" -o "$prefix/embed-pc"
  for e in "$prefix/embed/embed" "$prefix/embed-pc"; do
    # grep reads a captured string: `ldd | grep -q` under pipefail fails when grep
    # quits at the match before ldd has written its last line (SIGPIPE).
    libs=$(ldd "$e")
    grep -q 'libfmag\.so' <<<"$libs" || { echo "test.sh: $e does not use libfmag.so" >&2; exit 1; }
    "$e" | tail -1 | grep -qx 'all results match' || { "$e" >&2; exit 1; }
  done
  echo "test.sh --clang: unit tests, lit subset and the shared-library install passed"
  exit 0
fi
cmake --build "$dir" --target check-fmag
if [ -z "$mode" ]; then
  for cc in gcc "$clang"; do
    CC=$cc bash examples/embed/readme-recipe.sh
  done
fi
