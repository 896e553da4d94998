// The IR of SL integers (-emit-ir): i32 parameters and results between functions,
// conversions at an export's float boundary, signed and unsigned operations chosen
// by the operand type, and how integer literals take their type.
// RUN: slc -emit-ir %s -o - | FileCheck %s
// RUN: slc -emit-ir %s -o - | fmag-opt -verify - > /dev/null
// Integer code compiles to a stream (-legalize-int runs in -O2).
// RUN: slc -S %s -o - | FileCheck %s --check-prefix=ASM
// ASM: .def signs, 4, 2
// ASM: .def lits, 2, 1
// ASM: .def conds, 2, 1

// CHECK-LABEL: func @helper(%a: i32, %b: i32) -> i32, i32 {
// CHECK: lshr %b, 1
// CHECK: ashr %a, 1
i32 helper(i32 a, u32 b, out u32 c)
{
    c = b >> 1;
    return a >> 1;
}

// An export's integer parameters arrive as floats (i32(x), u32(x)); the call passes
// i32 values; / % < >= are signed or unsigned as the operands are.
// CHECK-LABEL: export func @signs(%a, %b, %c, %d) -> 2 {
// CHECK-NEXT: ^entry:
// CHECK-NEXT: [[A:%[0-9]+]] = fptosi %a
// CHECK-NEXT: [[B:%[0-9]+]] = fptosi %b
// CHECK-NEXT: [[C:%[0-9]+]] = fptoui %c
// CHECK-NEXT: [[D:%[0-9]+]] = fptoui %d
// CHECK-NEXT: [[Q:%[0-9]+]], [[E:%[0-9]+]] = call @helper([[A]], [[C]])
// CHECK: sdiv [[A]], [[B]]
// CHECK: srem [[A]], [[B]]
// CHECK: udiv [[C]], [[D]]
// CHECK: urem [[C]], [[D]]
// CHECK: uitofp [[E]]
// CHECK: icmp.slt [[A]], [[B]]
// CHECK: icmp.ult [[C]], [[D]]
// CHECK: icmp.sge [[A]], [[B]]
// CHECK: icmp.uge [[C]], [[D]]
// CHECK: sitofp [[Q]]

export f32 signs(i32 a, i32 b, u32 c, u32 d, out f32 o)
{
    u32 e;
    i32 q = helper(a, c, e);
    o = f32(a / b) + f32(a % b) + f32(c / d) + f32(c % d) + f32(e);
    return (a < b) + (c < d) + (a >= b) + (c >= d) + f32(q);
}

// An unsuffixed literal is an f32 where an f32 is wanted (7 / 2 is 3.5, as it always
// was) and an i32 where an i32 is (7 / 2 is 3); hex literals too; 7u is a u32; an
// integer-only operator makes a literal expression an i32.
// CHECK-LABEL: export func @lits(%x, %i) -> 1 {
// CHECK: mul 7.0, 0.5
// CHECK-NEXT: sdiv 7, 2
// CHECK-NEXT: mul %x, 2.0
// CHECK-NEXT: add {{%[0-9]+}}, 16.0
// CHECK-NEXT: imul {{%[0-9]+}}, 2
// CHECK-NEXT: iadd {{%[0-9]+}}, 16
// CHECK-NEXT: shl 1, 4
// CHECK-NEXT: or {{%[0-9]+}}, 1
// CHECK: uitofp 7
// A shifted literal takes the type of its context, not of the amount: >> is logical
// in a u32 context and arithmetic in an i32 one.
// CHECK-LABEL: export func @shifts(%i, %u) -> 2 {
// CHECK: [[U:%[0-9]+]] = fptoui %u
// CHECK: [[A:%[0-9]+]] = shl 0x80000000, [[U]]
// CHECK-NEXT: lshr [[A]], 1
// CHECK: [[B:%[0-9]+]] = shl 0x80000000, [[U]]
// CHECK-NEXT: ashr [[B]], 1

export f32 lits(f32 x, i32 i)
{
    f32 a = 7 / 2;
    i32 b = 7 / 2;
    f32 c = x * 2 + 0x10;
    i32 d = i * 2 + 0x10;
    u32 e = 7u;
    i32 f = (1 << 4) | 1;
    return a + x + f32(b + d + f) + c + f32(e);

// An integer condition is true when != 0.
// CHECK-LABEL: export func @conds(%i, %x) -> 1 {
// CHECK: [[I:%[0-9]+]] = fptosi %i
// CHECK-NEXT: [[T:%[0-9]+]] = icmp.ne [[I]], 0
// CHECK-NEXT: select %x, 2.0, [[T]]
// CHECK: br {{%[0-9]+}}, ^then, ^endif
// CHECK: icmp.eq [[I]], 0
}

export f32x2 shifts(i32 i, u32 u)
{
    u32 m = (0x80000000 << u) >> 1;
    i32 n = (0x80000000 << u) >> 1;
    return f32x2(f32(m), f32(n));
}

export f32 conds(i32 i, f32 x)
{
    f32 r = i ? x : 2.0;
    if (i) r += 1.0;
    r += !i;
    return r + select(i, 1.0, 0.5);
}
