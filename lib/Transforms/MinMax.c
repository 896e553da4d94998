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

#include <stdlib.h>

static uintptr_t pos(const fmag_instr *i)
{
    return (uintptr_t)i->aux;
}

/* Per value (by id): the position of its last use when every use is a non-phi
 * instruction of one block, LIVE_OUT otherwise. Computed once per run: walking
 * the use list at every select made the pass quadratic when a parameter or a
 * shared difference feeds hundreds of selects. The pass only rewrites operands
 * of the select and of its guard, both at or before the select it is at, so no
 * later query sees a stale answer. */
#define LIVE_OUT UINTPTR_MAX

static uintptr_t *last_uses(fmag_func *f)
{
    fmag_func_renumber(f);
    /* The block of each value's uses so far; in a function of one block (-O2's
     * output) that is always the one, and not kept. */
    bool one_block = f->first == f->last;
    uintptr_t *last = fmag_tmp_calloc(f->nvalues + 1, sizeof *last);
    fmag_block **where = one_block ? NULL : fmag_tmp_calloc(f->nvalues + 1, sizeof *where);
    if (!last || (!one_block && !where)) {
        fmag_tmp_free(last);
        fmag_tmp_free(where);
        return NULL;
    }
    fmag_foreach_block (b, f) {
        fmag_foreach_instr (i, b) {
            for (unsigned k = 0; k < i->nops; k++) {
                const fmag_value *v = i->ops[k].value;
                if (!v || (v->kind != FMAG_VALUE_PARAM && v->kind != FMAG_VALUE_RESULT)) continue;
                if (i->op == FMAG_OP_PHI || (where && where[v->id] && where[v->id] != b))
                    last[v->id] = LIVE_OUT;
                else if (last[v->id] != LIVE_OUT)
                    last[v->id] = pos(i);
                if (where) where[v->id] = b;
            }
        }
    }
    fmag_tmp_free(where);
    return last;
}

/* Is v used after instruction s (a user of v)? */
static bool live_after(const uintptr_t *last, const fmag_value *v, const fmag_instr *s)
{
    return last[v->id] == LIVE_OUT || last[v->id] > pos(s);
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

static bool orient(fmag_instr *s, const uintptr_t *last)
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
    if (!live_after(last, f, s) || live_after(last, t, s)) return false;
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
    uintptr_t *last = last_uses(f);
    /* orient reads the position of the instruction it is given only: each aux (the
     * only ones this pass sets) is cleared once its instruction is done. */
    fmag_foreach_block (b, f) {
        fmag_foreach_instr (i, b) {
            if (last && i->op == FMAG_OP_FMAG) changed |= orient(i, last);
            i->aux = NULL;
        }
    }
    fmag_tmp_free(last);
    if (!last) {
        fmag_context_out_of_memory(f->module->ctx, "minmax");
        return FMAG_PASS_FAILED;
    }
    return fmag_ou_status(changed);
}
