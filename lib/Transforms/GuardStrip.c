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
 * end. Inside a value used only as a guard, `select t, D<=0, g` (the `&&` of a
 * frontend) and `select K>0, d, g` (its `||`), the operand t (or d) only matters
 * through its sign as well, so a boolean there is stripped too (same polarity
 * only). Booleans left without users are erased.
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
    fmag_instr *i = fmag_opt_fmag_def(v);
    if (!i) return false;
    fmag_value *a = i->ops[FMAG_A].value, *b = i->ops[FMAG_B].value, *c = i->ops[FMAG_C].value,
               *d = i->ops[FMAG_D].value, *e = i->ops[FMAG_E].value;
    if (fmag_value_is_const(e) || !fmag_value_is_const(a) || !fmag_value_is_const(b) ||
        !fmag_value_is_const(c) || !fmag_value_is_const(d))
        return false;
    float k = fmag_eval(a->imm, b->imm, c->imm, 0.0f, 1.0f);
    if (!fmag_opt_finite(k)) return false;
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
    fmag_instr *i = fmag_opt_fmag_def(v);
    if (!i || !fmag_opt_const_true(i->ops[FMAG_E].value) || !fmag_opt_is_one(i->ops[FMAG_C].value))
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
    return fmag_opt_is_one(i->ops[FMAG_B].value) && fmag_opt_is_zero(i->ops[FMAG_C].value);
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
    if (old) fmag_opt_erase_if_dead(old);
    return true;
}

/* Is every use of v a guard (fmag slot e, or a br)? Then only v's sign matters. */
static bool only_guards(const fmag_value *v)
{
    if (!v->uses) return false;
    for (const fmag_use *u = v->uses; u; u = u->next_use)
        if (!(u->user->op == FMAG_OP_BR || (u->user->op == FMAG_OP_FMAG && u->index == FMAG_E)))
            return false;
    return true;
}

/* In `g ? t : D` with a literal D <= 0 (an "and": t's truth when g holds), and in
 * `g ? K : d` with a literal K > 0 (an "or"), the result is > 0 exactly when
 * (g > 0 and t > 0), or (g > 0 or d > 0). When the result is only used as a guard,
 * t (or d) is then a guard too and a boolean there can be stripped (same polarity
 * only: an arm cannot be swapped from here). */
static bool strip_inner(fmag_instr *i)
{
    if (!only_guards(&i->results[0])) return false;
    fmag_value *a = i->ops[FMAG_A].value, *b = i->ops[FMAG_B].value, *c = i->ops[FMAG_C].value,
               *d = i->ops[FMAG_D].value;
    unsigned slot;
    if (fmag_opt_is_one(b) && fmag_opt_is_zero(c) && fmag_value_is_const(d) && !(d->imm > 0.0f))
        slot = FMAG_A;
    else if (fmag_value_is_const(a) && fmag_value_is_const(b) && fmag_value_is_const(c) &&
             fmag_eval(a->imm, b->imm, c->imm, 0.0f, 1.0f) > 0.0f)
        slot = FMAG_D;
    else
        return false;
    fmag_value *v = i->ops[slot].value;
    chain ch = walk(v);
    if (ch.last_pos == v) return false;
    fmag_instr_set_op(i, slot, ch.last_pos);
    if (v->kind == FMAG_VALUE_RESULT) fmag_opt_erase_if_dead(v->def);
    return true;
}

bool fmag_opt_guardstrip(fmag_func *f)
{
    bool changed = false;
    /* Bottom-up, so an "and" feeding another "and" is already known guard-only. */
    fmag_foreach_block(b, f)
    {
        for (fmag_instr *i = b->last, *prev; i; i = prev) {
            prev = i->prev;
            if (i->op == FMAG_OP_FMAG && !fmag_value_is_const(i->ops[FMAG_E].value)) {
                changed |= strip(i, FMAG_E);
                changed |= strip_inner(i);
            } else if (i->op == FMAG_OP_BR) {
                changed |= strip(i, 0);
            }
            /* A boolean that died with i's operand may have been prev. */
            if (i->block) prev = i->prev;
        }
    }
    return changed;
}
