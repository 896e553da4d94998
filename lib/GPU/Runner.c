/* The GPU runner: argument validation and dispatch to the Vulkan or CUDA back end. */
#include <stdlib.h>
#include <string.h>
#include "Bake.h"
#include "GPUInternal.h"

fmag_gpu_runner *fmag_gpu_runner_create(fmag_gpu_api api, char *err, size_t errlen)
{
    fmag_gpu_runner *r = calloc(1, sizeof *r);
    if (!r) {
        fmag_gpu_err(err, errlen, "out of memory");
        return NULL;
    }
    r->api = api;
    r->bin_max = FMAG_GPU_BIN_PROGRAMS;
    if (api == FMAG_GPU_VULKAN)
        r->vk = fmag_gpu_vk_create(r->desc, sizeof r->desc, err, errlen);
    else if (api == FMAG_GPU_CUDA)
        r->cuda = fmag_gpu_cuda_create(r->desc, sizeof r->desc, err, errlen);
    else
        fmag_gpu_err(err, errlen, "unknown GPU API");
    if (!r->vk && !r->cuda) {
        free(r);
        return NULL;
    }
    fmag_gpu_tier_init(r);
    return r;
}

void fmag_gpu_runner_destroy(fmag_gpu_runner *r)
{
    if (!r) return;
    fmag_gpu_tier_fini(r); /* its pipelines and modules belong to the back end */
    if (r->vk) fmag_gpu_vk_destroy(r->vk);
    if (r->cuda) fmag_gpu_cuda_destroy(r->cuda);
    free(r);
}

const char *fmag_gpu_runner_describe(const fmag_gpu_runner *r)
{
    return r ? r->desc : "";
}

bool fmag_gpu_runner_set_vk_design(fmag_gpu_runner *r, fmag_gpu_vk_design d)
{
    if (!r || !r->vk || (unsigned)d > (unsigned)FMAG_GPU_VK_FAST_O0) return false;
    fmag_gpu_vk_set_design(r->vk, d);
    return true;
}

bool fmag_gpu_runner_set_vk_fast(fmag_gpu_runner *r, fmag_gpu_vk_fast_knobs k)
{
    if (!r || !r->vk || (k.k != 0 && k.k != 1 && k.k != 2 && k.k != 4 && k.k != 8) || k.ubo < -1 ||
        k.ubo > 1 || k.fuse < -1 || k.fuse > 1 || k.bcast < -1 || k.bcast > 1 ||
        (k.wg != 0 && k.wg != 32 && k.wg != 64 && k.wg != 128) || k.vec < -1 || k.vec > 1 ||
        k.spec < -1 || k.spec > 1)
        return false;
    fmag_gpu_vk_set_fast(r->vk, k);
    return true;
}

const char *fmag_gpu_runner_last_launch(const fmag_gpu_runner *r)
{
    if (!r) return "";
    fmag_gpu_runner *m = (fmag_gpu_runner *)r; /* the text is a cache filled on demand */
    if (r->vk)
        fmag_gpu_vk_last_launch(r->vk, m->last, sizeof m->last);
    else
        snprintf(m->last, sizeof m->last, "%s", fmag_gpu_cuda_last_kernel(r->cuda));
    return r->last;
}

void fmag_gpu_runner_set_capture_ir(fmag_gpu_runner *r, bool on)
{
    if (r && r->vk) fmag_gpu_vk_set_capture_ir(r->vk, on);
}

size_t fmag_gpu_runner_last_ir(const fmag_gpu_runner *r, char *buf, size_t len)
{
    if (len) buf[0] = 0;
    return r && r->vk ? fmag_gpu_vk_last_ir(r->vk, buf, len) : 0;
}

void fmag_gpu_copy_outputs(const fmag_gpu_job *job, const float *src)
{
    for (size_t e = 0; e < job->n; ++e) {
        const fmag_vm_program *p = job->progs[job->prog_index ? job->prog_index[e] : 0];
        memcpy(job->out + e * job->out_stride, src + e * job->out_stride, p->nout * sizeof *src);
    }
}

double fmag_gpu_median(double *v, size_t n)
{
    for (size_t i = 1; i < n; ++i)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; --j) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n ? v[n / 2] : 0.0;
}

static bool run_job(fmag_gpu_runner *r, const fmag_vm_program *const *progs, size_t nprogs,
                    const uint32_t *prog_index, const float *in, size_t in_stride, float *out,
                    size_t out_stride, size_t n, unsigned evals, unsigned reps, double *median_ms,
                    char *err, size_t errlen)
{
    if (!r) {
        fmag_gpu_err(err, errlen, "no GPU runner");
        return false;
    }
    /* the checks every per-lane engine makes (lib/VM/LaneArgs.c); programs are not
     * validated here (the API's contract: the runners mask every index instead) */
    if (!fmag_vm_check_lane_args(progs, nprogs, prog_index, in_stride, out_stride, n, false, NULL,
                                 err, errlen))
        return false;
    /* 2^31 elements at most: the kernels' 32-bit element and dispatch arithmetic then has
     * room for a last partial group */
    if (nprogs > UINT32_MAX || n > (size_t)INT32_MAX || in_stride > UINT32_MAX ||
        out_stride > UINT32_MAX || evals == 0) {
        fmag_gpu_err(err, errlen, "launch too large for the GPU runner (at most 2^31 elements)");
        return false;
    }
    fmag_gpu_job job;
    memset(&job, 0, sizeof job);
    uint32_t maxregs = r->api == FMAG_GPU_VULKAN ? FMAG_GPU_VK_MAX_REGS : FMAG_GPU_CUDA_MAX_REGS;
    for (size_t k = 0; k < nprogs; ++k) {
        const fmag_vm_program *p = progs[k];
        if (p->regs > maxregs) {
            fmag_gpu_err(err, errlen,
                         "program '%s' needs %u registers; the GPU runner supports at most %u",
                         p->name ? p->name : "", (unsigned)p->regs, (unsigned)maxregs);
            return false;
        }
        if (p->regs > job.max_regs) job.max_regs = p->regs;
        if (p->nin > job.max_nin) job.max_nin = p->nin;
        if (p->nout > job.max_nout) job.max_nout = p->nout;
    }
    if (n == 0) return true;
    if (!in && job.max_nin) {
        fmag_gpu_err(err, errlen, "no input buffer");
        return false;
    }
    job.progs = progs, job.nprogs = nprogs, job.prog_index = prog_index;
    job.in = in, job.in_stride = in_stride, job.out = out, job.out_stride = out_stride, job.n = n;
    job.evals = evals, job.reps = reps, job.median_ms = median_ms;
    bool ok;
    if (fmag_gpu_bin_run(r, &job, &ok, err, errlen)) return ok;
    fmag_gpu_bake_entry *baked = fmag_gpu_tier_pick(r, &job);
    ok = r->vk ? fmag_gpu_vk_run(r->vk, &job, err, errlen)
               : fmag_gpu_cuda_run(r->cuda, &job, err, errlen);
    fmag_gpu_tier_done(r, baked);
    return ok;
}

bool fmag_gpu_run(fmag_gpu_runner *r, const fmag_vm_program *prog, const float *in,
                  size_t in_stride, float *out, size_t out_stride, size_t n, char *err,
                  size_t errlen)
{
    return run_job(r, &prog, 1, NULL, in, in_stride, out, out_stride, n, 1, 0, NULL, err, errlen);
}

bool fmag_gpu_run_per_lane(fmag_gpu_runner *r, const fmag_vm_program *const *progs, size_t nprogs,
                           const uint32_t *prog_index, const float *in, size_t in_stride,
                           float *out, size_t out_stride, size_t n, char *err, size_t errlen)
{
    return run_job(r, progs, nprogs, prog_index, in, in_stride, out, out_stride, n, 1, 0, NULL, err,
                   errlen);
}

bool fmag_gpu_time_per_lane(fmag_gpu_runner *r, const fmag_vm_program *const *progs, size_t nprogs,
                            const uint32_t *prog_index, const float *in, size_t in_stride,
                            float *out, size_t out_stride, size_t n, unsigned evals, unsigned reps,
                            double *median_ms, char *err, size_t errlen)
{
    if (!median_ms || reps == 0) {
        fmag_gpu_err(err, errlen, "timing needs reps > 0 and a result pointer");
        return false;
    }
    return run_job(r, progs, nprogs, prog_index, in, in_stride, out, out_stride, n, evals, reps,
                   median_ms, err, errlen);
}
