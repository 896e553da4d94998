/* Unit tests of the lowering API: results on the reference VM against values
 * computed by hand / with C fmaf, record layout, determinism, and diagnostics for
 * what cannot be lowered. */
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/VM.h"

#include "../Expect.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool same(float a, float b)
{
    return (a == 0.0f && b == 0.0f) || !memcmp(&a, &b, 4);
}

static float run1(const fmag_vm_program *p, const float *in, unsigned k)
{
    float regs[64], out[8];
    char err[128];
    EXPECT(fmag_vm_program_validate(p, err, sizeof err));
    EXPECT(p->regs <= 64 && p->nout <= 8);
    fmag_vm_run(p, in, out, regs);
    return out[k];
}

static fmag_func *build_lerp(fmag_module *m, const char *name)
{
    fmag_func *f = fmag_func_create(m, name, 3, 1, true);
    fmag_builder b;
    fmag_builder_at_end(&b, fmag_block_create(f, "entry"));
    fmag_value *d = fmag_build_sub(&b, &f->params[1], &f->params[0]);
    fmag_value *r = fmag_build_fma(&b, d, &f->params[2], &f->params[0]);
    fmag_build_ret(&b, &r, 1);
    return f;
}

static void test_lerp(void)
{
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = fmag_module_create(ctx);
    fmag_func *f = build_lerp(m, "lerp");
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    fmag_codegen_stats st;
    memset(&st, 0, sizeof st);
    EXPECT(fmag_codegen_func(f, &img, &st));
    EXPECT(img.nprograms == 1);
    const fmag_vm_program *p = &img.programs[0];
    EXPECT(!strcmp(p->name, "lerp"));
    EXPECT(p->ninstr == 2 && st.instrs == 2);
    EXPECT(p->regs == 3 && st.regs == 3);
    EXPECT(p->nin == 3 && p->nout == 1);
    EXPECT(st.moves == 0 && st.max_live == 3);
    const float cases[][3] = {{2, 10, 0.25f}, {-4, 4, 0.5f}, {1e-3f, 3.5f, 0.1f}, {0, -0.0f, 7}};
    for (unsigned i = 0; i < 4; i++) {
        const float *in = cases[i];
        float want = fmaf(in[1] - in[0], in[2], in[0]);
        EXPECT(same(run1(p, in, 0), want));
    }
    fmag_vm_image_free(&img);
    fmag_context_destroy(ctx);
}

static void test_module_records_and_determinism(void)
{
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = fmag_module_create(ctx);
    m->fastmath = true;
    build_lerp(m, "first");
    fmag_func *h = fmag_func_create(m, "helper", 1, 1, false);
    fmag_builder b;
    fmag_builder_at_end(&b, fmag_block_create(h, "entry"));
    fmag_value *hv = fmag_build_neg(&b, &h->params[0]);
    fmag_build_ret(&b, &hv, 1);
    /* second(x, y) -> (max(x, y), relu(y), 2.5) */
    fmag_func *f = fmag_func_create(m, "second", 2, 3, true);
    fmag_builder_at_end(&b, fmag_block_create(f, "entry"));
    fmag_value *outs[3] = {fmag_build_max(&b, &f->params[0], &f->params[1]),
                           fmag_build_relu(&b, &f->params[1]), fmag_build_const(&b, 2.5f)};
    fmag_build_ret(&b, outs, 3);
    fmag_vm_image a, c;
    fmag_vm_image_init(&a);
    fmag_vm_image_init(&c);
    EXPECT(fmag_codegen_module(m, &a));
    EXPECT(fmag_codegen_module(m, &c));
    EXPECT(a.nprograms == 2);
    if (a.nprograms == 2) {
        EXPECT(!strcmp(a.programs[0].name, "first") && !strcmp(a.programs[1].name, "second"));
        EXPECT(a.programs[1].flags & FMAG_VM_FLAG_FASTMATH);
        const fmag_vm_program *p = &a.programs[1];
        EXPECT(p->nin == 2 && p->nout == 3);
        const float in[][2] = {{3, 5}, {5, 3}, {-1, -2}, {4, 4}};
        for (unsigned i = 0; i < 4; i++) {
            float x = in[i][0], y = in[i][1];
            EXPECT(same(run1(p, in[i], 0), x > y ? x : y));
            EXPECT(same(run1(p, in[i], 1), y > 0 ? y : 0.0f));
            EXPECT(same(run1(p, in[i], 2), 2.5f));
        }
        /* The same input lowers to the same bits. */
        for (unsigned k = 0; k < 2; k++) {
            EXPECT(a.programs[k].ninstr == c.programs[k].ninstr);
            EXPECT(a.programs[k].regs == c.programs[k].regs);
            EXPECT(!memcmp(a.programs[k].code, c.programs[k].code,
                           sizeof(fmag_vm_instr) * a.programs[k].ninstr));
        }
    }
    fmag_vm_image_free(&a);
    fmag_vm_image_free(&c);
    fmag_context_destroy(ctx);
}

static bool has_diag(fmag_context *ctx, const char *needle)
{
    for (size_t i = 0; i < fmag_context_diag_count(ctx); i++)
        if (strstr(fmag_context_diag(ctx, i), needle)) return true;
    return false;
}

static void test_not_lowerable(void)
{
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = fmag_module_create(ctx);
    /* Two blocks. */
    fmag_func *f = fmag_func_create(m, "branchy", 1, 1, true);
    fmag_block *e = fmag_block_create(f, "entry"), *t = fmag_block_create(f, "t");
    fmag_builder b;
    fmag_builder_at_end(&b, e);
    fmag_build_jmp(&b, t);
    fmag_builder_at_end(&b, t);
    fmag_value *x = &f->params[0];
    fmag_build_ret(&b, &x, 1);
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    EXPECT(!fmag_codegen_func(f, &img, NULL));
    EXPECT(img.nprograms == 0);
    EXPECT(has_diag(ctx, "@branchy") && has_diag(ctx, "single block"));
    /* A literal that is not encodable. */
    fmag_context_diag_clear(ctx);
    fmag_func *g = fmag_func_create(m, "inf", 1, 1, true);
    fmag_builder_at_end(&b, fmag_block_create(g, "entry"));
    fmag_value *v = fmag_build_add(&b, &g->params[0], fmag_module_const(m, INFINITY));
    fmag_build_ret(&b, &v, 1);
    EXPECT(!fmag_codegen_func(g, &img, NULL));
    EXPECT(img.nprograms == 0);
    EXPECT(has_diag(ctx, "cannot be encoded"));
    fmag_vm_image_free(&img);
    fmag_context_destroy(ctx);
}

static void test_empty_and_identity(void)
{
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = fmag_module_create(ctx);
    fmag_func *f = fmag_func_create(m, "id", 2, 2, true);
    fmag_builder b;
    fmag_builder_at_end(&b, fmag_block_create(f, "entry"));
    fmag_value *outs[2] = {&f->params[0], &f->params[1]};
    fmag_build_ret(&b, outs, 2);
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    fmag_codegen_stats st;
    EXPECT(fmag_codegen_func(f, &img, &st));
    EXPECT(img.nprograms == 1 && img.programs[0].ninstr == 0 && img.programs[0].regs == 2);
    EXPECT(st.instrs == 0 && st.moves == 0);
    fmag_vm_image_free(&img);
    fmag_context_destroy(ctx);
}

int main(void)
{
    test_lerp();
    test_module_records_and_determinism();
    test_not_lowerable();
    test_empty_and_identity();
    if (failures) {
        fprintf(stderr, "codegen unit tests: %d failures\n", failures);
        return 1;
    }
    printf("codegen unit tests: all passed\n");
    return 0;
}
