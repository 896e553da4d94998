// FMAG compute shader: evaluates programs over a buffer of elements, one element per
// invocation. Uniform programs (push constant) or per-lane (a program index per element).
// Compiled four times: as is (register file = the interpreter's private array, which
// NVIDIA's driver puts in local memory) or with -DFMAG_WORKGROUP_RF (register file in
// workgroup shared memory laid out [reg][invocation], free of bank conflicts whatever the
// indices); each also with -DFMAG_PREDECODED, for code the host has pre-decoded
// (fmag_gpu_predecode: operand kinds as bits, no NaN-box decoding here).
#version 450
#extension GL_GOOGLE_include_directive : require

#define FMAG_WG 64u
layout(local_size_x = 64) in;
// Register file size (power of two >= the programs' regs), chosen by the runner.
layout(constant_id = 0) const uint FMAG_REGS = 16;
// True on drivers whose fma() is not a single rounding (probed at runner start-up).
layout(constant_id = 1) const bool FMAG_SOFT_FMA = false;
// Pre-decoded code only: true where literal guards can be <= 0 (per-lane code keeps its
// no-ops); uniform code has none and skips the test (measurably faster: PERFORMANCE.md).
layout(constant_id = 2) const bool FMAG_LITERAL_GUARDS = true;

#ifdef FMAG_WORKGROUP_RF
shared float fmag_wg[FMAG_REGS * FMAG_WG];
#define FMAG_REG(i) fmag_wg[(i)*FMAG_WG + gl_LocalInvocationID.x]
#endif
#include "fmag_interp.glsl"

layout(std430, binding = 0) readonly buffer Code { uvec4 code[]; };

#ifdef FMAG_PREDECODED
// One record {b, c, g, d | a << 8 | kind << 16}: kind bit 0/1/2 = b/c/g is a register
// (index, masked again here), else the word is the literal's bits. Uniform code has its
// no-ops dropped; per-lane code keeps them (a literal guard <= 0) to stay aligned.
void fmag_exec_predecoded(uvec4 w)
{
    const uint m = FMAG_REGS - 1u;
    uint kind = w.w >> 16;
    float a = FMAG_REG((w.w >> 8) & m);
    float b = (kind & 1u) != 0u ? FMAG_REG(w.x & m) : uintBitsToFloat(w.x);
    float c = (kind & 2u) != 0u ? FMAG_REG(w.y & m) : uintBitsToFloat(w.y);
    precise float res;
    if (FMAG_SOFT_FMA)
        res = fmag_soft_fma(a, b, c);
    else
        res = fma(a, b, c);
    if (isnan(res))
        res = uintBitsToFloat(0x7FC00000u);
    float g = (kind & 4u) != 0u ? FMAG_REG(w.z & m)
                                 : FMAG_LITERAL_GUARDS ? uintBitsToFloat(w.z) : 1.0;
    if (g > 0.0)
        FMAG_REG(w.w & m) = res;
}
#define FMAG_EXEC fmag_exec_predecoded
#else
#define FMAG_EXEC fmag_exec
#endif
// per program: {first instruction, ninstr, nin, nout}; instruction i of a program is
// code[first + i * code_stride] (stride 1: programs one after another; stride nprogs:
// interleaved [instr][program], so the lanes of a warp running different programs fetch
// neighbouring words)
layout(std430, binding = 1) readonly buffer Progs { uvec4 progs[]; };
layout(std430, binding = 2) readonly buffer Index { uint prog_index[]; };
layout(std430, binding = 3) readonly buffer In { float inp[]; };
layout(std430, binding = 4) buffer Out { float outp[]; };

layout(push_constant) uniform PC
{
    uint n, in_stride, out_stride, nprogs;
    uint per_lane, evals, base, code_stride;
    uint zero_init, pad0, pad1, pad2;
    uint pad3, in_col, out_col, pad4; // input i of element e: inp[e * in_stride + i * in_col]
} pc;

void main()
{
    uint e = pc.base + gl_GlobalInvocationID.x;
    // no early return: a workgroup design may later add barriers; out-of-range invocations
    // just skip the work
    if (e < pc.n) {
        uint p = pc.per_lane != 0u ? min(prog_index[e], pc.nprogs - 1u) : 0u;
        uvec4 h = progs[p];
        uint nin = min(h.z, FMAG_REGS), nout = min(h.w, FMAG_REGS);
        for (uint ev = 0u; ev < pc.evals; ++ev) {
            // The host proves for most programs that no register is read before it is
            // written (zero_init = 0); otherwise registers start at +0.0.
            if (pc.zero_init != 0u)
                for (uint i = nin; i < FMAG_REGS; ++i)
                    FMAG_REG(i) = 0.0;
            for (uint i = 0u; i < nin; ++i) {
                float v = inp[e * pc.in_stride + i * pc.in_col];
                // evaluation ev > 0 (benchmarks) adds ev/16, as the CUDA kernels do
                FMAG_REG(i) = ev == 0u ? v : v + float(ev) * 0.0625;
            }
            for (uint i = 0u; i < h.y; ++i)
                FMAG_EXEC(code[h.x + i * pc.code_stride]);
            for (uint i = 0u; i < nout; ++i) {
                uint o = e * pc.out_stride + i * pc.out_col;
                outp[o] = ev == 0u ? FMAG_REG(i) : outp[o] + FMAG_REG(i);
            }
        }
    }
}
