/* CUDA back end: loads libcuda at run time (driver API, declared here so no CUDA headers are
 * needed) and runs the kernels of gpu/fmag_cuda.cu, embedded as a fatbin at build time. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
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
#define CU_EVENT_DISABLE_TIMING 2u

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
    X(cuStreamCreate, (void **, unsigned))                                                         \
    X(cuStreamDestroy_v2, (void *))                                                                \
    X(cuEventCreate, (void **, unsigned))                                                          \
    X(cuEventRecord, (void *, void *))                                                             \
    X(cuEventSynchronize, (void *))                                                                \
    X(cuEventDestroy_v2, (void *))                                                                 \
    X(cuMemAllocHost_v2, (void **, size_t))                                                        \
    X(cuMemFreeHost, (void *))                                                                     \
    X(cuMemcpyHtoDAsync_v2, (CUdeviceptr, const void *, size_t, void *))                           \
    X(cuMemcpyDtoHAsync_v2, (void *, CUdeviceptr, size_t, void *))                                 \
    X(cuMemsetD32Async, (CUdeviceptr, unsigned, size_t, void *))                                   \
    X(cuGetErrorString, (CUresult, const char **))

/* Same layout as struct fmag_cuda_args in gpu/fmag_cuda.cuh. */
typedef struct fmag_cuda_args_c {
    CUdeviceptr code, progs, prog_index, in, out, nan;
    uint32_t n, in_stride, out_stride, ninstr;
    uint32_t nprogs, nin, nout, regs;
    uint32_t evals, zero_init, in_col, out_col;
} fmag_cuda_args_c;

#define FMAG_CUDA_T 128u
/* Uniform kernels for 32 < rf <= 256: one pre-decoded instruction per dispatch (4 < rf <= 32
 * runs fmag_selb / fmag_specb, below). Two per dispatch (fmag_k_pair) and frequency-ordered
 * dispatch measured slower; see docs/PERFORMANCE.md. */
#define CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT 9
#define FMAG_CUDA_MAX_UNIFORM_C 4096u

/* The kernel families of gpu/fmag_cuda_kernels.def (described there). */
typedef enum fmag_cu_family {
    FMAG_CU_fwd,
    FMAG_CU_selb,
    FMAG_CU_specb,
    FMAG_CU_spec,
    FMAG_CU_shared,
    FMAG_CU_lane,
    FMAG_CU_laneb,
    FMAG_CU_lanebu,
    FMAG_CU_local,
    FMAG_CU_local_lane,
} fmag_cu_family;

static const struct {
    fmag_cu_family family;
    uint32_t rf, k;
    const char *name;
} fmag_cu_kernels[] = {
#define FMAG_CUDA_KERNEL(FAMILY, RF, K) {FMAG_CU_##FAMILY, RF, K, "fmag_" #FAMILY "_r" #RF "_k" #K},
#include "../../gpu/fmag_cuda_kernels.def"
#undef FMAG_CUDA_KERNEL
};
#define FMAG_CU_NKERNELS (sizeof fmag_cu_kernels / sizeof fmag_cu_kernels[0])

/* The helper kernels of gpu/fmag_cuda_kernels.def, resolved when the runner is made. */
#define FMAG_CUDA_KERNEL(FAMILY, RF, K)
enum {
#define FMAG_CUDA_HELPER(NAME) FMAG_CU_HELPER_##NAME,
#include "../../gpu/fmag_cuda_kernels.def"
#undef FMAG_CUDA_HELPER
    FMAG_CU_NHELPERS
};
static const char *const fmag_cu_helper_names[] = {
#define FMAG_CUDA_HELPER(NAME) "fmag_" #NAME,
#include "../../gpu/fmag_cuda_kernels.def"
#undef FMAG_CUDA_HELPER
};
#undef FMAG_CUDA_KERNEL

/* The row of a family's kernel for rf and k; -1 when gpu/fmag_cuda_kernels.def has none. */
static int cu_kernel(fmag_cu_family f, uint32_t rf, uint32_t k)
{
    for (size_t i = 0; i < FMAG_CU_NKERNELS; ++i)
        if (fmag_cu_kernels[i].family == f && fmag_cu_kernels[i].rf == rf &&
            fmag_cu_kernels[i].k == k)
            return (int)i;
    return -1;
}

/* Device memory kept across launches and grown when a launch needs more. */
typedef struct cu_buf {
    CUdeviceptr ptr;
    size_t cap;
} cu_buf;

typedef struct fmag_gpu_cuda fmag_gpu_cuda;

/* Chunks a pipelined launch may have in flight (each has an event). */
#define FMAG_CU_MAX_CHUNKS 64u
#define FMAG_CU_STREAMS 2u

struct fmag_gpu_cuda {
    void *lib;
#define X(name, args) CUresult(*name) args;
    FMAG_CU_FUNCS(X)
#undef X
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn[FMAG_CU_NKERNELS]; /* resolved on first use, with their attributes */
    CUfunction scan;                 /* fmag_nan_scan */
    CUfunction helper[FMAG_CU_NHELPERS];
    void *stream[FMAG_CU_STREAMS];
    void *event[FMAG_CU_MAX_CHUNKS];
    /* device buffers: code, program table, per-lane index, inputs, outputs, NaN census */
    cu_buf code, progs, index, in, out, nan;
    /* per-lane binning (Bin.c): counts and cursors, the binned slots' elements, the program
     * indices, the job's rows (its inputs, later its outputs), the binned images */
    cu_buf bin_counts, bin_perm, bin_index, bin_rows, bin_in, bin_out;
    /* pinned host staging: inputs (then per-lane index), outputs, NaN census */
    void *h_in, *h_out;
    size_t h_in_cap, h_out_cap;
    uint32_t *h_nan;
    /* the records in constant memory now (not uploaded again for the same program) */
    fmag_gpu_word4 ucode[FMAG_CUDA_MAX_UNIFORM_C];
    uint32_t nucode;
    bool ucode_valid;
    bool staged; /* host arrays always through pinned staging (fmag_gpu_runner_set_host_staging) */
    fmag_gpu_counters count;
    int major, minor; /* compute capability */
    char last[64];    /* the last launch's kernel */
};

static bool cu_ok(fmag_gpu_cuda *c, CUresult r, const char *what, char *err, size_t errlen)
{
    if (r == 0) return true;
    const char *s = NULL;
    if (c->cuGetErrorString) c->cuGetErrorString(r, &s);
    fmag_gpu_err(err, errlen, "CUDA: %s failed: %s (%d)", what, s ? s : "unknown error", r);
    return false;
}

static void cu_destroy(void *impl)
{
    fmag_gpu_cuda *c = impl;
    if (!c) return;
    if (c->ctx) {
        c->cuCtxSetCurrent(c->ctx);
        cu_buf *bufs[] = {&c->code,      &c->progs,    &c->index,      &c->in,
                          &c->out,       &c->nan,      &c->bin_counts, &c->bin_perm,
                          &c->bin_index, &c->bin_rows, &c->bin_in,     &c->bin_out};
        for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
            if (bufs[i]->ptr) c->cuMemFree_v2(bufs[i]->ptr);
        if (c->h_in) c->cuMemFreeHost(c->h_in);
        if (c->h_out) c->cuMemFreeHost(c->h_out);
        if (c->h_nan) c->cuMemFreeHost(c->h_nan);
        for (unsigned i = 0; i < FMAG_CU_MAX_CHUNKS; ++i)
            if (c->event[i]) c->cuEventDestroy_v2(c->event[i]);
        for (unsigned i = 0; i < FMAG_CU_STREAMS; ++i)
            if (c->stream[i]) c->cuStreamDestroy_v2(c->stream[i]);
    }
    if (c->mod) c->cuModuleUnload(c->mod);
    if (c->ctx) c->cuDevicePrimaryCtxRelease_v2(c->dev);
    if (c->lib) dlclose(c->lib);
    free(c);
}

static void *cu_create(char *desc, size_t desclen, char *err, size_t errlen)
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
        !cu_ok(c, c->cuModuleLoadData(&c->mod, fmag_cuda_fatbin), "cuModuleLoadData", err,
               errlen) ||
        !cu_ok(c, c->cuModuleGetFunction(&c->scan, c->mod, "fmag_nan_scan"), "fmag_nan_scan", err,
               errlen))
        goto fail;
    for (int i = 0; i < FMAG_CU_NHELPERS; ++i)
        if (!cu_ok(c, c->cuModuleGetFunction(&c->helper[i], c->mod, fmag_cu_helper_names[i]),
                   fmag_cu_helper_names[i], err, errlen))
            goto fail;
    /* streams, events and the census staging live as long as the runner */
    for (unsigned i = 0; i < FMAG_CU_STREAMS; ++i)
        if (!cu_ok(c, c->cuStreamCreate(&c->stream[i], 0), "cuStreamCreate", err, errlen))
            goto fail;
    for (unsigned i = 0; i < FMAG_CU_MAX_CHUNKS; ++i)
        if (!cu_ok(c, c->cuEventCreate(&c->event[i], CU_EVENT_DISABLE_TIMING), "cuEventCreate", err,
                   errlen))
            goto fail;
    if (!cu_ok(c, c->cuMemAllocHost_v2((void **)&c->h_nan, FMAG_CU_MAX_CHUNKS * 16),
               "cuMemAllocHost", err, errlen))
        goto fail;
    char name[128] = "";
    c->cuDeviceGetName(name, (int)sizeof name, c->dev);
    c->cuDriverGetVersion(&ver);
    snprintf(desc, desclen,
             "cuda: %s (sm_%d%d, driver API %d); fma: fused (fmaf); float32 denormals: preserved",
             name, maj, min, ver);
    return c;
fail:
    cu_destroy(c);
    return NULL;
#endif
}

/* Grows device buffer b to at least need bytes (its contents are not kept). */
static bool cu_reserve(fmag_gpu_cuda *c, cu_buf *b, size_t need, char *err, size_t errlen)
{
    size_t cap = b->cap;
    if (!fmag_gpu_grow(&cap, need ? need : 16)) return true;
    if (b->ptr) c->cuMemFree_v2(b->ptr);
    b->ptr = 0, b->cap = 0;
    if (!cu_ok(c, c->cuMemAlloc_v2(&b->ptr, cap), "cuMemAlloc", err, errlen)) return false;
    b->cap = cap;
    ++c->count.buffer_allocs;
    return true;
}

/* Grows pinned host staging *h to at least need bytes. */
static bool cu_reserve_host(fmag_gpu_cuda *c, void **h, size_t *hcap, size_t need, char *err,
                            size_t errlen)
{
    size_t cap = *hcap;
    if (!fmag_gpu_grow(&cap, need ? need : 16)) return true;
    if (*h) c->cuMemFreeHost(*h);
    *h = NULL, *hcap = 0;
    if (!cu_ok(c, c->cuMemAllocHost_v2(h, cap), "cuMemAllocHost", err, errlen)) return false;
    *hcap = cap;
    ++c->count.buffer_allocs;
    return true;
}

/* The kernel of row i, resolved and given its attributes on first use. */
static CUfunction cu_function(fmag_gpu_cuda *c, int i, bool shared, char *err, size_t errlen)
{
    if (c->fn[i]) return c->fn[i];
    CUfunction f;
    const char *name = fmag_cu_kernels[i].name;
    if (!cu_ok(c, c->cuModuleGetFunction(&f, c->mod, name), name, err, errlen)) return NULL;
    unsigned smem = shared ? fmag_cu_kernels[i].rf * fmag_cu_kernels[i].k * FMAG_CUDA_T * 4u : 0u;
    if (smem > 48u * 1024u &&
        !cu_ok(c,
               c->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem),
               "cuFuncSetAttribute", err, errlen))
        return NULL;
    /* Per-lane streams are read through L1: leave it 40% of the shared/L1 array. */
    fmag_cu_family fam = fmag_cu_kernels[i].family;
    if (fam == FMAG_CU_lane || fam == FMAG_CU_laneb || fam == FMAG_CU_lanebu ||
        fam == FMAG_CU_local_lane)
        c->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 60);
    ++c->count.pipeline_creates;
    return c->fn[i] = f;
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

/* A baked module (BakeCuda.c). */
typedef struct fmag_cu_baked {
    CUmodule mod;
    CUfunction fn;
} fmag_cu_baked;

/* One launch's plan: the kernel, its register rows and elements a thread, the code. */
typedef struct cu_plan {
    int kernel;
    /* a baked program's kernel (BakeCuda.c: one element a thread, its own NaNs canonical, so
     * no NaN census), or NULL */
    CUfunction baked;
    uint32_t rf, rows, k; /* rows: register rows allocated (0: rf) */
    bool spec, shared;
    fmag_gpu_word4 *code;
    size_t ncode;
    uint32_t *tab;
    fmag_cuda_args_c a; /* the pointers and n are set per chunk */
} cu_plan;

/* Kernel choice, from the H200 measurements in docs/PERFORMANCE.md:
 *  uniform, rf <= 4: forwarding pre-decode, 8 elements a thread (Horner-like chains);
 *  uniform, rf <= 256: pre-decoded stream in constant memory, switch on operand kinds
 *  (rf <= 32: byte-offset records, with or without select fusion);
 *  per lane: the streams interleaved [instr][program], 8 / 4 / 1 elements a thread (as
 *  many as share a program), rf <= 32 rewritten with byte offsets (laneb, or lanebu when
 *  every program has the same operand kinds); larger register files: local-memory
 *  kernels. */
static bool plan_launch(const fmag_gpu_job *job, cu_plan *pl, char *err, size_t errlen)
{
    memset(pl, 0, sizeof *pl);
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
    size_t maxlen = 0;
    for (size_t k = 0; k < job->nprogs; ++k)
        if (job->progs[k]->ninstr > maxlen) maxlen = job->progs[k]->ninstr;
    pl->ncode = uni ? uni->ninstr : maxlen * job->nprogs;
    pl->code = calloc(pl->ncode ? pl->ncode : 1, sizeof *pl->code);
    pl->tab = calloc(job->nprogs * 4, sizeof *pl->tab);
    if (!scratch || !pl->code || !pl->tab) {
        free(scratch);
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

    fmag_cuda_args_c *a = &pl->a;
    a->evals = job->evals, a->zero_init = zero;
    a->nprogs = (uint32_t)job->nprogs;
    a->regs = uni ? uni->regs : job->max_regs;
    a->nin = uni ? uni->nin : job->max_nin;
    a->nout = uni ? uni->nout : job->max_nout;
    fmag_gpu_word4 *code = pl->code;
    uint32_t *tab = pl->tab;
    int kernel = -1;
    uint32_t k = 1;
    bool shared = true;
    uint8_t needed[32];
    uint32_t npd = UINT32_MAX, rows = 0;
    if (uni && rf <= 4) {
        k = 8;
        npd = fmag_gpu_predecode_fwd((const fmag_gpu_word4 *)uni->code, uni->ninstr, rf,
                                     k * FMAG_CUDA_T * 4u, uni->nout, code, needed);
        kernel = cu_kernel(FMAG_CU_fwd, rf, k);
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
            kernel = cu_kernel(FMAG_CU_selb, rf, k);
        } else {
            /* the unfused records, byte offsets too */
            npd = fmag_gpu_predecode((const fmag_gpu_word4 *)uni->code, uni->ninstr, rf, code);
            fmag_gpu_predecode_bytes(code, npd, k * FMAG_CUDA_T * 4u);
            kernel = cu_kernel(FMAG_CU_specb, rf, k);
        }
        /* at rf 32, shared memory for the program's own registers only (more blocks per
         * multiprocessor; at rf 8-16 it lost, docs/PERFORMANCE.md). The records are clamped
         * to the rows, so even an unvalidated stream stays inside. */
        if (rf == 32) rows = uni->regs;
        if (rows) fmag_gpu_clamp_rows(code, npd, k * FMAG_CUDA_T * 4u, rows);
    } else if (uni && rf <= 256) {
        k = rf <= 32 ? 4 : rf == 64 ? 2 : 1;
        npd = fmag_gpu_predecode((const fmag_gpu_word4 *)uni->code, uni->ninstr, rf, code);
        kernel = cu_kernel(FMAG_CU_spec, rf, k);
    }
    if (npd <= FMAG_CUDA_MAX_UNIFORM_C) {
        pl->spec = true;
        a->ninstr = npd;
    } else if (uni) {
        rows = 0;
        memcpy(code, uni->code, (size_t)uni->ninstr * 16);
        a->ninstr = uni->ninstr;
        if (rf < 4) rf = 4;
        if (rf <= 256) {
            k = rf <= 32 ? 4 : 1;
            kernel = cu_kernel(FMAG_CU_shared, rf, k);
        } else {
            shared = false;
            rf = rf <= 1024 ? 1024 : 4096;
            kernel = cu_kernel(FMAG_CU_local, rf, 1);
        }
    } else {
        for (size_t i = 0; i < maxlen; ++i)
            for (size_t p = 0; p < job->nprogs; ++p)
                if (i < job->progs[p]->ninstr)
                    memcpy(&code[i * job->nprogs + p], &job->progs[p]->code[i], 16);
        for (size_t p = 0; p < job->nprogs; ++p) {
            tab[4 * p] = job->progs[p]->nin, tab[4 * p + 1] = job->progs[p]->nout;
            tab[4 * p + 2] = job->progs[p]->regs, tab[4 * p + 3] = job->progs[p]->ninstr;
        }
        a->ninstr = (uint32_t)maxlen;
        if (rf <= 4 && k_share(job->prog_index, job->n, 8)) {
            k = 8;
            kernel = cu_kernel(FMAG_CU_lane, rf, k);
        } else if (rf <= 256) {
            if (rf < 4) rf = 4;
            k = rf <= 32 && k_share(job->prog_index, job->n, 4) ? 4 : 1;
            kernel = cu_kernel(FMAG_CU_lane, rf, k);
        } else {
            shared = false;
            rf = rf <= 1024 ? 1024 : 4096;
            kernel = cu_kernel(FMAG_CU_local_lane, rf, 1);
        }
        if (shared && rf <= 32) {
            /* operands as byte offsets, kinds as bits; programs that agree on every
             * instruction's operand kinds (32 Horner polynomials, say) branch on a kind for
             * the whole warp and skip literal operands' loads (docs/PERFORMANCE.md) */
            bool agree = fmag_gpu_lane_kinds_agree(code, maxlen, job->nprogs);
            fmag_gpu_predecode_lane(code, (uint32_t)pl->ncode, rf, k * FMAG_CUDA_T * 4u, code);
            kernel = cu_kernel(agree ? FMAG_CU_lanebu : FMAG_CU_laneb, rf, k);
        }
    }
    if (kernel < 0) {
        fmag_gpu_err(err, errlen, "CUDA: no kernel for this launch (rf %u, %u elements a thread)",
                     (unsigned)rf, (unsigned)k);
        return false;
    }
    pl->kernel = kernel, pl->rf = rf, pl->rows = rows, pl->k = k, pl->shared = shared;
    return true;
}

/* The program's code and table on the device: records in constant memory (kept there while
 * the next launch runs the same records), else the code buffer. */
static bool upload_program(fmag_gpu_cuda *c, const fmag_gpu_job *job, cu_plan *pl, char *err,
                           size_t errlen)
{
    fmag_cuda_args_c *a = &pl->a;
    if (pl->spec) {
        size_t bytes = (size_t)a->ninstr * 16;
        if (!c->ucode_valid || c->nucode != a->ninstr || memcmp(c->ucode, pl->code, bytes)) {
            CUdeviceptr cst;
            size_t csz;
            c->ucode_valid = false;
            if (!cu_ok(c, c->cuModuleGetGlobal_v2(&cst, &csz, c->mod, "fmag_cuda_ucode"),
                       "cuModuleGetGlobal", err, errlen) ||
                (bytes &&
                 !cu_ok(c, c->cuMemcpyHtoD_v2(cst, pl->code, bytes), "cuMemcpyHtoD", err, errlen)))
                return false;
            memcpy(c->ucode, pl->code, bytes);
            c->nucode = a->ninstr, c->ucode_valid = true;
        }
    } else if (!cu_reserve(c, &c->code, pl->ncode * 16, err, errlen) ||
               (pl->ncode && !cu_ok(c, c->cuMemcpyHtoD_v2(c->code.ptr, pl->code, pl->ncode * 16),
                                    "cuMemcpyHtoD", err, errlen))) {
        return false;
    }
    if (!cu_reserve(c, &c->progs, job->nprogs * 16, err, errlen) ||
        !cu_ok(c, c->cuMemcpyHtoD_v2(c->progs.ptr, pl->tab, job->nprogs * 16), "cuMemcpyHtoD", err,
               errlen))
        return false;
    a->code = c->code.ptr, a->progs = c->progs.ptr;
    return true;
}

static bool launch(fmag_gpu_cuda *c, const cu_plan *pl, fmag_cuda_args_c *a, void *stream,
                   char *err, size_t errlen)
{
    CUfunction f = pl->baked ? pl->baked : cu_function(c, pl->kernel, pl->shared, err, errlen);
    if (!f) return false;
    unsigned smem = pl->shared ? (pl->rows ? pl->rows : pl->rf) * pl->k * FMAG_CUDA_T * 4u : 0u;
    unsigned per = pl->shared ? pl->k * FMAG_CUDA_T : FMAG_CUDA_T;
    unsigned grid = (a->n + per - 1) / per;
    void *params[] = {a};
    ++c->count.launches;
    return cu_ok(c, c->cuLaunchKernel(f, grid, 1, 1, FMAG_CUDA_T, 1, 1, smem, stream, params, NULL),
                 "cuLaunchKernel", err, errlen);
}

/* The NaN census of elements [0, n) of the input image at in (fmag_cuda.cuh), into the
 * four words at census, on stream s. */
static bool census(fmag_gpu_cuda *c, CUdeviceptr in, uint32_t n, uint32_t nin, uint32_t in_elem,
                   uint32_t in_col, CUdeviceptr words, void *s, char *err, size_t errlen)
{
    if (!cu_ok(c, c->cuMemsetD32Async(words, 0, 4, s), "cuMemsetD32Async", err, errlen))
        return false;
    if (!nin) return true;
    void *params[] = {&in, &n, &nin, &in_elem, &in_col, &words};
    return cu_ok(c,
                 c->cuLaunchKernel(c->scan, (n + FMAG_CUDA_T - 1) / FMAG_CUDA_T, 1, 1, FMAG_CUDA_T,
                                   1, 1, 0, s, params, NULL),
                 "cuLaunchKernel(fmag_nan_scan)", err, errlen);
}

/* False when the census found 0x7FFFFFFF among the inputs and no free substitute pattern. */
static bool census_ok(const uint32_t *w, char *err, size_t errlen)
{
    if (!(w[3] >> 31) || (w[0] & w[1] & w[2] & (w[3] | 0x80000000u)) != 0xFFFFFFFFu) return true;
    fmag_gpu_err(err, errlen,
                 "the inputs use every NaN pattern 0x7FFFFF80-0x7FFFFFFF: the CUDA runner could "
                 "not tell an input NaN 0x7FFFFFFF from a computed one");
    return false;
}

/* One chunk of a pipelined launch: elements [e0, e1) and where they lie in the images (one
 * run of rows, or a piece of every column). */
typedef struct cu_chunk {
    size_t e0, e1, in_at, in_len, out_at, out_len;
} cu_chunk;

static cu_chunk chunk_at(const fmag_gpu_job *job, size_t e0, size_t chunk)
{
    uint32_t ie, ic, oe, oc;
    fmag_gpu_strides(job, &ie, &ic, &oe, &oc);
    bool cols = job->layout == FMAG_GPU_COLUMNS;
    cu_chunk k;
    k.e0 = e0, k.e1 = e0 + chunk < job->n ? e0 + chunk : job->n;
    size_t m = k.e1 - e0;
    k.in_at = cols ? e0 : e0 * ie, k.in_len = cols ? m : m * ie;
    k.out_at = cols ? e0 : e0 * oe, k.out_len = cols ? m : m * oe;
    return k;
}

/* Queues chunk k's upload on stream s: from the caller's arrays (direct: the device image has
 * their layout; the driver stages pageable memory itself) or packed into pinned staging. */
static bool queue_inputs(fmag_gpu_cuda *c, const fmag_gpu_job *job, const cu_chunk *k, bool direct,
                         void *s, char *err, size_t errlen)
{
    bool cols = job->layout == FMAG_GPU_COLUMNS, ok = true;
    float *h_in = c->h_in;
    if (!direct) fmag_gpu_pack_inputs(job, h_in, k->e0, k->e1);
    for (size_t i = 0; ok && k->in_len && (cols || job->in) && i < (cols ? job->max_nin : 1); ++i) {
        size_t w = k->in_at + i * job->n;
        const float *src = !direct ? h_in + w : cols ? job->in_cols[i] + k->e0 : job->in + w;
        ok = cu_ok(c, c->cuMemcpyHtoDAsync_v2(c->in.ptr + w * 4, src, k->in_len * 4, s),
                   "cuMemcpyHtoDAsync", err, errlen);
    }
    if (ok && job->prog_index) {
        size_t m = k->e1 - k->e0;
        const uint32_t *src = job->prog_index + k->e0;
        if (!direct) {
            uint32_t *h_idx = (uint32_t *)(h_in + fmag_gpu_in_words(job)) + k->e0;
            memcpy(h_idx, src, m * 4);
            src = h_idx;
        }
        ok = cu_ok(c, c->cuMemcpyHtoDAsync_v2(c->index.ptr + k->e0 * 4, src, m * 4, s),
                   "cuMemcpyHtoDAsync", err, errlen);
    }
    return ok;
}

/* Queues chunk k's read-back on stream s: into the caller's arrays (direct) or pinned
 * staging, then the census and the chunk's event. */
static bool queue_outputs(fmag_gpu_cuda *c, const fmag_gpu_job *job, const cu_chunk *k,
                          unsigned idx, bool direct, void *s, char *err, size_t errlen)
{
    bool cols = job->layout == FMAG_GPU_COLUMNS, ok = true;
    for (size_t i = 0; ok && k->out_len && i < (cols ? job->max_nout : 1); ++i) {
        size_t w = k->out_at + i * job->n;
        float *dst = !direct ? (float *)c->h_out + w
                     : cols  ? job->out_cols[i] + k->e0
                             : job->out + w;
        ok = cu_ok(c, c->cuMemcpyDtoHAsync_v2(dst, c->out.ptr + w * 4, k->out_len * 4, s),
                   "cuMemcpyDtoHAsync", err, errlen);
    }
    return ok &&
           cu_ok(c, c->cuMemcpyDtoHAsync_v2(c->h_nan + 4 * idx, c->nan.ptr + idx * 16u, 16, s),
                 "cuMemcpyDtoHAsync", err, errlen) &&
           cu_ok(c, c->cuEventRecord(c->event[idx], s), "cuEventRecord", err, errlen);
}

/* Timing (job->reps): launches of the whole job on its resident data, a the one chunk's args;
 * the first launch warms up and is not counted. */
static bool time_launches(fmag_gpu_cuda *c, const fmag_gpu_job *job, cu_plan *pl,
                          fmag_cuda_args_c *a, char *err, size_t errlen)
{
    double *t = calloc(job->reps + 1, sizeof *t);
    if (!t) {
        fmag_gpu_err(err, errlen, "out of memory");
        return false;
    }
    bool ok = true;
    for (unsigned r = 0; ok && r < job->reps + 1; ++r) {
        double t0 = fmag_gpu_now_ms();
        ok = launch(c, pl, a, c->stream[0], err, errlen) &&
             cu_ok(c, c->cuStreamSynchronize(c->stream[0]), "kernel", err, errlen);
        t[r] = fmag_gpu_now_ms() - t0;
    }
    if (ok) *job->median_ms = fmag_gpu_median(t + 1, job->reps);
    free(t);
    return ok;
}

/* Host arrays: the pipelined copies. Chunk by chunk the host queues the upload, the census
 * and the kernel on one of two streams, then the read-back of the chunk before, so that a
 * chunk's copies overlap the kernel of its neighbour; then it waits for the chunks in turn
 * (and unpacks those read back into staging). The copies go straight from and to the
 * caller's arrays where their layout is the device image's (inputs always; outputs when
 * dense or columns), else through pinned staging (fmag_gpu_runner_set_host_staging). */
static bool run_host(fmag_gpu_cuda *c, const fmag_gpu_job *job, cu_plan *pl, char *err,
                     size_t errlen)
{
    size_t n = job->n, inw = fmag_gpu_in_words(job), outw = fmag_gpu_out_words(job);
    size_t idx_bytes = job->prog_index ? n * 4 : 0;
    bool cols = job->layout == FMAG_GPU_COLUMNS;
    bool direct_in = !c->staged;
    bool direct_out =
        !c->staged && (cols || (!job->prog_index && job->progs[0]->nout == job->out_stride));
    if (!cu_reserve(c, &c->in, inw * 4, err, errlen) ||
        !cu_reserve(c, &c->out, outw * 4, err, errlen) ||
        !cu_reserve(c, &c->index, idx_bytes, err, errlen) ||
        !cu_reserve(c, &c->nan, FMAG_CU_MAX_CHUNKS * 16, err, errlen) ||
        (!direct_in &&
         !cu_reserve_host(c, &c->h_in, &c->h_in_cap, inw * 4 + idx_bytes, err, errlen)) ||
        (!direct_out && !cu_reserve_host(c, &c->h_out, &c->h_out_cap, outw * 4, err, errlen)))
        return false;
    uint32_t ie, ic, oe, oc;
    fmag_gpu_strides(job, &ie, &ic, &oe, &oc);
    size_t chunk = job->reps ? n : fmag_gpu_chunk_elems(job, 1024);
    if ((n + chunk - 1) / chunk > FMAG_CU_MAX_CHUNKS)
        chunk = ((n + FMAG_CU_MAX_CHUNKS - 1) / FMAG_CU_MAX_CHUNKS + 1023) / 1024 * 1024;
    fmag_cuda_args_c a = pl->a;
    a.in_stride = ie, a.in_col = ic, a.out_stride = oe, a.out_col = oc;
    bool ok = true;
    unsigned nchunks = 0, nqueued = 0;
    for (size_t e0 = 0; ok && e0 < n; e0 += chunk, ++nchunks) {
        cu_chunk k = chunk_at(job, e0, chunk);
        void *s = c->stream[nchunks % FMAG_CU_STREAMS];
        a.in = c->in.ptr + k.in_at * 4, a.out = c->out.ptr + k.out_at * 4;
        a.prog_index = c->index.ptr + e0 * 4, a.n = (uint32_t)(k.e1 - e0);
        a.nan = c->nan.ptr + nchunks * 16u;
        /* baked code canonicalizes its own NaNs: its census is the zeroed words alone */
        ok = queue_inputs(c, job, &k, direct_in, s, err, errlen) &&
             census(c, a.in, a.n, pl->baked ? 0 : job->max_nin, ie, ic, a.nan, s, err, errlen) &&
             launch(c, pl, &a, s, err, errlen);
        if (ok && nchunks > 0) {
            cu_chunk prev = chunk_at(job, e0 - chunk, chunk);
            ok = queue_outputs(c, job, &prev, nchunks - 1, direct_out,
                               c->stream[(nchunks - 1) % FMAG_CU_STREAMS], err, errlen);
            nqueued += ok;
        }
    }
    if (ok && nchunks > 0) {
        cu_chunk last = chunk_at(job, (size_t)(nchunks - 1) * chunk, chunk);
        ok = queue_outputs(c, job, &last, nchunks - 1, direct_out,
                           c->stream[(nchunks - 1) % FMAG_CU_STREAMS], err, errlen);
        nqueued += ok;
    }
    c->count.chunks += nchunks;
    /* every queued chunk is waited for, also after an error: the staging stays in use */
    for (unsigned i = 0; i < nqueued; ++i) {
        bool done = cu_ok(c, c->cuEventSynchronize(c->event[i]), "kernel", err, errlen);
        ok = ok && done && census_ok(c->h_nan + 4 * i, err, errlen);
        if (ok && !direct_out) {
            cu_chunk k = chunk_at(job, (size_t)i * chunk, chunk);
            fmag_gpu_unpack_outputs(job, c->h_out, k.e0, k.e1);
        }
    }
    if (!ok) /* chunks queued without their read-back: let the streams drain */
        for (unsigned i = 0; i < FMAG_CU_STREAMS; ++i)
            c->cuStreamSynchronize(c->stream[i]);
    return ok && (!job->reps || time_launches(c, job, pl, &a, err, errlen));
}

/* The caller's device buffers: the census and the kernel on them, nothing copied. */
static bool run_device(fmag_gpu_cuda *c, const fmag_gpu_job *job, cu_plan *pl, char *err,
                       size_t errlen)
{
    if (!cu_reserve(c, &c->nan, FMAG_CU_MAX_CHUNKS * 16, err, errlen)) return false;
    fmag_cuda_args_c a = pl->a;
    a.in = (CUdeviceptr)(job->dev_in.handle + job->dev_in.offset);
    a.out = (CUdeviceptr)(job->dev_out.handle + job->dev_out.offset);
    a.in_stride = (uint32_t)job->in_stride, a.in_col = 1;
    a.out_stride = (uint32_t)job->out_stride, a.out_col = 1;
    a.n = (uint32_t)job->n, a.nan = c->nan.ptr, a.prog_index = 0;
    void *s = c->stream[0];
    ++c->count.chunks;
    return census(c, a.in, a.n, pl->baked ? 0 : job->max_nin, a.in_stride, 1, a.nan, s, err,
                  errlen) &&
           launch(c, pl, &a, s, err, errlen) &&
           cu_ok(c, c->cuMemcpyDtoHAsync_v2(c->h_nan, a.nan, 16, s), "cuMemcpyDtoHAsync", err,
                 errlen) &&
           cu_ok(c, c->cuStreamSynchronize(s), "kernel", err, errlen) &&
           census_ok(c->h_nan, err, errlen) &&
           (!job->reps || time_launches(c, job, pl, &a, err, errlen));
}

static bool cu_run(void *impl, const fmag_gpu_job *job, char *err, size_t errlen)
{
    fmag_gpu_cuda *c = impl;
    if (!cu_ok(c, c->cuCtxSetCurrent(c->ctx), "cuCtxSetCurrent", err, errlen)) return false;
    cu_plan pl;
    bool ok;
    if (job->native) { /* baked (Tier.c): its kernel over the job's images */
        memset(&pl, 0, sizeof pl);
        pl.baked = ((const fmag_cu_baked *)job->native)->fn;
        pl.a.evals = job->evals;
        ok = true;
    } else {
        ok = plan_launch(job, &pl, err, errlen) && upload_program(c, job, &pl, err, errlen);
    }
    if (ok)
        ok = job->layout == FMAG_GPU_DEVICE ? run_device(c, job, &pl, err, errlen)
                                            : run_host(c, job, &pl, err, errlen);
    if (ok)
        snprintf(c->last, sizeof c->last, "%s",
                 pl.baked ? "baked" : fmag_cu_kernels[pl.kernel].name);
    free(pl.code);
    free(pl.tab);
    return ok;
}

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

static bool cu_baker(void *impl, struct fmag_gpu_baker *out)
{
    return fmag_gpu_cuda_baker(impl, out);
}

static void cu_last_launch(void *impl, char *buf, size_t len)
{
    fmag_gpu_cuda *c = impl;
    snprintf(buf, len, "%s", c->last);
}

static bool cu_native(void *impl, fmag_gpu_native *out)
{
    fmag_gpu_cuda *c = impl;
    out->api = FMAG_GPU_CUDA;
    out->cuda_device = c->dev;
    return true;
}

/* --- Per-lane binning on the device (the fmag_bin_* kernels; Bin.c launches the groups). */

/* Launches helper kernel h over n threads on stream 0 with params. */
static bool bin_launch(fmag_gpu_cuda *c, int h, size_t n, void **params, char *err, size_t errlen)
{
    ++c->count.launches;
    unsigned grid = (unsigned)((n + FMAG_CUDA_T - 1) / FMAG_CUDA_T);
    return cu_ok(c,
                 c->cuLaunchKernel(c->helper[h], grid ? grid : 1, 1, 1, FMAG_CUDA_T, 1, 1, 0,
                                   c->stream[0], params, NULL),
                 fmag_cu_helper_names[h], err, errlen);
}

static bool cu_bin_count(void *impl, const fmag_gpu_job *job, uint32_t *counts, char *err,
                         size_t errlen)
{
    fmag_gpu_cuda *c = impl;
    size_t in_bytes = job->n * job->in_stride * 4, out_bytes = job->n * job->out_stride * 4;
    unsigned n = (unsigned)job->n, nprogs = (unsigned)job->nprogs;
    if (!cu_ok(c, c->cuCtxSetCurrent(c->ctx), "cuCtxSetCurrent", err, errlen) ||
        !cu_reserve(c, &c->bin_counts, 2 * job->nprogs * 4, err, errlen) ||
        !cu_reserve(c, &c->bin_index, job->n * 4, err, errlen) ||
        !cu_reserve(c, &c->bin_rows, in_bytes > out_bytes ? in_bytes : out_bytes, err, errlen))
        return false;
    void *params[] = {&c->bin_index.ptr, &n, &nprogs, &c->bin_counts.ptr};
    return cu_ok(c, c->cuMemcpyHtoD_v2(c->bin_index.ptr, job->prog_index, job->n * 4),
                 "cuMemcpyHtoD", err, errlen) &&
           (!in_bytes || !job->in ||
            cu_ok(c, c->cuMemcpyHtoD_v2(c->bin_rows.ptr, job->in, in_bytes), "cuMemcpyHtoD", err,
                  errlen)) &&
           cu_ok(c, c->cuMemsetD32Async(c->bin_counts.ptr, 0, job->nprogs, c->stream[0]),
                 "cuMemsetD32Async", err, errlen) &&
           bin_launch(c, FMAG_CU_HELPER_bin_count, job->n, params, err, errlen) &&
           cu_ok(c, c->cuStreamSynchronize(c->stream[0]), "fmag_bin_count", err, errlen) &&
           cu_ok(c, c->cuMemcpyDtoH_v2(counts, c->bin_counts.ptr, job->nprogs * 4), "cuMemcpyDtoH",
                 err, errlen);
}

static bool cu_bin_scatter(void *impl, const fmag_gpu_job *job, size_t slots, fmag_gpu_buffer *in,
                           fmag_gpu_buffer *out, char *err, size_t errlen)
{
    fmag_gpu_cuda *c = impl;
    unsigned n = (unsigned)job->n, nprogs = (unsigned)job->nprogs, align = FMAG_GPU_BIN_ALIGN;
    unsigned stride = (unsigned)job->in_stride;
    if (!cu_reserve(c, &c->bin_perm, slots * 4, err, errlen) ||
        !cu_reserve(c, &c->bin_in, slots * job->in_stride * 4, err, errlen) ||
        !cu_reserve(c, &c->bin_out, slots * job->out_stride * 4, err, errlen))
        return false;
    void *prefix[] = {&c->bin_counts.ptr, &nprogs, &align};
    void *scatter[] = {
        &c->bin_index.ptr, &n,     &nprogs, &c->bin_counts.ptr, &c->bin_perm.ptr, &c->bin_rows.ptr,
        &c->bin_in.ptr,    &stride};
    bool ok = cu_ok(c, c->cuMemsetD32Async(c->bin_perm.ptr, 0xFFFFFFFFu, slots, c->stream[0]),
                    "cuMemsetD32Async", err, errlen) &&
              bin_launch(c, FMAG_CU_HELPER_bin_prefix, 1, prefix, err, errlen) &&
              bin_launch(c, FMAG_CU_HELPER_bin_scatter, job->n, scatter, err, errlen) &&
              cu_ok(c, c->cuStreamSynchronize(c->stream[0]), "fmag_bin_scatter", err, errlen);
    c->count.device_bins += ok;
    in->handle = c->bin_in.ptr, in->offset = 0;
    out->handle = c->bin_out.ptr, out->offset = 0;
    return ok;
}

static bool cu_bin_gather(void *impl, const fmag_gpu_job *job, size_t slots, char *err,
                          size_t errlen)
{
    fmag_gpu_cuda *c = impl;
    size_t out_bytes = job->n * job->out_stride * 4;
    unsigned nslots = (unsigned)slots, stride = (unsigned)job->out_stride;
    void *params[] = {&c->bin_perm.ptr, &nslots, &c->bin_out.ptr, &c->bin_rows.ptr, &stride};
    bool ok = cu_ok(c, c->cuCtxSetCurrent(c->ctx), "cuCtxSetCurrent", err, errlen) &&
              cu_reserve_host(c, &c->h_out, &c->h_out_cap, out_bytes, err, errlen) &&
              bin_launch(c, FMAG_CU_HELPER_bin_back, slots, params, err, errlen) &&
              cu_ok(c, c->cuMemcpyDtoHAsync_v2(c->h_out, c->bin_rows.ptr, out_bytes, c->stream[0]),
                    "cuMemcpyDtoHAsync", err, errlen) &&
              cu_ok(c, c->cuStreamSynchronize(c->stream[0]), "fmag_bin_back", err, errlen);
    if (ok) fmag_gpu_unpack_outputs(job, c->h_out, 0, job->n);
    return ok;
}

static void cu_set_staged(void *impl, bool staged)
{
    ((fmag_gpu_cuda *)impl)->staged = staged;
}

static void cu_counters(void *impl, fmag_gpu_counters *out)
{
    *out = ((fmag_gpu_cuda *)impl)->count;
}

const fmag_gpu_backend fmag_gpu_cuda_backend = {
    .name = "cuda",
    .max_regs = FMAG_GPU_CUDA_MAX_REGS,
    .create = cu_create,
    .destroy = cu_destroy,
    .run = cu_run,
    .last_launch = cu_last_launch,
    .native = cu_native,
    .counters = cu_counters,
    .set_staged = cu_set_staged,
    .baker = cu_baker,
    .bin_count = cu_bin_count,
    .bin_scatter = cu_bin_scatter,
    .bin_gather = cu_bin_gather,
};
