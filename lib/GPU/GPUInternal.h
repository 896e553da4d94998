/* Internals of lib/GPU: the runner object and the per-API back ends. */
#ifndef FMAG_GPU_INTERNAL_H
#define FMAG_GPU_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include "GPUBench.h"

typedef struct fmag_gpu_vk fmag_gpu_vk;
typedef struct fmag_gpu_cuda fmag_gpu_cuda;

struct fmag_gpu_runner {
    fmag_gpu_api api;
    char desc[512];
    char last[2048]; /* fmag_gpu_runner_last_launch */
    fmag_gpu_vk *vk;
    fmag_gpu_cuda *cuda;
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

/* Median of n doubles (sorts in place). */
double fmag_gpu_median(double *v, size_t n);

#endif /* FMAG_GPU_INTERNAL_H */
