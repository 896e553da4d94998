// Undefined names get a did-you-mean from the names in scope.
// RUN: not slc %s 2>&1 | FileCheck %s

f32 helper(f32 x) { return x; }

export f32 main(f32 color, f32 alpha) {
// CHECK: diag-names.sl:[[@LINE+3]]:13: error: use of undeclared identifier 'colr' (did you mean 'color'?)
// CHECK-NEXT: {{^}}    f32 a = colr * 2.0;
// CHECK-NEXT: {{^            \^$}}
    f32 a = colr * 2.0;
// CHECK: :[[@LINE+1]]:13: error: call to undeclared function 'helpr' (did you mean 'helper'?)
    f32 b = helpr(a);
// CHECK: :[[@LINE+1]]:13: error: call to undeclared function 'smoothstp' (did you mean 'smoothstep'?)
    f32 c = smoothstp(0.0, 1.0, a);
// CHECK: :[[@LINE+1]]:13: error: use of undeclared identifier 'zzz'{{$}}
    f32 d = zzz;
// CHECK: :[[@LINE+1]]:13: error: 'helper' is a function; call it with arguments
    f32 e = helper;
// CHECK: :[[@LINE+1]]:13: error: call to undeclared function 'f32x5' (did you mean 'f32x{{[234]}}'?)
    f32 f = f32x5(1.0);
    return a;
}
