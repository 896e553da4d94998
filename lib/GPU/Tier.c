/* Tiers (docs/GPU.md, "Tiers"): the runner's bake cache and, per launch, whether the
 * program runs baked. */
#include <stdlib.h>
#include "Bake.h"
#include "GPUInternal.h"

void fmag_gpu_tier_init(fmag_gpu_runner *r)
{
    struct fmag_gpu_baker b;
    bool ok = r->be->baker && r->be->baker(r->impl, &b);
    /* no cache (no memory, no baker): every run interprets, as with the tiers off */
    r->bake = ok ? fmag_gpu_bake_create(&b) : NULL;
    if (ok && !r->bake && b.destroy) b.destroy(b.user);
    /* A CPU driver compiles a baked shader with LLVM, the software fma inlined at every
     * instruction: seconds to minutes a program, which a short-lived runner would wait for
     * when it goes. There the tiers are off unless asked for. */
    r->tier_default = ok && b.cpu_device ? FMAG_GPU_TIER_OFF : FMAG_GPU_TIER_AUTO;
    r->tier_mode = r->tier_default;
}

void fmag_gpu_tier_fini(fmag_gpu_runner *r)
{
    fmag_gpu_bake_destroy(r->bake);
    r->bake = NULL;
}

fmag_gpu_bake_entry *fmag_gpu_tier_pick(fmag_gpu_runner *r, fmag_gpu_job *job)
{
    job->native = NULL;
    r->last_tier = FMAG_GPU_TIER_INTERPRETED;
    if (!r->bake || (job->prog_index && job->nprogs > 1)) return NULL;
    fmag_gpu_bake_entry *e =
        fmag_gpu_bake_get(r->bake, job->progs[0], r->tier_mode, r->nan_agnostic, &job->native);
    if (e) r->last_tier = FMAG_GPU_TIER_BAKED;
    return e;
}

void fmag_gpu_tier_done(fmag_gpu_runner *r, fmag_gpu_bake_entry *e)
{
    fmag_gpu_bake_put(r->bake, e);
}

bool fmag_gpu_runner_set_tier_mode(fmag_gpu_runner *r, fmag_gpu_tier_mode mode)
{
    if (!r || (unsigned)mode > (unsigned)FMAG_GPU_TIER_DEFAULT) return false;
    r->tier_mode = mode == FMAG_GPU_TIER_DEFAULT ? r->tier_default : mode;
    return true;
}

void fmag_gpu_runner_set_nan_agnostic(fmag_gpu_runner *r, bool on)
{
    if (r) r->nan_agnostic = on;
}

fmag_gpu_tier fmag_gpu_runner_last_tier(const fmag_gpu_runner *r)
{
    return r ? r->last_tier : FMAG_GPU_TIER_INTERPRETED;
}

const char *fmag_gpu_tier_name(fmag_gpu_tier t)
{
    switch (t) {
    case FMAG_GPU_TIER_INTERPRETED:
        return "interpreted";
    case FMAG_GPU_TIER_BAKED:
        return "baked";
    case FMAG_GPU_TIER_MIXED:
        return "mixed";
    }
    return "?";
}

const char *fmag_gpu_runner_bake_log(fmag_gpu_runner *r)
{
    return r ? fmag_gpu_bake_log(r->bake) : "";
}

bool fmag_gpu_runner_set_bake_limits(fmag_gpu_runner *r, const fmag_gpu_bake_limits *lim)
{
    if (!r || !lim || !lim->max_entries || !lim->max_bytes || !(lim->budget_ms > 0) ||
        !lim->max_instrs)
        return false;
    if (r->bake) fmag_gpu_bake_set_limits(r->bake, lim);
    return true;
}

void fmag_gpu_runner_bake_wait(fmag_gpu_runner *r)
{
    if (r) fmag_gpu_bake_wait(r->bake);
}

void fmag_gpu_runner_bake_stats(fmag_gpu_runner *r, fmag_gpu_bake_stat *st)
{
    fmag_gpu_bake_stats(r ? r->bake : NULL, st);
}
