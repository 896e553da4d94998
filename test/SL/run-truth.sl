// Truth is != 0: -0 is false, negatives and denormals are true, in if, ?:, !, &&,
// || and select. Expected values by hand.
// RUN: slc %s -o %t.fmag
// RUN: fmag-run %t.fmag --program t --in 0 --in -0 --in -2 --in 1e-45 --in 3 | FileCheck %s --check-prefix=T
// T: {{^1 0 0 1 0 0$}}
// T-NEXT: {{^1 0 0 1 0 0$}}
// T-NEXT: {{^0 1 1 0 1 1$}}
// T-NEXT: {{^0 1 1 0 1 1$}}
// T-NEXT: {{^0 1 1 0 1 1$}}
export f32 t(f32 x, out f32 tern, out f32 sel, out f32 notx, out f32 andx, out f32 orx) {
    tern = x ? 1.0 : 0.0;
    sel = select(x, 1.0, 0.0);
    notx = !x;
    andx = x && 1.0;
    orx = x || 0.0;
    if (x)
        return 0.0;
    return 1.0;
}

// Comparisons give 1.0 / 0.0, and equality holds for +0 == -0.
// RUN: fmag-run %t.fmag --program cmp --in 1,2 --in 2,2 --in 0,-0 --in 3,-1 | FileCheck %s --check-prefix=CMP
// CMP: {{^1 0 1 0 0 1$}}
// CMP-NEXT: {{^0 0 1 1 1 0$}}
// CMP-NEXT: {{^0 0 1 1 1 0$}}
// CMP-NEXT: {{^0 1 0 1 0 1$}}
export f32 cmp(f32 a, f32 b, out f32 gt, out f32 le, out f32 ge, out f32 eq, out f32 ne) {
    gt = a > b;
    le = a <= b;
    ge = a >= b;
    eq = a == b;
    ne = a != b;
    return a < b;
}

// else-if chains and early returns pick the first true arm.
// RUN: fmag-run %t.fmag --program chain --in 5 --in -5 --in 0.5 --in 1 | FileCheck %s --check-prefix=CH
// CH: {{^10$}}
// CH-NEXT: {{^20$}}
// CH-NEXT: {{^30$}}
// CH-NEXT: {{^30$}}
export f32 chain(f32 x) {
    if (x > 1.0) {
        return 10.0;
    } else if (x < -1.0) {
        return 20.0;
    }
    f32 r = 30.0;
    return r;
}
