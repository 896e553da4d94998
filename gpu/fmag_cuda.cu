// The CUDA kernels the library's runner embeds (nvcc -fatbin, sm_90 SASS + compute_90 PTX).
// Names: fmag_fwd_r<RF>_k<K> (uniform, pre-decoded with forwarding and dead stores removed,
// the VEC register-file layout),
// fmag_selb_r<RF>_k<K> (uniform, rf 8-32: pre-decoded stream in constant memory, register
// operands as byte offsets, switch on operand kinds, FMAG's select idiom fused into one
// dispatch), fmag_specb_r<RF>_k<K> (the same without fusion), fmag_spec_r<RF>_k<K> (uniform,
// rf 64-256: register indices, no fusion), fmag_shared_r<RF>_k<K> / fmag_lane_r<RF>_k<K> (raw
// stream, uniform / per lane, shared-memory register file), fmag_laneb_r<RF>_k<K> (per lane,
// rf <= 32: the stream with byte offsets and kind bits; fmag_lanebu_r<RF>_k<K> when every
// program has the same operand kinds at each instruction), fmag_local_r<RF> /
// fmag_local_lane_r<RF> (large register files).
// Which one runs is decided in lib/GPU/CudaRunner.c from the measurements in
// docs/PERFORMANCE.md.
#define FMAG_CUDA_DEFINE_CONSTANT
#include "fmag_cuda.cuh"

#define FMAG_T 128

#define SPEC(RF, K)                                                                                \
    extern "C" __global__ void __launch_bounds__(FMAG_T) fmag_spec_r##RF##_k##K(fmag_cuda_args p)  \
    {                                                                                              \
        fmag_k_spec<RF, K, FMAG_T>(p);                                                             \
    }
#define FWD(RF, K)                                                                                 \
    extern "C" __global__ void __launch_bounds__(FMAG_T) fmag_fwd_r##RF##_k##K(fmag_cuda_args p)   \
    {                                                                                              \
        fmag_k_fwd<RF, K, FMAG_T, true>(p);                                                        \
    }
#define SELB(RF, K)                                                                                \
    extern "C" __global__ void __launch_bounds__(FMAG_T) fmag_selb_r##RF##_k##K(fmag_cuda_args p)  \
    {                                                                                              \
        fmag_k_selb<RF, K, FMAG_T>(p);                                                             \
    }
#define SPECB(RF, K)                                                                               \
    extern "C" __global__ void __launch_bounds__(FMAG_T) fmag_specb_r##RF##_k##K(fmag_cuda_args p) \
    {                                                                                              \
        fmag_k_selb<RF, K, FMAG_T, FMAG_CUDA_SELB_NO_FUSION>(p);                                   \
    }
#define SHARED(RF, K)                                                                              \
    extern "C" __global__ void __launch_bounds__(FMAG_T)                                           \
        fmag_shared_r##RF##_k##K(fmag_cuda_args p)                                                 \
    {                                                                                              \
        fmag_k_shared<RF, K, FMAG_T, false>(p);                                                    \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(FMAG_T) fmag_lane_r##RF##_k##K(fmag_cuda_args p)  \
    {                                                                                              \
        fmag_k_shared<RF, K, FMAG_T, true>(p);                                                     \
    }
#define LANEB(RF, K)                                                                               \
    extern "C" __global__ void __launch_bounds__(FMAG_T) fmag_laneb_r##RF##_k##K(fmag_cuda_args p) \
    {                                                                                              \
        fmag_k_shared<RF, K, FMAG_T, true, true>(p);                                               \
    }
#define LANEBU(RF, K)                                                                              \
    extern "C" __global__ void __launch_bounds__(FMAG_T)                                           \
        fmag_lanebu_r##RF##_k##K(fmag_cuda_args p)                                                 \
    {                                                                                              \
        fmag_k_shared<RF, K, FMAG_T, true, true, true>(p);                                         \
    }
#define LOCAL(RF)                                                                                  \
    extern "C" __global__ void __launch_bounds__(FMAG_T) fmag_local_r##RF(fmag_cuda_args p)        \
    {                                                                                              \
        fmag_k_local<RF, false>(p);                                                                \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(FMAG_T) fmag_local_lane_r##RF(fmag_cuda_args p)   \
    {                                                                                              \
        fmag_k_local<RF, true>(p);                                                                 \
    }

FWD(2, 8)
FWD(4, 8)
SELB(8, 4)
SELB(16, 4)
SELB(32, 4)
SPECB(8, 4)
SPECB(16, 4)
SPECB(32, 4)
SPEC(64, 2)
SPEC(128, 1)
SPEC(256, 1)
SHARED(2, 8)
SHARED(4, 1)
SHARED(4, 4)
SHARED(4, 8)
SHARED(8, 1)
SHARED(8, 4)
SHARED(16, 1)
SHARED(16, 4)
SHARED(32, 1)
SHARED(32, 4)
SHARED(64, 1)
SHARED(64, 2)
SHARED(128, 1)
SHARED(256, 1)
LANEB(2, 8)
LANEB(4, 1)
LANEB(4, 4)
LANEB(4, 8)
LANEB(8, 1)
LANEB(8, 4)
LANEB(16, 1)
LANEB(16, 4)
LANEB(32, 1)
LANEB(32, 4)
LANEBU(2, 8)
LANEBU(4, 1)
LANEBU(4, 4)
LANEBU(4, 8)
LANEBU(8, 1)
LANEBU(8, 4)
LANEBU(16, 1)
LANEBU(16, 4)
LANEBU(32, 1)
LANEBU(32, 4)
LOCAL(1024)
LOCAL(4096)
