/* The GPU runners' benchmark and test interface (not part of the embedder's API in
 * include/fmag/GPU.h): forcing a design, timing launches, and the driver's statistics of the
 * pipeline a launch used. bench/gpu and unittests/GPU include it. */
#ifndef FMAG_GPU_BENCH_H
#define FMAG_GPU_BENCH_H

#include "fmag/GPU.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The Vulkan runner's designs (docs/GPU.md). AUTO (the default) picks per launch from the
 * H200 measurements in docs/PERFORMANCE.md; the others force one of the designs AUTO picks
 * elsewhere (the runner ships no design that AUTO cannot pick):
 *  PRIVATE: gpu/fmag_run.comp with the interpreter's private array `float r[RF]` (local
 *    memory on NVIDIA); *_INTERLEAVED: per-lane programs' code stored [instruction][program];
 *  *_PREDECODED: the code pre-decoded on the host (operand kinds as bits, register indices
 *    masked; uniform: no-ops dropped), per-lane code interleaved; WORKGROUP_PREDECODED keeps
 *    the register file in workgroup shared memory [reg][invocation];
 *  FAST: gpu/fmag_fast.comp, K elements per invocation sharing each record, register file
 *    [reg][element][invocation] in shared memory, records with register offsets and a
 *    uniform branch per operand-kind combination, select idiom fused, uniform records from a
 *    uniform buffer (fmag_gpu_runner_set_vk_fast forces K, the buffer, the fusion, VEC). */
typedef enum fmag_gpu_vk_design {
    FMAG_GPU_VK_AUTO,
    FMAG_GPU_VK_PRIVATE,
    FMAG_GPU_VK_PRIVATE_INTERLEAVED,
    FMAG_GPU_VK_PRIVATE_PREDECODED,
    FMAG_GPU_VK_WORKGROUP_PREDECODED,
    FMAG_GPU_VK_FAST
} fmag_gpu_vk_design;
/* False (and nothing changes) when r is not a Vulkan runner or d is not a design above. */
bool fmag_gpu_runner_set_vk_design(fmag_gpu_runner *r, fmag_gpu_vk_design d);

/* Knobs of the FAST design; 0 or -1 leaves one to the runner's table. */
typedef struct fmag_gpu_vk_fast_knobs {
    unsigned k; /* elements per invocation: 1, 2, 4 or 8; 0: automatic */
    int ubo;    /* uniform records: 1 uniform buffer, 0 storage buffer, -1 automatic */
    int fuse;   /* select idiom fused: 1 / 0, -1 automatic */
    int vec;    /* the VEC layout at k 2 and 4 (one vector access for the k elements): 1 / 0,
                   -1 automatic */
} fmag_gpu_vk_fast_knobs;
/* False when r is not a Vulkan runner or a knob is out of range. */
bool fmag_gpu_runner_set_vk_fast(fmag_gpu_runner *r, fmag_gpu_vk_fast_knobs knobs);

/* Elements a chunk of the pipelined host copies (0, the default: the runner's choice; a
 * multiple of 1024 otherwise, rounded up): tests compare chunked and unchunked launches. */
void fmag_gpu_runner_set_chunk(fmag_gpu_runner *r, size_t elems);

/* CUDA: copy host arrays through the runner's pinned staging (true) instead of straight from
 * and to the caller's arrays where their layout allows (false, the default; the driver then
 * stages pageable memory itself). The end-to-end benchmark times both. False when r has no
 * such choice (Vulkan always stages: it has no copy from pageable memory). */
bool fmag_gpu_runner_set_host_staging(fmag_gpu_runner *r, bool staged);

/* What a runner has done since it was made: device buffers (re)allocated, pipelines or
 * kernels created, launches, chunks. Tests check that buffers are kept across calls. */
typedef struct fmag_gpu_counters {
    unsigned long buffer_allocs, pipeline_creates, launches, chunks;
    unsigned long device_bins; /* per-lane runs grouped by program on the device (Bin.c) */
} fmag_gpu_counters;
void fmag_gpu_runner_counters(const fmag_gpu_runner *r, fmag_gpu_counters *out);

/* Benchmark entry point: the same work as fmag_gpu_run_per_lane, but every element is
 * evaluated `evals` times (evaluation k > 0 adds k/16 to each input; out receives the sum of
 * the evaluations' outputs, added in order in float), and the launch is repeated `reps` times
 * on data already on the device; *median_ms is the median time of one launch (transfers
 * excluded). evals == 1 computes exactly what fmag_gpu_run_per_lane does. */
bool fmag_gpu_time_per_lane(fmag_gpu_runner *r, const fmag_vm_program *const *progs, size_t nprogs,
                            const uint32_t *prog_index, const float *in, size_t in_stride,
                            float *out, size_t out_stride, size_t n, unsigned evals, unsigned reps,
                            double *median_ms, char *err, size_t errlen);

/* What the last launch ran: the Vulkan design and the driver's statistics of its pipeline
 * (VK_KHR_pipeline_executable_properties: registers, shared memory, ... as the driver names
 * them, "name=value" separated by "; "), or the CUDA kernel's name. Empty before a launch. */
const char *fmag_gpu_runner_last_launch(const fmag_gpu_runner *r);

/* Vulkan: pipelines created from now on keep the driver's internal representations
 * (VK_KHR_pipeline_executable_properties), which fmag_gpu_runner_last_ir returns as text:
 * the length of the whole text, of which buf receives at most len - 1 bytes; 0 when the
 * driver offers none (or r is not a Vulkan runner). */
void fmag_gpu_runner_set_capture_ir(fmag_gpu_runner *r, bool on);
size_t fmag_gpu_runner_last_ir(const fmag_gpu_runner *r, char *buf, size_t len);

/* The tier-up cache's limits (docs/GPU.md, "Tiers"): entries and bytes (copies of the
 * programs and the native code) before least-recently-used eviction; a bake that takes
 * longer than budget_ms, or a program of more than max_instrs instructions, fails (the
 * program stays interpreted). */
typedef struct fmag_gpu_bake_limits {
    unsigned max_entries;
    size_t max_bytes;
    double budget_ms;
    uint32_t max_instrs;
} fmag_gpu_bake_limits;
/* False when r is NULL or a limit is 0. */
bool fmag_gpu_runner_set_bake_limits(fmag_gpu_runner *r, const fmag_gpu_bake_limits *lim);
/* Waits until no bake is queued or in progress. */
void fmag_gpu_runner_bake_wait(fmag_gpu_runner *r);
typedef struct fmag_gpu_bake_stat {
    unsigned entries, ready, pending; /* in the cache now */
    size_t bytes;
    unsigned long long baked, failed, evicted; /* since the runner was made */
    double last_bake_ms;                       /* the last bake: compile, then pipeline / module */
    double last_compile_ms;                    /* its compile (shaderc / NVRTC) */
} fmag_gpu_bake_stat;
void fmag_gpu_runner_bake_stats(fmag_gpu_runner *r, fmag_gpu_bake_stat *st);
/* Per-lane binning (docs/GPU.md, "Binning"): a per-lane run of at most `max_programs`
 * distinct programs is grouped by program on the device and each group runs uniformly;
 * 0 turns binning off. */
bool fmag_gpu_runner_set_bin_threshold(fmag_gpu_runner *r, unsigned max_programs);

#ifdef __cplusplus
}
#endif
#endif /* FMAG_GPU_BENCH_H */
