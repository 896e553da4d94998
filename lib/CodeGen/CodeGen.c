/* The lowering driver: builds the DAG once, then tries every combination of arm
 * orientation, relu form, schedule and register policy and keeps the stream with
 * the fewest instructions, then the fewest registers (the first found on ties, so
 * the result is deterministic), then improves the winner's schedule by local
 * search. Each try is one linear scan, so this stays cheap; big programs get a
 * reduced set. Two shortcuts keep the result exactly that of trying everything: a
 * try stops once it cannot beat the best so far (cg_regalloc's bound), and a
 * policy is skipped when it differs from one already run on the same order only by
 * a bit that none of that run's decisions depended on (cg_result.sensitive). */
#include "CGInternal.h"

#include <stdlib.h>
#include <string.h>

/* Local search on the winning schedule: move one node to each other legal
 * position and keep the move when it strictly improves (instructions, then
 * registers). Bounded so that lowering stays linear-ish on big programs. */
#define CG_IMPROVE_MAX_NODES 120u
/* Above this, fewer policies; above the next, two orientations and two policies. */
#define CG_FULL_SEARCH_MAX_NODES 100u
#define CG_MEDIUM_SEARCH_MAX_NODES 1000u
#define CG_IMPROVE_BUDGET 6000u
/* ... and about this many node visits in all (each try visits n nodes). */
#define CG_IMPROVE_WORK 12000u
/* FMAG_CODEGEN_FAST: the DAG as built, two schedules (greedy list scheduling, and
 * depth-first), the default register policy: two allocation passes. Depth-first is
 * there for wide programs, where the list schedule alone takes many times the
 * registers; the measurements are in docs/PERFORMANCE.md (bench/slc). */
#define CG_FAST_SCHEDULES ((1u << CG_SCHED_LIST) | (1u << CG_SCHED_DEPTH_FIRST))

/* The shape of the DAG a try lowers: select arms (cg_dag_orient), relu form
 * (cg_dag_relu_flip). */
typedef struct cg_shape {
    cg_arms arms;
    bool relu_flip;
} cg_shape;

/* The register policies a try runs: every subset of the first `bits` policy bits
 * (cg_policy_bit), in increasing order. */
#define CG_POLICY_BITS_FULL 4u
#define CG_POLICY_BITS_MEDIUM 2u
#define CG_POLICY_BITS_BIG 1u

static bool policy_is_useless(cg_policy policy)
{
    /* refines reservations that NO_RESERVE drops */
    return (policy & CG_POLICY_SHUFFLE_UNRESERVED) && (policy & CG_POLICY_NO_RESERVE);
}

/* Whether `policy` allocates exactly as a smaller one already run on the same order:
 * policy minus one bit that none of that run's decisions depended on. Policies run
 * in increasing order, so sensitive[] holds every smaller one (all bits set for one
 * that was skipped or failed). */
static bool same_as_smaller(cg_policy policy, const cg_policy *sensitive)
{
    for (unsigned b = 0; b < CG_POLICY_BITS; b++) {
        cg_policy bit = 1u << b;
        if ((policy & bit) && !(sensitive[policy & ~bit] & bit)) return true;
    }
    return false;
}

static bool uses_value(const cg_node *n, int v)
{
    for (unsigned k = 0; k < 5; k++)
        if (n->op[k].v == v) return true;
    return false;
}

static unsigned improve(const cg_dag *g, unsigned *order, unsigned n, cg_policy policy,
                        cg_result *best)
{
    if (n < 2 || n > CG_IMPROVE_MAX_NODES) return 0;
    unsigned *trial = fmag_tmp_malloc(sizeof *trial * n);
    if (!trial) return 0;
    unsigned budget = CG_IMPROVE_WORK / n;
    if (budget > CG_IMPROVE_BUDGET) budget = CG_IMPROVE_BUDGET;
    unsigned tries = 0;
    bool progress = true;
    while (progress && tries < budget) {
        progress = false;
        for (unsigned i = 0; i < n && tries < budget; i++) {
            unsigned node = order[i];
            int x = (int)(g->nin + node);
            /* Legal window: after the last operand's definition, before the first user. */
            unsigned lo = 0, hi = n - 1;
            for (unsigned k = 0; k < i; k++)
                if (uses_value(&g->nodes[node], (int)(g->nin + order[k]))) lo = k + 1;
            for (unsigned k = n; k-- > i + 1;)
                if (uses_value(&g->nodes[order[k]], x)) hi = k - 1;
            for (unsigned j = lo; j <= hi && tries < budget; j++) {
                if (j == i) continue;
                /* trial = order with node moved from i to j */
                unsigned w = 0;
                for (unsigned k = 0; k < n; k++) {
                    if (k == i) continue;
                    if (w == j) trial[w++] = node;
                    trial[w++] = order[k];
                }
                if (w == j) trial[w++] = node;
                cg_result r;
                tries++;
                if (cg_regalloc(g, trial, n, policy, 0, best, &r) != CG_RA_DONE) continue;
                if (cg_result_better(&r, best)) {
                    cg_result_free(best);
                    *best = r;
                    memcpy(order, trial, sizeof *order * n);
                    progress = true;
                    node = order[i];
                    x = (int)(g->nin + node);
                    break;
                }
                cg_result_free(&r);
            }
        }
    }
    fmag_tmp_free(trial);
    return tries;
}

static bool fmag_codegen_func_with_unguarded(fmag_func *f, fmag_vm_image *img,
                                             fmag_codegen_stats *stats,
                                             const fmag_codegen_options *opts)
{
    bool fast = opts && opts->effort == FMAG_CODEGEN_FAST;
    fmag_context *ctx = f->module->ctx;
    cg_dag base;
    /* FMAG_CODEGEN_FAST: the use counts as built, for the fold below */
    unsigned *uses = NULL;
    if (!cg_dag_build(f, &base, fast ? &uses : NULL)) return false;
    cg_result best;
    memset(&best, 0, sizeof best);
    bool have = false, oom = false;
    unsigned variants = 0;
    /* cg_dag_relu_flip may add one node per node. */
    size_t cap = 2 * (size_t)base.nnodes + 2;
    unsigned *order = fmag_tmp_malloc(sizeof *order * cap);
    unsigned *prev = fmag_tmp_malloc(sizeof *prev * cap);
    unsigned *best_order = fmag_tmp_malloc(sizeof *best_order * cap);
    cg_shape best_shape = {CG_ARMS_AS_BUILT, false};
    cg_policy best_policy = 0;
    unsigned best_n = 0;
    if (!order || !prev || !best_order) oom = true;
    /* Big programs get the variants that usually win, so lowering stays fast. */
    bool medium = base.nnodes > CG_FULL_SEARCH_MAX_NODES;
    bool big = fast || base.nnodes > CG_MEDIUM_SEARCH_MAX_NODES;
    unsigned policy_bits = fast     ? 0
                           : big    ? CG_POLICY_BITS_BIG
                           : medium ? CG_POLICY_BITS_MEDIUM
                                    : CG_POLICY_BITS_FULL;
    cg_policy npolicies = 1u << policy_bits;
    /* relu form outer, arms inner: the tie-breaking order of the shapes */
    for (int relu_flip = 0; relu_flip < 2 && !oom; relu_flip++)
        for (cg_arms arms = CG_ARMS_AS_BUILT; arms < CG_NARMS && !oom; arms++) {
            cg_shape shape = {arms, relu_flip};
            /* FMAG_CODEGEN_FAST: the DAG as built; big: no relu flip, no flip-all */
            if (fast && (arms != CG_ARMS_AS_BUILT || relu_flip)) continue;
            if ((big && (relu_flip || arms == CG_ARMS_FLIP_ALL)) ||
                (medium && arms == CG_ARMS_FLIP_ALL))
                continue;
            cg_dag g;
            if (fast) {
                /* the only shape, and nothing after the search needs the DAG as built */
                g = base;
                base.nodes = NULL;
                base.outs = NULL;
            } else if (!cg_dag_copy(&base, &g)) {
                oom = true;
                break;
            }
            unsigned flips = cg_dag_orient(&g, arms);
            if ((arms != CG_ARMS_AS_BUILT && flips == 0) || (relu_flip && !cg_dag_relu_flip(&g))) {
                cg_dag_free(&g);
                continue; /* same DAG as an earlier variant */
            }
            cg_dag_fuse_select_arm(&g, uses); /* fast: g is the DAG the counts are of */
            /* A fold kills only the folded fma, whose operands the select takes over,
             * and the DAG as built has no dead node unmarked: nothing for DCE to find
             * (the full search keeps it for the reshaped DAGs). */
            if (!fast) cg_dag_dce(&g);
            int nprev = -1;
            /* FMAG_CODEGEN_FAST: the depth-first order stops being built as soon as
             * it cannot beat the list schedule's stream (cg_schedule_until, from what
             * every order needs: cg_least), and is then not allocated: the result is
             * the same. */
            cg_sched_stop stop;
            memset(&stop, 0, sizeof stop);
            if (fast) stop.least = cg_least(&g, &stop.zeros).ncode;
            stop.uses = uses;
            for (cg_schedule_kind kind = CG_SCHED_PROGRAM; kind < CG_NSCHEDULES && !oom; kind++) {
                if (fast && !(CG_FAST_SCHEDULES & (1u << kind))) continue;
                stop.ncode = best.ncode;
                stop.regs = best.regs;
                int n = cg_schedule_until(&g, kind, order, fast && have ? &stop : NULL);
                if (n == CG_SCHED_STOPPED) continue;
                if (n < 0) {
                    oom = true;
                    break;
                }
                if (n == nprev && !memcmp(order, prev, sizeof *order * (unsigned)n)) continue;
                memcpy(prev, order, sizeof *order * (unsigned)n);
                nprev = n;
                /* Per policy run on this order: the bits its decisions depended on
                 * (all when it failed). */
                cg_policy sensitive[1u << CG_POLICY_BITS_FULL];
                for (cg_policy policy = 0; policy < npolicies; policy++) {
                    sensitive[policy] = npolicies - 1;
                    if (policy_is_useless(policy) || same_as_smaller(policy, sensitive)) continue;
                    cg_result r;
                    variants++;
                    cg_ra_status st =
                        cg_regalloc(&g, order, (unsigned)n, policy, (npolicies - 1) & ~policy,
                                    have ? &best : NULL, &r);
                    if (st != CG_RA_FAILED) sensitive[policy] = r.sensitive;
                    if (st != CG_RA_DONE) continue;
                    if (!have || cg_result_better(&r, &best)) {
                        cg_result_free(&best);
                        best = r;
                        have = true;
                        best_shape = shape;
                        best_policy = policy;
                        best_n = (unsigned)n;
                        memcpy(best_order, order, sizeof *order * (unsigned)n);
                    } else {
                        cg_result_free(&r);
                    }
                }
            }
            cg_dag_free(&g);
        }
    if (have && !oom && !fast) {
        cg_dag g;
        if (cg_dag_copy(&base, &g)) {
            cg_dag_orient(&g, best_shape.arms);
            if (best_shape.relu_flip) cg_dag_relu_flip(&g);
            cg_dag_fuse_select_arm(&g, NULL);
            cg_dag_dce(&g);
            /* Nothing to gain when every node is one instruction and the registers
             * are the inputs/outputs already. */
            unsigned floor_regs = base.nin > base.nout ? base.nin : base.nout;
            if (best.ncode > best_n || best.regs > floor_regs)
                variants += improve(&g, best_order, best_n, best_policy, &best);
            cg_dag_free(&g);
        }
    }
    fmag_tmp_free(uses);
    fmag_tmp_free(order);
    fmag_tmp_free(prev);
    fmag_tmp_free(best_order);
    unsigned nin = base.nin, nout = base.nout;
    cg_dag_free(&base);
    if (!have) {
        fmag_context_error(ctx, "error: in function @%s: codegen: %s", f->name,
                           oom ? "out of memory" : "more than 65535 registers needed");
        return false;
    }
    fmag_vm_instr *code = fmag_tmp_malloc(sizeof *code * (best.ncode + 1));
    bool ok = code != NULL;
    char err[256] = "out of memory";
    if (strlen(f->name) > 0xFFFFu) {
        ok = false;
        snprintf(err, sizeof err,
                 "the name is %zu bytes long; a program name holds at most 65535 "
                 "(the .fmag header's 16-bit length)",
                 strlen(f->name));
    }
    for (unsigned i = 0; ok && i < best.ncode; i++)
        ok = fmag_vm_encode(&best.code[i], &code[i], err, sizeof err);
    if (ok)
        ok =
            fmag_vm_image_add(img, f->name,
                              (uint16_t)((f->module->fastmath ? FMAG_VM_FLAG_FASTMATH : 0) |
                                         (f->nderiv ? FMAG_VM_FLAG_DERIVS : 0)),
                              (uint16_t)best.regs, (uint16_t)nin, (uint16_t)nout, code, best.ncode);
    if (ok) img->programs[img->nprograms - 1].nderiv = (uint16_t)f->nderiv;
    if (!ok)
        fmag_context_error(ctx, "error: in function @%.200s%s: codegen: %s", f->name,
                           strlen(f->name) > 200 ? "..." : "", err);
    if (ok && stats) {
        stats->instrs = best.ncode;
        stats->regs = best.regs;
        /* Only for the winner: the search itself never looks at it. */
        stats->max_live = cg_stream_max_live(best.code, best.ncode, nout);
        stats->moves = best.moves;
        stats->consts = best.consts;
        stats->variants = variants;
    }
    fmag_tmp_free(code);
    cg_result_free(&best);
    return ok;
}

/* The guarded entry point: an allocation failure inside ends in false with a
 * diagnostic (fmag_context_guard). */
struct fmag_codegen_func_with_args {
    fmag_func *f;
    fmag_vm_image *img;
    fmag_codegen_stats *stats;
    const fmag_codegen_options *opts;
    bool result;
};

static void fmag_codegen_func_with_thunk(void *arg)
{
    struct fmag_codegen_func_with_args *a = arg;
    a->result = fmag_codegen_func_with_unguarded(a->f, a->img, a->stats, a->opts);
}

bool fmag_codegen_func_with(fmag_func *f, fmag_vm_image *img, fmag_codegen_stats *stats,
                            const fmag_codegen_options *opts)
{
    struct fmag_codegen_func_with_args a = {f, img, stats, opts, false};
    return fmag_context_guard(f->module->ctx, fmag_codegen_func_with_thunk, &a) ? a.result : false;
}

bool fmag_codegen_func(fmag_func *f, fmag_vm_image *img, fmag_codegen_stats *stats)
{
    return fmag_codegen_func_with(f, img, stats, NULL);
}

bool fmag_codegen_module_with(fmag_module *m, fmag_vm_image *img, const fmag_codegen_options *opts)
{
    fmag_foreach_func (f, m) {
        if (f->is_export && !fmag_codegen_func_with(f, img, NULL, opts)) return false;
    }
    return true;
}

bool fmag_codegen_module(fmag_module *m, fmag_vm_image *img)
{
    return fmag_codegen_module_with(m, img, NULL);
}
