/* Per-lane binning (docs/GPU.md, "Binning"): a per-lane run over few distinct programs is
 * grouped by program with a counting sort (count, prefix, scatter), each group runs as a
 * uniform launch (interpreted or baked: Tier.c), and the outputs are scattered back. Each
 * element computes what it computes unbinned, so the bits are the same. */
#include <stdlib.h>
#include <string.h>
#include "Bake.h"
#include "GPUInternal.h"

/* Fewer elements than this stay one launch: a launch per group costs more than it saves. */
#define FMAG_GPU_BIN_MIN_ELEMENTS 4096u

bool fmag_gpu_runner_set_bin_threshold(fmag_gpu_runner *r, unsigned max_programs)
{
    if (!r) return false;
    r->bin_max = max_programs;
    return true;
}

/* One group: progs[k] over its elements, gathered at in/out; the tier it used. */
static bool run_group(fmag_gpu_runner *r, const fmag_gpu_job *job, const fmag_vm_program *p,
                      const float *in, float *out, size_t n, double *ms, bool *baked, char *err,
                      size_t errlen)
{
    fmag_gpu_job g = *job;
    g.progs = &p, g.nprogs = 1, g.prog_index = NULL;
    g.in = in, g.out = out, g.n = n;
    g.max_regs = p->regs, g.max_nin = p->nin, g.max_nout = p->nout;
    g.median_ms = ms;
    fmag_gpu_bake_entry *e = fmag_gpu_tier_pick(r, &g);
    *baked = e != NULL;
    bool ok = r->be->run(r->impl, &g, err, errlen);
    fmag_gpu_tier_done(r, e);
    return ok;
}

bool fmag_gpu_bin_run(fmag_gpu_runner *r, const fmag_gpu_job *job, bool *ok, char *err,
                      size_t errlen)
{
    if (!r->bin_max || !job->prog_index || job->nprogs < 2 || job->layout != FMAG_GPU_ROWS ||
        job->n < FMAG_GPU_BIN_MIN_ELEMENTS)
        return false;
    size_t *start = calloc(job->nprogs + 1, sizeof *start);
    if (!start) return false; /* unbinned, then */
    size_t distinct = 0;
    for (size_t e = 0; e < job->n; ++e)
        ++start[job->prog_index[e] + 1];
    for (size_t k = 0; k < job->nprogs; ++k)
        distinct += start[k + 1] != 0;
    if (distinct > r->bin_max) {
        free(start);
        return false;
    }
    for (size_t k = 0; k < job->nprogs; ++k)
        start[k + 1] += start[k];
    size_t *at = malloc(job->nprogs * sizeof *at);
    uint32_t *perm = malloc(job->n * sizeof *perm); /* binned position -> element */
    float *gin = malloc((job->n * job->in_stride + 1) * sizeof *gin);
    float *gout = calloc(job->n * job->out_stride + 1, sizeof *gout);
    *ok = at && perm && gin && gout;
    if (!*ok) fmag_gpu_err(err, errlen, "out of memory");
    if (*ok) {
        memcpy(at, start, job->nprogs * sizeof *at);
        for (size_t e = 0; e < job->n; ++e)
            perm[at[job->prog_index[e]]++] = (uint32_t)e;
        if (job->in_stride)
            for (size_t q = 0; q < job->n; ++q)
                memcpy(gin + q * job->in_stride, job->in + (size_t)perm[q] * job->in_stride,
                       job->in_stride * sizeof *gin);
    }
    double total_ms = 0;
    unsigned groups = 0, baked_groups = 0;
    for (size_t k = 0; *ok && k < job->nprogs; ++k) {
        size_t n = start[k + 1] - start[k];
        if (!n) continue;
        double ms = 0;
        bool baked = false;
        *ok = run_group(r, job, job->progs[k], gin + start[k] * job->in_stride,
                        gout + start[k] * job->out_stride, n, &ms, &baked, err, errlen);
        total_ms += ms, ++groups, baked_groups += baked;
    }
    if (*ok) {
        for (size_t q = 0; q < job->n; ++q) {
            const fmag_vm_program *p = job->progs[job->prog_index[perm[q]]];
            memcpy(job->out + (size_t)perm[q] * job->out_stride, gout + q * job->out_stride,
                   p->nout * sizeof *gout);
        }
        if (job->reps) *job->median_ms = total_ms; /* the groups' launches, one after another */
        r->last_tier = baked_groups == 0        ? FMAG_GPU_TIER_INTERPRETED
                       : baked_groups == groups ? FMAG_GPU_TIER_BAKED
                                                : FMAG_GPU_TIER_MIXED;
    }
    free(start);
    free(at);
    free(perm);
    free(gin);
    free(gout);
    return true;
}
