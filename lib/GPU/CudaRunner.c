/* CUDA back end: loads libcuda at run time (driver API, declared here so no CUDA headers are
 * needed) and runs the kernels of gpu/fmag_cuda.cu, embedded as a fatbin at build time. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "GPUInternal.h"
#include "fmag_gpu_host.h"

#ifdef FMAG_GPU_HAVE_CUDA
extern const unsigned char fmag_cuda_fatbin[];
extern const size_t fmag_cuda_fatbin_size;
#endif

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef unsigned long long CUdeviceptr;
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76

#define FMAG_CU_FUNCS(X)                                                                           \
    X(cuInit, (unsigned))                                                                          \
    X(cuDriverGetVersion, (int *))                                                                 \
    X(cuDeviceGetCount, (int *))                                                                   \
    X(cuDeviceGet, (CUdevice *, int))                                                              \
    X(cuDeviceGetName, (char *, int, CUdevice))                                                    \
    X(cuDeviceGetAttribute, (int *, int, CUdevice))                                                \
    X(cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))                                           \
    X(cuDevicePrimaryCtxRelease_v2, (CUdevice))                                                    \
    X(cuCtxSetCurrent, (CUcontext))                                                                \
    X(cuModuleLoadData, (CUmodule *, const void *))                                                \
    X(cuModuleUnload, (CUmodule))                                                                  \
    X(cuModuleGetFunction, (CUfunction *, CUmodule, const char *))                                 \
    X(cuModuleGetGlobal_v2, (CUdeviceptr *, size_t *, CUmodule, const char *))                     \
    X(cuFuncSetAttribute, (CUfunction, int, int))                                                  \
    X(cuMemAlloc_v2, (CUdeviceptr *, size_t))                                                      \
    X(cuMemFree_v2, (CUdeviceptr))                                                                 \
    X(cuMemcpyHtoD_v2, (CUdeviceptr, const void *, size_t))                                        \
    X(cuMemcpyDtoH_v2, (void *, CUdeviceptr, size_t))                                              \
    X(cuLaunchKernel, (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,     \
                       unsigned, void *, void **, void **))                                        \
    X(cuStreamSynchronize, (void *))                                                               \
    X(cuGetErrorString, (CUresult, const char **))

/* Same layout as struct fmag_cuda_args in gpu/fmag_cuda.cuh. */
typedef struct fmag_cuda_args_c {
    CUdeviceptr code, progs, prog_index, in, out;
    uint32_t n, in_stride, out_stride, ninstr;
    uint32_t nprogs, nin, nout, regs;
    uint32_t evals, zero_init, pad0, pad1;
} fmag_cuda_args_c;

#define FMAG_CUDA_T 128u
/* Uniform kernels for 32 < rf <= 256: one pre-decoded instruction per dispatch (4 < rf <= 32
 * runs fmag_selb / fmag_specb, below). Two per dispatch (fmag_k_pair) and frequency-ordered
 * dispatch measured slower; see docs/PERFORMANCE.md. */
#define CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT 9
#define FMAG_CUDA_MAX_UNIFORM_C 4096u

/* The kernels of gpu/fmag_cuda.cu (one row per instance there), looked up by family, register
 * file and elements per thread. */
typedef enum fmag_cu_family {
    FMAG_CU_FWD,        /* uniform, forwarding pre-decode */
    FMAG_CU_SELB,       /* uniform, byte-offset records, selects fused */
    FMAG_CU_SPECB,      /* uniform, byte-offset records */
    FMAG_CU_SPEC,       /* uniform, index records (rf 64-256) */
    FMAG_CU_SHARED,     /* uniform, the raw stream */
    FMAG_CU_LANE,       /* per lane, the raw streams interleaved */
    FMAG_CU_LANEB,      /* per lane, byte-offset streams */
    FMAG_CU_LANEBU,     /* per lane, byte-offset streams whose kinds agree */
    FMAG_CU_LOCAL,      /* uniform, local-memory register file */
    FMAG_CU_LOCAL_LANE, /* per lane, local-memory register file */
} fmag_cu_family;

static const struct {
    fmag_cu_family family;
    uint32_t rf, k;
    const char *name;
} fmag_cu_kernels[] = {
    {FMAG_CU_FWD, 2, 8, "fmag_fwd_r2_k8"},
    {FMAG_CU_FWD, 4, 8, "fmag_fwd_r4_k8"},
    {FMAG_CU_SELB, 8, 4, "fmag_selb_r8_k4"},
    {FMAG_CU_SELB, 16, 4, "fmag_selb_r16_k4"},
    {FMAG_CU_SELB, 32, 4, "fmag_selb_r32_k4"},
    {FMAG_CU_SPECB, 8, 4, "fmag_specb_r8_k4"},
    {FMAG_CU_SPECB, 16, 4, "fmag_specb_r16_k4"},
    {FMAG_CU_SPECB, 32, 4, "fmag_specb_r32_k4"},
    {FMAG_CU_SPEC, 64, 2, "fmag_spec_r64_k2"},
    {FMAG_CU_SPEC, 128, 1, "fmag_spec_r128_k1"},
    {FMAG_CU_SPEC, 256, 1, "fmag_spec_r256_k1"},
    {FMAG_CU_SHARED, 2, 8, "fmag_shared_r2_k8"},
    {FMAG_CU_SHARED, 4, 1, "fmag_shared_r4_k1"},
    {FMAG_CU_SHARED, 4, 4, "fmag_shared_r4_k4"},
    {FMAG_CU_SHARED, 4, 8, "fmag_shared_r4_k8"},
    {FMAG_CU_SHARED, 8, 1, "fmag_shared_r8_k1"},
    {FMAG_CU_SHARED, 8, 4, "fmag_shared_r8_k4"},
    {FMAG_CU_SHARED, 16, 1, "fmag_shared_r16_k1"},
    {FMAG_CU_SHARED, 16, 4, "fmag_shared_r16_k4"},
    {FMAG_CU_SHARED, 32, 1, "fmag_shared_r32_k1"},
    {FMAG_CU_SHARED, 32, 4, "fmag_shared_r32_k4"},
    {FMAG_CU_SHARED, 64, 1, "fmag_shared_r64_k1"},
    {FMAG_CU_SHARED, 64, 2, "fmag_shared_r64_k2"},
    {FMAG_CU_SHARED, 128, 1, "fmag_shared_r128_k1"},
    {FMAG_CU_SHARED, 256, 1, "fmag_shared_r256_k1"},
    {FMAG_CU_LANE, 2, 8, "fmag_lane_r2_k8"},
    {FMAG_CU_LANE, 4, 1, "fmag_lane_r4_k1"},
    {FMAG_CU_LANE, 4, 4, "fmag_lane_r4_k4"},
    {FMAG_CU_LANE, 4, 8, "fmag_lane_r4_k8"},
    {FMAG_CU_LANE, 8, 1, "fmag_lane_r8_k1"},
    {FMAG_CU_LANE, 8, 4, "fmag_lane_r8_k4"},
    {FMAG_CU_LANE, 16, 1, "fmag_lane_r16_k1"},
    {FMAG_CU_LANE, 16, 4, "fmag_lane_r16_k4"},
    {FMAG_CU_LANE, 32, 1, "fmag_lane_r32_k1"},
    {FMAG_CU_LANE, 32, 4, "fmag_lane_r32_k4"},
    {FMAG_CU_LANE, 64, 1, "fmag_lane_r64_k1"},
    {FMAG_CU_LANE, 64, 2, "fmag_lane_r64_k2"},
    {FMAG_CU_LANE, 128, 1, "fmag_lane_r128_k1"},
    {FMAG_CU_LANE, 256, 1, "fmag_lane_r256_k1"},
    {FMAG_CU_LANEB, 2, 8, "fmag_laneb_r2_k8"},
    {FMAG_CU_LANEB, 4, 1, "fmag_laneb_r4_k1"},
    {FMAG_CU_LANEB, 4, 4, "fmag_laneb_r4_k4"},
    {FMAG_CU_LANEB, 4, 8, "fmag_laneb_r4_k8"},
    {FMAG_CU_LANEB, 8, 1, "fmag_laneb_r8_k1"},
    {FMAG_CU_LANEB, 8, 4, "fmag_laneb_r8_k4"},
    {FMAG_CU_LANEB, 16, 1, "fmag_laneb_r16_k1"},
    {FMAG_CU_LANEB, 16, 4, "fmag_laneb_r16_k4"},
    {FMAG_CU_LANEB, 32, 1, "fmag_laneb_r32_k1"},
    {FMAG_CU_LANEB, 32, 4, "fmag_laneb_r32_k4"},
    {FMAG_CU_LANEBU, 2, 8, "fmag_lanebu_r2_k8"},
    {FMAG_CU_LANEBU, 4, 1, "fmag_lanebu_r4_k1"},
    {FMAG_CU_LANEBU, 4, 4, "fmag_lanebu_r4_k4"},
    {FMAG_CU_LANEBU, 4, 8, "fmag_lanebu_r4_k8"},
    {FMAG_CU_LANEBU, 8, 1, "fmag_lanebu_r8_k1"},
    {FMAG_CU_LANEBU, 8, 4, "fmag_lanebu_r8_k4"},
    {FMAG_CU_LANEBU, 16, 1, "fmag_lanebu_r16_k1"},
    {FMAG_CU_LANEBU, 16, 4, "fmag_lanebu_r16_k4"},
    {FMAG_CU_LANEBU, 32, 1, "fmag_lanebu_r32_k1"},
    {FMAG_CU_LANEBU, 32, 4, "fmag_lanebu_r32_k4"},
    {FMAG_CU_LOCAL, 1024, 1, "fmag_local_r1024"},
    {FMAG_CU_LOCAL_LANE, 1024, 1, "fmag_local_lane_r1024"},
    {FMAG_CU_LOCAL, 4096, 1, "fmag_local_r4096"},
    {FMAG_CU_LOCAL_LANE, 4096, 1, "fmag_local_lane_r4096"},
};

/* The kernel of a family for rf and k; NULL when gpu/fmag_cuda.cu has no such instance. */
static const char *cu_kernel(fmag_cu_family f, uint32_t rf, uint32_t k)
{
    for (size_t i = 0; i < sizeof fmag_cu_kernels / sizeof fmag_cu_kernels[0]; ++i)
        if (fmag_cu_kernels[i].family == f && fmag_cu_kernels[i].rf == rf &&
            fmag_cu_kernels[i].k == k)
            return fmag_cu_kernels[i].name;
    return NULL;
}

struct fmag_gpu_cuda {
    void *lib;
#define X(name, args) CUresult(*name) args;
    FMAG_CU_FUNCS(X)
#undef X
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    int major, minor; /* compute capability */
    char last[64];    /* the last launch's kernel */
};

const char *fmag_gpu_cuda_last_kernel(const fmag_gpu_cuda *c)
{
    return c ? c->last : "";
}

static bool cu_ok(fmag_gpu_cuda *c, CUresult r, const char *what, char *err, size_t errlen)
{
    if (r == 0) return true;
    const char *s = NULL;
    if (c->cuGetErrorString) c->cuGetErrorString(r, &s);
    fmag_gpu_err(err, errlen, "CUDA: %s failed: %s (%d)", what, s ? s : "unknown error", r);
    return false;
}

void fmag_gpu_cuda_destroy(fmag_gpu_cuda *c)
{
    if (!c) return;
    if (c->mod) c->cuModuleUnload(c->mod);
    if (c->ctx) c->cuDevicePrimaryCtxRelease_v2(c->dev);
    if (c->lib) dlclose(c->lib);
    free(c);
}

fmag_gpu_cuda *fmag_gpu_cuda_create(char *desc, size_t desclen, char *err, size_t errlen)
{
#ifndef FMAG_GPU_HAVE_CUDA
    (void)desc, (void)desclen;
    fmag_gpu_err(err, errlen,
                 "CUDA backend not built (nvcc not found or FMAG_ENABLE_CUDA=OFF at build time)");
    return NULL;
#else
    fmag_gpu_cuda *c = calloc(1, sizeof *c);
    if (!c) {
        fmag_gpu_err(err, errlen, "out of memory");
        return NULL;
    }
    c->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!c->lib) {
        fmag_gpu_err(err, errlen, "no CUDA driver: cannot load libcuda.so.1");
        goto fail;
    }
#define X(name, args)                                                                              \
    *(void **)&c->name = dlsym(c->lib, #name);                                                     \
    if (!c->name) {                                                                                \
        fmag_gpu_err(err, errlen, "CUDA driver lacks %s", #name);                                  \
        goto fail;                                                                                 \
    }
    FMAG_CU_FUNCS(X)
#undef X
    int n = 0, ver = 0, maj = 0, min = 0;
    if (c->cuInit(0) != 0 || c->cuDeviceGetCount(&n) != 0 || n == 0) {
        fmag_gpu_err(err, errlen, "no CUDA device");
        goto fail;
    }
    if (!cu_ok(c, c->cuDeviceGet(&c->dev, 0), "cuDeviceGet", err, errlen)) goto fail;
    c->cuDeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, c->dev);
    c->cuDeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, c->dev);
    c->major = maj, c->minor = min;
    if (maj < 9) {
        fmag_gpu_err(err, errlen, "CUDA device has compute capability %d.%d; the kernels need 9.0",
                     maj, min);
        goto fail;
    }
    if (!cu_ok(c, c->cuDevicePrimaryCtxRetain(&c->ctx, c->dev), "cuDevicePrimaryCtxRetain", err,
               errlen))
        goto fail;
    if (!cu_ok(c, c->cuCtxSetCurrent(c->ctx), "cuCtxSetCurrent", err, errlen) ||
        !cu_ok(c, c->cuModuleLoadData(&c->mod, fmag_cuda_fatbin), "cuModuleLoadData", err, errlen))
        goto fail;
    char name[128] = "";
    c->cuDeviceGetName(name, (int)sizeof name, c->dev);
    c->cuDriverGetVersion(&ver);
    snprintf(desc, desclen,
             "cuda: %s (sm_%d%d, driver API %d); fma: fused (fmaf); float32 denormals: preserved",
             name, maj, min, ver);
    return c;
fail:
    fmag_gpu_cuda_destroy(c);
    return NULL;
#endif
}

static bool launch_function(fmag_gpu_cuda *c, CUfunction f, unsigned smem, unsigned per,
                            fmag_cuda_args_c *a, const fmag_gpu_job *job, char *err,
                            size_t errlen);

static bool launch(fmag_gpu_cuda *c, const char *kname, uint32_t rows, uint32_t k,
                   fmag_cuda_args_c *a, bool shared, bool lane, const fmag_gpu_job *job, char *err,
                   size_t errlen)
{
    CUfunction f;
    if (!cu_ok(c, c->cuModuleGetFunction(&f, c->mod, kname), kname, err, errlen)) return false;
    unsigned smem = shared ? rows * k * FMAG_CUDA_T * 4u : 0u;
    if (smem > 48u * 1024u &&
        !cu_ok(c,
               c->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem),
               "cuFuncSetAttribute", err, errlen))
        return false;
    /* Per-lane streams are read through L1: leave it 40% of the shared/L1 array. */
    if (lane) c->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 60);
    return launch_function(c, f, smem, shared ? k * FMAG_CUDA_T : FMAG_CUDA_T, a, job, err,
                           errlen);
}

/* Launches f over job->n elements, `per` a block of FMAG_CUDA_T threads (timed when
 * job->reps > 0). */
static bool launch_function(fmag_gpu_cuda *c, CUfunction f, unsigned smem, unsigned per,
                            fmag_cuda_args_c *a, const fmag_gpu_job *job, char *err, size_t errlen)
{
    unsigned grid = (unsigned)((job->n + per - 1) / per);
    void *params[] = {a};
    unsigned reps = job->reps ? job->reps + 1 : 1;
    double *t = calloc(reps, sizeof *t);
    if (!t) {
        fmag_gpu_err(err, errlen, "out of memory");
        return false;
    }
    bool ok = true;
    for (unsigned r = 0; ok && r < reps; ++r) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        ok = cu_ok(c, c->cuLaunchKernel(f, grid, 1, 1, FMAG_CUDA_T, 1, 1, smem, NULL, params, NULL),
                   "cuLaunchKernel", err, errlen) &&
             cu_ok(c, c->cuStreamSynchronize(NULL), "kernel", err, errlen);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        t[r] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    }
    if (ok && job->reps) *job->median_ms = fmag_gpu_median(t + 1, job->reps);
    free(t);
    return ok;
}

/* True when the K elements a thread runs ((b*K + j)*T + t, j < K) share a program. */
static bool k_share(const uint32_t *pi, size_t n, uint32_t k)
{
    for (size_t b = 0; b * k * FMAG_CUDA_T < n; ++b)
        for (size_t t = 0; t < FMAG_CUDA_T; ++t) {
            size_t e0 = b * k * FMAG_CUDA_T + t;
            for (size_t j = 1; j < k; ++j) {
                size_t e = e0 + j * FMAG_CUDA_T;
                if (e < n && pi[e] != pi[e0]) return false;
            }
        }
    return true;
}

/* When some input word is the NaN 0x7FFFFFFF, picks in *subst a NaN pattern of
 * 0x7FFFFF80..0x7FFFFFFE that no input word has (0: no input needs one). */
static bool nan_substitute(const float *in, size_t nwords, uint32_t *subst, char *err,
                           size_t errlen)
{
    uint64_t used[2] = {0, 0}; /* candidates 0x7FFFFF80 + k, k < 127 */
    bool need = false;
    for (size_t w = 0; w < nwords; ++w) {
        uint32_t b = fmag_bits_of(in[w]);
        if (b == 0x7FFFFFFFu)
            need = true;
        else if ((b & ~0x7Fu) == 0x7FFFFF80u)
            used[(b & 0x7Fu) >> 6] |= 1ull << (b & 63u);
    }
    *subst = 0;
    if (!need) return true;
    for (uint32_t k = 0; k < 127; ++k)
        if (!(used[k >> 6] >> (k & 63) & 1)) {
            *subst = 0x7FFFFF80u + k;
            return true;
        }
    fmag_gpu_err(err, errlen,
                 "the inputs use every NaN pattern 0x7FFFFF80-0x7FFFFFFF: the CUDA runner could "
                 "not tell an input NaN 0x7FFFFFFF from a computed one");
    return false;
}

/* NVIDIA's arithmetic returns the NaN 0x7FFFFFFF; the reference VM stores every computed NaN
 * as FMAG_VM_CANONICAL_NAN, so the read-back maps one to the other (which keeps the kernels'
 * inner loop one instruction shorter). An input NaN with exactly those bits that no
 * instruction overwrites must come back unchanged: such inputs are uploaded as the pattern
 * *subst found nowhere in the inputs, which the read-back maps back. */
static bool upload_inputs(fmag_gpu_cuda *c, CUdeviceptr dst, const float *in, size_t bytes,
                          uint32_t *subst, char *err, size_t errlen)
{
    if (!nan_substitute(in, bytes / 4, subst, err, errlen)) return false;
    if (!*subst) return cu_ok(c, c->cuMemcpyHtoD_v2(dst, in, bytes), "cuMemcpyHtoD", err, errlen);
    uint32_t *tmp = malloc(bytes);
    if (!tmp) {
        fmag_gpu_err(err, errlen, "out of memory");
        return false;
    }
    memcpy(tmp, in, bytes);
    for (size_t w = 0; w < bytes / 4; ++w)
        if (tmp[w] == 0x7FFFFFFFu) tmp[w] = *subst;
    bool ok = cu_ok(c, c->cuMemcpyHtoD_v2(dst, tmp, bytes), "cuMemcpyHtoD", err, errlen);
    free(tmp);
    return ok;
}

/* A baked module (BakeCuda.c): its kernel reads fmag_cuda_args_c's n, in, out, strides and
 * evals, one element a thread. */
typedef struct fmag_cu_baked {
    CUmodule mod;
    CUfunction fn;
} fmag_cu_baked;

void *fmag_gpu_cuda_module_load(fmag_gpu_cuda *c, const void *image, const char *name, char *err,
                                size_t errlen)
{
    fmag_cu_baked *b = calloc(1, sizeof *b);
    if (!b) {
        fmag_gpu_err(err, errlen, "out of memory");
        return NULL;
    }
    /* the calling thread (the bake thread) needs the context current */
    if (cu_ok(c, c->cuCtxSetCurrent(c->ctx), "cuCtxSetCurrent", err, errlen) &&
        cu_ok(c, c->cuModuleLoadData(&b->mod, image), "cuModuleLoadData", err, errlen) &&
        cu_ok(c, c->cuModuleGetFunction(&b->fn, b->mod, name), name, err, errlen))
        return b;
    fmag_gpu_cuda_module_release(c, b);
    return NULL;
}

void fmag_gpu_cuda_module_release(fmag_gpu_cuda *c, void *m)
{
    fmag_cu_baked *b = m;
    if (b && b->mod) {
        c->cuCtxSetCurrent(c->ctx);
        c->cuModuleUnload(b->mod);
    }
    free(b);
}

void fmag_gpu_cuda_arch(const fmag_gpu_cuda *c, int *major, int *minor)
{
    *major = c->major, *minor = c->minor;
}

/* A baked launch: the inputs go up as they are and the outputs come back as they are (the
 * baked code canonicalizes its own NaNs, unless NaN-agnostic). */
static bool run_baked(fmag_gpu_cuda *c, const fmag_gpu_job *job, char *err, size_t errlen)
{
    const fmag_cu_baked *b = job->native;
    size_t isz = job->n * job->in_stride * 4, osz = job->n * job->out_stride * 4;
    CUdeviceptr din = 0, dout = 0;
    float *res = malloc(osz ? osz : 4);
    bool ok = res != NULL;
    if (!ok) fmag_gpu_err(err, errlen, "out of memory");
    ok = ok && cu_ok(c, c->cuMemAlloc_v2(&din, isz ? isz : 16), "cuMemAlloc", err, errlen) &&
         cu_ok(c, c->cuMemAlloc_v2(&dout, osz ? osz : 16), "cuMemAlloc", err, errlen);
    if (ok && isz) ok = cu_ok(c, c->cuMemcpyHtoD_v2(din, job->in, isz), "cuMemcpyHtoD", err, errlen);
    fmag_cuda_args_c a;
    memset(&a, 0, sizeof a);
    a.in = din, a.out = dout, a.n = (uint32_t)job->n, a.in_stride = (uint32_t)job->in_stride;
    a.out_stride = (uint32_t)job->out_stride, a.evals = job->evals;
    if (ok) ok = launch_function(c, b->fn, 0, FMAG_CUDA_T, &a, job, err, errlen);
    if (ok) snprintf(c->last, sizeof c->last, "baked");
    if (ok && osz) ok = cu_ok(c, c->cuMemcpyDtoH_v2(res, dout, osz), "cuMemcpyDtoH", err, errlen);
    if (ok) fmag_gpu_copy_outputs(job, res);
    if (din) c->cuMemFree_v2(din);
    if (dout) c->cuMemFree_v2(dout);
    free(res);
    return ok;
}

bool fmag_gpu_cuda_run(fmag_gpu_cuda *c, const fmag_gpu_job *job, char *err, size_t errlen)
{
    if (!cu_ok(c, c->cuCtxSetCurrent(c->ctx), "cuCtxSetCurrent", err, errlen)) return false;
    if (job->native) return run_baked(c, job, err, errlen);
    uint32_t rf = fmag_gpu_pow2_regs(job->max_regs < 2 ? 2 : job->max_regs);
    /* One program for every element: the uniform kernels. */
    const fmag_vm_program *uni = NULL;
    if (!job->prog_index || job->nprogs == 1) {
        uni = job->progs[0];
    } else {
        size_t e = 1;
        while (e < job->n && job->prog_index[e] == job->prog_index[0])
            ++e;
        if (e == job->n) uni = job->progs[job->prog_index[0]];
    }
    if (uni) rf = fmag_gpu_pow2_regs(uni->regs < 2 ? 2 : uni->regs);
    uint8_t *scratch = calloc(rf, 1);
    if (!scratch) {
        fmag_gpu_err(err, errlen, "out of memory");
        return false;
    }
    bool zero = false;
    for (size_t k = 0; k < job->nprogs; ++k) {
        const fmag_vm_program *p = uni ? uni : job->progs[k];
        zero |= fmag_gpu_needs_zero_init((const fmag_gpu_word4 *)p->code, p->ninstr, p->nin,
                                         p->nout, rf, scratch);
        if (uni) break;
    }
    free(scratch);

    fmag_cuda_args_c a;
    memset(&a, 0, sizeof a);
    a.n = (uint32_t)job->n, a.in_stride = (uint32_t)job->in_stride;
    a.out_stride = (uint32_t)job->out_stride, a.evals = job->evals, a.zero_init = zero;
    a.nprogs = (uint32_t)job->nprogs;
    a.regs = uni ? uni->regs : job->max_regs;
    a.nin = uni ? uni->nin : job->max_nin;
    a.nout = uni ? uni->nout : job->max_nout;

    /* Host staging: code (uniform: as is, or pre-decoded; per lane: interleaved
     * [instr][program] and padded with no-ops so a warp's fetches coalesce), program table. */
    size_t maxlen = 0;
    for (size_t k = 0; k < job->nprogs; ++k)
        if (job->progs[k]->ninstr > maxlen) maxlen = job->progs[k]->ninstr;
    size_t ncode = uni ? uni->ninstr : maxlen * job->nprogs;
    fmag_gpu_word4 *code = calloc(ncode ? ncode : 1, sizeof *code);
    uint32_t *tab = calloc(job->nprogs * 4, sizeof *tab);
    if (!code || !tab) {
        free(code);
        free(tab);
        fmag_gpu_err(err, errlen, "out of memory");
        return false;
    }
    const char *kname = NULL;
    bool spec = false, shared = true;
    uint32_t k = 1;
    /* Kernel choice, from the H200 measurements in docs/PERFORMANCE.md:
     *  uniform, rf <= 4: forwarding pre-decode, 8 elements a thread (Horner-like chains);
     *  uniform, rf <= 256: pre-decoded stream in constant memory, switch on operand kinds
     *  (rf <= 32: byte-offset records, with or without select fusion);
     *  per lane: the streams interleaved [instr][program], 8 / 4 / 1 elements a thread (as
     *  many as share a program), rf <= 32 rewritten with byte offsets (laneb, or lanebu when
     *  every program has the same operand kinds); larger register files: local-memory
     *  kernels. */
    uint8_t needed[32];
    uint32_t npd = UINT32_MAX, rows = 0; /* rows: register rows allocated (0: rf) */
    bool lane = false;
    if (uni && rf <= 4) {
        k = 8;
        npd = fmag_gpu_predecode_fwd((const fmag_gpu_word4 *)uni->code, uni->ninstr, rf,
                                     k * FMAG_CUDA_T * 4u, uni->nout, code, needed);
        kname = cu_kernel(FMAG_CU_FWD, rf, k);
    } else if (uni && rf <= 32) {
        k = 4;
        npd = fmag_gpu_predecode_sel((const fmag_gpu_word4 *)uni->code, uni->ninstr, rf, code);
        uint32_t fused = 0;
        for (uint32_t i = 0; i < npd; ++i)
            fused += code[i].da >> 16 >= 8u;
        /* the fused kernel only where at least 10% of the records are fused selects: below
         * that it lost on most programs (docs/PERFORMANCE.md) */
        if (npd > 0 && fused * 10 >= npd) {
            /* byte offsets: one mask per operand instead of a mask and a scale */
            fmag_gpu_predecode_bytes(code, npd, k * FMAG_CUDA_T * 4u);
            kname = cu_kernel(FMAG_CU_SELB, rf, k);
        } else {
            /* the unfused records, byte offsets too */
            npd = fmag_gpu_predecode((const fmag_gpu_word4 *)uni->code, uni->ninstr, rf, code);
            fmag_gpu_predecode_bytes(code, npd, k * FMAG_CUDA_T * 4u);
            kname = cu_kernel(FMAG_CU_SPECB, rf, k);
        }
        /* at rf 32, shared memory for the program's own registers only (more blocks per
         * multiprocessor; at rf 8-16 it lost, docs/PERFORMANCE.md). The records are clamped
         * to the rows, so even an unvalidated stream stays inside. */
        if (rf == 32) rows = uni->regs;
        if (rows) fmag_gpu_clamp_rows(code, npd, k * FMAG_CUDA_T * 4u, rows);
    } else if (uni && rf <= 256) {
        k = rf <= 32 ? 4 : rf == 64 ? 2 : 1;
        npd = fmag_gpu_predecode((const fmag_gpu_word4 *)uni->code, uni->ninstr, rf, code);
        kname = cu_kernel(FMAG_CU_SPEC, rf, k);
    }
    if (npd <= FMAG_CUDA_MAX_UNIFORM_C) {
        spec = true;
        a.ninstr = npd;
    } else if (uni) {
        rows = 0;
        memcpy(code, uni->code, (size_t)uni->ninstr * 16);
        a.ninstr = uni->ninstr;
        if (rf < 4) rf = 4;
        if (rf <= 256) {
            k = rf <= 32 ? 4 : 1;
            kname = cu_kernel(FMAG_CU_SHARED, rf, k);
        } else {
            shared = false;
            rf = rf <= 1024 ? 1024 : 4096;
            kname = cu_kernel(FMAG_CU_LOCAL, rf, 1);
        }
    } else {
        lane = true;
        for (size_t i = 0; i < maxlen; ++i)
            for (size_t p = 0; p < job->nprogs; ++p)
                if (i < job->progs[p]->ninstr)
                    memcpy(&code[i * job->nprogs + p], &job->progs[p]->code[i], 16);
        for (size_t p = 0; p < job->nprogs; ++p) {
            tab[4 * p] = job->progs[p]->nin, tab[4 * p + 1] = job->progs[p]->nout;
            tab[4 * p + 2] = job->progs[p]->regs, tab[4 * p + 3] = job->progs[p]->ninstr;
        }
        a.ninstr = (uint32_t)maxlen;
        if (rf <= 4 && k_share(job->prog_index, job->n, 8)) {
            k = 8;
            kname = cu_kernel(FMAG_CU_LANE, rf, k);
        } else if (rf <= 256) {
            if (rf < 4) rf = 4;
            k = rf <= 32 && k_share(job->prog_index, job->n, 4) ? 4 : 1;
            kname = cu_kernel(FMAG_CU_LANE, rf, k);
        } else {
            shared = false;
            rf = rf <= 1024 ? 1024 : 4096;
            kname = cu_kernel(FMAG_CU_LOCAL_LANE, rf, 1);
        }
        if (shared && rf <= 32) {
            /* operands as byte offsets, kinds as bits; programs that agree on every
             * instruction's operand kinds (32 Horner polynomials, say) branch on a kind for
             * the whole warp and skip literal operands' loads (docs/PERFORMANCE.md) */
            bool agree = fmag_gpu_lane_kinds_agree(code, maxlen, job->nprogs);
            fmag_gpu_predecode_lane(code, (uint32_t)ncode, rf, k * FMAG_CUDA_T * 4u, code);
            kname = cu_kernel(agree ? FMAG_CU_LANEBU : FMAG_CU_LANEB, rf, k);
        }
    }

    CUdeviceptr d[5] = {0, 0, 0, 0, 0};
    size_t sz[5] = {ncode * 16, job->nprogs * 16, job->prog_index ? job->n * 4 : 4,
                    job->n * job->in_stride * 4, job->n * job->out_stride * 4};
    bool ok = true;
    for (int i = 0; ok && i < 5; ++i)
        ok = cu_ok(c, c->cuMemAlloc_v2(&d[i], sz[i] ? sz[i] : 16), "cuMemAlloc", err, errlen);
    if (ok && spec) {
        CUdeviceptr cst;
        size_t csz;
        ok = cu_ok(c, c->cuModuleGetGlobal_v2(&cst, &csz, c->mod, "fmag_cuda_ucode"),
                   "cuModuleGetGlobal", err, errlen) &&
             (a.ninstr == 0 || cu_ok(c, c->cuMemcpyHtoD_v2(cst, code, (size_t)a.ninstr * 16),
                                     "cuMemcpyHtoD", err, errlen));
    }
    if (ok && !spec && ncode)
        ok = cu_ok(c, c->cuMemcpyHtoD_v2(d[0], code, ncode * 16), "cuMemcpyHtoD", err, errlen);
    if (ok) ok = cu_ok(c, c->cuMemcpyHtoD_v2(d[1], tab, sz[1]), "cuMemcpyHtoD", err, errlen);
    if (ok && job->prog_index)
        ok =
            cu_ok(c, c->cuMemcpyHtoD_v2(d[2], job->prog_index, sz[2]), "cuMemcpyHtoD", err, errlen);
    uint32_t subst = 0;
    if (ok && sz[3]) ok = upload_inputs(c, d[3], job->in, sz[3], &subst, err, errlen);
    a.code = d[0], a.progs = d[1], a.prog_index = d[2], a.in = d[3], a.out = d[4];
    if (ok && !kname) {
        fmag_gpu_err(err, errlen, "CUDA: no kernel for this launch (rf %u, %u elements a thread)",
                     (unsigned)rf, (unsigned)k);
        ok = false;
    }
    if (ok) ok = launch(c, kname, rows ? rows : rf, k, &a, shared, lane, job, err, errlen);
    if (ok) snprintf(c->last, sizeof c->last, "%s", kname);
    if (ok && sz[4]) {
        uint32_t *res = malloc(sz[4]);
        if (!res) {
            fmag_gpu_err(err, errlen, "out of memory");
            ok = false;
        } else {
            ok = cu_ok(c, c->cuMemcpyDtoH_v2(res, d[4], sz[4]), "cuMemcpyDtoH", err, errlen);
            for (size_t w = 0; ok && w < sz[4] / 4; ++w)
                if (res[w] == 0x7FFFFFFFu)
                    res[w] = FMAG_VM_CANONICAL_NAN;
                else if (subst && res[w] == subst)
                    res[w] = 0x7FFFFFFFu;
            if (ok) fmag_gpu_copy_outputs(job, (const float *)res);
            free(res);
        }
    }
    for (int i = 0; i < 5; ++i)
        if (d[i]) c->cuMemFree_v2(d[i]);
    free(code);
    free(tab);
    return ok;
}
