// `for` loops with constant trip counts, `const` locals and file-scope constants,
// compiled at -O2, -O1 and -O0 (every level unrolls) and run on the reference VM.
// Expected values are worked out by hand (float32 sums of 0.1 and the exp series in
// Python, noted where used).
// RUN: slc %s -o %t2.fmag
// RUN: slc %s -O1 -o %t1.fmag
// RUN: slc %s -O0 -o %t0.fmag
// RUN: fmag-run %t2.fmag --program geom --in 0.5 --in 2 --in -1 | FileCheck %s --check-prefix=GEOM
// RUN: fmag-run %t0.fmag --program geom --in 0.5 --in 2 --in -1 | FileCheck %s --check-prefix=GEOM
// 1 + x + ... + x^7: 1.9921875 (= 2 - 2^-7), 255, 0.
// GEOM:      {{^}}1.9921875{{$}}
// GEOM-NEXT: {{^}}255{{$}}
// GEOM-NEXT: {{^}}0{{$}}
const f32 N = 8.0;

export f32 geom(f32 x) {
    f32 s = 0.0;
    f32 p = 1.0;
    for (f32 k = 0.0; k < N; k++) {
        s += p;
        p *= x;
    }
    return s;
}

// RUN: fmag-run %t2.fmag --program horner --in 1 --in 0.5 --in -2 | FileCheck %s --check-prefix=HORNER
// RUN: fmag-run %t1.fmag --program horner --in 1 --in 0.5 --in -2 | FileCheck %s --check-prefix=HORNER
// Coefficients from the counter: ((4x + 3)x + 2)x + 1: 10, 3.25, -32 + 12 - 4 + 1 = -23.
// HORNER:      {{^}}10{{$}}
// HORNER-NEXT: {{^}}3.25{{$}}
// HORNER-NEXT: {{^}}-23{{$}}
export f32 horner(f32 x) {
    f32 p = 0.0;
    for (f32 c = 4.0; c >= 1.0; c -= 1.0)
        p = p * x + c;
    return p;
}

// RUN: fmag-run %t2.fmag --program forms --in 1 | FileCheck %s --check-prefix=FORMS
// RUN: fmag-run %t0.fmag --program forms --in 1 | FileCheck %s --check-prefix=FORMS
// i = 10, 7.5, 5, 2.5 -> 4 trips; 3+2+1+0 = 6; 0+.25+.5+.75+1 = 2.5; 5! = 120;
// 0+1+2 = 3; zero trips leaves x = 1.
// FORMS: {{^}}4 6 2.5 120 3 1{{$}}
export f32 forms(f32 x, out f32 b, out f32 c, out f32 d, out f32 e, out f32 f) {
    f32 n = 0.0;
    for (f32 i = 10.0; i > 0.0; i -= 2.5) n += 1.0;
    b = 0.0;
    for (f32 i = 3.0; i >= 0.0; i--) b += i;
    c = 0.0;
    for (f32 i = 0.0; i <= 1.0; i += 0.25) c += i;
    d = 1.0;
    for (f32 i = 5.0; i >= 1.0; --i) d *= i;
    e = 0.0;
    for (f32 i = 0.0; i < 3.0; ++i) e += i;
    for (f32 i = 0.0; i < 0.0; i++) x = 99.0;
    f = x;
    return n;
}

// RUN: fmag-run %t2.fmag --program nest --in 1 --in -0.5 | FileCheck %s --check-prefix=NEST
// Triangular: sum over i < 4, j < i of i*j = (2*1... ) = 0 + 2 + (3 + 6) = 11, times x.
// NEST:      {{^}}11{{$}}
// NEST-NEXT: {{^}}-5.5{{$}}
export f32 nest(f32 x) {
    f32 s = 0.0;
    for (f32 i = 0.0; i < 4.0; i++)
        for (f32 j = 0.0; j < i; j++)
            s += x * i * j;
    return s;
}

// RUN: fmag-run %t2.fmag --program early --in 2.5 --in 10 --in -1 | FileCheck %s --check-prefix=EARLY
// RUN: fmag-run %t0.fmag --program early --in 2.5 --in 10 --in -1 | FileCheck %s --check-prefix=EARLY
// The first i with x < i: 3; none below 5: -1; x = -1: 0.
// EARLY:      {{^}}3{{$}}
// EARLY-NEXT: {{^}}-1{{$}}
// EARLY-NEXT: {{^}}0{{$}}
export f32 early(f32 x) {
    for (f32 i = 0.0; i < 5.0; i++) {
        if (x < i) return i;
    }
    return -1.0;
}

// RUN: fmag-run %t2.fmag --program vec --in 2 | FileCheck %s --check-prefix=VEC
// acc += (i, i*i, 1) * x for i = 0, 1, 2: (3, 5, 3) * 2; W.z is 0.5 * 6 = 3.
// VEC: {{^}}6 10 6 3{{$}}
const f32 HALF = 0.5;
const f32x3 W = f32x3(1.0, 2.0, HALF * 6.0);
export f32x4 vec(f32 x) {
    f32x3 acc = f32x3(0.0);
    for (f32 i = 0.0; i < 3.0; i++) {
        const f32x3 t = f32x3(i, i * i, 1.0);
        acc += t * x;
    }
    return f32x4(acc, W.z);
}

// RUN: fmag-run %t2.fmag --program callpow --in 2 --in -1.5 | FileCheck %s --check-prefix=POW
// The bound is a parameter of the helper; after inlining it is the literal 3: x^3.
// POW:      {{^}}8{{$}}
// POW-NEXT: {{^}}-3.375{{$}}
f32 pw(f32 x, f32 n) {
    f32 r = 1.0;
    for (f32 i = 0.0; i < n; i++) r *= x;
    return r;
}
export f32 callpow(f32 x) { return pw(x, 3.0); }

// RUN: fmag-run %t2.fmag --program tenths --in 0 | FileCheck %s --check-prefix=TENTHS
// i += 0.1 in float32 while i < 0.7: 7 trips (Python, float32 after each add: the
// sixth sum 0.600000024 is below 0.7f = 0.699999988, the seventh 0.700000048 is not).
// TENTHS: {{^}}7{{$}}
export f32 tenths(f32 x) {
    f32 n = x;
    for (f32 i = 0.0; i < 0.7; i += 0.1) n += 1.0;
    return n;
}

// RUN: fmag-run %t2.fmag --program expser --in 1 --in -2 | FileCheck %s --check-prefix=EXP
// sum of x^k / k! for k < 8 (Python, double): 2.71825397 and 0.130158730; the
// division is the library's (correctly rounded for these operands or within an ulp).
// EXP:      {{^}}2.718254{{[0-9]*$}}
// EXP-NEXT: {{^}}0.130158{{[0-9]*$}}
export f32 expser(f32 x) {
    f32 term = 1.0;
    f32 sum = 0.0;
    for (f32 k = 1.0; k <= N; k++) {
        sum += term;
        term = term * x / k;
    }
    return sum;
}

// RUN: fmag-run %t2.fmag --program oddforms --in 1 | FileCheck %s --check-prefix=ODD
// RUN: fmag-run %t0.fmag --program oddforms --in 1 | FileCheck %s --check-prefix=ODD
// An assignment as init (the counter lives on: 3 after the loop): 1 + 3 + 30 = 34;
// i *= 3 from 1 while i < 100: 1 + 3 + 9 + 27 + 81 = 121; for (;;) that returns: 2x.
// ODD: {{^}}34 121 2{{$}}
f32 forever(f32 x) {
    for (;;) {
        return x * 2.0;
    }
}
export f32 oddforms(f32 x, out f32 geo, out f32 twice) {
    f32 i;
    f32 y = x;
    for (i = 0.0; i < 3.0; i++) y += 1.0;
    geo = 0.0;
    for (f32 k = 1.0; k < 100.0; k *= 3.0) geo += k;
    twice = forever(x);
    return y + i * 10.0;
}

// RUN: fmag-run %t2.fmag --program seq --in 1.5 | FileCheck %s --check-prefix=SEQ
// The second loop's bound is the count the first computed (3): 1.5 * 2^3 = 12.
// SEQ: {{^}}12{{$}}
export f32 seq(f32 x) {
    f32 n = 0.0;
    for (f32 i = 0.0; i < 3.0; i++) n += 1.0;
    for (f32 j = 0.0; j < n; j++) x *= 2.0;
    return x;
}
