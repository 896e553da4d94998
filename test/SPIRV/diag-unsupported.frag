// What FMAG cannot run is an error naming the SPIR-V instruction, at the GLSL
// line from OpLine (glslang -g; it gives no column).
// REQUIRES: glslang
// RUN: glslangValidator -V -g %s -o %t.spv
// RUN: not slc %t.spv -entry tex -o %t.fmag 2>&1 | FileCheck %s --check-prefix=TEX
// TEX: diag-unsupported.frag:34: error: OpImageSampleImplicitLod: texture and image access is not supported
// RUN: slc %t.spv -entry deriv -o %t.d.fmag && fmag-run %t.d.fmag --in 3,0.5,-2 | FileCheck %s --check-prefix=DER
// DER: {{^0.5$}}
// Integers are exact 32-bit values (docs/SPIRV.md "Integers"), so conv, bits and
// shift compile: float(int(x) * 2) is 4 at 2.7 and -4 at -2.7, by hand; bits adds one
// to the float's bit pattern: 1.0 = 0x3F800000 -> 0x3F800001 = 1.00000012; the loop of
// shift adds i & 1 for i = 0..3, 2. In the IR interpreter, before legalization.
// RUN: slc %t.spv -entry conv -emit-ir -o %t.conv.fir
// RUN: fmag-run %t.conv.fir --in 2.7 --in -2.7 | FileCheck %s --check-prefix=CONV
// CONV: {{^}}4{{$}}
// CONV-NEXT: {{^}}-4{{$}}
// RUN: slc %t.spv -entry bits -emit-ir -o %t.bits.fir
// RUN: fmag-run %t.bits.fir --in 1 | FileCheck %s --check-prefix=BITS
// BITS: {{^}}1.00000012{{$}}
// RUN: slc %t.spv -entry shift -o %t.shift.fmag
// RUN: fmag-run %t.shift.fmag --in 0.5 | FileCheck %s --check-prefix=SHIFT
// SHIFT: {{^}}2.5{{$}}
// RUN: not slc %t.spv -entry disc -o %t.fmag 2>&1 | FileCheck %s --check-prefix=KILL
// KILL: diag-unsupported.frag:46: error: OpKill: discarding a fragment is not supported
// Without -g there is no line: the file and the instruction's word offset.
// RUN: glslangValidator -V %s -o %t.nog.spv
// RUN: not slc %t.nog.spv -entry tex -o %t.fmag 2>&1 | FileCheck %s --check-prefix=NOG
// NOG: nog.spv: error: OpImageSampleImplicitLod: texture and image access is not supported (word {{[0-9]+}})
#version 450
layout(location=0) out vec4 o;
layout(binding=0) uniform sampler2D smp;
layout(location=0) in flat int n;
vec4 tex(vec2 uv) {
  return texture(smp, uv);
}
float deriv(float x) {
  return dFdx(x);
}
float conv(float x) {
  return float(int(x) * 2);
}
float bits(float x) {
  return uintBitsToFloat(floatBitsToUint(x) + 1u);
}
float disc(float x) {
  if (x < 0.0) discard;
  return x;
}
float shift(float x) {
  int acc = 0;
  for (int i = 0; i < 4; i++) acc += i & 1;
  return x + float(acc);
}
void main() { o = vec4(tex(vec2(0.0)).x, deriv(1.0), conv(1.0) + bits(1.0), disc(1.0) + shift(1.0)); }
// With the source text in the module (OpSource, glslang -g) the line follows, and no
// caret: glslang gives no column (docs/SPIRV.md).
// TEX-NEXT: {{^  return texture\(smp, uv\);$}}
// TEX-NOT: ^
