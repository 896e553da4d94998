#!/bin/sh
# Plants a 1-ulp and a 3-ulp change (both directions) of a sin and an exp polynomial
# coefficient, one at a time, in a scratch copy of HEAD (never in the worktree),
# rebuilds what test/Math runs and reports whether test/Math fails (issue 19, planted
# bug 3). The scratch build is kept in $SCRATCH (default /tmp/fmag-plant) between runs.
#   bench/math/plant.sh        # sin's -1/6 and exp's 1/2 by +-1 and +-3 ulps
#   bench/math/plant.sh all    # every sin and exp coefficient by +-1 ulp
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

# plant FILE COEFF STEPS...: COEFF (as written in FILE) moved by each number of ulps
# in turn (positive: away from zero).
plant() {
    file=$1 old=$2
    shift 2
    for k in "$@"; do
        new=$(python3 -c "import struct,sys; f=float(sys.argv[1].rstrip('f')); \
b=struct.unpack('<i',struct.pack('<f',f))[0]+int(sys.argv[2]); \
print('%.9gf' % struct.unpack('<f',struct.pack('<i',b))[0])" "$old" "$k")
        cp "$scratch/src/lib/Math/$file" "$scratch/orig.c"
        sed -i "s/$old/$new/" "$scratch/src/lib/Math/$file"
        if ! build; then
            echo "$file $old -> $new ($k ulp): does not build"
        elif python3 "$lit" -q "$scratch/build/test/Math" >"$scratch/lit.out" 2>&1; then
            echo "$file $old -> $new ($k ulp): test/Math PASSES (the change survives)"
        else
            echo "$file $old -> $new ($k ulp): test/Math fails: $(grep -o 'Math/[a-z-]*\.[a-z]*' "$scratch/lit.out" | sort -u | tr '\n' ' ')"
        fi
        cp "$scratch/orig.c" "$scratch/src/lib/Math/$file"
    done
}
if [ "${1:-}" = all ]; then
    # every coefficient of sin's and exp's polynomials, one ulp each way
    for c in -0.166666672f 0.00833332445f -0.000198378912f 2.70636565e-06f; do
        plant MathTrig.c "$c" 1 -1
    done
    for c in 0.499999911f 0.166664198f 0.0416682251f 0.00837481581f 0.00138368458f; do
        plant MathExpLog.c "$c" 1 -1
    done
else
    # sin's r^3 term (-1/6) and exp's t^2 term (1/2), 1 and 3 ulps each way
    plant MathTrig.c -0.166666672f 1 3 -1 -3
    plant MathExpLog.c 0.499999911f 1 3 -1 -3
fi
build
