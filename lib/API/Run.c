/* fmag/fmag.h, running: one runner type over the reference VM, the batch engine and
 * the GPU runners (lib/GPU; loaded at run time, so a build with them still runs, and
 * says why not, on a machine without a device). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "APIInternal.h"
#if defined(FMAG_API_HAVE_GPU)
#include "fmag/GPU.h"
#endif

struct fmag_runner {
    fmag_engine engine;
    unsigned nthreads;
#if defined(FMAG_API_HAVE_GPU)
    fmag_gpu_runner *gpu;
#endif
    char describe[256];
};

static const char *const engine_names[] = {"ref", "batch", "vulkan", "cuda"};

const char *fmag_engine_name(fmag_engine e)
{
    return (unsigned)e < 4 ? engine_names[e] : "unknown";
}

bool fmag_engine_lookup(const char *name, fmag_engine *out)
{
    for (unsigned i = 0; i < 4; i++)
        if (!strcmp(name, engine_names[i])) {
            *out = (fmag_engine)i;
            return true;
        }
    return false;
}

fmag_runner *fmag_runner_create(fmag_context *ctx, fmag_engine e)
{
    if ((unsigned)e >= 4) {
        if (ctx) fmag_context_error(ctx, "error: unknown engine %d", (int)e);
        return NULL;
    }
    fmag_runner *r = calloc(1, sizeof(*r));
    if (!r) {
        if (ctx) fmag_context_error(ctx, "error: out of memory");
        return NULL;
    }
    r->engine = e;
    switch (e) {
    case FMAG_ENGINE_REF:
        snprintf(r->describe, sizeof r->describe, "reference interpreter");
        break;
    case FMAG_ENGINE_BATCH:
        snprintf(r->describe, sizeof r->describe, "batch engine (%s, %u threads)",
                 fmag_vm_batch_isa(), fmag_vm_hardware_threads());
        break;
    case FMAG_ENGINE_VULKAN:
    case FMAG_ENGINE_CUDA: {
#if defined(FMAG_API_HAVE_GPU)
        char err[512];
        r->gpu = fmag_gpu_runner_create(e == FMAG_ENGINE_CUDA ? FMAG_GPU_CUDA : FMAG_GPU_VULKAN,
                                        err, sizeof err);
        if (!r->gpu) {
            if (ctx)
                fmag_context_error(ctx, "error: %s runner unavailable: %s", engine_names[e], err);
            free(r);
            return NULL;
        }
        snprintf(r->describe, sizeof r->describe, "%s", fmag_gpu_runner_describe(r->gpu));
        break;
#else
        if (ctx)
            fmag_context_error(ctx,
                               "error: %s runner unavailable: this FMAG library was built "
                               "without the GPU runners (lib/GPU)",
                               engine_names[e]);
        free(r);
        return NULL;
#endif
    }
    }
    return r;
}

void fmag_runner_destroy(fmag_runner *r)
{
    if (!r) return;
#if defined(FMAG_API_HAVE_GPU)
    if (r->gpu) fmag_gpu_runner_destroy(r->gpu);
#endif
    free(r);
}

fmag_engine fmag_runner_engine(const fmag_runner *r)
{
    return r->engine;
}

const char *fmag_runner_describe(const fmag_runner *r)
{
    return r->describe;
}

void fmag_runner_set_threads(fmag_runner *r, unsigned nthreads)
{
    r->nthreads = nthreads;
}

static bool run_lanes(fmag_context *ctx, fmag_runner *r, const fmag_vm_program *const *progs,
                      size_t nprogs, const uint32_t *prog_index, const float *in, size_t in_stride,
                      float *out, size_t out_stride, size_t n)
{
    char err[512] = "";
    bool ok = false;
    /* The GPU runners expect validated programs; images made by this API are, but a
     * caller may hand in a program record of its own. */
    for (size_t i = 0; i < nprogs; i++)
        if (!fmag_vm_program_validate(progs[i], err, sizeof err)) {
            if (ctx) fmag_context_error(ctx, "error: program '%s': %s", progs[i]->name, err);
            return false;
        }
    switch (r->engine) {
    case FMAG_ENGINE_REF:
        ok = fmag_vm_run_ref_per_lane(progs, nprogs, prog_index, in, in_stride, out, out_stride, n,
                                      err, sizeof err);
        break;
    case FMAG_ENGINE_BATCH:
        ok = fmag_vm_run_per_lane_threads(progs, nprogs, prog_index, in, in_stride, out, out_stride,
                                          n, r->nthreads, err, sizeof err);
        break;
    case FMAG_ENGINE_VULKAN:
    case FMAG_ENGINE_CUDA:
#if defined(FMAG_API_HAVE_GPU)
        ok = fmag_gpu_run_per_lane(r->gpu, progs, nprogs, prog_index, in, in_stride, out,
                                   out_stride, n, err, sizeof err);
#endif
        break;
    }
    if (!ok && ctx)
        fmag_context_error(ctx, "error: %s engine: %s", engine_names[r->engine],
                           err[0] ? err : "failed");
    return ok;
}

/* NULL where a pointer is needed is a diagnostic, not a crash: the program most often
 * comes from fmag_image_find, whose answer for a name the image lacks is NULL. */
static bool have_args(fmag_context *ctx, const char *fn, const fmag_runner *r, const void *what,
                      const char *what_name, const float *in, const float *out, size_t n)
{
    const char *missing = !r          ? "runner"
                          : !what     ? what_name
                          : n && !in  ? "input array"
                          : n && !out ? "output array"
                                      : NULL;
    if (missing && ctx) fmag_context_error(ctx, "error: %s: the %s is NULL", fn, missing);
    return !missing;
}

bool fmag_run(fmag_context *ctx, fmag_runner *r, const fmag_vm_program *p, const float *in,
              float *out, size_t n)
{
    if (!have_args(ctx, "fmag_run", r, p, "program", in, out, n)) return false;
    return run_lanes(ctx, r, &p, 1, NULL, in, p->nin, out, p->nout, n);
}

bool fmag_run_per_lane(fmag_context *ctx, fmag_runner *r, const fmag_image *img,
                       const uint32_t *prog_index, const float *in, size_t in_stride, float *out,
                       size_t out_stride, size_t n)
{
    if (!have_args(ctx, "fmag_run_per_lane", r, img, "image", in, out, n)) return false;
    size_t np = img->vm.nprograms;
    if (np == 0) {
        if (ctx) fmag_context_error(ctx, "error: the image has no programs");
        return false;
    }
    const fmag_vm_program **progs = malloc(np * sizeof(*progs));
    if (!progs) {
        if (ctx) fmag_context_error(ctx, "error: out of memory");
        return false;
    }
    for (size_t i = 0; i < np; i++)
        progs[i] = &img->vm.programs[i];
    bool ok = run_lanes(ctx, r, progs, np, prog_index, in, in_stride, out, out_stride, n);
    free(progs);
    return ok;
}
