/* Helpers shared by the optimization passes of lib/Transforms (private header):
 * operand predicates and dead-instruction erasure, prefixed fmag_ou_ (fmag_opt_
 * names passes only). CFG edits and queries are in CFG.h, dominators are
 * fmag_domtree in fmag/IR.h. */
#ifndef FMAG_OPTUTIL_H
#define FMAG_OPTUTIL_H

#include "fmag/Bits.h"
#include "fmag/IR.h"
#include "fmag/Transforms.h"

#include <math.h>
#include <string.h>

/* A literal guard that the machine takes (`> 0`); -0, +0 and negatives are not. */
static inline bool fmag_ou_const_true(const fmag_value *v)
{
    return fmag_value_is_const(v) && v->type == FMAG_TYPE_F32 && v->imm > 0.0f;
}
static inline bool fmag_ou_const_false(const fmag_value *v)
{
    return fmag_value_is_const(v) && v->type == FMAG_TYPE_F32 && !(v->imm > 0.0f);
}
/* +0 or -0. */
static inline bool fmag_ou_is_zero(const fmag_value *v)
{
    return fmag_value_is_const(v) && v->type == FMAG_TYPE_F32 && v->imm == 0.0f;
}
/* fmag_value_is_imm(v, 1.0f) without the call: the passes ask it of most operands. */
static inline bool fmag_ou_is_one(const fmag_value *v)
{
    return fmag_value_is_const(v) && v->type == FMAG_TYPE_F32 && v->ibits == fmag_bits_of(1.0f);
}
static inline bool fmag_ou_finite(float f)
{
    return isfinite(f);
}

/* The fmag instruction defining v, or NULL (constant, parameter, phi, call). */
static inline fmag_instr *fmag_ou_fmag_def(const fmag_value *v)
{
    return v->kind == FMAG_VALUE_RESULT && v->def && v->def->op == FMAG_OP_FMAG ? v->def : NULL;
}

/* A pass's status from whether it changed anything (it did not fail). */
static inline fmag_pass_status fmag_ou_status(bool changed)
{
    return changed ? FMAG_PASS_CHANGED : FMAG_PASS_UNCHANGED;
}

/* Erases i when it is a dead fmag/phi/call, then any operand definition that died
 * with it. Returns the number of instructions erased. */
unsigned fmag_ou_erase_if_dead(fmag_instr *i);
/* Replaces every use of i's only result by v, then erases i (and what died). */
void fmag_ou_replace_and_erase(fmag_instr *i, fmag_value *v);
/* Makes a new fmag instruction before `pos`. */
fmag_value *fmag_ou_build_before(fmag_instr *pos, fmag_value *a, fmag_value *b, fmag_value *c,
                                 fmag_value *d, fmag_value *e);
/* -inline, except that the calls of every function keep(f) accepts stay (and so do
 * those functions); keep NULL is -inline itself. */
fmag_pass_status fmag_ou_inline_except(fmag_module *m, bool (*keep)(const fmag_func *f));
#endif /* FMAG_OPTUTIL_H */
