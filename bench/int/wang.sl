// demo-input: 1234567.0
// Thomas Wang's 32-bit integer hash. bench/int/README.md.
export f32x2 wang(u32 seed)
{
    seed = (seed ^ 61u) ^ (seed >> 16u);
    seed *= 9u;
    seed = seed ^ (seed >> 4u);
    seed *= 0x27D4EB2Du;
    seed = seed ^ (seed >> 15u);
    return f32x2(f32(seed >> 16), f32(seed & 0xFFFFu));
}
