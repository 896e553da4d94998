/* FMAG Superopt: the superoptimizer as a library (SPEC §8). Finds the shortest FMAG
 * stream computing a target function of one or two inputs, and proves it.
 *
 * A target is a straight-line tape of IR-style fmag operations over the inputs
 * x (and y): it comes from the small built-in expression language, from an IR
 * function (a .fir file, or the SL frontend) or is built by hand. A candidate is a
 * machine program under the calling convention of SPEC §1: inputs in r0 (and r1),
 * every other register +0.0, the result in r0.
 *
 * Correctness is the strict contract of SPEC §2: on every input where every
 * operation of the target's tape gives a finite value, the candidate's r0 equals
 * the target bit for bit, +0 and -0 counted equal. Nothing here prints on its own
 * or exits; errors come back in caller-provided `char *err` buffers.
 */
#ifndef FMAG_SUPEROPT_H
#define FMAG_SUPEROPT_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "fmag/PeepholeRules.h"
#include "fmag/VM.h"

#ifdef __cplusplus
extern "C" {
#endif

/* FMAG_SUPEROPT_MAX_REGS, registers in a candidate, is in fmag/PeepholeRules.h. */
#define FMAG_SUPEROPT_MAX_INPUTS 2
#define FMAG_SUPEROPT_MAX_LEN 64   /* instructions in a candidate */
#define FMAG_SUPEROPT_MAX_POOL 32  /* literals in the search pool */
#define FMAG_SUPEROPT_MAX_TAPE 512 /* operations in a target */

/* ------------------------------------------------------------------ targets */

/* fmag_so_ref and fmag_so_op, the tape's operations, are the peephole rules' types
 * (fmag/PeepholeRules.h): a rule's pattern is a target's tape. */

typedef struct fmag_superopt_target {
    unsigned nin; /* 1 or 2 */
    unsigned nops;
    fmag_so_op *ops; /* malloc'ed */
    fmag_so_ref result;
    unsigned nconsts; /* distinct literals the tape uses, for the search pool */
    float consts[FMAG_SUPEROPT_MAX_POOL];
} fmag_superopt_target;

/* Parses the built-in target language: one expression over x (and y) with
 * + - * (and / by a constant), unary - and !, comparisons < > <= >= == != giving
 * 1.0/0.0, && || and ?: (a value is true when != 0), parentheses, float literals,
 * and the builtins abs min max clamp saturate sign step mix smoothstep select.
 * Each operator expands to fmag operations the way the IR sugar and the SL
 * frontend do (docs/Superopt.md lists them). `name` is used in diagnostics, which
 * are "name:1:col: error: msg", the line and a caret. Returns NULL on error. */
fmag_superopt_target *fmag_superopt_parse_expr(const char *name, const char *expr, char *err,
                                               size_t errlen);
fmag_superopt_target *fmag_superopt_target_create(unsigned nin);
/* Appends an operation and returns a reference to its result. */
fmag_so_ref fmag_superopt_target_add(fmag_superopt_target *t, fmag_so_ref a, fmag_so_ref b,
                                     fmag_so_ref c, fmag_so_ref d, fmag_so_ref e);
/* Recomputes t->consts from the tape (call after building by hand). */
void fmag_superopt_target_collect_consts(fmag_superopt_target *t);
void fmag_superopt_target_free(fmag_superopt_target *t);

static inline fmag_so_ref fmag_so_input(unsigned i)
{
    fmag_so_ref r = {FMAG_SO_REF_INPUT, i, 0.0f};
    return r;
}
static inline fmag_so_ref fmag_so_const(float f)
{
    fmag_so_ref r = {FMAG_SO_REF_CONST, 0, f};
    return r;
}

/* Evaluates the target on one input vector. Returns false when some operation of
 * the tape is not finite there (the input is outside the contract); *out is then
 * unspecified. */
bool fmag_superopt_target_eval(const fmag_superopt_target *t, const float *in, float *out);

/* IR bridge. A target from one function of a verified module: it must be a single
 * block (run the "inline" and if-conversion passes first) with one result and one
 * or two parameters. NULL with a message in err otherwise. */
struct fmag_func;
struct fmag_module;
fmag_superopt_target *fmag_superopt_target_from_ir(struct fmag_func *f, char *err, size_t errlen);
/* Builds an export function `name` computing the target (for the compiler's lowering). */
struct fmag_func *fmag_superopt_target_to_ir(const fmag_superopt_target *t, struct fmag_module *m,
                                             const char *name);

/* ----------------------------------------------------------------- programs */

/* A machine program under the calling convention (inputs r0.., result r0). */
typedef struct fmag_superopt_program {
    unsigned len, regs, nin;
    fmag_vm_decoded code[FMAG_SUPEROPT_MAX_LEN];
} fmag_superopt_program;

/* Runs the program on one input vector (exact VM semantics) and returns r0. */
float fmag_superopt_program_run(const fmag_superopt_program *p, const float *in);
/* Prints the program as one .fmas `.def` (nin inputs, 1 output), preceded by
 * `comment` lines (each prefixed with "; ") when comment is not NULL. */
void fmag_superopt_program_print(const fmag_superopt_program *p, const char *name,
                                 const char *comment, FILE *out);
/* Converts a VM program with one output into a candidate; false when it does not
 * fit (too long, too many registers, more than one output). */
bool fmag_superopt_program_from_vm(const fmag_vm_program *vp, fmag_superopt_program *p);
/* Registers the program really uses (highest index + 1, at least nin). */
unsigned fmag_superopt_program_regs_used(const fmag_superopt_program *p);
/* A straightforward correct lowering of the target (one register per tape value,
 * literal `a` operands materialized), used as a seed when no compiler output is at
 * hand. False when it exceeds the limits. */
bool fmag_superopt_naive_lower(const fmag_superopt_target *t, fmag_superopt_program *p);

/* -------------------------------------------------------------------- proof */

typedef enum fmag_superopt_proof_status {
    FMAG_PROOF_NONE,       /* not attempted */
    FMAG_PROOF_EXHAUSTIVE, /* every finite float32 input checked: a proof */
    FMAG_PROOF_SAMPLED,    /* two inputs: edge cases and dense samples all agree */
    FMAG_PROOF_FAILED,     /* a counterexample was found */
} fmag_superopt_proof_status;

typedef struct fmag_superopt_proof {
    fmag_superopt_proof_status status;
    uint64_t checked; /* inputs on which the target is finite and was compared */
    uint64_t skipped; /* inputs outside the contract (target not finite) */
    double seconds;
    unsigned threads;
    float cex[FMAG_SUPEROPT_MAX_INPUTS]; /* FAILED: the input */
    float cex_want, cex_got;
} fmag_superopt_proof;

/* Proves p against t: exhaustively over all finite float32 for one input, by
 * sampling (edge-case grid plus `samples` random pairs; 0 = default) for two.
 * threads = 0 uses every online CPU. Returns true when no counterexample. */
bool fmag_superopt_prove(const fmag_superopt_target *t, const fmag_superopt_program *p,
                         unsigned threads, uint64_t samples, fmag_superopt_proof *proof);
const char *fmag_superopt_proof_status_name(fmag_superopt_proof_status s);

/* ------------------------------------------------------------------- search */

typedef struct fmag_superopt_options {
    unsigned max_len;  /* BFS: longest length tried (0 = 3); stochastic: 0 = seed's */
    unsigned regs;     /* 0: BFS picks nin + len - 1 per length (all a program
                          of that length can use); stochastic: the seed's + 1 */
    const float *pool; /* literal pool; NULL = {0, 1, -1, 0.5, 2} + target's */
    unsigned npool;
    uint64_t seed;                      /* random seed (stochastic; test-vector sampling) */
    double time_limit;                  /* seconds; 0 = 60 */
    unsigned threads;                   /* for proofs; 0 = all CPUs */
    uint64_t prove_samples;             /* two-input proofs; 0 = default */
    const fmag_superopt_program *start; /* stochastic: seed program (must be correct) */
} fmag_superopt_options;

typedef struct fmag_superopt_result {
    bool found;   /* prog holds a proven (or sampled) program */
    bool minimal; /* BFS: every shorter length was exhausted */
    bool timed_out;
    fmag_superopt_program prog;
    fmag_superopt_proof proof;
    unsigned lower_bound;  /* BFS: no program shorter than this exists (pool, regs) */
    double search_seconds; /* excluding the final proof */
    uint64_t nodes;        /* states expanded / proposals made */
    unsigned cegis_rounds; /* counterexamples added to the test vectors */
    unsigned regs_tried;
    unsigned npool;
    float pool[FMAG_SUPEROPT_MAX_POOL];
} fmag_superopt_result;

/* Iterative deepening over machine states with exact pruning, counterexample-
 * guided: finds the shortest program over the pool and registers. */
bool fmag_superopt_bfs(const fmag_superopt_target *t, const fmag_superopt_options *o,
                       fmag_superopt_result *r, char *err, size_t errlen);
/* STOKE-style stochastic search from o->start (or the naive lowering): only returns
 * programs that are shorter than the start and proven (or sampled). r->found is
 * false when nothing shorter was found; r->prog is then the start. */
bool fmag_superopt_stochastic(const fmag_superopt_target *t, const fmag_superopt_options *o,
                              fmag_superopt_result *r, char *err, size_t errlen);

/* The default pool plus the target's constants (and their negations), deduplicated;
 * returns the count written to pool (at most FMAG_SUPEROPT_MAX_POOL). */
unsigned fmag_superopt_default_pool(const fmag_superopt_target *t, float *pool);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_SUPEROPT_H */
