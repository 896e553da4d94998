// demo-input: -123.0,456.0
// Bob Jenkins' lookup3 final mix of an integer coordinate, as MaterialX's noise
// hashes one (a = b = c = 0xdeadbeef + (2 << 2) + 13, x and y added, the final mix
// of seven xor-subtract-rotate steps). bench/int/README.md.
u32 rotl(u32 x, i32 k)
{
    return (x << k) | (x >> (32 - k));
}

export f32x2 lookup3(i32 x, i32 y)
{
    u32 a = 0xDEADBEEFu + 21u, b = a, c = a;
    a += u32(x);
    b += u32(y);
    c ^= b; c -= rotl(b, 14);
    a ^= c; a -= rotl(c, 11);
    b ^= a; b -= rotl(a, 25);
    c ^= b; c -= rotl(b, 16);
    a ^= c; a -= rotl(c, 4);
    b ^= a; b -= rotl(a, 14);
    c ^= b; c -= rotl(b, 24);
    return f32x2(f32(c >> 16), f32(c & 0xFFFFu));
}
