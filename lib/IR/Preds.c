/* Predecessors: the one way the library computes them (the verifier, the dominator
 * tree, fmag_block_preds and the passes all call fmag_preds_build).
 *
 * A CFG edge is a terminator's target that is a block of the function (the
 * verifier runs this on IR it has not checked: a NULL target, or one in another
 * function, is no edge), and a br whose arms are one block is one edge, so each
 * block's list holds distinct predecessors. */
#include "IRInternal.h"

#include <string.h>

unsigned fmag_ir_edges(fmag_succs_fn fn, void *user, const fmag_block *b, fmag_block *const *blocks,
                       unsigned nb, fmag_block *s[2])
{
    fmag_block *t[2];
    unsigned nt = fn ? fn(user, b, t) : fmag_block_succs(b, t), n = 0;
    for (unsigned k = 0; k < nt; k++) {
        fmag_block *x = t[k];
        if (!x || x->id >= nb || blocks[x->id] != x) continue;
        if (n == 1 && s[0] == x) continue; /* both arms to one block: one edge */
        s[n++] = x;
    }
    return n;
}

void fmag_func_number_blocks(fmag_func *f)
{
    unsigned id = 0;
    fmag_foreach_block (b, f)
        b->id = id++;
    f->nblocks = id;
    f->valid |= FMAG_VALID_BLOCK_IDS;
}

bool fmag_preds_build(fmag_func *f, fmag_block *const *from, unsigned nfrom, fmag_preds *p)
{
    return fmag_preds_build_with(f, NULL, NULL, from, nfrom, p);
}

bool fmag_preds_build_with(fmag_func *f, fmag_succs_fn fn, void *user, fmag_block *const *from,
                           unsigned nfrom, fmag_preds *p)
{
    memset(p, 0, sizeof(*p));
    fmag_func_number_blocks(f);
    unsigned nb = p->nblocks = f->nblocks;
    fmag_block **blocks = fmag_tmp_malloc((nb + 1) * sizeof(*blocks));
    unsigned *fill = fmag_tmp_calloc(nb + 1, sizeof(*fill));
    p->start = fmag_tmp_calloc(nb + 2, sizeof(*p->start));
    p->list = fmag_tmp_malloc((2 * (size_t)nb + 1) * sizeof(*p->list));
    bool ok = blocks && fill && p->start && p->list;
    if (ok) {
        unsigned id = 0;
        fmag_foreach_block (b, f)
            blocks[id++] = b;
        if (!from) {
            from = blocks;
            nfrom = nb;
        }
        for (unsigned i = 0; i < nfrom; i++) {
            fmag_block *s[2];
            unsigned ns = fmag_ir_edges(fn, user, from[i], blocks, nb, s);
            for (unsigned k = 0; k < ns; k++)
                p->start[s[k]->id + 1]++;
        }
        for (unsigned i = 0; i < nb; i++)
            p->start[i + 1] += p->start[i];
        for (unsigned i = 0; i < nfrom; i++) {
            fmag_block *s[2];
            unsigned ns = fmag_ir_edges(fn, user, from[i], blocks, nb, s);
            for (unsigned k = 0; k < ns; k++)
                p->list[p->start[s[k]->id] + fill[s[k]->id]++] = from[i];
        }
    }
    fmag_tmp_free(blocks);
    fmag_tmp_free(fill);
    if (!ok) fmag_preds_free(p);
    if (ok && !fn) f->valid |= FMAG_VALID_PREDS;
    return ok;
}

void fmag_preds_free(fmag_preds *p)
{
    fmag_tmp_free(p->start);
    fmag_tmp_free(p->list);
    memset(p, 0, sizeof(*p));
}

unsigned fmag_block_preds(fmag_block *b, fmag_block ***preds)
{
    fmag_func *f = b->func;
    fmag_preds p;
    *preds = NULL;
    if (!fmag_preds_build(f, NULL, 0, &p)) {
        fmag_context_out_of_memory(f->module->ctx, "fmag_block_preds");
        return 0;
    }
    unsigned n = fmag_preds_count(&p, b);
    fmag_block **arr = n ? fmag_context_alloc(f->module->ctx, n * sizeof(*arr)) : NULL;
    if (arr) memcpy(arr, fmag_preds_of(&p, b), n * sizeof(*arr));
    fmag_preds_free(&p);
    *preds = arr;
    return arr ? n : 0;
}
