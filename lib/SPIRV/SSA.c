/* SSA construction for variables, after Braun, Buchwald, Hack, Leißa, Mallon and
 * Zwinkau, "Simple and Efficient Construction of Static Single Assignment Form"
 * (CC 2013): every scalar leaf of a variable is a slot; a block maps slots to
 * their current value; a read in a block whose predecessors are not all filled
 * yet gets an incomplete phi that sealing the block completes. Trivial phis are
 * removed once the function is complete (removing them earlier would leave
 * stale values in the reader's own tables). */
#include <string.h>
#include "SPIRVInternal.h"

ssa_block *ssa_block_new(spv_reader *r, fmag_block *ir, uint32_t spv_label)
{
    ssa_block *sb = fmag_context_alloc(r->ctx, sizeof *sb);
    sb->ir = ir;
    sb->spv_label = spv_label;
    ir->aux = sb;
    return sb;
}

void ssa_add_pred(spv_reader *r, ssa_block *b, fmag_block *pred)
{
    if (b->npreds == b->cappreds) {
        unsigned cap = b->cappreds ? 2 * b->cappreds : 4;
        fmag_block **p = fmag_context_alloc(r->ctx, cap * sizeof *p);
        if (b->npreds) memcpy(p, b->preds, b->npreds * sizeof *p);
        b->preds = p;
        b->cappreds = cap;
    }
    b->preds[b->npreds++] = pred;
    b->unfilled++;
    ssa_block *pb = pred->aux;
    if (pb->nsuccs < 2) pb->succs[pb->nsuccs++] = b->ir; /* a lowered switch too: two at most */
}

static fmag_value **slot_ref(spv_reader *r, ssa_block *b, uint32_t slot, bool insert)
{
    if (b->count * 2 + 2 > b->cap) {
        if (!insert && !b->cap) return NULL;
        if (insert) {
            unsigned cap = b->cap ? 2 * b->cap : 16;
            uint32_t *keys = fmag_context_alloc(r->ctx, cap * sizeof *keys);
            fmag_value **vals = fmag_context_alloc(r->ctx, cap * sizeof *vals);
            for (unsigned i = 0; i < b->cap; i++) {
                if (!b->keys[i]) continue;
                unsigned h = (b->keys[i] * 2654435761u) & (cap - 1);
                while (keys[h])
                    h = (h + 1) & (cap - 1);
                keys[h] = b->keys[i];
                vals[h] = b->vals[i];
            }
            b->keys = keys;
            b->vals = vals;
            b->cap = cap;
        }
    }
    if (!b->cap) return NULL;
    uint32_t key = slot + 1;
    unsigned h = (key * 2654435761u) & (b->cap - 1);
    while (b->keys[h]) {
        if (b->keys[h] == key) return &b->vals[h];
        h = (h + 1) & (b->cap - 1);
    }
    if (!insert) return NULL;
    b->keys[h] = key;
    b->count++;
    return &b->vals[h];
}

void ssa_write(spv_reader *r, fmag_block *b, uint32_t slot, fmag_value *v)
{
    *slot_ref(r, b->aux, slot, true) = v;
}

static fmag_instr *new_phi(spv_reader *r, fmag_block *b, uint32_t slot)
{
    fmag_instr *phi = fmag_instr_create(b->func, FMAG_OP_PHI, 0, 1);
    phi->results[0].type = r->slot_types[slot];
    if (b->first)
        fmag_instr_insert_before(b->first, phi);
    else
        fmag_block_append(b, phi);
    return phi;
}

static void add_operands(spv_reader *r, ssa_block *sb, uint32_t slot, fmag_instr *phi)
{
    for (unsigned k = 0; k < sb->npreds; k++)
        fmag_phi_add_incoming(phi, ssa_read(r, sb->preds[k], slot), sb->preds[k]);
}

fmag_value *ssa_read(spv_reader *r, fmag_block *b, uint32_t slot)
{
    /* Walk single-predecessor chains iteratively (they can be long). */
    fmag_block *top = b;
    for (;;) {
        ssa_block *sb = top->aux;
        fmag_value **ref = slot_ref(r, sb, slot, false);
        if (ref) {
            fmag_value *v = *ref;
            for (fmag_block *x = b; x != top; x = ((ssa_block *)x->aux)->preds[0])
                ssa_write(r, x, slot, v);
            return v;
        }
        if (sb->sealed && sb->npreds == 1) {
            top = sb->preds[0];
            continue;
        }
        break;
    }
    ssa_block *sb = top->aux;
    fmag_value *v;
    if (!sb->sealed) {
        fmag_instr *phi = new_phi(r, top, slot);
        ssa_phi *p = fmag_context_alloc(r->ctx, sizeof *p);
        p->slot = slot;
        p->phi = phi;
        p->next = sb->incomplete;
        sb->incomplete = p;
        v = fmag_instr_result(phi);
        ssa_write(r, top, slot, v);
    } else if (sb->npreds == 0) {
        v = spv_zero(r, r->slot_types[slot]); /* read before any write: undefined */
        ssa_write(r, top, slot, v);
    } else {
        fmag_instr *phi = new_phi(r, top, slot);
        v = fmag_instr_result(phi);
        ssa_write(r, top, slot, v);
        add_operands(r, sb, slot, phi);
    }
    for (fmag_block *x = b; x != top; x = ((ssa_block *)x->aux)->preds[0])
        ssa_write(r, x, slot, v);
    return v;
}

void ssa_seal(spv_reader *r, fmag_block *b)
{
    ssa_block *sb = b->aux;
    if (sb->sealed) return;
    for (ssa_phi *p = sb->incomplete; p; p = p->next)
        add_operands(r, sb, p->slot, p->phi);
    sb->incomplete = NULL;
    sb->sealed = true;
}

void ssa_filled(spv_reader *r, fmag_block *b)
{
    ssa_block *sb = b->aux;
    sb->filled = true;
    fmag_block *succ[2];
    unsigned n = fmag_block_succs(b, succ);
    for (unsigned k = 0; k < n; k++) {
        ssa_block *s = succ[k]->aux;
        if (s->unfilled && --s->unfilled == 0) ssa_seal(r, succ[k]);
    }
}

void ssa_remove_trivial_phis(fmag_func *f)
{
    bool changed = true;
    while (changed) {
        changed = false;
        fmag_foreach_block (b, f) {
            fmag_foreach_instr (i, b) {
                if (i->op != FMAG_OP_PHI) continue;
                fmag_value *self = fmag_instr_result(i), *same = NULL;
                bool trivial = true;
                for (unsigned k = 0; k < i->nops && trivial; k++) {
                    fmag_value *v = fmag_instr_op(i, k);
                    if (v == self || v == same) continue;
                    if (same) trivial = false;
                    same = v;
                }
                if (!trivial) continue;
                if (!same) same = fmag_module_const_bits(f->module, self->type, 0);
                fmag_value_replace_all_uses(self, same);
                fmag_instr_erase(i);
                changed = true;
            }
        }
    }
}
