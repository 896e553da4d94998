/* Constant folding and the exact algebraic identities of the one instruction.
 *
 * Matches, for `%r = fmag a, b, c, d, e` (value: e > 0 ? fma(a, b, c) : d):
 *   - a literal guard: e > 0 gives fma(a, b, c) (d is then irrelevant and becomes
 *     +0.0 so equal computations look equal); e <= 0 (-0, +0, negative) gives d.
 *   - literal a, b, c: fma is computed here with fmaf in float32, exactly as the VM
 *     would; a result that is not finite is left alone (a literal may never be inf
 *     or NaN). Under a non-literal guard the instruction becomes the select
 *     `fmag K, 1.0, 0.0, d, e`.
 *   - x*1 + ±0 (either factor) under a true guard is x; x*±0 + c (either factor) is
 *     c, and under a computed guard it becomes `select c, d, e`.
 *   - a select whose two arms are the same value (`fmag x, 1.0, 0.0, x, e`), or two
 *     literals equal up to the sign of zero, is that value.
 *   - `br` on a literal guard becomes `jmp` (blocks left unreachable are removed), a
 *     phi whose incoming values are all the same value is that value.
 *   - an integer operation (SPEC §2b) on literals is computed with fmag_eval_int, the
 *     IR's definition of it (a conversion to f32 that is not finite stays); iselect
 *     on a literal guard or with equal arms is an arm; and the identities that hold
 *     for every 32-bit value: x+0, x-0, x*1, x|0, x^0, x&-1, shifts by 0 are x;
 *     x*0 and x&0 are 0; x-x and x^x are 0. No float identity touches an integer.
 *
 * Legal under the strict contract (SPEC §2): x*1 + 0 differs from x only when x is
 * -0 (it gives +0), and ±0 count as equal; a sign of zero can only reach another
 * zero, never a nonzero value, because every operation is an fma of finite values
 * and a guard `> 0` is false for both zeros. x*±0 is ±0 when x is finite, and on the
 * inputs the contract covers, every operand of an instruction that the original
 * program executes is finite; an instruction the original does not execute only
 * feeds selects that discard it. Folding uses fmag_eval (lib/IR/Eval.c), the
 * machine instruction exactly as the VM executes it.
 *
 *   %0 = fmag 2.0, 3.0, 1.0, 0.0, 1.0        ->   (gone; users see 7.0)
 *   %1 = mul %x, 1.0                         ->   (gone; users see %x)
 *   %2 = fmag %x, 0.0, %y, %z, %g            ->   %2 = select %y, %z, %g
 *   %3 = select %x, %x, %g                   ->   (gone; users see %x)
 *
 * Requires: nothing. Preserves: everything except removed branches/blocks.
 */
#include "CFG.h"
#include "OptUtil.h"
#include "fmag/Bits.h"
#include "fmag/Transforms.h"

/* One run's module and the literals it asks for at nearly every instruction, looked
 * up once, when first needed. */
typedef struct folder {
    fmag_module *m;
    fmag_value *zero, *one;
} folder;

static fmag_value *zero_of(folder *fo)
{
    return fo->zero ? fo->zero : (fo->zero = fmag_module_const(fo->m, 0.0f));
}

static fmag_value *one_of(folder *fo)
{
    return fo->one ? fo->one : (fo->one = fmag_module_const(fo->m, 1.0f));
}

static bool set_select(folder *fo, fmag_instr *i, fmag_value *t)
{
    fmag_value *one = one_of(fo), *zero = zero_of(fo);
    if (i->ops[FMAG_A].value == t && i->ops[FMAG_B].value == one && i->ops[FMAG_C].value == zero)
        return false;
    fmag_instr_set_op(i, FMAG_A, t);
    fmag_instr_set_op(i, FMAG_B, one);
    fmag_instr_set_op(i, FMAG_C, zero);
    return true;
}

static bool equal_mod_zero(const fmag_value *x, const fmag_value *y)
{
    if (x == y) return true;
    return fmag_value_is_const(x) && fmag_value_is_const(y) && x->imm == y->imm;
}

static bool int_is(const fmag_value *v, uint32_t bits)
{
    return fmag_value_is_int_imm(v, bits);
}

/* Returns true when the integer operation i was replaced. */
static bool fold_int(fmag_instr *i)
{
    fmag_module *m = i->block->func->module;
    unsigned n = i->nops;
    fmag_value *x = n > 0 ? i->ops[0].value : NULL, *y = n > 1 ? i->ops[1].value : NULL,
               *z = n > 2 ? i->ops[2].value : NULL;
    bool consts = true;
    uint32_t o[3] = {0, 0, 0};
    for (unsigned k = 0; k < n; k++) {
        consts &= fmag_value_is_const(i->ops[k].value);
        o[k] = i->ops[k].value->ibits;
    }
    fmag_type rt = fmag_int_op_result_type(i->iop);
    if (consts) {
        uint32_t r = fmag_eval_int(i->iop, o[0], o[1], o[2]);
        if (rt == FMAG_TYPE_I32 || fmag_ou_finite(fmag_float_of(r))) {
            fmag_ou_replace_and_erase(i, fmag_module_const_bits(m, rt, r));
            return true;
        }
        return false;
    }
    fmag_value *to = NULL;
    switch (i->iop) {
    case FMAG_IOP_SELECT:
        if (fmag_ou_const_true(z))
            to = x;
        else if (fmag_ou_const_false(z) || x == y)
            to = y;
        break;
    case FMAG_IOP_ADD:
    case FMAG_IOP_OR:
    case FMAG_IOP_XOR:
        if (int_is(y, 0))
            to = x;
        else if (int_is(x, 0))
            to = y;
        else if (i->iop == FMAG_IOP_XOR && x == y)
            to = fmag_module_const_i32(m, 0);
        break;
    case FMAG_IOP_SUB:
        if (int_is(y, 0))
            to = x;
        else if (x == y)
            to = fmag_module_const_i32(m, 0);
        break;
    case FMAG_IOP_MUL:
        if (int_is(y, 1))
            to = x;
        else if (int_is(x, 1))
            to = y;
        else if (int_is(x, 0) || int_is(y, 0))
            to = fmag_module_const_i32(m, 0);
        break;
    case FMAG_IOP_AND:
        if (int_is(y, 0xFFFFFFFFu))
            to = x;
        else if (int_is(x, 0xFFFFFFFFu))
            to = y;
        else if (int_is(x, 0) || int_is(y, 0))
            to = fmag_module_const_i32(m, 0);
        else if (x == y)
            to = x;
        break;
    case FMAG_IOP_SHL:
    case FMAG_IOP_LSHR:
    case FMAG_IOP_ASHR:
        if (fmag_value_is_const(y) && !(y->ibits & 31)) to = x;
        break;
    default:
        break;
    }
    if (!to) return false;
    fmag_ou_replace_and_erase(i, to);
    return true;
}

/* Returns true when i changed or was erased. */
static bool fold_fmag(folder *fo, fmag_instr *i)
{
    fmag_module *m = fo->m;
    fmag_value *a = i->ops[FMAG_A].value, *b = i->ops[FMAG_B].value, *c = i->ops[FMAG_C].value,
               *d = i->ops[FMAG_D].value, *e = i->ops[FMAG_E].value;
    if (fmag_ou_const_false(e)) {
        fmag_ou_replace_and_erase(i, d);
        return true;
    }
    bool consts = fmag_value_is_const(a) && fmag_value_is_const(b) && fmag_value_is_const(c);
    float k = consts ? fmag_eval(a->imm, b->imm, c->imm, 0.0f, 1.0f) : 0.0f;
    if (consts && !fmag_ou_finite(k)) consts = false;
    if (fmag_ou_const_true(e)) {
        if (consts) {
            fmag_ou_replace_and_erase(i, fmag_module_const(m, k));
            return true;
        }
        if (fmag_ou_is_zero(a) || fmag_ou_is_zero(b)) {
            fmag_ou_replace_and_erase(i, c);
            return true;
        }
        if (fmag_ou_is_zero(c) && (fmag_ou_is_one(b) || fmag_ou_is_one(a))) {
            fmag_ou_replace_and_erase(i, fmag_ou_is_one(b) ? a : b);
            return true;
        }
        fmag_value *zero = zero_of(fo);
        if (d != zero) {
            fmag_instr_set_op(i, FMAG_D, zero);
            return true;
        }
        return false;
    }
    /* A computed guard: a select between fma(a, b, c) and d. */
    if (consts) {
        fmag_value *kv = fmag_module_const(m, k);
        if (equal_mod_zero(kv, d)) {
            fmag_ou_replace_and_erase(i, d);
            return true;
        }
        return set_select(fo, i, kv);
    }
    if (fmag_ou_is_zero(a) || fmag_ou_is_zero(b)) {
        if (equal_mod_zero(c, d)) {
            fmag_ou_replace_and_erase(i, d);
            return true;
        }
        return set_select(fo, i, c);
    }
    if (fmag_ou_is_zero(c) && ((fmag_ou_is_one(b) && a == d) || (fmag_ou_is_one(a) && b == d))) {
        fmag_ou_replace_and_erase(i, d);
        return true;
    }
    return false;
}

/* Each instruction is folded until it stays (a select whose arm became the literal
 * -0 takes a second step to +0), in block order. In a function of one block without
 * phis or branches that one walk reaches the fixed point: an instruction's fold reads
 * only its operands, whose definitions come before it, and what the walk does after
 * it changes only later instructions (their operands, the uses of their results) or
 * erases dead ones; so the walk that would confirm it, a quarter of the pass on the
 * MaterialX graphs, is left out. Elsewhere the walks repeat until nothing changes. */
fmag_pass_status fmag_opt_constfold(fmag_func *f)
{
    folder fo = {f->module, NULL, NULL};
    bool any = false, changed;
    do {
        changed = false;
        bool straight = f->first == f->last;
        fmag_foreach_block (b, f)
            fmag_foreach_instr (i, b) {
                /* Operands that die with a folded instruction are erased too; they
                 * dominate it, so they are never still ahead in this walk. */
                if (!i->block) continue;
                if (i->op == FMAG_OP_FMAG) {
                    while (i->block && fold_fmag(&fo, i))
                        changed = true;
                } else if (i->op == FMAG_OP_INT) {
                    changed |= fold_int(i);
                } else {
                    straight &= i->op != FMAG_OP_PHI && i->op != FMAG_OP_BR && i->op != FMAG_OP_JMP;
                }
            }
        any |= changed;
        if (straight) break;
        if (fmag_cfg_fold_branches(f)) {
            changed = true;
            fmag_cfg_remove_unreachable(f);
        }
        changed |= fmag_cfg_simplify_phis(f);
        any |= changed;
    } while (changed);
    return fmag_ou_status(any);
}
