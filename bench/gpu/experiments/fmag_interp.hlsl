// FMAG interpreter for HLSL (D3D12, Vulkan through DXC or glslang): the same semantics and
// the same fast design as gpu/fmag_interp.glsl (docs/GPU.md). FMAG_K elements per invocation
// share each pre-decoded record (lib/GPU/fmag_gpu_host.h: fmag_gpu_predecode_sel +
// fmag_gpu_predecode_bytes for uniform code, fmag_gpu_predecode_lane for per-lane code, row =
// FMAG_K * FMAG_WG); the register file is groupshared memory [reg][element][invocation].
//
// Before the #include define, as macros or (glslang, DXC -spirv) specialization constants:
//   FMAG_REGS      register-file size, a power of two >= the programs' regs
//   FMAG_K         elements per invocation (1, 2, 4, 8)
//   FMAG_SOFT_FMA  true where mad() is not a single rounding (the exact float64 fma is used)
// and as a macro FMAG_WG, the workgroup size (numthreads). Every register offset is masked to
// the file, so an untrusted record can only touch fmag_sm.
#ifndef FMAG_INTERP_HLSL
#define FMAG_INTERP_HLSL

#define FMAG_ROW (FMAG_K * FMAG_WG)
#define FMAG_OFF_MASK ((FMAG_REGS * FMAG_ROW - 1u) & ~(FMAG_ROW - 1u))
groupshared float fmag_sm[FMAG_REGS * FMAG_ROW];

// Exact single-rounding fma from float64, without access to a double's bits (glslang's HLSL
// front end has no asuint(double, out, out)): the product of two floats is exact in double;
// s = p + c rounds once, and TwoSum gives its error exactly. Converting s to float is then
// correct unless s lies exactly halfway between two floats r and n while the error is not
// zero: float midpoints are doubles, so rounding to double never crosses one, it can only
// land on it. There the error's sign says which way the exact sum lies. (Not handled: an
// exact sum within a double's rounding of the overflow threshold, FLT_MAX + half an ulp.)
float fmag_soft_fma(float a, float b, float c)
{
    precise double p = (double)a * (double)b;
    precise double s = p + (double)c;
    precise double bb = s - p;
    precise double err = (p - (s - bb)) + ((double)c - bb);
    float r = (float)s;
    precise double d = s - (double)r; // exact: r is s rounded to float
    precise double n = (double)r + 2.0 * d; // the float on s's other side, if s is a midpoint
    if (err != 0.0 && d != 0.0 && (double)(float)n == n && (err > 0.0) == (d > 0.0))
        r = (float)n;
    return r;
}

// One FMAG multiply-add; every computed NaN stored as the VM's canonical 0x7FC00000.
float fmag_fma(float a, float b, float c)
{
    precise float res = FMAG_SOFT_FMA ? fmag_soft_fma(a, b, c) : mad(a, b, c);
    return isnan(res) ? asfloat(0x7FC00000u) : res;
}

// Register r (an index) of element j of invocation t.
uint fmag_slot(uint r, uint j, uint t)
{
    return r * FMAG_ROW + j * FMAG_WG + t;
}

// One record whose operand kinds are known (literal arguments at each call site).
void fmag_step(uint4 w, uint t, bool br, bool cr, bool gr)
{
    uint ao = ((w.w >> 16) & FMAG_OFF_MASK) + t, bo = (w.x & FMAG_OFF_MASK) + t;
    uint co = (w.y & FMAG_OFF_MASK) + t, go = (w.z & FMAG_OFF_MASK) + t;
    uint d = (w.w & FMAG_OFF_MASK) + t;
    float va[FMAG_K], vb[FMAG_K], vc[FMAG_K], vg[FMAG_K];
    [unroll] for (uint j = 0u; j < FMAG_K; ++j) {
        va[j] = fmag_sm[ao + j * FMAG_WG];
        vb[j] = br ? fmag_sm[bo + j * FMAG_WG] : asfloat(w.x);
        vc[j] = cr ? fmag_sm[co + j * FMAG_WG] : asfloat(w.y);
        vg[j] = gr ? fmag_sm[go + j * FMAG_WG] : 1.0;
    }
    [unroll] for (uint j2 = 0u; j2 < FMAG_K; ++j2) {
        float res = fmag_fma(va[j2], vb[j2], vc[j2]);
        if (vg[j2] > 0.0)
            fmag_sm[d + j2 * FMAG_WG] = res;
    }
}

// FMAG's select idiom fused: X = fma(f, b1, c1) (literals), then X = g > 0 ? fma(a, b, c) : X
// (w2, which does not read X): one dispatch, one store.
void fmag_fused(uint4 w1, uint4 w2, uint t, bool br, bool cr)
{
    uint fo = ((w1.w >> 16) & FMAG_OFF_MASK) + t, d = (w1.w & FMAG_OFF_MASK) + t;
    uint ao = ((w2.w >> 16) & FMAG_OFF_MASK) + t, bo = (w2.x & FMAG_OFF_MASK) + t;
    uint co = (w2.y & FMAG_OFF_MASK) + t, go = (w2.z & FMAG_OFF_MASK) + t;
    float vf[FMAG_K], va[FMAG_K], vb[FMAG_K], vc[FMAG_K], vg[FMAG_K];
    [unroll] for (uint j = 0u; j < FMAG_K; ++j) {
        vf[j] = fmag_sm[fo + j * FMAG_WG];
        va[j] = fmag_sm[ao + j * FMAG_WG];
        vb[j] = br ? fmag_sm[bo + j * FMAG_WG] : asfloat(w2.x);
        vc[j] = cr ? fmag_sm[co + j * FMAG_WG] : asfloat(w2.y);
        vg[j] = fmag_sm[go + j * FMAG_WG];
    }
    [unroll] for (uint j2 = 0u; j2 < FMAG_K; ++j2) {
        float v1 = fmag_fma(vf[j2], asfloat(w1.x), asfloat(w1.y));
        float v2 = fmag_fma(va[j2], vb[j2], vc[j2]);
        fmag_sm[d + j2 * FMAG_WG] = vg[j2] > 0.0 ? v2 : v1;
    }
}

// Runs uniform record w (w2: the record after it, read only by a fused select). Call it on
// every record in order, at a dynamically uniform record: the switch is a uniform branch. A
// fused select's partner is marked (16 in its kind bits) and does nothing on its own turn.
void fmag_exec(uint4 w, uint4 w2, uint t)
{
    uint kind = w.w & 31u;
    if (kind >= 16u)
        return;
    if (kind >= 8u) {
        switch (kind & 3u) {
        case 0u: fmag_fused(w, w2, t, false, false); break;
        case 1u: fmag_fused(w, w2, t, true, false); break;
        case 2u: fmag_fused(w, w2, t, false, true); break;
        default: fmag_fused(w, w2, t, true, true); break;
        }
        return;
    }
    switch (kind) {
    case 0u: fmag_step(w, t, false, false, false); break;
    case 1u: fmag_step(w, t, true, false, false); break;
    case 2u: fmag_step(w, t, false, true, false); break;
    case 3u: fmag_step(w, t, true, true, false); break;
    case 4u: fmag_step(w, t, false, false, true); break;
    case 5u: fmag_step(w, t, true, false, true); break;
    case 6u: fmag_step(w, t, false, true, true); break;
    default: fmag_step(w, t, true, true, true); break;
    }
}

// A per-lane record (no-ops kept; a literal guard keeps its bits): kinds differ between
// invocations, so each operand is a select over a load.
void fmag_exec_lane(uint4 w, uint t)
{
    uint kind = w.w & 7u;
    uint ao = ((w.w >> 16) & FMAG_OFF_MASK) + t, bo = (w.x & FMAG_OFF_MASK) + t;
    uint co = (w.y & FMAG_OFF_MASK) + t, go = (w.z & FMAG_OFF_MASK) + t;
    uint d = (w.w & FMAG_OFF_MASK) + t;
    bool br = (kind & 1u) != 0u, cr = (kind & 2u) != 0u, gr = (kind & 4u) != 0u;
    float va[FMAG_K], vb[FMAG_K], vc[FMAG_K], vg[FMAG_K];
    [unroll] for (uint j = 0u; j < FMAG_K; ++j) {
        va[j] = fmag_sm[ao + j * FMAG_WG];
        vb[j] = br ? fmag_sm[bo + j * FMAG_WG] : asfloat(w.x);
        vc[j] = cr ? fmag_sm[co + j * FMAG_WG] : asfloat(w.y);
        vg[j] = gr ? fmag_sm[go + j * FMAG_WG] : asfloat(w.z);
    }
    [unroll] for (uint j2 = 0u; j2 < FMAG_K; ++j2) {
        float res = fmag_fma(va[j2], vb[j2], vc[j2]);
        if (vg[j2] > 0.0)
            fmag_sm[d + j2 * FMAG_WG] = res;
    }
}

#endif // FMAG_INTERP_HLSL
