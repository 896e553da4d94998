/* Dead code elimination.
 *
 * Matches: any fmag, phi or call whose results have no uses. Such an instruction
 * has no effect besides its results (the machine has no memory and no traps), so
 * dropping it cannot change any output, in strict or fast-math mode.
 *
 *   %0 = add %a, %b        ; unused         ->   (gone)
 *   ret %a                                       ret %a
 *
 * Works from the bottom of each block up and repeats until nothing changes, so
 * chains of dead values, and phis that only feed each other in a cycle across
 * blocks, go too: the latter through a mark phase from the live roots
 * (terminators) rather than use counts.
 * Requires: nothing. Preserves: the CFG (terminators are never removed).
 */
#include "fmag/Transforms.h"

#include <stdlib.h>

/* An instruction (other than a terminator) whose results are all unused. */
static bool unused(const fmag_instr *i)
{
    if (fmag_instr_is_terminator(i)) return false;
    for (unsigned k = 0; k < i->nresults; k++)
        if (i->results[k].uses) return false;
    return true;
}

/* A block that ends in `ret` and holds no phi, the whole function (the flat code of
 * -O2): uses come after their definitions and there are no cycles, so one walk from
 * the bottom up, erasing what has no use left, erases what the mark phase would leave
 * unmarked, and the same instructions stay in the same order with the same uses. */
static bool dce_straight(fmag_block *b)
{
    bool changed = false;
    for (fmag_instr *i = b->last, *prev; i; i = prev) {
        prev = i->prev;
        if (unused(i)) {
            fmag_instr_erase(i);
            changed = true;
        }
    }
    return changed;
}

static bool is_straight(const fmag_func *f)
{
    const fmag_block *b = f->first;
    if (!b || b != f->last || !b->last || b->last->op != FMAG_OP_RET) return false;
    for (const fmag_instr *i = b->first; i; i = i->next)
        if (i->op == FMAG_OP_PHI) return false;
    return true;
}

fmag_pass_status fmag_opt_dce(fmag_func *f)
{
    if (is_straight(f)) return dce_straight(f->first) ? FMAG_PASS_CHANGED : FMAG_PASS_UNCHANGED;
    /* Mark: every instruction reachable through operands from a terminator is live. */
    size_t n = fmag_func_num_instrs(f);
    if (!n) return FMAG_PASS_UNCHANGED;
    fmag_instr **work = fmag_tmp_malloc(n * sizeof(*work));
    if (!work) {
        fmag_context_out_of_memory(f->module->ctx, "dce");
        return FMAG_PASS_FAILED;
    }
    size_t top = 0;
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b) {
            i->aux = NULL;
            if (fmag_instr_is_terminator(i)) {
                i->aux = i;
                work[top++] = i;
            }
        }
    while (top) {
        fmag_instr *i = work[--top];
        for (unsigned k = 0; k < i->nops; k++) {
            fmag_value *v = i->ops[k].value;
            if (v && v->kind == FMAG_VALUE_RESULT && v->def && !v->def->aux) {
                v->def->aux = v->def;
                work[top++] = v->def;
            }
        }
    }
    fmag_tmp_free(work);
    /* Sweep: drop operands of every dead instruction first, so dead cycles unlink. The
     * marks (instructions' aux, the only aux this pass sets) are cleared on the way. */
    bool changed = false;
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b)
            if (!i->aux) {
                fmag_instr_erase(i);
                changed = true;
            } else {
                i->aux = NULL;
            }
    return changed ? FMAG_PASS_CHANGED : FMAG_PASS_UNCHANGED;
}
