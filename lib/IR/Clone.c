/* The one body cloner: fmag_module_clone copies every function with it, and
 * -inline copies a callee into its caller with it.
 *
 * Blocks first (so that targets and phi blocks can be mapped), then every
 * instruction with its results, then operands: a phi may name a value defined
 * later in the body. While it runs, and after it returns, each block and
 * instruction of src points at its copy through `aux` (the caller clears them
 * with fmag_func_clear_aux). */
#include "fmag/IR.h"

fmag_value *fmag_clone_map_value(const fmag_func *src, fmag_func *dst, const fmag_clone_opts *o,
                                 fmag_value *v)
{
    if (!v) return NULL;
    switch (v->kind) {
    case FMAG_VALUE_CONST:
        return src->module == dst->module ? v
                                          : fmag_module_const_bits(dst->module, v->type, v->ibits);
    case FMAG_VALUE_PARAM:
        return o->params[v->index];
    case FMAG_VALUE_RESULT:
        break;
    }
    fmag_instr *copy = v->def->aux;
    return &copy->results[v->index];
}

fmag_block *fmag_clone_body(fmag_func *dst, fmag_block *after, fmag_func *src,
                            const fmag_clone_opts *o)
{
    fmag_foreach_block (b, src) {
        fmag_block *nb = fmag_block_create_like(dst, after, b);
        b->aux = nb;
        if (after) after = nb;
    }
    fmag_foreach_block (b, src) {
        fmag_foreach_instr (i, b) {
            fmag_instr *c;
            if (i->op == FMAG_OP_RET && o->ret_to) {
                c = fmag_instr_create(dst, FMAG_OP_JMP, 0, 0);
                c->targets[0] = o->ret_to;
            } else {
                c = fmag_instr_create(dst, i->op, i->op == FMAG_OP_PHI ? 0 : i->nops, i->nresults);
                for (unsigned k = 0; k < 2; k++)
                    c->targets[k] = i->targets[k] ? i->targets[k]->aux : NULL;
                c->callee = i->callee && o->map_callees ? i->callee->aux : i->callee;
                c->iop = i->iop;
                for (unsigned k = 0; k < i->nresults; k++)
                    c->results[k].type = i->results[k].type;
                if (o->names)
                    for (unsigned k = 0; k < i->nresults; k++)
                        c->results[k].name = i->results[k].name;
            }
            fmag_block_append(b->aux, c);
            i->aux = c;
        }
    }
    fmag_foreach_block (b, src) {
        fmag_foreach_instr (i, b) {
            fmag_instr *c = i->aux;
            if (i->op == FMAG_OP_RET && o->ret_to) continue;
            if (i->op == FMAG_OP_PHI) {
                for (unsigned k = 0; k < i->nops; k++)
                    fmag_phi_add_incoming(c, fmag_clone_map_value(src, dst, o, i->ops[k].value),
                                          i->phi_blocks[k]->aux);
            } else {
                for (unsigned k = 0; k < i->nops; k++)
                    fmag_instr_set_op(c, k, fmag_clone_map_value(src, dst, o, i->ops[k].value));
            }
        }
    }
    return src->first ? src->first->aux : NULL;
}
