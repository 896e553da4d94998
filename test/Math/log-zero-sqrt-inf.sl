// Issue 14: log/log2 at 0, below 0 and at +inf, sqrt(+inf), checked against
// values worked by hand. On the old library log2(0) printed -178.36 and
// sqrt(inf) nan.
// RUN: slc %s -o %t.fmag
// RUN: slc -ffast-math %s -o %t.fast.fmag

// log(0) = log2(0) = -inf; log(x < 0) = NaN; log(+inf) = +inf; sqrt(+inf) = +inf.
// RUN: fmag-run %t.fmag --program logs --in 0 --in -0 --in -1 --in inf | FileCheck %s --check-prefix=LOGS
// RUN: fmag-run %t.fast.fmag --program logs --in 0 --in -0 --in -1 --in inf | FileCheck %s --check-prefix=LOGS
// LOGS: {{^-inf -inf 0$}}
// LOGS-NEXT: {{^-inf -inf 0$}}
// LOGS-NEXT: {{^nan nan -inf$}}
// LOGS-NEXT: {{^inf inf inf$}}
export f32 logs(f32 x, out f32 l2, out f32 sq) {
    l2 = log2(x);
    sq = sqrt(x);
    return log(x);
}
