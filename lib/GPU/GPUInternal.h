/* Internals of lib/GPU: the runner object and the per-API back ends. */
#ifndef FMAG_GPU_INTERNAL_H
#define FMAG_GPU_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include "GPUBench.h"

typedef struct fmag_gpu_vk fmag_gpu_vk;
typedef struct fmag_gpu_cuda fmag_gpu_cuda;
typedef struct fmag_gpu_bake_cache fmag_gpu_bake_cache;

struct fmag_gpu_runner {
    fmag_gpu_api api;
    char desc[512];
    char last[2048]; /* fmag_gpu_runner_last_launch */
    fmag_gpu_vk *vk;
    fmag_gpu_cuda *cuda;
    /* tiers (Tier.c) */
    fmag_gpu_bake_cache *bake; /* NULL: the back end has no baker */
    fmag_gpu_tier_mode tier_mode;
    bool nan_agnostic;
    fmag_gpu_tier last_tier;
    unsigned bin_max; /* per-lane binning up to this many distinct programs (0: off) */
};

/* One launch's work, validated by Runner.c before a back end sees it. */
typedef struct fmag_gpu_job {
    const fmag_vm_program *const *progs;
    size_t nprogs;
    const uint32_t *prog_index; /* NULL: every element runs progs[0] */
    const float *in;
    size_t in_stride;
    float *out;
    size_t out_stride;
    size_t n;
    uint32_t max_regs, max_nin, max_nout;
    unsigned evals, reps; /* reps > 0: time `reps` launches on resident data */
    double *median_ms;
    /* Uniform launches: progs[0] baked to native code (a VkPipeline; BakeCuda.c's kernel),
     * or NULL to interpret (Tier.c). */
    void *native;
} fmag_gpu_job;

static inline void fmag_gpu_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

fmag_gpu_vk *fmag_gpu_vk_create(char *desc, size_t desclen, char *err, size_t errlen);
void fmag_gpu_vk_destroy(fmag_gpu_vk *vk);
bool fmag_gpu_vk_run(fmag_gpu_vk *vk, const fmag_gpu_job *job, char *err, size_t errlen);
void fmag_gpu_vk_set_design(fmag_gpu_vk *vk, fmag_gpu_vk_design d);
void fmag_gpu_vk_set_fast(fmag_gpu_vk *vk, fmag_gpu_vk_fast_knobs k);
void fmag_gpu_vk_last_launch(fmag_gpu_vk *vk, char *buf, size_t len);
void fmag_gpu_vk_set_capture_ir(fmag_gpu_vk *vk, bool on);
size_t fmag_gpu_vk_last_ir(fmag_gpu_vk *vk, char *buf, size_t len);

fmag_gpu_cuda *fmag_gpu_cuda_create(char *desc, size_t desclen, char *err, size_t errlen);
void fmag_gpu_cuda_destroy(fmag_gpu_cuda *c);
bool fmag_gpu_cuda_run(fmag_gpu_cuda *c, const fmag_gpu_job *job, char *err, size_t errlen);
/* The name of the kernel of the last launch ("" before one). */
const char *fmag_gpu_cuda_last_kernel(const fmag_gpu_cuda *c);

/* Copies each element's outputs (its program's nout columns) from src, laid out like job->out,
 * into job->out: columns past a program's outputs keep what the caller had there, as with the
 * CPU engines. */
void fmag_gpu_copy_outputs(const fmag_gpu_job *job, const float *src);

/* Back-end services for the bakers (BakeVulkan.c, BakeCuda.c), callable from the bake
 * thread while launches run. A compute pipeline over the runner's pipeline layout from
 * SPIR-V words; whether the runner uses the software fma; a pipeline's release. */
void *fmag_gpu_vk_pipeline_from_spirv(fmag_gpu_vk *vk, const uint32_t *words, size_t nwords,
                                      char *err, size_t errlen);
void fmag_gpu_vk_pipeline_release(fmag_gpu_vk *vk, void *pipe);
bool fmag_gpu_vk_soft_fma(const fmag_gpu_vk *vk);
/* A CPU implementation (lavapipe): tiers default to OFF there (docs/GPU.md, "Tiers"). */
bool fmag_gpu_vk_is_cpu(const fmag_gpu_vk *vk);
/* A module from a CUDA binary image (cubin or PTX) and its kernel `name`; released by
 * fmag_gpu_cuda_module_release. The device's compute capability. */
void *fmag_gpu_cuda_module_load(fmag_gpu_cuda *c, const void *image, const char *name, char *err,
                                size_t errlen);
void fmag_gpu_cuda_module_release(fmag_gpu_cuda *c, void *m);
void fmag_gpu_cuda_arch(const fmag_gpu_cuda *c, int *major, int *minor);

/* The bakers (Bake.h): false when the back end cannot bake in this build. */
struct fmag_gpu_baker;
bool fmag_gpu_vk_baker(fmag_gpu_vk *vk, struct fmag_gpu_baker *out);
bool fmag_gpu_cuda_baker(fmag_gpu_cuda *c, struct fmag_gpu_baker *out);

/* Tier.c: the cache made with the runner, and the choice of code per launch: a held
 * entry (job->native set) or NULL (interpret). */
typedef struct fmag_gpu_bake_entry fmag_gpu_bake_entry;
void fmag_gpu_tier_init(fmag_gpu_runner *r);
void fmag_gpu_tier_fini(fmag_gpu_runner *r);
fmag_gpu_bake_entry *fmag_gpu_tier_pick(fmag_gpu_runner *r, fmag_gpu_job *job);
void fmag_gpu_tier_done(fmag_gpu_runner *r, fmag_gpu_bake_entry *e);

/* Bin.c: runs a per-lane job binned by program when it qualifies (*ok: its result) and
 * returns true; false: run it unbinned. */
bool fmag_gpu_bin_run(fmag_gpu_runner *r, const fmag_gpu_job *job, bool *ok, char *err,
                      size_t errlen);

/* Median of n doubles (sorts in place). */
double fmag_gpu_median(double *v, size_t n);

#endif /* FMAG_GPU_INTERNAL_H */
