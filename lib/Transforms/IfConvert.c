/* If-conversion: predicate whatever acyclic control flow is left into one block.
 *
 * Every block gets a predicate value, > 0 exactly when the block runs: the entry's
 * is 1.0; an edge out of a block with predicate p and `br g` is `select g, 0, p`
 * (taken arm; just g when p is the literal 1.0) or `select 0, p, g` (other arm:
 * p unless g > 0); a block with several predecessors ORs its incoming edges with
 * `select p, e, p`. Then, in reverse postorder, every block's instructions move
 * into the entry block (they are pure, so running them on every input is safe), a
 * phi becomes a chain of selects over its incoming edges' predicates, and the
 * returns (early ones included) merge into one `ret` of selects over the
 * returning blocks' predicates. A loop (a back edge) is a diagnostic: the pass
 * stops and changes nothing. Unreachable blocks are dropped first.
 *
 * Legal (strict): on any input exactly one path runs; along it every predicate is
 * > 0 for the blocks and edges taken and <= 0 for all others, so each select picks
 * the value the original phi or ret saw. A predicate only ever reads a guard g of a
 * block under `p > 0`, that is when the original ran that block and computed g
 * (finite on the inputs the contract covers); predicates of blocks that did not run
 * are literal zeros or a `p <= 0` value, never an inf or NaN leaking through. Values
 * from blocks that did not run may be anything, but only flow into selects that
 * discard them. Selects add only `x*1 + 0`, which changes the sign of a zero at
 * most.
 *
 *   ^entry: br %c, ^early, ^rest            ^entry:
 *   ^early: ret %x                    ->      %1 = add %x, 1.0
 *   ^rest:  %1 = add %x, 1.0                  %2 = select %x, %1, %c
 *           ret %1                            ret %2
 *
 * Requires: no loops; calls only to non-recursive functions (they are pure and get
 * executed on every input). Preserves: the values; leaves a single block.
 */
#include "CFG.h"
#include "OptUtil.h"
#include "fmag/Transforms.h"

#include <stdlib.h>

typedef struct bstate {
    fmag_block *const *preds; /* taken before any terminator goes */
    unsigned npreds;
    fmag_value *pred;
    fmag_block *succ[2];
    fmag_value *edge[2];
    unsigned nsucc;
} bstate;

static fmag_value *edge_of(fmag_block *from, fmag_block *to)
{
    bstate *st = from->aux;
    for (unsigned k = 0; k < st->nsucc; k++)
        if (st->succ[k] == to) return st->edge[k];
    return NULL;
}

static fmag_value *sel(fmag_builder *b, fmag_value *t, fmag_value *f, fmag_value *g)
{
    if (t == f) return t;
    return fmag_build_select_typed(b, t, f, g);
}

static bool has_calls(fmag_func *f)
{
    fmag_foreach_block (b, f) {
        fmag_foreach_instr (i, b) {
            if (i->op == FMAG_OP_CALL) return true;
        }
    }
    return false;
}

fmag_pass_status fmag_opt_ifconvert(fmag_func *f)
{
    if (!f->first) return FMAG_PASS_UNCHANGED;
    fmag_block *from, *to;
    if (fmag_cfg_find_back_edge(f, &from, &to)) {
        char b1[80], b2[80];
        fmag_context_error(f->module->ctx,
                           "error: in function @%s, block %s: loop (back edge from %s) cannot "
                           "be if-converted; -loop-unroll removes loops whose trip count is a "
                           "constant",
                           f->name, fmag_cfg_block_name(to, b1, sizeof b1),
                           fmag_cfg_block_name(from, b2, sizeof b2));
        return FMAG_PASS_FAILED;
    }
    if (has_calls(f) && fmag_module_has_recursion(f->module)) return FMAG_PASS_FAILED;
    bool changed = fmag_cfg_remove_unreachable(f);
    if (!f->first->next) return fmag_ou_status(changed);

    fmag_domtree dt;
    fmag_preds preds;
    if (!fmag_domtree_build(f, &dt)) {
        fmag_context_out_of_memory(f->module->ctx, "ifconvert");
        return FMAG_PASS_FAILED;
    }
    if (!fmag_preds_build(f, NULL, 0, &preds)) {
        fmag_domtree_free(&dt);
        fmag_context_out_of_memory(f->module->ctx, "ifconvert");
        return FMAG_PASS_FAILED;
    }
    bstate *st = fmag_tmp_calloc(dt.n, sizeof(*st));
    fmag_instr **rets = fmag_tmp_calloc(dt.n, sizeof(*rets));
    fmag_value **ret_pred = fmag_tmp_calloc(dt.n, sizeof(*ret_pred));
    if (!st || !rets || !ret_pred) {
        fmag_tmp_free(st);
        fmag_tmp_free(rets);
        fmag_tmp_free(ret_pred);
        fmag_domtree_free(&dt);
        fmag_preds_free(&preds);
        fmag_context_out_of_memory(f->module->ctx, "ifconvert");
        return FMAG_PASS_FAILED;
    }
    fmag_module *m = f->module;
    fmag_value *one = fmag_module_const(m, 1.0f), *zero = fmag_module_const(m, 0.0f);
    fmag_block *entry = f->first;
    fmag_builder bld;
    fmag_builder_at_end(&bld, entry);
    unsigned nrets = 0;
    for (unsigned bi = 0; bi < dt.n; bi++) {
        st[bi].preds = fmag_preds_of(&preds, dt.rpo[bi]);
        st[bi].npreds = fmag_preds_count(&preds, dt.rpo[bi]);
    }

    for (unsigned bi = 0; bi < dt.n; bi++) {
        fmag_block *b = dt.rpo[bi];
        b->aux = &st[bi];
        /* The entry's terminator is removed before anything is appended to it. */
        fmag_instr *term = fmag_block_terminator(b);
        if (term) fmag_instr_remove(term);
        fmag_value *p = one;
        if (bi > 0) {
            p = NULL;
            for (unsigned k = 0; k < st[bi].npreds; k++) {
                fmag_value *e = edge_of(st[bi].preds[k], b);
                p = p ? sel(&bld, p, e, p) : e;
            }
            if (!p) p = zero;
        }
        st[bi].pred = p;
        fmag_foreach_instr (i, b) {
            if (i->op != FMAG_OP_PHI) break;
            fmag_value *r = i->ops[i->nops - 1].value;
            for (unsigned k = i->nops - 1; k-- > 0;)
                r = sel(&bld, i->ops[k].value, r, edge_of(i->phi_blocks[k], b));
            fmag_value_replace_all_uses(&i->results[0], r);
            fmag_instr_erase(i);
        }
        if (b != entry)
            fmag_foreach_instr (i, b) {
                fmag_instr_remove(i);
                fmag_block_append(entry, i);
            }
        if (!term) continue;
        if (term->op == FMAG_OP_RET) {
            rets[nrets] = term;
            ret_pred[nrets++] = p;
            continue;
        }
        if (term->op == FMAG_OP_JMP || term->targets[0] == term->targets[1]) {
            st[bi].nsucc = 1;
            st[bi].succ[0] = term->targets[0];
            st[bi].edge[0] = p;
        } else {
            fmag_value *g = term->ops[0].value;
            st[bi].nsucc = 2;
            st[bi].succ[0] = term->targets[0];
            st[bi].succ[1] = term->targets[1];
            st[bi].edge[0] = p == one ? g : fmag_build_select(&bld, g, zero, p);
            st[bi].edge[1] = fmag_build_select(&bld, zero, p, g);
        }
        fmag_instr_erase(term);
    }

    if (nrets) {
        fmag_instr *last = rets[nrets - 1];
        fmag_instr *ret = fmag_instr_create(f, FMAG_OP_RET, last->nops, 0);
        for (unsigned k = 0; k < last->nops; k++) {
            fmag_value *r = last->ops[k].value;
            for (unsigned j = nrets - 1; j-- > 0;)
                r = sel(&bld, rets[j]->ops[k].value, r, ret_pred[j]);
            fmag_instr_set_op(ret, k, r);
        }
        for (unsigned j = 0; j < nrets; j++)
            fmag_instr_erase(rets[j]);
        fmag_block_append(entry, ret);
    }
    for (fmag_block *b = entry->next, *nx; b; b = nx) {
        nx = b->next;
        fmag_block_erase(b);
    }
    entry->aux = NULL;
    fmag_tmp_free(st);
    fmag_tmp_free(rets);
    fmag_tmp_free(ret_pred);
    fmag_domtree_free(&dt);
    fmag_preds_free(&preds);
    return FMAG_PASS_CHANGED;
}
