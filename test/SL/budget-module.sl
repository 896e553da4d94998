// The inline budget bounds the module as well as each function (docs/Reliability.md):
// a bomb spread over many exports, each under the budget. Each export inlines h5
// (32 copies of h0, about a hundred instructions): one is within 1000, twelve are not.
// RUN: slc %s -entry e0 -inline-budget=1000 -o %t.fmag
// RUN: not slc %s -inline-budget=1000 -o %t.fmag 2>&1 | FileCheck %s
// CHECK: slc: error: inlining @h5 into @e{{[0-9]+}} makes the module's exports exceed the inline budget of 1000 instructions, which bounds the module as well as each function
// The same file within the default budget compiles.
// RUN: slc %s -o %t.fmag
f32 h0(f32 x) { return x * 1.5 + 0.25; }
f32 h1(f32 x) { return h0(x) * h0(x + 1.0); }
f32 h2(f32 x) { return h1(x) * h1(x + 1.0); }
f32 h3(f32 x) { return h2(x) * h2(x + 1.0); }
f32 h4(f32 x) { return h3(x) * h3(x + 1.0); }
f32 h5(f32 x) { return h4(x) * h4(x + 1.0); }
export f32 e0(f32 x) { return h5(x + 0.0); }
export f32 e1(f32 x) { return h5(x + 1.0); }
export f32 e2(f32 x) { return h5(x + 2.0); }
export f32 e3(f32 x) { return h5(x + 3.0); }
export f32 e4(f32 x) { return h5(x + 4.0); }
export f32 e5(f32 x) { return h5(x + 5.0); }
export f32 e6(f32 x) { return h5(x + 6.0); }
export f32 e7(f32 x) { return h5(x + 7.0); }
export f32 e8(f32 x) { return h5(x + 8.0); }
export f32 e9(f32 x) { return h5(x + 9.0); }
export f32 e10(f32 x) { return h5(x + 10.0); }
export f32 e11(f32 x) { return h5(x + 11.0); }
