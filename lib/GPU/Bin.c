/* Per-lane binning (docs/GPU.md, "Binning"): a per-lane run over few distinct programs is
 * grouped by program with a counting sort (count, prefix, scatter), each group runs as a
 * uniform launch (interpreted or baked: Tier.c), and the outputs are scattered back. Each
 * element computes what it computes unbinned, so the bits are the same. The sort and the
 * scatters run on the device (the back ends' bin_* hooks: gpu/fmag_bin.comp on Vulkan, the
 * fmag_bin_* kernels of gpu/fmag_cuda.cu); a back end without them runs unbinned. */
#include <stdlib.h>
#include "Bake.h"
#include "GPUInternal.h"

/* Fewer elements than this stay one launch: a launch per group costs more than it saves. */
#define FMAG_GPU_BIN_MIN_ELEMENTS 4096u
/* Elements the host looks at to guess whether an image has few programs: a guess that is
 * wrong costs time only (the device's exact counts decide). */
#define FMAG_GPU_BIN_SAMPLES 4096u

bool fmag_gpu_runner_set_bin_threshold(fmag_gpu_runner *r, unsigned max_programs)
{
    if (!r) return false;
    r->bin_max = max_programs;
    return true;
}

void fmag_gpu_bin_starts(const uint32_t *counts, size_t nprogs, size_t *start)
{
    start[0] = 0;
    for (size_t k = 0; k < nprogs; ++k)
        start[k + 1] = start[k] + ((size_t)counts[k] + FMAG_GPU_BIN_ALIGN - 1) /
                                      FMAG_GPU_BIN_ALIGN * FMAG_GPU_BIN_ALIGN;
}

/* One group: p over n elements, in and out where the layout of g puts them; whether it ran
 * baked. */
static bool run_group(fmag_gpu_runner *r, fmag_gpu_job g, const fmag_vm_program *p, size_t n,
                      double *ms, bool *baked, char *err, size_t errlen)
{
    g.progs = &p, g.nprogs = 1, g.prog_index = NULL, g.n = n;
    g.max_regs = p->regs, g.max_nin = p->nin, g.max_nout = p->nout;
    g.median_ms = ms;
    fmag_gpu_bake_entry *e = fmag_gpu_tier_pick(r, &g);
    *baked = e != NULL;
    bool ok = r->be->run(r->impl, &g, err, errlen);
    fmag_gpu_tier_done(r, e);
    return ok;
}

/* At most r->bin_max distinct programs among the counts. */
static bool few_programs(const fmag_gpu_runner *r, const uint32_t *counts, size_t nprogs)
{
    size_t distinct = 0;
    for (size_t k = 0; k < nprogs; ++k)
        distinct += counts[k] != 0;
    return distinct <= r->bin_max;
}

/* The groups' uniform launches, group k over rows start[k].. of the binned images on the
 * device that g names. */
static bool run_groups(fmag_gpu_runner *r, const fmag_gpu_job *job, const uint32_t *counts,
                       const size_t *start, fmag_gpu_job g, char *err, size_t errlen)
{
    double total_ms = 0;
    unsigned groups = 0, baked_groups = 0;
    bool ok = true;
    for (size_t k = 0; ok && k < job->nprogs; ++k) {
        if (!counts[k]) continue;
        fmag_gpu_job gk = g;
        size_t in_at = start[k] * job->in_stride, out_at = start[k] * job->out_stride;
        gk.dev_in.offset += in_at * sizeof(float), gk.dev_out.offset += out_at * sizeof(float);
        double ms = 0;
        bool baked = false;
        ok = run_group(r, gk, job->progs[k], counts[k], &ms, &baked, err, errlen);
        total_ms += ms, ++groups, baked_groups += baked;
    }
    if (ok) {
        if (job->reps) *job->median_ms = total_ms; /* the groups' launches, one after another */
        r->last_tier = baked_groups == 0        ? FMAG_GPU_TIER_INTERPRETED
                       : baked_groups == groups ? FMAG_GPU_TIER_BAKED
                                                : FMAG_GPU_TIER_MIXED;
    }
    return ok;
}

/* The device's count-and-scatter; false (and *ok true) when the exact counts show too many
 * programs after all: the job then runs unbinned. */
static bool bin_on_device(fmag_gpu_runner *r, const fmag_gpu_job *job, uint32_t *counts,
                          size_t *start, bool *ok, char *err, size_t errlen)
{
    *ok = r->be->bin_count(r->impl, job, counts, err, errlen);
    if (!*ok) return true; /* the job failed: err says why */
    if (!few_programs(r, counts, job->nprogs)) return false;
    fmag_gpu_bin_starts(counts, job->nprogs, start);
    fmag_gpu_job g = *job;
    g.layout = FMAG_GPU_DEVICE;
    *ok = r->be->bin_scatter(r->impl, job, start[job->nprogs], &g.dev_in, &g.dev_out, err, errlen);
    *ok = *ok && run_groups(r, job, counts, start, g, err, errlen) &&
          r->be->bin_gather(r->impl, job, start[job->nprogs], err, errlen);
    return true;
}

/* Whether a sample of the elements names at most r->bin_max programs: an image with many
 * programs is told at once, without a pass over it. */
static bool sample_has_few_programs(const fmag_gpu_runner *r, const fmag_gpu_job *job)
{
    enum { MAX_SEEN = 64 };
    if (r->bin_max >= MAX_SEEN) return true; /* a threshold that high: the counts decide */
    uint32_t seen[MAX_SEEN];
    size_t nseen = 0, step = job->n / FMAG_GPU_BIN_SAMPLES + 1;
    for (size_t e = 0; e < job->n; e += step) {
        uint32_t k = job->prog_index[e];
        size_t i = 0;
        while (i < nseen && seen[i] != k)
            ++i;
        if (i < nseen) continue;
        if (nseen == r->bin_max) return false;
        seen[nseen++] = k;
    }
    return true;
}

bool fmag_gpu_bin_run(fmag_gpu_runner *r, const fmag_gpu_job *job, bool *ok, char *err,
                      size_t errlen)
{
    if (!r->bin_max || !r->be->bin_count || !job->prog_index || job->nprogs < 2 ||
        job->layout != FMAG_GPU_ROWS || job->n < FMAG_GPU_BIN_MIN_ELEMENTS ||
        !sample_has_few_programs(r, job))
        return false;
    uint32_t *counts = calloc(job->nprogs, sizeof *counts);
    size_t *start = malloc((job->nprogs + 1) * sizeof *start);
    bool binned = false;
    if (counts && start) /* else unbinned, then */
        binned = bin_on_device(r, job, counts, start, ok, err, errlen);
    free(counts);
    free(start);
    return binned;
}
