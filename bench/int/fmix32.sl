// demo-input: 1234567.0
// MurmurHash3's 32-bit finalizer. bench/int/README.md.
export f32x2 fmix32(u32 h)
{
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return f32x2(f32(h >> 16), f32(h & 0xFFFFu));
}
