// demo-input: 1234567.0
// PCG's hash (Jarzynski and Olano, "Hash Functions for GPU Rendering", JCGT 2020):
// an LCG step, a shift by a variable amount, a multiply and an xorshift. The key is
// the input's integer part; the 32-bit hash comes out as its high and low 16-bit
// halves (exact floats). bench/int/README.md.
export f32x2 pcg(u32 v)
{
    u32 state = v * 747796405u + 2891336453u;
    u32 word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    u32 h = (word >> 22u) ^ word;
    return f32x2(f32(h >> 16), f32(h & 0xFFFFu));
}
