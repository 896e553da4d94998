/* The Vulkan baker (Bake.h): a program's emitted GLSL (lib/VM/EmitSource.c) inside a compute
 * shader with the interpreter's bindings and push constants, compiled by shaderc to SPIR-V,
 * then a pipeline over the runner's layout. shaderc is loaded at run time (its C API), as
 * the Vulkan loader is: lib/GPU links no compiler, and a machine without shaderc interprets
 * (the bake log says why). */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "Bake.h"
#include "GPUInternal.h"

#ifndef FMAG_GPU_HAVE_VULKAN
bool fmag_gpu_vk_baker(fmag_gpu_vk *vk, struct fmag_gpu_baker *out)
{
    (void)vk, (void)out;
    return false;
}
#else

/* libfmag-shaderc.so (lib/GPU/shaderc/ShadercModule.c): shaderc behind three functions. */
#define SHC_FUNCS(X)                                                                               \
    X(fmag_shaderc_open, void *, (void))                                                           \
    X(fmag_shaderc_close, void, (void *))                                                          \
    X(fmag_shaderc_compute_to_spirv, bool,                                                         \
      (void *, const char *, size_t, uint32_t **, size_t *, char *, size_t))

typedef struct vk_baker {
    fmag_gpu_vk *vk;
    bool tried; /* loading the module was tried (on the bake thread, at the first bake) */
    void *lib;
    char why[256]; /* why there is no compiler */
#define X(name, ret, args) ret(*name) args;
    SHC_FUNCS(X)
#undef X
    void *compiler; /* used by the bake thread only */
} vk_baker;

/* Where the module is: FMAG_SHADERC_LIBRARY, where this build made it, the library path. */
static bool load_shaderc(vk_baker *b)
{
    const char *names[] = {getenv("FMAG_SHADERC_LIBRARY"),
#ifdef FMAG_GPU_SHADERC_MODULE
                           FMAG_GPU_SHADERC_MODULE,
#endif
                           "libfmag-shaderc.so"};
    b->tried = true;
    for (size_t i = 0; i < sizeof names / sizeof *names && !b->lib; ++i)
        if (names[i] && *names[i]) b->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!b->lib) {
        snprintf(b->why, sizeof b->why,
                 "no GLSL compiler: cannot load libfmag-shaderc.so (FMAG_SHADERC_LIBRARY)");
        return false;
    }
#define X(name, ret, args)                                                                         \
    *(void **)&b->name = dlsym(b->lib, #name);                                                     \
    if (!b->name) {                                                                                \
        snprintf(b->why, sizeof b->why, "libfmag-shaderc.so lacks %s", #name);                     \
        return false;                                                                              \
    }
    SHC_FUNCS(X)
#undef X
    b->compiler = b->fmag_shaderc_open();
    if (!b->compiler) snprintf(b->why, sizeof b->why, "shaderc_compiler_initialize failed");
    return b->compiler != NULL;
}

/* The compute shader: element e = base + workgroup * 64 + invocation runs the program;
 * evaluation ev > 0 (benchmarks) adds ev/16 to each input and sums the outputs, as the
 * interpreters do. The bindings and push constants are gpu/fmag_fast.comp's (input i of
 * element e at inp[e * in_stride + i * in_col], likewise out). */
static char *shader_source(const fmag_vm_program *p, bool soft, bool nan_agnostic, char *err,
                           size_t errlen)
{
    char *body = NULL;
    size_t blen = 0;
    fmag_vm_emit_options eo = {"fmag_baked_", nan_agnostic};
    if (!fmag_vm_emit_source_opts(&p, 1, FMAG_VM_EMIT_GLSL, &eo, &body, &blen, err, errlen))
        return NULL;
    unsigned maxin = p->nin ? p->nin : 1, maxout = p->nout ? p->nout : 1;
    static const char head[] = "#version 450\n"
                               "layout(local_size_x = 64) in;\n"
                               "#define FMAG_SOFT_FMA %d\n";
    static const char tail[] =
        "layout(std430, binding = 3) readonly buffer In { float inp[]; };\n"
        "layout(std430, binding = 4) buffer Out { float outp[]; };\n"
        "layout(push_constant) uniform PC\n{\n"
        "    uint n, in_stride, out_stride, nprogs;\n"
        "    uint per_lane, evals, base, code_stride;\n"
        "    uint zero_init, ninstr, nin, nout;\n"
        "    uint lane_kinds, in_col, out_col, pad;\n} pc;\n"
        "void main()\n{\n"
        "    uint e = pc.base + gl_WorkGroupID.x * 64u + gl_LocalInvocationID.x;\n"
        "    if (e >= pc.n) return;\n"
        "    float fi[%u], fo[%u];\n"
        "    for (uint i = 0u; i < %uu; ++i) fi[i] = 0.0;\n"
        "    for (uint i = 0u; i < %uu; ++i) fo[i] = 0.0;\n"
        "    for (uint ev = 0u; ev < pc.evals; ++ev) {\n"
        "        for (uint i = 0u; i < %uu; ++i) {\n"
        "            float v = inp[e * pc.in_stride + i * pc.in_col];\n"
        "            fi[i] = ev == 0u ? v : v + float(ev) * 0.0625;\n"
        "        }\n"
        "        fmag_baked_eval(0u, fi, fo);\n"
        "        for (uint i = 0u; i < %uu; ++i) {\n"
        "            uint o = e * pc.out_stride + i * pc.out_col;\n"
        "            outp[o] = ev == 0u ? fo[i] : outp[o] + fo[i];\n"
        "        }\n"
        "    }\n}\n";
    size_t cap = blen + sizeof head + sizeof tail + 128;
    char *src = malloc(cap);
    if (!src) {
        free(body);
        fmag_gpu_err(err, errlen, "out of memory");
        return NULL;
    }
    size_t at = (size_t)snprintf(src, cap, head, soft ? 1 : 0);
    memcpy(src + at, body, blen);
    at += blen;
    snprintf(src + at, cap - at, tail, maxin, maxout, maxin, maxout, (unsigned)p->nin,
             (unsigned)p->nout);
    free(body);
    return src;
}

static void *vk_compile(void *user, const fmag_vm_program *p, bool nan_agnostic, size_t *len,
                        char *err, size_t errlen)
{
    vk_baker *b = user;
    if (!b->tried) load_shaderc(b);
    if (!b->compiler) {
        fmag_gpu_err(err, errlen, "%s", b->why);
        return NULL;
    }
    char *src = shader_source(p, fmag_gpu_vk_soft_fma(b->vk), nan_agnostic, err, errlen);
    if (!src) return NULL;
    uint32_t *words = NULL;
    b->fmag_shaderc_compute_to_spirv(b->compiler, src, strlen(src), &words, len, err, errlen);
    free(src);
    return words;
}

static void *vk_load(void *user, const void *blob, size_t len, char *err, size_t errlen)
{
    return fmag_gpu_vk_pipeline_from_spirv(((vk_baker *)user)->vk, blob, len / 4, err, errlen);
}

static void vk_release(void *user, void *native)
{
    fmag_gpu_vk_pipeline_release(((vk_baker *)user)->vk, native);
}

static void vk_baker_destroy(void *user)
{
    vk_baker *b = user;
    if (b->compiler) b->fmag_shaderc_close(b->compiler);
#if !defined(__SANITIZE_ADDRESS__)
    /* under ASan the module stays mapped, so that LeakSanitizer can name its leaks */
    if (b->lib) dlclose(b->lib);
#endif
    free(b);
}

bool fmag_gpu_vk_baker(fmag_gpu_vk *vk, struct fmag_gpu_baker *out)
{
    vk_baker *b = calloc(1, sizeof *b);
    if (!b) return false;
    b->vk = vk;
    *out = (fmag_gpu_baker){b,          vk_compile,       vk_load,
                            vk_release, vk_baker_destroy, fmag_gpu_vk_is_cpu(vk)};
    return true;
}
#endif
