// FMAG compute shader: evaluates programs over a buffer of elements, one element per
// invocation. Uniform programs (push constant) or per-lane (a program index per element).
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 64) in;
// Register file size (power of two >= the programs' regs), chosen by the runner.
layout(constant_id = 0) const uint FMAG_REGS = 16;
// True on drivers whose fma() is not a single rounding (probed at runner start-up).
layout(constant_id = 1) const bool FMAG_SOFT_FMA = false;

#include "fmag_interp.glsl"

layout(std430, binding = 0) readonly buffer Code { uvec4 code[]; };
// per program: {first instruction, ninstr, nin, nout}
layout(std430, binding = 1) readonly buffer Progs { uvec4 progs[]; };
layout(std430, binding = 2) readonly buffer Index { uint prog_index[]; };
layout(std430, binding = 3) readonly buffer In { float inp[]; };
layout(std430, binding = 4) buffer Out { float outp[]; };

layout(push_constant) uniform PC
{
    uint n, in_stride, out_stride, nprogs;
    uint per_lane, evals, base, pad;
} pc;

void main()
{
    uint e = pc.base + gl_GlobalInvocationID.x;
    if (e >= pc.n)
        return;
    uint p = pc.per_lane != 0u ? min(prog_index[e], pc.nprogs - 1u) : 0u;
    uvec4 h = progs[p];
    uint nin = min(h.z, FMAG_REGS), nout = min(h.w, FMAG_REGS);
    for (uint ev = 0u; ev < pc.evals; ++ev) {
        for (uint i = 0u; i < FMAG_REGS; ++i)
            fmag_r[i] = 0.0;
        for (uint i = 0u; i < nin; ++i) {
            float v = inp[e * pc.in_stride + i];
            // evaluation ev > 0 (benchmarks) adds ev/16, as the CUDA kernels do
            fmag_r[i] = ev == 0u ? v : v + float(ev) * 0.0625;
        }
        for (uint i = 0u; i < h.y; ++i)
            fmag_exec(code[h.x + i]);
        for (uint i = 0u; i < nout; ++i) {
            uint o = e * pc.out_stride + i;
            outp[o] = ev == 0u ? fmag_r[i] : outp[o] + fmag_r[i];
        }
    }
}
