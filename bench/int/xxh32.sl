// demo-input: 1234567.0
// xxHash32 of one 4-byte word with the seed 0x9E3779B9: the word's round (a
// multiply, a rotate by 17, a multiply), then the avalanche. bench/int/README.md.
export f32x2 xxh32(u32 p)
{
    u32 h = 0x9E3779B9u + 374761393u + 4u;
    h += p * 3266489917u;
    h = 668265263u * ((h << 17) | (h >> 15));
    h = (h ^ (h >> 15)) * 2246822519u;
    h = (h ^ (h >> 13)) * 3266489917u;
    h ^= h >> 16;
    return f32x2(f32(h >> 16), f32(h & 0xFFFFu));
}
