/* fmag/fmag.h, running: one runner type over the reference VM, the batch engine and
 * the GPU runners (lib/GPU; loaded at run time, so a build with them still runs, and
 * says why not, on a machine without a device). */
#include <stddef.h>
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
    /* the batch engine of fmag_run_columns, made on first use for nthreads threads */
    fmag_vm_engine *columns_engine;
    unsigned columns_threads;
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
    fmag_vm_engine_destroy(r->columns_engine);
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

/* The first version of fmag_runner_options ends with nan_agnostic: a caller's struct at
 * least this long was set up by fmag_runner_options_init (any version). */
enum { RUNNER_OPTIONS_V1_SIZE = offsetof(fmag_runner_options, nan_agnostic) + sizeof(bool) };

void fmag_runner_options_init_size(fmag_runner_options *opts, size_t size)
{
    memset(opts, 0, size < sizeof *opts ? size : sizeof *opts);
    opts->size = size;
    opts->tier_mode = FMAG_TIER_MODE_DEFAULT;
}

bool fmag_runner_set_options(fmag_context *ctx, fmag_runner *r, const fmag_runner_options *opts)
{
    const char *bad = !r ? "the runner is NULL" : !opts ? "the options are NULL" : NULL;
    if (bad) {
        if (ctx) fmag_context_error(ctx, "error: fmag_runner_set_options: %s", bad);
        return false;
    }
    fmag_runner_options o;
    fmag_runner_options_init(&o);
    if (!fmag_api_read_sized(ctx, "fmag_runner_options", opts, opts->size, RUNNER_OPTIONS_V1_SIZE,
                             &o, sizeof o))
        return false;
    if ((unsigned)o.tier_mode > (unsigned)FMAG_TIER_MODE_EAGER) {
        if (ctx)
            fmag_context_error(ctx, "error: fmag_runner_set_options: unknown tier mode %d",
                               (int)o.tier_mode);
        return false;
    }
#if defined(FMAG_API_HAVE_GPU)
    if (r->gpu) {
        static const fmag_gpu_tier_mode modes[] = {FMAG_GPU_TIER_DEFAULT, FMAG_GPU_TIER_AUTO,
                                                   FMAG_GPU_TIER_OFF, FMAG_GPU_TIER_EAGER};
        fmag_gpu_runner_set_tier_mode(r->gpu, modes[o.tier_mode]);
        fmag_gpu_runner_set_nan_agnostic(r->gpu, o.nan_agnostic);
    }
#endif
    return true;
}

fmag_tier fmag_runner_last_tier(const fmag_runner *r)
{
#if defined(FMAG_API_HAVE_GPU)
    if (r && r->gpu) switch (fmag_gpu_runner_last_tier(r->gpu)) {
        case FMAG_GPU_TIER_BAKED:
            return FMAG_TIER_BAKED;
        case FMAG_GPU_TIER_MIXED:
            return FMAG_TIER_MIXED;
        case FMAG_GPU_TIER_INTERPRETED:
            break;
        }
#else
    (void)r;
#endif
    return FMAG_TIER_INTERPRETED;
}

const char *fmag_tier_name(fmag_tier t)
{
    static const char *const names[] = {"interpreted", "baked", "mixed"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "unknown";
}

const char *fmag_runner_bake_log(fmag_runner *r)
{
#if defined(FMAG_API_HAVE_GPU)
    if (r && r->gpu) return fmag_gpu_runner_bake_log(r->gpu);
#else
    (void)r;
#endif
    return "";
}

/* A program the runners may run (the GPU runners and fmag_vm_engine expect validated
 * programs; images made by this API are, but a caller may hand in a record of its own). */
static bool valid_program(fmag_context *ctx, const fmag_vm_program *p)
{
    char err[512] = "";
    if (fmag_vm_program_validate(p, err, sizeof err)) return true;
    if (ctx) fmag_context_error(ctx, "error: program '%s': %s", p->name, err);
    return false;
}

static bool run_lanes(fmag_context *ctx, fmag_runner *r, const fmag_vm_program *const *progs,
                      size_t nprogs, const uint32_t *prog_index, const float *in, size_t in_stride,
                      float *out, size_t out_stride, size_t n)
{
    char err[512] = "";
    bool ok = false;
    for (size_t i = 0; i < nprogs; i++)
        if (!valid_program(ctx, progs[i])) return false;
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

/* Element-major copies of columns and back, for engines that take rows only. */
static void columns_to_rows(const float *const *cols, size_t ncols, size_t n, float *rows)
{
    for (size_t e = 0; e < n; e++)
        for (size_t i = 0; i < ncols; i++)
            rows[e * ncols + i] = cols[i][e];
}

static void rows_to_columns(const float *rows, size_t ncols, size_t n, float *const *cols)
{
    for (size_t e = 0; e < n; e++)
        for (size_t i = 0; i < ncols; i++)
            cols[i][e] = rows[e * ncols + i];
}

static bool run_columns_ref(fmag_context *ctx, const fmag_vm_program *p, const float *const *in,
                            float *const *out, size_t n, char *err, size_t errlen)
{
    float *rin = malloc((n * p->nin + 1) * sizeof *rin);
    float *rout = malloc((n * p->nout + 1) * sizeof *rout);
    bool ok = rin && rout;
    if (!ok && ctx) fmag_context_error(ctx, "error: out of memory");
    if (ok) {
        columns_to_rows(in, p->nin, n, rin);
        ok = fmag_vm_run_ref_per_lane(&p, 1, NULL, rin, p->nin, rout, p->nout, n, err, errlen);
        if (ok) rows_to_columns(rout, p->nout, n, out);
    }
    free(rin);
    free(rout);
    return ok;
}

bool fmag_run_columns(fmag_context *ctx, fmag_runner *r, const fmag_vm_program *p,
                      const float *const *in, float *const *out, size_t n)
{
    const char *missing = !r ? "runner" : !p ? "program" : NULL;
    for (unsigned i = 0; !missing && n && i < p->nin + p->nout; i++)
        if (i < p->nin ? !in || !in[i] : !out || !out[i - p->nin])
            missing = i < p->nin ? "input column" : "output column";
    if (missing) {
        if (ctx) fmag_context_error(ctx, "error: fmag_run_columns: the %s is NULL", missing);
        return false;
    }
    if (!valid_program(ctx, p)) return false;
    char err[512] = "";
    bool ok = false;
    switch (r->engine) {
    case FMAG_ENGINE_REF:
        ok = run_columns_ref(ctx, p, in, out, n, err, sizeof err);
        break;
    case FMAG_ENGINE_BATCH:
        if (r->columns_engine && r->columns_threads != r->nthreads) {
            fmag_vm_engine_destroy(r->columns_engine);
            r->columns_engine = NULL;
        }
        if (!r->columns_engine) {
            fmag_vm_engine_options opt = {r->nthreads, FMAG_VM_ISA_AUTO, 0};
            r->columns_engine = fmag_vm_engine_create(&opt, err, sizeof err);
            r->columns_threads = r->nthreads;
        }
        ok = r->columns_engine &&
             fmag_vm_engine_run_columns(r->columns_engine, p, in, out, n, err, sizeof err);
        break;
    case FMAG_ENGINE_VULKAN:
    case FMAG_ENGINE_CUDA:
#if defined(FMAG_API_HAVE_GPU)
        ok = fmag_gpu_run_columns(r->gpu, p, in, out, n, err, sizeof err);
#endif
        break;
    }
    if (!ok && ctx && (err[0] || r->engine != FMAG_ENGINE_REF))
        fmag_context_error(ctx, "error: %s engine: %s", engine_names[r->engine],
                           err[0] ? err : "failed");
    return ok;
}

/* The runner's GPU runner, or NULL with a diagnostic naming fn. */
static void *gpu_of(fmag_context *ctx, const fmag_runner *r, const char *fn)
{
#if defined(FMAG_API_HAVE_GPU)
    if (r && r->gpu) return r->gpu;
#endif
    if (ctx)
        fmag_context_error(ctx, "error: %s: %s", fn,
                           r ? "only the GPU runners (vulkan, cuda) have a device"
                             : "the runner is NULL");
    return NULL;
}

bool fmag_runner_device(fmag_context *ctx, const fmag_runner *r, fmag_device_info *out)
{
    if (!out || out->size < sizeof *out) {
        if (ctx)
            fmag_context_error(ctx, "error: fmag_runner_device: set out->size to "
                                    "sizeof(fmag_device_info)");
        return false;
    }
    void *gpu = gpu_of(ctx, r, "fmag_runner_device");
    if (!gpu) return false;
#if defined(FMAG_API_HAVE_GPU)
    fmag_gpu_native nat;
    if (!fmag_gpu_runner_native(gpu, &nat)) return false;
    size_t size = out->size;
    memset(out, 0, sizeof *out);
    out->size = size, out->engine = r->engine;
    out->instance = nat.instance, out->physical_device = nat.physical_device;
    out->device = nat.device, out->queue_family = nat.queue_family;
    out->get_instance_proc_addr = nat.get_instance_proc_addr;
    out->cuda_device = nat.cuda_device;
#endif
    return true;
}

bool fmag_run_device(fmag_context *ctx, fmag_runner *r, const fmag_vm_program *p,
                     fmag_device_buffer in, size_t in_stride, fmag_device_buffer out,
                     size_t out_stride, size_t n)
{
    if (!p) {
        if (ctx) fmag_context_error(ctx, "error: fmag_run_device: the program is NULL");
        return false;
    }
    void *gpu = gpu_of(ctx, r, "fmag_run_device");
    if (!gpu || !valid_program(ctx, p)) return false;
    bool ok = false;
    char err[512] = "";
#if defined(FMAG_API_HAVE_GPU)
    fmag_gpu_buffer gin = {in.handle, in.offset}, gout = {out.handle, out.offset};
    ok = fmag_gpu_run_device(gpu, p, gin, in_stride, gout, out_stride, n, err, sizeof err);
#else
    (void)in, (void)in_stride, (void)out, (void)out_stride, (void)n;
#endif
    if (!ok && ctx)
        fmag_context_error(ctx, "error: %s engine: %s", engine_names[r->engine],
                           err[0] ? err : "failed");
    return ok;
}
