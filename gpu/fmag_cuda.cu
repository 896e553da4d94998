// The CUDA kernels the library's runner embeds (nvcc -fatbin, sm_90 SASS + compute_90 PTX):
// one per row of fmag_cuda_kernels.def (the families are described there), plus the NaN
// census every launch runs first and the helpers the .def lists (per-lane binning). Which one runs
// is decided in lib/GPU/CudaRunner.c from the measurements in docs/PERFORMANCE.md.
#define FMAG_CUDA_DEFINE_CONSTANT
#include "fmag_cuda.cuh"

#define FMAG_T 128

#define FMAG_BODY_fwd(RF, K) fmag_k_fwd<RF, K, FMAG_T, true>(p)
#define FMAG_BODY_selb(RF, K) fmag_k_selb<RF, K, FMAG_T>(p)
#define FMAG_BODY_specb(RF, K) fmag_k_selb<RF, K, FMAG_T, FMAG_CUDA_SELB_NO_FUSION>(p)
#define FMAG_BODY_spec(RF, K) fmag_k_spec<RF, K, FMAG_T>(p)
#define FMAG_BODY_shared(RF, K) fmag_k_shared<RF, K, FMAG_T, false>(p)
#define FMAG_BODY_lane(RF, K) fmag_k_shared<RF, K, FMAG_T, true>(p)
#define FMAG_BODY_laneb(RF, K) fmag_k_shared<RF, K, FMAG_T, true, true>(p)
#define FMAG_BODY_lanebu(RF, K) fmag_k_shared<RF, K, FMAG_T, true, true, true>(p)
#define FMAG_BODY_local(RF, K) fmag_k_local<RF, false>(p)
#define FMAG_BODY_local_lane(RF, K) fmag_k_local<RF, true>(p)

#define FMAG_CUDA_KERNEL(FAMILY, RF, K)                                                            \
    extern "C" __global__ void __launch_bounds__(FMAG_T)                                           \
        fmag_##FAMILY##_r##RF##_k##K(fmag_cuda_args p)                                             \
    {                                                                                              \
        FMAG_BODY_##FAMILY(RF, K);                                                                 \
    }
#include "fmag_cuda_kernels.def"
#undef FMAG_CUDA_KERNEL

// The NaN census of a launch's inputs (fmag_cuda.cuh): thread e looks at element e's nin
// inputs; a hit (rare) is one atomic.
extern "C" __global__ void __launch_bounds__(FMAG_T)
    fmag_nan_scan(const float *in, unsigned n, unsigned nin, unsigned in_stride, unsigned in_col,
                  unsigned *census)
{
    unsigned e = blockIdx.x * FMAG_T + threadIdx.x;
    if (e >= n) return;
    for (unsigned i = 0; i < nin; ++i) {
        unsigned b = __float_as_uint(in[(size_t)e * in_stride + (size_t)i * in_col]);
        if ((b & ~0x7Fu) == 0x7FFFFF80u) atomicOr(&census[(b & 0x7Fu) >> 5], 1u << (b & 31u));
    }
}

// Per-lane binning (lib/GPU/Bin.c): a counting sort of a per-lane launch's elements by program.
// counts holds nprogs counts, then nprogs cursors. The host checked every program index; the
// clamp keeps a bad one inside the tables anyway. Elements of a group land in the order of the
// atomics: each computes what it computes unbinned, so the results are the same bits.
extern "C" __global__ void __launch_bounds__(FMAG_T)
    fmag_bin_count(const unsigned *prog_index, unsigned n, unsigned nprogs, unsigned *counts)
{
    unsigned e = blockIdx.x * FMAG_T + threadIdx.x;
    if (e < n) atomicAdd(&counts[min(prog_index[e], nprogs - 1u)], 1u);
}

// Group k starts at cursor k, every start a multiple of align elements (so that each group's
// rows begin at an aligned offset of the binned images). One thread: nprogs is small.
extern "C" __global__ void fmag_bin_prefix(unsigned *counts, unsigned nprogs, unsigned align)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    unsigned start = 0;
    for (unsigned k = 0; k < nprogs; ++k) {
        counts[nprogs + k] = start;
        start += (counts[k] + align - 1u) / align * align;
    }
}

// Element e takes the next slot q of its group: perm[q] = e, and its row moves from src to dst.
extern "C" __global__ void __launch_bounds__(FMAG_T)
    fmag_bin_scatter(const unsigned *prog_index, unsigned n, unsigned nprogs, unsigned *counts,
                     unsigned *perm, const float *src, float *dst, unsigned stride)
{
    unsigned e = blockIdx.x * FMAG_T + threadIdx.x;
    if (e >= n) return;
    unsigned q = atomicAdd(&counts[nprogs + min(prog_index[e], nprogs - 1u)], 1u);
    perm[q] = e;
    for (unsigned i = 0; i < stride; ++i)
        dst[(size_t)q * stride + i] = src[(size_t)e * stride + i];
}

// Slot q's row moves back to its element perm[q] (padding slots hold 0xFFFFFFFF).
extern "C" __global__ void __launch_bounds__(FMAG_T)
    fmag_bin_back(const unsigned *perm, unsigned slots, const float *src, float *dst,
                  unsigned stride)
{
    unsigned q = blockIdx.x * FMAG_T + threadIdx.x;
    if (q >= slots) return;
    unsigned e = perm[q];
    if (e == 0xFFFFFFFFu) return;
    for (unsigned i = 0; i < stride; ++i)
        dst[(size_t)e * stride + i] = src[(size_t)q * stride + i];
}
