/* Fault injection through the GLSL/HLSL front door: one small GLSL and one small HLSL
 * shader compiled with the library (shaderc -> SPIR-V reader -> -O2 -> stream ->
 * reference VM) with the context's Nth allocation failing, for every N
 * (FMAG_FAULT_FULL=1) or a sample (the CTest default). Each run must either succeed
 * with the bits of the C oracle below or fail with an "out of memory" diagnostic; a
 * crash or (under ASan) a leak fails the test. glslang's own C++ allocations are
 * outside the hook (docs/Reliability.md): the sweep covers every allocation the
 * library makes around it. */
#include "../Expect.h"
#include "FaultHook.h"
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/SPIRV.h"
#include "fmag/Shader.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { NELEMS = 5, MAXOUT = 2 };

/* A loop (unrolled), a call (inlined), a select, an input from a struct in a uniform
 * block (the front's rewrites). Inputs a, p.q.b; outputs sum, big. */
static const char glsl_src[] = "in float a;\n"
                               "struct Q { float b; };\n"
                               "layout(std140) uniform Params { Q q; } p;\n"
                               "out float sum;\n"
                               "out float big;\n"
                               "float twice(float x) { return x + x; }\n"
                               "void main() {\n"
                               "    float s = 0.0;\n"
                               "    for (int i = 0; i < 4; i++) s += a;\n"
                               "    sum = s + twice(p.q.b);\n"
                               "    big = a > p.q.b ? a : p.q.b;\n"
                               "}\n";

/* A helper function and two intrinsics. Inputs x, y; output the result. */
static const char hlsl_src[] = "float spread(float x, float y) { return abs(x - y); }\n"
                               "float main(float x, float y) {\n"
                               "    return spread(x, y) + min(x, y);\n"
                               "}\n";

/* A compute shader, one function of which is the program (-entry spread): the front
 * blanks what the entry does not reach. Inputs x, y; output the result. */
static const char comp_src[] = "layout(local_size_x = 64) in;\n"
                               "shared float tile[64];\n"
                               "float spread(float x, float y) { return abs(x - y) + min(x, y); }\n"
                               "void main() {\n"
                               "    tile[gl_LocalInvocationID.x] = 1.0;\n"
                               "    barrier();\n"
                               "}\n";

typedef struct shader {
    const char *name;
    const char *src;
    fmag_source_language lang;
    unsigned nout;
    const char *entry; /* NULL: main */
} shader;

static const shader shaders[] = {
    {"fault.glsl", glsl_src, FMAG_SOURCE_GLSL, 2, NULL},
    {"fault.hlsl", hlsl_src, FMAG_SOURCE_HLSL, 1, NULL},
    {"fault.comp", comp_src, FMAG_SOURCE_GLSL, 1, "spread"},
};

/* Finite inputs without ties between a and b, so that the select and min pick one. */
static void inputs(unsigned e, float in[2])
{
    in[0] = 0.75f * (float)e - 1.5f;
    in[1] = 2.25f - 0.625f * (float)e;
}

/* What each shader must compute, in float as the shaders say (sums, no products). */
static void oracle(unsigned s, const float in[2], float out[MAXOUT])
{
    float a = in[0], b = in[1];
    if (s == 0) {
        float acc = 0.0f;
        for (int i = 0; i < 4; i++)
            acc += a;
        out[0] = acc + (b + b);
        out[1] = a > b ? a : b;
    } else {
        float d = a - b;
        out[0] = (d < 0 ? -d : d) + (a < b ? a : b);
    }
}

/* The one program's outputs on the NELEMS inputs, as bits. */
static bool run_image(const fmag_vm_image *img, uint32_t *bits, unsigned nout)
{
    if (img->nprograms != 1) return false;
    const fmag_vm_program *prog = &img->programs[0];
    if (prog->nin != 2 || prog->nout != nout) return false;
    float *regs = calloc(prog->regs ? prog->regs : 1, sizeof(float));
    if (!regs) return false;
    for (unsigned e = 0; e < NELEMS; e++) {
        float in[2], out[MAXOUT];
        inputs(e, in);
        fmag_vm_run(prog, in, out, regs);
        memcpy(bits + e * nout, out, nout * sizeof(float));
    }
    free(regs);
    return true;
}

/* One compile as slc does it; fails_at = 0 for none. 1: success (bits filled), 0:
 * failure with an out-of-memory diagnostic, -1: anything else (a bug). */
static int compile(fmag_shader_compiler *sc, const shader *s, uint64_t fails_at, uint64_t *allocs,
                   uint32_t *bits)
{
    fmag_context *ctx = fmag_context_create();
    if (!ctx) return -1;
    fail_nth f = {fails_at, 0};
    if (fails_at) fmag_context_set_alloc_hook(ctx, hook, &f);
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    fmag_pass_options po;
    memset(&po, 0, sizeof po);
    int rc = 0;
    fmag_spirv_options so;
    memset(&so, 0, sizeof so);
    so.entry = s->entry;
    fmag_module *m = fmag_glsl_import_with(sc, ctx, s->name, s->src, strlen(s->src), s->lang, &so);
    if (m && fmag_run_passes(m, "O2", &po) && fmag_prepare_codegen(m, &po) &&
        fmag_codegen_module(m, &img))
        rc = run_image(&img, bits, s->nout) ? 1 : -1;
    if (rc == 0) {
        bool oom = false;
        for (size_t i = 0; i < fmag_context_diag_count(ctx); i++)
            oom |= strstr(fmag_context_diag(ctx, i), "out of memory") != NULL;
        if (!oom) {
            fprintf(stderr, "%s: allocation %llu failed without an out-of-memory diagnostic:\n",
                    s->name, (unsigned long long)fails_at);
            fmag_context_diag_print(ctx, stderr);
            rc = -1;
        }
    }
    if (allocs) *allocs = fmag_context_alloc_count(ctx);
    fmag_vm_image_free(&img);
    fmag_context_destroy(ctx);
    return rc;
}

static uint64_t next_n(uint64_t n, uint64_t step, uint64_t total)
{
    uint64_t tail = total > 8 ? total - 7 : 1;
    if (n < 8 || n >= tail) return n + 1;
    return n + step < tail ? n + step : tail;
}

int main(void)
{
    if (!fmag_shader_input_available()) {
        printf("shader fault injection: skipped (built without shaderc)\n");
        return 0;
    }
    const char *full_env = getenv("FMAG_FAULT_FULL");
    bool full = full_env && *full_env == '1';
    uint64_t per_shader = full ? 0 : 40;
    fmag_shader_compiler *sc = fmag_shader_compiler_create();
    EXPECT(sc != NULL);
    if (!sc) return 1;
    unsigned long runs = 0, ok_runs = 0, failed_runs = 0;
    for (unsigned k = 0; k < sizeof shaders / sizeof *shaders; k++) {
        const shader *s = &shaders[k];
        uint32_t want[NELEMS * MAXOUT], got[NELEMS * MAXOUT];
        for (unsigned e = 0; e < NELEMS; e++) {
            float in[2], out[MAXOUT];
            inputs(e, in);
            oracle(k, in, out);
            memcpy(want + e * s->nout, out, s->nout * sizeof(float));
        }
        uint64_t total = 0;
        int rc = compile(sc, s, 0, &total, got);
        EXPECT(rc == 1);
        if (rc != 1) continue;
        EXPECT(!memcmp(got, want, NELEMS * s->nout * sizeof *got));
        uint64_t step = full || total <= per_shader ? 1 : (total + per_shader - 1) / per_shader;
        /* The sample: allocations 1..8, a stride, then the last 8 and total + 1 (which
         * must succeed). */
        for (uint64_t n = 1; n <= total + 1; n = next_n(n, step, total)) {
            memset(got, 0, sizeof got);
            rc = compile(sc, s, n, NULL, got);
            runs++;
            if (rc == 1) {
                ok_runs++;
                bool same = !memcmp(got, want, NELEMS * s->nout * sizeof *got);
                if (!same)
                    fprintf(stderr, "%s: allocation %llu failed, compile succeeded, bits differ\n",
                            s->name, (unsigned long long)n);
                EXPECT(same);
            } else {
                failed_runs++;
                EXPECT(rc == 0);
            }
        }
        printf("%s: %llu allocations%s\n", s->name, (unsigned long long)total,
               full ? ", every one failed in turn" : "");
        fflush(stdout);
    }
    fmag_shader_compiler_destroy(sc);
    printf("shader fault injection: %lu runs (%lu succeeded with the right bits, %lu failed "
           "with a diagnostic)%s\n",
           runs, ok_runs, failed_runs, full ? ", every allocation" : ", sampled");
    return failures != 0;
}
