#!/bin/sh
# Compiles every SL, GLSL, HLSL, SPIR-V and MaterialX input of examples/, bench/,
# test/SL and test/SPIRV with two slc binaries (`slc -S`, the default -O2; a GLSL or
# HLSL file without main() once per function, with -entry) and says how many give
# the same bytes: the check that a change which must not touch
# programs outside its feature (derivatives: docs/Derivatives.md) leaves them as they
# were. Inputs that fail with both give the same diagnostics or count as different.
#   scripts/same-bytes.sh OLD_SLC NEW_SLC [DIR...]
# Exit 0 when every input gives the same output, 1 otherwise (the differing ones are
# listed).
set -u
old=$1 new=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$root/examples" "$root/bench" "$root/test/SL" "$root/test/SPIRV"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
same=0 differ=0 failed_both=0 total=0
list=$(find "$@" -type f \( -name '*.sl' -o -name '*.glsl' -o -name '*.frag' -o -name '*.vert' \
    -o -name '*.comp' -o -name '*.hlsl' -o -name '*.spv' -o -name '*.mtlx' \) | sort)
# One compile with both binaries: same, differ or failed_both. $1 file, $2.. flags.
compare() {
    f=$1
    shift
    total=$((total + 1))
    "$old" -S "$f" "$@" -o "$tmp/old.fmas" > "$tmp/old.err" 2>&1
    orc=$?
    "$new" -S "$f" "$@" -o "$tmp/new.fmas" > "$tmp/new.err" 2>&1
    nrc=$?
    if [ $orc -ne $nrc ]; then
        differ=$((differ + 1))
        echo "DIFFERENT (exit $orc -> $nrc): $f $*"
    elif [ $orc -ne 0 ]; then
        if cmp -s "$tmp/old.err" "$tmp/new.err"; then
            failed_both=$((failed_both + 1))
        else
            differ=$((differ + 1))
            echo "DIFFERENT (diagnostics): $f $*"
        fi
    elif cmp -s "$tmp/old.fmas" "$tmp/new.fmas"; then
        same=$((same + 1))
    else
        differ=$((differ + 1))
        echo "DIFFERENT (output): $f $*"
    fi
    rm -f "$tmp/old.fmas" "$tmp/new.fmas"
}
for f in $list; do
    "$old" -S "$f" -o /dev/null > "$tmp/probe.err" 2>&1
    if grep -q "no main() in the file" "$tmp/probe.err"; then
        # A GLSL/HLSL library of functions: each function that -entry can name.
        for e in $(grep -oE '^[[:space:]]*(float|vec[234]|float[234]|half[234]?|int|uint|bool|mat[234]|float[234]x[234])[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(' "$f" |
            sed -E 's/.*[[:space:]]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\($/\1/' | sort -u); do
            compare "$f" -entry "$e"
        done
    else
        compare "$f"
    fi
done
echo "same-bytes: $total compiles: $same compile to the same bytes, $failed_both fail with the same diagnostics in both, $differ differ"
[ $differ -eq 0 ]
