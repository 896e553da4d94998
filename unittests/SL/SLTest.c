/* Unit tests of the SL frontend and the math library through the public API:
 * compiled programs run on the IR interpreter against hand-computed values,
 * diagnostics for bad input, and every scalar builtin against libm in double. */
#include "fmag/IR.h"
#include "fmag/Math.h"
#include "fmag/SL.h"

#include "../Expect.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static fmag_module *compile(fmag_context *ctx, const char *src, const fmag_sl_options *o)
{
    return fmag_sl_compile(ctx, "t.sl", src, strlen(src), o);
}

static void test_program(void)
{
    fmag_context *ctx = fmag_context_create();
    const char *src = "f32 sq(f32 x) { return x * x; }\n"
                      "export f32x2 f(f32x2 v, f32 k, out f32 big) {\n"
                      "    big = v.x > k ? 1.0 : 0.0;\n"
                      "    if (k < 0.0) return f32x2(0.0);\n"
                      "    return f32x2(sq(v.y), v.x * k + 1.0);\n"
                      "}\n";
    fmag_module *m = compile(ctx, src, NULL);
    EXPECT(m != NULL);
    if (m) {
        EXPECT(fmag_verify_module(m));
        fmag_func *f = fmag_module_get_func(m, "f");
        EXPECT(f && f->is_export && f->nparams == 3 && f->nresults == 3);
        float in[3] = {3.0f, 4.0f, 2.0f}, out[3];
        EXPECT(f && fmag_interp_func(f, in, out));
        EXPECT(out[0] == 16.0f && out[1] == 7.0f && out[2] == 1.0f);
        float in2[3] = {3.0f, 4.0f, -1.0f};
        EXPECT(f && fmag_interp_func(f, in2, out));
        EXPECT(out[0] == 0.0f && out[1] == 0.0f && out[2] == 1.0f);
        EXPECT(!fmag_module_get_func(m, "sq")->is_export);
    }
    fmag_context_destroy(ctx);
}

static void test_entry_and_fastmath(void)
{
    fmag_context *ctx = fmag_context_create();
    const char *src = "export f32 a(f32 x) { return x; }\nexport f32 b(f32 x) { return -x; }\n";
    fmag_sl_options o = {true, "b"};
    fmag_module *m = compile(ctx, src, &o);
    EXPECT(m && m->fastmath);
    EXPECT(m && !fmag_module_get_func(m, "a")->is_export &&
           fmag_module_get_func(m, "b")->is_export);
    o.entry = "c";
    EXPECT(compile(ctx, src, &o) == NULL);
    EXPECT(fmag_context_diag_count(ctx) == 1);
    EXPECT(strstr(fmag_context_diag(ctx, 0), "no export function named 'c'") != NULL);
    fmag_context_destroy(ctx);
}

static void test_diagnostics(void)
{
    fmag_context *ctx = fmag_context_create();
    const char *src = "export f32 f(f32x2 v) {\n  f32 a = v;\n  return colour;\n}\n";
    EXPECT(compile(ctx, src, NULL) == NULL);
    EXPECT(fmag_context_diag_count(ctx) == 2);
    if (fmag_context_diag_count(ctx) == 2) {
        const char *d0 = fmag_context_diag(ctx, 0), *d1 = fmag_context_diag(ctx, 1);
        EXPECT(!strncmp(d0, "t.sl:2:11: error: initializer: cannot assign f32x2 to f32\n", 58));
        EXPECT(strstr(d0, "\n  f32 a = v;\n          ^") != NULL);
        EXPECT(!strncmp(d1, "t.sl:3:10: error: use of undeclared identifier 'colour'", 55));
    }
    fmag_context_diag_clear(ctx);
    /* Hostile input: NUL bytes, an empty buffer, a NULL buffer, unbalanced braces. */
    static const char junk[] = "export f32 f(\0\0\x01\xff{{{{ return";
    EXPECT(fmag_sl_compile(ctx, "j.sl", junk, sizeof junk, NULL) == NULL);
    EXPECT(fmag_context_diag_count(ctx) > 0);
    fmag_module *empty = fmag_sl_compile(ctx, "e.sl", NULL, 0, NULL);
    EXPECT(empty != NULL && empty->first == NULL);
    fmag_context_destroy(ctx);
}

/* Each scalar builtin built with the builder, run on the IR interpreter, compared
 * with libm in double at a few points within its ulp target. */
static double ulps(float r, double ref)
{
    double a = fabs(ref);
    int e = a > 0 ? ilogb(a) : -126;
    return fabs((double)r - ref) / ldexp(1.0, (e < -126 ? -126 : e) - 23);
}

static float eval_builtin(const char *name, float x, float y)
{
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = fmag_module_create(ctx);
    const fmag_math_builtin *mb = fmag_math_builtin_lookup(name);
    fmag_func *f = fmag_func_create(m, name, mb->nargs, 1, true);
    fmag_builder b;
    b.module = m;
    fmag_builder_at_end(&b, fmag_block_create(f, "entry"));
    fmag_value *r = mb->nargs == 1 ? mb->fn1(&b, &f->params[0], false)
                                   : mb->fn2(&b, &f->params[0], &f->params[1], false);
    fmag_build_ret(&b, &r, 1);
    /* straight-line: one block, only fmag instructions before the ret */
    EXPECT(f->first == f->last);
    fmag_foreach_instr (i, f->first)
        EXPECT(i->op == FMAG_OP_FMAG || i->op == FMAG_OP_RET);
    EXPECT(fmag_verify_module(m));
    float in[2] = {x, y}, out[1] = {0};
    EXPECT(fmag_interp_func(f, in, out));
    fmag_context_destroy(ctx);
    return out[0];
}

static void test_math(void)
{
    static const struct {
        const char *name;
        double (*ref)(double);
        double tol;
        float xs[4];
    } one[] = {
        {"sqrt", sqrt, 1, {2.0f, 1e-30f, 7e30f, 0.3f}},
        {"exp", exp, 2, {1.0f, -20.5f, 80.0f, 0.001f}},
        {"exp2", exp2, 2, {0.5f, -100.25f, 127.5f, 3.0f}},
        {"log", log, 2, {2.0f, 1e-30f, 3e38f, 0.999f}},
        {"log2", log2, 2, {3.0f, 1e-20f, 1e20f, 1.001f}},
        {"sin", sin, 2, {1.0f, -3000.5f, 9999.0f, 1e-5f}},
        {"cos", cos, 2, {1.0f, -3000.5f, 9999.0f, 1e-5f}},
        {"tan", tan, 4, {1.0f, -3000.5f, 1.5f, 1e-5f}},
        {"atan", atan, 2, {1.0f, -3000.5f, 0.5f, 1e-5f}},
        {"floor", floor, 0, {-1.5f, 2.5f, 1e10f, -0.25f}},
        {"round", nearbyint, 0, {-1.5f, 2.5f, 4194304.5f, 0.5f}},
    };
    for (size_t k = 0; k < sizeof one / sizeof one[0]; k++)
        for (int i = 0; i < 4; i++) {
            float x = one[k].xs[i];
            float r = eval_builtin(one[k].name, x, 0);
            double e = ulps(r, one[k].ref((double)x));
            if (!(e <= one[k].tol)) {
                fprintf(stderr, "%s(%a) = %a: %.2f ulp\n", one[k].name, (double)x, (double)r, e);
                failures++;
            }
        }
    EXPECT(ulps(eval_builtin("rcp", 3.0f, 0), 1.0 / 3.0) <= 1);
    EXPECT(ulps(eval_builtin("inversesqrt", 5.0f, 0), 1.0 / sqrt(5.0)) <= 2);
    EXPECT(ulps(eval_builtin("div", 1.0f, 3.0f), 1.0 / 3.0) <= 1);
    EXPECT(ulps(eval_builtin("div", -7e-30f, 3e10f), -7e-30 / 3e10) <= 1);
    EXPECT(ulps(eval_builtin("pow", 1.5f, 100.0f), pow(1.5, 100.0)) <= 4);
    EXPECT(ulps(eval_builtin("atan2", -1.0f, -2.0f), atan2(-1.0, -2.0)) <= 3);
    EXPECT(eval_builtin("pow", 2.0f, 10.0f) == 1024.0f);
    EXPECT(eval_builtin("exp2", 10.0f, 0) == 1024.0f);
}

/* One context reused across compiles (fmag_context_reset), as a JIT does: each
 * compile gives the same program, a failed compile's diagnostics go away, and a
 * large module (many arena chunks and a large one-off block) does not disturb the
 * next. Under ASan this also checks the recycled chunks are not read stale. */
static void test_context_reuse(void)
{
    fmag_context *ctx = fmag_context_create();
    const char *small = "export f32 f(f32 x, f32 y) { return max(x, y) * 2.0 + 1.0; }\n";
    char big[64 * 1024];
    size_t k = (size_t)snprintf(big, sizeof big, "export f32 g(f32 a) {\n    f32 n0 = a;\n");
    for (int i = 1; i <= 800; i++)
        k += (size_t)snprintf(big + k, sizeof big - k, "    f32 n%d = n%d * 0.5 + n%d;\n", i, i - 1,
                              i / 2);
    snprintf(big + k, sizeof big - k, "    return n800;\n}\n");
    for (int round = 0; round < 4; round++) {
        const char *src = round == 2 ? "export f32 f(f32 x) { return y; }\n" : small;
        fmag_module *m = compile(ctx, src, NULL);
        if (round == 2) {
            EXPECT(m == NULL && fmag_context_diag_count(ctx) > 0);
        } else {
            EXPECT(m != NULL && fmag_context_diag_count(ctx) == 0);
            fmag_func *f = m ? fmag_module_get_func(m, "f") : NULL;
            float in[2] = {3.0f, -4.0f}, out[1] = {0};
            EXPECT(f && fmag_interp_func(f, in, out) && out[0] == 7.0f);
        }
        fmag_context_reset(ctx);
        EXPECT(fmag_context_diag_count(ctx) == 0);
        fmag_module *g = compile(ctx, big, NULL);
        fmag_func *gf = g ? fmag_module_get_func(g, "g") : NULL;
        float in[1] = {1.0f}, out[1] = {0};
        /* The same source compiled in a fresh context is the oracle. */
        EXPECT(gf && fmag_interp_func(gf, in, out));
        fmag_context *fresh = fmag_context_create();
        fmag_module *g2 = compile(fresh, big, NULL);
        fmag_func *gf2 = g2 ? fmag_module_get_func(g2, "g") : NULL;
        float out2[1] = {-1};
        EXPECT(gf2 && fmag_interp_func(gf2, in, out2) && out2[0] == out[0]);
        fmag_context_destroy(fresh);
        fmag_context_reset(ctx);
    }
    fmag_context_destroy(ctx);
}

int main(void)
{
    test_program();
    test_context_reuse();
    test_entry_and_fastmath();
    test_diagnostics();
    test_math();
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    else
        printf("sl unit tests passed\n");
    return failures != 0;
}
