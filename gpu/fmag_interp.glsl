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

// >>> fmag_soft_fma (the one source: lib/VM/EmitSource.c embeds these lines in the GLSL it
// emits, through utils/glsl_snippet.py)
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
// <<< fmag_soft_fma

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

// ---------------------------------------------------------------------------------------
// The fast design (what the Vulkan runner ships; docs/GPU.md, measured in PERFORMANCE.md):
// FMAG_K elements per invocation share one decoded record; the register file is workgroup
// shared memory laid out [reg][element j][invocation] (bank-conflict free whatever the
// indices); the code is pre-decoded on the host (lib/GPU/fmag_gpu_host.h,
// fmag_gpu_predecode_sel + fmag_gpu_predecode_bytes with row = FMAG_K * FMAG_FAST_WG): register
// operands are offsets into the file (index * row), word 3 = d*row | (a*row) << 16 | kind,
// kind bit 0/1/2 = b/c/g is a register, kind 8-11 = FMAG's select idiom fused with the next
// record, which then carries 16 (fmag_gpu_mark_fused). Define FMAG_FAST_WG (the workgroup
// size: a #define, or gl_WorkGroupSize.x when it is a specialization constant) and FMAG_K
// (elements per invocation, 1, 2, 4 or 8: a #define or a specialization constant) before the
// #include; FMAG_VEC too for the VEC layout below (what the runner uses up to 4 registers).
#ifdef FMAG_FAST_WG
#ifdef FMAG_VEC
// The VEC layout (define FMAG_VEC = FMAG_K = 2 or 4): the FMAG_K elements of an invocation
// are one vector in the file [reg][invocation], so an operand of all of them is one 64- or
// 128-bit access; records are pre-decoded with row = FMAG_FAST_WG (offsets in vectors).
#if FMAG_VEC == 4
#define FMAG_VT vec4
#else
#define FMAG_VT vec2
#endif
const uint FMAG_FAST_ROW = FMAG_FAST_WG;
shared FMAG_VT fmag_smv[FMAG_REGS * FMAG_FAST_WG];
#define FMAG_SM(r, j) fmag_smv[(r)*FMAG_FAST_WG + gl_LocalInvocationID.x][j]
#else
const uint FMAG_FAST_ROW = FMAG_K * FMAG_FAST_WG;
shared float fmag_sm[FMAG_REGS * FMAG_FAST_ROW];
// Register r (an index) of element j of the calling invocation.
#define FMAG_SM(r, j) fmag_sm[(r)*FMAG_FAST_ROW + (j)*FMAG_FAST_WG + gl_LocalInvocationID.x]
#endif
// offsets are multiples of the row, masked to the file: an untrusted record stays inside it
const uint FMAG_OFF_MASK = (FMAG_REGS * FMAG_FAST_ROW - 1u) & ~(FMAG_FAST_ROW - 1u);

float fmag_fma(float a, float b, float c)
{
    precise float res;
    if (FMAG_SOFT_FMA)
        res = fmag_soft_fma(a, b, c);
    else
        res = fma(a, b, c);
    return isnan(res) ? uintBitsToFloat(0x7FC00000u) : res;
}

#ifdef FMAG_VEC
FMAG_VT fmag_fma_v(FMAG_VT a, FMAG_VT b, FMAG_VT c)
{
    FMAG_VT r;
    for (uint j = 0u; j < FMAG_VEC; ++j)
        r[j] = fmag_fma(a[j], b[j], c[j]);
    return r;
}

// As the scalar bodies below, one vector access per operand for all FMAG_K elements; a
// register guard keeps the old value of the elements whose guard is not > 0.
void fmag_fast_step(uvec4 w, bool br, bool cr, bool gr)
{
    uint t = gl_LocalInvocationID.x;
    uint ao = ((w.w >> 16) & FMAG_OFF_MASK) + t, bo = (w.x & FMAG_OFF_MASK) + t;
    uint co = (w.y & FMAG_OFF_MASK) + t, go = (w.z & FMAG_OFF_MASK) + t;
    uint d = (w.w & FMAG_OFF_MASK) + t;
    FMAG_VT va = fmag_smv[ao];
    FMAG_VT vb = br ? fmag_smv[bo] : FMAG_VT(uintBitsToFloat(w.x));
    FMAG_VT vc = cr ? fmag_smv[co] : FMAG_VT(uintBitsToFloat(w.y));
    FMAG_VT res = fmag_fma_v(va, vb, vc);
    if (gr) // uniform records: a literal guard is > 0 (the host dropped the others)
        res = mix(fmag_smv[d], res, greaterThan(fmag_smv[go], FMAG_VT(0.0)));
    fmag_smv[d] = res;
}

void fmag_fast_fused(uvec4 w1, uvec4 w2, bool br, bool cr)
{
    uint t = gl_LocalInvocationID.x;
    uint fo = ((w1.w >> 16) & FMAG_OFF_MASK) + t, d = (w1.w & FMAG_OFF_MASK) + t;
    uint ao = ((w2.w >> 16) & FMAG_OFF_MASK) + t, bo = (w2.x & FMAG_OFF_MASK) + t;
    uint co = (w2.y & FMAG_OFF_MASK) + t, go = (w2.z & FMAG_OFF_MASK) + t;
    FMAG_VT v1 = fmag_fma_v(fmag_smv[fo], FMAG_VT(uintBitsToFloat(w1.x)),
                            FMAG_VT(uintBitsToFloat(w1.y)));
    FMAG_VT vb = br ? fmag_smv[bo] : FMAG_VT(uintBitsToFloat(w2.x));
    FMAG_VT vc = cr ? fmag_smv[co] : FMAG_VT(uintBitsToFloat(w2.y));
    FMAG_VT v2 = fmag_fma_v(fmag_smv[ao], vb, vc);
    fmag_smv[d] = mix(v1, v2, greaterThan(fmag_smv[go], FMAG_VT(0.0)));
}

void fmag_fast_exec_lane(uvec4 w)
{
    uint t = gl_LocalInvocationID.x, kind = w.w & 7u;
    uint ao = ((w.w >> 16) & FMAG_OFF_MASK) + t, bo = (w.x & FMAG_OFF_MASK) + t;
    uint co = (w.y & FMAG_OFF_MASK) + t, go = (w.z & FMAG_OFF_MASK) + t;
    uint d = (w.w & FMAG_OFF_MASK) + t;
    FMAG_VT vb = (kind & 1u) != 0u ? fmag_smv[bo] : FMAG_VT(uintBitsToFloat(w.x));
    FMAG_VT vc = (kind & 2u) != 0u ? fmag_smv[co] : FMAG_VT(uintBitsToFloat(w.y));
    FMAG_VT vg = (kind & 4u) != 0u ? fmag_smv[go] : FMAG_VT(uintBitsToFloat(w.z));
    FMAG_VT res = fmag_fma_v(fmag_smv[ao], vb, vc);
    fmag_smv[d] = mix(fmag_smv[d], res, greaterThan(vg, FMAG_VT(0.0)));
}
#else
// One record whose operand kinds are known (constant arguments: the callers below pass
// literals, so each call site compiles to code without the other kinds' loads).
void fmag_fast_step(uvec4 w, bool br, bool cr, bool gr)
{
    uint t = gl_LocalInvocationID.x;
    uint ao = ((w.w >> 16) & FMAG_OFF_MASK) + t, bo = (w.x & FMAG_OFF_MASK) + t;
    uint co = (w.y & FMAG_OFF_MASK) + t, go = (w.z & FMAG_OFF_MASK) + t;
    uint d = (w.w & FMAG_OFF_MASK) + t;
    float va[FMAG_K], vb[FMAG_K], vc[FMAG_K], vg[FMAG_K];
    for (uint j = 0u; j < FMAG_K; ++j) {
        va[j] = fmag_sm[ao + j * FMAG_FAST_WG];
        vb[j] = br ? fmag_sm[bo + j * FMAG_FAST_WG] : uintBitsToFloat(w.x);
        vc[j] = cr ? fmag_sm[co + j * FMAG_FAST_WG] : uintBitsToFloat(w.y);
        vg[j] = gr ? fmag_sm[go + j * FMAG_FAST_WG] : 1.0;
    }
    for (uint j = 0u; j < FMAG_K; ++j) {
        float res = fmag_fma(va[j], vb[j], vc[j]);
        if (vg[j] > 0.0)
            fmag_sm[d + j * FMAG_FAST_WG] = res;
    }
}

// FMAG's select idiom fused: X = fma(f, b1, c1) (literals b1, c1), then X = g > 0 ? fma(a,
// b, c) : X (w2, which does not read X), as one dispatch and one store.
void fmag_fast_fused(uvec4 w1, uvec4 w2, bool br, bool cr)
{
    uint t = gl_LocalInvocationID.x;
    uint fo = ((w1.w >> 16) & FMAG_OFF_MASK) + t, d = (w1.w & FMAG_OFF_MASK) + t;
    uint ao = ((w2.w >> 16) & FMAG_OFF_MASK) + t, bo = (w2.x & FMAG_OFF_MASK) + t;
    uint co = (w2.y & FMAG_OFF_MASK) + t, go = (w2.z & FMAG_OFF_MASK) + t;
    float vf[FMAG_K], va[FMAG_K], vb[FMAG_K], vc[FMAG_K], vg[FMAG_K];
    for (uint j = 0u; j < FMAG_K; ++j) {
        vf[j] = fmag_sm[fo + j * FMAG_FAST_WG];
        va[j] = fmag_sm[ao + j * FMAG_FAST_WG];
        vb[j] = br ? fmag_sm[bo + j * FMAG_FAST_WG] : uintBitsToFloat(w2.x);
        vc[j] = cr ? fmag_sm[co + j * FMAG_FAST_WG] : uintBitsToFloat(w2.y);
        vg[j] = fmag_sm[go + j * FMAG_FAST_WG];
    }
    for (uint j = 0u; j < FMAG_K; ++j) {
        float v1 = fmag_fma(vf[j], uintBitsToFloat(w1.x), uintBitsToFloat(w1.y));
        float v2 = fmag_fma(va[j], vb[j], vc[j]);
        fmag_sm[d + j * FMAG_FAST_WG] = vg[j] > 0.0 ? v2 : v1;
    }
}

#endif // FMAG_VEC

// Runs record w (w2: the record after it, read only when w is a fused select). Call it on
// every record in order, with a dynamically uniform record (every invocation of the
// subgroup at the same one, e.g. fetched from a uniform buffer at a uniform index): the
// switch is then a uniform branch. A fused select's partner is marked (16 in its kind
// bits): its turn does nothing, so the caller's loop steps one record at a time and can
// fetch the next record while this one runs.
void fmag_fast_exec(uvec4 w, uvec4 w2)
{
    uint kind = w.w & 31u;
    if (kind >= 16u)
        return;
    if (kind >= 8u) {
        switch (kind & 3u) {
        case 0u: fmag_fast_fused(w, w2, false, false); break;
        case 1u: fmag_fast_fused(w, w2, true, false); break;
        case 2u: fmag_fast_fused(w, w2, false, true); break;
        default: fmag_fast_fused(w, w2, true, true); break;
        }
        return;
    }
    switch (kind) {
    case 0u: fmag_fast_step(w, false, false, false); break;
    case 1u: fmag_fast_step(w, true, false, false); break;
    case 2u: fmag_fast_step(w, false, true, false); break;
    case 3u: fmag_fast_step(w, true, true, false); break;
    case 4u: fmag_fast_step(w, false, false, true); break;
    case 5u: fmag_fast_step(w, true, false, true); break;
    case 6u: fmag_fast_step(w, false, true, true); break;
    default: fmag_fast_step(w, true, true, true); break;
    }
}

#ifndef FMAG_VEC
// Per-lane records (fmag_gpu_predecode_lane with row = FMAG_K * FMAG_FAST_WG: no-ops kept, a
// literal guard keeps its bits): the kinds differ between invocations, so every operand is a
// select over a predicated load; the FMAG_K elements of the invocation share the program.
void fmag_fast_exec_lane(uvec4 w)
{
    uint t = gl_LocalInvocationID.x, kind = w.w & 7u;
    uint ao = ((w.w >> 16) & FMAG_OFF_MASK) + t, bo = (w.x & FMAG_OFF_MASK) + t;
    uint co = (w.y & FMAG_OFF_MASK) + t, go = (w.z & FMAG_OFF_MASK) + t;
    uint d = (w.w & FMAG_OFF_MASK) + t;
    bool br = (kind & 1u) != 0u, cr = (kind & 2u) != 0u, gr = (kind & 4u) != 0u;
    float va[FMAG_K], vb[FMAG_K], vc[FMAG_K], vg[FMAG_K];
    for (uint j = 0u; j < FMAG_K; ++j) {
        va[j] = fmag_sm[ao + j * FMAG_FAST_WG];
        vb[j] = br ? fmag_sm[bo + j * FMAG_FAST_WG] : uintBitsToFloat(w.x);
        vc[j] = cr ? fmag_sm[co + j * FMAG_FAST_WG] : uintBitsToFloat(w.y);
        vg[j] = gr ? fmag_sm[go + j * FMAG_FAST_WG] : uintBitsToFloat(w.z);
    }
    for (uint j = 0u; j < FMAG_K; ++j) {
        float res = fmag_fma(va[j], vb[j], vc[j]);
        if (vg[j] > 0.0)
            fmag_sm[d + j * FMAG_FAST_WG] = res;
    }
}
#endif
#endif // FMAG_FAST_WG

#endif
