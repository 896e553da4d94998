/* Internal to lib/CodeGen: the straight-line DAG that lowering works on, and the
 * phases over it (build/simplify, schedule, allocate+emit). */
#ifndef FMAG_CG_INTERNAL_H
#define FMAG_CG_INTERNAL_H

#include "fmag/Bits.h"
#include "fmag/CodeGen.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* An operand: a value id (params 0..nin-1, then node i is nin+i) or a literal. */
enum { CG_CONST = -1, CG_NONE = -2 };
typedef struct cg_ref {
    int v;     /* value id, CG_CONST or CG_NONE */
    float imm; /* the literal when v == CG_CONST */
} cg_ref;

/* One machine-level fmag: x = (g > 0) ? fmaf(a, b, c) : d. When `uncond` the
 * guard is a positive literal and d is CG_NONE. */
typedef struct cg_node {
    cg_ref op[5]; /* FMAG_A .. FMAG_E */
    bool uncond;
    bool dead; /* removed by simplification */
} cg_node;

typedef struct cg_dag {
    unsigned nin, nout, nnodes;
    cg_node *nodes;
    cg_ref *outs; /* nout */
} cg_dag;

static inline bool cg_is_val(cg_ref r)
{
    return r.v >= 0;
}
static inline bool cg_is_const(cg_ref r)
{
    return r.v == CG_CONST;
}
static inline bool cg_is_zero(cg_ref r)
{
    return r.v == CG_CONST && r.imm == 0.0f;
}
/* Numeric comparison: cg_is_imm(r, 0.0f) holds for both zeros. */
static inline bool cg_is_imm(cg_ref r, float f)
{
    return r.v == CG_CONST && r.imm == f;
}
static inline cg_ref cg_const(float f)
{
    cg_ref r = {CG_CONST, f};
    return r;
}
static inline cg_ref cg_val(int v)
{
    cg_ref r = {v, 0.0f};
    return r;
}
static inline bool cg_ref_eq(cg_ref x, cg_ref y)
{
    if (x.v != y.v) return false;
    if (x.v != CG_CONST) return true;
    return fmag_bits_of(x.imm) == fmag_bits_of(y.imm);
}

/* Lower.c: builds the DAG of a single-block function (false + diagnostic when it is
 * not lowerable); simplifications that are exact under the strict contract. `uses`
 * (may be NULL) receives its cg_dag_use_counts (the caller frees them). */
bool cg_dag_build(fmag_func *f, cg_dag *g, unsigned **uses);
void cg_dag_free(cg_dag *g);
bool cg_dag_copy(const cg_dag *src, cg_dag *dst);
/* Drops nodes no output depends on. */
void cg_dag_dce(cg_dag *g);
/* Folds a single-use unconditional fma into the true arm of a select. Returns the
 * number of folds. `uses` (may be NULL): g's cg_dag_use_counts, kept true. */
unsigned cg_dag_fuse_select_arm(cg_dag *g, unsigned *uses);
/* Orientation of selects whose arms can be swapped exactly (max/min/abs shapes).
 * Returns the number flipped. */
typedef enum cg_arms {
    CG_ARMS_AS_BUILT,      /* leave every select as built */
    CG_ARMS_FLIP_ALL,      /* flip every flippable one */
    CG_ARMS_TOWARD_OUTPUT, /* flip when the fallback then lives in the register the
                              result wants */
    CG_NARMS
} cg_arms;
unsigned cg_dag_orient(cg_dag *g, cg_arms mode);
/* Rewrites every relu(t) as (-t > 0) ? z*0 + 0 : t (adds a neg node before each).
 * Returns the number rewritten. */
unsigned cg_dag_relu_flip(cg_dag *g);
/* Number of uses per value (operand slots and outputs), nin+nnodes entries. */
unsigned *cg_dag_use_counts(const cg_dag *g);

/* Schedule.c: an order of the live nodes (indices into g->nodes). Returns the number
 * of scheduled nodes, or -1 on allocation failure. */
typedef enum cg_schedule_kind {
    CG_SCHED_PROGRAM,     /* program order */
    CG_SCHED_LIST,        /* greedy pressure-aware list scheduling */
    CG_SCHED_DEPTH_FIRST, /* depth-first by outputs */
    CG_NSCHEDULES
} cg_schedule_kind;
int cg_schedule(const cg_dag *g, cg_schedule_kind kind, unsigned *order);
/* The same with a stop (may be NULL): the depth-first order returns
 * CG_SCHED_STOPPED, unfinished, as soon as no allocation of it can be better
 * (cg_result_better) than the stream of `ncode` instructions and `regs` registers:
 * from cg_least's counts (`least` instructions, `zeros` zero fallbacks: 0 when some
 * literal `a` is a zero) and the order's copies and register floor so far, the same
 * lower bounds as cg_regalloc's before its first node. Needs a DAG whose nodes not
 * marked dead are all read by the outputs. `uses`: the DAG's cg_dag_use_counts (the
 * reads the order's counts start from). The other orders ignore the stop. */
typedef struct cg_sched_stop {
    unsigned ncode, regs, least, zeros;
    const unsigned *uses;
} cg_sched_stop;
enum { CG_SCHED_STOPPED = -2 };
int cg_schedule_until(const cg_dag *g, cg_schedule_kind kind, unsigned *order,
                      const cg_sched_stop *stop);

/* RegAlloc.c: allocates registers along `order` and emits the stream. */
/* A register-allocation policy: a set of these bits (none: the default). */
typedef enum cg_policy_bit {
    /* among free registers, lowest index first (clear: stale before literal before
     * pristine zero, which keeps the free zeros for zero fallbacks) */
    CG_POLICY_LOWEST_INDEX = 1u << 0,
    CG_POLICY_NO_RESERVE = 1u << 1,         /* ignore the output-register reservations */
    CG_POLICY_EARLY_OUTPUT = 1u << 2,       /* move an output into its register as soon as
                                               that register is free */
    CG_POLICY_SHUFFLE_UNRESERVED = 1u << 3, /* reserve an output register only for a chain
                                               that writes it before the final shuffle
                                               (refines the reservations: useless with
                                               CG_POLICY_NO_RESERVE) */
    CG_POLICY_BITS = 4,
    /* the bits that act through the choice of a free register (pick()) */
    CG_POLICY_PICK_BITS =
        CG_POLICY_LOWEST_INDEX | CG_POLICY_NO_RESERVE | CG_POLICY_SHUFFLE_UNRESERVED,
} cg_policy_bit;
typedef unsigned cg_policy;
typedef struct cg_result {
    fmag_vm_decoded *code;
    unsigned ncode;
    unsigned regs;
    unsigned moves;  /* fallback copies and output shuffle moves */
    unsigned consts; /* literal materializations */
    /* Of the `track` bits given to cg_regalloc, those that would have changed one of
     * its decisions had they been set (valid unless CG_RA_FAILED). A bit outside this
     * set, added to the policy, gives the very same allocation. */
    cg_policy sensitive;
} cg_result;
typedef enum cg_ra_status {
    CG_RA_DONE,   /* *res holds the stream */
    CG_RA_PRUNED, /* stopped: the stream could not be better than *bound */
    CG_RA_FAILED, /* out of memory, or more than 65535 registers needed */
} cg_ra_status;
/* `bound` (may be NULL): stop as soon as the result cannot be better than *bound
 * (fewer instructions, or as many and fewer registers), so that the search's
 * trials end early instead of being allocated to the end and thrown away. */
cg_ra_status cg_regalloc(const cg_dag *g, const unsigned *order, unsigned norder, cg_policy policy,
                         cg_policy track, const cg_result *bound, cg_result *res);
void cg_result_free(cg_result *res);
/* What every allocation of every order of g needs at least (ncode and regs only):
 * cg_regalloc's bound before the first node less what depends on the order. One
 * instruction per live node, one more per nonzero literal fallback; max(nin, nout)
 * registers, and, when no literal `a` is a zero, nin plus one per zero fallback
 * (each writes over a pristine register of its own): *zeros is their number then,
 * else 0. */
cg_result cg_least(const cg_dag *g, unsigned *zeros);
/* The search's order: fewer instructions, then fewer registers. */
static inline bool cg_result_better(const cg_result *a, const cg_result *b)
{
    return a->ncode < b->ncode || (a->ncode == b->ncode && a->regs < b->regs);
}
/* Live-register maximum of an emitted stream (registers whose current content is
 * read later, counted at every point, program start included). */
unsigned cg_stream_max_live(const fmag_vm_decoded *code, unsigned n, unsigned nout);

#endif /* FMAG_CG_INTERNAL_H */
