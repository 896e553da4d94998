// An experiment, not built since issue 31 (docs/GPU.md). FMAG compute entry in HLSL: the
// Vulkan runner's gpu/fmag_fast.comp written in HLSL over fmag_interp.hlsl (same bindings,
// push constants and specialization constants, so the runner ran either). Built with
// glslang's HLSL front end:
//   cd bench/gpu/experiments && glslangValidator -D -V -S comp -e main -DFMAG_HLSL_SPEC \
//       -I . fmag_run.hlsl
// (written against the push constants before issue 32 added the column strides)
// Without FMAG_HLSL_SPEC the constants are macros (define FMAG_REGS, FMAG_K, FMAG_SOFT_FMA
// and FMAG_UBO on the command line), as D3D12 has no specialization constants (DXC: -T cs_6_0
// -E main; the [[vk::...]] attributes are ignored there, the register() bindings apply).
#define FMAG_WG 64u
#ifdef FMAG_HLSL_SPEC
[[vk::constant_id(0)]] const uint FMAG_REGS = 16;
[[vk::constant_id(1)]] const bool FMAG_SOFT_FMA = false;
[[vk::constant_id(3)]] const uint FMAG_K = 1;
[[vk::constant_id(4)]] const bool FMAG_UBO = true;
#else
#ifndef FMAG_REGS
#define FMAG_REGS 16u
#endif
#ifndef FMAG_K
#define FMAG_K 1u
#endif
#ifndef FMAG_SOFT_FMA
#define FMAG_SOFT_FMA false
#endif
#ifndef FMAG_UBO
#define FMAG_UBO true
#endif
#endif
#include "fmag_interp.hlsl"

#define FMAG_UBO_RECORDS 4096u
[[vk::binding(0)]] StructuredBuffer<uint4> code : register(t0);
[[vk::binding(1)]] StructuredBuffer<uint4> progs : register(t1);
[[vk::binding(2)]] StructuredBuffer<uint> prog_index : register(t2);
[[vk::binding(3)]] StructuredBuffer<float> inp : register(t3);
[[vk::binding(4)]] RWStructuredBuffer<float> outp : register(u0);
[[vk::binding(5)]] cbuffer UCode : register(b0)
{
    uint4 ucode[FMAG_UBO_RECORDS];
};

struct FmagPC {
    uint n, in_stride, out_stride, nprogs;
    uint per_lane, evals, base, code_stride;
    uint zero_init, ninstr, nin, nout; // ninstr, nin, nout: uniform launches
    uint lane_kinds, pad0, pad1, pad2; // per lane: every program has the same kinds
};
[[vk::push_constant]] ConstantBuffer<FmagPC> pc;

uint4 fmag_fetch(uint i)
{
    return FMAG_UBO ? ucode[i & (FMAG_UBO_RECORDS - 1u)] : code[i];
}

[numthreads(64, 1, 1)]
void main(uint3 group : SV_GroupID, uint3 local : SV_GroupThreadID)
{
    uint t = local.x;
    uint e0 = pc.base + group.x * FMAG_ROW + t;
    uint first = 0u, ninstr = pc.ninstr, nin = pc.nin, nout = pc.nout;
    if (pc.per_lane != 0u) {
        // the host checked that the FMAG_K elements of an invocation share a program
        uint p = e0 < pc.n ? min(prog_index[e0], pc.nprogs - 1u) : 0u;
        uint4 h = progs[p];
        first = h.x;
        ninstr = h.y;
        nin = h.z;
        nout = h.w;
    }
    nin = min(nin, FMAG_REGS);
    nout = min(nout, FMAG_REGS);
    for (uint ev = 0u; ev < pc.evals; ++ev) {
        for (uint j = 0u; j < FMAG_K; ++j) {
            uint e = e0 + j * FMAG_WG;
            if (pc.zero_init != 0u)
                for (uint i = nin; i < FMAG_REGS; ++i)
                    fmag_sm[fmag_slot(i, j, t)] = 0.0;
            for (uint i2 = 0u; i2 < nin; ++i2) {
                float v = e < pc.n ? inp[e * pc.in_stride + i2] : 0.0;
                // evaluation ev > 0 (benchmarks) adds ev/16, as the other engines do
                fmag_sm[fmag_slot(i2, j, t)] = ev == 0u ? v : v + (float)ev * 0.0625;
            }
        }
        // Each loop fetches the next record while the current one runs (the host pads the
        // code past the last record).
        if (pc.per_lane != 0u && pc.lane_kinds != 0u) {
            // the kinds agree at every instruction: a uniform branch per kind
            uint4 w = code[first];
            for (uint i = 0u; i < ninstr; ++i) {
                uint4 nx = code[first + (i + 1u) * pc.code_stride];
                fmag_exec(w, w, t);
                w = nx;
            }
        } else if (pc.per_lane != 0u) {
            uint4 w = code[first];
            for (uint i = 0u; i < ninstr; ++i) {
                uint4 nx = code[first + (i + 1u) * pc.code_stride];
                fmag_exec_lane(w, t);
                w = nx;
            }
        } else {
            uint4 w = fmag_fetch(0u);
            for (uint i = 0u; i < ninstr; ++i) {
                uint4 nx = fmag_fetch(i + 1u); // also a fused select's partner
                fmag_exec(w, nx, t);
                w = nx;
            }
        }
        for (uint j2 = 0u; j2 < FMAG_K; ++j2) {
            uint e = e0 + j2 * FMAG_WG;
            if (e < pc.n)
                for (uint i = 0u; i < nout; ++i) {
                    uint o = e * pc.out_stride + i;
                    float r = fmag_sm[fmag_slot(i, j2, t)];
                    outp[o] = ev == 0u ? r : outp[o] + r;
                }
        }
    }
}
