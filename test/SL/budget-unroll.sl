// The unroll budget through slc (docs/Reliability.md): a loop of 10^9 trips ends at
// the default budget at once; `ulimit -t` makes a missing budget a failure, not a hang.
// RUN: not sh -c 'ulimit -t 20; slc %s -o %t.fmag' 2>&1 | FileCheck %s
// CHECK: budget-unroll.sl:[[@LINE+18]]:5: error: unrolling this loop (in big) would exceed the budget of 100000 instructions
// CHECK-NEXT: {{^}}    for (f32 i = 0.0; i < 1000000000.0; i++) { s = s * 0.5 + x; }{{$}}
//
// -unroll-budget=N: 40 trips of one add are over 30 instructions, within 1000; the
// result by hand: 40 x 0.25 = 10.
// RUN: not slc %s -entry small -unroll-budget=30 -o %t.fmag 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: budget-unroll.sl:[[@LINE+17]]:5: error: unrolling this loop (in small) would exceed the budget of 30 instructions
// RUN: slc %s -entry small -unroll-budget=1000 -o %t2.fmag
// RUN: fmag-run %t2.fmag --in 0.25 | FileCheck %s --check-prefix=OUT
// OUT: {{^}}10{{$}}
// Bad values.
// RUN: not slc %s -unroll-budget=0 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not slc %s -unroll-budget=x 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: slc: error: invalid value '{{0|x}}' for -unroll-budget (expected 1 or more){{$}}
// RUN: not slc %s -unroll-budget= 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: slc: error: -unroll-budget needs a non-empty value
export f32 big(f32 x) {
    f32 s = x;
    for (f32 i = 0.0; i < 1000000000.0; i++) { s = s * 0.5 + x; }
    return s;
}
export f32 small(f32 x) {
    f32 s = 0.0;
    for (f32 i = 0.0; i < 40.0; i++) { s = s + x; }
    return s;
}
