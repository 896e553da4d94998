// A number that is not zero but rounds to zero in f32 is an error, like one that
// overflows. By hand: the smallest f32 is 2^-149 = 1.40129846e-45, so 8e-46 rounds
// up to it and 7e-46 (below half of it, 7.00649e-46) rounds to zero; 1e-40 is a
// denormal; 0e-99 and 0.0 are zero.
// RUN: not slc %s 2>&1 | FileCheck %s --implicit-check-not=error:

export f32 f(f32 x) {
// CHECK: diag-underflow.sl:[[@LINE+1]]:16: error: number literal '1e-50' is too small for f32: it rounds to zero (the smallest non-zero f32 is 1.4e-45; write 0.0 for zero)
    return x * 1e-50 + 7e-46 + 0.000000000000000000000000000000000000000000000001 +
// CHECK: diag-underflow.sl:[[@LINE-1]]:24: error: number literal '7e-46' is too small for f32
// CHECK: diag-underflow.sl:[[@LINE-2]]:32: error: number literal '0.000000000000000000000000000000000000000000000001' is too small for f32
           8e-46 + 1e-40 + 0e-99 + 0.0;
}
