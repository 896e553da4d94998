/* Dominators: the one implementation the verifier and the passes share.
 *
 * Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm" (2001): an
 * iterative data-flow solution over reverse-postorder indices, which for the small,
 * mostly reducible CFGs of shaders beats Lengauer-Tarjan in practice. The tree's DFS
 * intervals then answer "does a dominate b" in O(1).
 *
 * The CFG is read defensively, because the verifier runs this on IR it has not
 * checked yet: an edge counts only when its target is a block of this function (a
 * NULL target, or one into another function, is skipped; the verifier reports it),
 * and a `br` whose arms are one block is one edge: fmag_ir_edges, which the
 * predecessor lists (fmag_preds, Preds.c) use too. */
#include "IRInternal.h"

#include <string.h>

void fmag_domtree_free(fmag_domtree *dt)
{
    fmag_tmp_free(dt->rpo);
    fmag_tmp_free(dt->rpo_index);
    fmag_tmp_free(dt->idom);
    fmag_tmp_free(dt->tin);
    fmag_tmp_free(dt->tout);
    memset(dt, 0, sizeof(*dt));
}

static unsigned intersect(const unsigned *idom, unsigned a, unsigned b)
{
    while (a != b) {
        while (a > b)
            a = idom[a];
        while (b > a)
            b = idom[b];
    }
    return a;
}

bool fmag_domtree_build(fmag_func *f, fmag_domtree *dt)
{
    return fmag_domtree_build_edges(f, NULL, NULL, dt);
}

bool fmag_domtree_build_edges(fmag_func *f, fmag_succs_fn succs, void *user, fmag_domtree *dt)
{
    memset(dt, 0, sizeof(*dt));
    dt->f = f;
    fmag_func_number_blocks(f);
    unsigned nb = dt->nblocks = f->nblocks;
    fmag_block **blocks = fmag_tmp_malloc((nb + 1) * sizeof(*blocks));
    unsigned char *state = fmag_tmp_calloc(nb + 1, 1);
    fmag_block **stack = fmag_tmp_malloc((nb + 1) * sizeof(*stack));
    unsigned *next = fmag_tmp_calloc(nb + 1, sizeof(*next));
    unsigned *istack = fmag_tmp_malloc((nb + 1) * sizeof(*istack));
    fmag_preds preds = {0};
    unsigned *cstart = fmag_tmp_calloc(nb + 2, sizeof(*cstart));
    unsigned *child = fmag_tmp_malloc((nb + 1) * sizeof(*child));
    dt->rpo = fmag_tmp_malloc((nb + 1) * sizeof(*dt->rpo));
    dt->rpo_index = fmag_tmp_malloc((nb + 1) * sizeof(*dt->rpo_index));
    dt->idom = fmag_tmp_malloc((nb + 1) * sizeof(*dt->idom));
    dt->tin = fmag_tmp_malloc((nb + 1) * sizeof(*dt->tin));
    dt->tout = fmag_tmp_malloc((nb + 1) * sizeof(*dt->tout));
    bool ok = blocks && state && stack && next && istack && cstart && child && dt->rpo &&
              dt->rpo_index && dt->idom && dt->tin && dt->tout;
    if (!ok) goto out;
    {
        unsigned id = 0;
        fmag_foreach_block (b, f)
            blocks[id++] = b;
    }
    for (unsigned i = 0; i < nb; i++)
        dt->rpo_index[i] = FMAG_DOM_UNREACHABLE;
    if (!nb) goto out;

    /* Reverse postorder by an iterative DFS (successors in target order), filled as
     * a postorder and reversed. */
    unsigned top = 0, n = 0;
    stack[top++] = f->first;
    state[f->first->id] = 1;
    while (top) {
        fmag_block *b = stack[top - 1];
        fmag_block *s[2];
        unsigned ns = fmag_ir_edges(succs, user, b, blocks, nb, s);
        if (next[b->id] < ns) {
            fmag_block *c = s[next[b->id]++];
            if (!state[c->id]) {
                state[c->id] = 1;
                stack[top++] = c;
            }
        } else {
            dt->rpo[n++] = b;
            top--;
        }
    }
    for (unsigned i = 0; i < n / 2; i++) {
        fmag_block *t = dt->rpo[i];
        dt->rpo[i] = dt->rpo[n - 1 - i];
        dt->rpo[n - 1 - i] = t;
    }
    dt->n = n;
    for (unsigned i = 0; i < n; i++)
        dt->rpo_index[dt->rpo[i]->id] = i;

    /* Predecessors as the rest of the library computes them; unreachable ones are
     * skipped below (their idom stays undefined). */
    ok = fmag_preds_build_with(f, succs, user, NULL, 0, &preds);
    if (!ok) goto out;

    for (unsigned i = 0; i < n; i++)
        dt->idom[i] = FMAG_DOM_UNREACHABLE;
    dt->idom[0] = 0;
    for (bool changed = true; changed;) {
        changed = false;
        for (unsigned i = 1; i < n; i++) {
            unsigned nd = FMAG_DOM_UNREACHABLE;
            fmag_block *const *pb = fmag_preds_of(&preds, dt->rpo[i]);
            for (unsigned p = 0; p < fmag_preds_count(&preds, dt->rpo[i]); p++) {
                unsigned q = dt->rpo_index[pb[p]->id];
                if (q == FMAG_DOM_UNREACHABLE || dt->idom[q] == FMAG_DOM_UNREACHABLE) continue;
                nd = nd == FMAG_DOM_UNREACHABLE ? q : intersect(dt->idom, q, nd);
            }
            if (nd != dt->idom[i]) {
                dt->idom[i] = nd;
                changed = true;
            }
        }
    }

    /* Dominator-tree intervals: children in CSR, then an iterative DFS. */
    for (unsigned i = 1; i < n; i++)
        cstart[dt->idom[i] + 1]++;
    for (unsigned i = 0; i < n; i++)
        cstart[i + 1] += cstart[i];
    memset(next, 0, (nb + 1) * sizeof(*next));
    for (unsigned i = 1; i < n; i++)
        child[cstart[dt->idom[i]] + next[dt->idom[i]]++] = i;
    memset(next, 0, (nb + 1) * sizeof(*next));
    unsigned clock = 0;
    top = 0;
    istack[top++] = 0;
    dt->tin[0] = clock++;
    while (top) {
        unsigned k = istack[top - 1];
        if (cstart[k] + next[k] < cstart[k + 1]) {
            unsigned c = child[cstart[k] + next[k]++];
            dt->tin[c] = clock++;
            istack[top++] = c;
        } else {
            dt->tout[k] = clock++;
            top--;
        }
    }
out:
    fmag_tmp_free(blocks);
    fmag_tmp_free(state);
    fmag_tmp_free(stack);
    fmag_tmp_free(next);
    fmag_tmp_free(istack);
    fmag_preds_free(&preds);
    fmag_tmp_free(cstart);
    fmag_tmp_free(child);
    if (!ok) fmag_domtree_free(dt);
    if (ok && !succs) f->valid |= FMAG_VALID_DOMINANCE;
    return ok;
}

bool fmag_domtree_reachable(const fmag_domtree *dt, const fmag_block *b)
{
    return b->id < dt->nblocks && dt->rpo_index[b->id] != FMAG_DOM_UNREACHABLE;
}

bool fmag_domtree_dominates(const fmag_domtree *dt, const fmag_block *a, const fmag_block *b)
{
    fmag_func_assert_valid(dt->f, FMAG_VALID_DOMINANCE);
    if (!fmag_domtree_reachable(dt, a) || !fmag_domtree_reachable(dt, b)) return false;
    unsigned ia = dt->rpo_index[a->id], ib = dt->rpo_index[b->id];
    return dt->tin[ia] <= dt->tin[ib] && dt->tout[ib] <= dt->tout[ia];
}
