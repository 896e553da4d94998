#!/usr/bin/env bash
# The full re-proof of every superopt-peephole rule, the long step that the default
# suite (test/Superopt/rules.test) replaces by the recorded result and a spot check on
# the reference VM: each one-input rule exhaustively over every finite float32, each
# two-input rule on its edge-case grid and 200000 random pairs (docs/Superopt.md).
# About 200 s on 2 cores. Fails when a proof fails or when the result differs from
# the record test/Superopt/Inputs/rules-proved.txt; after changing the rule table,
# run it with --record and commit the new record.
#   scripts/superopt-reprove.sh [--record] [BUILD_DIR]     (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
record=
if [ "${1:-}" = --record ]; then record=1; shift; fi
build=${1:-build}
rec=test/Superopt/Inputs/rules-proved.txt
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$build/bin/superopt" --verify-rules --samples 200000 > "$out"
if [ -n "$record" ]; then
  { echo "# superopt --verify-rules --samples 200000, written by scripts/superopt-reprove.sh"
    echo "# --record: the full proof of each rule; rules.test checks the table against it."
    cat "$out"; } > "$rec"
fi
python3 test/Superopt/Inputs/check_record.py "$rec" "$out" --same-status
