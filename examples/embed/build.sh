#!/usr/bin/env bash
# Builds and runs examples/embed three ways against an FMAG installed in PREFIX: the
# CMake package, pkg-config, and the single header fmag.h (FMAG_H, written by
# utils/amalgamate.py). These are the README's "Embedding" commands, as written there.
# usage: examples/embed/build.sh PREFIX FMAG_H [OUTDIR]      (CC picks the compiler)
set -euo pipefail
PREFIX=$(realpath "$1")
FMAG_H=$(realpath "$2")
out=$(realpath -m "${3:-build-embed}")
src=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-cc}
mkdir -p "$out"
cd "$src"

echo "== embed ($cc): find_package(FMAG)"
cmake -S . -B "$out/cmake" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$out/cmake" >/dev/null
"$out/cmake/embed" >"$out/cmake.txt"
tail -1 "$out/cmake.txt"

echo "== embed ($cc): pkg-config"
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
$cc -std=c11 -O2 -o "$out/embed-pc" embed.c $(pkg-config --cflags --libs fmag) -lm
"$out/embed-pc" >"$out/pkg-config.txt"
tail -1 "$out/pkg-config.txt"

echo "== embed ($cc): single header"
$cc -std=c11 -O2 -Wall -Wextra -Werror -DFMAG_SINGLE_HEADER -I"$(dirname "$FMAG_H")" \
  -o "$out/embed-single" embed.c -lm -lpthread
"$out/embed-single" >"$out/single.txt"
tail -1 "$out/single.txt"

# The three builds print the same programs and the same results (the single header has
# no GPU runner, so the vulkan line may differ).
for f in pkg-config single; do
  if ! diff <(grep -v '^vulkan' "$out/cmake.txt") <(grep -v '^vulkan' "$out/$f.txt") >/dev/null; then
    echo "embed: $f output differs from the CMake build's" >&2
    diff <(grep -v '^vulkan' "$out/cmake.txt") <(grep -v '^vulkan' "$out/$f.txt") >&2 || true
    exit 1
  fi
done
echo "embed: three builds agree"
