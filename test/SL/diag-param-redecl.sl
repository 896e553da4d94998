// A local may not redeclare a parameter in the function's outermost block (as
// in C); an inner block, or a lone if-arm, may shadow it.
// RUN: not slc %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=note:

export f32 f(f32 x, f32 y) {
// CHECK: diag-param-redecl.sl:[[@LINE+1]]:9: error: redeclaration of 'y'
    f32 y = 2.0;
// CHECK-NEXT: {{^}}    f32 y = 2.0;{{$}}
// CHECK-NEXT: {{^        \^$}}
// CHECK-NEXT: diag-param-redecl.sl:[[@LINE-5]]:25: note: 'y' is a parameter of 'f'
// CHECK-NEXT: {{^}}export f32 f(f32 x, f32 y) {{[{]$}}
// CHECK-NEXT: {{^                        \^$}}
    {
        f32 x = 1.0; // an inner block may shadow a parameter
    }
    if (x > 0.0)
        f32 x = 3.0; // so may a lone if-arm (its own scope)
    return x + y;
}

void g(f32 a, out f32 o) {
    o = a;
// CHECK: diag-param-redecl.sl:[[@LINE+1]]:9: error: redeclaration of 'o'
    f32 o = 1.0;
// CHECK: diag-param-redecl.sl:[[@LINE-4]]:23: note: 'o' is a parameter of 'g'
}

// A second function's parameters are its own: no error for h's locals named
// after f's parameters.
export f32 h(f32 z) {
    f32 x = z;
    f32 y = x;
    return y;
}
