// Issue 14: pow at x = 0, y = 0, x = 1 and x < 0, checked against values worked
// by hand. On the old library pow(0, 0.01) printed 0.29023546 and
// smin_pow(0, 0.3, 32) 0.0209.
// RUN: slc %s -o %t.fmag
// RUN: slc -ffast-math %s -o %t.fast.fmag

// pow(0, y) = 0 for y > 0 (black stays black through a gamma curve), +inf for
// y < 0, 1 for y = 0; pow(x, 0) = pow(1, y) = 1; pow(x < 0, y) = NaN (GLSL:
// undefined; C gives a real value for integer y, FMAG does not).
// RUN: fmag-run %t.fmag --program gamma --in 0 --in 1 | FileCheck %s --check-prefix=GAMMA
// RUN: fmag-run %t.fast.fmag --program gamma --in 0 --in 1 | FileCheck %s --check-prefix=GAMMA
// GAMMA: {{^0 0 0 0 inf inf 1 1 1 1 nan nan$}}
// GAMMA-NEXT: {{^1 1 1 1 1 1 1 1 1 1 nan nan$}}
export f32 gamma(f32 x, out f32 p03, out f32 p25, out f32 p1, out f32 pm1, out f32 pmh,
                 out f32 p0, out f32 x0, out f32 one5, out f32 onem7, out f32 neg2,
                 out f32 negh) {
    f32 y = x + 0.0;
    p03 = pow(x, 0.3);
    p25 = pow(x, 2.5 + y);
    p1 = pow(x, 1.0 + y);
    pm1 = pow(x, -1.0 - y);
    pmh = pow(x, -0.5 - y);
    p0 = pow(x, y * 0.0 + x - x);
    x0 = pow(2.0 + x, x - x);
    one5 = pow(1.0 + y - x, 5.0 + x);
    onem7 = pow(1.0 + y - x, -7.0 - x);
    neg2 = pow(-2.0 - x, 2.0 + x);
    negh = pow(-2.0 - x, 0.5 + x);
    return pow(x, 0.01);
}

// iq's smin_pow(a, b, k) at a = 0: (a^k b^k / (a^k + b^k))^(1/k) = 0.
// RUN: fmag-run %t.fmag --program smin_pow --in 0,0.3,32 | FileCheck %s --check-prefix=SMIN
// SMIN: {{^0$}}
export f32 smin_pow(f32 a, f32 b, f32 k) {
    a = pow(a, k);
    b = pow(b, k);
    return pow((a * b) / (a + b), 1.0 / k);
}

// A literal zero exponent takes pow's strength reduction (pow_literal in
// lib/Math/MathExpLog.c), which nothing else reaches (issue 31: returning x there
// passed the suite): pow(x, 0.0) is 1 for every x, 0 and negative x included, as C's
// pow gives; -0.0 likewise.
// RUN: fmag-run %t.fmag --program lit0 --in 0 --in 2 --in 0.5 --in -3 --in 1e30 | FileCheck %s --check-prefix=LIT0
// RUN: fmag-run %t.fast.fmag --program lit0 --in 0 --in 2 --in 0.5 --in -3 --in 1e30 | FileCheck %s --check-prefix=LIT0
// LIT0: {{^1 1$}}
// LIT0-NEXT: {{^1 1$}}
// LIT0-NEXT: {{^1 1$}}
// LIT0-NEXT: {{^1 1$}}
// LIT0-NEXT: {{^1 1$}}
export f32 lit0(f32 x, out f32 neg0) {
    neg0 = pow(x, -0.0);
    return pow(x, 0.0);
}
