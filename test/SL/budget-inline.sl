// The inline budget through slc (docs/Reliability.md): each function calls the
// previous one twice, ~2^30 instructions if fully inlined. The default budget ends
// the compile at once; `ulimit -t` makes a missing budget a failure, not a hang.
// RUN: not sh -c 'ulimit -t 20; slc %s -o %t.fmag' 2>&1 | FileCheck %s
// A library diagnostic without a source location carries the tool's prefix.
// CHECK: {{^}}slc: error: inlining @f{{[0-9]+}} into @f{{[0-9]+}} exceeds the inline budget of 200000 instructions
// RUN: not slc %s -inline-budget=100 -o %t.fmag 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: error: inlining @f{{[0-9]+}} into @f{{[0-9]+}} exceeds the inline budget of 100 instructions
// RUN: not slc %s -inline-budget=0 -o %t.fmag 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: slc: error: invalid value '0' for -inline-budget (expected 1 or more)
// RUN: not slc %s -inline-budget= -o %t.fmag 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: slc: error: -inline-budget needs a non-empty value
//
// What no export reaches does not count: -entry short compiles, and its chain
// (g0 = x + 1, each level doubles: g3 = 8x + 8) gives 24 at x = 2.
// RUN: slc %s -entry short -o %t2.fmag && fmag-run %t2.fmag --in 2 | FileCheck %s --check-prefix=OUT
// OUT: 24
// RUN: slc %s -entry short -inline-budget=100 -o %t2.fmag
// RUN: not slc %s -entry short -inline-budget=10 -o %t2.fmag
f32 g0(f32 x) { return x + 1.0; }
f32 g1(f32 x) { return g0(x) + g0(x); }
f32 g2(f32 x) { return g1(x) + g1(x); }
f32 g3(f32 x) { return g2(x) + g2(x); }
export f32 short(f32 x) { return g3(x); }
f32 f0(f32 x) { return x * 1.5 + 0.25; }
f32 f1(f32 x) { return f0(x) + f0(x * 0.5); }
f32 f2(f32 x) { return f1(x) + f1(x * 0.5); }
f32 f3(f32 x) { return f2(x) + f2(x * 0.5); }
f32 f4(f32 x) { return f3(x) + f3(x * 0.5); }
f32 f5(f32 x) { return f4(x) + f4(x * 0.5); }
f32 f6(f32 x) { return f5(x) + f5(x * 0.5); }
f32 f7(f32 x) { return f6(x) + f6(x * 0.5); }
f32 f8(f32 x) { return f7(x) + f7(x * 0.5); }
f32 f9(f32 x) { return f8(x) + f8(x * 0.5); }
f32 f10(f32 x) { return f9(x) + f9(x * 0.5); }
f32 f11(f32 x) { return f10(x) + f10(x * 0.5); }
f32 f12(f32 x) { return f11(x) + f11(x * 0.5); }
f32 f13(f32 x) { return f12(x) + f12(x * 0.5); }
f32 f14(f32 x) { return f13(x) + f13(x * 0.5); }
f32 f15(f32 x) { return f14(x) + f14(x * 0.5); }
f32 f16(f32 x) { return f15(x) + f15(x * 0.5); }
f32 f17(f32 x) { return f16(x) + f16(x * 0.5); }
f32 f18(f32 x) { return f17(x) + f17(x * 0.5); }
f32 f19(f32 x) { return f18(x) + f18(x * 0.5); }
f32 f20(f32 x) { return f19(x) + f19(x * 0.5); }
f32 f21(f32 x) { return f20(x) + f20(x * 0.5); }
f32 f22(f32 x) { return f21(x) + f21(x * 0.5); }
f32 f23(f32 x) { return f22(x) + f22(x * 0.5); }
f32 f24(f32 x) { return f23(x) + f23(x * 0.5); }
f32 f25(f32 x) { return f24(x) + f24(x * 0.5); }
f32 f26(f32 x) { return f25(x) + f25(x * 0.5); }
f32 f27(f32 x) { return f26(x) + f26(x * 0.5); }
f32 f28(f32 x) { return f27(x) + f27(x * 0.5); }
f32 f29(f32 x) { return f28(x) + f28(x * 0.5); }
export f32 bomb(f32 x) { return f29(x); }
