// Issue 14: mix-ends, checked against values worked by hand. On the old library
// mix(0.7, 0.2, 1) printed 0.199999988 and mix(1e8, 1, 1) 0.
// (fmag-accuracy --mix-ends checks both ends on 10^7 pairs: glsl-builtins.test.)
// RUN: slc %s -o %t.fmag
// RUN: slc -ffast-math %s -o %t.fast.fmag

// mix is exact at both ends: t = 1 gives y (mix(a, b, step(...)) as a select).
// RUN: fmag-run %t.fmag --program ends --in 0.7,0.2 --in 1e8,1 --in -3e-30,5e20 | FileCheck %s --check-prefix=ENDS
// RUN: fmag-run %t.fast.fmag --program ends --in 0.7,0.2 --in 1e8,1 --in -3e-30,5e20 | FileCheck %s --check-prefix=ENDS
// ENDS: {{^0.200000003 0.699999988 0.200000003$}}
// ENDS-NEXT: {{^1 100000000 1$}}
// ENDS-NEXT: {{^5.0000001e\+20 -3.00000001e-30 5.0000001e\+20$}}
export f32 ends(f32 x, f32 y, out f32 m0, out f32 sel) {
    m0 = mix(x, y, 0.0);
    sel = mix(x, y, step(0.5, y - y + 1.0));
    return mix(x, y, 1.0);
}

// mix(a, b, step(e, x)) used as a select is one select on step's guard (before
// it: the subtraction for the guard and a move).
// RUN: slc -S %s -entry sel01 -o - | FileCheck %s --check-prefix=SEL
// SEL: .def sel01
// SEL-COUNT-3: = fmag
// SEL-NOT: = fmag
export f32 sel01(f32 a, f32 b, f32 e, f32 x) {
    return mix(a, b, step(e, x));
}
