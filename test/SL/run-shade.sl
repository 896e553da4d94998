// The SPEC §5 example, run on the VM; expected values computed by hand.
// RUN: slc %s -o %t.fmag
// n = l = (0,0,1), rough 0.5: ndl = 1, no branch taken, c = (0.1, 0.1, 1.1) swapped
// to (1.1, 0.1, 0.1) in float32 (1 + 0.1f rounds to 1.10000002), luma ~ 0.3126.
// RUN: fmag-run %t.fmag --in 0,0,1,0,0,1,0.5 | FileCheck %s --check-prefix=A
// A: {{^1.10000002 0.100000001 0.100000001 0.3126[0-9]* 0$}}
// rough 0.1: both conditions hold, ndl = 2, c.x = 2 + 0.1f = 2.0999999 after the swap.
// RUN: fmag-run %t.fmag --in 0,0,1,0,0,1,0.1 | FileCheck %s --check-prefix=B
// B: {{^2.0999999 0.100000001 0.100000001 0.5252[0-9]* 0$}}
// ndl = 0.005 < 0.01: the early return, mask = 1.
// RUN: fmag-run %t.fmag --in 0,0,1,0,0,0.005,0.1 | FileCheck %s --check-prefix=C
// C: {{^0 0 0 0 1$}}
// a negative dot product is clamped to 0 by max, then returns early.
// RUN: fmag-run %t.fmag --in 0,0,1,0,0,-1,0.1 | FileCheck %s --check-prefix=C
f32 luma(f32x3 c) { return dot(c, f32x3(0.2126, 0.7152, 0.0722)); }

export f32x4 shade(f32x3 n, f32x3 l, f32 rough, out f32 mask) {
    f32 ndl = max(dot(n, l), 0.0);
    if (ndl > 0.5 && rough < 0.3) {
        ndl = ndl * 2.0;
    } else if (ndl < 0.01) {
        mask = 1.0;
        return f32x4(0.0);
    }
    mask = 0.0;
    f32x3 c = n * ndl + 0.1;          // scalar broadcasts
    c.xz = c.zx;                      // swizzle read and masked write
    return f32x4(c, luma(c));
}
