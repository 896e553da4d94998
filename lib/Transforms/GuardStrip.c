/* Guard stripping: a guard that is a boolean made from another value's sign uses
 * that value directly.
 *
 * Matches a guard operand g (slot e of fmag, or a br condition) where
 *   - g = `fmag A, B, C, D, x` with literal A, B, C, D, K = fma(A, B, C) > 0 and
 *     D <= 0 (a sign boolean, `select 1.0, 0.0, x` is the common one): g > 0 exactly
 *     when x > 0, so the guard becomes x;
 *   - the same with K <= 0 and D > 0 (an inverted boolean), or g = `1 - b` for a
 *     boolean b that is exactly 0 or 1 (`fmag b, -1.0, 1.0, _, 1.0`): g > 0 exactly
 *     when x > 0 is false. A select (`fmag T, 1.0, ±0, F, g`) then swaps its arms
 *     to `fmag F, 1.0, 0.0, T, x`, and a br swaps its targets. Any other consumer
 *     keeps the last value of the chain with g's own polarity.
 * Chains (a boolean of a boolean, a complement of a complement) are followed to the
 * end. A select whose value only matters through its sign (it is only used as a
 * guard, or as an arm of such a select) is > 0 exactly when its chosen arm is, so
 * booleans in its arms are stripped too (same polarity only): this takes the
 * booleans out of a frontend's `a && b` (`select b, 0, a`) and `a || b`
 * (`select 1, b, a`), and out of -ifconvert's predicates. Booleans left without
 * users are erased.
 *
 * Legal (strict), even for NaN and infinities: with K > 0 >= D, g > 0 holds exactly
 * when x > 0 holds (a NaN x gives D, not > 0). Swapping select arms under the
 * negated guard picks the same value on every input; the arm becomes T*1 + 0,
 * equal to T up to the sign of zero.
 *
 *   %b = select 1.0, 0.0, %x                        ; (x > 0) ? 1 : 0
 *   %n = fmag %b, -1.0, 1.0, 0.0, 1.0               ; 1 - b
 *   %r = select %t, %f, %n          ->   %r = fmag %f, 1.0, 0.0, %t, %x
 *
 * Requires: nothing. Preserves: the CFG (br arms may swap), instruction count or less.
 */
#include "OptUtil.h"
#include "fmag/Transforms.h"

/* When v is a boolean of x's sign: sets *x and whether v > 0 means !(x > 0). */
static bool sign_bool(const fmag_value *v, fmag_value **x, bool *neg)
{
    fmag_instr *i = fmag_ou_fmag_def(v);
    if (!i) return false;
    fmag_value *a = i->ops[FMAG_A].value, *b = i->ops[FMAG_B].value, *c = i->ops[FMAG_C].value,
               *d = i->ops[FMAG_D].value, *e = i->ops[FMAG_E].value;
    if (fmag_value_is_const(e) || !fmag_value_is_const(a) || !fmag_value_is_const(b) ||
        !fmag_value_is_const(c) || !fmag_value_is_const(d))
        return false;
    float k = fmag_eval(a->imm, b->imm, c->imm, 0.0f, 1.0f);
    if (!fmag_ou_finite(k)) return false;
    bool kt = k > 0.0f, dt = d->imm > 0.0f;
    if (kt == dt) return false;
    *x = e;
    *neg = !kt;
    return true;
}

/* v is exactly 0 or 1 (either zero): a sign boolean with values {1, ±0} or {±0, 1}. */
static bool exact_bool(const fmag_value *v, fmag_value **x, bool *neg)
{
    if (!sign_bool(v, x, neg)) return false;
    fmag_instr *i = v->def;
    float k = fmag_eval(i->ops[FMAG_A].value->imm, i->ops[FMAG_B].value->imm,
                        i->ops[FMAG_C].value->imm, 0.0f, 1.0f);
    float d = i->ops[FMAG_D].value->imm;
    return (k == 1.0f && d == 0.0f) || (k == 0.0f && d == 1.0f);
}

/* v = 1 - b for an exact boolean b: sets *x and polarity as sign_bool does. */
static bool complement(const fmag_value *v, fmag_value **x, bool *neg)
{
    fmag_instr *i = fmag_ou_fmag_def(v);
    if (!i || !fmag_ou_const_true(i->ops[FMAG_E].value) || !fmag_ou_is_one(i->ops[FMAG_C].value))
        return false;
    fmag_value *b;
    if (fmag_value_is_imm(i->ops[FMAG_B].value, -1.0f))
        b = i->ops[FMAG_A].value;
    else if (fmag_value_is_imm(i->ops[FMAG_A].value, -1.0f))
        b = i->ops[FMAG_B].value;
    else
        return false;
    bool bneg;
    if (!exact_bool(b, x, &bneg)) return false;
    *neg = !bneg;
    return true;
}

typedef struct chain {
    fmag_value *end;      /* the last value of the chain */
    bool neg;             /* end > 0 means !(g > 0) */
    fmag_value *last_pos; /* the last value with g's polarity */
} chain;

static chain walk(fmag_value *g)
{
    chain ch = {g, false, g};
    for (unsigned steps = 0; steps < 1000; steps++) {
        fmag_value *x;
        bool n;
        if (!sign_bool(ch.end, &x, &n) && !complement(ch.end, &x, &n)) break;
        ch.end = x;
        ch.neg ^= n;
        if (!ch.neg) ch.last_pos = x;
    }
    return ch;
}

static bool is_select(const fmag_instr *i)
{
    return fmag_ou_is_one(i->ops[FMAG_B].value) && fmag_ou_is_zero(i->ops[FMAG_C].value);
}

static bool strip(fmag_instr *i, unsigned slot)
{
    fmag_value *g = i->ops[slot].value;
    chain ch = walk(g);
    if (ch.end == g) return false;
    fmag_instr *old = g->kind == FMAG_VALUE_RESULT ? g->def : NULL;
    if (!ch.neg) {
        fmag_instr_set_op(i, slot, ch.end);
    } else if (i->op == FMAG_OP_BR) {
        fmag_block *t = i->targets[0];
        i->targets[0] = i->targets[1];
        i->targets[1] = t;
        fmag_func_invalidate(i->block->func, FMAG_VALID_CFG);
        fmag_instr_set_op(i, slot, ch.end);
    } else if (is_select(i)) {
        fmag_module *m = i->block->func->module;
        fmag_value *t = i->ops[FMAG_A].value, *f = i->ops[FMAG_D].value;
        fmag_instr_set_op(i, FMAG_A, f);
        fmag_instr_set_op(i, FMAG_C, fmag_module_const(m, 0.0f));
        fmag_instr_set_op(i, FMAG_D, t);
        fmag_instr_set_op(i, FMAG_E, ch.end);
    } else if (ch.last_pos != g) {
        fmag_instr_set_op(i, slot, ch.last_pos);
    } else {
        return false;
    }
    if (old) fmag_ou_erase_if_dead(old);
    return true;
}

/* A select `fmag t, 1.0, ±0, d, g`: its value is t*1 + 0 when g > 0, else d. */
static bool is_select_form(const fmag_instr *i)
{
    return i->op == FMAG_OP_FMAG && fmag_ou_is_one(i->ops[FMAG_B].value) &&
           fmag_ou_is_zero(i->ops[FMAG_C].value);
}

/* Marks (aux != NULL) every fmag whose value only matters through its sign: each use
 * is a guard (fmag slot e, a br), or an arm (slot a or d) of a select that is itself
 * sign-only. Such a select is > 0 exactly when the chosen arm is, so its arms are
 * guards too. Repeated to a fixpoint (uses may sit in later blocks); in a function of
 * one block the first sweep is the fixpoint: it goes from the bottom up, so a use (a
 * phi's aside, which never qualifies) is marked or not for good before its operand. */
static void mark_sign_only(fmag_func *f)
{
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b)
            i->aux = NULL;
    bool changed = true;
    while (changed) {
        changed = false;
        fmag_foreach_block (b, f) {
            for (fmag_instr *i = b->last; i; i = i->prev) {
                if (i->op != FMAG_OP_FMAG || i->aux || !i->results[0].uses) continue;
                bool only = true;
                for (const fmag_use *u = i->results[0].uses; u && only; u = u->next_use) {
                    const fmag_instr *w = u->user;
                    only =
                        w->op == FMAG_OP_BR || (w->op == FMAG_OP_FMAG && u->index == FMAG_E) ||
                        (w->aux && (u->index == FMAG_A || u->index == FMAG_D) && is_select_form(w));
                }
                if (only) {
                    i->aux = i;
                    changed = true;
                }
            }
        }
        changed &= f->first != f->last;
    }
}

/* In a sign-only select, a boolean in either arm can be stripped (same polarity
 * only: the arms cannot be swapped from here). This catches a frontend's
 * `a && b` (`select b, 0, a`) and `a || b` (`select 1, b, a`) used as conditions. */
static bool strip_arms(fmag_instr *i)
{
    if (!i->aux || !is_select_form(i)) return false;
    bool changed = false;
    static const unsigned slots[2] = {FMAG_A, FMAG_D};
    for (unsigned k = 0; k < 2; k++) {
        fmag_value *v = i->ops[slots[k]].value;
        chain ch = walk(v);
        if (ch.last_pos == v) continue;
        fmag_instr_set_op(i, slots[k], ch.last_pos);
        if (v->kind == FMAG_VALUE_RESULT) fmag_ou_erase_if_dead(v->def);
        changed = true;
    }
    return changed;
}

fmag_pass_status fmag_opt_guardstrip(fmag_func *f)
{
    mark_sign_only(f);
    bool changed = false;
    fmag_foreach_block (b, f) {
        for (fmag_instr *i = b->last, *prev; i; i = prev) {
            prev = i->prev;
            if (i->op == FMAG_OP_FMAG && !fmag_value_is_const(i->ops[FMAG_E].value)) {
                changed |= strip(i, FMAG_E);
                changed |= strip_arms(i);
            } else if (i->op == FMAG_OP_BR) {
                changed |= strip(i, 0);
            }
            /* Only i's own mark is read while i is done: clear it (marks are the only
             * aux this pass sets). */
            i->aux = NULL;
            /* A boolean that died with i's operand may have been prev. */
            if (i->block) prev = i->prev;
        }
    }
    return fmag_ou_status(changed);
}
