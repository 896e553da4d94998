// Operator precedence, associativity, unary minus, swizzles and out parameters,
// with every expected value worked out by hand (not by the IR interpreter, which
// would agree with a wrong parse).
// RUN: slc %s -o %t.fmag
// RUN: fmag-run %t.fmag --program prec --in 1,2,3 | FileCheck %s --check-prefix=PREC
//   a + b * c = 1 + 6 = 7;  a * b + c = 2 + 3 = 5;  a - b - c = (1-2)-3 = -4;
//   a / b / c = (1/2)/3 = 0.166666672 (f32);  -a * b = -2;  a - -b = 3;
//   (a + b) * c = 9;  c - b * a + c / a = 3 - 2 + 3 = 4
// PREC: {{^7 5 -4 0.166666672 -2 3 9 4$}}
export f32 prec(f32 a, f32 b, f32 c, out f32 o1, out f32 o2, out f32 o3, out f32 o4,
                out f32 o5, out f32 o6, out f32 o7) {
    o1 = a * b + c;
    o2 = a - b - c;
    o3 = a / b / c;
    o4 = -a * b;
    o5 = a - -b;
    o6 = (a + b) * c;
    o7 = c - b * a + c / a;
    return a + b * c;
}

// Comparison binds looser than arithmetic, && looser than comparison, || looser
// than &&, ?: loosest: with a=1, b=2, c=3:
//   a + 1 < b * c      -> 2 < 6          -> 1
//   a < b && b < a || c > b -> (1 && 0) || 1 -> 1
//   a > b || b > a && c < a -> 0 || (1 && 0) -> 0
//   a < b ? b + c : c - b   -> 5
//   a > b ? 1.0 : c > b ? 2.0 : 3.0 (right-assoc) -> 2
// RUN: fmag-run %t.fmag --program logic --in 1,2,3 | FileCheck %s --check-prefix=LOGIC
// LOGIC: {{^1 1 0 5 2$}}
export f32 logic(f32 a, f32 b, f32 c, out f32 o1, out f32 o2, out f32 o3, out f32 o4) {
    o1 = a < b && b < a || c > b;
    o2 = a > b || b > a && c < a;
    o3 = a < b ? b + c : c - b;
    o4 = a > b ? 1.0 : c > b ? 2.0 : 3.0;
    return a + 1.0 < b * c;
}

// Swizzles: read with repeats, masked write, and scalar broadcast; outputs are the
// return value's components then the out parameter's. v = (1,2,3):
//   w = v.zyx = (3,2,1); w.xz = v.yy -> (2,2,2)... then w.y = v.x * 10 -> (2,10,2)
//   r = w + v.x = (3,11,3);  t = v.zz * 2 - v.xy = (6-1, 6-2) = (5,4)
// RUN: fmag-run %t.fmag --program swz --in 1,2,3 | FileCheck %s --check-prefix=SWZ
// SWZ: {{^3 11 3 5 4$}}
export f32x3 swz(f32x3 v, out f32x2 t) {
    f32x3 w = v.zyx;
    w.xz = v.yy;
    w.y = v.x * 10.0;
    t = v.zz * 2.0 - v.xy;
    return w + v.x;
}
