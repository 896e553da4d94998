/* Fast-math reassociation and contraction (only in a module marked `fastmath`).
 *
 * Matches, for an arithmetic `%r = fmag a, b, c, _, K>0` whose operand is itself an
 * arithmetic fmag %p (guard a literal > 0):
 *   - contraction: %r = %p + z where %p = x * y       ->  fma(x, y, z)
 *   - constant factors: %r = %p * k2 + c, %p = x * k1  ->  x * (k1*k2) + c
 *   - affine chains: %r = %p * k2 + k3, %p = x*k1 + k0 ->  x * (k1*k2) + (k0*k2 + k3)
 *   - constant addends: %r = %p + k2, %p = x*y + k1    ->  x*y + (k1 + k2)
 *   - x * 0 + c                                        ->  c
 * New literals are computed in float32 and must be finite. A producer left unused
 * is erased.
 *
 * Not legal under the strict contract: each rewrite changes where rounding happens
 * (one rounding instead of two, or products of literals rounded first). In a
 * fast-math module SPEC §2 allows it; results then agree within the tolerance
 * documented in docs/Passes.md. Without `fastmath` the pass does nothing.
 *
 *   fastmath
 *   %p = mul %x, 3.0
 *   %r = fma %p, 2.0, 1.0          ->   %r = fmag %x, 6.0, 1.0, 0.0, 1.0
 *
 * Requires: a fastmath module. Preserves: the CFG.
 *
 * A function that -legalize-int wrote into (f->exact_float) is left alone: its float
 * code computes integers exactly, step by step, and any regrouping breaks that.
 */
#include "OptUtil.h"
#include "fmag/Transforms.h"

/* The arithmetic fmag behind v (guard a literal > 0), or NULL. */
static fmag_instr *arith(const fmag_value *v)
{
    fmag_instr *i = fmag_ou_fmag_def(v);
    return i && fmag_ou_const_true(i->ops[FMAG_E].value) ? i : NULL;
}

static void set3(fmag_instr *i, fmag_value *a, fmag_value *b, fmag_value *c)
{
    fmag_instr_set_op(i, FMAG_A, a);
    fmag_instr_set_op(i, FMAG_B, b);
    fmag_instr_set_op(i, FMAG_C, c);
}

static bool reassoc(fmag_instr *i)
{
    if (!fmag_ou_const_true(i->ops[FMAG_E].value)) return false;
    fmag_module *m = i->block->func->module;
    fmag_value *a = i->ops[FMAG_A].value, *b = i->ops[FMAG_B].value, *c = i->ops[FMAG_C].value;
    if (fmag_ou_is_zero(a) || fmag_ou_is_zero(b)) {
        fmag_ou_replace_and_erase(i, c);
        return true;
    }
    if (fmag_value_is_const(a) && !fmag_value_is_const(b)) {
        fmag_value *t = a;
        a = b;
        b = t;
    }
    fmag_instr *p = arith(a);
    fmag_instr *old = NULL;
    bool done = false;
    if (p && p != i) {
        fmag_value *x = p->ops[FMAG_A].value, *y = p->ops[FMAG_B].value, *z = p->ops[FMAG_C].value;
        if (fmag_value_is_const(x) && !fmag_value_is_const(y)) {
            fmag_value *t = x;
            x = y;
            y = t;
        }
        if (fmag_ou_is_one(b) && fmag_ou_is_zero(z)) {
            /* (x*y) + c */
            set3(i, x, y, c);
            done = true;
        } else if (fmag_value_is_const(b) && fmag_value_is_const(y) && fmag_ou_is_zero(z)) {
            float k = y->imm * b->imm;
            if (fmag_ou_finite(k)) {
                set3(i, x, fmag_module_const(m, k), c);
                done = true;
            }
        } else if (fmag_value_is_const(b) && fmag_value_is_const(c) && fmag_value_is_const(y) &&
                   fmag_value_is_const(z)) {
            float k = y->imm * b->imm, k0 = fmag_eval(z->imm, b->imm, c->imm, 0.0f, 1.0f);
            if (fmag_ou_finite(k) && fmag_ou_finite(k0)) {
                set3(i, x, fmag_module_const(m, k), fmag_module_const(m, k0));
                done = true;
            }
        } else if (fmag_ou_is_one(b) && fmag_value_is_const(c) && fmag_value_is_const(z)) {
            float k = z->imm + c->imm;
            if (fmag_ou_finite(k)) {
                set3(i, x, y, fmag_module_const(m, k));
                done = true;
            }
        }
        if (done) old = p;
    }
    if (!done && fmag_ou_is_one(b)) {
        /* z + (x*y): contraction through the addend. */
        fmag_instr *q = arith(c);
        if (q && q != i && fmag_ou_is_zero(q->ops[FMAG_C].value)) {
            set3(i, q->ops[FMAG_A].value, q->ops[FMAG_B].value, a);
            old = q;
            done = true;
        }
    }
    if (old) fmag_ou_erase_if_dead(old);
    return done;
}

fmag_pass_status fmag_opt_reassoc(fmag_func *f)
{
    /* A function holding -legalize-int's exact sequences keeps its float code as
     * written (the integers would be wrong otherwise: test/SL/int-fastmath.test). */
    if (!f->module->fastmath || f->exact_float) return FMAG_PASS_UNCHANGED;
    bool any = false, changed;
    unsigned rounds = 0;
    do {
        changed = false;
        fmag_foreach_block (b, f) {
            fmag_foreach_instr (i, b) {
                if (i->block && i->op == FMAG_OP_FMAG && reassoc(i)) changed = true;
            }
        }
        any |= changed;
    } while (changed && ++rounds < 64); /* every rewrite shortens a chain; bound anyway */
    return fmag_ou_status(any);
}
