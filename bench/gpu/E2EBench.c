/* bench/gpu/E2EBench.c: the GPU runners end to end, timed as a user times fmag_run (the
 * wall clock around the call, data in ordinary host memory), against
 *  - the copies alone: the inputs to the device and the outputs back, one cuMemcpy each,
 *    from and to the same host arrays (pageable) and from pinned memory, which measures the
 *    machine's host-device bandwidth (CUDA's driver; the bus is the same for Vulkan);
 *  - the CPU batch engine on the same input (fmag_run, --threads threads).
 * Rows: the first call (buffers allocated), the median of --reps calls after it, columns
 * (fmag_run_columns), on CUDA the device-resident call (fmag_run_device: no copy); then,
 * through the runner interface under the API (GPU.h), the kernel alone on resident data and
 * on CUDA fmag_gpu_run with the copies through pinned staging instead of direct.
 * Every GPU row is checked bit for bit against the batch engine (itself bit-identical to
 * the reference VM). The GPU runners' tier is pinned (--tier, docs/GPU.md "Tiers"): off by
 * default, so the rows time the interpreter's call and never a bake in the background;
 * eager bakes on the first call and times the baked code after it.
 * Usage: fmag-gpu-e2e PROGRAM.sl [--n=N] [--reps=R] [--threads=T] [--tier=off|auto|eager] */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fmag/GPU.h"
#include "fmag/fmag.h"
#include "../../lib/GPU/GPUBench.h" /* kernel-only timing, the CUDA staging choice */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static size_t mismatches(const float *a, const float *b, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
        bad += memcmp(&a[i], &b[i], 4) != 0;
    return bad;
}

/* The CUDA driver API calls the copy rows need (loaded at run time, as the runner does). */
typedef struct cuda_api {
    void *lib;
    int (*init)(unsigned);
    int (*device_get)(int *, int);
    int (*retain)(void **, int);
    int (*release)(int);
    int (*set_ctx)(void *);
    int (*alloc)(unsigned long long *, size_t);
    int (*free_)(unsigned long long);
    int (*alloc_host)(void **, size_t);
    int (*free_host)(void *);
    int (*htod)(unsigned long long, const void *, size_t);
    int (*dtoh)(void *, unsigned long long, size_t);
    void *ctx;
    int dev;
} cuda_api;

static bool cuda_load(cuda_api *c)
{
    memset(c, 0, sizeof *c);
    c->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!c->lib) return false;
    struct {
        void **fn;
        const char *name;
    } syms[] = {{(void **)&c->init, "cuInit"},
                {(void **)&c->device_get, "cuDeviceGet"},
                {(void **)&c->retain, "cuDevicePrimaryCtxRetain"},
                {(void **)&c->release, "cuDevicePrimaryCtxRelease_v2"},
                {(void **)&c->set_ctx, "cuCtxSetCurrent"},
                {(void **)&c->alloc, "cuMemAlloc_v2"},
                {(void **)&c->free_, "cuMemFree_v2"},
                {(void **)&c->alloc_host, "cuMemAllocHost_v2"},
                {(void **)&c->free_host, "cuMemFreeHost"},
                {(void **)&c->htod, "cuMemcpyHtoD_v2"},
                {(void **)&c->dtoh, "cuMemcpyDtoH_v2"}};
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; ++i)
        if (!(*syms[i].fn = dlsym(c->lib, syms[i].name))) return false;
    return c->init(0) == 0 && c->device_get(&c->dev, 0) == 0 && c->retain(&c->ctx, c->dev) == 0 &&
           c->set_ctx(c->ctx) == 0;
}

/* Median ms of `reps` rounds of: inputs to the device, outputs back, from host arrays. */
static double copies_ms(cuda_api *c, const float *in, size_t inb, float *out, size_t outb,
                        unsigned long long din, unsigned long long dout, int reps)
{
    double *t = calloc((size_t)reps, sizeof *t);
    for (int r = 0; r < reps; ++r) {
        double t0 = now_ms();
        c->htod(din, in, inb);
        c->dtoh(out, dout, outb);
        t[r] = now_ms() - t0;
    }
    double m = median(t, reps);
    free(t);
    return m;
}

static void row(const char *engine, const char *what, double ms, double copies, double batch)
{
    printf("%-8s %-34s %9.3f ms", engine, what, ms);
    if (copies > 0) printf("  %5.2fx copies", ms / copies);
    if (batch > 0) printf("  %5.2fx batch", ms / batch);
    printf("\n");
}

/* Rows through the runner interface under the API (fmag/GPU.h): the kernel alone on
 * resident data (fmag_gpu_time_per_lane), and on CUDA fmag_gpu_run with the host copies
 * through pinned staging, then straight from and to the arrays (the default). */
static bool runner_rows(fmag_engine e, fmag_gpu_tier_mode tier, const fmag_vm_program *p,
                        const float *in, float *out, const float *want, size_t n, double *t,
                        int reps, double copies, double batch_ms, size_t *bad)
{
    char err[256] = "";
    const char *name = fmag_engine_name(e);
    fmag_gpu_runner *g = fmag_gpu_runner_create(
        e == FMAG_ENGINE_CUDA ? FMAG_GPU_CUDA : FMAG_GPU_VULKAN, err, sizeof err);
    if (!g) return false;
    fmag_gpu_runner_set_tier_mode(g, tier);
    double ms = 0;
    bool ok = fmag_gpu_time_per_lane(g, &p, 1, NULL, in, p->nin, out, p->nout, n, 1, (unsigned)reps,
                                     &ms, err, sizeof err);
    if (ok) row(name, "kernel alone (resident data)", ms, copies, batch_ms);
    for (int staged = 1; ok && staged >= 0 && fmag_gpu_runner_set_host_staging(g, staged);
         --staged) {
        ok = fmag_gpu_run(g, p, in, p->nin, out, p->nout, n, err, sizeof err);
        for (int k = 0; ok && k < reps; ++k) {
            double t0 = now_ms();
            ok = fmag_gpu_run(g, p, in, p->nin, out, p->nout, n, err, sizeof err);
            t[k] = now_ms() - t0;
        }
        *bad += ok ? mismatches(out, want, n * p->nout) : n;
        if (ok)
            row(name, staged ? "fmag_gpu_run, pinned staging" : "fmag_gpu_run, direct copies",
                median(t, reps), copies, batch_ms);
    }
    if (!ok) printf("%-8s runner rows failed: %s\n", name, err);
    fmag_gpu_runner_destroy(g);
    return ok;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    size_t n = 4194304;
    int reps = 10;
    unsigned threads = 16;
    static const char *const tier_names[] = {"off", "auto", "eager"};
    static const fmag_tier_mode tier_modes[] = {FMAG_TIER_MODE_OFF, FMAG_TIER_MODE_AUTO,
                                                FMAG_TIER_MODE_EAGER};
    static const fmag_gpu_tier_mode gpu_tier_modes[] = {FMAG_GPU_TIER_OFF, FMAG_GPU_TIER_AUTO,
                                                        FMAG_GPU_TIER_EAGER};
    int tier = 0; /* off: the rows time the interpreter */
    for (int i = 1; i < argc; ++i) {
        if (!strncmp(argv[i], "--n=", 4))
            n = strtoull(argv[i] + 4, NULL, 10);
        else if (!strncmp(argv[i], "--reps=", 7))
            reps = atoi(argv[i] + 7);
        else if (!strncmp(argv[i], "--threads=", 10))
            threads = (unsigned)atoi(argv[i] + 10);
        else if (!strncmp(argv[i], "--tier=", 7)) {
            for (tier = 2; tier >= 0 && strcmp(argv[i] + 7, tier_names[tier]); --tier)
                ;
            if (tier < 0) {
                fprintf(stderr, "fmag-gpu-e2e: --tier must be off, auto or eager\n");
                return 2;
            }
        } else
            path = argv[i];
    }
    if (!path || reps < 1 || n == 0) {
        fprintf(stderr, "usage: fmag-gpu-e2e PROGRAM.sl [--n=N] [--reps=R] [--threads=T] "
                        "[--tier=off|auto|eager]\n");
        return 2;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fmag-gpu-e2e: cannot open %s\n", path);
        return 1;
    }
    static char src[1 << 16];
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    fmag_context *ctx = fmag_context_create();
    fmag_image *img = fmag_compile(ctx, path, src, len, NULL);
    if (!img) {
        for (size_t i = 0; i < fmag_context_diag_count(ctx); ++i)
            fprintf(stderr, "%s\n", fmag_context_diag(ctx, i));
        return 1;
    }
    const fmag_vm_program *p = fmag_image_program(img, 0);
    size_t nin = p->nin, nout = p->nout, inb = n * nin * 4, outb = n * nout * 4;
    printf("%s: %s, %zu elements, %zu in / %zu out (%.1f MB in, %.1f MB out), median of %d "
           "calls\n",
           path, fmag_program_name(p), n, nin, nout, inb / 1e6, outb / 1e6, reps);
    float *in = malloc(inb), *want = malloc(outb), *out = malloc(outb);
    float **cin = malloc(nin * sizeof *cin), **cout = malloc(nout * sizeof *cout);
    uint32_t s = 12345;
    for (size_t i = 0; i < n * nin; ++i) {
        s = s * 1664525u + 1013904223u;
        in[i] = (float)(s >> 8) / 16777216.0f; /* [0, 1): the graph's inputs are weights */
    }
    for (size_t i = 0; i < nin; ++i) {
        cin[i] = malloc(n * 4);
        for (size_t e = 0; e < n; ++e)
            cin[i][e] = in[e * nin + i];
    }
    for (size_t i = 0; i < nout; ++i)
        cout[i] = malloc(n * 4);
    double *t = calloc((size_t)reps, sizeof *t);

    /* the batch engine: the reference results and the CPU row */
    fmag_runner *batch = fmag_runner_create(ctx, FMAG_ENGINE_BATCH);
    fmag_runner_set_threads(batch, threads);
    fmag_run(ctx, batch, p, in, want, n);
    for (int r = 0; r < reps; ++r) {
        double t0 = now_ms();
        fmag_run(ctx, batch, p, in, out, n);
        t[r] = now_ms() - t0;
    }
    double batch_ms = median(t, reps);
    printf("%s\n", fmag_runner_describe(batch));
    char what[64];
    snprintf(what, sizeof what, "fmag_run, %u threads", threads);
    row("batch", what, batch_ms, 0, 0);

    /* the copies alone, at the bus's measured bandwidth */
    cuda_api cu;
    double copies = 0;
    unsigned long long din = 0, dout = 0;
    bool have_cuda = cuda_load(&cu);
    if (have_cuda && cu.alloc(&din, inb) == 0 && cu.alloc(&dout, outb) == 0) {
        copies_ms(&cu, in, inb, out, outb, din, dout, 2); /* warm-up */
        copies = copies_ms(&cu, in, inb, out, outb, din, dout, reps);
        void *hin = NULL, *hout = NULL;
        double pinned = 0;
        if (cu.alloc_host(&hin, inb) == 0 && cu.alloc_host(&hout, outb) == 0) {
            memcpy(hin, in, inb);
            copies_ms(&cu, hin, inb, hout, outb, din, dout, 2);
            pinned = copies_ms(&cu, hin, inb, hout, outb, din, dout, reps);
        }
        if (hin) cu.free_host(hin);
        if (hout) cu.free_host(hout);
        printf("copies   host arrays (pageable)             %9.3f ms  (%.1f GB/s)\n", copies,
               (inb + outb) / copies / 1e6);
        if (pinned > 0)
            printf("copies   pinned host memory                 %9.3f ms  (%.1f GB/s)\n", pinned,
                   (inb + outb) / pinned / 1e6);
    } else {
        printf("copies   not measured (no CUDA driver)\n");
    }

    for (fmag_engine e = FMAG_ENGINE_VULKAN; e <= FMAG_ENGINE_CUDA; ++e) {
        const char *name = fmag_engine_name(e);
        fmag_runner *r = fmag_runner_create(ctx, e);
        if (!r) {
            printf("%-8s unavailable: %s\n", name,
                   fmag_context_diag(ctx, fmag_context_diag_count(ctx) - 1));
            continue;
        }
        printf("%s\n", fmag_runner_describe(r));
        fmag_runner_options ro;
        fmag_runner_options_init(&ro);
        ro.tier_mode = tier_modes[tier];
        fmag_runner_set_options(ctx, r, &ro);
        memset(out, 0, outb);
        double t0 = now_ms();
        bool ok = fmag_run(ctx, r, p, in, out, n);
        row(name, "fmag_run, first call", now_ms() - t0, copies, batch_ms);
        size_t bad = ok ? mismatches(out, want, n * nout) : n;
        for (int k = 0; ok && k < reps; ++k) {
            t0 = now_ms();
            ok = fmag_run(ctx, r, p, in, out, n);
            t[k] = now_ms() - t0;
        }
        bad += ok ? mismatches(out, want, n * nout) : n;
        if (ok) row(name, "fmag_run (rows)", median(t, reps), copies, batch_ms);
        printf("%-8s tier %s (--tier=%s)\n", name, fmag_tier_name(fmag_runner_last_tier(r)),
               tier_names[tier]);
        fmag_run_columns(ctx, r, p, (const float *const *)cin, cout, n);
        for (int k = 0; ok && k < reps; ++k) {
            t0 = now_ms();
            ok = fmag_run_columns(ctx, r, p, (const float *const *)cin, cout, n);
            t[k] = now_ms() - t0;
        }
        for (size_t i = 0; ok && i < nout; ++i)
            for (size_t k = 0; k < n; ++k)
                bad += memcmp(&cout[i][k], &want[k * nout + i], 4) != 0;
        if (ok) row(name, "fmag_run_columns", median(t, reps), copies, batch_ms);
        if (ok && e == FMAG_ENGINE_CUDA && have_cuda && din) {
            /* device-resident: the inputs already there, the outputs left there */
            fmag_device_buffer bin = {din, 0}, bout = {dout, 0};
            cu.htod(din, in, inb);
            ok = fmag_run_device(ctx, r, p, bin, nin, bout, nout, n);
            for (int k = 0; ok && k < reps; ++k) {
                t0 = now_ms();
                ok = fmag_run_device(ctx, r, p, bin, nin, bout, nout, n);
                t[k] = now_ms() - t0;
            }
            if (ok) row(name, "fmag_run_device (no copy)", median(t, reps), copies, batch_ms);
            memset(out, 0, outb);
            cu.dtoh(out, dout, outb);
            bad += ok ? mismatches(out, want, n * nout) : n;
        }
        if (ok)
            ok = runner_rows(e, gpu_tier_modes[tier], p, in, out, want, n, t, reps, copies,
                             batch_ms, &bad);
        if (!ok)
            printf("%-8s failed: %s\n", name,
                   fmag_context_diag(ctx, fmag_context_diag_count(ctx) - 1));
        printf("%-8s %s\n", name,
               ok && bad == 0 ? "exact (every output bit-identical to batch)" : "MISMATCH");
        fmag_runner_destroy(r);
    }
    if (din) cu.free_(din);
    if (dout) cu.free_(dout);
    if (have_cuda) cu.release(cu.dev);
    for (size_t i = 0; i < nin; ++i)
        free(cin[i]);
    for (size_t i = 0; i < nout; ++i)
        free(cout[i]);
    free(cin), free(cout), free(in), free(out), free(want), free(t);
    fmag_runner_destroy(batch);
    fmag_image_destroy(img);
    fmag_context_destroy(ctx);
    return 0;
}
