#!/bin/sh
# Compiles every example with slc (-O2 and -ffast-math), runs each on the
# reference VM with the input named in its "// demo-input:" line, and checks the
# result against the IR interpreter running the unoptimized IR (-emit-ir): the
# optimizer and codegen must not change a strict-mode result.
# usage: examples/run-demo.sh [BUILD_DIR [SLC_FLAG...]]   (default: build)
# Extra slc flags (e.g. -lowering=fast) apply to every compile.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build}/bin
[ $# -gt 0 ] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
printf '%-22s %6s %6s  %s\n' example instrs fast outputs
for src in "$here"/*.sl; do
    name=$(basename "$src" .sl)
    in=$(sed -n 's|^// demo-input: *||p' "$src" | head -n 1)
    "$bin/slc" "$@" "$src" -o "$tmp/$name.fmag"
    "$bin/slc" "$@" -ffast-math "$src" -o "$tmp/$name.fast.fmag"
    "$bin/slc" -emit-ir "$src" -o "$tmp/$name.fir"
    n=$("$bin/slc" "$@" -S "$src" | grep -c '= fmag')
    nf=$("$bin/slc" "$@" -S -ffast-math "$src" | grep -c '= fmag')
    vm=$("$bin/fmag-run" "$tmp/$name.fmag" --in "$in")
    ir=$("$bin/fmag-run" "$tmp/$name.fir" --in "$in")
    printf '%-22s %6s %6s  %s\n' "$name" "$n" "$nf" "$vm"
    if [ "$vm" != "$ir" ]; then
        echo "  MISMATCH: the IR interpreter gives $ir" >&2
        fail=1
    fi
done
exit $fail
