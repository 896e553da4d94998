/* Move fusion: a producer that only copies a value folds into its consumers.
 *
 * Matches a move `%m = fmag %x, 1.0, ±0.0, d, e` (or `fmag 1.0, %x, ...`) whose guard
 * e is a literal > 0: every consumer of %m, in any operand slot (the multiplicand,
 * the addend, the fallback, the guard, a phi, a call argument, a ret, a br), reads
 * %x instead, and the move disappears. This is what a frontend's copies, and the
 * `x*1 + 0` left by other passes, turn into; codegen would otherwise spend an
 * instruction on each.
 *
 * Legal (strict): x*1 + 0 = x except x = -0 (+0 comes out), and ±0 are equal under
 * the contract and indistinguishable to every later fmag (a guard `> 0` is false
 * for both; fma of finite values maps a zero difference to a zero difference).
 * A move whose guard is not a literal > 0 is a select and keeps its value: it is
 * never fused (test/Transforms/fuse shows both).
 *
 *   %m = fmag %x, 1.0, 0.0, 0.0, 1.0
 *   %r = fmag %m, %y, %m, 0.0, 1.0        ->   %r = fmag %x, %y, %x, 0.0, 1.0
 *
 * Requires: nothing. Preserves: the CFG.
 */
#include "OptUtil.h"
#include "fmag/Transforms.h"

/* The copied value when i is a move, else NULL. */
static fmag_value *move_source(const fmag_instr *i)
{
    if (i->op != FMAG_OP_FMAG || !fmag_ou_const_true(i->ops[FMAG_E].value) ||
        !fmag_ou_is_zero(i->ops[FMAG_C].value))
        return NULL;
    if (fmag_ou_is_one(i->ops[FMAG_B].value)) return i->ops[FMAG_A].value;
    if (fmag_ou_is_one(i->ops[FMAG_A].value)) return i->ops[FMAG_B].value;
    return NULL;
}

fmag_pass_status fmag_opt_fuse(fmag_func *f)
{
    bool changed = false;
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b) {
            if (!i->block) continue;
            fmag_value *src = move_source(i);
            if (!src || src == &i->results[0]) continue;
            fmag_value_replace_all_uses(&i->results[0], src);
            fmag_instr_erase(i);
            changed = true;
        }
    return fmag_ou_status(changed);
}
