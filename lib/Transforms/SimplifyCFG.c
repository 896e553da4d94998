/* CFG cleanup, to a fixed point:
 *   - `br K, ...` with a literal guard, and `br g, ^x, ^x`, become `jmp` (the phis of
 *     the dropped target lose this block's incoming value);
 *   - blocks unreachable from the entry go (values they define are used only in
 *     unreachable blocks, by dominance);
 *   - a phi whose incoming values are all one value (itself aside) becomes it;
 *   - a block that ends in `jmp ^m` and is m's only predecessor joins m (m is not the
 *     entry; the shorter instruction list moves);
 *   - a block holding only `jmp ^s` is spliced out: its predecessors branch to s
 *     directly, s's phis take its incoming value from each of them; not when a
 *     predecessor already reaches s with a different phi value (that pair of edges is
 *     a triangle, which -ternary turns into a select).
 *
 * Legal (strict, bit for bit): no instruction that computes a value is added,
 * removed or changed; a literal branch always took the arm kept; an unreachable
 * block never ran; a phi with one distinct incoming value always produced it; a
 * join or a splice keeps every path's sequence of computations and the value each
 * phi receives along it.
 *
 *   ^entry: br 1.0, ^a, ^b                ^entry:
 *   ^a: jmp ^m                              %x = add %p, 1.0
 *   ^b: jmp ^m                   ->         ret %x
 *   ^m: %v = phi [%p, ^a], [%q, ^b]
 *       %x = add %v, 1.0
 *       ret %x
 *
 * -ternary runs it before each of its sweeps and -loop-unroll after unrolling;
 * the step functions are shared with -constfold, -ifconvert and -ternary.
 *
 * Requires: nothing. Preserves: the values; not the CFG.
 */
#include "CFG.h"
#include "OptUtil.h"
#include "fmag/Transforms.h"

#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------ reachability */

/* Marks reachable blocks (aux = non-NULL) with an explicit stack. */
static void mark_reachable(fmag_func *f)
{
    size_t nb = 0;
    fmag_foreach_block (b, f) {
        b->aux = NULL;
        nb++;
    }
    if (!f->first) return;
    fmag_block **stack = fmag_tmp_malloc((2 * nb + 1) * sizeof(*stack));
    if (!stack) {
        fmag_foreach_block (b, f)
            b->aux = b; /* conservative: everything is live */
        return;
    }
    size_t top = 0;
    stack[top++] = f->first;
    f->first->aux = f->first;
    while (top) {
        fmag_block *b = stack[--top];
        fmag_block *s[2];
        unsigned ns = fmag_block_succs(b, s);
        for (unsigned k = 0; k < ns; k++)
            if (!s[k]->aux) {
                s[k]->aux = s[k];
                stack[top++] = s[k];
            }
    }
    fmag_tmp_free(stack);
}

bool fmag_cfg_remove_unreachable(fmag_func *f)
{
    mark_reachable(f);
    bool any = false;
    fmag_foreach_block (b, f) {
        if (b->aux) continue;
        any = true;
        fmag_block *s[2];
        unsigned ns = fmag_block_succs(b, s);
        for (unsigned k = 0; k < ns; k++)
            fmag_cfg_phi_drop_block(s[k], b);
    }
    if (!any) {
        fmag_foreach_block (b, f)
            b->aux = NULL;
        return false;
    }
    /* Values of dead blocks are only used inside dead blocks (dominance); point those
     * uses at a literal so every instruction can be erased in any order. */
    fmag_value *zero = fmag_module_const(f->module, 0.0f);
    fmag_foreach_block (b, f) {
        if (b->aux) continue;
        fmag_foreach_instr (i, b)
            for (unsigned k = 0; k < i->nresults; k++)
                fmag_value_replace_all_uses(&i->results[k], zero);
    }
    fmag_foreach_block (b, f) {
        if (!b->aux) fmag_block_erase(b);
    }
    fmag_foreach_block (b, f)
        b->aux = NULL;
    return true;
}

/* ------------------------------------------------------------ cfg cleanup */

bool fmag_cfg_fold_branches(fmag_func *f)
{
    bool changed = false;
    fmag_foreach_block (b, f) {
        fmag_instr *t = fmag_block_terminator(b);
        if (!t || t->op != FMAG_OP_BR) continue;
        fmag_value *g = t->ops[0].value;
        if (t->targets[0] == t->targets[1]) {
            fmag_cfg_make_jmp(t, t->targets[0]);
            changed = true;
        } else if (fmag_value_is_const(g)) {
            bool taken = g->imm > 0.0f;
            fmag_block *keep = taken ? t->targets[0] : t->targets[1];
            fmag_block *drop = taken ? t->targets[1] : t->targets[0];
            fmag_cfg_phi_drop_block(drop, b);
            fmag_cfg_make_jmp(t, keep);
            changed = true;
        }
    }
    return changed;
}

/* A phi whose incoming values are all one value (itself aside) is that value. */
bool fmag_cfg_simplify_phis(fmag_func *f)
{
    bool changed = false;
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b) {
            if (i->op != FMAG_OP_PHI) break;
            fmag_value *same = NULL, *self = &i->results[0];
            bool unique = true;
            for (unsigned k = 0; k < i->nops && unique; k++) {
                fmag_value *v = i->ops[k].value;
                if (v == self || v == same) continue;
                if (same) unique = false;
                same = v;
            }
            if (unique && same) {
                fmag_value_replace_all_uses(self, same);
                fmag_instr_erase(i);
                changed = true;
            }
        }
    return changed;
}

unsigned *fmag_cfg_pred_counts(fmag_func *f)
{
    fmag_preds p;
    if (!fmag_preds_build(f, NULL, 0, &p)) return NULL;
    unsigned *np = fmag_tmp_calloc(p.nblocks + 1, sizeof(*np));
    if (np)
        for (unsigned i = 0; i < p.nblocks; i++)
            np[i] = p.start[i + 1] - p.start[i];
    fmag_preds_free(&p);
    return np;
}

fmag_block *fmag_cfg_join_blocks(fmag_block *a, fmag_block *m)
{
    fmag_func *f = a->func;
    fmag_foreach_instr (i, m) {
        if (i->op != FMAG_OP_PHI) break;
        fmag_value *v = i->nops ? i->ops[0].value : fmag_module_const(f->module, 0.0f);
        fmag_value_replace_all_uses(&i->results[0], v);
        fmag_instr_erase(i);
    }
    fmag_instr_erase(a->last);
    /* Move the cheaper side: m's instructions, or a's plus a scan of every block to
     * redirect a's predecessors. A long straight-line tail must not be walked once per
     * diamond that ends in front of it. */
    size_t lm = 0, la = 0, bound = 2 * (size_t)f->nblocks + 16;
    for (fmag_instr *y = m->first; y && lm <= bound; y = y->next)
        lm++;
    for (fmag_instr *x = a->first; x && la <= lm; x = x->next)
        la++;
    if (lm <= bound || lm <= la + f->nblocks) {
        fmag_foreach_instr (i, m) {
            fmag_instr_remove(i);
            fmag_block_append(a, i);
        }
        fmag_block *s[2];
        unsigned ns = fmag_block_succs(a, s);
        for (unsigned k = 0; k < ns; k++)
            fmag_cfg_phi_rename_block(s[k], m, a);
        fmag_block_erase(m);
        return a;
    }
    fmag_foreach_instr_rev (i, a) {
        fmag_instr_remove(i);
        if (m->first)
            fmag_instr_insert_before(m->first, i);
        else
            fmag_block_append(m, i);
    }
    fmag_foreach_block (p, f) {
        fmag_instr *t = fmag_block_terminator(p);
        if (t && (t->op == FMAG_OP_BR || t->op == FMAG_OP_JMP))
            for (unsigned k = 0; k < 2; k++)
                if (t->targets[k] == a) t->targets[k] = m;
    }
    fmag_func_invalidate(f, FMAG_VALID_CFG);
    bool entry = f->first == a;
    m->name = a->name; /* m carries on as a (its name shows in printed IR) */
    fmag_block_erase(a);
    if (entry && f->first != m) {
        /* m becomes the entry: unlink it and put it first. */
        m->prev->next = m->next;
        if (m->next)
            m->next->prev = m->prev;
        else
            f->last = m->prev;
        m->next = f->first;
        m->prev = NULL;
        f->first->prev = m;
        f->first = m;
    }
    return m;
}

static bool merge_chains(fmag_func *f)
{
    unsigned *np = fmag_cfg_pred_counts(f);
    if (!np) return false;
    bool changed = false;
    for (fmag_block *b = f->first; b; b = b->next) {
        for (;;) {
            fmag_instr *t = fmag_block_terminator(b);
            if (!t || t->op != FMAG_OP_JMP) break;
            fmag_block *s = t->targets[0];
            if (s == b || s == f->first || np[s->id] != 1) break;
            unsigned nb = np[b->id];
            b = fmag_cfg_join_blocks(b, s);
            np[b->id] = nb; /* the survivor has the first block's predecessors */
            changed = true;
        }
    }
    fmag_tmp_free(np);
    return changed;
}

static bool targets(const fmag_block *p, const fmag_block *s)
{
    fmag_block *succ[2];
    unsigned ns = fmag_block_succs(p, succ);
    for (unsigned k = 0; k < ns; k++)
        if (succ[k] == s) return true;
    return false;
}

/* A block holding only `jmp S` is bypassed: its predecessors branch to S directly.
 * Not when a predecessor already reaches S with a different phi value (that edge
 * pair is a triangle; -ternary makes it a select). Predecessor lists are built once
 * per round; a block touched by one splice waits for the next round. */
static bool splice_forwarders(fmag_func *f)
{
    fmag_preds pc;
    if (!fmag_preds_build(f, NULL, 0, &pc)) return false;
    bool *dirty = fmag_tmp_calloc(f->nblocks + 1, sizeof(*dirty));
    bool changed = false;
    for (fmag_block *fb = f->first ? f->first->next : NULL, *next; fb && dirty; fb = next) {
        next = fb->next;
        fmag_instr *t = fb->first;
        if (!t || t != fb->last || t->op != FMAG_OP_JMP || t->targets[0] == fb) continue;
        fmag_block *s = t->targets[0];
        fmag_block *const *preds = fmag_preds_of(&pc, fb);
        unsigned np = fmag_preds_count(&pc, fb);
        bool ok = np > 0 && !dirty[fb->id] && !dirty[s->id];
        for (unsigned p = 0; p < np && ok; p++) {
            if (dirty[preds[p]->id]) ok = false;
            if (preds[p] == s || !targets(preds[p], s)) continue;
            fmag_foreach_instr (i, s) {
                if (i->op != FMAG_OP_PHI) break;
                if (fmag_phi_value_for(i, preds[p]) != fmag_phi_value_for(i, fb)) ok = false;
            }
        }
        if (!ok) continue;
        bool *already = fmag_tmp_calloc(np, sizeof(*already));
        if (!already) continue;
        for (unsigned p = 0; p < np; p++)
            already[p] = targets(preds[p], s);
        fmag_foreach_instr (i, s) {
            if (i->op != FMAG_OP_PHI) break;
            fmag_value *v = fmag_phi_value_for(i, fb);
            for (unsigned k = i->nops; k-- > 0;)
                if (i->phi_blocks[k] == fb) fmag_phi_remove_incoming(i, k);
            for (unsigned p = 0; p < np; p++)
                if (!already[p]) fmag_phi_add_incoming(i, v, preds[p]);
        }
        fmag_tmp_free(already);
        for (unsigned p = 0; p < np; p++) {
            fmag_instr *pt = fmag_block_terminator(preds[p]);
            for (unsigned k = 0; k < 2; k++)
                if (pt->targets[k] == fb) pt->targets[k] = s;
            dirty[preds[p]->id] = true;
        }
        fmag_func_invalidate(f, FMAG_VALID_CFG);
        dirty[s->id] = dirty[fb->id] = true;
        fmag_block_erase(fb);
        changed = true;
    }
    fmag_tmp_free(dirty);
    fmag_preds_free(&pc);
    return changed;
}

fmag_pass_status fmag_opt_simplifycfg(fmag_func *f)
{
    bool any = false, changed;
    do {
        changed = fmag_cfg_fold_branches(f);
        changed |= fmag_cfg_remove_unreachable(f);
        changed |= fmag_cfg_simplify_phis(f);
        changed |= merge_chains(f);
        changed |= splice_forwarders(f);
        any |= changed;
    } while (changed);
    return fmag_ou_status(any);
}
