#!/usr/bin/env bash
# The single-header check (single-header.test): writes fmag.h with utils/amalgamate.py,
# builds single_header_test.c against it alone with gcc and clang, -std=c99 and
# -std=c11, -Wall -Wextra -Werror, and checks that it compiles every examples/*.sl to
# the same .fmag bytes as slc and runs it to the same output bits as fmag-run.
# usage: check.sh SRC_ROOT BIN_DIR TMP_DIR
set -euo pipefail
src=$1 bin=$2 tmp=$3
mkdir -p "$tmp"
python3 "$src/utils/amalgamate.py" -o "$tmp/fmag.h" 2>/dev/null
progs=()
for cc in gcc clang; do
  # Debian's clang-14 package installs clang-14; `clang` comes with the clang package.
  [ $cc = clang ] && ! command -v clang >/dev/null && cc=clang-14
  command -v $cc >/dev/null || { echo "check.sh: no $cc, skipped"; continue; }
  # The default suite builds each compiler once (gcc c11, clang c99: both standards,
  # both compilers); the long run (FMAG_TEST_LONG=1, scripts/test-long.sh) all four.
  stds="c99 c11"
  if [ "${FMAG_TEST_LONG:-}" != 1 ]; then
    case $cc in gcc) stds=c11 ;; *) stds=c99 ;; esac
  fi
  for std in $stds; do
    $cc -std=$std -O1 -Wall -Wextra -Werror -I"$tmp" -o "$tmp/sh-$cc-$std" \
      "$src/test/SingleHeader/single_header_test.c" -lm -lpthread
    progs+=("$tmp/sh-$cc-$std")
  done
done
n=0
for sl in "$src"/examples/*.sl; do
  name=$(basename "$sl" .sl)
  in=$(sed -n 's|^// demo-input: *||p' "$sl" | head -n 1)
  "$bin/slc" "$sl" -o "$tmp/$name.slc.fmag"
  want=$("$bin/fmag-run" "$tmp/$name.slc.fmag" --in "$in")
  # every build on the node graphs, the first on every example
  use=("${progs[0]}")
  case $name in node_graph_*) use=("${progs[@]}") ;; esac
  for p in "${use[@]}"; do
    got=$("$p" "$sl" "$tmp/$name.sh.fmag" "$in")
    if ! cmp -s "$tmp/$name.slc.fmag" "$tmp/$name.sh.fmag"; then
      echo "FAIL $name: $(basename "$p") writes different .fmag bytes than slc"
      exit 1
    fi
    if [ "$got" != "$want" ]; then
      echo "FAIL $name: $(basename "$p") gives '$got', slc + fmag-run '$want'"
      exit 1
    fi
    n=$((n + 1))
  done
done
echo "single header: ${#progs[@]} builds, $n runs bit-identical to slc + fmag-run"
