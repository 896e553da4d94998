/* The GPU runner: argument validation, then the back end's function table (Vulkan or CUDA). */
#include <stdlib.h>
#include <string.h>
#include "Bake.h"
#include "GPUInternal.h"

static const fmag_gpu_backend *backend_of(fmag_gpu_api api)
{
    switch (api) {
    case FMAG_GPU_VULKAN:
        return &fmag_gpu_vk_backend;
    case FMAG_GPU_CUDA:
        return &fmag_gpu_cuda_backend;
    }
    return NULL;
}

fmag_gpu_runner *fmag_gpu_runner_create(fmag_gpu_api api, char *err, size_t errlen)
{
    const fmag_gpu_backend *be = backend_of(api);
    if (!be) {
        fmag_gpu_err(err, errlen, "unknown GPU API");
        return NULL;
    }
    fmag_gpu_runner *r = calloc(1, sizeof *r);
    if (!r) {
        fmag_gpu_err(err, errlen, "out of memory");
        return NULL;
    }
    r->be = be;
    r->bin_max = FMAG_GPU_BIN_PROGRAMS;
    r->impl = be->create(r->desc, sizeof r->desc, err, errlen);
    if (!r->impl) {
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
    r->be->destroy(r->impl);
    free(r);
}

const char *fmag_gpu_runner_describe(const fmag_gpu_runner *r)
{
    return r ? r->desc : "";
}

bool fmag_gpu_runner_native(const fmag_gpu_runner *r, fmag_gpu_native *out)
{
    if (!r || !out) return false;
    memset(out, 0, sizeof *out);
    return r->be->native(r->impl, out);
}

bool fmag_gpu_runner_set_vk_design(fmag_gpu_runner *r, fmag_gpu_vk_design d)
{
    return r && r->be->set_design && r->be->set_design(r->impl, d);
}

bool fmag_gpu_runner_set_vk_fast(fmag_gpu_runner *r, fmag_gpu_vk_fast_knobs k)
{
    return r && r->be->set_fast && r->be->set_fast(r->impl, k);
}

void fmag_gpu_runner_set_chunk(fmag_gpu_runner *r, size_t elems)
{
    if (r) r->chunk = elems ? (elems + 1023) / 1024 * 1024 : 0;
}

bool fmag_gpu_runner_set_host_staging(fmag_gpu_runner *r, bool staged)
{
    if (!r || !r->be->set_staged) return false;
    r->be->set_staged(r->impl, staged);
    return true;
}

void fmag_gpu_runner_counters(const fmag_gpu_runner *r, fmag_gpu_counters *out)
{
    memset(out, 0, sizeof *out);
    if (r) r->be->counters(r->impl, out);
}

const char *fmag_gpu_runner_last_launch(const fmag_gpu_runner *r)
{
    if (!r) return "";
    fmag_gpu_runner *m = (fmag_gpu_runner *)r; /* the text is a cache filled on demand */
    r->be->last_launch(r->impl, m->last, sizeof m->last);
    return r->last;
}

void fmag_gpu_runner_set_capture_ir(fmag_gpu_runner *r, bool on)
{
    if (r && r->be->set_capture_ir) r->be->set_capture_ir(r->impl, on);
}

size_t fmag_gpu_runner_last_ir(const fmag_gpu_runner *r, char *buf, size_t len)
{
    if (len) buf[0] = 0;
    return r && r->be->last_ir ? r->be->last_ir(r->impl, buf, len) : 0;
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

/* Checks a launch and fills job's program limits; false with err set when it cannot run. */
static bool check_job(fmag_gpu_runner *r, fmag_gpu_job *job, char *err, size_t errlen)
{
    if (!r) {
        fmag_gpu_err(err, errlen, "no GPU runner");
        return false;
    }
    /* the checks every per-lane engine makes (lib/VM/LaneArgs.c); programs are not
     * validated here (the API's contract: the runners mask every index instead). Columns
     * have no strides: the programs' widths stand in. */
    bool rows = job->layout != FMAG_GPU_COLUMNS;
    size_t in_stride = rows ? job->in_stride : job->progs[0] ? job->progs[0]->nin : 0;
    size_t out_stride = rows ? job->out_stride : job->progs[0] ? job->progs[0]->nout : 0;
    /* Without an index every element runs progs[0]: nothing per element to check, and the
     * check's loop over n elements would cost milliseconds at the sizes the runners are for. */
    size_t n_check = job->prog_index ? job->n : 0;
    if (!fmag_vm_check_lane_args(job->progs, job->nprogs, job->prog_index, in_stride, out_stride,
                                 n_check, false, NULL, err, errlen))
        return false;
    /* 2^31 elements at most: the kernels' 32-bit element and dispatch arithmetic then has
     * room for a last partial group */
    if (job->nprogs > UINT32_MAX || job->n > (size_t)INT32_MAX || in_stride > UINT32_MAX ||
        out_stride > UINT32_MAX || job->evals == 0 ||
        (!rows &&
         ((size_t)in_stride * job->n > UINT32_MAX || (size_t)out_stride * job->n > UINT32_MAX))) {
        fmag_gpu_err(err, errlen, "launch too large for the GPU runner (at most 2^31 elements)");
        return false;
    }
    uint32_t maxregs = r->be->max_regs;
    for (size_t k = 0; k < job->nprogs; ++k) {
        const fmag_vm_program *p = job->progs[k];
        if (p->regs > maxregs) {
            fmag_gpu_err(err, errlen,
                         "program '%s' needs %u registers; the GPU runner supports at most %u",
                         p->name ? p->name : "", (unsigned)p->regs, (unsigned)maxregs);
            return false;
        }
        if (p->regs > job->max_regs) job->max_regs = p->regs;
        if (p->nin > job->max_nin) job->max_nin = p->nin;
        if (p->nout > job->max_nout) job->max_nout = p->nout;
    }
    bool no_in = job->layout == FMAG_GPU_ROWS      ? !job->in
                 : job->layout == FMAG_GPU_COLUMNS ? !job->in_cols
                                                   : !job->dev_in.handle;
    if (job->n && no_in && job->max_nin) {
        fmag_gpu_err(err, errlen, "no input buffer");
        return false;
    }
    bool no_out = job->layout == FMAG_GPU_ROWS      ? !job->out
                  : job->layout == FMAG_GPU_COLUMNS ? !job->out_cols
                                                    : !job->dev_out.handle;
    if (job->n && no_out && job->max_nout) {
        fmag_gpu_err(err, errlen, "no output buffer");
        return false;
    }
    job->chunk = r->chunk;
    return true;
}

static bool run(fmag_gpu_runner *r, fmag_gpu_job *job, char *err, size_t errlen)
{
    if (!check_job(r, job, err, errlen)) return false;
    if (job->n == 0) return true;
    bool ok;
    if (fmag_gpu_bin_run(r, job, &ok, err, errlen)) return ok;
    fmag_gpu_bake_entry *baked = fmag_gpu_tier_pick(r, job);
    ok = r->be->run(r->impl, job, err, errlen);
    fmag_gpu_tier_done(r, baked);
    return ok;
}

static fmag_gpu_job rows_job(const fmag_vm_program *const *progs, size_t nprogs,
                             const uint32_t *prog_index, const float *in, size_t in_stride,
                             float *out, size_t out_stride, size_t n)
{
    fmag_gpu_job job;
    memset(&job, 0, sizeof job);
    job.progs = progs, job.nprogs = nprogs, job.prog_index = prog_index;
    job.layout = FMAG_GPU_ROWS;
    job.in = in, job.in_stride = in_stride, job.out = out, job.out_stride = out_stride;
    job.n = n, job.evals = 1;
    return job;
}

bool fmag_gpu_run(fmag_gpu_runner *r, const fmag_vm_program *prog, const float *in,
                  size_t in_stride, float *out, size_t out_stride, size_t n, char *err,
                  size_t errlen)
{
    fmag_gpu_job job = rows_job(&prog, 1, NULL, in, in_stride, out, out_stride, n);
    return run(r, &job, err, errlen);
}

bool fmag_gpu_run_per_lane(fmag_gpu_runner *r, const fmag_vm_program *const *progs, size_t nprogs,
                           const uint32_t *prog_index, const float *in, size_t in_stride,
                           float *out, size_t out_stride, size_t n, char *err, size_t errlen)
{
    fmag_gpu_job job = rows_job(progs, nprogs, prog_index, in, in_stride, out, out_stride, n);
    return run(r, &job, err, errlen);
}

bool fmag_gpu_run_columns(fmag_gpu_runner *r, const fmag_vm_program *prog, const float *const *in,
                          float *const *out, size_t n, char *err, size_t errlen)
{
    fmag_gpu_job job = rows_job(&prog, 1, NULL, NULL, 0, NULL, 0, n);
    job.layout = FMAG_GPU_COLUMNS, job.in_cols = in, job.out_cols = out;
    if (prog && n) /* each column the program reads or writes must be there */
        for (unsigned i = 0; i < prog->nin + prog->nout; ++i)
            if (i < prog->nin ? !in || !in[i] : !out || !out[i - prog->nin]) {
                fmag_gpu_err(err, errlen, "%s column %u is NULL",
                             i < prog->nin ? "input" : "output", i < prog->nin ? i : i - prog->nin);
                return false;
            }
    return run(r, &job, err, errlen);
}

bool fmag_gpu_run_device(fmag_gpu_runner *r, const fmag_vm_program *prog, fmag_gpu_buffer in,
                         size_t in_stride, fmag_gpu_buffer out, size_t out_stride, size_t n,
                         char *err, size_t errlen)
{
    fmag_gpu_job job = rows_job(&prog, 1, NULL, NULL, in_stride, NULL, out_stride, n);
    job.layout = FMAG_GPU_DEVICE, job.dev_in = in, job.dev_out = out;
    return run(r, &job, err, errlen);
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
    fmag_gpu_job job = rows_job(progs, nprogs, prog_index, in, in_stride, out, out_stride, n);
    job.evals = evals, job.reps = reps, job.median_ms = median_ms;
    return run(r, &job, err, errlen);
}
