// -entry and module variables: a Private global that the function writes before
// reading is fine; one whose value comes from glslang's initializer code in main
// (which -entry does not run) is an error, not a silent 0; main runs it.
// REQUIRES: glslang
// RUN: glslangValidator -V -g %s -o %t.spv
// RUN: slc %t.spv -entry k -o %t.k.fmag
// RUN: fmag-run %t.k.fmag --in 2 | FileCheck %s --check-prefix=K
// K: {{^6$}}
// RUN: not slc %t.spv -entry f -o %t.f.fmag 2>&1 | FileCheck %s --check-prefix=F
// F: entry-globals.frag:19:{{[0-9]+}}: error: the entry function reads the global %g, whose value is set by code in the entry point
// main: f(1) = 2, k(2) = 6.
// RUN: slc %t.spv -o %t.main.fmag
// RUN: fmag-run %t.main.fmag | FileCheck %s --check-prefix=MAIN
// MAIN: {{^2 6 0 0$}}
#version 450
layout(location=0) out vec4 o;
float g = 2.0;
float h;
float f(float x) { return x * g; }
float k(float x) { h = x; return h * 3.0; }
void main() { o = vec4(f(1.0), k(2.0), 0, 0); }
