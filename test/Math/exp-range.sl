// Issue 14: exp of large and very negative arguments, against libm in double
// (rounded to float). The old library already got these right (exp clamps its
// argument); the test pins them with the other special values.
// RUN: slc %s -o %t.fmag
// RUN: slc -ffast-math %s -o %t.fast.fmag

// exp of large arguments is +inf, of very negative ones 0 (and just below the
// overflow threshold, finite: e^88.7f = 3.32597686e38; e^-100 is the denormal
// 3.78350585e-44).
// RUN: fmag-run %t.fmag --program exps --in 100 --in -110 --in 88.7 --in -100 | FileCheck %s --check-prefix=EXPS
// EXPS: {{^inf inf$}}
// EXPS-NEXT: {{^0 0$}}
// EXPS-NEXT: {{^3.32597686e\+38 inf$}}
// EXPS-NEXT: {{^3.78350585e-44 0$}}
export f32 exps(f32 x, out f32 e2) {
    e2 = exp2(x * 2.0);
    return exp(x);
}
