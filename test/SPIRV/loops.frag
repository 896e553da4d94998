// Loops stay loops (back edges) in the IR the reader builds; the IR interpreter
// runs them (slc -emit-ir, then fmag-run on the .fir). loops-unroll.frag runs the
// same through -O2 once -loop-unroll removes them.
// REQUIRES: glslang
// RUN: glslangValidator -V %s -o %t.spv
// RUN: spirv-opt --ssa-rewrite %t.spv -o %t.ssa.spv
// poly(2) by Horner over w[i] with a decrementing int counter:
// ((4*2 + 3)*2 + 2)*2 + 1 = 49.
// RUN: slc %t.spv -entry poly -emit-ir -o %t.poly.fir
// RUN: fmag-run %t.poly.fir --in 2 | FileCheck %s --check-prefix=POLY
// RUN: slc %t.ssa.spv -entry poly -emit-ir -o %t.poly2.fir
// RUN: fmag-run %t.poly2.fir --in 2 | FileCheck %s --check-prefix=POLY
// POLY: {{^49$}}
// pick: the running maximum of v[1..3] (a dynamic index v[i] and a switch on
// the loop counter adding t at i == 2): (1,5,3,7) -> 5, 5.5, 7; (1,5,6,2) -> 6.5.
// RUN: slc %t.spv -entry pick -emit-ir -o %t.pick.fir
// RUN: fmag-run %t.pick.fir --in 1,5,3,7,0.5 | FileCheck %s --check-prefix=P1
// RUN: fmag-run %t.pick.fir --in 1,5,6,2,0.5 | FileCheck %s --check-prefix=P2
// RUN: slc %t.ssa.spv -entry pick -emit-ir -o %t.pick2.fir
// RUN: fmag-run %t.pick2.fir --in 1,5,6,2,0.5 | FileCheck %s --check-prefix=P2
// P1: {{^7$}}
// P2: {{^6.5$}}
// The IR has the back edge: a phi at the loop header.
// RUN: FileCheck %s --check-prefix=IR < %t.poly.fir
// IR: phi
#version 450
layout(location=0) out vec4 o;
const float w[4] = float[4](1.0, 2.0, 3.0, 4.0);
float poly(float x) {
  float acc = 0.0;
  for (int i = 3; i >= 0; i--) acc = acc * x + w[i];
  return acc;
}
float pick(vec4 v, float t) {
  float best = v[0];
  for (int i = 1; i < 4; ++i) {
    if (v[i] > best) best = v[i];
    switch (i) { case 2: best += t; break; default: break; }
  }
  return best;
}
void main() { o = vec4(poly(2.0), pick(vec4(1.0), 0.5), 0.0, 0.0); }
