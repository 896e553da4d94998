/* FMAG CodeGen: lowering of a single-block export function to the FMAG stream,
 * with scheduling and register allocation (docs/CodeGen.md). */
#ifndef FMAG_CODEGEN_H
#define FMAG_CODEGEN_H

#include "fmag/IR.h"
#include "fmag/VM.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fmag_codegen_stats {
    unsigned instrs;   /* emitted instructions */
    unsigned regs;     /* registers used (the header's regs) */
    unsigned max_live; /* live-register maximum of the emitted stream: at some point this
                        * many registers hold a value read later (program start included) */
    unsigned moves;    /* copies added for fallbacks and the output shuffle */
    unsigned consts;   /* literals materialized into registers */
    unsigned variants; /* schedule/orientation/policy combinations tried */
} fmag_codegen_stats;

/* Lowers export function f (which must be one block; run -O2 first) and appends
 * one program named after it to img. Returns false with a diagnostic in the
 * context when f is not lowerable. stats may be NULL. f is not modified except
 * for fmag_func_renumber. */
bool fmag_codegen_func(fmag_func *f, fmag_vm_image *img, fmag_codegen_stats *stats);
/* Lowers every export function, in module order, one record each. */
bool fmag_codegen_module(fmag_module *m, fmag_vm_image *img);

#ifdef __cplusplus
}
#endif
#endif /* FMAG_CODEGEN_H */
