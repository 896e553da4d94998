/* FMAG CodeGen: lowering of a single-block export function to the FMAG stream,
 * with scheduling and register allocation (docs/CodeGen.md). */
#ifndef FMAG_CODEGEN_H
#define FMAG_CODEGEN_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

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

/* How hard lowering searches (docs/CodeGen.md, "Effort"). FULL tries every arm
 * orientation, relu form, schedule and register policy and then improves the
 * winner by local search: the fewest instructions, then registers (SPEC §4).
 * FAST allocates two schedules (greedy list, depth-first) with one register
 * policy and no local search: two linear allocation passes, for compiling at run
 * time (JIT); the stream is as correct and a few instructions longer at most
 * (docs/CodeGen.md, "Effort", has the measurements). */
typedef enum fmag_codegen_effort {
    FMAG_CODEGEN_FULL = 0,
    FMAG_CODEGEN_FAST = 1,
} fmag_codegen_effort;

typedef struct fmag_codegen_options {
    fmag_codegen_effort effort;
} fmag_codegen_options;

/* Lowers export function f (which must be one block; run -O2 first) and appends
 * one program named after it to img. Returns false with a diagnostic in the
 * context when f is not lowerable. stats may be NULL. f is not modified except
 * for fmag_func_renumber. */
bool fmag_codegen_func(fmag_func *f, fmag_vm_image *img, fmag_codegen_stats *stats);
/* Lowers every export function, in module order, one record each. */
bool fmag_codegen_module(fmag_module *m, fmag_vm_image *img);
/* The same with options (NULL = defaults = FMAG_CODEGEN_FULL). */
bool fmag_codegen_func_with(fmag_func *f, fmag_vm_image *img, fmag_codegen_stats *stats,
                            const fmag_codegen_options *opts);
bool fmag_codegen_module_with(fmag_module *m, fmag_vm_image *img, const fmag_codegen_options *opts);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_CODEGEN_H */
