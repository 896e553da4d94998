/* Helpers shared by the optimization passes: dead-instruction erasure (the operand
 * predicates are inline in OptUtil.h). */
#include "OptUtil.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* True when none of i's results has a use. */
static bool unused(const fmag_instr *i)
{
    for (unsigned k = 0; k < i->nresults; k++)
        if (i->results[k].uses) return false;
    return true;
}

/* Calls are pure in this IR (no memory, no traps), so a dead call goes like a dead
 * fmag; terminators never do. */
unsigned fmag_ou_erase_if_dead(fmag_instr *i)
{
    if (!i->block || fmag_instr_is_terminator(i) || !unused(i)) return 0;
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
            n += fmag_ou_erase_if_dead(v->def);
    }
    if (ops != small) fmag_tmp_free(ops);
    return n;
}

void fmag_ou_replace_and_erase(fmag_instr *i, fmag_value *v)
{
    fmag_value_replace_all_uses(&i->results[0], v);
    fmag_ou_erase_if_dead(i);
}

fmag_value *fmag_ou_build_before(fmag_instr *pos, fmag_value *a, fmag_value *b, fmag_value *c,
                                 fmag_value *d, fmag_value *e)
{
    fmag_builder bld;
    bld.module = pos->block->func->module;
    fmag_builder_before(&bld, pos);
    return fmag_build_fmag(&bld, a, b, c, d, e);
}
