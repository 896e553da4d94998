// Issue 14: sin/cos/tan over the whole float range, checked against libm in
// double (rounded to float). On the old library sin(1e10) printed 1.97e20, and
// from |x| ~ 2e7 sin/cos/tan gave inf.
// RUN: slc %s -o %t.fmag
// RUN: slc -ffast-math %s -o %t.fast.fmag

// sin and cos stay in [-1, 1] and tan finite for every finite x (1 = holds);
// within 2 ulp of libm at |x| = 1e5 and 2e6.
// RUN: fmag-run %t.fmag --program trig --in 1e10 --in -1e30 --in 3.4e38 --in -3.4e38 --in 2e7 --in 8388609 | FileCheck %s --check-prefix=BOUND
// RUN: fmag-run %t.fast.fmag --program trig --in 1e10 --in -1e30 --in 3.4e38 --in -3.4e38 --in 2e7 --in 8388609 | FileCheck %s --check-prefix=BOUND
// BOUND-COUNT-6: {{^1 1 1$}}
export f32 trig(f32 x, out f32 c, out f32 t) {
    c = step(abs(cos(x)), 1.0);
    t = step(abs(tan(x)), 3.4e38);
    return step(abs(sin(x)), 1.0);
}
// Accuracy: |f(x) - libm| within 2 ulp (tan: 4) of the libm value, the bound
// passed in (1 = holds): x, sin, cos, tan references, then the three bounds.
// RUN: fmag-run %t.fmag --program sct --in 100000,0.0357487984,-0.9993608,-0.0357716642,7.45e-9,1.19e-7,1.49e-8 --in -77777.7,0.96188122,-0.27346763,-3.51734924,1.19e-7,2.98e-8,9.54e-7 --in 2000000,-0.655714333,0.755009115,-0.868485332,1.19e-7,1.19e-7,2.38e-7 | FileCheck %s --check-prefix=SCT
// SCT-COUNT-3: {{^1 1 1$}}
export f32 sct(f32 x, f32 rs, f32 rc, f32 rt, f32 ts, f32 tc, f32 tt, out f32 c, out f32 t) {
    c = step(abs(cos(x) - rc), tc);
    t = step(abs(tan(x) - rt), tt);
    return step(abs(sin(x) - rs), ts);
}
