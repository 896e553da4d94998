// Syntax and lexical errors; the parser recovers at the end of each statement.
// RUN: not slc %s 2>&1 | FileCheck %s

export f32 main(f32 x) {
// CHECK: :[[@LINE+1]]:20: error: expected ';', found 'f32'
    f32 a = x * 2.0
    f32 b = a @ 2.0;
// CHECK: :[[@LINE-1]]:15: error: unexpected character '@'
// CHECK: :[[@LINE+1]]:13: error: malformed number: exponent has no digits
    f32 c = 1e+;
// CHECK: :[[@LINE+1]]:16: error: invalid character 'q' after number
    f32 d = 1.5q;
// CHECK: :[[@LINE+1]]:13: error: number literal '1e39' is too large for f32
    f32 e = 1e39;
// CHECK: :[[@LINE+1]]:5: error: 'else' without a matching 'if'
    else { a = 1.0; }
// CHECK: :[[@LINE+1]]:5: error: 'out' is only allowed on function parameters
    out f32 g = 1.0;
// CHECK: :[[@LINE+1]]:5: error: variable cannot have type 'void'
    void h;
// CHECK: :[[@LINE+1]]:13: error: expected an expression, found ')'
    f32 i = );
    return a;
}
// CHECK: :[[@LINE+1]]:1: error: expected a function definition, found 'banana'
banana
// CHECK: :[[@LINE+1]]:14: error: parameter cannot have type 'void'
export f32 k(void v) { return 1.0; }
// CHECK: :[[@LINE+1]]:1: error: unterminated /* comment
/* never closed
