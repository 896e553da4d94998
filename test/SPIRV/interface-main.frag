// Without -entry the program is main(): inputs are the Input variables in
// Location order (glslang's --aml assigns locations in declaration order; it
// emits the OpVariables in order of first use), then the uniforms (the members
// of glslang's default uniform block in declaration order); outputs are the
// Output variables in Location order. An output main never writes is 0.
// REQUIRES: glslang
// RUN: glslangValidator -V -R --aml --amb %s -o %t.spv
// a=1 b=(2,3) c=4 u1=5 u2=(6,7): o = (c, b, a + u1) = (4,2,3,6), o2 = 6*10 + 7,
// never = 0, g (a Private global initialized in main) = 0.5 scales nothing here.
// RUN: slc %t.spv -o %t.fmag
// RUN: fmag-as -i %t.fmag | FileCheck %s --check-prefix=HDR
// HDR: name=main {{.*}} inputs=7 outputs=6
// RUN: fmag-run %t.fmag --in 1,2,3,4,5,6,7 | FileCheck %s
// CHECK: {{^4 2 3 6 67 0$}}
#version 450
in float a;
in vec2 b;
in float c;
uniform float u1;
uniform vec2 u2;
out vec4 o;
out float o2;
out float never;
float g = 0.5;
void main() {
  o2 = u2.x * 10.0 + u2.y;
  o = vec4(c, b, a + u1) * (g + 0.5);
}
