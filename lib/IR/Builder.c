/* The IR builder: plain fmag, the sugar of SPEC §2 (expanded exactly as the spec
 * writes it, so parser, builder and printer agree), and control flow. */
#include "IRInternal.h"

#include <math.h>

void fmag_builder_at_end(fmag_builder *b, fmag_block *blk)
{
    b->module = blk->func->module;
    b->block = blk;
    b->before = NULL;
}

void fmag_builder_before(fmag_builder *b, fmag_instr *pos)
{
    b->module = pos->block->func->module;
    b->block = pos->block;
    b->before = pos;
}

fmag_value *fmag_build_const(fmag_builder *b, float f)
{
    return fmag_module_const(b->module, f);
}

static void insert(fmag_builder *b, fmag_instr *i)
{
    if (b->before)
        fmag_instr_insert_before(b->before, i);
    else
        fmag_block_append(b->block, i);
}

fmag_value *fmag_build_fmag(fmag_builder *b, fmag_value *a, fmag_value *bb, fmag_value *c,
                            fmag_value *d, fmag_value *e)
{
    fmag_instr *i = fmag_instr_create(b->block->func, FMAG_OP_FMAG, 5, 1);
    fmag_instr_set_op(i, FMAG_A, a);
    fmag_instr_set_op(i, FMAG_B, bb);
    fmag_instr_set_op(i, FMAG_C, c);
    fmag_instr_set_op(i, FMAG_D, d);
    fmag_instr_set_op(i, FMAG_E, e);
    insert(b, i);
    return &i->results[0];
}

#define K(f) fmag_module_const(b->module, (f))

fmag_value *fmag_build_add(fmag_builder *b, fmag_value *x, fmag_value *y)
{
    return fmag_build_fmag(b, x, K(1.0f), y, K(0.0f), K(1.0f));
}

fmag_value *fmag_build_sub(fmag_builder *b, fmag_value *x, fmag_value *y)
{
    return fmag_build_fmag(b, y, K(-1.0f), x, K(0.0f), K(1.0f));
}

fmag_value *fmag_build_mul(fmag_builder *b, fmag_value *x, fmag_value *y)
{
    return fmag_build_fmag(b, x, y, K(0.0f), K(0.0f), K(1.0f));
}

fmag_value *fmag_build_neg(fmag_builder *b, fmag_value *x)
{
    return fmag_build_fmag(b, x, K(-1.0f), K(0.0f), K(0.0f), K(1.0f));
}

fmag_value *fmag_build_fma(fmag_builder *b, fmag_value *x, fmag_value *y, fmag_value *z)
{
    return fmag_build_fmag(b, x, y, z, K(0.0f), K(1.0f));
}

fmag_value *fmag_build_select(fmag_builder *b, fmag_value *t, fmag_value *f, fmag_value *g)
{
    return fmag_build_fmag(b, t, K(1.0f), K(0.0f), f, g);
}

fmag_value *fmag_build_relu(fmag_builder *b, fmag_value *x)
{
    return fmag_build_fmag(b, x, K(1.0f), K(0.0f), K(0.0f), x);
}

fmag_value *fmag_build_max(fmag_builder *b, fmag_value *x, fmag_value *y)
{
    return fmag_build_select(b, x, y, fmag_build_sub(b, x, y));
}

fmag_value *fmag_build_min(fmag_builder *b, fmag_value *x, fmag_value *y)
{
    return fmag_build_select(b, y, x, fmag_build_sub(b, x, y));
}

fmag_value *fmag_build_abs(fmag_builder *b, fmag_value *x)
{
    return fmag_build_select(b, x, fmag_build_neg(b, x), x);
}

/* x - y is never 0 for distinct finite x, y (gradual underflow), so the sign of the
 * difference decides every comparison exactly. */
fmag_value *fmag_build_gt(fmag_builder *b, fmag_value *x, fmag_value *y)
{
    return fmag_build_select(b, K(1.0f), K(0.0f), fmag_build_sub(b, x, y));
}

fmag_value *fmag_build_lt(fmag_builder *b, fmag_value *x, fmag_value *y)
{
    return fmag_build_gt(b, y, x);
}

fmag_value *fmag_build_ge(fmag_builder *b, fmag_value *x, fmag_value *y)
{
    return fmag_build_select(b, K(0.0f), K(1.0f), fmag_build_sub(b, y, x));
}

fmag_value *fmag_build_le(fmag_builder *b, fmag_value *x, fmag_value *y)
{
    return fmag_build_ge(b, y, x);
}

fmag_instr *fmag_build_phi(fmag_builder *b)
{
    fmag_instr *i = fmag_instr_create(b->block->func, FMAG_OP_PHI, 0, 1);
    insert(b, i);
    return i;
}

fmag_instr *fmag_build_call(fmag_builder *b, fmag_func *callee, fmag_value *const *args,
                            unsigned nargs)
{
    fmag_instr *i = fmag_instr_create(b->block->func, FMAG_OP_CALL, nargs, callee->nresults);
    i->callee = callee;
    for (unsigned k = 0; k < nargs; k++)
        fmag_instr_set_op(i, k, args[k]);
    insert(b, i);
    return i;
}

fmag_instr *fmag_build_br(fmag_builder *b, fmag_value *guard, fmag_block *then_bb,
                          fmag_block *else_bb)
{
    fmag_instr *i = fmag_instr_create(b->block->func, FMAG_OP_BR, 1, 0);
    fmag_instr_set_op(i, 0, guard);
    i->targets[0] = then_bb;
    i->targets[1] = else_bb;
    insert(b, i);
    return i;
}

fmag_instr *fmag_build_jmp(fmag_builder *b, fmag_block *target)
{
    fmag_instr *i = fmag_instr_create(b->block->func, FMAG_OP_JMP, 0, 0);
    i->targets[0] = target;
    insert(b, i);
    return i;
}

fmag_instr *fmag_build_ret(fmag_builder *b, fmag_value *const *vals, unsigned nvals)
{
    fmag_instr *i = fmag_instr_create(b->block->func, FMAG_OP_RET, nvals, 0);
    for (unsigned k = 0; k < nvals; k++)
        fmag_instr_set_op(i, k, vals[k]);
    insert(b, i);
    return i;
}
