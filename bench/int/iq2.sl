// demo-input: 1234567.0,7654321.0
// Inigo Quilez's integer hash of a uvec2: two multiplies by 1103515245 around
// shift-xors. bench/int/README.md.
export f32x2 iq2(u32 x, u32 y)
{
    u32 qx = 1103515245u * ((x >> 1u) ^ y);
    u32 qy = 1103515245u * ((y >> 1u) ^ x);
    u32 n = 1103515245u * (qx ^ (qy >> 3u));
    return f32x2(f32(n >> 16), f32(n & 0xFFFFu));
}
