/* The two shortcuts of the lowering search (lib/CodeGen/CodeGen.c), checked against
 * allocations run in full on random straight-line functions:
 *  - a policy bit outside an allocation's `sensitive` set, added to its policy,
 *    gives the very same stream (the search skips that policy);
 *  - an allocation given a bound stops (CG_RA_PRUNED) exactly when its full result
 *    is not better than the bound, and otherwise emits the same stream;
 * and the fast lowering's skip of the depth-first order: no allocation of any order
 * emits fewer instructions or registers than cg_least, and the depth-first order
 * stops (cg_schedule_until) only when no allocation of the whole order is better
 * than the stop's stream, and otherwise is the order cg_schedule builds.
 * Internal interfaces (CGInternal.h): the invariants are the search's, not the
 * API's, which promises only the best stream. */
#include "../../lib/CodeGen/CGInternal.h"
#include "fmag/IR.h"

#include "../Expect.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct rng {
    uint64_t s;
} rng;

static unsigned next(rng *r, unsigned n)
{
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((r->s >> 33) % n);
}

/* A random single-block function: every sugar form lowering takes, literals among
 * the operands (zeros and others, which exercise the literal registers), outputs
 * that are inputs, literals or repeated values (the output shuffle). */
static fmag_func *random_func(fmag_module *m, rng *r)
{
    unsigned nin = 1 + next(r, 4), nout = 1 + next(r, 3), nnodes = 1 + next(r, 16);
    fmag_func *f = fmag_func_create(m, "f", nin, nout, true);
    fmag_builder b;
    fmag_builder_at_end(&b, fmag_block_create(f, "entry"));
    fmag_value *vals[4 + 16];
    unsigned nv = 0;
    for (unsigned i = 0; i < nin; i++)
        vals[nv++] = &f->params[i];
    static const float lits[] = {0.0f, 1.0f, -2.5f, 0.5f, 3.0f};
#define PICK() (next(r, 5) ? vals[next(r, nv)] : fmag_build_const(&b, lits[next(r, 5)]))
    for (unsigned i = 0; i < nnodes; i++) {
        fmag_value *x = PICK(), *y = PICK(), *z = PICK(), *v = NULL;
        switch (next(r, 9)) {
        case 0:
            v = fmag_build_add(&b, x, y);
            break;
        case 1:
            v = fmag_build_sub(&b, x, y);
            break;
        case 2:
            v = fmag_build_mul(&b, x, y);
            break;
        case 3:
            v = fmag_build_fma(&b, x, y, z);
            break;
        case 4:
            v = fmag_build_select(&b, x, y, z);
            break;
        case 5:
            v = fmag_build_relu(&b, x);
            break;
        case 6:
            v = fmag_build_max(&b, x, y);
            break;
        case 7:
            v = fmag_build_min(&b, x, y);
            break;
        default:
            v = fmag_build_fmag(&b, x, y, z, PICK(), PICK());
            break;
        }
        vals[nv++] = v;
    }
#undef PICK
    fmag_value *outs[3];
    for (unsigned j = 0; j < nout; j++)
        outs[j] = next(r, 6) ? vals[next(r, nv)] : fmag_build_const(&b, lits[next(r, 5)]);
    fmag_build_ret(&b, outs, nout);
    return f;
}

/* Field by field: the structs have padding. */
static bool same_operand(fmag_vm_operand x, fmag_vm_operand y)
{
    return x.is_reg == y.is_reg &&
           (x.is_reg ? x.reg == y.reg : fmag_bits_of(x.imm) == fmag_bits_of(y.imm));
}

static bool same_stream(const cg_result *a, const cg_result *b)
{
    if (a->ncode != b->ncode || a->regs != b->regs) return false;
    for (unsigned i = 0; i < a->ncode; i++) {
        const fmag_vm_decoded *x = &a->code[i], *y = &b->code[i];
        if (x->d != y->d || x->a != y->a || !same_operand(x->b, y->b) ||
            !same_operand(x->c, y->c) || !same_operand(x->g, y->g))
            return false;
    }
    return true;
}

enum { NPOL = 1u << CG_POLICY_BITS };

typedef struct tally {
    unsigned orders, skippable, sensitive, pruned, kept, stopped, finished;
} tally;

/* Every policy in full on one order, then the invariants. *bestp: the best of those
 * allocations (ncode and regs; ncode UINT32_MAX when none). */
static void check_order(const cg_dag *g, const unsigned *order, unsigned n, const cg_result *least,
                        cg_result *bestp, tally *t)
{
    cg_result res[NPOL];
    bool ok[NPOL];
    cg_result best;
    memset(&best, 0, sizeof best);
    best.ncode = UINT32_MAX;
    for (cg_policy p = 0; p < NPOL; p++)
        ok[p] = cg_regalloc(g, order, n, p, (NPOL - 1) & ~p, NULL, &res[p]) == CG_RA_DONE;
    t->orders++;
    for (cg_policy p = 0; p < NPOL; p++) {
        if (!ok[p]) continue;
        EXPECT(res[p].ncode >= least->ncode && res[p].regs >= least->regs);
        if (cg_result_better(&res[p], &best)) {
            best.ncode = res[p].ncode;
            best.regs = res[p].regs;
        }
        for (unsigned bit = 1; bit < NPOL; bit <<= 1) {
            cg_policy q = p | bit;
            if ((p & bit) || !ok[q]) continue;
            if (res[p].sensitive & bit) {
                t->sensitive++;
                continue;
            }
            t->skippable++;
            EXPECT(same_stream(&res[p], &res[q]));
        }
        /* every other policy's result as the bound */
        for (cg_policy q = 0; q < NPOL; q++) {
            if (!ok[q]) continue;
            cg_result r;
            cg_ra_status st = cg_regalloc(g, order, n, p, 0, &res[q], &r);
            EXPECT(st == (cg_result_better(&res[p], &res[q]) ? CG_RA_DONE : CG_RA_PRUNED));
            if (st == CG_RA_DONE) {
                t->kept++;
                EXPECT(same_stream(&r, &res[p]));
                cg_result_free(&r);
            } else {
                t->pruned++;
            }
        }
    }
    for (cg_policy p = 0; p < NPOL; p++)
        if (ok[p]) cg_result_free(&res[p]);
    *bestp = best;
}

/* The depth-first order (n nodes, *best its best allocation) under stops around
 * that stream. */
static void check_stop(const cg_dag *g, const unsigned *order, unsigned n, unsigned least,
                       unsigned zeros, const cg_result *best, tally *t)
{
    unsigned *uses = cg_dag_use_counts(g);
    EXPECT(uses != NULL);
    if (!uses) return;
    for (unsigned ncode = least; ncode <= best->ncode + 2; ncode++)
        for (unsigned regs = 1; regs <= best->regs + 2; regs++) {
            cg_sched_stop stop = {ncode, regs, least, zeros, uses};
            cg_result bound;
            memset(&bound, 0, sizeof bound);
            bound.ncode = ncode;
            bound.regs = regs;
            unsigned part[2 * 24 + 2];
            int m = cg_schedule_until(g, CG_SCHED_DEPTH_FIRST, part, &stop);
            if (m == CG_SCHED_STOPPED) {
                t->stopped++;
                EXPECT(!cg_result_better(best, &bound));
            } else {
                t->finished++;
                EXPECT(m == (int)n && !memcmp(part, order, sizeof *order * n));
            }
        }
    fmag_tmp_free(uses);
}

int main(void)
{
    tally t;
    memset(&t, 0, sizeof t);
    rng r = {12345};
    for (unsigned seed = 0; seed < 300; seed++) {
        fmag_context *ctx = fmag_context_create();
        fmag_module *m = fmag_module_create(ctx);
        fmag_func *f = random_func(m, &r);
        cg_dag base;
        if (!cg_dag_build(f, &base, NULL)) {
            fmag_context_destroy(ctx);
            continue;
        }
        /* the shapes and schedules the full search tries */
        for (int flip = 0; flip < 2; flip++)
            for (cg_arms arms = CG_ARMS_AS_BUILT; arms < CG_NARMS; arms++) {
                cg_dag g;
                EXPECT(cg_dag_copy(&base, &g));
                cg_dag_orient(&g, arms);
                if (flip) cg_dag_relu_flip(&g);
                cg_dag_fuse_select_arm(&g, NULL);
                cg_dag_dce(&g);
                unsigned order[2 * 24 + 2];
                EXPECT(2 * (size_t)base.nnodes + 2 <= sizeof order / sizeof order[0]);
                unsigned zeros;
                cg_result least = cg_least(&g, &zeros);
                for (cg_schedule_kind k = CG_SCHED_PROGRAM; k < CG_NSCHEDULES; k++) {
                    int n = cg_schedule(&g, k, order);
                    EXPECT(n >= 0);
                    if (n <= 0) continue;
                    cg_result best;
                    check_order(&g, order, (unsigned)n, &least, &best, &t);
                    if (k == CG_SCHED_DEPTH_FIRST && best.ncode != UINT32_MAX)
                        check_stop(&g, order, (unsigned)n, least.ncode, zeros, &best, &t);
                }
                cg_dag_free(&g);
            }
        cg_dag_free(&base);
        fmag_context_destroy(ctx);
    }
    /* Both sides of each invariant must have been exercised, or the test proves
     * nothing. */
    EXPECT(t.orders > 1000);
    EXPECT(t.skippable > 1000 && t.sensitive > 1000);
    EXPECT(t.pruned > 1000 && t.kept > 1000);
    EXPECT(t.stopped > 1000 && t.finished > 1000);
    printf("%u orders: %u policy bits without effect (streams compared), %u with; %u bounded "
           "runs pruned, %u kept; depth-first orders %u stopped, %u finished\n",
           t.orders, t.skippable, t.sensitive, t.pruned, t.kept, t.stopped, t.finished);
    return failures != 0;
}
