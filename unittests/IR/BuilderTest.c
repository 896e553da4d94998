/* Unit tests of the IR builder API: every sugar form expands to exactly the plain
 * fmag instructions of SPEC §2, constants are interned by bits, and use lists stay
 * right through RAUW, set_op, erase and phi editing. */
#include "IRTest.h"

#include <math.h>
#include <stdlib.h>

typedef struct fixture {
    fmag_context *ctx;
    fmag_module *m;
    fmag_func *f;
    fmag_block *entry;
    fmag_builder b;
    fmag_value *x, *y, *z;
} fixture;

static void setup(fixture *fx)
{
    fx->ctx = fmag_context_create();
    fx->m = fmag_module_create(fx->ctx);
    fx->f = fmag_func_create(fx->m, "f", 3, 1, true);
    fx->entry = fmag_block_create(fx->f, "entry");
    fmag_builder_at_end(&fx->b, fx->entry);
    fx->x = &fx->f->params[0];
    fx->y = &fx->f->params[1];
    fx->z = &fx->f->params[2];
}

static void teardown(fixture *fx)
{
    fmag_context_destroy(fx->ctx);
}

/* Is operand slot k of the fmag instruction defining r the value v, or the literal
 * with bits of lit when v is NULL? */
static bool op_is(fmag_value *r, unsigned k, fmag_value *v, float lit)
{
    if (r->kind != FMAG_VALUE_RESULT || r->def->op != FMAG_OP_FMAG || r->def->nops != 5)
        return false;
    fmag_value *o = fmag_instr_op(r->def, k);
    return v ? o == v : (fmag_value_is_const(o) && test_bits(o->imm) == test_bits(lit));
}

/* The instruction defining r is `fmag a, b, c, d, e`, each a value or (NULL) a literal. */
static bool is_fmag(fmag_value *r, fmag_value *a, float la, fmag_value *b, float lb, fmag_value *c,
                    float lc, fmag_value *d, float ld, fmag_value *e, float le)
{
    return op_is(r, FMAG_A, a, la) && op_is(r, FMAG_B, b, lb) && op_is(r, FMAG_C, c, lc) &&
           op_is(r, FMAG_D, d, ld) && op_is(r, FMAG_E, e, le);
}

static void test_constants(test_state *t)
{
    fixture fx;
    setup(&fx);
    fmag_value *one = fmag_module_const(fx.m, 1.0f);
    CHECK(t, one == fmag_module_const(fx.m, 1.0f));
    CHECK(t, fmag_value_is_const(one));
    CHECK(t, fmag_value_is_imm(one, 1.0f));
    CHECK(t, !fmag_value_is_imm(one, 2.0f));
    fmag_value *pz = fmag_module_const(fx.m, 0.0f), *nz = fmag_module_const(fx.m, -0.0f);
    CHECK(t, pz != nz);
    CHECK(t, fmag_value_is_imm(pz, 0.0f) && !fmag_value_is_imm(pz, -0.0f));
    CHECK(t, fmag_value_is_imm(nz, -0.0f) && !fmag_value_is_imm(nz, 0.0f));
    CHECK(t, fmag_build_const(&fx.b, 1.0f) == one);
    /* A literal is not an instruction. */
    CHECK(t, fmag_func_num_instrs(fx.f) == 0);
    /* Denormals and hex-exact values intern by bits too. */
    float den = 0x1p-149f;
    CHECK(t, fmag_module_const(fx.m, den) == fmag_module_const(fx.m, den));
    CHECK(t, fmag_module_const(fx.m, den) != pz);
    teardown(&fx);
}

static void test_sugar_single(test_state *t)
{
    fixture fx;
    setup(&fx);
    fmag_builder *b = &fx.b;
    fmag_value *x = fx.x, *y = fx.y, *z = fx.z;

    fmag_value *r = fmag_build_fmag(b, x, y, z, x, y);
    CHECK(t, is_fmag(r, x, 0, y, 0, z, 0, x, 0, y, 0));
    /* add A,B = fmag A,1.0,B,0.0,1.0 */
    r = fmag_build_add(b, x, y);
    CHECK(t, is_fmag(r, x, 0, NULL, 1.0f, y, 0, NULL, 0.0f, NULL, 1.0f));
    /* sub A,B = fmag B,-1.0,A,0.0,1.0 */
    r = fmag_build_sub(b, x, y);
    CHECK(t, is_fmag(r, y, 0, NULL, -1.0f, x, 0, NULL, 0.0f, NULL, 1.0f));
    /* mul A,B = fmag A,B,0.0,0.0,1.0 */
    r = fmag_build_mul(b, x, y);
    CHECK(t, is_fmag(r, x, 0, y, 0, NULL, 0.0f, NULL, 0.0f, NULL, 1.0f));
    /* neg A = fmag A,-1.0,0.0,0.0,1.0 */
    r = fmag_build_neg(b, x);
    CHECK(t, is_fmag(r, x, 0, NULL, -1.0f, NULL, 0.0f, NULL, 0.0f, NULL, 1.0f));
    /* fma A,B,C = fmag A,B,C,0.0,1.0 */
    r = fmag_build_fma(b, x, y, z);
    CHECK(t, is_fmag(r, x, 0, y, 0, z, 0, NULL, 0.0f, NULL, 1.0f));
    /* select T,F,G = fmag T,1.0,0.0,F,G */
    r = fmag_build_select(b, x, y, z);
    CHECK(t, is_fmag(r, x, 0, NULL, 1.0f, NULL, 0.0f, y, 0, z, 0));
    /* relu X = fmag X,1.0,0.0,0.0,X */
    r = fmag_build_relu(b, x);
    CHECK(t, is_fmag(r, x, 0, NULL, 1.0f, NULL, 0.0f, NULL, 0.0f, x, 0));
    /* Each single-instruction form is exactly one instruction, appended in order. */
    CHECK(t, fmag_func_num_instrs(fx.f) == 8);
    CHECK(t, fx.entry->last == r->def);
    /* The literal 0.0 in the expansions is +0, never -0. */
    CHECK(t, test_bits(fmag_instr_op(r->def, FMAG_C)->imm) == 0u);
    teardown(&fx);
}

static void test_sugar_pairs(test_state *t)
{
    fixture fx;
    setup(&fx);
    fmag_builder *b = &fx.b;
    fmag_value *x = fx.x, *y = fx.y;

    /* max A,B = select(A, B, sub(A,B)) */
    fmag_value *r = fmag_build_max(b, x, y);
    fmag_value *s = fmag_instr_op(r->def, FMAG_E);
    CHECK(t, is_fmag(r, x, 0, NULL, 1.0f, NULL, 0.0f, y, 0, s, 0));
    CHECK(t, is_fmag(s, y, 0, NULL, -1.0f, x, 0, NULL, 0.0f, NULL, 1.0f));
    CHECK(t, s->def->next == r->def);
    CHECK(t, fmag_func_num_instrs(fx.f) == 2);

    /* min A,B = select(B, A, sub(A,B)) */
    r = fmag_build_min(b, x, y);
    s = fmag_instr_op(r->def, FMAG_E);
    CHECK(t, is_fmag(r, y, 0, NULL, 1.0f, NULL, 0.0f, x, 0, s, 0));
    CHECK(t, is_fmag(s, y, 0, NULL, -1.0f, x, 0, NULL, 0.0f, NULL, 1.0f));
    CHECK(t, fmag_func_num_instrs(fx.f) == 4);

    /* abs X = select(X, neg(X), X) */
    r = fmag_build_abs(b, x);
    fmag_value *n = fmag_instr_op(r->def, FMAG_D);
    CHECK(t, is_fmag(r, x, 0, NULL, 1.0f, NULL, 0.0f, n, 0, x, 0));
    CHECK(t, is_fmag(n, x, 0, NULL, -1.0f, NULL, 0.0f, NULL, 0.0f, NULL, 1.0f));
    CHECK(t, fmag_func_num_instrs(fx.f) == 6);

    /* (x > y) = select(1, 0, x - y) */
    r = fmag_build_gt(b, x, y);
    s = fmag_instr_op(r->def, FMAG_E);
    CHECK(t, is_fmag(r, NULL, 1.0f, NULL, 1.0f, NULL, 0.0f, NULL, 0.0f, s, 0));
    CHECK(t, is_fmag(s, y, 0, NULL, -1.0f, x, 0, NULL, 0.0f, NULL, 1.0f));
    teardown(&fx);
}

/* The comparisons by meaning, on a grid of finite values (the interpreter is tested
 * separately; here fmag_eval of each built instruction is the evaluator). */
static float eval_value(fmag_value *v, const float *params)
{
    if (v->kind == FMAG_VALUE_CONST) return v->imm;
    if (v->kind == FMAG_VALUE_PARAM) return params[v->index];
    fmag_instr *i = v->def;
    return fmag_eval(
        eval_value(fmag_instr_op(i, 0), params), eval_value(fmag_instr_op(i, 1), params),
        eval_value(fmag_instr_op(i, 2), params), eval_value(fmag_instr_op(i, 3), params),
        eval_value(fmag_instr_op(i, 4), params));
}

static void test_compare_semantics(test_state *t)
{
    fixture fx;
    setup(&fx);
    fmag_value *gt = fmag_build_gt(&fx.b, fx.x, fx.y), *lt = fmag_build_lt(&fx.b, fx.x, fx.y);
    fmag_value *ge = fmag_build_ge(&fx.b, fx.x, fx.y), *le = fmag_build_le(&fx.b, fx.x, fx.y);
    fmag_value *mx = fmag_build_max(&fx.b, fx.x, fx.y), *mn = fmag_build_min(&fx.b, fx.x, fx.y);
    fmag_value *ab = fmag_build_abs(&fx.b, fx.x), *rl = fmag_build_relu(&fx.b, fx.x);
    static const float grid[] = {-3.5f, -1.0f, -0.0f, 0.0f, 0x1p-149f, 1.0f, 2.5f, 1e30f};
    unsigned n = sizeof grid / sizeof grid[0];
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            float p[3] = {grid[i], grid[j], 0};
            float xv = p[0], yv = p[1];
            CHECK_BITS(t, eval_value(gt, p), xv > yv ? 1.0f : 0.0f);
            CHECK_BITS(t, eval_value(lt, p), xv < yv ? 1.0f : 0.0f);
            CHECK_BITS(t, eval_value(ge, p), xv >= yv ? 1.0f : 0.0f);
            CHECK_BITS(t, eval_value(le, p), xv <= yv ? 1.0f : 0.0f);
            /* max/min pick an operand; with equal values either (±0 compare equal). */
            float want_max = xv > yv ? xv : yv, want_min = yv > xv ? xv : yv;
            CHECK(t, eval_value(mx, p) == want_max);
            CHECK(t, eval_value(mn, p) == want_min);
        }
    for (unsigned i = 0; i < n; i++) {
        float p[3] = {grid[i], 0, 0};
        /* abs X = X > 0 ? X : -X (by fma: X*-1+0), so abs(-0) = +0 and abs(+0) = +0. */
        CHECK_BITS(t, eval_value(ab, p), grid[i] > 0 ? grid[i] : fmaf(grid[i], -1.0f, 0.0f));
        CHECK_BITS(t, eval_value(rl, p), grid[i] > 0 ? grid[i] : 0.0f);
    }
    float pz[3] = {-0.0f, 0, 0};
    CHECK_BITS(t, eval_value(ab, pz), 0.0f);
    teardown(&fx);
}

static void test_builder_position(test_state *t)
{
    fixture fx;
    setup(&fx);
    fmag_value *a = fmag_build_add(&fx.b, fx.x, fx.y);
    fmag_value *c = fmag_build_mul(&fx.b, fx.x, fx.y);
    fmag_builder bb;
    fmag_builder_before(&bb, c->def);
    CHECK(t, bb.block == fx.entry && bb.before == c->def);
    fmag_value *mid = fmag_build_neg(&bb, a);
    CHECK(t, a->def->next == mid->def && mid->def->next == c->def);
    CHECK(t, mid->def->block == fx.entry);
    CHECK(t, fx.entry->first == a->def && fx.entry->last == c->def);
    /* Multi-instruction sugar also goes before the position, in order. */
    fmag_value *mx = fmag_build_max(&bb, fx.x, fx.y);
    fmag_value *s = fmag_instr_op(mx->def, FMAG_E);
    CHECK(t, mid->def->next == s->def && s->def->next == mx->def && mx->def->next == c->def);
    fmag_instr *ret = fmag_build_ret(&fx.b, &c, 1);
    CHECK(t, fmag_block_terminator(fx.entry) == ret);
    CHECK(t, ret->op == FMAG_OP_RET && ret->nops == 1 && fmag_instr_op(ret, 0) == c);
    CHECK(t, fmag_func_num_instrs(fx.f) == 6);
    teardown(&fx);
}

static bool use_list_has(fmag_value *v, fmag_instr *user, unsigned k)
{
    fmag_foreach_use (u, v)
        if (u->user == user && u->index == k) return true;
    return false;
}

static void test_rauw_and_erase(test_state *t)
{
    fixture fx;
    setup(&fx);
    fmag_value *a = fmag_build_add(&fx.b, fx.x, fx.y);    /* x: 1 use, y: 1 use */
    fmag_value *m = fmag_build_mul(&fx.b, a, a);          /* a: 2 uses */
    fmag_value *s = fmag_build_fma(&fx.b, a, fx.z, fx.x); /* a: 3, z: 1, x: 2 */
    fmag_instr *ret = fmag_build_ret(&fx.b, &s, 1);
    CHECK(t, fmag_value_num_uses(a) == 3);
    CHECK(t, fmag_value_num_uses(fx.x) == 2);
    CHECK(t, fmag_value_num_uses(fx.z) == 1);
    CHECK(t, fmag_value_num_uses(s) == 1 && use_list_has(s, ret, 0));
    CHECK(t, use_list_has(a, m->def, 0) && use_list_has(a, m->def, 1));
    CHECK(t, use_list_has(a, s->def, FMAG_A));

    fmag_value_replace_all_uses(a, fx.z);
    CHECK(t, fmag_value_num_uses(a) == 0);
    CHECK(t, fmag_value_num_uses(fx.z) == 4);
    CHECK(t, fmag_instr_op(m->def, 0) == fx.z && fmag_instr_op(m->def, 1) == fx.z);
    CHECK(t, fmag_instr_op(s->def, FMAG_A) == fx.z && fmag_instr_op(s->def, FMAG_B) == fx.z);
    CHECK(t, use_list_has(fx.z, m->def, 1) && use_list_has(fx.z, s->def, FMAG_B));

    /* a is dead now: erasing it drops its uses of x and y. */
    fmag_instr_erase(a->def);
    CHECK(t, fmag_func_num_instrs(fx.f) == 3);
    CHECK(t, fx.entry->first == m->def);
    CHECK(t, fmag_value_num_uses(fx.y) == 0);
    CHECK(t, fmag_value_num_uses(fx.x) == 1);

    /* set_op moves one use. */
    fmag_instr_set_op(m->def, 1, fx.y);
    CHECK(t, fmag_value_num_uses(fx.z) == 3 && fmag_value_num_uses(fx.y) == 1);
    CHECK(t, use_list_has(fx.y, m->def, 1) && !use_list_has(fx.z, m->def, 1));

    /* RAUW onto a literal: the constant's use list takes them. */
    fmag_value *two = fmag_module_const(fx.m, 2.0f);
    size_t before = fmag_value_num_uses(two);
    fmag_value_replace_all_uses(fx.z, two);
    CHECK(t, fmag_value_num_uses(fx.z) == 0);
    CHECK(t, fmag_value_num_uses(two) == before + 3);
    CHECK(t, fmag_value_is_imm(fmag_instr_op(s->def, FMAG_A), 2.0f));
    CHECK(t, fmag_verify_func(fx.f));
    teardown(&fx);
}

static void test_phi_editing_and_cfg(test_state *t)
{
    fixture fx;
    setup(&fx);
    fmag_func *f = fx.f;
    fmag_block *then_bb = fmag_block_create(f, "then"), *else_bb = fmag_block_create(f, "else");
    fmag_block *join = fmag_block_create(f, "join");
    fmag_instr *br = fmag_build_br(&fx.b, fx.x, then_bb, else_bb);
    CHECK(t, br->op == FMAG_OP_BR && fmag_instr_op(br, 0) == fx.x);
    CHECK(t, br->targets[0] == then_bb && br->targets[1] == else_bb);
    fmag_builder_at_end(&fx.b, then_bb);
    fmag_value *a = fmag_build_add(&fx.b, fx.x, fx.y);
    fmag_build_jmp(&fx.b, join);
    fmag_builder_at_end(&fx.b, else_bb);
    fmag_value *c = fmag_build_mul(&fx.b, fx.x, fx.y);
    fmag_instr *j2 = fmag_build_jmp(&fx.b, join);
    CHECK(t, j2->op == FMAG_OP_JMP && j2->targets[0] == join);
    fmag_builder_at_end(&fx.b, join);
    fmag_instr *phi = fmag_build_phi(&fx.b);
    CHECK(t, phi->op == FMAG_OP_PHI && phi->nops == 0 && phi->nresults == 1);
    fmag_phi_add_incoming(phi, a, then_bb);
    fmag_phi_add_incoming(phi, c, else_bb);
    CHECK(t, phi->nops == 2);
    CHECK(t, fmag_phi_value_for(phi, then_bb) == a && fmag_phi_value_for(phi, else_bb) == c);
    CHECK(t, fmag_phi_value_for(phi, fx.entry) == NULL);
    CHECK(t, use_list_has(a, phi, 0) && use_list_has(c, phi, 1));
    fmag_value *r = fmag_instr_result(phi);
    fmag_build_ret(&fx.b, &r, 1);

    fmag_block *succ[2];
    CHECK(t, fmag_block_succs(fx.entry, succ) == 2 && succ[0] == then_bb && succ[1] == else_bb);
    CHECK(t, fmag_block_succs(then_bb, succ) == 1 && succ[0] == join);
    fmag_block **preds;
    unsigned np = fmag_block_preds(join, &preds);
    CHECK(t, np == 2);
    CHECK(t, np == 2 && ((preds[0] == then_bb && preds[1] == else_bb) ||
                         (preds[0] == else_bb && preds[1] == then_bb)));
    CHECK(t, fmag_block_preds(fx.entry, &preds) == 0);
    CHECK(t, fmag_verify_func(fx.f));

    /* Removing the first incoming keeps the other paired with its block. */
    fmag_phi_remove_incoming(phi, 0);
    CHECK(t, phi->nops == 1);
    CHECK(t, fmag_phi_value_for(phi, then_bb) == NULL);
    CHECK(t, fmag_phi_value_for(phi, else_bb) == c);
    CHECK(t, fmag_value_num_uses(a) == 0);
    CHECK(t, fmag_value_num_uses(c) == 1 && use_list_has(c, phi, 0));
    /* Now the phi misses ^then: the verifier says so. */
    CHECK(t, !fmag_verify_func(fx.f));
    CHECK_DIAG(t, fx.ctx, "in function @f, block ^join", "no incoming value for predecessor ^then",
               NULL);
    fmag_context_diag_clear(fx.ctx);
    fmag_phi_add_incoming(phi, fmag_module_const(fx.m, 4.0f), then_bb);
    CHECK(t, fmag_verify_func(fx.f));
    CHECK(t, fmag_context_diag_count(fx.ctx) == 0);
    teardown(&fx);
}

static void test_calls(test_state *t)
{
    fixture fx;
    setup(&fx);
    fmag_func *g = fmag_func_create(fx.m, "g", 2, 3, false);
    CHECK(t, fmag_module_get_func(fx.m, "g") == g && fmag_module_get_func(fx.m, "f") == fx.f);
    CHECK(t, fmag_module_get_func(fx.m, "nope") == NULL);
    fmag_value *args[2] = {fx.x, fmag_module_const(fx.m, 0.5f)};
    fmag_instr *call = fmag_build_call(&fx.b, g, args, 2);
    CHECK(t, call->op == FMAG_OP_CALL && call->callee == g);
    CHECK(t, call->nops == 2 && fmag_instr_op(call, 0) == fx.x);
    CHECK(t, fmag_value_is_imm(fmag_instr_op(call, 1), 0.5f));
    CHECK(t, call->nresults == 3);
    for (unsigned k = 0; k < 3; k++)
        CHECK(t, call->results[k].kind == FMAG_VALUE_RESULT && call->results[k].def == call &&
                     call->results[k].index == k);
    fmag_func_renumber(fx.f);
    /* params first, then results in block order */
    CHECK(t, fx.f->nvalues == 3 + 3);
    CHECK(t,
          fx.x->id == 0 && fx.z->id == 2 && call->results[0].id == 3 && call->results[2].id == 5);
    CHECK(t, fx.f->nblocks == 1 && fx.entry->id == 0);
    teardown(&fx);
}

/* Integers (SPEC §2b): i32 literals are a pool apart from f32 ones, the builder
 * types its results from fmag/IntOps.def, typed calls and selects, and a module copy
 * and structural equality keep and compare the types. */
static void test_integers(test_state *t)
{
    fixture fx;
    setup(&fx);
    fmag_value *i7 = fmag_module_const_i32(fx.m, 7);
    fmag_value *f7bits = fmag_module_const(fx.m, test_float_of(7));
    CHECK(t, i7 == fmag_module_const_i32(fx.m, 7) && i7 != f7bits);
    CHECK(t, i7->type == FMAG_TYPE_I32 && f7bits->type == FMAG_TYPE_F32);
    CHECK(t, fmag_value_is_int_imm(i7, 7) && !fmag_value_is_int_imm(f7bits, 7));
    CHECK(t, !fmag_value_is_imm(fmag_module_const_i32(fx.m, 0), 0.0f));
    fmag_value *xi = fmag_build_int(&fx.b, FMAG_IOP_FPTOSI, fx.x, NULL, NULL);
    CHECK(t, xi->type == FMAG_TYPE_I32 && xi->def->op == FMAG_OP_INT && xi->def->nops == 1);
    fmag_value *s = fmag_build_int(&fx.b, FMAG_IOP_ADD, xi, i7, NULL);
    fmag_value *c = fmag_build_int(&fx.b, FMAG_IOP_ULT, s, i7, NULL);
    CHECK(t, s->type == FMAG_TYPE_I32 && c->type == FMAG_TYPE_F32);
    fmag_value *sel = fmag_build_select_typed(&fx.b, s, i7, c);
    CHECK(t, sel->type == FMAG_TYPE_I32 && sel->def->op == FMAG_OP_INT &&
                 sel->def->iop == FMAG_IOP_SELECT);
    CHECK(t, fmag_build_select_typed(&fx.b, fx.x, fx.y, c)->def->op == FMAG_OP_FMAG);
    fmag_func *g = fmag_func_create(fx.m, "g", 1, 2, false);
    g->params[0].type = FMAG_TYPE_I32;
    fmag_func_set_result_type(g, 1, FMAG_TYPE_I32);
    CHECK(t, fmag_func_result_type(g, 0) == FMAG_TYPE_F32 &&
                 fmag_func_result_type(g, 1) == FMAG_TYPE_I32);
    fmag_instr *call = fmag_build_call(&fx.b, g, &sel, 1);
    CHECK(t, call->results[0].type == FMAG_TYPE_F32 && call->results[1].type == FMAG_TYPE_I32);
    fmag_value *r = fmag_build_int(&fx.b, FMAG_IOP_SITOFP, &call->results[1], NULL, NULL);
    fmag_build_ret(&fx.b, &r, 1);
    fmag_block *ge = fmag_block_create(g, "entry");
    fmag_builder gb;
    fmag_builder_at_end(&gb, ge);
    fmag_value *gr[2] = {fmag_module_const(fx.m, 1.0f), &g->params[0]};
    fmag_build_ret(&gb, gr, 2);
    CHECK(t, fmag_func_has_int(fx.f) && fmag_func_has_int(g));
    CHECK(t, fmag_verify_module(fx.m));
    fmag_module *copy = fmag_module_clone(fx.m);
    CHECK(t, copy && fmag_module_equal(fx.m, copy));
    fmag_func *cg = fmag_module_get_func(copy, "g");
    CHECK(t, cg && cg->params[0].type == FMAG_TYPE_I32 &&
                 fmag_func_result_type(cg, 1) == FMAG_TYPE_I32);
    cg->params[0].type = FMAG_TYPE_F32; /* equality sees a type, not just the shape */
    CHECK(t, !fmag_module_equal(fx.m, copy));
    /* x = 3.9: fptosi 3, +7 = 10, 10 <u 7 false: the select takes 7; g returns it. */
    float in[3] = {3.9f, 0.0f, 0.0f}, out[1];
    CHECK(t, fmag_interp_func(fx.f, in, out));
    CHECK_BITS(t, out[0], 7.0f);
    CHECK(t, fmag_eval_int(FMAG_IOP_ASHR, 0x80000000u, 33, 0) == 0xC0000000u);
    CHECK(t, fmag_eval_int(FMAG_IOP_F2I, test_bits(-0.0f), 0, 0) == 0);
    teardown(&fx);
}

int main(void)
{
    test_state t = {0};
    test_constants(&t);
    test_sugar_single(&t);
    test_sugar_pairs(&t);
    test_compare_semantics(&t);
    test_builder_position(&t);
    test_rauw_and_erase(&t);
    test_phi_editing_and_cfg(&t);
    test_calls(&t);
    test_integers(&t);
    return test_finish(&t, "ir-builder-unittests");
}
