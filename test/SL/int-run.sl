// Integers executed (issue 27): every operator, conversion and builtin on i32 and
// u32 through the IR interpreter (the unoptimized IR of -emit-ir) and, after -O2
// and -legalize-int, through the reference VM, on edge values (0, -1, INT_MIN,
// division by zero, shifts by 32 and more, saturating conversions) and random
// ones, against Python's 32-bit arithmetic in Inputs/int_oracle.py.
// REQUIRES: fmag-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: slc -emit-ir %s -o %t/p.fir
// RUN: slc %s -o %t/p.fmag
// RUN: python3 %S/Inputs/int_oracle.py ops %t %t/p.fir | FileCheck %s
// RUN: python3 %S/Inputs/int_oracle.py ops %t %t/p.fmag | FileCheck %s
// RUN: slc -O0 %s -o %t/p0.fmag
// RUN: python3 %S/Inputs/int_oracle.py ops %t %t/p0.fmag | FileCheck %s
// CHECK: iarith: {{[0-9]+}} inputs, {{[0-9]+}} values agree
// CHECK: ishift: {{[0-9]+}} inputs, {{[0-9]+}} values agree
// CHECK: uarith: {{[0-9]+}} inputs, {{[0-9]+}} values agree
// CHECK: conv: {{[0-9]+}} inputs, {{[0-9]+}} values agree
// CHECK: vec: {{[0-9]+}} inputs, {{[0-9]+}} values agree
// CHECK: loops: {{[0-9]+}} inputs, {{[0-9]+}} values agree
// CHECK: bits: {{[0-9]+}} inputs, {{[0-9]+}} values agree

// Integer parameters, results and out parameters between functions are i32 values.
i32 divmod(i32 a, i32 b, out i32 r)
{
    r = a % b;
    return a / b;
}

export f32x4 iarith(i32 a, i32 b, out f32x4 more, out f32x4 bits, out f32x4 logic)
{
    i32 r;
    i32 q = divmod(a, b, r);
    more = f32x4(f32(a * b), f32(a - b), f32(-a), f32(abs(a)));
    bits = f32x4(f32(a & b), f32(a | b), f32(a ^ b), f32(~a));
    f32 cmp = (a < b) + 2.0 * (a <= b) + 4.0 * (a > b) + 8.0 * (a >= b) + 16.0 * (a == b) +
              32.0 * (a != b);
    f32 truth = (a ? 1.0 : 0.0) + 2.0 * !b + 4.0 * (a && b) + 8.0 * (a || b);
    i32 t = 0;
    if (a & 4) t = 1;
    if (b) t += 2;
    logic = f32x4(cmp, truth, f32(t), f32(clamp(a, -100, 100) + (b ? 1000 : 2000) + select(a & 1, a, 5)));
    i32 s = a;
    s += 7;
    s *= b;
    s -= 3;
    s /= 2;
    s %= 1000;
    s |= 0x30;
    s &= 0xFF0F;
    s ^= 0x5;
    return f32x4(f32(a + b), f32(q), f32(r), f32(min(a, b) * 3 + max(a, b) + s));
}

export f32x4 ishift(i32 a, i32 b, out f32x4 more)
{
    i32 x = a;
    x <<= 2;
    x >>= 1;
    i32 y = a;
    y >>= b;
    more = f32x4(f32(x), f32(y), f32(a >> 31), f32(1 << (b & 31)));
    return f32x4(f32(a << b), f32(a >> b), f32(a << 3), f32((a >> 4) & 0xFF));
}

export f32x4 uarith(u32 c, u32 d, out f32x4 more, out f32x4 cmp)
{
    more = f32x4(f32(c >> d), f32(c << (d & 7u)), f32(c * d), f32(c - d));
    f32 m = (c < d) + 2.0 * (c <= d) + 4.0 * (c > d) + 8.0 * (c >= d) + 16.0 * (c == d);
    u32 s = c;
    s >>= 3u;
    s += 0xFFFFFFFF;
    cmp = f32x4(m, f32(min(c, d)), f32(max(c, d)), f32(clamp(s, 10u, 4000000000u)));
    return f32x4(f32(c / d), f32(c % d), f32(u32(i32(c) >> 1)), f32(~c ^ 0xFFu));
}

// Conversions: truncation toward zero, saturation (NaN does not occur as an input),
// u32 of a negative float is 0, i32 <-> u32 keeps the bits.
export f32x4 conv(f32 x, out f32x4 more)
{
    i32 i = i32(x);
    u32 u = u32(x);
    more = f32x4(f32(u32(i)), f32(i32(u)), f32(i32(-x)), f32(u32(x * 0.5)));
    return f32x4(f32(i), f32(u), f32(i) - x, f32(i32(x) / 3));
}

// Vectors: lane-wise operators with a scalar broadcast, swizzles, constructors that
// convert; literals: 7 / 2 is 3.5 where an f32 is wanted and 3 where an i32 is.
export f32x4 vec(i32 a, i32 b, out f32x4 lits)
{
    i32x3 v = i32x3(a, b, a ^ b);
    v <<= 1;
    v = v * 3 + i32x3(1, 2, 3);
    v.xy = v.yx;
    u32x2 w = u32x2(v.xz) >> 1u;
    f32x3 f = f32x3(v);
    f32 y = 7 / 2;
    i32 z = 7 / 2;
    lits = f32x4(y, f32(z), f32((7 / 2) & 1), f32(0x10 + 017u));
    return f32x4(f.x, f.y + f.z, f32(w.x), f32(w.y));
}

// Integer loop counters: unrolled by -O2 (exactly), run as loops by the interpreter.
export f32x2 loops(i32 a)
{
    i32 s = 0;
    u32 h = u32(a);
    for (i32 i = 0; i < 5; i++) {
        s += a * i;
        for (i32 j = i; j >= 0; j -= 2)
            s ^= j << i;
    }
    for (u32 k = 3u; k != 0u; k--)
        h = h * 16777619u + k;
    return f32x2(f32(s), f32(h >> 8));
}

// Bit casts (GLSL's names): the float's 32 bits and back.
export f32x4 bits(f32 x, out f32x2 y)
{
    i32 i = floatBitsToInt(x);
    u32 u = floatBitsToUint(x);
    y = f32x2(intBitsToFloat(i ^ 0x80000000), uintBitsToFloat(u + 1u));
    return f32x4(f32(i >> 16), f32(i & 0xFFFF), f32(u >> 23), intBitsToFloat(0x40490FDB));
}
