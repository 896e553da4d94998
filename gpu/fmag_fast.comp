// FMAG compute shader, the fast design of gpu/fmag_interp.glsl: FMAG_K elements per
// invocation share each pre-decoded record; the register file is workgroup shared memory
// [reg][element][invocation]. Uniform launches read their records from a uniform buffer
// (FMAG_UBO: the constant cache, one fetch per subgroup) or a storage buffer, at a
// dynamically uniform index, and branch on the record's operand kinds (uniform branches);
// per-lane launches read interleaved records [instr][program] and decode branch-free.
#version 450
#extension GL_GOOGLE_include_directive : require

// invocations per workgroup: specialization constant 6 (the runner uses 64)
layout(local_size_x = 64, local_size_x_id = 6) in;
#define FMAG_FAST_WG gl_WorkGroupSize.x
layout(constant_id = 0) const uint FMAG_REGS = 16;
layout(constant_id = 1) const bool FMAG_SOFT_FMA = false;
#ifdef FMAG_VEC
// the VEC builds (-DFMAG_VEC=2 or 4): the elements of an invocation as one vector
#define FMAG_K FMAG_VEC
#else
// elements per invocation: 1, 2, 4 or 8
layout(constant_id = 3) const uint FMAG_K = 1;
#endif
// uniform records from the uniform buffer (true) or the storage buffer
layout(constant_id = 4) const bool FMAG_UBO = true;
#include "fmag_interp.glsl"

#define FMAG_UBO_RECORDS 4096u
layout(std430, binding = 0) readonly buffer Code { uvec4 code[]; };
layout(std430, binding = 1) readonly buffer Progs { uvec4 progs[]; };
layout(std430, binding = 2) readonly buffer Index { uint prog_index[]; };
layout(std430, binding = 3) readonly buffer In { float inp[]; };
layout(std430, binding = 4) buffer Out { float outp[]; };
layout(std140, binding = 5) uniform UCode { uvec4 ucode[FMAG_UBO_RECORDS]; };

layout(push_constant) uniform PC
{
    uint n, in_stride, out_stride, nprogs;
    uint per_lane, evals, base, code_stride;
    uint zero_init, ninstr, nin, nout; // ninstr, nin, nout: uniform launches
    uint lane_kinds;        // per lane: every program has the same kinds
    uint in_col, out_col;   // input i of element e: inp[e * in_stride + i * in_col]
    uint pad0;
} pc;

uvec4 fetch(uint i)
{
    return FMAG_UBO ? ucode[i & (FMAG_UBO_RECORDS - 1u)] : code[i];
}

void main()
{
    uint t = gl_LocalInvocationID.x;
    uint e0 = pc.base + gl_WorkGroupID.x * (FMAG_K * FMAG_FAST_WG) + t;
    uint p = 0u, first = 0u, ninstr = pc.ninstr, nin = pc.nin, nout = pc.nout;
    if (pc.per_lane != 0u) {
        // the host checked that the FMAG_K elements of an invocation share a program
        p = e0 < pc.n ? min(prog_index[e0], pc.nprogs - 1u) : 0u;
        uvec4 h = progs[p];
        first = h.x, ninstr = h.y, nin = h.z, nout = h.w;
    }
    nin = min(nin, FMAG_REGS);
    nout = min(nout, FMAG_REGS);
    for (uint ev = 0u; ev < pc.evals; ++ev) {
        for (uint j = 0u; j < FMAG_K; ++j) {
            uint e = e0 + j * FMAG_FAST_WG;
            if (pc.zero_init != 0u)
                for (uint i = nin; i < FMAG_REGS; ++i)
                    FMAG_SM(i, j) = 0.0;
            for (uint i = 0u; i < nin; ++i) {
                float v = e < pc.n ? inp[e * pc.in_stride + i * pc.in_col] : 0.0;
                // evaluation ev > 0 (benchmarks) adds ev/16, as the CUDA kernels do
                FMAG_SM(i, j) = ev == 0u ? v : v + float(ev) * 0.0625;
            }
        }
        // Each loop fetches the next record while the current one runs (the host pads the
        // code past the last record, so the fetch after it stays inside the buffer).
        if (pc.per_lane != 0u && pc.lane_kinds != 0u) {
            // the kinds agree at every instruction (no literal guard <= 0): the uniform
            // path's branch per kind, uniform across the subgroup
            uvec4 w = code[first];
            for (uint i = 0u; i < ninstr; ++i) {
                uvec4 nx = code[first + (i + 1u) * pc.code_stride];
                fmag_fast_exec(w, w);
                w = nx;
            }
        } else if (pc.per_lane != 0u) {
            uvec4 w = code[first];
            for (uint i = 0u; i < ninstr; ++i) {
                uvec4 nx = code[first + (i + 1u) * pc.code_stride];
                fmag_fast_exec_lane(w);
                w = nx;
            }
        } else {
            uvec4 w = fetch(0u);
            for (uint i = 0u; i < ninstr; ++i) {
                uvec4 nx = fetch(i + 1u); // also a fused select's partner
                fmag_fast_exec(w, nx);
                w = nx;
            }
        }
        for (uint j = 0u; j < FMAG_K; ++j) {
            uint e = e0 + j * FMAG_FAST_WG;
            if (e < pc.n)
                for (uint i = 0u; i < nout; ++i) {
                    uint o = e * pc.out_stride + i * pc.out_col;
                    outp[o] = ev == 0u ? FMAG_SM(i, j) : outp[o] + FMAG_SM(i, j);
                }
        }
    }
}
