// Builtins on inputs whose results are exact (or correctly rounded constants),
// checked against values computed by hand; the accuracy tool checks the rest
// against libm (test/SL/accuracy.test).
// RUN: slc %s -o %t.fmag
// RUN: fmag-run %t.fmag --program rnd --in -1.5 --in 2.5 --in 3.5 --in -2.5 --in -1.7 --in 4194304.5 | FileCheck %s --check-prefix=RND
// floor ceil round trunc fract (-1.7f = -1.70000005, so its fract is 0.299999952)
// RND: {{^-2 -1 -2 -1 0.5$}}
// RND-NEXT: {{^2 3 2 2 0.5$}}
// RND-NEXT: {{^3 4 4 3 0.5$}}
// RND-NEXT: {{^-3 -2 -2 -2 0.5$}}
// RND-NEXT: {{^-2 -1 -2 -1 0.299999952$}}
// RND-NEXT: {{^4194304 4194305 4194304 4194304 0.5$}}
export f32 rnd(f32 x, out f32 c, out f32 r, out f32 t, out f32 f) {
    c = ceil(x);
    r = round(x);
    t = trunc(x);
    f = fract(x);
    return floor(x);
}

// RUN: fmag-run %t.fmag --program misc --in -3,7 | FileCheck %s --check-prefix=MISC
// abs sign min max clamp saturate mix step smoothstep mod
// MISC: {{^3 -1 -3 7 0 0 0.5 1 0.5 1$}}
export f32 misc(f32 a, f32 b, out f32 s, out f32 mn, out f32 mx, out f32 cl, out f32 sat,
                out f32 mx2, out f32 st, out f32 sm, out f32 md) {
    s = sign(a);
    mn = min(a, b);
    mx = max(a, b);
    cl = clamp(a, 0.0, 1.0);
    sat = saturate(a);
    mx2 = mix(0.0, 2.0, 0.25);
    st = step(a, b);
    sm = smoothstep(0.0, 2.0, 1.0);
    md = mod(b, 3.0);
    return abs(a);
}

// sqrt inversesqrt rcp exp2 exp log log2 pow: exact results, and the float32
// values nearest sqrt(2) = 1.41421354, e = 2.71828175, 1/3 = 0.333333343.
// RUN: fmag-run %t.fmag --program tr --in 16 | FileCheck %s --check-prefix=TR
// TR: {{^4 0.25 0.0625 65536 1 0 4 1.41421354 2.71828175 0.333333343 1024$}}
export f32 tr(f32 x, out f32 rs, out f32 rc, out f32 e2, out f32 e, out f32 l, out f32 l2,
              out f32 s2, out f32 ee, out f32 third, out f32 pw) {
    rs = inversesqrt(x);
    rc = rcp(x);
    e2 = exp2(x);
    e = exp(x - 16.0);
    l = log(x / 16.0);
    l2 = log2(x);
    s2 = sqrt(x / 8.0);
    ee = exp(x / 16.0);
    third = 1.0 / (x - 13.0);
    pw = pow(x / 8.0, 10.0);
    return sqrt(x);
}

// sin cos tan atan atan2 at exact points; pi/4 and 3pi/4 rounded to float32.
// RUN: fmag-run %t.fmag --program trig --in 0 | FileCheck %s --check-prefix=TRIG
// TRIG: {{^0 1 0 0.785398185 2.3561945 -1.57079637$}}
export f32 trig(f32 x, out f32 c, out f32 t, out f32 a, out f32 a2, out f32 a3) {
    c = cos(x);
    t = tan(x);
    a = atan(x + 1.0);
    a2 = atan2(x + 1.0, x - 1.0);
    a3 = atan2(x - 2.0, x);
    return sin(x);
}

// dot length distance cross normalize
// RUN: fmag-run %t.fmag --program vec --in 3,4 | FileCheck %s --check-prefix=VEC
// VEC: {{^25 5 5 0 0 1 0.6[0-9]* 0.8[0-9]*$}}
export f32 vec(f32x2 v, out f32 len, out f32 dist, out f32x3 cr, out f32x2 nrm) {
    len = length(v);
    dist = distance(v, f32x2(0.0));
    cr = cross(f32x3(1.0, 0.0, 0.0), f32x3(0.0, 1.0, 0.0));
    nrm = normalize(v);
    return dot(v, v);
}
