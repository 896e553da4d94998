// Type errors name both types; several errors are reported in one run.
// RUN: not slc %s 2>&1 | FileCheck %s --match-full-lines --strict-whitespace

export f32 f(f32x2 a, f32x3 b, f32 s) {
// CHECK:{{.*}}diag-types.sl:[[@LINE+3]]:17: error: operator '+': mismatched types f32x2 and f32x3
// CHECK-NEXT:    f32x2 c = a + b;
// CHECK-NEXT:                ^
    f32x2 c = a + b;
// CHECK:{{.*}}diag-types.sl:[[@LINE+1]]:15: error: initializer: cannot assign f32x3 to f32x2
    f32x2 d = b;
// CHECK:{{.*}}:[[@LINE+1]]:9: error: condition of 'if' must be a scalar, got f32x2
    if (a) { s = 1.0; }
// CHECK:{{.*}}:[[@LINE+1]]:15: error: operands of '<' must be scalars, got f32x2 and f32
    f32 e = a < s;
// CHECK:{{.*}}:[[@LINE+1]]:12: error: return value: expected f32, got f32x3
    return b;
}
