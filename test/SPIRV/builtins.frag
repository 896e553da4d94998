// Built-in variables are not program data: gl_Position is not an output (the
// vertex shader's program has the three outputs of c), and reading
// gl_FragCoord is an error rather than a silent zero.
// REQUIRES: glslang
// RUN: glslangValidator -V %S/Inputs/builtin-out.vert -o %t.vert.spv
// RUN: slc %t.vert.spv -o %t.vert.fmag
// RUN: fmag-run %t.vert.fmag --in 1,2,3 | FileCheck %s --check-prefix=VERT
// VERT: {{^2 4 6$}}
// RUN: glslangValidator -V -g %s -o %t.spv
// RUN: not slc %t.spv -o %t.fmag 2>&1 | FileCheck %s
// CHECK: builtins.frag:15: error: OpLoad: reads the built-in %gl_FragCoord: built-in inputs are not FMAG data
#version 450
layout(location=0) in vec2 uv;
layout(location=0) out vec4 o;
void main() { o = vec4(uv, gl_FragCoord.xy); }
