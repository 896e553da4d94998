#!/usr/bin/env bash
# Mutation checks (docs/Testing.md): plants one known bug at a time in a temporary copy
# of the working tree, rebuilds what it touches and runs the lit directories that must
# catch it; each plant must make them FAIL (a suite that stays green missed the bug).
# The source tree is never modified.
#   scripts/mutation-check.sh [PLANT...]   plants: sl-precedence fmas-8-digits
#                                  vulkan-missing vulkan-probe superopt-rule (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
lit="python3 /usr/lib/llvm-14/build/utils/lit/lit.py"
plants=("$@")
[ ${#plants[@]} -gt 0 ] || plants=(sl-precedence fmas-8-digits vulkan-missing vulkan-probe superopt-rule)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The working tree as it is (tracked and untracked-but-not-ignored files).
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$tmp"
cmake -S "$tmp" -B "$tmp/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
build() { cmake --build "$tmp/build" -j"$(nproc)" --target slc fmag-run fmag-as fmag-opt superopt >/dev/null; }

# Each plant: the edits (one "FILE<TAB>SED-EXPRESSION" per line), the lit tests that
# must fail, and the environment of that lit run.
plant_edits() {
  case $1 in
    sl-precedence) # '*' and '/' parsed at '+'s level
      printf 'lib/SL/Parser.c\t%s\n' '/case TK_SLASH:/{n;s/return 6;/return 5;/}' ;;
    fmas-8-digits) # the disassembler prints at most 8 significant digits
      printf 'lib/AsmParser/fmasPrinter.c\t%s\n' 's/for (; prec <= 9; prec++)/for (; prec <= 8; prec++)/' ;;
    vulkan-missing) ;; # no Vulkan driver in CI: only the environment changes
    vulkan-probe) # the lit probe asks fmag-run for a backend that does not exist
      printf 'test/lit.cfg.py\t%s\n' 's/"--backend=" + backend,/"--backend=" + backend + "-gone",/' ;;
    superopt-rule) # nabs's program negates x unguarded, and the record check is
      # dropped, so only the spot check on the reference VM stands between the
      # wrong rule and a green suite
      printf 'lib/Transforms/SuperoptRules.inc\t%s\n' '/nabs_code\[\] = {/{n;s/R(0)),/L(1.0f)),/}'
      printf 'test/Superopt/rules.test\t%s\n' '/check_record.py/d' ;;
  esac
}
plant_dirs() {
  case $1 in
    sl-precedence) echo SL ;;
    fmas-8-digits) echo AsmParser ;;
    vulkan-missing|vulkan-probe) echo VM/engines-vulkan.test ;;
    superopt-rule) echo Superopt/rules.test ;;
  esac
}
plant_env() { # plant planted(0/1) -> the environment of its lit run
  case $1 in
    vulkan-missing)
      # CI=true: a missing Vulkan runner must fail the suite rather than skip it.
      [ "$2" = 1 ] && echo "CI=true VK_ICD_FILENAMES=/nonexistent/icd.json VK_DRIVER_FILES=/nonexistent/icd.json" \
        || echo "CI=true" ;;
    vulkan-probe) echo "CI=true" ;;
    *) echo "CI=" ;;
  esac
}
run_lit() { # plant planted -> lit's exit status
  local dirs=() d
  for d in $(plant_dirs "$1"); do dirs+=("$tmp/build/test/$d"); done
  env $(plant_env "$1" "$2") $lit -q "${dirs[@]}" > "$tmp/lit.out" 2>&1
}

build
status=0
for p in "${plants[@]}"; do
  # Baseline: the same lit run without the plant passes (so a failure is the plant's).
  if ! run_lit "$p" 0; then
    echo "mutation-check: $p: the suite fails WITHOUT the plant; fix that first" >&2
    tail -20 "$tmp/lit.out" >&2
    exit 2
  fi
  files=()
  while IFS=$'\t' read -r f expr; do
    [ -n "$f" ] || continue
    [ -e "$tmp/$f.orig" ] || cp "$tmp/$f" "$tmp/$f.orig"
    files+=("$f")
    cp "$tmp/$f" "$tmp/$f.before"
    sed -i "$expr" "$tmp/$f"
    if cmp -s "$tmp/$f" "$tmp/$f.before"; then
      echo "mutation-check: $p: '$expr' no longer applies to $f" >&2
      exit 2
    fi
  done < <(plant_edits "$p")
  [ ${#files[@]} -eq 0 ] || build
  if run_lit "$p" 1; then
    echo "mutation-check: $p: SURVIVED (lit $(plant_dirs "$p") passed with the bug planted)"
    status=1
  else
    echo "mutation-check: $p: killed ($(grep -c '^  FMAG ::' "$tmp/lit.out" || true) failing tests; lit $(plant_dirs "$p"))"
    grep -E '^(  FMAG ::|lit.py: .*fatal)' "$tmp/lit.out" | sort -u | head -8 | sed 's/^/    /'
  fi
  for f in "${files[@]}"; do mv "$tmp/$f.orig" "$tmp/$f"; rm -f "$tmp/$f.before"; done
  [ ${#files[@]} -eq 0 ] || build
done
exit $status
