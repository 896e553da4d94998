/* Experimental CUDA interpreter kernels of the benchmark (bench/gpu), measured and not
 * shipped: the runner's automatic choice never picks them (docs/PERFORMANCE.md has the rows).
 * They build on the shipped templates of gpu/fmag_cuda.cuh. */
#ifndef FMAG_CUDA_EXPERIMENTS_CUH
#define FMAG_CUDA_EXPERIMENTS_CUH

#include "fmag_cuda.cuh"

/* H: as U, with the dispatch ordered by frequency (copies and constants, selects, adds of
 * two registers first): the compare tree of the switch costs more issue slots than the
 * K-element body of a copy. */
template <int RF, int K, int T>
__device__ __forceinline__ void fmag_k_spec_hot(const fmag_cuda_args &p)
{
    extern __shared__ __align__(16) float fmag_sm[];
    float *sm = fmag_sm + threadIdx.x;
    unsigned e0 = blockIdx.x * (K * T) + threadIdx.x;
    bool zero = p.zero_init != 0;
    unsigned ninstr = p.ninstr < FMAG_CUDA_MAX_UNIFORM ? p.ninstr : FMAG_CUDA_MAX_UNIFORM;
    for (unsigned ev = 0; ev < p.evals; ++ev) {
        fmag_cuda_load_inputs<RF, K, T>(p, sm, e0, ev, p.nin, p.regs, zero);
#pragma unroll 2
        for (unsigned i = 0; i < ninstr; ++i) {
            uint4 w = fmag_cuda_ucode[i];
            unsigned kind = (w.w >> 16) & 7u;
            if (kind == 0)
                fmag_cuda_spec_step<RF, K, T, 0>(sm, w);
            else if (kind == 4)
                fmag_cuda_spec_step<RF, K, T, 4>(sm, w);
            else if (kind == 2)
                fmag_cuda_spec_step<RF, K, T, 2>(sm, w);
            else
                switch (kind) {
                case 1:
                    fmag_cuda_spec_step<RF, K, T, 1>(sm, w);
                    break;
                case 3:
                    fmag_cuda_spec_step<RF, K, T, 3>(sm, w);
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

/* P: as U, but two instructions per dispatch: one 64-way switch on both kinds runs the two
 * bodies back to back (sequential semantics: the second one's loads follow the first one's
 * stores in program order), halving the dispatch and loop overhead per instruction. */
template <int RF, int K, int T> __device__ __forceinline__ void fmag_k_pair(const fmag_cuda_args &p)
{
    extern __shared__ __align__(16) float fmag_sm[];
    float *sm = fmag_sm + threadIdx.x;
    unsigned e0 = blockIdx.x * (K * T) + threadIdx.x;
    bool zero = p.zero_init != 0;
    unsigned ninstr = p.ninstr < FMAG_CUDA_MAX_UNIFORM ? p.ninstr : FMAG_CUDA_MAX_UNIFORM;
    for (unsigned ev = 0; ev < p.evals; ++ev) {
        fmag_cuda_load_inputs<RF, K, T>(p, sm, e0, ev, p.nin, p.regs, zero);
        unsigned i = 0;
        for (; i + 1 < ninstr; i += 2) {
            uint4 w1 = fmag_cuda_ucode[i], w2 = fmag_cuda_ucode[i + 1];
            switch (((w1.w >> 16) & 7u) | (((w2.w >> 16) & 7u) << 3)) {
#define FMAG_PAIR(k)                                                                               \
    case k:                                                                                        \
        fmag_cuda_spec_step<RF, K, T, (k)&7u>(sm, w1);                                             \
        fmag_cuda_spec_step<RF, K, T, ((k) >> 3) & 7u>(sm, w2);                                    \
        break;
#define FMAG_PAIR8(h)                                                                              \
    FMAG_PAIR(h * 8 + 0)                                                                           \
    FMAG_PAIR(h * 8 + 1)                                                                           \
    FMAG_PAIR(h * 8 + 2)                                                                           \
    FMAG_PAIR(h * 8 + 3)                                                                           \
    FMAG_PAIR(h * 8 + 4) FMAG_PAIR(h * 8 + 5) FMAG_PAIR(h * 8 + 6) FMAG_PAIR(h * 8 + 7)
                FMAG_PAIR8(0)
                FMAG_PAIR8(1)
                FMAG_PAIR8(2) FMAG_PAIR8(3) FMAG_PAIR8(4) FMAG_PAIR8(5) FMAG_PAIR8(6) FMAG_PAIR8(7)
#undef FMAG_PAIR8
#undef FMAG_PAIR
            }
        }
        if (i < ninstr) {
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

/* S: as U, plus fused select records (fmag_gpu_predecode_sel): X = g > 0 ? fma(a2, b2, c2) :
 * fma(F, b1, c1) in one dispatch and one unconditional store. */
template <int RF, int K, int T, unsigned K2>
__device__ __forceinline__ void fmag_cuda_sel_step(float *sm, uint4 w1, uint4 w2)
{
    const bool BR = K2 & FMAG_CUDA_KIND_BREG, CR = K2 & FMAG_CUDA_KIND_CREG;
    unsigned ox = (w1.w & (RF - 1)) * (K * T), of = ((w1.w >> 8) & (RF - 1)) * (K * T);
    unsigned oa = ((w2.w >> 8) & (RF - 1)) * (K * T);
    unsigned ob = (w2.x & (RF - 1)) * (K * T), oc = (w2.y & (RF - 1)) * (K * T);
    unsigned og = (w2.z & (RF - 1)) * (K * T);
    float res[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
        float v1 = fmaf(sm[of + j * T], __uint_as_float(w1.x), __uint_as_float(w1.y));
        float vb = BR ? sm[ob + j * T] : __uint_as_float(w2.x);
        float vc = CR ? sm[oc + j * T] : __uint_as_float(w2.y);
        float v2 = fmaf(sm[oa + j * T], vb, vc);
        res[j] = sm[og + j * T] > 0.0f ? v2 : v1;
    }
#pragma unroll
    for (int j = 0; j < K; ++j)
        sm[ox + j * T] = res[j];
}

template <int RF, int K, int T> __device__ __forceinline__ void fmag_k_sel(const fmag_cuda_args &p)
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
            unsigned kind = (w.w >> 16) & 15u;
            if (kind >= 8u && i + 1 < ninstr) {
                uint4 w2 = fmag_cuda_ucode[++i];
                switch (kind & 3u) {
                case 0:
                    fmag_cuda_sel_step<RF, K, T, 0>(sm, w, w2);
                    break;
                case 1:
                    fmag_cuda_sel_step<RF, K, T, 1>(sm, w, w2);
                    break;
                case 2:
                    fmag_cuda_sel_step<RF, K, T, 2>(sm, w, w2);
                    break;
                default:
                    fmag_cuda_sel_step<RF, K, T, 3>(sm, w, w2);
                    break;
                }
                continue;
            }
            switch (kind & 7u) {
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

#endif /* FMAG_CUDA_EXPERIMENTS_CUH */
