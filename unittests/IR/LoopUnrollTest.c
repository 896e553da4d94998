/* Unit tests of -loop-unroll through the C API: a loop built with the builder is
 * unrolled to one block whose results match the interpreter's (and the values
 * worked out by hand), a second run reports no change, and the budget given in
 * fmag_pass_options reaches the pass and stops it with a diagnostic. */
#include "IRTest.h"
#include "fmag/Transforms.h"

typedef struct fixture {
    fmag_context *ctx;
    fmag_module *m;
    fmag_func *f;
} fixture;

/* p = x^n by n trips of p *= x, the counter i = 0, 1, ... tested in the header:
 *   ^entry: jmp ^h
 *   ^h:     %i = phi [0, ^entry], [%i1, ^b]; %p = phi [1, ^entry], [%p1, ^b]
 *           %c = sub n, %i;  br %c, ^b, ^exit
 *   ^b:     %p1 = mul %p, %x; %i1 = add %i, 1; jmp ^h
 *   ^exit:  ret %p, %i */
static void build_pow(fixture *fx, float n)
{
    fx->ctx = fmag_context_create();
    fx->m = fmag_module_create(fx->ctx);
    fmag_func *f = fx->f = fmag_func_create(fx->m, "pow", 1, 2, true);
    fmag_module *m = fx->m;
    fmag_block *entry = fmag_block_create(f, "entry"), *h = fmag_block_create(f, "h"),
               *b = fmag_block_create(f, "b"), *exit = fmag_block_create(f, "exit");
    fmag_builder bld;
    fmag_builder_at_end(&bld, entry);
    fmag_build_jmp(&bld, h);
    fmag_builder_at_end(&bld, h);
    fmag_instr *i = fmag_build_phi(&bld), *p = fmag_build_phi(&bld);
    fmag_value *c = fmag_build_sub(&bld, fmag_module_const(m, n), fmag_instr_result(i));
    fmag_build_br(&bld, c, b, exit);
    fmag_builder_at_end(&bld, b);
    fmag_value *p1 = fmag_build_mul(&bld, fmag_instr_result(p), &f->params[0]);
    fmag_value *i1 = fmag_build_add(&bld, fmag_instr_result(i), fmag_module_const(m, 1.0f));
    fmag_build_jmp(&bld, h);
    fmag_phi_add_incoming(i, fmag_module_const(m, 0.0f), entry);
    fmag_phi_add_incoming(i, i1, b);
    fmag_phi_add_incoming(p, fmag_module_const(m, 1.0f), entry);
    fmag_phi_add_incoming(p, p1, b);
    fmag_builder_at_end(&bld, exit);
    fmag_value *rets[2] = {fmag_instr_result(p), fmag_instr_result(i)};
    fmag_build_ret(&bld, rets, 2);
}

static void test_unrolls(test_state *t)
{
    fixture fx;
    build_pow(&fx, 3.0f);
    CHECK(t, fmag_verify_module(fx.m));
    float out[2];
    CHECK(t, fmag_interp_func(fx.f, (float[]){-1.5f}, out));
    CHECK_BITS(t, out[0], -3.375f); /* (-1.5)^3 */
    CHECK_BITS(t, out[1], 3.0f);
    CHECK(t, fmag_opt_loop_unroll(fx.f) == FMAG_PASS_CHANGED);
    CHECK(t, fmag_context_diag_count(fx.ctx) == 0);
    CHECK(t, fmag_verify_module(fx.m));
    CHECK(t, fx.f->first && !fx.f->first->next); /* one block */
    CHECK(t, fmag_func_num_instrs(fx.f) == 3);   /* x*x, then *x, ret (1*x folds) */
    out[0] = out[1] = 0.0f;
    CHECK(t, fmag_interp_func(fx.f, (float[]){-1.5f}, out));
    CHECK_BITS(t, out[0], -3.375f);
    CHECK_BITS(t, out[1], 3.0f);
    CHECK(t, fmag_opt_loop_unroll(fx.f) == FMAG_PASS_UNCHANGED); /* nothing left to do */
    fmag_context_destroy(fx.ctx);
}

static void test_zero_trips(test_state *t)
{
    fixture fx;
    build_pow(&fx, 0.0f);
    CHECK(t, fmag_opt_loop_unroll(fx.f) == FMAG_PASS_CHANGED);
    float out[2] = {5, 5};
    CHECK(t, fmag_interp_func(fx.f, (float[]){7.0f}, out));
    CHECK_BITS(t, out[0], 1.0f);
    CHECK_BITS(t, out[1], 0.0f);
    CHECK(t, fmag_func_num_instrs(fx.f) == 1); /* ret 1.0, 0.0 */
    fmag_context_destroy(fx.ctx);
}

static void test_budget(test_state *t)
{
    fixture fx;
    build_pow(&fx, 50.0f);
    /* 50 trips of 3 instructions (mul, the counter folds, the jmp and br fold to
     * the chain) are over 20; the module is left as it was, with a diagnostic. */
    fmag_pass_options opts = {0};
    opts.max_unroll_instrs = 20;
    size_t before = fmag_func_num_instrs(fx.f);
    CHECK(t, !fmag_run_passes(fx.m, "loop-unroll", &opts));
    CHECK_DIAG(t, fx.ctx, "error: loop at ^h in @pow", "budget of 20 instructions", NULL);
    CHECK(t, fmag_func_num_instrs(fx.f) == before);
    CHECK(t, fmag_verify_module(fx.m));
    /* Within the default budget it unrolls. */
    fmag_context_diag_clear(fx.ctx);
    opts.max_unroll_instrs = 0;
    fx.m->max_unroll_instrs = 0;
    CHECK(t, fmag_run_passes(fx.m, "loop-unroll", &opts));
    CHECK(t, fx.f->first && !fx.f->first->next);
    float out[2];
    CHECK(t, fmag_interp_func(fx.f, (float[]){1.0f}, out));
    CHECK_BITS(t, out[0], 1.0f);
    CHECK_BITS(t, out[1], 50.0f);
    fmag_context_destroy(fx.ctx);
}

int main(void)
{
    test_state t = {0};
    test_unrolls(&t);
    test_zero_trips(&t);
    test_budget(&t);
    return test_finish(&t, "ir-loopunroll-unittests");
}
