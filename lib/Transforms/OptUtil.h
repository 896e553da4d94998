/* Helpers shared by the optimization passes of lib/Transforms (private header):
 * operand predicates, dead-instruction cleanup and CFG cleanup (dominators:
 * fmag_domtree in fmag/IR.h). */
#ifndef FMAG_OPTUTIL_H
#define FMAG_OPTUTIL_H

#include "fmag/IR.h"
#include "fmag/Transforms.h"

#include <math.h>
#include <string.h>

/* A literal guard that the machine takes (`> 0`); -0, +0 and negatives are not. */
static inline bool fmag_opt_const_true(const fmag_value *v)
{
    return fmag_value_is_const(v) && v->imm > 0.0f;
}
static inline bool fmag_opt_const_false(const fmag_value *v)
{
    return fmag_value_is_const(v) && !(v->imm > 0.0f);
}
/* +0 or -0. */
static inline bool fmag_opt_is_zero(const fmag_value *v)
{
    return fmag_value_is_const(v) && v->imm == 0.0f;
}
static inline bool fmag_opt_is_one(const fmag_value *v)
{
    return fmag_value_is_imm(v, 1.0f);
}
static inline bool fmag_opt_finite(float f)
{
    return isfinite(f);
}
static inline uint32_t fmag_opt_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The fmag instruction defining v, or NULL (constant, parameter, phi, call). */
static inline fmag_instr *fmag_opt_fmag_def(const fmag_value *v)
{
    return v->kind == FMAG_VALUE_RESULT && v->def && v->def->op == FMAG_OP_FMAG ? v->def : NULL;
}
static inline fmag_value *fmag_opt_op(const fmag_instr *i, unsigned k)
{
    return i->ops[k].value;
}

/* A pass's status from whether it changed anything (it did not fail). */
static inline fmag_pass_status fmag_opt_status(bool changed)
{
    return changed ? FMAG_PASS_CHANGED : FMAG_PASS_UNCHANGED;
}

/* True when none of i's results has a use. */
bool fmag_opt_unused(const fmag_instr *i);
/* Erases i when it is a dead fmag/phi/call, then any operand definition that died
 * with it. Returns the number of instructions erased. */
unsigned fmag_opt_erase_if_dead(fmag_instr *i);
/* Replaces every use of i's only result by v, then erases i (and what died). */
void fmag_opt_replace_and_erase(fmag_instr *i, fmag_value *v);
/* Makes a new fmag instruction before `pos`. */
fmag_value *fmag_opt_build_before(fmag_instr *pos, fmag_value *a, fmag_value *b, fmag_value *c,
                                  fmag_value *d, fmag_value *e);
/* Redirects the phis of `succ` that name `from` as incoming block to `to`. */
void fmag_opt_phi_rename_block(fmag_block *succ, fmag_block *from, fmag_block *to);
/* Removes every incoming value of succ's phis that comes from `from`. */
void fmag_opt_phi_drop_block(fmag_block *succ, fmag_block *from);
/* Replaces terminator t (a br) by `jmp target`. */
void fmag_opt_make_jmp(fmag_instr *t, fmag_block *target);

/* CFG cleanups; each returns whether it changed anything. */
bool fmag_opt_remove_unreachable(fmag_func *f);
/* `br K, ...` with a literal guard, and `br g, ^x, ^x`, become `jmp` (the phis of the
 * dropped target lose this block's incoming value). */
bool fmag_opt_fold_branches(fmag_func *f);
/* A phi whose incoming values are all one value (itself aside) becomes that value. */
bool fmag_opt_simplify_phis(fmag_func *f);

/* a ends in `jmp m` and is m's only predecessor (m is not the entry): joins the two
 * blocks into one (m's phis become their only incoming value), moving the shorter
 * instruction list. Returns the block that survives (a or m; the other is erased). */
fmag_block *fmag_opt_join_blocks(fmag_block *a, fmag_block *m);
/* Renumbers f and returns the number of distinct predecessors of every block, by
 * block id (malloc'd; the caller frees it), or NULL when out of memory. */
unsigned *fmag_opt_pred_counts(fmag_func *f);

/* Finds a back edge (a loop) in the reachable CFG; returns false when acyclic, else
 * sets *from / *to to one back edge. */
bool fmag_opt_find_back_edge(fmag_func *f, fmag_block **from, fmag_block **to);

/* A printable name for a block in diagnostics ("^name" or "^bbN"). */
const char *fmag_opt_block_name(const fmag_block *b, char *buf, size_t len);

#endif /* FMAG_OPTUTIL_H */
