// Assignments: targets, repeated swizzle components, swizzle names.
// RUN: not slc %s 2>&1 | FileCheck %s

export f32x4 main(f32x4 v, f32 x) {
// CHECK: :[[@LINE+1]]:7: error: swizzle 'xx' repeats component 'x' in the left side of an assignment
    v.xx = f32x2(1.0, 2.0);
// CHECK: :[[@LINE+1]]:7: error: the left side of an assignment must be a variable or a swizzle of one
    x + 1.0 = 2.0;
// CHECK: :[[@LINE+1]]:14: error: swizzle component 'z' out of range for type f32x2
    x = v.xy.z;
// CHECK: :[[@LINE+1]]:11: error: swizzle 'xg' mixes xyzw and rgba components
    x = v.xg;
// CHECK: :[[@LINE+1]]:11: error: invalid swizzle component 'q' in 'q' (use xyzw or rgba)
    x = v.q;
// CHECK: :[[@LINE+1]]:11: error: swizzle 'xyzwx' has more than 4 components
    x = v.xyzwx;
// CHECK: :[[@LINE+1]]:7: error: operator '+=': mismatched types f32 and f32x4
    x += v;
// CHECK: :[[@LINE+1]]:12: error: assignment: cannot assign f32x4 to f32x2
    v.xy = v;
    return v;
}
