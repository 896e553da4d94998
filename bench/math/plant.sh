#!/bin/sh
# Plants a 1-ulp and a 3-ulp change (both directions) of a sin and an exp polynomial
# coefficient, one at a time, in a scratch copy of HEAD (never in the worktree),
# rebuilds what test/Math runs and reports whether test/Math fails (issue 19, planted
# bug 3). The scratch build is kept in $SCRATCH (default /tmp/fmag-plant) between runs.
#   bench/math/plant.sh
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
scratch=${SCRATCH:-/tmp/fmag-plant}
lit=${LIT:-/usr/lib/llvm-14/build/utils/lit/lit.py}
mkdir -p "$scratch/src"
git -C "$src" archive HEAD | tar -x -C "$scratch/src"
cmake -S "$scratch/src" -B "$scratch/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
build() {
    cmake --build "$scratch/build" -j2 --target fmag-accuracy slc fmag-run >/dev/null 2>&1
}
build || { echo "plant.sh: the scratch copy does not build"; exit 1; }
python3 "$lit" -q "$scratch/build/test/Math" >/dev/null 2>&1 ||
    { echo "plant.sh: test/Math fails before any change"; exit 1; }

# file, coefficient as written, then the coefficient moved by +1, +3, -1, -3 ulps
# (away from zero is +): sin's r^3 term (-1/6) and exp's t^2 term (1/2).
plant() {
    file=$1 old=$2
    shift 2
    for new in "$@"; do
        cp "$scratch/src/lib/Math/$file" "$scratch/orig.c"
        sed -i "s/$old/$new/" "$scratch/src/lib/Math/$file"
        if ! build; then
            echo "$file $old -> $new: does not build"
        elif python3 "$lit" -q "$scratch/build/test/Math" >"$scratch/lit.out" 2>&1; then
            echo "$file $old -> $new: test/Math PASSES (the change survives)"
        else
            echo "$file $old -> $new: test/Math fails: $(grep -o 'Math/[a-z-]*\.[a-z]*' "$scratch/lit.out" | sort -u | tr '\n' ' ')"
        fi
        cp "$scratch/orig.c" "$scratch/src/lib/Math/$file"
    done
}
plant MathTrig.c -0.166666672f -0.166666687f -0.166666716f -0.166666657f -0.166666627f
plant MathExpLog.c 0.499999911f 0.49999994f 0.5f 0.499999881f 0.499999821f
build
