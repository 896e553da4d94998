/* CFG edits and queries shared by the passes: phi edge bookkeeping, a branch
 * becoming a jump, block names for diagnostics, and the back-edge search. */
#include "CFG.h"

#include <stdio.h>

void fmag_cfg_phi_rename_block(fmag_block *succ, fmag_block *from, fmag_block *to)
{
    fmag_foreach_instr (i, succ) {
        if (i->op != FMAG_OP_PHI) break;
        for (unsigned k = 0; k < i->nops; k++)
            if (i->phi_blocks[k] == from) i->phi_blocks[k] = to;
    }
}

void fmag_cfg_phi_drop_block(fmag_block *succ, fmag_block *from)
{
    fmag_foreach_instr (i, succ) {
        if (i->op != FMAG_OP_PHI) break;
        for (unsigned k = i->nops; k-- > 0;)
            if (i->phi_blocks[k] == from) fmag_phi_remove_incoming(i, k);
    }
}

void fmag_cfg_make_jmp(fmag_instr *t, fmag_block *target)
{
    fmag_instr *j = fmag_instr_create(t->block->func, FMAG_OP_JMP, 0, 0);
    j->targets[0] = target;
    fmag_instr_insert_before(t, j);
    fmag_instr_erase(t);
}

const char *fmag_cfg_block_name(const fmag_block *b, char *buf, size_t len)
{
    if (b->name)
        snprintf(buf, len, "^%s", b->name);
    else
        snprintf(buf, len, "^bb%u", b->id);
    return buf;
}

/* ------------------------------------------------------------- back edges */

bool fmag_cfg_find_back_edge(fmag_func *f, fmag_block **from, fmag_block **to)
{
    fmag_func_number_blocks(f);
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
