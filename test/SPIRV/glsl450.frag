// Every supported GLSL.std.450 group through lib/Math, checked against hand
// values (exact cases) and Python's libm in double (transcendental ones).
// REQUIRES: glslang
// RUN: glslangValidator -V %s -o %t.spv
// Rounding: floor ceil fract round roundEven trunc (round is half to even).
// RUN: slc %t.spv -entry rnd -o %t.rnd.fmag
// RUN: fmag-run %t.rnd.fmag --in -1.5 | FileCheck %s --check-prefix=RND1
// RND1: {{^-2 -1 0.5 -2 -2 -1$}}
// RUN: fmag-run %t.rnd.fmag --in 2.5 | FileCheck %s --check-prefix=RND2
// RND2: {{^2 3 0.5 2 2 2$}}
// a = -3, b = 2, t = 0.25: abs sign min max clamp(a,0,1) mix step smoothstep(0,1,t)
// fma(a,b,t) mod(a,b) = 3 -1 -3 2 0 -1.75 1 0.15625 -5.75 1.
// RUN: slc %t.spv -entry misc -o %t.misc.fmag
// RUN: fmag-run %t.misc.fmag --in -3,2,0.25 | FileCheck %s --check-prefix=MISC
// MISC: {{^3 -1 -3 2 0 -1.75 1 0.15625 -5.75 1$}}
// RUN: slc %t.spv -entry trans -o %t.trans.fmag
// RUN: fmag-run %t.trans.fmag --in 1.7 | %python %S/Inputs/near.py 2e-6 "exp(1.7)" "2**1.7" "log(1.7)" "log2(1.7)" "1.7**1.5" "sqrt(1.7)" "1/sqrt(1.7)" "sin(1.7)" "cos(1.7)" "tan(1.7)" "atan(1.7)" "atan2(1.7, 2)" "asin(1.7/4)" "acos(1.7/4)" "sinh(1.7)" "cosh(1.7)" "tanh(1.7)" "radians(1.7)" "degrees(1.7)"
// a = (1,2,2), b = (0,1,0): length distance dot normalize(a) cross(a,b)
// reflect(a,b) faceforward(a,b,a), and refract((0.5,-sqrt(0.75),0), b, 0.5) =
// (0.25, -sqrt(0.9375), 0) (k = 1 - 0.25*(1 - 0.75)).
// RUN: slc %t.spv -entry geom -o %t.geom.fmag
// RUN: fmag-run %t.geom.fmag --in 1,2,2,0,1,0 | %python %S/Inputs/near.py 2e-6 3 "sqrt(1+1+4)" 2 1/3 2/3 2/3 -2 0 1 1 -2 2 -1 -2 -2 0.25 "-sqrt(0.9375)" 0
// determinant(mat3(2,0,0, 1,3,0, 4,5,6)) = 36; inverse(mat2(4,2,7,6)) = (0.6,-0.2,-0.7,0.4).
// RUN: slc %t.spv -entry mats -o %t.mats.fmag
// RUN: fmag-run %t.mats.fmag | %python %S/Inputs/near.py 1e-6 36 0.6 -0.2 -0.7 0.4
// modf(2.75) = 0.75 + 2; frexp(12) = 0.75 * 2^4 (an int out value); ldexp(0.75, 4) = 12.
// RUN: slc %t.spv -entry split -o %t.split.fmag
// RUN: fmag-run %t.split.fmag --in 2.75,12 | FileCheck %s --check-prefix=SPLIT
// SPLIT: {{^0.75 2 0.75 4 12$}}
#version 450
layout(location=0) out vec4 o;
float[6] rnd(float x) { return float[6](floor(x), ceil(x), fract(x), round(x), roundEven(x), trunc(x)); }
float[10] misc(float a, float b, float t) {
  return float[10](abs(a), sign(a), min(a, b), max(a, b), clamp(a, 0.0, 1.0), mix(a, b, t),
                   step(a, b), smoothstep(0.0, 1.0, t), fma(a, b, t), mod(a, b));
}
float[19] trans(float x) {
  return float[19](exp(x), exp2(x), log(x), log2(x), pow(x, 1.5), sqrt(x), inversesqrt(x),
                   sin(x), cos(x), tan(x), atan(x), atan(x, 2.0), asin(x / 4.0), acos(x / 4.0),
                   sinh(x), cosh(x), tanh(x), radians(x), degrees(x));
}
float[18] geom(vec3 a, vec3 b) {
  vec3 n = normalize(a), c = cross(a, b), r = reflect(a, b), f = faceforward(a, b, a);
  vec3 t = refract(vec3(0.5, -sqrt(0.75), 0.0), b, 0.5);
  return float[18](length(a), distance(a, b), dot(a, b), n.x, n.y, n.z, c.x, c.y, c.z,
                   r.x, r.y, r.z, f.x, f.y, f.z, t.x, t.y, t.z);
}
float[5] mats() {
  mat3 m = mat3(2.0, 0.0, 0.0, 1.0, 3.0, 0.0, 4.0, 5.0, 6.0);
  mat2 i = inverse(mat2(4.0, 2.0, 7.0, 6.0));
  return float[5](determinant(m), i[0][0], i[0][1], i[1][0], i[1][1]);
}
float[5] split(float x, float y) {
  float whole;
  float f = modf(x, whole);
  int e;
  float m = frexp(y, e);
  return float[5](f, whole, m, float(e), ldexp(m, e));
}
// glslang drops functions main does not call.
void main() {
  float w;
  o = vec4(rnd(1.0)[0] + misc(1.0, 2.0, 3.0)[0] + trans(1.0)[0], geom(vec3(1.0), vec3(2.0))[0],
           mats()[0], split(1.0, 2.0)[0]);
}
