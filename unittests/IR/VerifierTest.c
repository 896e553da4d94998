/* Unit tests of the verifier on IR built through the API: valid modules pass with no
 * diagnostic, and each invalid form gives its message naming function, block and
 * instruction; plus call-graph recursion detection. */
#include "IRTest.h"

#include <math.h>

typedef struct fixture {
    fmag_context *ctx;
    fmag_module *m;
    fmag_func *f;
    fmag_block *entry;
    fmag_builder b;
    fmag_value *x, *y;
} fixture;

static void setup(fixture *fx)
{
    fx->ctx = fmag_context_create();
    fx->m = fmag_module_create(fx->ctx);
    fx->f = fmag_func_create(fx->m, "f", 2, 1, true);
    fx->entry = fmag_block_create(fx->f, "entry");
    fmag_builder_at_end(&fx->b, fx->entry);
    fx->x = &fx->f->params[0];
    fx->y = &fx->f->params[1];
    fx->x->name = "x";
    fx->y->name = "y";
}

static void teardown(fixture *fx)
{
    fmag_context_destroy(fx->ctx);
}

static void ret1(fmag_builder *b, fmag_value *v)
{
    fmag_build_ret(b, &v, 1);
}

/* entry: br x, then, else; then: a = add x,y; jmp join; else: c = mul x,y; jmp join;
 * join: r = phi [a, then], [c, else]; ret r */
typedef struct diamond {
    fmag_block *then_bb, *else_bb, *join;
    fmag_value *a, *c;
    fmag_instr *phi;
} diamond;

static void build_diamond(fixture *fx, diamond *d)
{
    d->then_bb = fmag_block_create(fx->f, "then");
    d->else_bb = fmag_block_create(fx->f, "else");
    d->join = fmag_block_create(fx->f, "join");
    fmag_build_br(&fx->b, fx->x, d->then_bb, d->else_bb);
    fmag_builder_at_end(&fx->b, d->then_bb);
    d->a = fmag_build_add(&fx->b, fx->x, fx->y);
    d->a->name = "a";
    fmag_build_jmp(&fx->b, d->join);
    fmag_builder_at_end(&fx->b, d->else_bb);
    d->c = fmag_build_mul(&fx->b, fx->x, fx->y);
    d->c->name = "c";
    fmag_build_jmp(&fx->b, d->join);
    fmag_builder_at_end(&fx->b, d->join);
    d->phi = fmag_build_phi(&fx->b);
    fmag_instr_result(d->phi)->name = "r";
    fmag_phi_add_incoming(d->phi, d->a, d->then_bb);
    fmag_phi_add_incoming(d->phi, d->c, d->else_bb);
}

static void expect_valid(test_state *t, fixture *fx)
{
    CHECK(t, fmag_verify_module(fx->m));
    CHECK(t, fmag_context_diag_count(fx->ctx) == 0);
    if (fmag_context_diag_count(fx->ctx)) fmag_context_diag_print(fx->ctx, stderr);
}

static void test_valid(test_state *t)
{
    fixture fx;
    setup(&fx);
    diamond d;
    build_diamond(&fx, &d);
    ret1(&fx.b, fmag_instr_result(d.phi));
    expect_valid(t, &fx);
    CHECK(t, !fmag_module_has_recursion(fx.m));
    teardown(&fx);

    /* A loop whose header phi uses a value defined later, on the back edge. */
    setup(&fx);
    fmag_block *loop = fmag_block_create(fx.f, "loop"), *exit = fmag_block_create(fx.f, "exit");
    fmag_build_jmp(&fx.b, loop);
    fmag_builder_at_end(&fx.b, loop);
    fmag_instr *i = fmag_build_phi(&fx.b);
    fmag_value *i1 = fmag_build_sub(&fx.b, fmag_instr_result(i), fmag_module_const(fx.m, 1.0f));
    fmag_phi_add_incoming(i, fx.x, fx.entry);
    fmag_phi_add_incoming(i, i1, loop);
    fmag_build_br(&fx.b, i1, loop, exit);
    fmag_builder_at_end(&fx.b, exit);
    ret1(&fx.b, i1);
    expect_valid(t, &fx);
    teardown(&fx);

    /* Unreachable blocks are allowed, and any use inside one is fine. */
    setup(&fx);
    fmag_block *dead = fmag_block_create(fx.f, "dead");
    fmag_block *dead2 = fmag_block_create(fx.f, "dead2");
    fmag_value *s = fmag_build_add(&fx.b, fx.x, fx.y);
    ret1(&fx.b, s);
    fmag_builder_at_end(&fx.b, dead);
    fmag_value *late = NULL;
    fmag_value *early = fmag_build_add(&fx.b, fx.x, fx.y);
    fmag_build_jmp(&fx.b, dead2);
    fmag_builder_at_end(&fx.b, dead2);
    late = fmag_build_mul(&fx.b, early, early);
    fmag_instr_set_op(early->def, 0, late); /* a use before its def, in dead code */
    ret1(&fx.b, late);
    expect_valid(t, &fx);
    teardown(&fx);

    /* A br with both arms to one block is one predecessor: one phi incoming. */
    setup(&fx);
    fmag_block *j = fmag_block_create(fx.f, "j");
    fmag_build_br(&fx.b, fx.x, j, j);
    fmag_builder_at_end(&fx.b, j);
    fmag_instr *p = fmag_build_phi(&fx.b);
    fmag_phi_add_incoming(p, fx.y, fx.entry);
    ret1(&fx.b, fmag_instr_result(p));
    expect_valid(t, &fx);
    teardown(&fx);
}

/* Verifying valid IR names nothing: names are given only to report an error. */
static void test_no_renaming(test_state *t)
{
    fixture fx;
    setup(&fx);
    fmag_value *u = fmag_build_add(&fx.b, fx.x, fx.y);
    fmag_block *b1 = fmag_block_create(fx.f, NULL);
    fmag_build_jmp(&fx.b, b1);
    fmag_builder_at_end(&fx.b, b1);
    ret1(&fx.b, u);
    expect_valid(t, &fx);
    CHECK(t, u->name == NULL && b1->name == NULL);
    teardown(&fx);
}

static void test_dominance(test_state *t)
{
    fixture fx;
    diamond d;

    /* A value from one arm used at the join, not through a phi. */
    setup(&fx);
    build_diamond(&fx, &d);
    fmag_value *bad = fmag_build_add(&fx.b, fmag_instr_result(d.phi), d.a);
    bad->name = "bad";
    ret1(&fx.b, bad);
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "error: in function @f, block ^join, instruction %bad:",
               "operand %a does not dominate this use", "defined in ^then");
    /* The listing marks the offending line. */
    CHECK_DIAG(t, fx.ctx, "does not dominate", "; <-- error", "^join:");
    teardown(&fx);

    /* Use before def in one block, and an instruction using its own result. */
    setup(&fx);
    fmag_value *u = fmag_build_add(&fx.b, fx.x, fx.y);
    u->name = "u";
    fmag_value *v = fmag_build_mul(&fx.b, fx.x, fx.y);
    v->name = "v";
    fmag_instr_set_op(u->def, 0, v);
    fmag_value *w = fmag_build_add(&fx.b, fx.x, fx.y);
    w->name = "w";
    fmag_instr_set_op(w->def, 2, w);
    ret1(&fx.b, w);
    CHECK(t, !fmag_verify_func(fx.f));
    CHECK_DIAG(t, fx.ctx, "block ^entry, instruction %u:", "operand %v does not dominate this use",
               "defined later in the block");
    CHECK_DIAG(t, fx.ctx, "instruction %w:", "operand %w does not dominate this use", "own result");
    teardown(&fx);

    /* A phi's incoming value must dominate the end of its predecessor. */
    setup(&fx);
    build_diamond(&fx, &d);
    fmag_instr_set_op(d.phi, 0, d.c); /* c is from ^else, incoming for ^then */
    ret1(&fx.b, fmag_instr_result(d.phi));
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "block ^join, instruction %r:",
               "incoming value %c does not dominate the end of predecessor ^then", NULL);
    teardown(&fx);

    /* A value of a reachable block used after a loop whose body does not dominate it. */
    setup(&fx);
    fmag_block *body = fmag_block_create(fx.f, "body"), *exit = fmag_block_create(fx.f, "exit");
    fmag_build_br(&fx.b, fx.x, body, exit);
    fmag_builder_at_end(&fx.b, body);
    fmag_value *inbody = fmag_build_add(&fx.b, fx.x, fx.y);
    inbody->name = "inbody";
    fmag_build_br(&fx.b, inbody, body, exit);
    fmag_builder_at_end(&fx.b, exit);
    ret1(&fx.b, inbody);
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx,
               "block ^exit, instruction ret:", "operand %inbody does not dominate this use", NULL);
    teardown(&fx);

    /* A value defined in an unreachable block does not dominate a reachable use. */
    setup(&fx);
    fmag_block *dead = fmag_block_create(fx.f, "dead"), *live = fmag_block_create(fx.f, "live");
    fmag_build_jmp(&fx.b, live);
    fmag_builder_at_end(&fx.b, dead);
    fmag_value *dv = fmag_build_add(&fx.b, fx.x, fx.y);
    dv->name = "dv";
    fmag_build_jmp(&fx.b, live);
    fmag_builder_at_end(&fx.b, live);
    ret1(&fx.b, dv);
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "block ^live", "operand %dv does not dominate this use", "unreachable");
    teardown(&fx);

    /* Unnamed values get the printer's names (params %x, %y are named: %0, %1). */
    setup(&fx);
    fmag_value *n0 = fmag_build_add(&fx.b, fx.x, fx.y);
    fmag_value *n1 = fmag_build_mul(&fx.b, fx.x, fx.y);
    fmag_instr_set_op(n0->def, 1, n1);
    ret1(&fx.b, n1);
    CHECK(t, !fmag_verify_func(fx.f));
    CHECK_DIAG(t, fx.ctx, "block ^entry, instruction %0: operand %1 does not dominate", NULL, NULL);
    CHECK_DIAG(t, fx.ctx, "  %0 = fma %x, %1, %y  ; <-- error", NULL, NULL);
    teardown(&fx);
}

static void test_phis(test_state *t)
{
    fixture fx;
    diamond d;

    /* Missing incoming for a predecessor. */
    setup(&fx);
    build_diamond(&fx, &d);
    fmag_phi_remove_incoming(d.phi, 1);
    ret1(&fx.b, fmag_instr_result(d.phi));
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx,
               "block ^join, instruction %r:", "phi has no incoming value for predecessor ^else",
               NULL);
    teardown(&fx);

    /* An extra incoming from a block that is not a predecessor, and a duplicate. */
    setup(&fx);
    build_diamond(&fx, &d);
    fmag_phi_add_incoming(d.phi, fx.x, fx.entry);
    fmag_phi_add_incoming(d.phi, fx.y, d.then_bb);
    ret1(&fx.b, fmag_instr_result(d.phi));
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "instruction %r:",
               "phi has an incoming value from ^entry, which is not a predecessor", NULL);
    CHECK_DIAG(t, fx.ctx, "instruction %r:", "phi has two incoming values from ^then", NULL);
    teardown(&fx);

    /* A phi after a non-phi instruction. */
    setup(&fx);
    build_diamond(&fx, &d);
    fmag_value *k = fmag_build_add(&fx.b, fx.x, fx.y);
    fmag_instr_remove(d.phi);
    fmag_instr_insert_after(k->def, d.phi);
    ret1(&fx.b, fmag_instr_result(d.phi));
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "block ^join, instruction %r:", "phi after a non-phi instruction", NULL);
    teardown(&fx);

    /* A phi in the entry block, and a branch back to the entry. */
    setup(&fx);
    fmag_instr *p = fmag_build_phi(&fx.b);
    fmag_instr_result(p)->name = "p";
    fmag_block *b1 = fmag_block_create(fx.f, "b1");
    fmag_build_jmp(&fx.b, b1);
    fmag_builder_at_end(&fx.b, b1);
    fmag_phi_add_incoming(p, fx.x, b1);
    fmag_build_br(&fx.b, fx.x, fx.entry, b1);
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "block ^entry, instruction %p:", "phi in the entry block", NULL);
    CHECK_DIAG(t, fx.ctx, "block ^b1, instruction br:", "branch to the entry block", NULL);
    teardown(&fx);
}

static void test_terminators(test_state *t)
{
    fixture fx;

    /* No terminator at the end. */
    setup(&fx);
    fmag_value *a = fmag_build_add(&fx.b, fx.x, fx.y);
    a->name = "a";
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "block ^entry, instruction %a:", "does not end in a terminator", NULL);
    teardown(&fx);

    /* A terminator in the middle. */
    setup(&fx);
    a = fmag_build_add(&fx.b, fx.x, fx.y);
    fmag_build_ret(&fx.b, &a, 1);
    fmag_build_ret(&fx.b, &a, 1);
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "block ^entry, instruction ret:", "terminator in the middle", NULL);
    teardown(&fx);

    /* An empty block. */
    setup(&fx);
    fmag_block *e = fmag_block_create(fx.f, "empty");
    fmag_build_jmp(&fx.b, e);
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "in function @f, block ^empty:", "block is empty", NULL);
    teardown(&fx);

    /* ret arity. */
    setup(&fx);
    fmag_value *two[2] = {fx.x, fx.y};
    fmag_build_ret(&fx.b, two, 2);
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx,
               "block ^entry, instruction ret:", "ret returns 2 values, the function has 1 result",
               NULL);
    teardown(&fx);

    /* A function without blocks. */
    setup(&fx);
    ret1(&fx.b, fx.x);
    fmag_func_create(fx.m, "g", 1, 1, false);
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "in function @g:", "no blocks", NULL);
    teardown(&fx);
}

static void test_operands(test_state *t)
{
    fixture fx;

    /* NaN and infinity literals. */
    setup(&fx);
    fmag_value *a = fmag_build_add(&fx.b, fx.x, fmag_module_const(fx.m, NAN));
    a->name = "a";
    fmag_value *b = fmag_build_mul(&fx.b, a, fmag_module_const(fx.m, -INFINITY));
    b->name = "b";
    ret1(&fx.b, b);
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "instruction %a:", "operand c is the literal nan", NULL);
    CHECK_DIAG(t, fx.ctx, "instruction %b:", "operand b is the literal -inf", NULL);
    teardown(&fx);

    /* Wrong operand count on fmag, an unset operand, a br without its guard. */
    setup(&fx);
    fmag_instr *i = fmag_instr_create(fx.f, FMAG_OP_FMAG, 4, 1);
    for (unsigned k = 0; k < 4; k++)
        fmag_instr_set_op(i, k, fx.x);
    fmag_block_append(fx.entry, i);
    fmag_instr_result(i)->name = "four";
    fmag_instr *j = fmag_instr_create(fx.f, FMAG_OP_FMAG, 5, 1);
    for (unsigned k = 0; k < 4; k++)
        fmag_instr_set_op(j, k, fx.x);
    fmag_block_append(fx.entry, j);
    fmag_instr_result(j)->name = "unset";
    fmag_block *b1 = fmag_block_create(fx.f, "b1");
    fmag_instr *br = fmag_instr_create(fx.f, FMAG_OP_BR, 0, 0);
    br->targets[0] = br->targets[1] = b1;
    fmag_block_append(fx.entry, br);
    fmag_builder_at_end(&fx.b, b1);
    ret1(&fx.b, fx.x);
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "instruction %four:", "fmag has 4 operands, expected 5", NULL);
    CHECK_DIAG(t, fx.ctx, "instruction %unset:", "operand e is not set", NULL);
    CHECK_DIAG(t, fx.ctx, "instruction br:", "br has 0 operands, expected 1", NULL);
    teardown(&fx);

    /* A value of another function. */
    setup(&fx);
    fmag_func *g = fmag_func_create(fx.m, "g", 1, 1, false);
    fmag_block *gb = fmag_block_create(g, "entry");
    fmag_builder gbld;
    fmag_builder_at_end(&gbld, gb);
    fmag_value *gv = fmag_build_neg(&gbld, &g->params[0]);
    ret1(&gbld, gv);
    fmag_value *use = fmag_build_add(&fx.b, &g->params[0], gv);
    use->name = "use";
    ret1(&fx.b, use);
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "instruction %use:", "operand a is a parameter of another function @g",
               NULL);
    CHECK_DIAG(t, fx.ctx, "instruction %use:", "operand c is defined in another function @g", NULL);
    teardown(&fx);
}

static void test_calls(test_state *t)
{
    fixture fx;
    setup(&fx);
    fmag_func *g = fmag_func_create(fx.m, "g", 2, 2, false);
    fmag_builder gb;
    fmag_builder_at_end(&gb, fmag_block_create(g, "entry"));
    fmag_value *gp[2] = {&g->params[0], &g->params[1]};
    fmag_build_ret(&gb, gp, 2);
    /* Right arity through the builder. */
    fmag_value *args[2] = {fx.x, fx.y};
    fmag_instr *ok = fmag_build_call(&fx.b, g, args, 2);
    /* Wrong argument and result counts built by hand. */
    fmag_instr *c1 = fmag_instr_create(fx.f, FMAG_OP_CALL, 1, 2);
    c1->callee = g;
    fmag_instr_set_op(c1, 0, fx.x);
    fmag_block_append(fx.entry, c1);
    c1->results[0].name = "c1";
    fmag_instr *c2 = fmag_instr_create(fx.f, FMAG_OP_CALL, 2, 1);
    c2->callee = g;
    fmag_instr_set_op(c2, 0, fx.x);
    fmag_instr_set_op(c2, 1, fx.x);
    fmag_block_append(fx.entry, c2);
    c2->results[0].name = "c2";
    /* A callee from another module. */
    fmag_module *other = fmag_module_create(fx.ctx);
    fmag_func *h = fmag_func_create(other, "h", 1, 1, true);
    fmag_builder hb;
    fmag_builder_at_end(&hb, fmag_block_create(h, "entry"));
    ret1(&hb, &h->params[0]);
    fmag_instr *c3 = fmag_build_call(&fx.b, h, args, 1);
    c3->results[0].name = "c3";
    ret1(&fx.b, &ok->results[1]);
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "instruction %c1:", "call to @g passes 1 argument, the callee takes 2",
               NULL);
    CHECK_DIAG(t, fx.ctx, "instruction %c2:", "call to @g has 1 result, the callee returns 2",
               NULL);
    CHECK_DIAG(t, fx.ctx, "instruction %c3:", "callee @h is not a function of this module", NULL);
    CHECK(t, !test_diag_has(fx.ctx, "in function @g", NULL, NULL));
    /* fmag_verify_func alone finds the same. */
    fmag_context_diag_clear(fx.ctx);
    CHECK(t, !fmag_verify_func(fx.f));
    CHECK_DIAG(t, fx.ctx, "instruction %c3:", "callee @h is not a function of this module", NULL);
    CHECK(t, fmag_verify_func(g));
    teardown(&fx);
}

static void test_module(test_state *t)
{
    fixture fx;
    /* Duplicate names, and no export. */
    setup(&fx);
    ret1(&fx.b, fx.x);
    /* The API may refuse the duplicate outright; if it builds one, the verifier says so. */
    fmag_func *dup = fmag_func_create(fx.m, "f", 2, 1, false);
    if (dup) {
        fmag_builder db;
        fmag_builder_at_end(&db, fmag_block_create(dup, "entry"));
        ret1(&db, &dup->params[1]);
        CHECK(t, !fmag_verify_module(fx.m));
        CHECK_DIAG(t, fx.ctx, "error: function @f is defined twice", NULL, NULL);
    }
    teardown(&fx);

    setup(&fx);
    ret1(&fx.b, fx.x);
    fx.f->is_export = false;
    CHECK(t, !fmag_verify_module(fx.m));
    CHECK_DIAG(t, fx.ctx, "module has no export function", NULL, NULL);
    /* The function itself is fine. */
    fmag_context_diag_clear(fx.ctx);
    CHECK(t, fmag_verify_func(fx.f));
    teardown(&fx);

    /* An empty module is valid (nothing to run). */
    fmag_context *ctx = fmag_context_create();
    CHECK(t, fmag_verify_module(fmag_module_create(ctx)));
    fmag_context_destroy(ctx);
}

static fmag_func *leaf_calling(fmag_module *m, const char *name, fmag_func **callees, unsigned n)
{
    fmag_func *f = fmag_func_create(m, name, 1, 1, false);
    fmag_builder b;
    fmag_builder_at_end(&b, fmag_block_create(f, "entry"));
    fmag_value *v = &f->params[0];
    for (unsigned k = 0; k < n; k++)
        v = &fmag_build_call(&b, callees[k], &v, 1)->results[0];
    fmag_build_ret(&b, &v, 1);
    return f;
}

static void test_recursion(test_state *t)
{
    /* A diamond call graph (a->b, a->c, b->d, c->d) is not recursive. */
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = fmag_module_create(ctx);
    fmag_func *d = leaf_calling(m, "d", NULL, 0);
    fmag_func *b = leaf_calling(m, "b", &d, 1);
    fmag_func *c = leaf_calling(m, "c", &d, 1);
    fmag_func *bc[2] = {b, c};
    fmag_func *a = leaf_calling(m, "a", bc, 2);
    a->is_export = true;
    a->aux = (void *)a; /* the caller's scratch survives */
    CHECK(t, fmag_verify_module(m));
    CHECK(t, !fmag_module_has_recursion(m));
    CHECK(t, fmag_context_diag_count(ctx) == 0);
    CHECK(t, a->aux == (void *)a);

    /* d calls b: b -> d -> b. */
    fmag_builder bl;
    fmag_builder_before(&bl, d->first->last);
    fmag_value *arg = &d->params[0];
    fmag_instr *call = fmag_build_call(&bl, b, &arg, 1);
    fmag_instr_set_op(d->first->last, 0, &call->results[0]);
    /* Recursion is not a verifier error (the interpreter runs it with a limit). */
    CHECK(t, fmag_verify_module(m));
    CHECK(t, fmag_module_has_recursion(m));
    CHECK_DIAG(t, ctx, "error: recursion:", "@d calls @b", NULL);
    CHECK(t, a->aux == (void *)a);
    fmag_context_destroy(ctx);

    /* Direct self-recursion. */
    ctx = fmag_context_create();
    m = fmag_module_create(ctx);
    fmag_func *s = fmag_func_create(m, "self", 1, 1, true);
    fmag_builder sb;
    fmag_builder_at_end(&sb, fmag_block_create(s, "entry"));
    fmag_value *sp = &s->params[0];
    fmag_instr *sc = fmag_build_call(&sb, s, &sp, 1);
    fmag_build_ret(&sb, &sc->results, 1);
    CHECK(t, fmag_module_has_recursion(m));
    CHECK_DIAG(t, ctx, "error: recursion: @self calls @self", NULL, NULL);
    fmag_context_destroy(ctx);
}

/* A long chain of blocks and a deep call chain: no recursion in the checker itself. */
static void test_large(test_state *t)
{
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = fmag_module_create(ctx);
    fmag_func *prev = leaf_calling(m, "c0", NULL, 0);
    char name[32];
    for (unsigned k = 1; k < 3000; k++) {
        snprintf(name, sizeof name, "c%u", k);
        prev = leaf_calling(m, name, &prev, 1);
    }
    prev->is_export = true;
    CHECK(t, !fmag_module_has_recursion(m));

    fmag_func *f = fmag_func_create(m, "chain", 1, 1, true);
    fmag_block *b = fmag_block_create(f, "entry");
    fmag_builder bl;
    fmag_builder_at_end(&bl, b);
    fmag_value *v = &f->params[0];
    for (unsigned k = 0; k < 20000; k++) {
        fmag_block *n = fmag_block_create(f, NULL);
        v = fmag_build_add(&bl, v, fmag_module_const(m, 1.0f));
        fmag_build_br(&bl, v, n, n);
        fmag_builder_at_end(&bl, n);
    }
    fmag_build_ret(&bl, &v, 1);
    CHECK(t, fmag_verify_module(m));
    CHECK(t, fmag_context_diag_count(ctx) == 0);
    fmag_context_destroy(ctx);
}

int main(void)
{
    test_state t = {0};
    test_valid(&t);
    test_no_renaming(&t);
    test_dominance(&t);
    test_phis(&t);
    test_terminators(&t);
    test_operands(&t);
    test_calls(&t);
    test_module(&t);
    test_recursion(&t);
    test_large(&t);
    return test_finish(&t, "ir-verifier-unittests");
}
