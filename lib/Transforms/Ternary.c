/* Ternary recognition: if/else diamonds and triangles become selects.
 *
 * Matches a block A ending in `br g, ^T, ^F` where the arms are simple (one
 * predecessor, A; no phis; only fmag instructions, which are pure and never trap):
 *   - diamond:  T and F both `jmp ^M`: the arms' instructions move into A, each phi
 *     of M becomes `select vT, vF, g` in A, and A jumps to M;
 *   - triangle: T `jmp ^F` (or F `jmp ^T`): the same with A's own incoming value as
 *     the other arm;
 *   - both arms return: A returns `select vT, vF, g` for each result.
 * Then the CFG is cleaned: a block jumping to a block whose only predecessor it is
 * absorbs it, empty forwarding blocks are spliced out, literal branch guards fold,
 * unreachable blocks go, single-valued phis go. Repeated to a fixpoint, so nested
 * if/else collapses from the inside out.
 *
 * Legal (strict): the arm that was not taken now runs too, but its values only
 * reach the select, which returns the taken arm's value exactly when the branch
 * would have taken it (the same `g > 0` test); the select's `T*1 + 0` changes
 * nothing but the sign of a zero. Speculated arithmetic may make an inf or NaN
 * that the select then discards; nothing can trap.
 *
 *   ^entry: br %c, ^t, ^f                 ^entry:
 *   ^t: %1 = add %x, 1.0                    %1 = add %x, 1.0
 *       jmp ^m                              %2 = mul %x, 2.0
 *   ^f: %2 = mul %x, 2.0          ->        %3 = select %1, %2, %c
 *       jmp ^m                              ret %3
 *   ^m: %3 = phi [%1, ^t], [%2, ^f]
 *       ret %3
 *
 * Requires: nothing. Preserves: the values; not the CFG.
 */
#include "CFG.h"
#include "OptUtil.h"
#include "fmag/Transforms.h"

#include <stdlib.h>

typedef struct sweep {
    unsigned *np; /* distinct predecessors by block id */
    bool *erased; /* by block id */
} sweep;

/* An arm of a branch out of a: a's only successor-side user (one predecessor), no
 * phis, only pure fmag instructions before its terminator. */
static bool simple_arm(const sweep *sw, fmag_block *b, fmag_block *a)
{
    if (b == a || b == b->func->first || sw->np[b->id] != 1) return false;
    for (fmag_instr *i = b->first; i; i = i->next)
        if (i->op != FMAG_OP_FMAG && !fmag_instr_is_terminator(i)) return false;
    return fmag_block_terminator(b) != NULL;
}

static void hoist(fmag_block *arm, fmag_instr *before)
{
    for (fmag_instr *i = arm->first, *nx; i && !fmag_instr_is_terminator(i); i = nx) {
        nx = i->next;
        fmag_instr_remove(i);
        fmag_instr_insert_before(before, i);
    }
}

static fmag_value *select_before(fmag_instr *pos, fmag_value *t, fmag_value *f, fmag_value *g)
{
    if (t == f) return t;
    fmag_builder b;
    fmag_builder_before(&b, pos);
    return fmag_build_select_typed(&b, t, f, g);
}

/* Rewrites the phis of m: the incoming values from `from_t` (taken when g > 0) and
 * `from_f` become one select, incoming from a. */
static void phis_to_selects(fmag_block *m, fmag_block *a, fmag_block *from_t, fmag_block *from_f,
                            fmag_instr *pos, fmag_value *g)
{
    fmag_foreach_instr (p, m) {
        if (p->op != FMAG_OP_PHI) break;
        fmag_value *vt = fmag_phi_value_for(p, from_t), *vf = fmag_phi_value_for(p, from_f);
        fmag_value *sel = select_before(pos, vt, vf, g);
        for (unsigned k = p->nops; k-- > 0;)
            if (p->phi_blocks[k] == from_t || p->phi_blocks[k] == from_f)
                fmag_phi_remove_incoming(p, k);
        fmag_phi_add_incoming(p, sel, a);
    }
}

static void erase_block(sweep *sw, fmag_block *b)
{
    sw->erased[b->id] = true;
    fmag_block_erase(b);
}

/* a now ends in `jmp m`; when a is m's only predecessor the two join, so an
 * enclosing branch sees this whole if/else as one simple arm. Returns the block that
 * holds a's code now. */
static fmag_block *absorb(sweep *sw, fmag_block *a, fmag_block *m)
{
    if (m == a || m == a->func->first || sw->np[m->id] != 1) return a;
    unsigned na = sw->np[a->id];
    fmag_block *keep = fmag_cfg_join_blocks(a, m);
    sw->erased[(keep == a ? m : a)->id] = true;
    sw->np[keep->id] = na; /* the survivor has a's predecessors */
    return keep;
}

static fmag_block *try_block(sweep *sw, fmag_block *a)
{
    fmag_instr *t = fmag_block_terminator(a);
    if (!t || t->op != FMAG_OP_BR || t->targets[0] == t->targets[1]) return NULL;
    fmag_value *g = t->ops[0].value;
    fmag_block *tb = t->targets[0], *fb = t->targets[1];
    bool ts = simple_arm(sw, tb, a), fs = simple_arm(sw, fb, a);
    fmag_instr *tt = fmag_block_terminator(tb), *ft = fmag_block_terminator(fb);

    if (ts && fs && tt->op == FMAG_OP_JMP && ft->op == FMAG_OP_JMP &&
        tt->targets[0] == ft->targets[0] && tt->targets[0] != a) {
        fmag_block *m = tt->targets[0];
        hoist(tb, t);
        hoist(fb, t);
        phis_to_selects(m, a, tb, fb, t, g);
        fmag_cfg_make_jmp(t, m);
        erase_block(sw, tb);
        erase_block(sw, fb);
        sw->np[m->id] -= 1;
        return absorb(sw, a, m);
    }
    if (ts && tt->op == FMAG_OP_JMP && tt->targets[0] == fb) {
        hoist(tb, t);
        phis_to_selects(fb, a, tb, a, t, g);
        fmag_cfg_make_jmp(t, fb);
        erase_block(sw, tb);
        sw->np[fb->id] -= 1;
        return absorb(sw, a, fb);
    }
    if (fs && ft->op == FMAG_OP_JMP && ft->targets[0] == tb) {
        hoist(fb, t);
        phis_to_selects(tb, a, a, fb, t, g);
        fmag_cfg_make_jmp(t, tb);
        erase_block(sw, fb);
        sw->np[tb->id] -= 1;
        return absorb(sw, a, tb);
    }
    if (ts && fs && tt->op == FMAG_OP_RET && ft->op == FMAG_OP_RET && tt->nops == ft->nops) {
        hoist(tb, t);
        hoist(fb, t);
        fmag_func *f = a->func;
        fmag_instr *ret = fmag_instr_create(f, FMAG_OP_RET, tt->nops, 0);
        for (unsigned k = 0; k < tt->nops; k++)
            fmag_instr_set_op(ret, k, select_before(t, tt->ops[k].value, ft->ops[k].value, g));
        fmag_instr_insert_before(t, ret);
        fmag_instr_erase(t);
        erase_block(sw, tb);
        erase_block(sw, fb);
        return a;
    }
    return NULL;
}

/* One sweep over the blocks in reverse postorder. A block keeps absorbing the
 * if/else chain that follows it (the short merge block moves into it, never the
 * other way), so a long sequence costs linear time; an enclosing if/else whose arm
 * held a nested one is caught by the next sweep. */
static fmag_pass_status sweep_once(fmag_func *f)
{
    fmag_domtree dt;
    if (!fmag_domtree_build(f, &dt)) {
        fmag_context_out_of_memory(f->module->ctx, "ternary");
        return FMAG_PASS_FAILED;
    }
    sweep sw = {fmag_cfg_pred_counts(f), fmag_tmp_calloc(dt.nblocks + 1, sizeof(bool))};
    fmag_pass_status st = FMAG_PASS_UNCHANGED;
    if (sw.np && sw.erased)
        for (unsigned k = 0; k < dt.n; k++) {
            fmag_block *b = dt.rpo[k];
            while (b && !sw.erased[b->id] && (b = try_block(&sw, b)))
                st = FMAG_PASS_CHANGED;
        }
    else {
        fmag_context_out_of_memory(f->module->ctx, "ternary");
        st = FMAG_PASS_FAILED;
    }
    fmag_tmp_free(sw.np);
    fmag_tmp_free(sw.erased);
    fmag_domtree_free(&dt);
    return st;
}

fmag_pass_status fmag_opt_ternary(fmag_func *f)
{
    bool any = false, changed;
    do {
        changed = fmag_opt_simplifycfg(f) == FMAG_PASS_CHANGED;
        fmag_pass_status st = sweep_once(f);
        if (st == FMAG_PASS_FAILED) return st;
        changed |= st == FMAG_PASS_CHANGED;
        any |= changed;
    } while (changed);
    return fmag_ou_status(any);
}
