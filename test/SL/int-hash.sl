// Two integer hashes written in SL, PCG's (Jarzynski and Olano, "Hash Functions for
// GPU Rendering", 2020) and Wang's, checked bit for bit against Python on 10^4
// inputs: through the IR interpreter, and through the VM after -O2 and
// -legalize-int. Each 32-bit result comes out as two 16-bit halves, which a float
// holds exactly.
// REQUIRES: fmag-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: slc -emit-ir %s -o %t/h.fir
// RUN: FileCheck %s --check-prefix=IR < %t/h.fir
// RUN: python3 %S/Inputs/int_oracle.py hash %t %t/h.fir | FileCheck %s
// RUN: slc %s -o %t/h.fmag
// RUN: python3 %S/Inputs/int_oracle.py hash %t %t/h.fmag | FileCheck %s
// CHECK: hashes: 10000 inputs, 40000 values agree

// IR-LABEL: func @pcg(%v: i32) -> i32 {
// IR: imul %v, 0x2C9277B5
// IR: lshr
// IR-LABEL: func @wang(%seed: i32) -> i32 {
// IR: xor %seed, 61
// IR: imul {{.*}}, 0x27D4EB2D
// IR-LABEL: export func @hashes(%x) -> 4 {
// IR-NEXT: ^entry:
// IR-NEXT: fptoui %x

u32 pcg(u32 v)
{
    u32 state = v * 747796405u + 2891336453u;
    u32 word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

u32 wang(u32 seed)
{
    seed = (seed ^ 61u) ^ (seed >> 16u);
    seed *= 9u;
    seed = seed ^ (seed >> 4u);
    seed *= 0x27d4eb2du;
    return seed ^ (seed >> 15u);
}

export f32x4 hashes(u32 x)
{
    u32 h = pcg(x);
    u32 g = x;
    for (u32 i = 0u; i < 4u; i++)
        g = wang(g + i);
    return f32x4(f32(h >> 16), f32(h & 0xFFFF), f32(g >> 16), f32(g & 0xFFFF));
}
