// FMAG interpreter for GLSL (Vulkan, GL_GOOGLE_include_directive): #include it into any
// shader. Before the #include, define FMAG_REGS (a power of two: a #define or a
// specialization constant) and FMAG_SOFT_FMA (a bool constant; true selects the exact
// software fma for drivers whose fma() is not fused). Then load inputs into fmag_r[0..nin-1],
// zero the rest, call fmag_exec() on every instruction (uvec4) and read outputs from fmag_r[0..].
//
// Every register index is masked with FMAG_REGS-1, so an untrusted stream can only touch
// fmag_r: size FMAG_REGS >= the program's regs (the header's field) for correct results.
//
// The register file is a private array `fmag_r` unless the includer defines FMAG_REG(i)
// (an lvalue for register i, i < FMAG_REGS) first: the runner's workgroup design maps it to
// shared memory laid out [reg][invocation], where NVIDIA's driver puts a private array in
// local memory (see docs/GPU.md).
#ifndef FMAG_INTERP_GLSL
#define FMAG_INTERP_GLSL

#ifndef FMAG_REG
float fmag_r[FMAG_REGS];
#define FMAG_REG(i) fmag_r[i]
#endif

// NaN-boxing tested on the bits: a driver may not keep isnan() exact under its float modes.
bool fmag_is_ref(uint w)
{
    return (w & 0x7F800000u) == 0x7F800000u && (w & 0x007FFFFFu) != 0u;
}

float fmag_operand(uint w)
{
    return fmag_is_ref(w) ? FMAG_REG(w & uint(FMAG_REGS - 1)) : uintBitsToFloat(w);
}

// Exact single-rounding fma from float64: the product of two floats is exact in double; the
// sum is rounded to odd (TwoSum error, then the last bit forced odd when inexact) so the final
// rounding to float is not a double rounding.
float fmag_soft_fma(float a, float b, float c)
{
    precise double p = double(a) * double(b);
    precise double s = p + double(c);
    precise double bb = s - p;
    precise double err = (p - (s - bb)) + (double(c) - bb);
    if (err != 0.0 && !isinf(s) && !isnan(s)) {
        uvec2 u = unpackDouble2x32(s);
        if ((u.x & 1u) == 0u) {
            if ((err > 0.0) == (s > 0.0)) {
                u.x += 1u;
                if (u.x == 0u)
                    u.y += 1u;
            } else {
                if (u.x == 0u)
                    u.y -= 1u;
                u.x -= 1u;
            }
            s = packDouble2x32(u);
        }
    }
    return float(s);
}

void fmag_exec(uvec4 op)
{
    float b = fmag_operand(op.x);
    float c = fmag_operand(op.y);
    float g = fmag_operand(op.z);
    float a = FMAG_REG((op.w >> 16) & uint(FMAG_REGS - 1));
    precise float res;
    if (FMAG_SOFT_FMA)
        res = fmag_soft_fma(a, b, c);
    else
        res = fma(a, b, c);
    // Every computed NaN is stored as the VM's canonical 0x7FC00000 (VM.h), so results
    // match the CPU engines bit for bit whatever NaN the driver's arithmetic makes.
    if (isnan(res))
        res = uintBitsToFloat(0x7FC00000u);
    if (g > 0.0)
        FMAG_REG(op.w & uint(FMAG_REGS - 1)) = res;
}

#endif
