/* The pass registry (generated from Passes.def) and the pass manager behind
 * fmag-opt's -passes=, -O pipelines, -verify-each, -print-after-all, -stats and
 * -time-passes. */
#include "fmag/Math.h"
#include "fmag/Transforms.h"

#include <assert.h>
#include <string.h>
#include <time.h>

static const fmag_pass_info passes[] = {
#define FMAG_FUNC_PASS(NAME, FN, DESC) {NAME, DESC, FN, NULL},
#define FMAG_MODULE_PASS(NAME, FN, DESC) {NAME, DESC, NULL, FN},
#define FMAG_PIPELINE(NAME, PASSES, DESC)
#include "fmag/Passes.def"
#undef FMAG_FUNC_PASS
#undef FMAG_MODULE_PASS
#undef FMAG_PIPELINE
};

static const fmag_pipeline_info pipelines[] = {
#define FMAG_FUNC_PASS(NAME, FN, DESC)
#define FMAG_MODULE_PASS(NAME, FN, DESC)
#define FMAG_PIPELINE(NAME, PASSES, DESC) {NAME, PASSES, DESC},
#include "fmag/Passes.def"
#undef FMAG_FUNC_PASS
#undef FMAG_MODULE_PASS
#undef FMAG_PIPELINE
};

size_t fmag_pass_count(void)
{
    return sizeof passes / sizeof passes[0];
}
const fmag_pass_info *fmag_pass_get(size_t i)
{
    return i < fmag_pass_count() ? &passes[i] : NULL;
}

/* The first letters first: every compile looks up each pass of its pipeline by name. */
const fmag_pass_info *fmag_pass_lookup(const char *name)
{
    for (size_t i = 0; i < fmag_pass_count(); i++)
        if (passes[i].name[0] == name[0] && !strcmp(passes[i].name, name)) return &passes[i];
    return NULL;
}

size_t fmag_pipeline_count(void)
{
    return sizeof pipelines / sizeof pipelines[0];
}
const fmag_pipeline_info *fmag_pipeline_get(size_t i)
{
    return i < fmag_pipeline_count() ? &pipelines[i] : NULL;
}

const fmag_pipeline_info *fmag_pipeline_lookup(const char *name)
{
    for (size_t i = 0; i < fmag_pipeline_count(); i++)
        if (pipelines[i].name[0] == name[0] && !strcmp(pipelines[i].name, name))
            return &pipelines[i];
    return NULL;
}

fmag_pass_status fmag_pass_run(const fmag_pass_info *p, fmag_module *m)
{
    if (p->run_module) return p->run_module(m);
    bool changed = false, failed = false;
    fmag_foreach_func (f, m) {
        fmag_pass_status st = p->run_func(f);
        changed |= st == FMAG_PASS_CHANGED;
        failed |= st == FMAG_PASS_FAILED;
    }
    return failed ? FMAG_PASS_FAILED : changed ? FMAG_PASS_CHANGED : FMAG_PASS_UNCHANGED;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

bool fmag_pass_verify_each_default(void)
{
#ifdef FMAG_VERIFY_EACH_DEFAULT
    return true;
#else
    return false;
#endif
}

/* Whether a pass can leave an aux field set: every pass but those that, with all they
 * call, write no aux at all (half of -O2's applications). The aux check after a pass
 * costs a walk of the module (8 % of -O2 when it followed every pass); after these it
 * runs where asserts are on or -verify-each is, so that the test suite, which runs
 * every pass in such builds, catches one that starts using aux without leaving
 * this list. */
static bool pass_may_set_aux(const fmag_pass_info *p)
{
    static fmag_pass_status (*const no_aux[])(fmag_func *) = {
        fmag_opt_constfold, fmag_opt_fuse, fmag_opt_canon, fmag_opt_cse, fmag_opt_reassoc,
    };
    for (size_t i = 0; i < sizeof no_aux / sizeof no_aux[0]; i++)
        if (p->run_func == no_aux[i]) return false;
    return true;
}

/* Whether running the pass a second time right after the first would change nothing:
 * constfold, dce and superopt-peephole run to their fixed points; cse merges each
 * instruction, in dominator order, with any earlier dominating one of the same key,
 * and a key is final when it is built (its operands' definitions come before it and
 * were merged already), so no pair is left for a second run. Where such a pass ran
 * and no pass changed the module since, the pipeline skips it (-O2's second cse on
 * the MaterialX graphs: 7 % of the pipeline); where asserts are on it runs and must
 * report no change, so the test suite checks the claim. */
static bool pass_is_idempotent(const fmag_pass_info *p)
{
    return p->run_func == fmag_opt_constfold || p->run_func == fmag_opt_cse ||
           p->run_func == fmag_opt_dce || p->run_func == fmag_opt_superopt_peephole;
}

/* Passes whose work is calls, control flow, derivative placeholders and integers, so
 * that a flat module (module_is_flat) leaves them nothing to do: -O2 opens with six
 * of them, which on the flat code the MaterialX and SL frontends make cost more
 * (with the aux check after each) than constant folding. Skipped there like the
 * idempotent reruns, and with asserts on run and checked to change nothing. */
static bool pass_needs_structure(const fmag_pass_info *p)
{
    return p->run_module == fmag_opt_derivatives || p->run_module == fmag_opt_inline ||
           p->run_func == fmag_opt_loop_unroll || p->run_func == fmag_opt_ternary ||
           p->run_func == fmag_opt_simplifycfg || p->run_func == fmag_opt_ifconvert ||
           p->run_func == fmag_opt_legalize_int;
}

/* Every function an export whose one block ends in ret, with no call, phi or integer
 * (operation or value) and no more instructions than the inline budget (over it
 * -inline fails even without calls), and no derivative placeholder (-derivatives
 * works on their calls): what derivatives, inline, loop-unroll, ternary, simplifycfg,
 * ifconvert and legalize-int leave as they find it. */
static bool module_is_flat(fmag_module *m)
{
    if (fmag_module_get_func(m, FMAG_DFDX_NAME) || fmag_module_get_func(m, FMAG_DFDY_NAME))
        return false;
    size_t budget = fmag_context_inline_budget(m->ctx);
    fmag_foreach_func (f, m) {
        const fmag_block *b = f->first;
        if (!f->is_export || !b || b != f->last || !b->last || b->last->op != FMAG_OP_RET)
            return false;
        for (unsigned k = 0; k < f->nparams; k++)
            if (f->params[k].type == FMAG_TYPE_I32) return false;
        for (unsigned k = 0; k < f->nresults; k++)
            if (fmag_func_result_type(f, k) == FMAG_TYPE_I32) return false;
        size_t n = 0;
        for (const fmag_instr *i = b->first; i; i = i->next, n++) {
            /* fmag instructions of one f32 result, and the ret (the last) */
            if (i->op == FMAG_OP_FMAG && i->nresults == 1 && i->results[0].type == FMAG_TYPE_F32)
                continue;
            if (i->op != FMAG_OP_RET) return false;
        }
        if (n > budget) return false;
    }
    return true;
}

enum { NPASSES = sizeof passes / sizeof passes[0] };

/* One fmag_run_passes call: its options, how many pass applications -opt-bisect has
 * counted so far, and for the idempotent passes' skipping: how many applications
 * changed the module, and per pass that count + 1 when it last ran (0: not yet). */
typedef struct pm_run {
    const fmag_pass_options *opts;
    bool verify_each;
    bool check_all_aux; /* after every pass, not only those that may set one */
    bool may_skip;      /* nothing watches each pass (stats, timing, printing, bisection,
                           after_pass) */
    unsigned long long applications;
    unsigned long long changes;
    unsigned long long clean_at[NPASSES];
    unsigned long long flat_at; /* changes + 1 when `flat` was found; 0: not yet */
    bool flat;
} pm_run;

/* Whether running p now could only leave the module as it is (see above). */
static bool pass_would_keep(pm_run *r, fmag_module *m, const fmag_pass_info *p)
{
    if (!r->may_skip) return false;
    if (pass_is_idempotent(p) && r->clean_at[p - passes] == r->changes + 1) return true;
    if (!pass_needs_structure(p)) return false;
    if (r->flat_at != r->changes + 1) {
        r->flat = module_is_flat(m);
        r->flat_at = r->changes + 1;
    }
    return r->flat;
}

static bool bisect_allows(pm_run *r, const char *pass, const char *func)
{
    unsigned long long n = ++r->applications;
    bool run = n <= r->opts->opt_bisect_limit;
    if (r->opts->log) {
        fprintf(r->opts->log, "BISECT: %s pass (%llu) %s on ", run ? "running" : "NOT running", n,
                pass);
        if (func)
            fprintf(r->opts->log, "function (@%s)\n", func);
        else
            fprintf(r->opts->log, "module\n");
    }
    return run;
}

/* fmag_pass_run, one application at a time, under -opt-bisect-limit. */
static fmag_pass_status run_bisected(const fmag_pass_info *p, fmag_module *m, pm_run *r)
{
    if (p->run_module)
        return bisect_allows(r, p->name, NULL) ? p->run_module(m) : FMAG_PASS_UNCHANGED;
    bool changed = false, failed = false;
    fmag_foreach_func (f, m) {
        if (!bisect_allows(r, p->name, f->name)) continue;
        fmag_pass_status st = p->run_func(f);
        changed |= st == FMAG_PASS_CHANGED;
        failed |= st == FMAG_PASS_FAILED;
    }
    return failed ? FMAG_PASS_FAILED : changed ? FMAG_PASS_CHANGED : FMAG_PASS_UNCHANGED;
}

/* Expands pipeline names recursively (bounded depth: a pipeline naming itself is an
 * error, not a hang) and runs each pass. */
static bool run_list(fmag_module *m, const char *list, pm_run *r, int depth)
{
    const fmag_pass_options *opts = r->opts;
    fmag_context *ctx = m->ctx;
    if (depth > 8) {
        fmag_context_error(ctx, "error: pipeline nesting too deep in '%s'", list);
        return false;
    }
    const char *s = list;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        char name[64];
        if (n == 0 || n >= sizeof name || (e && !e[1])) { /* "a,,b", ",a", "a," */
            fmag_context_error(ctx, "error: bad pass name in pipeline '%s'", list);
            return false;
        }
        memcpy(name, s, n);
        name[n] = 0;
        s += n + (e ? 1 : 0);

        const fmag_pipeline_info *pl = fmag_pipeline_lookup(name);
        if (pl) {
            if (!run_list(m, pl->passes, r, depth + 1)) return false;
            continue;
        }
        const fmag_pass_info *p = fmag_pass_lookup(name);
        if (!p) {
            fmag_context_error(ctx, "error: unknown pass '%s' (see --help for the list)", name);
            return false;
        }
        size_t pi = (size_t)(p - passes);
        bool keeps = pass_would_keep(r, m, p);
#ifdef NDEBUG
        if (keeps) continue;
#endif
        FILE *log = opts ? opts->log : NULL;
        /* Counting and timing only when asked: they are module walks and clock reads
         * that a JIT compile should not pay (docs/PERFORMANCE.md, bench/slc). */
        bool stats = log && opts->stats, timing = log && opts->time_passes;
        size_t before = stats ? fmag_module_num_instrs(m) : 0;
        size_t diags = fmag_context_diag_count(ctx);
        double t0 = timing ? now_ms() : 0;
        fmag_pass_status st =
            opts && opts->opt_bisect ? run_bisected(p, m, r) : fmag_pass_run(p, m);
        double t1 = timing ? now_ms() : 0;
        /* A pass that records an error fails, and one that fails says why. */
        assert((st == FMAG_PASS_FAILED) == (fmag_context_diag_count(ctx) != diags));
        (void)diags;
        if (st == FMAG_PASS_FAILED) return false;
        bool changed = st == FMAG_PASS_CHANGED;
        assert(!(keeps && changed) && "pass_would_keep: a skippable pass changed the module");
        (void)keeps;
        r->changes += changed;
        r->clean_at[pi] = r->changes + 1;
        /* aux is scratch owned for one call: every pass clears what it set (IR.h). A
         * stale aux is a library bug that would show only where it is read, so this is
         * checked in every build, not only where assert is on (pass_may_set_aux). */
        if (r->check_all_aux || pass_may_set_aux(p))
            fmag_foreach_func (f, m) {
                if (!fmag_func_aux_clear(f)) {
                    fmag_context_error(ctx, "internal: pass '%s' left an aux field set in @%s",
                                       p->name, f->name);
                    return false;
                }
            }
        if (opts && opts->after_pass) opts->after_pass(m, p->name, opts->after_pass_user);
        size_t after = stats ? fmag_module_num_instrs(m) : 0;
        if (stats)
            fprintf(log, "stats: %-12s instrs %zu -> %zu (%+ld)%s\n", p->name, before, after,
                    (long)after - (long)before, changed ? " changed" : " unchanged");
        if (timing) fprintf(log, "time: %-12s %10.3f ms\n", p->name, t1 - t0);
        if (log && opts->print_after_all) {
            fprintf(log, "; *** IR after %s ***\n", p->name);
            fmag_module_print(m, log, opts->print_flags);
        }
        if (r->verify_each && !fmag_verify_module(m)) {
            fmag_context_error(ctx, "error: module is invalid after pass '%s'", p->name);
            return false;
        }
    }
    return true;
}

static bool fmag_run_passes_unguarded(fmag_module *m, const char *pipeline,
                                      const fmag_pass_options *opts)
{
    /* Whoever built the module (a frontend, the parser) cleared every aux it set. */
    fmag_foreach_func (f, m) {
        if (!fmag_func_aux_clear(f)) {
            fmag_context_error(m->ctx, "internal: @%s reached the passes with an aux field set",
                               f->name);
            return false;
        }
    }
    if (opts && opts->max_unroll_instrs) m->max_unroll_instrs = opts->max_unroll_instrs;
    if (opts && opts->inline_budget) fmag_context_set_inline_budget(m->ctx, opts->inline_budget);
    bool verify_each =
        opts && opts->verify_each ? opts->verify_each > 0 : fmag_pass_verify_each_default();
    pm_run r;
    memset(&r, 0, sizeof r);
    r.opts = opts;
    r.verify_each = verify_each;
#ifdef NDEBUG
    r.check_all_aux = verify_each;
#else
    r.check_all_aux = true;
#endif
    r.may_skip =
        !opts || !(opts->opt_bisect || opts->after_pass ||
                   (opts->log && (opts->stats || opts->time_passes || opts->print_after_all)));
    return run_list(m, pipeline, &r, 0);
}

/* The guarded entry point: an allocation failure inside ends in false with a
 * diagnostic (fmag_context_guard). */
struct fmag_run_passes_args {
    fmag_module *m;
    const char *pipeline;
    const fmag_pass_options *opts;
    bool result;
};

static void fmag_run_passes_thunk(void *arg)
{
    struct fmag_run_passes_args *a = arg;
    a->result = fmag_run_passes_unguarded(a->m, a->pipeline, a->opts);
}

bool fmag_run_passes(fmag_module *m, const char *pipeline, const fmag_pass_options *opts)
{
    struct fmag_run_passes_args a = {m, pipeline, opts, false};
    return fmag_context_guard(m->ctx, fmag_run_passes_thunk, &a) ? a.result : false;
}

static bool codegen_ready(fmag_module *m)
{
    fmag_foreach_func (f, m) {
        if (!f->is_export || f->first != f->last) return false;
        fmag_foreach_instr (i, f->first)
            if (i->op == FMAG_OP_CALL || i->op == FMAG_OP_PHI || i->op == FMAG_OP_INT) return false;
    }
    return true;
}

bool fmag_prepare_codegen(fmag_module *m, const fmag_pass_options *opts)
{
    return codegen_ready(m) ||
           fmag_run_passes(m, "derivatives,inline,loop-unroll,ternary,ifconvert,legalize-int,dce",
                           opts);
}
