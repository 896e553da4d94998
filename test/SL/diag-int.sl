// Integer type errors (issue 27): each with its line, column, source line and caret;
// all of them in one run (-ferror-limit=0). SL converts nothing implicitly but
// unsuffixed literals.
// RUN: not slc -ferror-limit=0 %s 2>&1 | FileCheck %s --match-full-lines --strict-whitespace
// RUN: not slc %S/Inputs/int-lex-errors.sl 2>&1 | FileCheck %s --check-prefix=LEX
// LEX: int-lex-errors.sl:3:13: error: integer literal '4294967296u' does not fit in 32 bits
// LEX: int-lex-errors.sl:4:13: error: integer literal '0x100000000' does not fit in 32 bits
// LEX: int-lex-errors.sl:5:13: error: malformed number: '0x' has no hex digits
// LEX: int-lex-errors.sl:6:13: error: a 'u' suffix needs an integer literal ('1.5' has a '.' or an exponent)
// LEX: int-lex-errors.sl:7:14: error: invalid character 'u' after number
// LEX: int-lex-errors.sl:8:17: error: invalid character 'g' after number
// LEX: int-lex-errors.sl:9:5: error: 'uint' is not an SL type (did you mean 'u32'?)

export f32 f(f32 x, i32 i, u32 u, f32x2 v, i32x3 w)
{
// CHECK:{{.*}}diag-int.sl:[[@LINE+3]]:13: error: integer literal does not fit in i32 (the largest is 2147483647; write a u32 with a 'u' suffix, or the bits in hex)
// CHECK-NEXT:    i32 a = 3000000000;
// CHECK-NEXT:            ^
    i32 a = 3000000000;
// CHECK:{{.*}}:[[@LINE+1]]:13: error: integer literal does not fit in u32 (the largest is 4294967295)
    u32 b = 5000000000;
// CHECK:{{.*}}:[[@LINE+1]]:13: error: initializer: cannot assign f32 to i32 (convert with i32(...))
    i32 c = x;
// CHECK:{{.*}}:[[@LINE+1]]:13: error: operator '~' needs an integer operand, got f32
    f32 d = ~1.5;
// CHECK:{{.*}}:[[@LINE+1]]:15: error: operator '<<' needs integer operands, got f32 and integer literal
    f32 e = x << 2;
// CHECK:{{.*}}:[[@LINE+1]]:15: error: operator '%' needs integer operands, got f32 and f32 (for f32 use mod(x, y))
    f32 g = x % 2.0;
// CHECK:{{.*}}:[[@LINE+1]]:15: error: operator '+': mismatched types i32 and f32 (only literals convert implicitly; write f32(x), i32(x) or u32(x))
    f32 h = i + 1.0;
// CHECK:{{.*}}:[[@LINE+1]]:15: error: operator '+': mismatched types u32 and i32 (only literals convert implicitly; write f32(x), i32(x) or u32(x))
    u32 k = u + i;
// CHECK:{{.*}}:[[@LINE+1]]:15: error: operator '&' on integer literals gives an integer, not the f32 expected here (convert with f32(...))
    f32 o = 1 & 3;
// CHECK:{{.*}}:[[@LINE+1]]:7: error: operator '%=' needs an integer variable, got f32 (for f32 use x = mod(x, y))
    x %= 2.0;
// CHECK:{{.*}}:[[@LINE+1]]:7: error: operator '<<=': mismatched types i32 and f32
    i <<= 1.0;
// CHECK:{{.*}}:[[@LINE+1]]:15: error: initializer: cannot assign i32x3 to f32x3 (convert with f32x3(...))
    f32x3 p = i32x3(1);
// CHECK:{{.*}}:[[@LINE+1]]:17: error: builtin 'sin' takes f32 arguments, got i32 (convert with f32(...))
    f32 q = sin(i);
// CHECK:{{.*}}:[[@LINE+1]]:17: error: builtin 'mod' takes f32 arguments, got u32 (for integers use %)
    u32 z = mod(u, 3u);
// CHECK:{{.*}}:[[@LINE+1]]:15: error: operator '==': mismatched types i32 and u32 (only literals convert implicitly; write f32(x), i32(x) or u32(x))
    f32 r = i == u;
// CHECK:{{.*}}:[[@LINE+1]]:13: error: min: mismatched types i32 and f32 (only literals convert implicitly; write f32(x), i32(x) or u32(x))
    i32 s = min(i, x);
// CHECK:{{.*}}:[[@LINE+1]]:15: error: operator '>>': cannot shift i32 by i32x3 (the amount is a scalar or one per lane)
    i32 t = i >> w;
// CHECK:{{.*}}:[[@LINE+1]]:15: error: arms of '?:': mismatched types i32 and f32 (only literals convert implicitly; write f32(x), i32(x) or u32(x))
    f32 y = x ? i : x;
// CHECK:{{.*}}:[[@LINE+1]]:11: error: argument 1 of 'g': expected i32, got u32
    y = g(u);
// CHECK:{{.*}}:[[@LINE+1]]:18: error: operator '&' needs integer operands, got f32x2 and i32x3
    y = w.x + (v & w).x;
// CHECK:{{.*}}:[[@LINE+1]]:14: error: return value: expected f32, got i32 (convert it explicitly)
    return i & 1;
}

f32 g(i32 n) { return f32(n); }
