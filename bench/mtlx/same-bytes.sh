#!/bin/sh
# The check that a change which must only make compiling faster (docs/PERFORMANCE.md,
# "MaterialX compile latency") leaves every output as it was: two builds' tools, OLD
# (a build of main) and NEW, compile
#  - every MaterialX document of test/ and examples/, and the graphs mtlx-bench
#    measures (graph-N for N = 15, 60, 250, 1000, color3 and float, from NEW's
#    mtlx-bench --print), with slc -S at -O2 and -O1, each with -lowering=full and
#    -lowering=fast (mtlx-bench's lowering), and with -O0;
#  - everything scripts/same-bytes.py compiles (the SL examples, the bench programs,
#    the SL, GLSL, HLSL, SPIR-V and .fir corpus under test/, in its modes).
# Every output file, diagnostic and exit status must be identical.
#   bench/mtlx/same-bytes.sh OLD_BIN_DIR NEW_BIN_DIR [--mtlx-only]
# (--mtlx-only: the MaterialX part alone, a minute instead of many while iterating)
# Exit 0 when nothing differs, 1 otherwise (the differing runs are listed).
set -u
old=$1 new=$2 only=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/graphs"
for n in 15 60 250 1000; do
    for t in color3 float; do
        "$new/mtlx-bench" --print --nodes "$n" --type "$t" > "$tmp/graphs/graph-$n-$t.mtlx" || exit 1
    done
done
runs=0 differ=0
for f in $(find "$root/test" "$root/examples" "$tmp/graphs" -name '*.mtlx' | sort); do
    for flags in "-O2 -lowering=full" "-O2 -lowering=fast" "-O1 -lowering=full" \
        "-O1 -lowering=fast" "-O0"; do
        runs=$((runs + 1))
        # shellcheck disable=SC2086 # the flags are words
        "$old/slc" -S $flags "$f" -o "$tmp/old.fmas" > "$tmp/old.err" 2>&1
        orc=$?
        # shellcheck disable=SC2086
        "$new/slc" -S $flags "$f" -o "$tmp/new.fmas" > "$tmp/new.err" 2>&1
        nrc=$?
        sed -i "s#$old#<bin>#g" "$tmp/old.err"
        sed -i "s#$new#<bin>#g" "$tmp/new.err"
        if [ $orc -ne $nrc ] || ! cmp -s "$tmp/old.err" "$tmp/new.err" ||
            { [ -e "$tmp/old.fmas" ] && ! cmp -s "$tmp/old.fmas" "$tmp/new.fmas"; }; then
            differ=$((differ + 1))
            echo "DIFFERENT: slc -S $flags $f (exit $orc -> $nrc)"
        fi
        rm -f "$tmp/old.fmas" "$tmp/new.fmas"
    done
done
echo "same-bytes (MaterialX): $runs runs, $differ differ"
[ "$only" = --mtlx-only ] ||
    python3 "$root/scripts/same-bytes.py" --old "$old" --new "$new" || differ=$((differ + 1))
[ $differ -eq 0 ]
