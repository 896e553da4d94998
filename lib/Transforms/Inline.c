/* Inlining: every call is replaced by a copy of its callee, leaf first, until each
 * function is call-free; then the functions that are not exported are dropped.
 *
 * Matches every `call`. The calling block is split after the call; the callee's
 * blocks are cloned in between (parameters read the arguments), each `ret` becomes
 * a `jmp` to the continuation, and the call's results become the returned values
 * (one `ret`) or phis over the returning blocks (several). Callees are processed
 * before their callers (a post-order of the call graph), so each body is cloned
 * already flat and no call is ever cloned. A recursive module is a diagnostic
 * ("error: ... recursion ...", from the verifier's cycle check) and the pass stops
 * without changing anything. When the module has no export, nothing is dropped.
 *
 * Legal (strict, bit for bit): a call is exactly the evaluation of the callee's body
 * on the arguments; functions have no side effects.
 *
 *   func @sq(%x) -> 1 { ^e: %0 = mul %x, %x
 *                           ret %0 }
 *   export func @f(%a) -> 1 {          export func @f(%a) -> 1 {
 *   ^entry:                            ^entry:
 *     %r = call @sq(%a)          ->      jmp ^bb1
 *     ret %r                           ^bb1:
 *   }                                    %0 = mul %a, %a
 *                                        jmp ^bb2
 *                                      ^bb2:
 *                                        ret %0
 *                                      }
 * (-ternary or -constfold's CFG cleanup then merges the straight-line blocks.)
 *
 * Budget: inlining copies bodies, so a chain of functions that each call the
 * previous one twice doubles per level (a 1 KB file can ask for 2^25 instructions).
 * Before each call is cloned the caller's size after it is checked against the
 * context's inline budget (fmag_context_inline_budget: the most instructions one
 * function may have after inlining); going over is a diagnostic naming the function
 * and the budget, and the pass stops. The check costs nothing extra: callees are
 * processed first, so their final sizes are known when their callers are.
 *
 * Requires: a verified module. Preserves: nothing about the CFG.
 */
#include "CFG.h"
#include "OptUtil.h"
#include "fmag/Transforms.h"

#include <stdlib.h>

/* Returns false (with a diagnostic, nothing changed) when out of memory. */
static bool inline_call(fmag_instr *call)
{
    fmag_block *cb = call->block;
    fmag_func *f = cb->func, *g = call->callee;
    unsigned nrets = 0;
    fmag_foreach_block (b, g)
        fmag_foreach_instr (i, b)
            nrets += i->op == FMAG_OP_RET;
    fmag_instr **rets = fmag_tmp_calloc(nrets ? nrets : 1, sizeof(*rets));
    fmag_value **args = fmag_tmp_malloc((call->nops + 1) * sizeof(*args));
    if (!rets || !args) {
        fmag_tmp_free(rets);
        fmag_tmp_free(args);
        fmag_context_out_of_memory(f->module->ctx, "inline");
        return false;
    }

    fmag_block *cont = fmag_block_create_after(f, cb, NULL);
    for (fmag_instr *i = call->next, *nx; i; i = nx) {
        nx = i->next;
        fmag_instr_remove(i);
        fmag_block_append(cont, i);
    }
    fmag_block *s[2];
    unsigned ns = fmag_block_succs(cont, s);
    for (unsigned k = 0; k < ns; k++)
        fmag_cfg_phi_rename_block(s[k], cb, cont);

    /* The callee's blocks go between cb and cont; its parameters read the call's
     * arguments, its rets jump to cont. */
    for (unsigned k = 0; k < call->nops; k++)
        args[k] = call->ops[k].value;
    fmag_clone_opts o = {args, cont, false, false};
    fmag_block *entry = fmag_clone_body(f, cb, g, &o);
    unsigned nr = 0;
    fmag_foreach_block (b, g)
        fmag_foreach_instr (i, b) {
            if (i->op == FMAG_OP_RET) rets[nr++] = i;
        }

    fmag_instr *last_phi = NULL;
    for (unsigned r = 0; r < call->nresults; r++) {
        fmag_value *v;
        if (nr == 1) {
            v = fmag_clone_map_value(g, f, &o, rets[0]->ops[r].value);
        } else {
            fmag_instr *phi = fmag_instr_create(f, FMAG_OP_PHI, 0, 1);
            phi->results[0].type = call->results[r].type;
            if (last_phi)
                fmag_instr_insert_after(last_phi, phi);
            else if (cont->first)
                fmag_instr_insert_before(cont->first, phi);
            else
                fmag_block_append(cont, phi);
            last_phi = phi;
            for (unsigned k = 0; k < nr; k++)
                fmag_phi_add_incoming(phi, fmag_clone_map_value(g, f, &o, rets[k]->ops[r].value),
                                      ((fmag_instr *)rets[k]->aux)->block);
            v = &phi->results[0];
        }
        fmag_value_replace_all_uses(&call->results[r], v);
    }
    fmag_tmp_free(rets);
    fmag_tmp_free(args);

    fmag_instr_erase(call);
    fmag_instr *j = fmag_instr_create(f, FMAG_OP_JMP, 0, 0);
    j->targets[0] = entry;
    fmag_block_append(cb, j);
    fmag_foreach_block (b, g) {
        b->aux = NULL;
        fmag_foreach_instr (i, b)
            i->aux = NULL;
    }
    return true;
}

/* Post-order over the call graph: callees before callers. */
static void post_order(fmag_func *f, fmag_func **out, size_t *n)
{
    if (f->aux) return;
    f->aux = f;
    fmag_foreach_block (b, f) {
        fmag_foreach_instr (i, b) {
            if (i->op == FMAG_OP_CALL && i->callee) post_order(i->callee, out, n);
        }
    }
    out[(*n)++] = f;
}

fmag_pass_status fmag_opt_inline(fmag_module *m)
{
    if (fmag_module_has_recursion(m)) return FMAG_PASS_FAILED;
    size_t nf = 0;
    bool has_export = false;
    fmag_foreach_func (f, m) {
        f->aux = NULL;
        nf++;
        has_export |= f->is_export;
    }
    fmag_context *ctx = m->ctx;
    size_t budget = fmag_context_inline_budget(ctx);
    fmag_func **order = fmag_tmp_calloc(nf ? nf : 1, sizeof(*order));
    size_t *sizes = fmag_tmp_calloc(nf ? nf : 1, sizeof(*sizes));
    if (!order || !sizes) {
        fmag_tmp_free(order);
        fmag_tmp_free(sizes);
        fmag_context_out_of_memory(ctx, "inline");
        return FMAG_PASS_FAILED;
    }
    size_t n = 0;
    /* With exports, only what they reach: the rest is dropped below, and a bomb
     * that no export calls must not stop the compile. */
    fmag_foreach_func (f, m) {
        if (f->is_export || !has_export) post_order(f, order, &n);
    }
    /* From here on f->aux points at the function's size after inlining. */
    for (size_t k = 0; k < n; k++)
        order[k]->aux = &sizes[k];
    bool changed = false, failed = false;
    /* The budget bounds the module too: the exports (every function without exports)
     * after inlining, added up as each is done, so that a bomb spread over many
     * exports, each under the budget, stops as well. */
    size_t total = 0;
    for (size_t k = 0; k < n && !failed; k++) {
        fmag_func *f = order[k];
        bool counted = f->is_export || !has_export;
        /* Last call first: each split then moves only the few instructions up to the
         * call inlined before it, not the whole rest of the block again. */
        size_t ncalls = 0;
        fmag_foreach_block (b, f)
            fmag_foreach_instr (i, b) {
                ncalls += i->op == FMAG_OP_CALL;
                sizes[k]++;
            }
        /* Inlined already (spirv-opt's inliner, for SPIR-V from GLSL) or written so: the
         * budget is on the function, whoever made it that large. */
        if (sizes[k] > budget) {
            fmag_context_error(ctx,
                               "error: @%s has %zu instructions, over the inline budget of %zu "
                               "instructions (-inline-budget=N; fmag_context_set_inline_budget)",
                               f->name, sizes[k], budget);
            failed = true;
            break;
        }
        fmag_instr **calls = fmag_tmp_malloc((ncalls ? ncalls : 1) * sizeof(*calls));
        if (!calls) {
            fmag_context_out_of_memory(ctx, "inline");
            failed = true;
            break;
        }
        size_t c = 0;
        fmag_foreach_block (b, f) {
            fmag_foreach_instr (i, b) {
                if (i->op == FMAG_OP_CALL) calls[c++] = i;
            }
        }
        while (c-- > 0) {
            /* The call becomes a jmp, the callee's rets jmps, its results phis. */
            size_t grown = sizes[k] + *(size_t *)calls[c]->callee->aux + calls[c]->nresults;
            if (grown > budget) {
                fmag_context_error(ctx,
                                   "error: inlining @%s into @%s exceeds the inline budget "
                                   "of %zu instructions (-inline-budget=N; "
                                   "fmag_context_set_inline_budget)",
                                   calls[c]->callee->name, f->name, budget);
                failed = true;
                break;
            }
            if (counted && total + grown > budget) {
                fmag_context_error(ctx,
                                   "error: inlining @%s into @%s makes the module's exports "
                                   "exceed the inline budget of %zu instructions, which bounds "
                                   "the module as well as each function (-inline-budget=N; "
                                   "fmag_context_set_inline_budget)",
                                   calls[c]->callee->name, f->name, budget);
                failed = true;
                break;
            }
            sizes[k] = grown;
            if (!inline_call(calls[c])) {
                failed = true;
                break;
            }
            changed = true;
        }
        fmag_tmp_free(calls);
        if (counted) total += sizes[k];
    }
    fmag_foreach_func (f, m)
        f->aux = NULL;
    fmag_tmp_free(order);
    fmag_tmp_free(sizes);
    if (failed) return FMAG_PASS_FAILED;
    if (has_export) {
        fmag_foreach_func (f, m) {
            if (!f->is_export) {
                fmag_func_erase(f);
                changed = true;
            }
        }
    }
    return fmag_ou_status(changed);
}
