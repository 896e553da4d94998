/* The CUDA baker (Bake.h): a program's emitted CUDA (lib/VM/EmitSource.c) with an entry
 * kernel over the interpreter's argument block, compiled by NVRTC to a cubin for the
 * device's architecture, then a module. NVRTC is loaded at run time (dlopen), as the
 * driver is: a machine without it interprets (the bake log says why). */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "Bake.h"
#include "GPUInternal.h"

/* NVRTC's C API (nvrtc.h), declared here so that no CUDA header is needed. */
typedef void *nvrtc_program;
#define NVRTC_FUNCS(X)                                                                             \
    X(nvrtcCreateProgram, (nvrtc_program *, const char *, const char *, int, const char *const *,  \
                           const char *const *))                                                   \
    X(nvrtcCompileProgram, (nvrtc_program, int, const char *const *))                              \
    X(nvrtcGetProgramLogSize, (nvrtc_program, size_t *))                                           \
    X(nvrtcGetProgramLog, (nvrtc_program, char *))                                                 \
    X(nvrtcGetCUBINSize, (nvrtc_program, size_t *))                                                \
    X(nvrtcGetCUBIN, (nvrtc_program, char *))                                                      \
    X(nvrtcDestroyProgram, (nvrtc_program *))

typedef struct cu_baker {
    fmag_gpu_cuda *cuda;
    bool tried; /* loading NVRTC was tried (on the bake thread, at the first bake) */
    void *lib;
    char why[256];
#define X(name, args) int(*name) args;
    NVRTC_FUNCS(X)
#undef X
} cu_baker;

static bool load_nvrtc(cu_baker *b)
{
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                                        "/usr/local/cuda/lib64/libnvrtc.so"};
    b->tried = true;
    for (size_t i = 0; i < sizeof names / sizeof *names && !b->lib; ++i)
        b->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!b->lib) {
        snprintf(b->why, sizeof b->why, "no CUDA compiler: cannot load libnvrtc (NVRTC)");
        return false;
    }
#define X(name, args)                                                                              \
    *(void **)&b->name = dlsym(b->lib, #name);                                                     \
    if (!b->name) {                                                                                \
        snprintf(b->why, sizeof b->why, "libnvrtc lacks %s", #name);                               \
        dlclose(b->lib);                                                                           \
        b->lib = NULL;                                                                             \
        return false;                                                                              \
    }
    NVRTC_FUNCS(X)
#undef X
    return true;
}

/* The entry: element e = block * blockDim + thread; the argument block is CudaRunner.c's
 * fmag_cuda_args_c (input i of element e at in[e * in_stride + i * in_col], likewise out);
 * evaluation ev > 0 (benchmarks) adds ev/16 to each input and sums the outputs with
 * __fadd_rn, as the interpreter's kernels do. */
static const char entry_fmt[] =
    "struct fmag_bk_args {\n"
    "    unsigned long long code, progs, prog_index, in, out, nan;\n"
    "    unsigned n, in_stride, out_stride, ninstr, nprogs, nin, nout, regs;\n"
    "    unsigned evals, zero_init, in_col, out_col;\n};\n"
    "extern \"C\" __global__ void fmag_baked_entry(fmag_bk_args a)\n{\n"
    "    unsigned e = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (e >= a.n) return;\n"
    "    const float *in = (const float *)a.in + (size_t)e * a.in_stride;\n"
    "    float *out = (float *)a.out + (size_t)e * a.out_stride;\n"
    "    float fi[%u], fo[%u];\n"
    "    for (unsigned i = 0; i < %uu; ++i) fi[i] = 0.0f;\n"
    "    for (unsigned ev = 0; ev < a.evals; ++ev) {\n"
    "        for (unsigned i = 0; i < %uu; ++i) {\n"
    "            float v = in[(size_t)i * a.in_col];\n"
    "            fi[i] = ev ? __fadd_rn(v, (float)ev * 0.0625f) : v;\n"
    "        }\n"
    "        fmag_baked_eval(0, fi, fo);\n"
    "        for (unsigned i = 0; i < %uu; ++i) {\n"
    "            float *o = out + (size_t)i * a.out_col;\n"
    "            *o = ev ? __fadd_rn(*o, fo[i]) : fo[i];\n"
    "        }\n"
    "    }\n}\n";

static char *kernel_source(const fmag_vm_program *p, bool nan_agnostic, char *err, size_t errlen)
{
    char *body = NULL;
    size_t blen = 0;
    fmag_vm_emit_options eo = {"fmag_baked_", nan_agnostic};
    if (!fmag_vm_emit_source_opts(&p, 1, FMAG_VM_EMIT_CUDA, &eo, &body, &blen, err, errlen))
        return NULL;
    size_t cap = blen + sizeof entry_fmt + 64;
    char *src = malloc(cap);
    if (!src) {
        free(body);
        fmag_gpu_err(err, errlen, "out of memory");
        return NULL;
    }
    unsigned maxin = p->nin ? p->nin : 1, maxout = p->nout ? p->nout : 1;
    memcpy(src, body, blen);
    snprintf(src + blen, cap - blen, entry_fmt, maxin, maxout, maxin, (unsigned)p->nin,
             (unsigned)p->nout);
    free(body);
    return src;
}

static void *cu_compile(void *user, const fmag_vm_program *p, bool nan_agnostic, size_t *len,
                        char *err, size_t errlen)
{
    cu_baker *b = user;
    if (!b->tried) load_nvrtc(b);
    if (!b->lib) {
        fmag_gpu_err(err, errlen, "%s", b->why);
        return NULL;
    }
    char *src = kernel_source(p, nan_agnostic, err, errlen);
    if (!src) return NULL;
    /* NVRTC has size_t built in and no system headers: the emitted includes get these */
    static const char *const hdr[] = {"\n", "typedef unsigned int uint32_t;\n"};
    static const char *const hdr_name[] = {"stddef.h", "stdint.h"};
    int maj = 0, min = 0;
    fmag_gpu_cuda_arch(b->cuda, &maj, &min);
    char arch[32];
    snprintf(arch, sizeof arch, "-arch=sm_%d%d", maj, min);
    /* no contraction: the evaluations' sums stay separate adds, as in the interpreter */
    const char *opts[] = {arch, "--fmad=false"};
    nvrtc_program prog = NULL;
    char *cubin = NULL;
    int rc = b->nvrtcCreateProgram(&prog, src, "fmag_baked.cu", 2, hdr, hdr_name);
    free(src);
    if (rc != 0) {
        fmag_gpu_err(err, errlen, "NVRTC: nvrtcCreateProgram failed (%d)", rc);
        return NULL;
    }
    rc = b->nvrtcCompileProgram(prog, 2, opts);
    size_t size = 0;
    if (rc != 0) {
        char log[512] = "";
        size_t n = 0;
        if (b->nvrtcGetProgramLogSize(prog, &n) == 0 && n > 0) {
            char *full = malloc(n);
            if (full && b->nvrtcGetProgramLog(prog, full) == 0)
                snprintf(log, sizeof log, "%.*s", (int)strcspn(full, "\n"), full);
            free(full);
        }
        fmag_gpu_err(err, errlen, "NVRTC: compile failed (%d): %s", rc, log);
    } else if (b->nvrtcGetCUBINSize(prog, &size) != 0 || size == 0) {
        fmag_gpu_err(err, errlen, "NVRTC: no cubin");
    } else {
        cubin = malloc(size);
        if (!cubin) {
            fmag_gpu_err(err, errlen, "out of memory");
        } else if (b->nvrtcGetCUBIN(prog, cubin) != 0) {
            fmag_gpu_err(err, errlen, "NVRTC: nvrtcGetCUBIN failed");
            free(cubin);
            cubin = NULL;
        }
        *len = size;
    }
    b->nvrtcDestroyProgram(&prog);
    return cubin;
}

static void *cu_load(void *user, const void *blob, size_t len, char *err, size_t errlen)
{
    (void)len;
    return fmag_gpu_cuda_module_load(((cu_baker *)user)->cuda, blob, "fmag_baked_entry", err,
                                     errlen);
}

static void cu_release(void *user, void *native)
{
    fmag_gpu_cuda_module_release(((cu_baker *)user)->cuda, native);
}

static void cu_baker_destroy(void *user)
{
    cu_baker *b = user;
#if !defined(__SANITIZE_ADDRESS__)
    if (b->lib) dlclose(b->lib);
#endif
    free(b);
}

bool fmag_gpu_cuda_baker(fmag_gpu_cuda *c, struct fmag_gpu_baker *out)
{
    cu_baker *b = calloc(1, sizeof *b);
    if (!b) return false;
    b->cuda = c;
    *out = (fmag_gpu_baker){b, cu_compile, cu_load, cu_release, cu_baker_destroy, false};
    return true;
}
