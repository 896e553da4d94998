#!/usr/bin/env bash
# Runs the README's embedding recipe exactly as written there (the shell block after
# "<!-- ci: embed-recipe -->"), in a fresh temporary PREFIX, with the C compiler $CC
# (default cc) standing for `cc` and for CMake's compiler, then checks that the three
# builds of examples/embed (find_package, pkg-config shared and static, single header)
# print the same programs and results, that bin/ holds the user tools only and that
# fmag.pc is conventional. scripts/test.sh runs it with gcc and with clang.
set -euo pipefail
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
export CC
PREFIX=$(mktemp -d)
trap 'rm -rf "$PREFIX"' EXIT
recipe=$(sed -n '/<!-- ci: embed-recipe -->/,/^```$/p' README.md | sed '1,2d;$d')
if [ -z "$recipe" ]; then
  echo "readme-recipe: no embedding recipe in README.md" >&2
  exit 1
fi
echo "== README embedding recipe, CC=$CC, PREFIX=$PREFIX"
start=$SECONDS
# `cc` in the recipe is the compiler under test.
cc() { "$CC" "$@"; }
export -f cc
PREFIX=$PREFIX bash -euo pipefail -c "$recipe" >"$PREFIX/recipe.log" 2>&1 || {
  cat "$PREFIX/recipe.log" >&2
  echo "readme-recipe: the recipe failed (CC=$CC)" >&2
  exit 1
}
# What the install holds: the user tools of SPEC §6 in bin/, no test driver
# (FMAG_INSTALL_DEV_TOOLS is off by default).
tools=$(cd "$PREFIX/bin" && ls | tr '\n' ' ')
if [ "$tools" != "fmag-as fmag-opt fmag-run slc superopt " ]; then
  echo "readme-recipe: bin/ holds '$tools', expected the user tools only" >&2
  exit 1
fi
# fmag.pc is conventional: -lfmag, the rest private, no absolute paths (it moves with
# its prefix) and no linker-specific flags.
pc="$PREFIX/lib/pkgconfig/fmag.pc"
if ! grep -qx 'Libs: -L${libdir} -lfmag' "$pc" || grep -E '^Libs' "$pc" | grep -E -c ' /|-Wl,' >/dev/null; then
  echo "readme-recipe: fmag.pc is not conventional:" >&2
  cat "$pc" >&2
  exit 1
fi
# The pkg-config builds: the shared one runs on libfmag.so, the static one without it.
# (ldd's output is captured first: `ldd | grep -q` under pipefail fails when grep
# quits at the match before ldd has written its last line.)
libs=$(ldd "$PREFIX/embed-pc")
grep -q 'libfmag\.so' <<<"$libs" || {
  echo "readme-recipe: embed-pc does not use libfmag.so" >&2
  exit 1
}
libs=$(ldd "$PREFIX/embed-pc-static")
if grep -q 'libfmag\.so' <<<"$libs"; then
  echo "readme-recipe: embed-pc-static uses libfmag.so" >&2
  exit 1
fi
outs=("$PREFIX/embed-cmake.txt" "$PREFIX/embed-pkg-config.txt"
      "$PREFIX/embed-pkg-config-static.txt" "$PREFIX/embed-single.txt")
for f in "${outs[@]}"; do
  tail -1 "$f" | grep -qx 'all results match' || {
    echo "readme-recipe: $f did not pass:" >&2
    cat "$f" >&2
    exit 1
  }
done
# The single header has no GPU runner: its vulkan line differs by design.
for f in "${outs[@]:1}"; do
  if ! diff <(grep -v '^vulkan' "${outs[0]}") <(grep -v '^vulkan' "$f") >&2; then
    echo "readme-recipe: $(basename "$f") differs from the find_package build's output" >&2
    exit 1
  fi
done
echo "readme-recipe ($CC): find_package, pkg-config (shared and static) and single header agree ($((SECONDS - start)) s)"
