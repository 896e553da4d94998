#!/usr/bin/env bash
# Checks that two builds compile every float program of the repository to the same
# bytes: examples/*.sl, bench/**/*.sl and *.fir, and the .sl/.fir test corpus, through
# slc -S (-O2) and fmag-opt -O2 -lower. Used when a pass must leave programs without
# integers alone (-legalize-int, docs/Integers.md): a module the old build compiles
# must come out identical; one it rejects is skipped (it is not a float program).
#   scripts/same-output.sh OLD_BIN_DIR NEW_BIN_DIR
set -uo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
same=0 differ=0 skipped=0
check() { # tool args... (file last)
  local tool=$1; shift
  if ! "$old/$tool" "$@" > "$tmp/a" 2>/dev/null; then skipped=$((skipped + 1)); return; fi
  "$new/$tool" "$@" > "$tmp/b" 2>/dev/null
  if cmp -s "$tmp/a" "$tmp/b"; then same=$((same + 1)); else differ=$((differ + 1)); echo "DIFFERS: $tool $*"; fi
}
while IFS= read -r f; do
  check slc -S "$f" -o -
  check slc -S -O1 "$f" -o -
done < <(find examples bench test -name '*.sl' | sort)
ints=0
while IFS= read -r f; do
  # integer programs are meant to change
  if grep -qE '(: i32|i32 \[|\b(iadd|isub|imul|fptosi|fptoui|sitofp|uitofp|bitcast\.i32)\b)' "$f"; then
    ints=$((ints + 1)); continue
  fi
  check fmag-opt -O2 "$f"
  check fmag-opt -O1 "$f"
  check fmag-opt -O2 -lower "$f"
done < <(find examples bench test -name '*.fir' | sort)
echo "same-output: $same identical, $differ different, $skipped rejected by the old build, $ints integer .fir files left out"
[ "$differ" = 0 ]
