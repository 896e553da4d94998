/* FMAG CUDA interpreters: kernel templates shared by the library's CUDA runner
 * (gpu/fmag_cuda.cu, embedded as a fatbin) and by bench/gpu, so the benchmark times exactly
 * the code the runner ships.
 *
 * Register files never hold more than RF floats per element and every register index is
 * masked with RF-1 (RF a power of two), so an untrusted stream cannot address memory outside
 * its own register file. NVIDIA GPUs have no register-indexed addressing: a run-time-indexed
 * `float r[RF]` lives in local memory (fmag_k_local). The shared-memory designs keep the
 * register file in shared memory laid out [reg][element-slot][thread], which is free of bank
 * conflicts whatever indices the lanes use, and let one decoded instruction drive K elements.
 */
#ifndef FMAG_CUDA_CUH
#define FMAG_CUDA_CUH

#include <stdint.h>

/* Pre-decoded uniform streams live in constant memory: one fetch is broadcast to the warp. */
#define FMAG_CUDA_MAX_UNIFORM 4096
/* Kinds of a pre-decoded instruction: which of b, c, g are registers. */
#define FMAG_CUDA_KIND_BREG 1u
#define FMAG_CUDA_KIND_CREG 2u
#define FMAG_CUDA_KIND_GREG 4u

/* Kernel parameters, passed by value; the C runner declares the same struct. */
struct fmag_cuda_args {
    const uint4 *code;          /* raw stream: [ninstr] or, per lane, [ninstr][nprogs] */
    const uint4 *progs;         /* per program {nin, nout, regs, ninstr} (per-lane only) */
    const unsigned *prog_index; /* per element (per-lane only) */
    const float *in;            /* input i of element e: in[e * in_stride + i * in_col] */
    float *out;                 /* output i of element e: out[e * out_stride + i * out_col] */
    const unsigned *nan;        /* the launch's NaN census (fmag_nan_scan), NULL: no mapping */
    unsigned n, in_stride, out_stride, ninstr;
    unsigned nprogs, nin, nout, regs;
    unsigned evals;     /* evaluations per element (benchmarks); results are summed */
    unsigned zero_init; /* 0: no register is read before it is written, skip zeroing */
    unsigned in_col, out_col;
};

#ifdef FMAG_CUDA_DEFINE_CONSTANT
__constant__ uint4 fmag_cuda_ucode[FMAG_CUDA_MAX_UNIFORM];
#else
extern __constant__ uint4 fmag_cuda_ucode[FMAG_CUDA_MAX_UNIFORM];
#endif

/* NaNs. NVIDIA's arithmetic returns the NaN 0x7FFFFFFF; the reference VM stores every
 * computed NaN as 0x7FC00000 (FMAG_VM_CANONICAL_NAN), so outputs map one to the other when
 * they are stored (the inner loops stay as measured). An input NaN of exactly 0x7FFFFFFF that
 * no instruction overwrites must come back unchanged: it is loaded as a NaN pattern of
 * 0x7FFFFF80-0x7FFFFFFE that no input of the launch has, which the store maps back. The
 * census (fmag_nan_scan, before the launch) has bit k set when pattern 0x7FFFFF80 + k
 * occurs among the inputs (bit 127: 0x7FFFFFFF). */
#define FMAG_CUDA_NAN_WORDS 4u
__device__ __forceinline__ unsigned fmag_cuda_nan_subst(const unsigned *nan)
{
    for (unsigned w = 0; w < FMAG_CUDA_NAN_WORDS; ++w) {
        unsigned free = ~nan[w] & (w == 3 ? 0x7FFFFFFFu : 0xFFFFFFFFu);
        if (free) return 0x7FFFFF80u + 32u * w + (unsigned)(__ffs(free) - 1);
    }
    return 0x7FFFFFFFu; /* none free: the host refuses the launch's results */
}

/* Evaluation ev > 0 of an element adds ev/16 (exact) to its inputs so
 * repeated evaluations are not common subexpressions; ev == 0 uses the inputs unchanged. */
__device__ __forceinline__ float fmag_cuda_input(const fmag_cuda_args &p, unsigned e, unsigned i,
                                                 unsigned ev)
{
    float v = p.in[(size_t)e * p.in_stride + (size_t)i * p.in_col];
    if (p.nan && __float_as_uint(v) == 0x7FFFFFFFu)
        v = __uint_as_float(fmag_cuda_nan_subst(p.nan));
    return ev ? __fadd_rn(v, (float)ev * 0.0625f) : v;
}

__device__ __forceinline__ void fmag_cuda_output(const fmag_cuda_args &p, unsigned e, unsigned i,
                                                 unsigned ev, float v)
{
    float *o = &p.out[(size_t)e * p.out_stride + (size_t)i * p.out_col];
    v = ev ? __fadd_rn(*o, v) : v;
    if (p.nan) {
        unsigned b = __float_as_uint(v);
        if (b == 0x7FFFFFFFu)
            b = 0x7FC00000u;
        else if ((b & ~0x7Fu) == 0x7FFFFF80u && b == fmag_cuda_nan_subst(p.nan))
            b = 0x7FFFFFFFu;
        v = __uint_as_float(b);
    }
    *o = v;
}

/* F1: the register file as a local array (local memory on NVIDIA). One element a thread. */
template <int RF, bool PERLANE>
__device__ __forceinline__ void fmag_k_local(const fmag_cuda_args &p)
{
    unsigned e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= p.n) return;
    unsigned nin = p.nin, nout = p.nout, ninstr = p.ninstr, prog = 0;
    if (PERLANE) {
        prog = p.prog_index[e];
        uint4 h = p.progs[prog];
        nin = h.x, nout = h.y;
    }
    float r[RF];
    for (unsigned ev = 0; ev < p.evals; ++ev) {
        for (unsigned i = 0; i < RF; ++i)
            r[i] = 0.0f;
        for (unsigned i = 0; i < nin && i < RF; ++i)
            r[i] = fmag_cuda_input(p, e, i, ev);
        for (unsigned i = 0; i < ninstr; ++i) {
            uint4 w = PERLANE ? __ldg(&p.code[(size_t)i * p.nprogs + prog]) : __ldg(&p.code[i]);
            float fb = __uint_as_float(w.x), fc = __uint_as_float(w.y), fg = __uint_as_float(w.z);
            float vb = isnan(fb) ? r[w.x & (RF - 1)] : fb;
            float vc = isnan(fc) ? r[w.y & (RF - 1)] : fc;
            float vg = isnan(fg) ? r[w.z & (RF - 1)] : fg;
            float res = fmaf(r[(w.w >> 16) & (RF - 1)], vb, vc);
            if (vg > 0.0f) r[w.w & (RF - 1)] = res;
        }
        for (unsigned i = 0; i < nout && i < RF; ++i)
            fmag_cuda_output(p, e, i, ev, r[i]);
    }
}

/* Shared-memory register file, rows of K*T floats, one row per register (byte offsets from
 * the host are register * K*T*4 in every layout). Element slot j of thread t:
 *  - FLAT (VEC false): float (j*T + t) of the row; one 32-bit access per element;
 *  - VEC: the slots of a thread contiguous in chunks of C = min(K, 4): float
 *    ((j/C)*T + t)*C + j%C of the row, so one 64- or 128-bit access serves C elements. A
 *    warp's access then covers whole 128-byte lines: conflict-free whatever the registers.
 * Thread t of block b runs elements (b*K + j)*T + t, j < K. */
template <int K, int T, bool VEC> struct fmag_cuda_rf {
    static constexpr int C = !VEC ? 1 : (K >= 4 ? 4 : K);
    /* the calling thread's slot 0 of register 0, in floats from the start of the file */
    __device__ static unsigned base() { return threadIdx.x * C; }
    /* slot j of register 0, in floats from base() */
    __device__ static constexpr unsigned slot(int j) { return (j / C) * T * C + j % C; }
};

template <int K> __device__ __forceinline__ void fmag_cuda_fill(float (&v)[K], float x)
{
#pragma unroll
    for (int j = 0; j < K; ++j)
        v[j] = x;
}

/* Loads register `off` (bytes) of the K slots; stores them; stores those with wr[j]. */
template <int K, int T, bool VEC>
__device__ __forceinline__ void fmag_cuda_ld(const char *sm, unsigned off, float (&v)[K])
{
    typedef fmag_cuda_rf<K, T, VEC> L;
    if (L::C == 4) {
#pragma unroll
        for (int g = 0; g < K / 4; ++g) {
            float4 q = *(const float4 *)(sm + off + g * T * 16);
            v[4 * g] = q.x, v[4 * g + 1] = q.y, v[4 * g + 2] = q.z, v[4 * g + 3] = q.w;
        }
    } else if (L::C == 2) {
        float2 q = *(const float2 *)(sm + off);
        v[0] = q.x, v[1] = q.y;
    } else {
#pragma unroll
        for (int j = 0; j < K; ++j)
            v[j] = *(const float *)(sm + off + L::slot(j) * 4);
    }
}

/* An operand of the K slots: register `word & mask` (bytes) when reg, else the literal word. */
template <int K, int T, bool VEC>
__device__ __forceinline__ void fmag_cuda_opnd(const char *sm, bool reg, uint32_t word,
                                               unsigned mask, float (&v)[K])
{
    if (reg)
        fmag_cuda_ld<K, T, VEC>(sm, word & mask, v);
    else
        fmag_cuda_fill<K>(v, __uint_as_float(word));
}

template <int K, int T, bool VEC>
__device__ __forceinline__ void fmag_cuda_st(char *sm, unsigned off, const float (&v)[K])
{
    typedef fmag_cuda_rf<K, T, VEC> L;
    if (L::C == 4) {
#pragma unroll
        for (int g = 0; g < K / 4; ++g)
            *(float4 *)(sm + off + g * T * 16) =
                make_float4(v[4 * g], v[4 * g + 1], v[4 * g + 2], v[4 * g + 3]);
    } else if (L::C == 2) {
        *(float2 *)(sm + off) = make_float2(v[0], v[1]);
    } else {
#pragma unroll
        for (int j = 0; j < K; ++j)
            *(float *)(sm + off + L::slot(j) * 4) = v[j];
    }
}

template <int K, int T, bool VEC>
__device__ __forceinline__ void fmag_cuda_st_if(char *sm, unsigned off, const float (&v)[K],
                                                const bool (&wr)[K])
{
#pragma unroll
    for (int j = 0; j < K; ++j)
        if (wr[j]) *(float *)(sm + off + fmag_cuda_rf<K, T, VEC>::slot(j) * 4) = v[j];
}

/* sm: the thread's base (fmag_cuda_rf::base()); e0: its first element. */
template <int RF, int K, int T, bool VEC = false>
__device__ __forceinline__ void fmag_cuda_load_inputs(const fmag_cuda_args &p, float *sm,
                                                      unsigned e0, unsigned ev, unsigned nin,
                                                      unsigned regs, bool zero)
{
    typedef fmag_cuda_rf<K, T, VEC> L;
#pragma unroll
    for (int j = 0; j < K; ++j) {
        unsigned e = e0 + j * T;
        bool ok = e < p.n;
        for (unsigned i = 0; i < nin && i < RF; ++i)
            sm[VEC ? i * K * T + L::slot(j) : (i * K + j) * T] =
                ok ? fmag_cuda_input(p, e, i, ev) : 0.0f;
        if (zero)
            for (unsigned i = nin; i < regs && i < RF; ++i)
                sm[VEC ? i * K * T + L::slot(j) : (i * K + j) * T] = 0.0f;
    }
}

template <int RF, int K, int T, bool VEC = false>
__device__ __forceinline__ void fmag_cuda_store_outputs(const fmag_cuda_args &p, float *sm,
                                                        unsigned e0, unsigned ev, unsigned nout)
{
    typedef fmag_cuda_rf<K, T, VEC> L;
#pragma unroll
    for (int j = 0; j < K; ++j) {
        unsigned e = e0 + j * T;
        if (e < p.n)
            for (unsigned i = 0; i < nout && i < RF; ++i)
                fmag_cuda_output(p, e, i, ev, sm[VEC ? i * K * T + L::slot(j) : (i * K + j) * T]);
    }
}

/* G: the raw NaN-boxed stream, decoded branch-free once per K elements. Uniform (one program,
 * fetched at a warp-uniform address) or per lane (program per element, streams interleaved
 * [instr][program] so a warp's fetches coalesce; the K elements of a thread share a program,
 * which the runner checks before it picks K > 1). */
/* BYTES: the stream was rewritten on the host by fmag_gpu_predecode_lane (register operands
 * as byte offsets into the file, operand kinds in the low bits of word 3; literals and guards
 * unchanged), so an operand costs one mask instead of a NaN test, a mask and a scale. Needs
 * RF * K * T * 4 <= 65536. BRANCH (BYTES only): the operand kinds of every instruction are the
 * same in all programs, so each operand is one warp-uniform branch. */
template <int RF, int K, int T, bool PERLANE, bool BYTES = false, bool BRANCH = false>
__device__ __forceinline__ void fmag_k_shared(const fmag_cuda_args &p)
{
    extern __shared__ __align__(16) float fmag_sm[];
    float *sm = fmag_sm + threadIdx.x;
    unsigned e0 = blockIdx.x * (K * T) + threadIdx.x;
    unsigned nin = p.nin, nout = p.nout, regs = p.regs, prog = 0, nrun = p.ninstr;
    if (PERLANE) {
        prog = e0 < p.n ? p.prog_index[e0] : 0;
        uint4 h = p.progs[prog];
        nin = h.x, nout = h.y;
        /* a warp runs as long as its own longest program, not the launch's */
        nrun = __reduce_max_sync(0xFFFFFFFFu, h.w < p.ninstr ? h.w : p.ninstr);
    }
    bool zero = p.zero_init != 0;
    for (unsigned ev = 0; ev < p.evals; ++ev) {
        fmag_cuda_load_inputs<RF, K, T>(p, sm, e0, ev, nin, regs, zero);
        /* The next instruction is fetched one iteration ahead: per-lane streams come from
         * L1/L2, and the fetch latency would otherwise sit on every instruction's path. */
        size_t step = PERLANE ? p.nprogs : 1;
        const uint4 *cp = p.code + (PERLANE ? prog : 0);
        uint4 wn = nrun ? __ldg(cp) : make_uint4(0, 0, 0, 0);
        for (unsigned i = 0; i < nrun; ++i) {
            uint4 w = wn;
            cp += step;
            if (i + 1 < nrun) wn = __ldg(cp);
            float fb = __uint_as_float(w.x), fc = __uint_as_float(w.y), fg = __uint_as_float(w.z);
            float res[K];
            bool wr[K];
            if (BYTES) {
                const unsigned ROW = K * T * 4, MASK = (RF * ROW - 1) & ~(ROW - 1);
                unsigned ob = w.x & MASK, oc = w.y & MASK, og = w.z & MASK;
                unsigned od = w.w & MASK, oa = (w.w >> 16) & MASK;
                const char *smc = (const char *)sm;
                if (BRANCH) {
                    /* every lane of the warp has the same operand kinds (the runner checks):
                     * the branches are uniform and literal operands cost no load at all */
                    float va[K], vb[K], vc[K], vg[K];
                    fmag_cuda_ld<K, T, false>(smc, oa, va);
                    fmag_cuda_opnd<K, T, false>(smc, w.w & 1u, w.x, MASK, vb);
                    fmag_cuda_opnd<K, T, false>(smc, w.w & 2u, w.y, MASK, vc);
                    fmag_cuda_opnd<K, T, false>(smc, w.w & 4u, w.z, MASK, vg);
#pragma unroll
                    for (int j = 0; j < K; ++j) {
                        res[j] = fmaf(va[j], vb[j], vc[j]);
                        wr[j] = vg[j] > 0.0f;
                    }
                } else {
                    /* lanes disagree: a select over a (predicated) load per element, in this
                     * order (docs/PERFORMANCE.md: faster than branches or grouped loads) */
                    bool rb = w.w & 1u, rc = w.w & 2u, rg = w.w & 4u;
#pragma unroll
                    for (int j = 0; j < K; ++j) {
                        float vb = rb ? *(const float *)(smc + ob + j * T * 4) : fb;
                        float vc = rc ? *(const float *)(smc + oc + j * T * 4) : fc;
                        float vg = rg ? *(const float *)(smc + og + j * T * 4) : fg;
                        res[j] = fmaf(*(const float *)(smc + oa + j * T * 4), vb, vc);
                        wr[j] = vg > 0.0f;
                    }
                }
#pragma unroll
                for (int j = 0; j < K; ++j)
                    if (wr[j]) *(float *)((char *)sm + od + j * T * 4) = res[j];
                continue;
            }
            bool rb = isnan(fb), rc = isnan(fc), rg = isnan(fg);
            unsigned ob = (w.x & (RF - 1)) * (K * T), oc = (w.y & (RF - 1)) * (K * T);
            unsigned og = (w.z & (RF - 1)) * (K * T);
            unsigned od = (w.w & (RF - 1)) * (K * T), oa = ((w.w >> 16) & (RF - 1)) * (K * T);
            /* All loads of the K elements before any store: they are different elements, so
             * this is the sequential semantics, and it gives the scheduler K independent chains. */
#pragma unroll
            for (int j = 0; j < K; ++j) {
                float vb = rb ? sm[ob + j * T] : fb;
                float vc = rc ? sm[oc + j * T] : fc;
                float vg = rg ? sm[og + j * T] : fg;
                res[j] = fmaf(sm[oa + j * T], vb, vc);
                wr[j] = vg > 0.0f;
            }
#pragma unroll
            for (int j = 0; j < K; ++j)
                if (wr[j]) sm[od + j * T] = res[j];
        }
        fmag_cuda_store_outputs<RF, K, T>(p, sm, e0, ev, nout);
    }
}

/* U: uniform programs only. The host pre-decodes the stream once into constant memory:
 * {b, c, g, d | a << 8 | kind << 16}, literal words as float bits, registers as indices,
 * no-op instructions (literal guard <= 0) dropped. A warp-uniform switch on the kind then runs
 * a body with no decode at all: literal operands come from the constant fetch, a literal
 * guard > 0 makes the store unconditional. */
template <int RF, int K, int T, unsigned KIND>
__device__ __forceinline__ void fmag_cuda_spec_step(float *sm, uint4 w)
{
    const bool BR = KIND & FMAG_CUDA_KIND_BREG, CR = KIND & FMAG_CUDA_KIND_CREG;
    const bool GR = KIND & FMAG_CUDA_KIND_GREG;
    unsigned od = (w.w & (RF - 1)) * (K * T), oa = ((w.w >> 8) & (RF - 1)) * (K * T);
    unsigned ob = (w.x & (RF - 1)) * (K * T), oc = (w.y & (RF - 1)) * (K * T);
    unsigned og = (w.z & (RF - 1)) * (K * T);
    float res[K];
    bool wr[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
        float vb = BR ? sm[ob + j * T] : __uint_as_float(w.x);
        float vc = CR ? sm[oc + j * T] : __uint_as_float(w.y);
        res[j] = fmaf(sm[oa + j * T], vb, vc);
        wr[j] = GR ? sm[og + j * T] > 0.0f : true;
    }
#pragma unroll
    for (int j = 0; j < K; ++j)
        if (wr[j]) sm[od + j * T] = res[j];
}

template <int RF, int K, int T> __device__ __forceinline__ void fmag_k_spec(const fmag_cuda_args &p)
{
    extern __shared__ __align__(16) float fmag_sm[];
    float *sm = fmag_sm + threadIdx.x;
    unsigned e0 = blockIdx.x * (K * T) + threadIdx.x;
    bool zero = p.zero_init != 0;
    unsigned ninstr = p.ninstr < FMAG_CUDA_MAX_UNIFORM ? p.ninstr : FMAG_CUDA_MAX_UNIFORM;
    for (unsigned ev = 0; ev < p.evals; ++ev) {
        fmag_cuda_load_inputs<RF, K, T>(p, sm, e0, ev, p.nin, p.regs, zero);
        for (unsigned i = 0; i < ninstr; ++i) {
            uint4 w = fmag_cuda_ucode[i];
            switch ((w.w >> 16) & 7u) {
            case 0:
                fmag_cuda_spec_step<RF, K, T, 0>(sm, w);
                break;
            case 1:
                fmag_cuda_spec_step<RF, K, T, 1>(sm, w);
                break;
            case 2:
                fmag_cuda_spec_step<RF, K, T, 2>(sm, w);
                break;
            case 3:
                fmag_cuda_spec_step<RF, K, T, 3>(sm, w);
                break;
            case 4:
                fmag_cuda_spec_step<RF, K, T, 4>(sm, w);
                break;
            case 5:
                fmag_cuda_spec_step<RF, K, T, 5>(sm, w);
                break;
            case 6:
                fmag_cuda_spec_step<RF, K, T, 6>(sm, w);
                break;
            default:
                fmag_cuda_spec_step<RF, K, T, 7>(sm, w);
                break;
            }
        }
        fmag_cuda_store_outputs<RF, K, T>(p, sm, e0, ev, p.nout);
    }
}

/* SB: as S, with the records' register operands pre-scaled to byte offsets into the
 * register file (fmag_gpu_predecode_bytes: word 3 = d*row | (a*row) << 16 | kind, kind in
 * the low 4 bits below the row alignment), so the kernel does one mask per operand instead
 * of a mask and a scale. Needs RF * K * T * 4 <= 65536. */
template <int RF, int K, int T, unsigned KIND, bool VEC = false>
__device__ __forceinline__ void fmag_cuda_selb_step(char *sm, uint4 w)
{
    const bool BR = KIND & FMAG_CUDA_KIND_BREG, CR = KIND & FMAG_CUDA_KIND_CREG;
    const bool GR = KIND & FMAG_CUDA_KIND_GREG;
    const unsigned ROW = K * T * 4, MASK = (RF * ROW - 1) & ~(ROW - 1);
    float va[K], vb[K], vc[K], vg[K], res[K];
    bool wr[K];
    fmag_cuda_ld<K, T, VEC>(sm, (w.w >> 16) & MASK, va);
    fmag_cuda_opnd<K, T, VEC>(sm, BR, w.x, MASK, vb);
    fmag_cuda_opnd<K, T, VEC>(sm, CR, w.y, MASK, vc);
    if (GR) fmag_cuda_ld<K, T, VEC>(sm, w.z & MASK, vg);
#pragma unroll
    for (int j = 0; j < K; ++j) {
        res[j] = fmaf(va[j], vb[j], vc[j]);
        wr[j] = GR ? vg[j] > 0.0f : true;
    }
    if (GR)
        fmag_cuda_st_if<K, T, VEC>(sm, w.w & MASK, res, wr);
    else
        fmag_cuda_st<K, T, VEC>(sm, w.w & MASK, res);
}

template <int RF, int K, int T, unsigned K2, bool VEC = false>
__device__ __forceinline__ void fmag_cuda_selb_fused(char *sm, uint4 w1, uint4 w2)
{
    const bool BR = K2 & FMAG_CUDA_KIND_BREG, CR = K2 & FMAG_CUDA_KIND_CREG;
    const unsigned ROW = K * T * 4, MASK = (RF * ROW - 1) & ~(ROW - 1);
    float vf[K], va[K], vb[K], vc[K], vg[K], res[K];
    fmag_cuda_ld<K, T, VEC>(sm, (w1.w >> 16) & MASK, vf);
    fmag_cuda_ld<K, T, VEC>(sm, (w2.w >> 16) & MASK, va);
    fmag_cuda_opnd<K, T, VEC>(sm, BR, w2.x, MASK, vb);
    fmag_cuda_opnd<K, T, VEC>(sm, CR, w2.y, MASK, vc);
    fmag_cuda_ld<K, T, VEC>(sm, w2.z & MASK, vg);
#pragma unroll
    for (int j = 0; j < K; ++j) {
        float v1 = fmaf(vf[j], __uint_as_float(w1.x), __uint_as_float(w1.y));
        float v2 = fmaf(va[j], vb[j], vc[j]);
        res[j] = vg[j] > 0.0f ? v2 : v1;
    }
    fmag_cuda_st<K, T, VEC>(sm, w1.w & MASK, res);
}

/* DISPATCH: FMAG_CUDA_SELB_TWO_LEVEL (fused records tested first, then a switch on the
 * kind), FMAG_CUDA_SELB_ONE_SWITCH (one switch over all 12 record kinds), or
 * FMAG_CUDA_SELB_NO_FUSION (records of fmag_gpu_predecode: the spec kernel with byte
 * offsets). */
#define FMAG_CUDA_SELB_TWO_LEVEL 0
#define FMAG_CUDA_SELB_ONE_SWITCH 1
#define FMAG_CUDA_SELB_NO_FUSION 2
template <int RF, int K, int T, int DISPATCH = FMAG_CUDA_SELB_TWO_LEVEL, bool VEC = false>
__device__ __forceinline__ void fmag_k_selb(const fmag_cuda_args &p)
{
    extern __shared__ __align__(16) float fmag_sm[];
    float *smf = fmag_sm + fmag_cuda_rf<K, T, VEC>::base();
    char *sm = (char *)smf;
    unsigned e0 = blockIdx.x * (K * T) + threadIdx.x;
    bool zero = p.zero_init != 0;
    unsigned ninstr = p.ninstr < FMAG_CUDA_MAX_UNIFORM ? p.ninstr : FMAG_CUDA_MAX_UNIFORM;
    for (unsigned ev = 0; ev < p.evals; ++ev) {
        fmag_cuda_load_inputs<RF, K, T, VEC>(p, smf, e0, ev, p.nin, p.regs, zero);
        for (unsigned i = 0; i < ninstr; ++i) {
            uint4 w = fmag_cuda_ucode[i];
            unsigned kind = w.w & 15u;
            if (DISPATCH == FMAG_CUDA_SELB_ONE_SWITCH) {
                /* a fused record's second half is the next record; a stream cut short reads
                 * a stale record of the same array (wrong results, never other memory) */
                uint4 w2 = fmag_cuda_ucode[(i + 1) & (FMAG_CUDA_MAX_UNIFORM - 1)];
                switch (kind) {
#define FMAG_SELB_CASE(k)                                                                          \
    case k:                                                                                        \
        fmag_cuda_selb_step<RF, K, T, k, VEC>(sm, w);                                              \
        break;
#define FMAG_SELB_FUSED(k)                                                                         \
    case 8 + k:                                                                                    \
        fmag_cuda_selb_fused<RF, K, T, k, VEC>(sm, w, w2);                                         \
        ++i;                                                                                       \
        break;
                    FMAG_SELB_CASE(0)
                    FMAG_SELB_CASE(1)
                    FMAG_SELB_CASE(2)
                    FMAG_SELB_CASE(3)
                    FMAG_SELB_CASE(4)
                    FMAG_SELB_CASE(5)
                    FMAG_SELB_CASE(6)
                    FMAG_SELB_CASE(7)
                    FMAG_SELB_FUSED(0)
                    FMAG_SELB_FUSED(1)
                    FMAG_SELB_FUSED(2)
                    FMAG_SELB_FUSED(3)
#undef FMAG_SELB_CASE
#undef FMAG_SELB_FUSED
                default:
                    break;
                }
                continue;
            }
            if (DISPATCH == FMAG_CUDA_SELB_TWO_LEVEL && kind >= 8u && i + 1 < ninstr) {
                uint4 w2 = fmag_cuda_ucode[++i];
                switch (kind & 3u) {
                case 0:
                    fmag_cuda_selb_fused<RF, K, T, 0, VEC>(sm, w, w2);
                    break;
                case 1:
                    fmag_cuda_selb_fused<RF, K, T, 1, VEC>(sm, w, w2);
                    break;
                case 2:
                    fmag_cuda_selb_fused<RF, K, T, 2, VEC>(sm, w, w2);
                    break;
                default:
                    fmag_cuda_selb_fused<RF, K, T, 3, VEC>(sm, w, w2);
                    break;
                }
                continue;
            }
            /* the kind switches stay written out: one generic-lambda dispatcher for all of
             * them made these kernels slower (docs/PERFORMANCE.md) */
            switch (kind & 7u) {
            case 0:
                fmag_cuda_selb_step<RF, K, T, 0, VEC>(sm, w);
                break;
            case 1:
                fmag_cuda_selb_step<RF, K, T, 1, VEC>(sm, w);
                break;
            case 2:
                fmag_cuda_selb_step<RF, K, T, 2, VEC>(sm, w);
                break;
            case 3:
                fmag_cuda_selb_step<RF, K, T, 3, VEC>(sm, w);
                break;
            case 4:
                fmag_cuda_selb_step<RF, K, T, 4, VEC>(sm, w);
                break;
            case 5:
                fmag_cuda_selb_step<RF, K, T, 5, VEC>(sm, w);
                break;
            case 6:
                fmag_cuda_selb_step<RF, K, T, 6, VEC>(sm, w);
                break;
            default:
                fmag_cuda_selb_step<RF, K, T, 7, VEC>(sm, w);
                break;
            }
        }
        fmag_cuda_store_outputs<RF, K, T, VEC>(p, smf, e0, ev, p.nout);
    }
}

/* F: uniform programs, pre-decoded with forwarding (fmag_gpu_predecode_fwd): operands are
 * byte offsets into the register file, `a` may come from the previous result held in
 * registers, and stores of values never read back are skipped. Shared memory bandwidth
 * (one 32-bit access per lane per cycle per SM) bounds every shared-memory register file;
 * these two facts remove accesses rather than instructions. Needs RF * K * T * 4 <= 65536. */
template <int RF, int K, int T, unsigned KIND, bool APREV, bool VEC = false>
__device__ __forceinline__ void fmag_cuda_fwd_step(char *sm, uint4 w, float (&prev)[K])
{
    const bool BR = KIND & FMAG_CUDA_KIND_BREG, CR = KIND & FMAG_CUDA_KIND_CREG;
    const bool GR = KIND & FMAG_CUDA_KIND_GREG;
    const unsigned ROW = K * T * 4, MASK = (RF * ROW - 1) & ~(ROW - 1);
    float va[K], vb[K], vc[K], vg[K];
    bool wr[K];
    if (!APREV) fmag_cuda_ld<K, T, VEC>(sm, (w.w >> 16) & MASK, va);
    fmag_cuda_opnd<K, T, VEC>(sm, BR, w.x, MASK, vb);
    fmag_cuda_opnd<K, T, VEC>(sm, CR, w.y, MASK, vc);
    if (GR) fmag_cuda_ld<K, T, VEC>(sm, w.z & MASK, vg);
#pragma unroll
    for (int j = 0; j < K; ++j) {
        prev[j] = fmaf(APREV ? prev[j] : va[j], vb[j], vc[j]);
        wr[j] = GR ? vg[j] > 0.0f : true;
    }
    if (!(w.w & 16u)) {
        if (GR)
            fmag_cuda_st_if<K, T, VEC>(sm, w.w & MASK, prev, wr);
        else
            fmag_cuda_st<K, T, VEC>(sm, w.w & MASK, prev);
    }
}

template <int RF, int K, int T, bool VEC = false>
__device__ __forceinline__ void fmag_k_fwd(const fmag_cuda_args &p)
{
    extern __shared__ __align__(16) float fmag_sm[];
    float *smf = fmag_sm + fmag_cuda_rf<K, T, VEC>::base();
    char *sm = (char *)smf;
    unsigned e0 = blockIdx.x * (K * T) + threadIdx.x;
    bool zero = p.zero_init != 0;
    unsigned ninstr = p.ninstr < FMAG_CUDA_MAX_UNIFORM ? p.ninstr : FMAG_CUDA_MAX_UNIFORM;
    for (unsigned ev = 0; ev < p.evals; ++ev) {
        fmag_cuda_load_inputs<RF, K, T, VEC>(p, smf, e0, ev, p.nin, p.regs, zero);
        float prev[K];
        fmag_cuda_fill<K>(prev, 0.0f);
        for (unsigned i = 0; i < ninstr; ++i) {
            uint4 w = fmag_cuda_ucode[i];
            switch (w.w & 15u) {
#define FMAG_FWD_CASE(k)                                                                           \
    case k:                                                                                        \
        fmag_cuda_fwd_step<RF, K, T, (k)&7u, ((k)&8u) != 0, VEC>(sm, w, prev);                     \
        break;
                FMAG_FWD_CASE(0)
                FMAG_FWD_CASE(1)
                FMAG_FWD_CASE(2)
                FMAG_FWD_CASE(3)
                FMAG_FWD_CASE(4)
                FMAG_FWD_CASE(5)
                FMAG_FWD_CASE(6)
                FMAG_FWD_CASE(7)
                FMAG_FWD_CASE(8)
                FMAG_FWD_CASE(9)
                FMAG_FWD_CASE(10)
                FMAG_FWD_CASE(11)
                FMAG_FWD_CASE(12)
                FMAG_FWD_CASE(13)
                FMAG_FWD_CASE(14)
#undef FMAG_FWD_CASE
            default:
                fmag_cuda_fwd_step<RF, K, T, 7u, true, VEC>(sm, w, prev);
                break;
            }
        }
        fmag_cuda_store_outputs<RF, K, T, VEC>(p, smf, e0, ev, p.nout);
    }
}

#endif /* FMAG_CUDA_CUH */
