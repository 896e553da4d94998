/* The host side of a GPU launch, shared by the back ends: the device images' layout, the
 * chunks of the pipelined copies, and the copies between the caller's arrays and the staging
 * memory the device reads and writes. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>
#include "GPUInternal.h"

size_t fmag_gpu_in_words(const fmag_gpu_job *job)
{
    return job->n * (job->layout == FMAG_GPU_COLUMNS ? job->max_nin : job->in_stride);
}

size_t fmag_gpu_out_words(const fmag_gpu_job *job)
{
    return job->n * (job->layout == FMAG_GPU_COLUMNS ? job->max_nout : job->out_stride);
}

void fmag_gpu_strides(const fmag_gpu_job *job, uint32_t *in_elem, uint32_t *in_col,
                      uint32_t *out_elem, uint32_t *out_col)
{
    if (job->layout == FMAG_GPU_COLUMNS) {
        *in_elem = 1, *in_col = (uint32_t)job->n;
        *out_elem = 1, *out_col = (uint32_t)job->n;
    } else {
        *in_elem = (uint32_t)job->in_stride, *in_col = 1;
        *out_elem = (uint32_t)job->out_stride, *out_col = 1;
    }
}

/* Launches of fewer elements run as one chunk; larger ones in about FMAG_GPU_CHUNKS chunks,
 * so that the host's copy of one chunk overlaps the device's work on the others while the
 * pipeline's fill and drain (one chunk each) stay short. */
#define FMAG_GPU_CHUNK_MIN ((size_t)1 << 18)
#define FMAG_GPU_CHUNKS 8u

size_t fmag_gpu_chunk_elems(const fmag_gpu_job *job, size_t align)
{
    size_t c = job->chunk;
    if (!c) c = job->n < 2 * FMAG_GPU_CHUNK_MIN ? job->n : job->n / FMAG_GPU_CHUNKS;
    c = (c + align - 1) / align * align;
    return c < job->n ? c : job->n;
}

void fmag_gpu_pack_inputs(const fmag_gpu_job *job, float *img, size_t e0, size_t e1)
{
    if (job->layout == FMAG_GPU_COLUMNS) {
        for (size_t i = 0; i < job->max_nin; ++i)
            memcpy(img + i * job->n + e0, job->in_cols[i] + e0, (e1 - e0) * sizeof *img);
    } else if (job->in) {
        memcpy(img + e0 * job->in_stride, job->in + e0 * job->in_stride,
               (e1 - e0) * job->in_stride * sizeof *img);
    }
}

void fmag_gpu_unpack_outputs(const fmag_gpu_job *job, const float *img, size_t e0, size_t e1)
{
    if (job->layout == FMAG_GPU_COLUMNS) {
        for (size_t i = 0; i < job->max_nout; ++i)
            memcpy(job->out_cols[i] + e0, img + i * job->n + e0, (e1 - e0) * sizeof *img);
        return;
    }
    size_t s = job->out_stride;
    if (!job->prog_index && job->progs[0]->nout == s) { /* dense rows: one copy */
        memcpy(job->out + e0 * s, img + e0 * s, (e1 - e0) * s * sizeof *img);
        return;
    }
    for (size_t e = e0; e < e1; ++e) {
        const fmag_vm_program *p = job->progs[job->prog_index ? job->prog_index[e] : 0];
        memcpy(job->out + e * s, img + e * s, p->nout * sizeof *img);
    }
}

bool fmag_gpu_grow(size_t *cap, size_t need)
{
    if (need <= *cap) return false;
    size_t c = *cap ? *cap : 4096;
    while (c < need)
        c += c / 2;
    *cap = c;
    return true;
}

double fmag_gpu_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
