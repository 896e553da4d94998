// Issue 14: log/log2 at 0 and below, sqrt(+inf), checked against
// values worked by hand. On the old library log2(0) printed -178.36 and
// sqrt(inf) nan.
// RUN: slc %s -o %t.fmag
// RUN: slc -ffast-math %s -o %t.fast.fmag

// log(+-0) = log2(+-0) = -inf, also for x < 0 (GLSL: undefined; C: NaN; FMAG keeps
// the cheaper -inf, docs/Builtins.md); 8 and 0.25 stay exact.
// RUN: fmag-run %t.fmag --program logs --in 0 --in -0 --in -1 --in 8 --in 0.25 | FileCheck %s --check-prefix=LOGS
// RUN: fmag-run %t.fast.fmag --program logs --in 0 --in -0 --in -1 --in 8 --in 0.25 | FileCheck %s --check-prefix=LOGS
// LOGS: {{^-inf -inf$}}
// LOGS-NEXT: {{^-inf -inf$}}
// LOGS-NEXT: {{^-inf -inf$}}
// LOGS-NEXT: {{^2.07944[0-9]* 3$}}
// LOGS-NEXT: {{^-1.38629[0-9]* -2$}}
export f32 logs(f32 x, out f32 l2) {
    l2 = log2(x);
    return log(x);
}

// sqrt(+inf) = +inf (every GPU's answer), next to sqrt(4) = 2 and sqrt(0) = 0.
// RUN: fmag-run %t.fmag --program sq --in inf --in 4 --in 0 | FileCheck %s --check-prefix=SQ
// RUN: fmag-run %t.fast.fmag --program sq --in inf --in 4 --in 0 | FileCheck %s --check-prefix=SQ
// SQ: {{^inf$}}
// SQ-NEXT: {{^2$}}
// SQ-NEXT: {{^0$}}
export f32 sq(f32 x) { return sqrt(x); }
