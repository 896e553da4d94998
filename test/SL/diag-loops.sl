// Diagnostics of `for`, `const` and file-scope constants found by the checker (all
// in one run); syntax errors are in diag-loops-syntax.sl.
// RUN: not slc %s 2>&1 | FileCheck %s
// A loop whose bound is an input: slc reports the loop's file:line:col (the `for` on
// line 4, column 5 of the input) and the function, from -loop-unroll, with the source
// line and a caret as the frontend's errors have.
// RUN: not slc %S/Inputs/loop-not-constant.sl 2>&1 | FileCheck %s --check-prefix=TRIP
// TRIP: loop-not-constant.sl:4:5: error: loop in f: trip count is not a constant
// TRIP-NEXT: {{^}}    for (f32 i = 0.0; i < n; i++){{$}}
// TRIP-NEXT: {{^    \^$}}
// RUN: not slc %S/Inputs/loop-not-constant.sl -O0 2>&1 | FileCheck %s --check-prefix=TRIP

const f32 K = 2.0;
// CHECK: :[[@LINE+1]]:11: error: redefinition of 'K'
const f32 K = 3.0;
// CHECK: :[[@LINE+1]]:15: error: a file-scope constant cannot call function 'helper' (builtins are fine)
const f32 H = helper(1.0);
// CHECK: :[[@LINE+1]]:16: error: initializer: cannot assign f32x2 to f32
const f32 V2 = f32x2(1.0, 2.0);
f32 helper(f32 x) { return x; }

export f32 f(f32 x) {
    const f32 c = 3.0;
// CHECK: :[[@LINE+2]]:5: error: cannot assign to 'c': it is const (the left side of an assignment)
// CHECK: :[[@LINE-2]]:15: note: 'c' is declared const here
    c = 4.0;
// CHECK: :[[@LINE+1]]:5: error: cannot assign to 'K': it is const (the left side of an assignment)
    K += 1.0;
// CHECK: :[[@LINE+1]]:5: error: cannot assign to 'c': it is const
    c++;
// CHECK: :[[@LINE+1]]:27: error: operands of '<' must be scalars, got f32x2 and f32
    for (f32x2 v = 0.0; v < 1.0; v += 1.0) x += 1.0;
// The counter is scoped to the loop.
    for (f32 i = 0.0; i < 2.0; i++) x += i;
// CHECK: :[[@LINE+1]]:16: error: use of undeclared identifier 'i'
    return x + i;
}
