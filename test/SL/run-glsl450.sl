// The GLSL.std.450 builtins added for issue 14, called from SL in scalar and
// vector form, on inputs whose results were worked by hand (exact ones printed,
// the others checked within their ulp bound against libm values in double,
// 1 = holds). The accuracy tool measures them over their whole domains
// (test/Math/glsl-builtins.test).
// RUN: slc %s -o %t.fmag
// RUN: slc -ffast-math %s -o %t.fast.fmag

// atan(y, x) is atan2(y, x); modf, frexp with out arguments; any, all;
// reflect, refract, faceforward; fma, ldexp, radians, isnan, isinf.
// v = (2.5, -1.25, 0), y = 0.5:
//   atan(0.5, 2.5) = atan2 = 0.19739556 (libm 0.19739555984988078; fast-math is
//   looser, so only five digits are checked)
//   modf(v) = (0.5, -0.25, 0) and (2, -1, 0); frexp(v) exponents (2, 1, 0)
//   any = 1, all = 0; reflect(v, (0,1,0)) = (2.5, 1.25, 0)
//   refract(v, (0,1,0), 0.5): d = -1.25, k = 1 - 0.25 (1 - 1.5625) = 1.140625,
//     0.5 v - (0.5 d + sqrt(k)) N = (1.25, -sqrt(1.140625), 0) = (1.25, -1.06800044, 0)
//   faceforward(v, v, (0,-1,0)): dot = 1.25 > 0 gives -v = (-2.5, 1.25, 0)
//   fma(0.5, 0.5, 0.5) = 0.75, ldexp(0.5, 3) = 4, radians(180) = pi = 3.14159274
// RUN: fmag-run %t.fmag --program shapes --in 2.5,-1.25,0,0.5 | FileCheck %s --check-prefix=SHAPES
// RUN: fmag-run %t.fast.fmag --program shapes --in 2.5,-1.25,0,0.5 | FileCheck %s --check-prefix=SHAPES
// SHAPES: {{^0.5 -0.25 0 2 -1 0 2 1 0 1 0 2.5 1.25 0 1.25 -1.06800044 0 -2.5 1.25 0 0.75 4 3.14159274 0.19739[0-9]*$}}
export f32x3 shapes(f32x3 v, f32 y, out f32x3 w, out f32x3 e, out f32 an, out f32 al,
                    out f32x3 rf, out f32x3 rr, out f32x3 ff, out f32 fm, out f32 ld,
                    out f32 rd, out f32 at) {
    f32x3 f = modf(v, w);
    frexp(v, e);
    an = any(v);
    al = all(v);
    rf = reflect(v, f32x3(0.0, 1.0, 0.0));
    rr = refract(v, f32x3(0.0, 1.0, 0.0), y);
    ff = faceforward(v, v, f32x3(0.0, -1.0, 0.0));
    fm = fma(y, y, y);
    ld = ldexp(y, 3.0);
    rd = radians(180.0 + y - y);
    at = atan(y, v.x);
    return f;
}

// isnan / isinf of computed values (1/0 is an infinity, 1/0 - 1/0 a NaN), and as
// conditions; min/max/clamp mixing a vector with a scalar.
// RUN: fmag-run %t.fmag --program tests --in 0,1 | FileCheck %s --check-prefix=TESTS
// TESTS: {{^1 0 0 1 0 0 7 0.200000003 0.600000024 0 0.200000003 0.600000024 -1 0.5 0.699999988 0.5$}}
export f32 tests(f32 z, f32 one, out f32 ni, out f32 in0, out f32 ii, out f32 nn, out f32 fin,
                 out f32 sel, out f32x3 cl, out f32x3 mn, out f32x3 mx) {
    f32 r = one / z;
    f32 q = r - r;
    ni = isinf(q);
    in0 = isnan(r);
    ii = isinf(r);
    nn = isnan(one);
    fin = isinf(one);
    sel = 3.0;
    if (isinf(r)) sel = 7.0;
    f32x3 a = f32x3(0.2, 0.7, -1.0);
    cl = clamp(a, 0.0, 0.6);
    mn = min(a, 0.6);
    mx = max(0.5, a);
    return isnan(q);
}

// The one-input functions at points with libm references (x, then reference and
// bound for asin acos sinh cosh tanh asinh acosh atanh in turn); acosh at x + 1.
// x = 0.5: asin 0.523598775598 acos 1.0471975512 sinh 0.521095305494 cosh 1.12762596521
//   tanh 0.46211715726 asinh 0.48121182506 acosh(1.5) 0.962423650119 atanh 0.549306144334
// Bounds: 2 ulp (3 for the inverse hyperbolics) at each value's binade.
// RUN: fmag-run %t.fmag --program funcs --in 0.5 | FileCheck %s --check-prefix=FUNCS
// RUN: fmag-run %t.fmag --program vfuncs --in 0.5,-0.5 | FileCheck %s --check-prefix=VFUNCS
// FUNCS: {{^1 1 1 1 1 1 1 1$}}
// Correctly rounded: asin(0.5) = 0.52359879, acos(0.5) = 1.04719758,
// acos(-0.5) = 2.09439516, tanh(2) = 0.964027584.
// VFUNCS: {{^0.52359879 -0.52359879 1.04719758 2.09439516 0.964027584 -0.964027584$}}
export f32 funcs(f32 x, out f32 c, out f32 sh, out f32 ch, out f32 th, out f32 ash, out f32 ach,
                 out f32 ath) {
    c = step(abs(acos(x) - 1.0471975512), 2.4e-7);
    sh = step(abs(sinh(x) - 0.521095305494), 1.2e-7);
    ch = step(abs(cosh(x) - 1.12762596521), 2.4e-7);
    th = step(abs(tanh(x) - 0.46211715726), 6e-8);
    ash = step(abs(asinh(x) - 0.48121182506), 9e-8);
    ach = step(abs(acosh(x + 1.0) - 0.962423650119), 1.8e-7);
    ath = step(abs(atanh(x) - 0.549306144334), 1.8e-7);
    return step(abs(asin(x) - 0.523598775598), 1.2e-7);
}
export f32x2 vfuncs(f32x2 v, out f32x2 c, out f32x2 t) {
    c = acos(v);
    t = tanh(v * 4.0);
    return asin(v);
}
