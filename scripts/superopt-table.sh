#!/usr/bin/env bash
# Produces the results table of docs/Superopt.md: for each target, what the compiler
# emits today (-O2 + lowering) against the superoptimizer's shortest proven program.
# usage: scripts/superopt-table.sh [path/to/superopt] [bfs-seconds] [stochastic-seconds]
# Each target runs the exact search (--bfs, up to length 3) first; when that finds
# nothing it runs the stochastic search seeded from the compiler's output.
set -u
SUPEROPT=${1:-build/bin/superopt}
BFS_T=${2:-30}
STOKE_T=${3:-20}
EXTRA=${SUPEROPT_FLAGS:-}
ONLY=${SUPEROPT_ONLY:-} # space-separated target names: only those rows

targets=(
  "relu|max(x, 0.0)"
  "min0|min(x, 0.0)"
  "max|max(x, y)"
  "min|min(x, y)"
  "abs|abs(x)"
  "nabs|-abs(x)"
  "select|x > y ? x : y"
  "select-truth|select(x, 1.0, y)"
  "clamp|clamp(x, -1.0, 1.0)"
  "saturate|saturate(x)"
  "sign|sign(x)"
  "step|step(0.5, x)"
  "step-xy|step(x, y)"
  "gt0|x > 0.0"
  "lt|x < y"
  "ge|x >= y"
  "eq|x == y"
  "ne0|x != 0.0"
  "and|x > 0.0 && y > 0.0"
  "or|x > 0.0 || y > 0.0"
  "not|!(x > 0.0)"
  "in-range|x > 0.5 && x < 2.0"
  "round-trick|x + 12582912.0 - 12582912.0"
  "floor-trick|(x + 12582912.0 - 12582912.0) - ((x + 12582912.0 - 12582912.0) > x ? 1.0 : 0.0)"
  "fract-trick|x - ((x + 12582912.0 - 12582912.0) - ((x + 12582912.0 - 12582912.0) > x ? 1.0 : 0.0))"
  "floor|floor(x)"
  "fract|fract(x)"
  "mix|mix(x, y, 0.25)"
  "smoothstep|smoothstep(0.0, 1.0, x)"
  "rcp-reduce-hi|x >= 2.0 ? x * 0.5 : x"
  "rcp-reduce-lo|x < 1.0 ? x * 2.0 : x"
  "sqrt-reduce|x >= 4.0 ? x * 0.25 : x"
  "rcp-newton|y * (2.0 - x * y)"
  "add-then-double|(x + 1.0) * 2.0"
)

field() { sed -n "s/^; $1: //p" "$2" | head -1; }

printf '| target | expression | compiler before rules | compiler (-O2 today) | superopt | search | proof | search s | proof s |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for entry in "${targets[@]}"; do
  name=${entry%%|*}
  expr=${entry#*|}
  if [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
  # shellcheck disable=SC2086
  "$SUPEROPT" -e "$expr" --bfs --max-len 3 --time-limit "$BFS_T" $EXTRA >"$tmp" 2>&1
  method=bfs
  lb=
  if ! grep -q '^; length:' "$tmp"; then
    lb=$(sed -n 's/.*no program shorter than \([0-9]*\) exists.*/\1/p' "$tmp")
    # shellcheck disable=SC2086
    "$SUPEROPT" -e "$expr" --stochastic --time-limit "$STOKE_T" $EXTRA >"$tmp" 2>&1
    method="stochastic${lb:+ (bfs: >= $lb)}"
  fi
  compiler=$(field compiler "$tmp" | sed 's/ instructions.*//')
  before=$(field compiler-without-superopt-rules "$tmp" | sed 's/ instructions.*//')
  before=${before:-$compiler}
  len=$(field length "$tmp")
  regs=$(field registers "$tmp")
  proof=$(field proof "$tmp" | sed 's/ (.*//')
  ssec=$(field search "$tmp" | sed 's/^[a-z]*, \([0-9.]*\) s.*/\1/')
  psec=$(field proof-checked "$tmp" | sed 's/.* in \([0-9.]*\) s.*/\1/')
  if [ -z "$len" ]; then
    len="= compiler"
    if [ -n "${lb:-}" ] && [ "$lb" = "$compiler" ]; then len="= compiler (minimal: bfs bound)"; fi
    if grep -q 'error' "$tmp"; then len="error: $(grep -m1 error "$tmp" | cut -c1-60)"; fi
    proof="-"
  else
    len="$len ($regs regs)"
    if [ -n "$before" ] && [ "${len%% *}" -lt "$before" ]; then len="**$len**"; fi
    [ "$method" = bfs ] && grep -q '^; minimal: yes' "$tmp" && method="bfs, minimal"
  fi
  printf '| %s | `%s` | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$expr" "${before:--}" "${compiler:--}" \
    "$len" "$method" "${proof:--}" "${ssec:--}" "${psec:--}"
done
