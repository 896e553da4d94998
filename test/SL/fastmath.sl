// Library sequences survive -ffast-math: the rounding trick and split constants
// are guarded so reassociation cannot fold them, even when an affine expression
// feeds the builtin (the pattern reassociation merges into a constant).
// RUN: slc -ffast-math %s -o %t.fmag
// floor(x*3 + 0.5), round(x*2 + 1), trunc(v) - fract(v) for v = x*2 + 0.5, at
// x = 0.5, 0.4, -0.5 (fast-math may round the 1 - 0.3 case differently by an ulp)
// RUN: fmag-run %t.fmag --program fl --in 0.5 --in 0.4 --in -0.5 | FileCheck %s --check-prefix=FL
// FL: {{^2 2 0.5$}}
// FL-NEXT: {{^1 2 (0.7000000[0-9]*|0.6999999[0-9]*)$}}
// FL-NEXT: {{^-1 0 -0.5$}}
export f32 fl(f32 x, out f32 r, out f32 t) {
    r = round(x * 2.0 + 1.0);
    t = trunc(x * 2.0 + 0.5) - fract(x * 2.0 + 0.5);
    return floor(x * 3.0 + 0.5);
}
// sin(2x + 1) with the quadrant computed right: at x = 0.25, sin(1.5) = 0.997495;
// x = 1: sin(3) = 0.14112; x = -2: sin(-3) = -0.14112; x = 2: sin(5) = -0.958924.
// RUN: fmag-run %t.fmag --program s --in 0.25 --in 1 --in -2 --in 2 | FileCheck %s --check-prefix=S
// S: {{^0.99749[0-9]* 0.0707[0-9]*$}}
// S-NEXT: {{^0.14112[0-9]* -0.98999[0-9]*$}}
// S-NEXT: {{^-0.14112[0-9]* -0.98999[0-9]*$}}
// S-NEXT: {{^-0.95892[0-9]* 0.28366[0-9]*$}}
export f32 s(f32 x, out f32 c) {
    c = cos(x * 2.0 + 1.0);
    return sin(x * 2.0 + 1.0);
}
// exp(0.5x + 1) at x = 2: e^2 = 7.389056; log2(4x + 1) at x = 1.75: log2(8) = 3, e^1.875 = 6.52082.
// RUN: fmag-run %t.fmag --program el --in 2 --in 1.75 | FileCheck %s --check-prefix=EL
// EL: {{^7.38905[0-9]* 3.16992[0-9]*$}}
// EL-NEXT: {{^6.5208[0-9]* 3$}}
export f32 el(f32 x, out f32 l) {
    l = log2(x * 4.0 + 1.0);
    return exp(x * 0.5 + 1.0);
}
