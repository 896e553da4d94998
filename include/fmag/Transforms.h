/* FMAG Transforms: the optimization passes, their registry and the pipelines.
 *
 * Every pass is one file in lib/Transforms and one line in Passes.def. A pass
 * returns a fmag_pass_status: whether it changed the IR, or that it failed. A pass
 * that cannot proceed (recursion, a loop, a budget, an allocation that failed)
 * records a diagnostic in the context and returns FMAG_PASS_FAILED, and the pass
 * manager stops. Running a pass twice in a row returns FMAG_PASS_UNCHANGED the
 * second time.
 */
#ifndef FMAG_TRANSFORMS_H
#define FMAG_TRANSFORMS_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include "fmag/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a pass did. FAILED always comes with at least one diagnostic in the
 * context; the IR is then valid but may be partly transformed. */
typedef enum fmag_pass_status {
    FMAG_PASS_UNCHANGED = 0,
    FMAG_PASS_CHANGED = 1,
    FMAG_PASS_FAILED = 2,
} fmag_pass_status;

/* One prototype per registered pass. */
#define FMAG_FUNC_PASS(NAME, FN, DESC) fmag_pass_status FN(fmag_func *f);
#define FMAG_MODULE_PASS(NAME, FN, DESC) fmag_pass_status FN(fmag_module *m);
#define FMAG_PIPELINE(NAME, PASSES, DESC)
#include "fmag/Passes.def"
#undef FMAG_FUNC_PASS
#undef FMAG_MODULE_PASS
#undef FMAG_PIPELINE

typedef struct fmag_pass_info {
    const char *name; /* the flag without '-', as in `-passes=` */
    const char *desc;
    fmag_pass_status (*run_func)(fmag_func *f); /* exactly one of these is set */
    fmag_pass_status (*run_module)(fmag_module *m);
} fmag_pass_info;

typedef struct fmag_pipeline_info {
    const char *name;   /* "O0", "O1", "O2" */
    const char *passes; /* comma-separated pass names */
    const char *desc;
} fmag_pipeline_info;

size_t fmag_pass_count(void);
const fmag_pass_info *fmag_pass_get(size_t i);
const fmag_pass_info *fmag_pass_lookup(const char *name);
size_t fmag_pipeline_count(void);
const fmag_pipeline_info *fmag_pipeline_get(size_t i);
const fmag_pipeline_info *fmag_pipeline_lookup(const char *name);

typedef struct fmag_pass_options {
    /* Run the verifier after every pass and stop on failure: > 0 on, < 0 off, 0 the
     * build's default (fmag_pass_verify_each_default: on in Debug builds). */
    int verify_each;
    bool print_after_all; /* print the module to `log` after every pass */
    bool stats;           /* per pass: instructions before/after, changed or not */
    bool time_passes;     /* per pass wall time */
    unsigned print_flags; /* fmag_print_flags for print_after_all */
    FILE *log;            /* where print/stats/time go (the caller's stream); NULL = none */
    /* -loop-unroll: the most instructions a function may reach by unrolling (a
     * diagnostic beyond it); 0 keeps the module's setting, by default the
     * context's (fmag_context_unroll_budget). */
    size_t max_unroll_instrs;
    size_t inline_budget; /* max instructions of a function after inlining; 0 = the
                             context's (FMAG_DEFAULT_INLINE_BUDGET unless set) */
    /* -opt-bisect-limit=N (LLVM's): when opt_bisect is set, only the first
     * opt_bisect_limit pass applications run. An application is a function pass on
     * one function or a module pass on the module, counted from 1 in the order the
     * pipeline (pipelines expanded) runs them; each is logged to `log` as
     *   BISECT: running pass (N) cse on function (@f)
     *   BISECT: NOT running pass (N) dce on module
     * so that a miscompile can be bisected to the one application that makes it. */
    bool opt_bisect;
    unsigned long long opt_bisect_limit;
    /* Called after every pass of the pipeline has run on the module (before
     * -print-after-all and -verify-each look at it): instrumentation, and tests
     * that need IR broken at a chosen point. NULL: none. */
    void (*after_pass)(fmag_module *m, const char *pass, void *user);
    void *after_pass_user;
} fmag_pass_options;

/* Whether -verify-each is on when fmag_pass_options.verify_each is 0: true in Debug
 * builds (CMAKE_BUILD_TYPE=Debug defines FMAG_VERIFY_EACH_DEFAULT for
 * lib/Transforms), false otherwise. */
bool fmag_pass_verify_each_default(void);

/* Runs a comma-separated list of pass or pipeline names ("inline,cse" or "O2").
 * Returns false with diagnostics in the module's context when a name is unknown, a
 * pass reports an error, or -verify-each finds the IR broken. */
bool fmag_run_passes(fmag_module *m, const char *pipeline, const fmag_pass_options *opts);
/* Brings a module into the form codegen accepts (every function an export of one
 * block without calls or phis) by running inline,loop-unroll,ternary,ifconvert,dce,
 * unless it is in that form already (as after -O2 on most programs). Returns false
 * with diagnostics in the module's context when a pass fails. */
bool fmag_prepare_codegen(fmag_module *m, const fmag_pass_options *opts);

/* Runs one registered pass on the whole module (a function pass on every function,
 * even after one failed, so that each function's diagnostics are reported).
 * FAILED when it failed on any function, else CHANGED when it changed any. */
fmag_pass_status fmag_pass_run(const fmag_pass_info *p, fmag_module *m);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_TRANSFORMS_H */
