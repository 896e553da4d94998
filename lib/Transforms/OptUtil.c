/* Helpers shared by the optimization passes: dead-instruction cleanup, CFG cleanup
 * (constant branches, unreachable blocks, block merging, forwarding blocks) and
 * back-edge search. Dominators live in lib/IR/Dominance.c. */
#include "OptUtil.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

bool fmag_opt_unused(const fmag_instr *i)
{
    for (unsigned k = 0; k < i->nresults; k++)
        if (i->results[k].uses) return false;
    return true;
}

/* Calls are pure in this IR (no memory, no traps), so a dead call goes like a dead
 * fmag; terminators never do. */
unsigned fmag_opt_erase_if_dead(fmag_instr *i)
{
    if (!i->block || fmag_instr_is_terminator(i) || !fmag_opt_unused(i)) return 0;
    unsigned n = 1, nops = i->nops;
    fmag_value *small[8];
    fmag_value **ops = nops <= 8 ? small : fmag_tmp_malloc(nops * sizeof(*ops));
    if (!ops) {
        fmag_instr_erase(i);
        return 1;
    }
    for (unsigned k = 0; k < nops; k++)
        ops[k] = i->ops[k].value;
    fmag_instr_erase(i);
    for (unsigned k = 0; k < nops; k++) {
        fmag_value *v = ops[k];
        if (v && v->kind == FMAG_VALUE_RESULT && v->def && v->def != i)
            n += fmag_opt_erase_if_dead(v->def);
    }
    if (ops != small) fmag_tmp_free(ops);
    return n;
}

void fmag_opt_replace_and_erase(fmag_instr *i, fmag_value *v)
{
    fmag_value_replace_all_uses(&i->results[0], v);
    fmag_opt_erase_if_dead(i);
}

fmag_value *fmag_opt_build_before(fmag_instr *pos, fmag_value *a, fmag_value *b, fmag_value *c,
                                  fmag_value *d, fmag_value *e)
{
    fmag_builder bld;
    bld.module = pos->block->func->module;
    fmag_builder_before(&bld, pos);
    return fmag_build_fmag(&bld, a, b, c, d, e);
}

void fmag_opt_phi_rename_block(fmag_block *succ, fmag_block *from, fmag_block *to)
{
    fmag_foreach_instr(i, succ)
    {
        if (i->op != FMAG_OP_PHI) break;
        for (unsigned k = 0; k < i->nops; k++)
            if (i->phi_blocks[k] == from) i->phi_blocks[k] = to;
    }
}

void fmag_opt_phi_drop_block(fmag_block *succ, fmag_block *from)
{
    fmag_foreach_instr(i, succ)
    {
        if (i->op != FMAG_OP_PHI) break;
        for (unsigned k = i->nops; k-- > 0;)
            if (i->phi_blocks[k] == from) fmag_phi_remove_incoming(i, k);
    }
}

void fmag_opt_make_jmp(fmag_instr *t, fmag_block *target)
{
    fmag_instr *j = fmag_instr_create(t->block->func, FMAG_OP_JMP, 0, 0);
    j->targets[0] = target;
    fmag_instr_insert_before(t, j);
    fmag_instr_erase(t);
}

const char *fmag_opt_block_name(const fmag_block *b, char *buf, size_t len)
{
    if (b->name)
        snprintf(buf, len, "^%s", b->name);
    else
        snprintf(buf, len, "^bb%u", b->id);
    return buf;
}

/* Dense block ids only: the CFG helpers index by block, and renumbering every
 * value as well (fmag_func_renumber) was the biggest single cost of -O2 on large
 * single-block functions. */
static void number_blocks(fmag_func *f)
{
    unsigned id = 0;
    fmag_foreach_block(b, f) b->id = id++;
    f->nblocks = id;
}

/* ------------------------------------------------------------- back edges */

bool fmag_opt_find_back_edge(fmag_func *f, fmag_block **from, fmag_block **to)
{
    number_blocks(f);
    unsigned nb = f->nblocks;
    unsigned char *state = fmag_tmp_calloc(nb + 1, 1);
    fmag_block **stack = fmag_tmp_malloc((nb + 1) * sizeof(*stack));
    unsigned *edge = fmag_tmp_calloc(nb + 1, sizeof(*edge));
    bool found = false;
    if (!state || !stack || !edge || !f->first) goto out;
    unsigned top = 0;
    stack[top++] = f->first;
    state[f->first->id] = 1;
    while (top && !found) {
        fmag_block *b = stack[top - 1];
        fmag_block *s[2];
        unsigned ns = fmag_block_succs(b, s);
        if (edge[b->id] < ns) {
            fmag_block *c = s[edge[b->id]++];
            if (state[c->id] == 1) {
                *from = b;
                *to = c;
                found = true;
            } else if (!state[c->id]) {
                state[c->id] = 1;
                stack[top++] = c;
            }
        } else {
            state[b->id] = 2;
            top--;
        }
    }
out:
    fmag_tmp_free(state);
    fmag_tmp_free(stack);
    fmag_tmp_free(edge);
    return found;
}
