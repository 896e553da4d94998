/* The lowering driver: builds the DAG once, then tries every combination of arm
 * orientation, schedule and register policy and keeps the stream with the fewest
 * instructions, then the fewest registers (the first found on ties, so the
 * result is deterministic). Each try is one linear scan, so this stays cheap. */
#include "CGInternal.h"

#include <stdlib.h>
#include <string.h>

static bool better(const cg_result *a, const cg_result *b)
{
    if (a->ncode != b->ncode)
        return a->ncode < b->ncode;
    return a->regs < b->regs;
}

bool fmag_codegen_func(fmag_func *f, fmag_vm_image *img, fmag_codegen_stats *stats)
{
    fmag_context *ctx = f->module->ctx;
    cg_dag base;
    if (!cg_dag_build(f, &base))
        return false;
    cg_result best;
    memset(&best, 0, sizeof best);
    bool have = false, oom = false;
    unsigned variants = 0;
    unsigned *order = malloc(sizeof *order * (base.nnodes + 1));
    unsigned *prev = malloc(sizeof *prev * (base.nnodes + 1));
    if (!order || !prev)
        oom = true;
    for (int orient = 0; orient < 3 && !oom; orient++) {
        cg_dag g;
        if (!cg_dag_copy(&base, &g)) {
            oom = true;
            break;
        }
        unsigned flips = cg_dag_orient(&g, orient);
        if (orient > 0 && flips == 0) {
            cg_dag_free(&g);
            continue; /* same DAG as orientation 0 */
        }
        cg_dag_fuse_select_arm(&g);
        cg_dag_dce(&g);
        int nprev = -1;
        for (int kind = 0; kind < 3 && !oom; kind++) {
            int n = cg_schedule(&g, kind, order);
            if (n < 0) {
                oom = true;
                break;
            }
            if (n == nprev && !memcmp(order, prev, sizeof *order * (unsigned)n))
                continue;
            memcpy(prev, order, sizeof *order * (unsigned)n);
            nprev = n;
            for (int policy = 0; policy < 4; policy++) {
                cg_result r;
                variants++;
                if (!cg_regalloc(&g, order, (unsigned)n, policy, &r)) {
                    continue;
                }
                if (!have || better(&r, &best)) {
                    cg_result_free(&best);
                    best = r;
                    have = true;
                } else {
                    cg_result_free(&r);
                }
            }
        }
        cg_dag_free(&g);
    }
    free(order);
    free(prev);
    unsigned nin = base.nin, nout = base.nout;
    cg_dag_free(&base);
    if (!have) {
        fmag_context_error(ctx,
                           "error: in function @%s: codegen: %s", f->name,
                           oom ? "out of memory" : "more than 65535 registers needed");
        return false;
    }
    fmag_vm_instr *code = malloc(sizeof *code * (best.ncode + 1));
    bool ok = code != NULL;
    char err[256] = "out of memory";
    for (unsigned i = 0; ok && i < best.ncode; i++)
        ok = fmag_vm_encode(&best.code[i], &code[i], err, sizeof err);
    if (ok)
        ok = fmag_vm_image_add(img, f->name, f->module->fastmath ? FMAG_VM_FLAG_FASTMATH : 0,
                               (uint16_t)best.regs, (uint16_t)nin, (uint16_t)nout, code, best.ncode);
    if (!ok)
        fmag_context_error(ctx, "error: in function @%s: codegen: %s", f->name, err);
    if (ok && stats) {
        stats->instrs = best.ncode;
        stats->regs = best.regs;
        stats->max_live = best.max_live;
        stats->moves = best.moves;
        stats->consts = best.consts;
        stats->variants = variants;
    }
    free(code);
    cg_result_free(&best);
    return ok;
}

bool fmag_codegen_module(fmag_module *m, fmag_vm_image *img)
{
    fmag_foreach_func(f, m) {
        if (f->is_export && !fmag_codegen_func(f, img, NULL))
            return false;
    }
    return true;
}
