#!/bin/sh
# Writes test/Math/accuracy-pins.test: the regression pins of the math library.
#   bench/math/pins.sh build/bin/fmag-accuracy > test/Math/accuracy-pins.test
# Run it only after a deliberate change of a sequence, once the new worst errors are
# measured (bench/math/sweep.sh or fmag-accuracy --exhaustive) and written in
# docs/Builtins.md and in the pins of fmag-accuracy's table.
set -eu
acc=${1:-build/bin/fmag-accuracy}
args="--samples 65536 --threads 2"
deep="--samples 4194304 --threads 2 sin cos tan exp exp2 log log2 atan"
cat <<HEAD
; Regression pins of every builtin (issue 19, planted bug 3: a 1-3 ulp change of a
; sin or exp polynomial coefficient kept every error inside its target and survived
; the suite). Two pins per builtin and mode, both against libm in double:
; - the worst error of fmag-accuracy's table (its pin column: the worst measured
;   over the whole domain, exhaustively where docs/Builtins.md says so, plus 0.01;
;   sampled rows plus 0.05): a sample above it prints REGRESSED and exits 1;
; - on a fixed sample of 2^16 points (seeded per thread, so --threads stays 2), the
;   number of results that are not the correctly rounded float ("misrounded"),
;   exactly. A coefficient moved by one ulp moves some results across a rounding
;   boundary and changes that count (docs/Builtins.md, "Regression pins", shows
;   the planted changes failing here). An improvement fails too: re-measure, then
;   regenerate this file with bench/math/pins.sh.
;   The polynomial builtins also on 2^22 points: a one-ulp change of a higher
;   coefficient (sin's r^7, exp's t^5 and t^6 terms) moves only a few results in a
;   million, which 2^16 points do not see (measured: bench/math/plant.sh all).
; REQUIRES: fmag-accuracy
; RUN: fmag-accuracy $args | FileCheck %s --check-prefix=STRICT
; RUN: fmag-accuracy --fast $args | FileCheck %s --check-prefix=FAST
; RUN: fmag-accuracy $deep | FileCheck %s --check-prefix=DEEP
; STRICT-NOT: {{MISSED|REGRESSED}}
; FAST-NOT: {{MISSED|REGRESSED}}
HEAD
"$acc" $args | awk '{ m = $NF; print "; STRICT: {{^}}" $1 " strict {{.*}} " m "{{$}}" }'
"$acc" --fast $args | awk '{ m = $NF; print "; FAST: {{^}}" $1 " fast {{.*}} " m "{{$}}" }'
"$acc" $deep | awk '{ m = $NF; print "; DEEP: {{^}}" $1 " strict {{.*}} " m "{{$}}" }'
echo "; DEEP-NOT: {{MISSED|REGRESSED}}"
echo "; STRICT-NOT: {{MISSED|REGRESSED}}"
echo "; FAST-NOT: {{MISSED|REGRESSED}}"
