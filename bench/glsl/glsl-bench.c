/* glsl-bench: compile latency of the GLSL front door next to the SL front on the same
 * program, through the library API (docs/PERFORMANCE.md, "GLSL/HLSL compile latency").
 *
 *   glsl-bench [--min-ms N] [--compiler own|context|fresh] NAME FILE.sl FILE.glsl [...]
 *
 * NAME is the function (the SL export, the GLSL -entry). Phases, medians in µs:
 *   SL:   fmag_sl_compile | O2 | lowering (fast effort, one context reset between runs)
 *   GLSL: shaderc (preprocess, wrapper, glslang, SPIRV-Tools) | SPIR-V import | O2 |
 *         lowering.
 * The ratio printed last is (import + O2 + lowering) / SL total: the part of the GLSL
 * path that is FMAG's own, which should stay within 2x of the SL path.
 * --compiler: which shaderc compiler the GLSL compiles use: `own` (default) one made with
 * fmag_shader_compiler_create and passed to the _with call; `context` NULL, the one the
 * context keeps (what fmag_compile and the plain calls use); `fresh` NULL with a new
 * context per compile, so a compiler made and released each time. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/SL.h"
#include "fmag/SPIRV.h"
#include "fmag/Shader.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"
#include "../BenchTime.h"

static double now_us(void)
{
    return bench_seconds(CLOCK_MONOTONIC) * 1e6;
}

#define MAXRUNS 4096
#define NPHASE 4

typedef struct samples {
    double v[NPHASE][MAXRUNS];
    size_t n;
} samples;

static bool finish(fmag_context *ctx, fmag_module *m, double *t, unsigned *ninstr)
{
    fmag_pass_options po;
    memset(&po, 0, sizeof po);
    fmag_codegen_options co = {FMAG_CODEGEN_FAST};
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    double t0 = now_us();
    bool ok = m && fmag_run_passes(m, "O2", &po);
    double t1 = now_us();
    ok = ok && fmag_codegen_module_with(m, &img, &co);
    double t2 = now_us();
    if (!ok) fmag_context_diag_print(ctx, stderr);
    if (ok && img.nprograms) *ninstr = img.programs[0].ninstr;
    fmag_vm_image_free(&img);
    t[0] = t1 - t0, t[1] = t2 - t1;
    return ok;
}

static bool run_sl(fmag_context *ctx, const char *name, const char *path, const char *src,
                   size_t len, samples *s, unsigned *ninstr)
{
    fmag_sl_options o = {false, name};
    double t0 = now_us();
    fmag_module *m = fmag_sl_compile(ctx, path, src, len, &o);
    double t1 = now_us(), t[2];
    if (!finish(ctx, m, t, ninstr)) return false;
    s->v[0][s->n] = t1 - t0, s->v[1][s->n] = 0, s->v[2][s->n] = t[0], s->v[3][s->n] = t[1];
    s->n++;
    fmag_context_reset(ctx);
    return true;
}

static fmag_shader_compiler *compiler;
static bool fresh_context;

static bool run_glsl(fmag_context *ctx, const char *name, const char *path, const char *src,
                     size_t len, samples *s, unsigned *ninstr)
{
    fmag_context *kept = ctx;
    if (fresh_context && !(ctx = fmag_context_create())) return false;
    fmag_shader_spirv spv;
    double t0 = now_us();
    if (!fmag_shader_to_spirv_with(compiler, ctx, path, src, len, FMAG_SOURCE_GLSL, name, &spv)) {
        fmag_context_diag_print(ctx, stderr);
        return false;
    }
    double t1 = now_us();
    fmag_spirv_options o;
    memset(&o, 0, sizeof o);
    o.filename = path;
    fmag_module *m = fmag_spirv_import(ctx, spv.words, spv.nwords, &o);
    double t2 = now_us(), t[2];
    fmag_shader_spirv_free(&spv);
    if (!finish(ctx, m, t, ninstr)) return false;
    s->v[0][s->n] = t1 - t0, s->v[1][s->n] = t2 - t1, s->v[2][s->n] = t[0], s->v[3][s->n] = t[1];
    s->n++;
    if (ctx != kept)
        fmag_context_destroy(ctx);
    else
        fmag_context_reset(ctx);
    return true;
}

int main(int argc, char **argv)
{
    double min_ms = 300;
    const char *mode = "own";
    int i = 1;
    for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
        if (!strcmp(argv[i], "--min-ms"))
            min_ms = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--compiler"))
            mode = argv[i + 1];
        else
            break;
    }
    if (strcmp(mode, "own") && strcmp(mode, "context") && strcmp(mode, "fresh")) {
        fprintf(stderr, "glsl-bench: --compiler takes own, context or fresh\n");
        return 1;
    }
    fresh_context = !strcmp(mode, "fresh");
    if ((argc - i) % 3 != 0 || argc == i) {
        fprintf(stderr, "usage: glsl-bench [--min-ms N] [--compiler own|context|fresh] NAME "
                        "FILE.sl FILE.glsl ...\n");
        return 1;
    }
    printf("| program | SL instrs | SL total | SL front | SL O2 | SL lowering | GLSL instrs | "
           "shaderc | import | O2 | lowering | GLSL total | (import+O2+lowering) / SL |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    fmag_context *ctx = fmag_context_create();
    compiler = strcmp(mode, "own") ? NULL : fmag_shader_compiler_create();
    static samples sl, gl;
    for (; i < argc; i += 3) {
        const char *name = argv[i];
        size_t len[2];
        char err[256];
        char *src[2];
        for (int k = 0; k < 2; k++) {
            src[k] = fmag_vm_read_file(argv[i + 1 + k], &len[k], err, sizeof err);
            if (!src[k]) {
                fprintf(stderr, "glsl-bench: %s\n", err);
                return 1;
            }
        }
        unsigned n_sl = 0, n_gl = 0;
        sl.n = gl.n = 0;
        for (int which = 0; which < 2; which++) {
            samples *s = which ? &gl : &sl;
            double start = now_us();
            while (s->n < 21 || (now_us() - start < min_ms * 1e3 && s->n < MAXRUNS)) {
                bool ok = which ? run_glsl(ctx, name, argv[i + 2], src[1], len[1], s, &n_gl)
                                : run_sl(ctx, name, argv[i + 1], src[0], len[0], s, &n_sl);
                if (!ok) return 1;
            }
        }
        double ms[NPHASE], mg[NPHASE], tot_s[MAXRUNS], tot_g[MAXRUNS], own[MAXRUNS];
        for (size_t r = 0; r < sl.n; r++)
            tot_s[r] = sl.v[0][r] + sl.v[2][r] + sl.v[3][r];
        for (size_t r = 0; r < gl.n; r++) {
            tot_g[r] = gl.v[0][r] + gl.v[1][r] + gl.v[2][r] + gl.v[3][r];
            own[r] = gl.v[1][r] + gl.v[2][r] + gl.v[3][r];
        }
        for (int p = 0; p < NPHASE; p++)
            ms[p] = bench_median(sl.v[p], sl.n), mg[p] = bench_median(gl.v[p], gl.n);
        double ts = bench_median(tot_s, sl.n), tg = bench_median(tot_g, gl.n),
               to = bench_median(own, gl.n);
        printf("| %s | %u | %.1f | %.1f | %.1f | %.1f | %u | %.1f | %.1f | %.1f | %.1f | %.1f | "
               "%.2f |\n",
               name, n_sl, ts, ms[0], ms[2], ms[3], n_gl, mg[0], mg[1], mg[2], mg[3], tg, to / ts);
        free(src[0]);
        free(src[1]);
    }
    fmag_context_destroy(ctx);
    fmag_shader_compiler_destroy(compiler);
    return 0;
}
