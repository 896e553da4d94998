// Syntax errors of `for`, `const` and file-scope constants, with recovery: each is
// reported once, and the statement after a broken `for` header still parses.
// RUN: not slc %s 2>&1 | FileCheck %s --implicit-check-not=error:

// CHECK: :[[@LINE+1]]:1: error: a variable at file scope must be 'const' (const f32 K = 0.5;)
f32 G = 1.0;
// CHECK: :[[@LINE+1]]:7: error: expected a type after 'const', found 'K'
const K = 1.0;

export f32 f(f32 x) {
// CHECK: :[[@LINE+1]]:10: error: 'int' is not an SL type (did you mean 'i32'?)
    for (int i = 0; i < 4; i++) { x += 1.0; }
// CHECK: :[[@LINE+1]]:5: error: 'float' is not an SL type (did you mean 'f32'?)
    float y = 1.0;
// CHECK: :[[@LINE+1]]:15: error: const variable 'd' needs an initializer
    const f32 d;
// CHECK: :[[@LINE+1]]:10: error: a loop counter cannot be const
    for (const f32 i = 0.0; i < 2.0; i++) x += 1.0;
// CHECK: :[[@LINE+1]]:21: error: expected ';', found 'i'
    for (f32 i = 0.0 i < 2.0; i++) x += 1.0;
// CHECK: :[[@LINE+1]]:36: error: expected ')', found '{'
    for (f32 i = 0.0; i < 2.0; i++ { x += 1.0; }
    return x;
}
