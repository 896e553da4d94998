// Calls and pointer parameters as glslang -O0 emits them (every parameter a
// Function pointer, copies at the call site), and -entry picking any function.
// REQUIRES: glslang
// RUN: glslangValidator -V %s -o %t.spv
// sq writes its `in` parameter: still one input, one output (the result).
// RUN: slc %t.spv -entry sq -o %t.sq.fmag
// RUN: fmag-run %t.sq.fmag --in 3 | FileCheck %s --check-prefix=SQ
// SQ: {{^9$}}
// two(a, out s, inout t): s is written before it is read, so it is an output;
// t is read first, so without the front end's qualifiers it is an input only
// (docs/SPIRV.md): inputs a.x a.y t, outputs s = a.x + a.y.
// RUN: slc %t.spv -entry two -o %t.two.fmag
// RUN: fmag-run %t.two.fmag --in 1,2,10 | FileCheck %s --check-prefix=TWO
// TWO: {{^3$}}
// shade(n, k, out m) = (n * sq(c), m) with c = n.z: c > 0.5 scales c by k (m = 1),
// c < 0 returns early with zeros (m = -1), otherwise m = 0.
// RUN: slc %t.spv -entry shade -o %t.shade.fmag
// RUN: fmag-run %t.shade.fmag --in 0,0,1,2 | FileCheck %s --check-prefix=A
// A: {{^0 0 4 1$}}
// RUN: fmag-run %t.shade.fmag --in 0,0,-1,2 | FileCheck %s --check-prefix=B
// B: {{^0 0 0 -1$}}
// RUN: fmag-run %t.shade.fmag --in 1,0,0.25,2 | FileCheck %s --check-prefix=C
// C: {{^0.0625 0 0.015625 0$}}
// The same through SPIRV-Tools' SSA form (OpPhi instead of variables).
// RUN: spirv-opt --ssa-rewrite %t.spv -o %t.ssa.spv
// RUN: slc %t.ssa.spv -entry shade -o %t.shade2.fmag
// RUN: fmag-run %t.shade2.fmag --in 1,0,0.25,2 | FileCheck %s --check-prefix=C
// main: two(vec2(1), s, t) with t = 1 gives s = 2, t = 3; shade(vec3(1), 2, s):
// c = 1 > 0.5, c = 2, n * sq(2) = (4,4,4), m = 1: o = (4, 4, 4, 3).
// RUN: slc %t.spv -o %t.main.fmag
// RUN: fmag-run %t.main.fmag | FileCheck %s --check-prefix=MAIN
// MAIN: {{^4 4 4 3$}}
#version 450
layout(location=0) out vec4 o;
float sq(float x) { x = x * x; return x; }
void two(in vec2 a, out float s, inout float t) { s = a.x + a.y; t += s; }
vec3 shade(vec3 n, float k, out float m) {
  float c = dot(n, vec3(0.0, 0.0, 1.0));
  if (c > 0.5) { m = 1.0; c = c * k; } else if (c < 0.0) { m = -1.0; return vec3(0.0); } else { m = 0.0; }
  return n * sq(c);
}
void main() { float s, t = 1.0; two(vec2(1.0), s, t); o = vec4(shade(vec3(1.0), 2.0, s), t); }
