// Declarations, returns and exports.
// RUN: not slc %s 2>&1 | FileCheck %s

// CHECK: :[[@LINE+1]]:5: error: control can reach the end of non-void function 'noret'
f32 noret(f32 x) { if (x > 0.0) return 1.0; }
// CHECK: :[[@LINE+1]]:21: error: void function 'v' cannot return a value
void v(out f32 o) { return 1.0; }
// CHECK: :[[@LINE+1]]:22: error: function 'needs' must return a value of type f32x2
f32x2 needs(f32 x) { return; }
// CHECK: :[[@LINE+1]]:13: error: export function 'nothing' has no outputs (return a value or add an 'out' parameter)
export void nothing(f32 x) { }
// CHECK: :[[@LINE+1]]:5: error: function 'sin' redefines a builtin
f32 sin(f32 x) { return x; }
// CHECK: :[[@LINE+1]]:5: error: redefinition of function 'noret'
f32 noret(f32 y) { return y; }
// CHECK: :[[@LINE+1]]:27: error: redefinition of parameter 'a'
export f32 dup(f32 a, f32 a) {
    f32 b = 1.0;
// CHECK: :[[@LINE+1]]:9: error: redefinition of 'b'
    f32 b = 2.0;
    {
        f32 b = 3.0; // shadowing in an inner block is fine
    }
    return b;
}
