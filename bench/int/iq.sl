// demo-input: 1234567.0
// Inigo Quilez's integer hash of one uint (a shift-xor, a cubic in n, an offset).
// bench/int/README.md.
export f32x2 iq(u32 n)
{
    n = (n << 13u) ^ n;
    n = n * (n * n * 15731u + 789221u) + 1376312589u;
    return f32x2(f32(n >> 16), f32(n & 0xFFFFu));
}
