/* Unit tests of fmag_eval and the IR interpreter against hand-computed values and C
 * fmaf: diamonds, simultaneous phis, calls with several results, recursion, the sign
 * of zero, the limits (step budget, call depth) that make it return false, and the
 * report of fmag_interp_func_ex. */
#include "IRTest.h"

#include <math.h>

static void ret1(fmag_builder *b, fmag_value *v)
{
    fmag_build_ret(b, &v, 1);
}

static void test_eval(test_state *t)
{
    /* The guard is `e > 0`: +0, -0, NaN and negatives take d. */
    CHECK_BITS(t, fmag_eval(2, 3, 4, 7, 1), 10.0f);
    CHECK_BITS(t, fmag_eval(2, 3, 4, 7, 0x1p-149f), 10.0f);
    CHECK_BITS(t, fmag_eval(2, 3, 4, 7, 0.0f), 7.0f);
    CHECK_BITS(t, fmag_eval(2, 3, 4, 7, -0.0f), 7.0f);
    CHECK_BITS(t, fmag_eval(2, 3, 4, 7, -1.0f), 7.0f);
    CHECK_BITS(t, fmag_eval(2, 3, 4, 7, NAN), 7.0f);
    /* d is passed through bit for bit, -0 included. */
    CHECK_BITS(t, fmag_eval(2, 3, 4, -0.0f, 0.0f), -0.0f);
    /* One rounding: (1+2^-23)^2 = 1 + 2^-22 + 2^-46 exactly; minus (1 + 2^-22) leaves
     * 2^-46, which a separately rounded product would lose (it rounds to 1 + 2^-22). */
    float a = 0x1.000002p0f;
    CHECK_BITS(t, fmag_eval(a, a, -0x1.000004p0f, 0, 1), 0x1p-46f);
    CHECK_BITS(t, fmag_eval(a, a, -0x1.000004p0f, 0, 1), fmaf(a, a, -0x1.000004p0f));
    /* Sign of zero: +0 * -1 + +0 = -0 + +0 = +0 (round to nearest), so neg(+0) = +0. */
    CHECK_BITS(t, fmag_eval(0.0f, -1.0f, 0.0f, 0.0f, 1.0f), 0.0f);
    CHECK_BITS(t, fmag_eval(-0.0f, -1.0f, 0.0f, 0.0f, 1.0f), 0.0f);
    CHECK_BITS(t, fmag_eval(-0.0f, 1.0f, -0.0f, 0.0f, 1.0f), -0.0f);
    /* Overflow and denormals are IEEE. */
    CHECK_BITS(t, fmag_eval(0x1p127f, 4.0f, 0.0f, 0, 1), INFINITY);
    CHECK_BITS(t, fmag_eval(0x1p-126f, 0.5f, 0.0f, 0, 1), 0x1p-127f);
}

typedef struct fixture {
    fmag_context *ctx;
    fmag_module *m;
    fmag_func *f;
    fmag_builder b;
} fixture;

static void setup(fixture *fx, unsigned nparams, unsigned nresults)
{
    fx->ctx = fmag_context_create();
    fx->m = fmag_module_create(fx->ctx);
    fx->f = fmag_func_create(fx->m, "main", nparams, nresults, true);
    fmag_builder_at_end(&fx->b, fmag_block_create(fx->f, "entry"));
}

/* A non-export function of fx's module, *b at the end of its entry block. */
static fmag_func *helper(fixture *fx, const char *name, unsigned nparams, unsigned nresults,
                         fmag_builder *b)
{
    fmag_func *f = fmag_func_create(fx->m, name, nparams, nresults, false);
    fmag_builder_at_end(b, fmag_block_create(f, "entry"));
    return f;
}

static fmag_value *k(fixture *fx, float f)
{
    return fmag_module_const(fx->m, f);
}

static void test_straight_line(test_state *t)
{
    fixture fx;
    setup(&fx, 2, 3);
    fmag_value *x = &fx.f->params[0], *y = &fx.f->params[1];
    fmag_value *neg = fmag_build_neg(&fx.b, x);
    fmag_value *sub = fmag_build_sub(&fx.b, x, y);
    fmag_value *fma = fmag_build_fma(&fx.b, x, y, k(&fx, 0.25f));
    fmag_value *rv[3] = {neg, sub, fma};
    fmag_build_ret(&fx.b, rv, 3);
    CHECK(t, fmag_verify_module(fx.m));
    float out[3];
    /* neg(+0) = +0, sub(+0, +0) = +0 * -1 + +0... = fmag(+0,-1,+0) = +0. */
    CHECK(t, fmag_interp_func(fx.f, (float[]){0.0f, 0.0f}, out));
    CHECK_BITS(t, out[0], 0.0f);
    CHECK_BITS(t, out[1], 0.0f);
    CHECK_BITS(t, out[2], 0.25f);
    /* neg(-0) = fmaf(-0,-1,+0) = +0; sub(-0, +0) = fmaf(+0,-1,-0) = -0 + -0 = -0. */
    CHECK(t, fmag_interp_func(fx.f, (float[]){-0.0f, 0.0f}, out));
    CHECK_BITS(t, out[0], 0.0f);
    CHECK_BITS(t, out[1], -0.0f);
    CHECK(t, fmag_interp_func(fx.f, (float[]){3.0f, 5.0f}, out));
    CHECK_BITS(t, out[0], -3.0f);
    CHECK_BITS(t, out[1], -2.0f);
    CHECK_BITS(t, out[2], 15.25f);
    fmag_context_destroy(fx.ctx);
}

static void test_fused(test_state *t)
{
    fixture fx;
    setup(&fx, 1, 1);
    fmag_value *x = &fx.f->params[0];
    float c = -0x1.000004p0f;
    ret1(&fx.b, fmag_build_fma(&fx.b, x, x, k(&fx, c)));
    CHECK(t, fmag_verify_module(fx.m));
    float a = 0x1.000002p0f, out;
    CHECK(t, fmag_interp_func(fx.f, &a, &out));
    CHECK_BITS(t, out, 0x1p-46f);
    fmag_context_destroy(fx.ctx);
}

/* entry: br x, pos, neg; pos: a = add x, y; jmp done; neg: b = mul x, y; jmp done;
 * done: r = phi [a, pos], [b, neg]; ret r, 7.5 */
static void test_diamond(test_state *t)
{
    fixture fx;
    setup(&fx, 2, 2);
    fmag_func *f = fx.f;
    fmag_value *x = &f->params[0], *y = &f->params[1];
    fmag_block *pos = fmag_block_create(f, "pos"), *neg = fmag_block_create(f, "neg");
    fmag_block *done = fmag_block_create(f, "done");
    fmag_build_br(&fx.b, x, pos, neg);
    fmag_builder_at_end(&fx.b, pos);
    fmag_value *a = fmag_build_add(&fx.b, x, y);
    fmag_build_jmp(&fx.b, done);
    fmag_builder_at_end(&fx.b, neg);
    fmag_value *b = fmag_build_mul(&fx.b, x, y);
    fmag_build_jmp(&fx.b, done);
    fmag_builder_at_end(&fx.b, done);
    fmag_instr *phi = fmag_build_phi(&fx.b);
    fmag_phi_add_incoming(phi, a, pos);
    fmag_phi_add_incoming(phi, b, neg);
    fmag_value *rv[2] = {fmag_instr_result(phi), k(&fx, 7.5f)};
    fmag_build_ret(&fx.b, rv, 2);
    CHECK(t, fmag_verify_module(fx.m));
    float out[2];
    CHECK(t, fmag_interp_func(f, (float[]){2.0f, 3.0f}, out));
    CHECK_BITS(t, out[0], 5.0f);
    CHECK_BITS(t, out[1], 7.5f);
    CHECK(t, fmag_interp_func(f, (float[]){-2.0f, 3.0f}, out));
    CHECK_BITS(t, out[0], -6.0f);
    /* Guards +0, -0 and NaN are false: the mul arm. -0 * 3 = -0, and -0 + +0 = +0. */
    CHECK(t, fmag_interp_func(f, (float[]){0.0f, 3.0f}, out));
    CHECK_BITS(t, out[0], 0.0f);
    CHECK(t, fmag_interp_func(f, (float[]){-0.0f, 3.0f}, out));
    CHECK_BITS(t, out[0], 0.0f);
    CHECK(t, fmag_interp_func(f, (float[]){NAN, 3.0f}, out));
    CHECK(t, isnan(out[0]));
    CHECK(t, fmag_interp_func(f, (float[]){0x1p-149f, 1.0f}, out));
    CHECK_BITS(t, out[0], 1.0f);
    fmag_context_destroy(fx.ctx);
}

/* Phis read their operands simultaneously on entry: a loop that swaps a and b twice
 * gives (x, y) back; evaluating them one by one would give (y, y).
 *   entry: jmp loop
 *   loop:  i = phi [0, entry], [i1, loop]; a = phi [x, entry], [b, loop];
 *          b = phi [y, entry], [a, loop]; i1 = add i, 1; c = sub n, i1; br c, loop, exit
 *   exit:  ret a, b, i1 */
static void test_phi_swap_loop(test_state *t)
{
    fixture fx;
    setup(&fx, 3, 3);
    fmag_func *f = fx.f;
    fmag_value *x = &f->params[0], *y = &f->params[1], *n = &f->params[2];
    fmag_block *entry = f->first;
    fmag_block *loop = fmag_block_create(f, "loop"), *exit = fmag_block_create(f, "exit");
    fmag_build_jmp(&fx.b, loop);
    fmag_builder_at_end(&fx.b, loop);
    fmag_instr *pi = fmag_build_phi(&fx.b), *pa = fmag_build_phi(&fx.b),
               *pb = fmag_build_phi(&fx.b);
    fmag_value *i1 = fmag_build_add(&fx.b, fmag_instr_result(pi), k(&fx, 1.0f));
    fmag_value *c = fmag_build_sub(&fx.b, n, i1);
    fmag_build_br(&fx.b, c, loop, exit);
    fmag_phi_add_incoming(pi, k(&fx, 0.0f), entry);
    fmag_phi_add_incoming(pi, i1, loop);
    fmag_phi_add_incoming(pa, x, entry);
    fmag_phi_add_incoming(pa, fmag_instr_result(pb), loop);
    fmag_phi_add_incoming(pb, y, entry);
    fmag_phi_add_incoming(pb, fmag_instr_result(pa), loop);
    fmag_builder_at_end(&fx.b, exit);
    fmag_value *rv[3] = {fmag_instr_result(pa), fmag_instr_result(pb), i1};
    fmag_build_ret(&fx.b, rv, 3);
    CHECK(t, fmag_verify_module(fx.m));
    float out[3];
    /* n = 3: the body runs 3 times (i1 = 1, 2, 3), the phis swap twice. */
    CHECK(t, fmag_interp_func(f, (float[]){1.0f, 2.0f, 3.0f}, out));
    CHECK_BITS(t, out[0], 1.0f);
    CHECK_BITS(t, out[1], 2.0f);
    CHECK_BITS(t, out[2], 3.0f);
    /* n = 4: three swaps. */
    CHECK(t, fmag_interp_func(f, (float[]){1.0f, 2.0f, 4.0f}, out));
    CHECK_BITS(t, out[0], 2.0f);
    CHECK_BITS(t, out[1], 1.0f);
    CHECK_BITS(t, out[2], 4.0f);
    /* A long loop stays within the budget: 100000 iterations. */
    CHECK(t, fmag_interp_func(f, (float[]){1.0f, 2.0f, 100000.0f}, out));
    CHECK_BITS(t, out[2], 100000.0f);
    fmag_context_destroy(fx.ctx);
}

/* @pm(p, q) -> 2 = (p + q, p - q); main(x, y) = pm(pm(x, y)). */
static void test_calls(test_state *t)
{
    fixture fx;
    setup(&fx, 2, 2);
    fmag_builder pb;
    fmag_func *pm = helper(&fx, "pm", 2, 2, &pb);
    fmag_value *sv[2] = {fmag_build_add(&pb, &pm->params[0], &pm->params[1]),
                         fmag_build_sub(&pb, &pm->params[0], &pm->params[1])};
    fmag_build_ret(&pb, sv, 2);
    fmag_value *a1[2] = {&fx.f->params[0], &fx.f->params[1]};
    fmag_instr *c1 = fmag_build_call(&fx.b, pm, a1, 2);
    fmag_value *a2[2] = {&c1->results[0], &c1->results[1]};
    fmag_instr *c2 = fmag_build_call(&fx.b, pm, a2, 2);
    /* Returned in swapped order, to see that result k goes where it should. */
    fmag_value *rv[2] = {&c2->results[1], &c2->results[0]};
    fmag_build_ret(&fx.b, rv, 2);
    CHECK(t, fmag_verify_module(fx.m));
    float out[2];
    /* (5, 3) -> (8, 2) -> (10, 6); returned as (6, 10). */
    CHECK(t, fmag_interp_func(fx.f, (float[]){5.0f, 3.0f}, out));
    CHECK_BITS(t, out[0], 6.0f);
    CHECK_BITS(t, out[1], 10.0f);
    /* Calling the helper directly works too. */
    CHECK(t, fmag_interp_func(pm, (float[]){1.5f, 0.25f}, out));
    CHECK_BITS(t, out[0], 1.75f);
    CHECK_BITS(t, out[1], 1.25f);
    fmag_context_destroy(fx.ctx);
}

/* fact(n) = n < 1.5 ? 1 : n * fact(n - 1), recursive. */
static void test_recursion(test_state *t)
{
    fixture fx;
    setup(&fx, 1, 1);
    fmag_func *f = fx.f;
    fmag_value *n = &f->params[0];
    fmag_block *rec = fmag_block_create(f, "rec"), *base = fmag_block_create(f, "base");
    fmag_value *g = fmag_build_sub(&fx.b, n, k(&fx, 1.5f));
    fmag_build_br(&fx.b, g, rec, base);
    fmag_builder_at_end(&fx.b, base);
    ret1(&fx.b, k(&fx, 1.0f));
    fmag_builder_at_end(&fx.b, rec);
    fmag_value *m1 = fmag_build_sub(&fx.b, n, k(&fx, 1.0f));
    fmag_instr *call = fmag_build_call(&fx.b, f, &m1, 1);
    ret1(&fx.b, fmag_build_mul(&fx.b, n, &call->results[0]));
    CHECK(t, fmag_verify_module(fx.m));
    float out;
    CHECK(t, fmag_interp_func(f, (float[]){5.0f}, &out));
    CHECK_BITS(t, out, 120.0f);
    CHECK(t, fmag_interp_func(f, (float[]){10.0f}, &out));
    CHECK_BITS(t, out, 3628800.0f);
    CHECK(t, fmag_interp_func(f, (float[]){1.0f}, &out));
    CHECK_BITS(t, out, 1.0f);
    CHECK(t, fmag_context_diag_count(fx.ctx) == 0);
    /* Too deep: fails with a diagnostic, once, and the context is still usable. */
    CHECK(t, !fmag_interp_func(f, (float[]){100000.0f}, &out));
    CHECK(t, fmag_context_diag_count(fx.ctx) == 1);
    CHECK_DIAG(t, fx.ctx, "error: in function @main", "deeper than", NULL);
    fmag_context_diag_clear(fx.ctx);
    CHECK(t, fmag_interp_func(f, (float[]){4.0f}, &out));
    CHECK_BITS(t, out, 24.0f);
    fmag_context_destroy(fx.ctx);
}

static void test_infinite_loop(test_state *t)
{
    fixture fx;
    setup(&fx, 1, 1);
    fmag_func *f = fx.f;
    fmag_block *spin = fmag_block_create(f, "spin"), *out_bb = fmag_block_create(f, "out");
    fmag_build_jmp(&fx.b, spin);
    fmag_builder_at_end(&fx.b, spin);
    /* Loops while x > 0: x = x * 1 never changes. */
    fmag_instr *p = fmag_build_phi(&fx.b);
    fmag_value *x1 = fmag_build_mul(&fx.b, fmag_instr_result(p), k(&fx, 1.0f));
    fmag_phi_add_incoming(p, &f->params[0], f->first);
    fmag_phi_add_incoming(p, x1, spin);
    fmag_build_br(&fx.b, x1, spin, out_bb);
    fmag_builder_at_end(&fx.b, out_bb);
    ret1(&fx.b, x1);
    CHECK(t, fmag_verify_module(fx.m));
    float out = 42.0f;
    CHECK(t, fmag_interp_func(f, (float[]){-1.0f}, &out));
    CHECK_BITS(t, out, -1.0f);
    CHECK(t, !fmag_interp_func(f, (float[]){1.0f}, &out));
    CHECK_DIAG(t, fx.ctx, "error: in function @main, block ^spin", "does not end", NULL);
    CHECK(t, fmag_context_diag_count(fx.ctx) == 1);
    fmag_context_destroy(fx.ctx);
}

/* Literals stand anywhere: a br on a literal guard, a phi and ret of literals. */
static void test_literals(test_state *t)
{
    fixture fx;
    setup(&fx, 1, 2);
    fmag_func *f = fx.f;
    fmag_block *a = fmag_block_create(f, "a"), *b = fmag_block_create(f, "b");
    fmag_build_br(&fx.b, k(&fx, -0.0f), a, b);
    fmag_builder_at_end(&fx.b, a);
    ret1(&fx.b, k(&fx, 1.0f));
    fmag_builder_at_end(&fx.b, b);
    fmag_value *sel = fmag_build_select(&fx.b, k(&fx, 2.0f), &f->params[0], k(&fx, 0x1p-149f));
    fmag_value *rv[2] = {sel, k(&fx, -0.0f)};
    fmag_build_ret(&fx.b, rv, 2);
    /* Replace ^a's one-value ret (built first, to exercise erase) by a two-value one. */
    fmag_instr_erase(a->last);
    fmag_builder_at_end(&fx.b, a);
    fmag_value *rv2[2] = {k(&fx, 1.0f), k(&fx, 1.0f)};
    fmag_build_ret(&fx.b, rv2, 2);
    CHECK(t, fmag_verify_module(fx.m));
    float out[2];
    CHECK(t, fmag_interp_func(f, (float[]){9.0f}, out));
    CHECK_BITS(t, out[0], 2.0f);
    CHECK_BITS(t, out[1], -0.0f);
    fmag_context_destroy(fx.ctx);
}

/* Unverified IR is the caller's bug, but the cheap cases still fail cleanly. */
static void test_unverified(test_state *t)
{
    fixture fx;
    setup(&fx, 1, 1);
    fmag_block *next = fmag_block_create(fx.f, "next");
    fmag_build_jmp(&fx.b, next);
    fmag_builder_at_end(&fx.b, next);
    fmag_build_add(&fx.b, &fx.f->params[0], k(&fx, 1.0f));
    float out = 3.0f;
    CHECK(t, !fmag_interp_func(fx.f, (float[]){1.0f}, &out));
    CHECK_DIAG(t, fx.ctx, "error: in function @main, block ^next", "without a terminator", NULL);
    CHECK_BITS(t, out, 3.0f);
    fmag_context_destroy(fx.ctx);
}

/* fmag_interp_func_ex's report: an infinity made inside a callee and then discarded
 * (the output is finite) still counts, as does an infinite input; steps count every
 * instruction run, the callee's and the terminators included. */
static void test_report(test_state *t)
{
    fixture fx;
    setup(&fx, 1, 1);
    fmag_builder gb;
    fmag_func *g = helper(&fx, "big", 1, 1, &gb);
    ret1(&gb, fmag_build_mul(&gb, &g->params[0], k(&fx, 0x1p127f)));
    fmag_value *x = &fx.f->params[0];
    fmag_instr *call = fmag_build_call(&fx.b, g, &x, 1);
    /* Guard -1: the fallback 7, whatever the call gave. */
    ret1(&fx.b, fmag_build_fmag(&fx.b, &call->results[0], k(&fx, 1.0f), k(&fx, 0.0f), k(&fx, 7.0f),
                                k(&fx, -1.0f)));
    CHECK(t, fmag_verify_module(fx.m));
    float out = 0.0f;
    fmag_interp_report rep = {true, 0};
    CHECK(t, fmag_interp_func_ex(fx.f, (float[]){1.0f}, &out, &rep));
    CHECK_BITS(t, out, 7.0f);
    CHECK(t, !rep.nonfinite);
    CHECK(t, rep.steps == 5); /* call, fmag, ret; the callee's mul, ret */
    CHECK(t, fmag_interp_func_ex(fx.f, (float[]){4.0f}, &out, &rep));
    CHECK_BITS(t, out, 7.0f);
    CHECK(t, rep.nonfinite); /* 4 * 2^127 overflows in the callee */
    CHECK(t, fmag_interp_func_ex(fx.f, (float[]){-0x1p-10f}, &out, &rep));
    CHECK(t, !rep.nonfinite);
    CHECK(t, fmag_interp_func_ex(fx.f, (float[]){INFINITY}, &out, &rep));
    CHECK(t, rep.nonfinite);
    CHECK(t, fmag_interp_func_ex(fx.f, (float[]){NAN}, &out, &rep));
    CHECK(t, rep.nonfinite);
    /* A report is optional. */
    CHECK(t, fmag_interp_func_ex(fx.f, (float[]){4.0f}, &out, NULL));
    fmag_context_destroy(fx.ctx);
}

int main(void)
{
    test_state t = {0};
    test_eval(&t);
    test_straight_line(&t);
    test_fused(&t);
    test_diamond(&t);
    test_phi_swap_loop(&t);
    test_calls(&t);
    test_recursion(&t);
    test_infinite_loop(&t);
    test_literals(&t);
    test_unverified(&t);
    test_report(&t);
    return test_finish(&t, "ir-interp-unittests");
}
