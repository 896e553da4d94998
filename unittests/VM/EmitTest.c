/* The source emitters, run: random programs (register and literal operands, literal
 * guards, inputs with ±0, denormals, ±inf and NaN) are emitted as C, compiled with the
 * system C compiler (-O2 and -O3 -march=native, both -ffp-contract=off), loaded and
 * checked bit for bit against the reference VM; the CUDA text is compiled as C++ with
 * a few host stand-ins for the CUDA built-ins and checked the same way; the GLSL text (a
 * per-lane switch over five programs) is compiled with glslc and run on the Vulkan device
 * (lavapipe here) through EmitVulkan.c, with the Vulkan runner's rule for fma: software
 * fma always checked, hardware fma only on a driver that is not a CPU one. */
#define _POSIX_C_SOURCE 200809L
#include "fmag/VM.h"

#include "../Expect.h"
#include "EmitVulkan.h"
#include "RandomProgram.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK EXPECT

/* The programs and inputs: RandomProgram.h, shared with VMTest.c. */
static fmag_test_rng rng = {0x9E3779B97F4A7C15ull};
static uint32_t rnd(void)
{
    return fmag_test_rnd(&rng);
}
static float rnd_value(void)
{
    return fmag_test_rnd_value(&rng);
}

static fmag_vm_program rnd_prog(unsigned id)
{
    /* Names that need sanitizing and that clash after it. */
    static const char *const names[] = {"rnd", "a b", "a-b", "", "eval", "x_soa", "\xc3\xa9*/"};
    return fmag_test_rnd_program(&rng, 150, names[id % (sizeof names / sizeof names[0])]);
}

static bool write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

static char dir[] = "/tmp/fmag-emit-XXXXXX";

typedef size_t (*run_per_lane_fn)(size_t, const uint32_t *, const float *, size_t, float *, size_t);
typedef void (*soa_fn)(size_t, const float *const *, float *const *);

enum { NP = 14, N = 2000, STRIDE = 40 };

/* Compiles `src` (a file in dir) into a shared object with `cc_flags` and checks its
 * per-lane entry point (and, for C, each program's _soa loop) against the reference. */
static void check_compiled(const char *compiler, const char *src, const char *flags,
                           const fmag_vm_program *const *pp, const uint32_t *idx, const float *in,
                           const float *want, bool soa)
{
    char so[300], cmd[1200];
    static int count;
    snprintf(so, sizeof so, "%s/lib%d.so", dir, count++);
    snprintf(cmd, sizeof cmd, "%s %s -shared -fPIC -o %s %s", compiler, flags, so, src);
    int rc = system(cmd);
    CHECK(rc == 0);
    if (rc != 0) {
        fprintf(stderr, "failed: %s\n", cmd);
        return;
    }
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL);
    if (!h) return;
    run_per_lane_fn run;
    *(void **)&run = dlsym(h, "t_run_per_lane");
    CHECK(run != NULL);
    float *got = calloc(N * STRIDE, sizeof(float));
    if (run) {
        /* C returns how many elements ran; the CUDA kernel returns nothing. */
        size_t ran = run(N, idx, in, STRIDE, got, STRIDE);
        CHECK(!soa || ran == N);
        CHECK(memcmp(got, want, N * STRIDE * sizeof(float)) == 0);
        uint32_t bad = NP;
        ran = run(1, &bad, in, STRIDE, got, STRIDE);
        CHECK(!soa || ran == 0);
    }
    /* The structure-of-arrays loops, program by program: what the benchmarks time. */
    for (unsigned i = 0; soa && i < NP; i++) {
        const fmag_vm_program *p = pp[i];
        char fn[200];
        /* The names make_names gives (see the header). */
        static const char *const sym[NP] = {
            "t_rnd",    "t_a_b",    "t_a_b_p2", "t_p3",  "t_eval_p4",  "t_x_soa_p5",  "t_p6",
            "t_rnd_p7", "t_a_b_p8", "t_a_b_p9", "t_p10", "t_eval_p11", "t_x_soa_p12", "t_p13"};
        snprintf(fn, sizeof fn, "%s_soa", sym[i]);
        soa_fn f;
        *(void **)&f = dlsym(h, fn);
        CHECK(f != NULL);
        if (!f) {
            fprintf(stderr, "missing %s\n", fn);
            continue;
        }
        enum { M = 333 };
        float *cols = malloc((size_t)(p->nin + p->nout + 1) * M * sizeof(float));
        float *rows_in = calloc((size_t)M * STRIDE, sizeof(float));
        float *rows_want = calloc((size_t)M * STRIDE, sizeof(float));
        const float *ins[64];
        float *outs[64];
        float regs[64];
        for (unsigned j = 0; j < p->nin; j++)
            ins[j] = cols + (size_t)j * M;
        for (unsigned j = 0; j < p->nout; j++)
            outs[j] = cols + (size_t)(p->nin + j) * M;
        for (size_t k = 0; k < M; k++) {
            for (unsigned j = 0; j < p->nin; j++)
                rows_in[k * STRIDE + j] = cols[(size_t)j * M + k] = rnd_value();
            fmag_vm_run(p, rows_in + k * STRIDE, rows_want + k * STRIDE, regs);
        }
        f(M, ins, outs);
        bool same = true;
        for (size_t k = 0; k < M; k++)
            for (unsigned j = 0; j < p->nout; j++)
                same = same && fmag_vm_float_bits(outs[j][k]) ==
                                   fmag_vm_float_bits(rows_want[k * STRIDE + j]);
        CHECK(same);
        free(cols);
        free(rows_in);
        free(rows_want);
    }
    free(got);
    dlclose(h);
}

static const char cuda_shim[] = "#include <math.h>\n"
                                "#include <string.h>\n"
                                "#define __device__\n"
                                "#define __global__\n"
                                "#define __forceinline__ inline\n"
                                "static inline float __fmaf_rn(float a, float b, float c)\n"
                                "{ return fmaf(a, b, c); }\n"
                                "static inline float __int_as_float(int i)\n"
                                "{ float f; memcpy(&f, &i, 4); return f; }\n"
                                "struct fmag_dim3 { unsigned x; };\n"
                                "static const fmag_dim3 blockIdx = {0}, threadIdx = {0},\n"
                                "    blockDim = {1}, gridDim = {1};\n"
                                "extern \"C\" {\n";

int main(void)
{
    char err[256];
    if (!mkdtemp(dir)) {
        fprintf(stderr, "cannot make a temporary directory\n");
        return 1;
    }
    fmag_vm_program ps[NP];
    const fmag_vm_program *pp[NP];
    for (unsigned i = 0; i < NP; i++) {
        ps[i] = rnd_prog(i);
        pp[i] = &ps[i];
    }
    ps[3].ninstr = 0; /* an empty program: outputs are the inputs and zeros */
    uint32_t *idx = malloc(N * sizeof(uint32_t));
    float *in = malloc(N * STRIDE * sizeof(float));
    float *want = calloc(N * STRIDE, sizeof(float));
    for (size_t k = 0; k < N; k++)
        idx[k] = rnd() % NP;
    for (size_t k = 0; k < N * STRIDE; k++)
        in[k] = rnd_value();
    CHECK(fmag_vm_run_ref_per_lane(pp, NP, idx, in, STRIDE, want, STRIDE, N, err, sizeof err));

    /* Bad arguments are errors, not crashes. */
    char *text = NULL;
    CHECK(!fmag_vm_emit_source(pp, 0, FMAG_VM_EMIT_C, NULL, &text, NULL, err, sizeof err));
    CHECK(!fmag_vm_emit_source(pp, 1, FMAG_VM_EMIT_C, "1x", &text, NULL, err, sizeof err));
    CHECK(strstr(err, "not an identifier") != NULL);
    fmag_vm_emit_lang lang;
    CHECK(fmag_vm_emit_lang_parse("glsl", &lang) && lang == FMAG_VM_EMIT_GLSL);
    CHECK(!fmag_vm_emit_lang_parse("spirv", &lang));

    /* C, at -O2 and vectorized at -O3 -march=native. */
    char path[300];
    CHECK(fmag_vm_emit_source(pp, NP, FMAG_VM_EMIT_C, "t_", &text, NULL, err, sizeof err));
    snprintf(path, sizeof path, "%s/emit.c", dir);
    CHECK(text && write_file(path, text));
    const char *cc = getenv("CC") ? getenv("CC") : FMAG_TEST_CC;
    check_compiled(cc, path, "-O2 -ffp-contract=off -w", pp, idx, in, want, true);
    check_compiled(cc, path, "-O3 -march=native -ffp-contract=off -w", pp, idx, in, want, true);
    free(text);

    /* CUDA, its device code compiled for the host. */
    CHECK(fmag_vm_emit_source(pp, NP, FMAG_VM_EMIT_CUDA, "t_", &text, NULL, err, sizeof err));
    snprintf(path, sizeof path, "%s/emit.cpp", dir);
    if (text) {
        size_t len = strlen(cuda_shim) + strlen(text) + 8;
        char *both = malloc(len);
        snprintf(both, len, "%s%s}\n", cuda_shim, text);
        CHECK(write_file(path, both));
        free(both);
    }
    if (system("command -v c++ > /dev/null 2>&1") == 0)
        check_compiled("c++", path, "-O2 -ffp-contract=off -w", pp, idx, in, want, false);
    else
        fprintf(stderr, "note: no c++ compiler; the CUDA text was not compiled\n");
    free(text);

    /* GLSL: compiled with glslc (hardware fma and software fma) and run on the Vulkan
     * device (lavapipe here) through EmitVulkan.c; each element's record in the buffer is
     * [program, inputs (maxin), outputs (maxout)]. The software fma must match everywhere;
     * the hardware fma only on a device that is not a CPU driver (lavapipe does not fuse
     * fma() on every code path: the runner's rule). */
    /* Six programs: llvmpipe takes long to compile a big shader. */
    enum { NG = 5 };
    uint32_t *gidx = malloc(N * sizeof(uint32_t));
    float *gwant = calloc(N * STRIDE, sizeof(float));
    for (size_t k = 0; k < N; k++)
        gidx[k] = idx[k] % NG;
    CHECK(fmag_vm_run_ref_per_lane(pp, NG, gidx, in, STRIDE, gwant, STRIDE, N, err, sizeof err));
    CHECK(fmag_vm_emit_source(pp, NG, FMAG_VM_EMIT_GLSL, "t_", &text, NULL, err, sizeof err));
    unsigned maxin = 1, maxout = 1;
    for (unsigned i = 0; i < NG; i++) {
        if (ps[i].nin > maxin) maxin = ps[i].nin;
        if (ps[i].nout > maxout) maxout = ps[i].nout;
    }
    unsigned rec = 1 + maxin + maxout;
    if (text && system("command -v glslc > /dev/null 2>&1") == 0) {
        bool cpu = false;
        /* The hardware fma only where it can be checked: not on a CPU driver. */
        for (int soft = 1; soft >= 0 && (soft || !cpu); soft--) {
            snprintf(path, sizeof path, "%s/emit%d.comp", dir, soft);
            size_t len = strlen(text) + 1200;
            char *sh = malloc(len);
            snprintf(sh, len,
                     "#version 450\n#define FMAG_SOFT_FMA %d\nlayout(local_size_x = 64) in;\n"
                     "layout(std430, binding = 0) buffer B { float v[]; };\n"
                     "layout(push_constant) uniform P { uint n; };\n%s\n"
                     "void main()\n{\n    uint k = gl_GlobalInvocationID.x;\n"
                     "    if (k >= n) return;\n    uint base = k * %uu;\n"
                     "    float i[%u];\n    float o[%u];\n"
                     "    for (uint j = 0u; j < %uu; ++j) i[j] = v[base + 1u + j];\n"
                     "    for (uint j = 0u; j < %uu; ++j) o[j] = 0.0;\n"
                     "    t_eval(uint(v[base]), i, o);\n"
                     "    for (uint j = 0u; j < %uu; ++j) v[base + 1u + %uu + j] = o[j];\n}\n",
                     soft, text, rec, maxin, maxout, maxin, maxout, maxout, maxin);
            CHECK(write_file(path, sh));
            free(sh);
            char cmd[700], spv[300];
            snprintf(spv, sizeof spv, "%s/emit%d.spv", dir, soft);
            /* No -O: Debian 12's glslc (spirv-opt) crashed optimizing one of these shaders;
             * the driver optimizes anyway. */
            snprintf(cmd, sizeof cmd, "glslc --target-env=vulkan1.1 -o %s %s", spv, path);
            CHECK(system(cmd) == 0);
            float *buf = calloc((size_t)N * rec, sizeof(float));
            for (size_t k = 0; k < N; k++) {
                buf[k * rec] = (float)gidx[k];
                memcpy(buf + k * rec + 1, in + k * STRIDE, maxin * sizeof(float));
            }
            char vkerr[256];
            int rc = fmag_emit_vk_run(spv, buf, (size_t)N * rec, N, &cpu, vkerr, sizeof vkerr);
            if (rc == 77) {
                fprintf(stderr, "note: GLSL not run: %s\n", vkerr);
            } else {
                CHECK(rc == 0);
                if (rc) fprintf(stderr, "vulkan: %s\n", vkerr);
                size_t bad = 0;
                for (size_t k = 0; k < N && rc == 0; k++) {
                    const float *g = buf + k * rec + 1 + maxin, *w = gwant + k * STRIDE;
                    for (unsigned j = 0; j < pp[gidx[k]]->nout; j++)
                        if (memcmp(&g[j], &w[j], sizeof(float))) {
                            if (bad < 4 && (soft || !cpu))
                                fprintf(stderr, "element %zu (program %u) output %u: %a, want %a\n",
                                        k, (unsigned)gidx[k], j, (double)g[j], (double)w[j]);
                            bad++;
                            break;
                        }
                }
                if (soft || !cpu) CHECK(bad == 0);
                printf("GLSL on Vulkan (%s fma%s): %zu of %d elements differ\n",
                       soft ? "software" : "hardware", cpu ? ", CPU driver" : "", bad, N);
            }
            free(buf);
        }
    } else {
        fprintf(stderr, "note: no glslc; the GLSL text was not compiled\n");
    }
    free(text);
    free(gidx);
    free(gwant);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!failures && system(cmd) != 0) fprintf(stderr, "note: could not remove %s\n", dir);
    for (unsigned i = 0; i < NP; i++) {
        fmag_test_program_free(&ps[i]);
    }
    free(idx);
    free(in);
    free(want);
    printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
    return failures != 0;
}
