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
    fmag_value *ops[5] = {[FMAG_A] = a, [FMAG_B] = bb, [FMAG_C] = c, [FMAG_D] = d, [FMAG_E] = e};
    return &fmag_ir_build_fmag(b->block, b->before, ops)->results[0];
}

/* A literal of the sugar: +0.0, 1.0 and -1.0 from the pool's own pointers (each
 * looked up once, the first time), any other from the pool. With f a constant
 * this inlines to one load and test. */
static inline fmag_value *sugar_const(fmag_module *m, float f)
{
    fmag_const_pool *pool = m->consts;
    fmag_value **known = fmag_bits_of(f) == fmag_bits_of(0.0f)    ? &pool->zero
                         : fmag_bits_of(f) == fmag_bits_of(1.0f)  ? &pool->one
                         : fmag_bits_of(f) == fmag_bits_of(-1.0f) ? &pool->minus_one
                                                                  : NULL;
    if (!known) return fmag_module_const(m, f);
    return *known ? *known : (*known = fmag_module_const(m, f));
}

/* The sugar: one fmag_build_<name>(b, x[, y[, z]]) per row of fmag/Sugar.def. */
#define X x
#define Y y
#define Z z
#define K(f) sugar_const(b->module, (f))
#define SUB(p, q) fmag_build_sub(b, p, q)
#define NEG(p) fmag_build_neg(b, p)
#define SUGAR_PARAMS_1 fmag_value *x
#define SUGAR_PARAMS_2 fmag_value *x, fmag_value *y
#define SUGAR_PARAMS_3 fmag_value *x, fmag_value *y, fmag_value *z
#define FMAG_SUGAR(NAME, NOPS, A, B, C, D, E)                                                      \
    fmag_value *fmag_build_##NAME(fmag_builder *b, SUGAR_PARAMS_##NOPS)                            \
    {                                                                                              \
        return fmag_build_fmag(b, A, B, C, D, E);                                                  \
    }
#define FMAG_SUGAR_SELECT(NAME, NOPS, FIR, T, F, G)                                                \
    fmag_value *fmag_build_##NAME(fmag_builder *b, SUGAR_PARAMS_##NOPS)                            \
    {                                                                                              \
        return fmag_build_select(b, T, F, G);                                                      \
    }
#include "fmag/Sugar.def"
#undef FMAG_SUGAR
#undef FMAG_SUGAR_SELECT
#undef SUGAR_PARAMS_1
#undef SUGAR_PARAMS_2
#undef SUGAR_PARAMS_3
#undef X
#undef Y
#undef Z
#undef K
#undef SUB
#undef NEG

fmag_instr *fmag_build_phi(fmag_builder *b)
{
    return fmag_build_phi_typed(b, FMAG_TYPE_F32);
}

fmag_instr *fmag_build_phi_typed(fmag_builder *b, fmag_type t)
{
    fmag_instr *i = fmag_instr_create(b->block->func, FMAG_OP_PHI, 0, 1);
    i->results[0].type = t;
    insert(b, i);
    return i;
}

fmag_value *fmag_build_int(fmag_builder *b, fmag_int_op op, fmag_value *x, fmag_value *y,
                           fmag_value *z)
{
    unsigned n = fmag_int_op_nops(op);
    fmag_instr *i = fmag_instr_create(b->block->func, FMAG_OP_INT, n, 1);
    i->iop = op;
    i->results[0].type = fmag_int_op_result_type(op);
    fmag_value *ops[3] = {x, y, z};
    for (unsigned k = 0; k < n; k++)
        fmag_instr_set_op(i, k, ops[k]);
    insert(b, i);
    return &i->results[0];
}

fmag_value *fmag_build_const_i32(fmag_builder *b, uint32_t bits)
{
    return fmag_module_const_i32(b->module, bits);
}

fmag_value *fmag_build_select_typed(fmag_builder *b, fmag_value *t, fmag_value *f, fmag_value *g)
{
    if (t->type == FMAG_TYPE_I32) return fmag_build_int(b, FMAG_IOP_SELECT, t, f, g);
    return fmag_build_select(b, t, f, g);
}

fmag_instr *fmag_build_call(fmag_builder *b, fmag_func *callee, fmag_value *const *args,
                            unsigned nargs)
{
    fmag_instr *i = fmag_instr_create(b->block->func, FMAG_OP_CALL, nargs, callee->nresults);
    i->callee = callee;
    for (unsigned k = 0; k < callee->nresults; k++)
        i->results[k].type = fmag_func_result_type(callee, k);
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
