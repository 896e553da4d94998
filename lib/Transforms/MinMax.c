/* Min/max (and abs) orientation: flip the arms of a select so its fallback is the
 * operand that dies there.
 *
 * Codegen writes an fmag's result over its fallback register d, so a select whose
 * fallback is still live afterwards costs a copy first; one whose fallback dies
 * there costs nothing. max, min and abs can be written with either arm as fallback:
 *   max(a, b) = fmag a, 1, 0, b, (a - b)  =  fmag b, 1, 0, a, (b - a)
 *   min(a, b) = fmag b, 1, 0, a, (a - b)  =  fmag a, 1, 0, b, (b - a)
 *   abs(x)    = fmag x, 1, 0, -x, x       =  fmag -x, 1, 0, x, -x
 * Matches `%s = fmag t, 1.0, ±0, f, g` where g = `t - f` or `f - t` (an fmag
 * `fmag p, -1.0, q, _, K>0` used only by %s, which is then rewritten in place as
 * q - p), or g = t with f = -t (or the other way round). The arms flip when f is
 * still used after %s (later in its block, or in another block) and t is not; in
 * any other case, and with a literal arm, nothing changes, so a second run is a
 * no-op. The kept value thus ends up in the register that is free to take it.
 * A literal fallback always moves to the true arm (orient_literal_fallback below).
 *
 * Legal (strict): with finite t and f, t - f = -(f - t) exactly, both zero exactly
 * when t = f; the flipped select picks t where the old one did (guard > 0 vs < 0),
 * and at a zero guard the two arms are equal (up to the sign of zero). For abs the
 * guards are x and -x: both pick |x|, and at x = ±0 both arms are zero.
 *
 *   %d = sub %a, %b
 *   %m = select %a, %b, %d          ; %b used later, %a not
 *  ->
 *   %d = sub %b, %a
 *   %m = select %b, %a, %d
 *
 * Requires: nothing (it pays after -ifconvert, when a function is one block).
 * Preserves: the CFG and the instruction count.
 */
#include "OptUtil.h"
#include "fmag/Transforms.h"

#include <stdint.h>

static uintptr_t pos(const fmag_instr *i)
{
    return (uintptr_t)i->aux;
}

/* Whether v is used after instruction s (a user of v): the position of v's last use
 * when every use is a non-phi instruction of one block, kept in v's aux (position + 2;
 * 1: used by a phi or in two blocks) the first time v is asked about. Asked only at
 * the few selects that are a min, max or abs, where building the table for every
 * value up front was two thirds of the pass; kept, since walking the use list at
 * every select made the pass quadratic when a parameter or a shared difference feeds
 * hundreds of selects. Uses before s may have lost their positions (orient clears
 * each aux once its instruction is done) and read as 0, which changes no answer
 * about s or a later instruction; the pass only rewrites operands of the select and
 * of its guard, both at or before the select it is at, so no later query sees a
 * stale answer. */
enum { LAST_UNKNOWN = 0, LAST_OUT = 1, LAST_AT = 2 };

static bool live_after(fmag_value *v, const fmag_instr *s)
{
    uintptr_t memo = (uintptr_t)v->aux;
    if (memo == LAST_UNKNOWN) {
        uintptr_t last = 0;
        const fmag_block *b = NULL;
        memo = LAST_AT;
        fmag_foreach_use (u, v) {
            const fmag_instr *w = u->user;
            if (w->op == FMAG_OP_PHI || (b && w->block != b)) {
                memo = LAST_OUT;
                break;
            }
            b = w->block;
            if (pos(w) > last) last = pos(w);
        }
        if (memo != LAST_OUT) memo = LAST_AT + last;
        v->aux = (void *)memo;
    }
    return memo == LAST_OUT || memo - LAST_AT > pos(s);
}

/* fmag p, -1.0, q, _, K>0  (that is q - p): sets p and q. */
static bool is_sub(const fmag_instr *g, fmag_value **p, fmag_value **q)
{
    if (!g || !fmag_ou_const_true(g->ops[FMAG_E].value) ||
        !fmag_value_is_imm(g->ops[FMAG_B].value, -1.0f))
        return false;
    *p = g->ops[FMAG_A].value;
    *q = g->ops[FMAG_C].value;
    return true;
}

/* fmag x, -1.0, ±0, _, K>0 (that is -x). */
static bool is_neg_of(const fmag_value *n, const fmag_value *x)
{
    fmag_instr *i = fmag_ou_fmag_def(n);
    return i && fmag_ou_const_true(i->ops[FMAG_E].value) &&
           fmag_value_is_imm(i->ops[FMAG_B].value, -1.0f) &&
           fmag_ou_is_zero(i->ops[FMAG_C].value) && i->ops[FMAG_A].value == x;
}

/* max(x, K) and the like: `fmag t, 1, 0, K, g` with a literal fallback K and
 * g = t - K (as `t*1 + -K`) or g = K - t (as `t*-1 + K`), g used only here. The
 * machine writes a select over its fallback register, so a literal fallback must be
 * materialized first, while a literal true arm is free (codegen writes it as z*0 + K
 * over a dying register). Flip to `fmag K, 1, 0, t, -g`, where -g is computed as
 * K - t (or t - K): one rounding of the exact negation of the same difference, so
 * the guard's sign flips exactly, and at g = 0 (t = K) both arms are equal. This
 * turns max(x, 0.5) from 4 machine instructions into 2 (superopt's proven minimum). */
static bool orient_literal_fallback(fmag_instr *s, fmag_value *t, fmag_value *k, fmag_value *g)
{
    if (fmag_value_is_const(t) || !fmag_value_is_const(k) || !fmag_value_num_uses_is(g, 1))
        return false;
    fmag_instr *gd = fmag_ou_fmag_def(g);
    if (!gd || gd->ops[FMAG_A].value != t || !fmag_ou_const_true(gd->ops[FMAG_E].value) ||
        !fmag_value_is_const(gd->ops[FMAG_C].value))
        return false;
    float c = gd->ops[FMAG_C].value->imm, kv = k->imm;
    bool t_minus_k = fmag_ou_is_one(gd->ops[FMAG_B].value) && c == -kv;
    bool k_minus_t = fmag_value_is_imm(gd->ops[FMAG_B].value, -1.0f) && c == kv;
    if (!t_minus_k && !k_minus_t) return false;
    fmag_module *m = s->block->func->module;
    fmag_instr_set_op(gd, FMAG_B, fmag_module_const(m, t_minus_k ? -1.0f : 1.0f));
    fmag_instr_set_op(gd, FMAG_C, fmag_module_const(m, t_minus_k ? kv : -kv));
    fmag_instr_set_op(gd, FMAG_D, fmag_module_const(m, 0.0f));
    fmag_instr_set_op(s, FMAG_A, k);
    fmag_instr_set_op(s, FMAG_D, t);
    return true;
}

static bool orient(fmag_instr *s)
{
    if (!fmag_ou_is_one(s->ops[FMAG_B].value) || !fmag_ou_is_zero(s->ops[FMAG_C].value))
        return false;
    fmag_value *t = s->ops[FMAG_A].value, *f = s->ops[FMAG_D].value, *g = s->ops[FMAG_E].value;
    if (fmag_value_is_const(f) && !fmag_value_is_const(g))
        return orient_literal_fallback(s, t, f, g);
    if (t == f || fmag_value_is_const(t) || fmag_value_is_const(f) || fmag_value_is_const(g))
        return false;
    fmag_instr *gd = fmag_ou_fmag_def(g);
    fmag_value *p, *q;
    bool minmax = is_sub(gd, &p, &q) && ((p == t && q == f) || (p == f && q == t)) &&
                  fmag_value_num_uses_is(g, 1);
    bool abs = !minmax && g == t && (is_neg_of(f, t) || is_neg_of(t, f));
    if (!minmax && !abs) return false;
    if (!live_after(f, s) || live_after(t, s)) return false;
    fmag_module *m = s->block->func->module;
    if (minmax) {
        fmag_instr_set_op(gd, FMAG_A, q);
        fmag_instr_set_op(gd, FMAG_C, p);
    }
    fmag_instr_set_op(s, FMAG_A, f);
    fmag_instr_set_op(s, FMAG_C, fmag_module_const(m, 0.0f));
    fmag_instr_set_op(s, FMAG_D, t);
    if (abs) fmag_instr_set_op(s, FMAG_E, f);
    return true;
}

fmag_pass_status fmag_opt_minmax(fmag_func *f)
{
    fmag_foreach_block (b, f) {
        uintptr_t n = 0;
        fmag_foreach_instr (i, b)
            i->aux = (void *)n++;
    }
    bool changed = false;
    /* orient reads the position of the instruction it is given and of later ones
     * only: each instruction's aux is cleared once it is done, each value's (the
     * last uses) at the end. */
    fmag_foreach_block (b, f) {
        fmag_foreach_instr (i, b) {
            if (i->op == FMAG_OP_FMAG) changed |= orient(i);
            i->aux = NULL;
        }
    }
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b)
            for (unsigned k = 0; k < i->nresults; k++)
                i->results[k].aux = NULL;
    for (unsigned k = 0; k < f->nparams; k++)
        f->params[k].aux = NULL;
    return fmag_ou_status(changed);
}
