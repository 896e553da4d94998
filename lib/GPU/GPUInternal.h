/* Internals of lib/GPU: the runner object, one launch's work, and the table of functions each
 * back end (Vulkan, CUDA) fills in. */
#ifndef FMAG_GPU_INTERNAL_H
#define FMAG_GPU_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include "GPUBench.h"

/* Where a launch's elements live. ROWS: host arrays [n][stride]; COLUMNS: host arrays, one per
 * input / output (structure of arrays); DEVICE: the caller's device buffers [n][stride]. */
typedef enum fmag_gpu_layout { FMAG_GPU_ROWS, FMAG_GPU_COLUMNS, FMAG_GPU_DEVICE } fmag_gpu_layout;

/* One launch's work, validated by Runner.c before a back end sees it. */
typedef struct fmag_gpu_job {
    const fmag_vm_program *const *progs;
    size_t nprogs;
    const uint32_t *prog_index; /* NULL: every element runs progs[0] */
    fmag_gpu_layout layout;
    const float *in; /* ROWS */
    size_t in_stride;
    float *out;
    size_t out_stride;
    const float *const *in_cols; /* COLUMNS: max_nin / max_nout arrays of n floats */
    float *const *out_cols;
    fmag_gpu_buffer dev_in, dev_out; /* DEVICE (strides as ROWS) */
    size_t n;
    size_t chunk; /* elements a chunk of the pipelined copy (0: the runner's choice) */
    uint32_t max_regs, max_nin, max_nout;
    unsigned evals, reps; /* reps > 0: time `reps` launches on resident data */
    double *median_ms;
    /* Uniform launches: progs[0] baked to native code (a VkPipeline; BakeCuda.c's kernel),
     * or NULL to interpret (Tier.c). */
    void *native;
} fmag_gpu_job;

struct fmag_gpu_baker; /* Bake.h */

/* A back end: created with the runner, one object per runner (used by one thread at a time).
 * Bench and test hooks are NULL where a back end has none. */
typedef struct fmag_gpu_backend {
    const char *name;
    uint32_t max_regs;
    void *(*create)(char *desc, size_t desclen, char *err, size_t errlen);
    void (*destroy)(void *be);
    bool (*run)(void *be, const fmag_gpu_job *job, char *err, size_t errlen);
    /* what the last launch ran (design, statistics, or the kernel's name) */
    void (*last_launch)(void *be, char *buf, size_t len);
    bool (*native)(void *be, fmag_gpu_native *out);
    void (*counters)(void *be, fmag_gpu_counters *out);
    void (*set_staged)(void *be, bool staged);
    bool (*set_design)(void *be, fmag_gpu_vk_design d);
    bool (*set_fast)(void *be, fmag_gpu_vk_fast_knobs k);
    void (*set_capture_ir)(void *be, bool on);
    size_t (*last_ir)(void *be, char *buf, size_t len);
    /* the back end's compiler for the tiers (Bake.h); false: none in this build */
    bool (*baker)(void *be, struct fmag_gpu_baker *out);
    /* Per-lane binning on the device (Bin.c; NULL: per-lane jobs run unbinned). bin_count uploads a
     * per-lane ROWS job's program indices and inputs and counts each program's elements
     * (counts: nprogs entries); bin_scatter groups them by program into binned images of
     * `slots` rows, group k from the row where fmag_gpu_bin_starts puts it (every start a
     * multiple of FMAG_GPU_BIN_ALIGN), and names the binned input and output images for the
     * groups' uniform launches (FMAG_GPU_DEVICE); bin_gather moves each binned output row
     * back to its element and copies the outputs into the job's arrays. */
    bool (*bin_count)(void *be, const fmag_gpu_job *job, uint32_t *counts, char *err,
                      size_t errlen);
    bool (*bin_scatter)(void *be, const fmag_gpu_job *job, size_t slots, fmag_gpu_buffer *in,
                        fmag_gpu_buffer *out, char *err, size_t errlen);
    bool (*bin_gather)(void *be, const fmag_gpu_job *job, size_t slots, char *err, size_t errlen);
} fmag_gpu_backend;

extern const fmag_gpu_backend fmag_gpu_vk_backend, fmag_gpu_cuda_backend;

struct fmag_gpu_runner {
    const fmag_gpu_backend *be;
    void *impl;
    size_t chunk; /* fmag_gpu_runner_set_chunk */
    char desc[512];
    char last[2048]; /* fmag_gpu_runner_last_launch */
    /* tiers (Tier.c) and binning (Bin.c) */
    struct fmag_gpu_bake_cache *bake; /* NULL: the back end has no baker */
    fmag_gpu_tier_mode tier_mode;
    fmag_gpu_tier_mode tier_default; /* what FMAG_GPU_TIER_DEFAULT restores */
    bool nan_agnostic;
    fmag_gpu_tier last_tier;
    unsigned bin_max; /* per-lane binning up to this many distinct programs (0: off) */
};

static inline void fmag_gpu_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* --- Staging.c: the host side of a launch, shared by the back ends. A launch's input and
 * output images on the device have the layout of the job's host arrays: ROWS [n][stride],
 * COLUMNS one column of n floats after another. */

/* Floats of the input / output image. */
size_t fmag_gpu_in_words(const fmag_gpu_job *job);
size_t fmag_gpu_out_words(const fmag_gpu_job *job);
/* Where input i of element e is in the input image: e * *elem + i * *col (likewise out). */
void fmag_gpu_strides(const fmag_gpu_job *job, uint32_t *in_elem, uint32_t *in_col,
                      uint32_t *out_elem, uint32_t *out_col);
/* The elements a chunk of the pipelined copies, a multiple of `align` (every kernel's
 * elements-per-group divides it, so a chunk's groups are those of the whole launch): n for
 * short launches, which one chunk serves best. */
size_t fmag_gpu_chunk_elems(const fmag_gpu_job *job, size_t align);
/* Copies elements [e0, e1) of the job's inputs into the input image img. */
void fmag_gpu_pack_inputs(const fmag_gpu_job *job, float *img, size_t e0, size_t e1);
/* Copies elements [e0, e1)'s outputs from the output image img into the job's arrays: each
 * element its program's nout values; columns past them keep what the caller had there. */
void fmag_gpu_unpack_outputs(const fmag_gpu_job *job, const float *img, size_t e0, size_t e1);
/* Capacity management: grows *cap to at least need (rounded up, so sizes that creep up a
 * little per call do not reallocate each time); true when the buffer must be reallocated. */
bool fmag_gpu_grow(size_t *cap, size_t need);

/* Median of n doubles (sorts in place). */
double fmag_gpu_median(double *v, size_t n);
/* CLOCK_MONOTONIC in milliseconds. */
double fmag_gpu_now_ms(void);

/* --- Tiers: back-end services for the bakers (BakeVulkan.c, BakeCuda.c), callable from the
 * bake thread while launches run. Vulkan: a compute pipeline over the runner's pipeline
 * layout from SPIR-V words, its release; whether the runner uses the software fma; whether
 * the device is a CPU (lavapipe: tiers default to OFF, docs/GPU.md "Tiers"). */
typedef struct fmag_gpu_vk fmag_gpu_vk;
typedef struct fmag_gpu_cuda fmag_gpu_cuda;
void *fmag_gpu_vk_pipeline_from_spirv(fmag_gpu_vk *vk, const uint32_t *words, size_t nwords,
                                      char *err, size_t errlen);
void fmag_gpu_vk_pipeline_release(fmag_gpu_vk *vk, void *pipe);
bool fmag_gpu_vk_soft_fma(const fmag_gpu_vk *vk);
bool fmag_gpu_vk_is_cpu(const fmag_gpu_vk *vk);
/* CUDA: a module from a binary image (a cubin) and its kernel `name`, its release; the
 * device's compute capability. */
void *fmag_gpu_cuda_module_load(fmag_gpu_cuda *c, const void *image, const char *name, char *err,
                                size_t errlen);
void fmag_gpu_cuda_module_release(fmag_gpu_cuda *c, void *m);
void fmag_gpu_cuda_arch(const fmag_gpu_cuda *c, int *major, int *minor);
/* The bakers over those services. */
bool fmag_gpu_vk_baker(fmag_gpu_vk *vk, struct fmag_gpu_baker *out);
bool fmag_gpu_cuda_baker(fmag_gpu_cuda *c, struct fmag_gpu_baker *out);

/* Tier.c: the cache made with the runner, and the code of a launch: a held entry (job->native
 * set) or NULL (interpret). */
typedef struct fmag_gpu_bake_entry fmag_gpu_bake_entry;
void fmag_gpu_tier_init(fmag_gpu_runner *r);
void fmag_gpu_tier_fini(fmag_gpu_runner *r);
fmag_gpu_bake_entry *fmag_gpu_tier_pick(fmag_gpu_runner *r, fmag_gpu_job *job);
void fmag_gpu_tier_done(fmag_gpu_runner *r, fmag_gpu_bake_entry *e);

/* Bin.c: runs a per-lane job binned by program when it qualifies (*ok: its result) and
 * returns true; false: run it unbinned. Groups start at multiples of FMAG_GPU_BIN_ALIGN rows
 * (a binned image's group then begins at a buffer offset every device accepts: Vulkan's
 * minStorageBufferOffsetAlignment is at most 256 bytes); fmag_gpu_bin_starts gives the start
 * of each group from the counts (start: nprogs + 1 entries, the last the slots in all), as
 * gpu/fmag_bin.comp's prefix pass does. */
#define FMAG_GPU_BIN_ALIGN 256u
void fmag_gpu_bin_starts(const uint32_t *counts, size_t nprogs, size_t *start);
bool fmag_gpu_bin_run(fmag_gpu_runner *r, const fmag_gpu_job *job, bool *ok, char *err,
                      size_t errlen);

#endif /* FMAG_GPU_INTERNAL_H */
