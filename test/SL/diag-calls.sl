// Calls: arity, argument types, out arguments, builtins, constructors, recursion.
// RUN: not slc %s 2>&1 | FileCheck %s

f32 two(f32 a, f32x2 b) { return a; }
void setter(out f32 o) { o = 1.0; }
f32 ping(f32 x) { return x + pong(x); }
f32 pong(f32 x) { return ping(x); }

export f32 main(f32 x, f32x3 v) {
// CHECK: :[[@LINE+1]]:13: error: function 'two' takes 2 arguments, got 1
    f32 a = two(x);
// CHECK: :[[@LINE+1]]:20: error: argument 2 of 'two': expected f32x2, got f32x3
    f32 b = two(x, v);
// CHECK: :[[@LINE+1]]:14: error: an 'out' argument must be a variable or a swizzle of one
    setter(x + 1.0);
// CHECK: :[[@LINE+1]]:13: error: builtin 'clamp' takes 3 arguments, got 2
    f32 c = clamp(x, 0.0);
// CHECK: :[[@LINE+1]]:13: error: cross needs two f32x3 operands, got f32x2 and f32x3
    f32 d = cross(f32x2(x), v).x;
// CHECK: :[[@LINE+1]]:15: error: constructor f32x3 needs 3 components (or one scalar), got 4
    f32x3 e = f32x3(v, x);
// CHECK: :[[@LINE+1]]:13: error: dot: mismatched types f32x3 and f32x2
    f32 g = dot(v, v.xy);
// CHECK: :[[@LINE+1]]:13: error: void value used in an expression
    f32 h = setter(a);
    return a;
}

// The GLSL.std.450 additions (issue 14): arity, types, out arguments.
export f32 glsl450(f32 x, f32x3 v, f32x2 w) {
// CHECK: :[[@LINE+1]]:13: error: builtin 'atan' takes 1 argument (atan(x)) or 2 (atan(y, x)), got 3
    f32 a = atan(x, x, x);
// CHECK: :[[@LINE+1]]:26: error: reflect: mismatched types f32x3 and f32x2
    f32x3 r = reflect(v, w);
// CHECK: :[[@LINE+1]]:15: error: refract needs two vectors of one type and an f32, got f32x3, f32x3, f32x2
    f32x3 t = refract(v, v, w);
// CHECK: :[[@LINE+1]]:23: error: an 'out' argument must be a variable or a swizzle of one
    f32 m = modf(x, x + 1.0);
// CHECK: :[[@LINE+1]]:13: error: builtin 'any' takes 1 argument, got 2
    f32 n = any(v, v);
    return a + r.x + t.x + m + n;
}
// The recursion check runs over the whole call graph after the bodies.
// CHECK: diag-calls.sl:7:26: error: recursive call to 'ping' (recursion is not supported)
