// Loops through the whole pipeline: -O2 runs -loop-unroll, which removes the
// back edges the reader leaves (values as in loops.frag).
// REQUIRES: glslang, loop-unroll
// RUN: glslangValidator -V %s -o %t.spv
// RUN: slc %t.spv -entry poly -o %t.poly.fmag
// RUN: fmag-run %t.poly.fmag --in 2 | FileCheck %s --check-prefix=POLY
// POLY: {{^49$}}
// RUN: slc %t.spv -entry pick -o %t.pick.fmag
// RUN: fmag-run %t.pick.fmag --in 1,5,6,2,0.5 | FileCheck %s --check-prefix=P2
// P2: {{^6.5$}}
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
