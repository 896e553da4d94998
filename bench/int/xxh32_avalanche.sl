// demo-input: 1234567.0
// xxHash32's final avalanche: three xorshifts and two multiplies. bench/int/README.md.
export f32x2 xxh32_avalanche(u32 h)
{
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    h *= 3266489917u;
    h ^= h >> 16;
    return f32x2(f32(h >> 16), f32(h & 0xFFFFu));
}
