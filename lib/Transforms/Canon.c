/* Commutative canonicalization of the multiply of fmag.
 *
 * Matches, in `%r = fmag a, b, c, d, e`:
 *   - a literal a with a computed b: the factors swap, so the lone literal sits in b
 *     (the slot the encoding can hold a literal in; a must be a register).
 *   - two literal factors a, b whose product is exact in float32, with a computed
 *     addend c: becomes `fmag c, 1.0, a*b, d, e`.
 *   - literal a, b and c (and a finite result K): becomes the select of a literal
 *     `fmag K, 1.0, 0.0, d, e` (the form codegen materializes).
 *
 * Legal (strict): fma(a, b, c) = fma(b, a, c) bit for bit (the product is exact
 * before the single rounding). When a*b is exactly representable p, fma(a, b, c) =
 * round(p + c) = fma(c, 1, p). The three-literal case is computed with fmag_eval; a
 * non-finite result is left alone.
 *
 *   %0 = fmag 3.0, %x, %y, 0.0, 1.0       ->   %0 = fmag %x, 3.0, %y, 0.0, 1.0
 *   %1 = fmag 2.0, 0.5, %y, %d, %g        ->   %1 = fmag %y, 1.0, 1.0, %d, %g
 *
 * Requires: nothing. Preserves: the CFG and the instruction count.
 */
#include "OptUtil.h"
#include "fmag/Transforms.h"

static bool canon_fmag(fmag_instr *i)
{
    fmag_module *m = i->block->func->module;
    fmag_value *a = i->ops[FMAG_A].value, *b = i->ops[FMAG_B].value, *c = i->ops[FMAG_C].value;
    bool ca = fmag_value_is_const(a), cb = fmag_value_is_const(b), cc = fmag_value_is_const(c);
    if (ca && !cb) {
        fmag_instr_set_op(i, FMAG_A, b);
        fmag_instr_set_op(i, FMAG_B, a);
        return true;
    }
    if (!ca || !cb) return false;
    if (!cc) {
        double p = (double)a->imm * (double)b->imm; /* exact: 24 + 24 bits < 53 */
        float pf = (float)p;
        if ((double)pf != p || !fmag_ou_finite(pf)) return false;
        fmag_instr_set_op(i, FMAG_A, c);
        fmag_instr_set_op(i, FMAG_B, fmag_module_const(m, 1.0f));
        fmag_instr_set_op(i, FMAG_C, fmag_module_const(m, pf));
        return true;
    }
    /* already the select of a literal (b is 1.0, c is +0.0): the common case, told
     * by the literals' bits before any pool lookup */
    if (fmag_ou_is_one(b) && c->type == FMAG_TYPE_F32 && c->ibits == 0) return false;
    float k = fmag_eval(a->imm, b->imm, c->imm, 0.0f, 1.0f);
    if (!fmag_ou_finite(k)) return false;
    fmag_instr_set_op(i, FMAG_A, fmag_module_const(m, k));
    fmag_instr_set_op(i, FMAG_B, fmag_module_const(m, 1.0f));
    fmag_instr_set_op(i, FMAG_C, fmag_module_const(m, 0.0f));
    return true;
}

fmag_pass_status fmag_opt_canon(fmag_func *f)
{
    bool changed = false;
    fmag_foreach_block (b, f) {
        fmag_foreach_instr (i, b) {
            if (i->op == FMAG_OP_FMAG) changed |= canon_fmag(i);
        }
    }
    return fmag_ou_status(changed);
}
