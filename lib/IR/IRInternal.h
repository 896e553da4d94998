/* Private parts of lib/IR shared between its files. */
#ifndef FMAG_IR_INTERNAL_H
#define FMAG_IR_INTERNAL_H

#include "fmag/Bits.h"
#include "fmag/IR.h"
#include <setjmp.h>
#include <stdarg.h>

struct fmag_arena_chunk;
struct fmag_tmp_block;

struct fmag_context {
    struct fmag_arena_chunk *chunks;
    struct fmag_arena_chunk *spare; /* standard chunks kept by fmag_context_reset */
    char **diags;
    size_t ndiags, capdiags;
    /* Allocation-failure policy (Context.c): the hook that may refuse an allocation,
     * the number of allocations asked so far, the innermost fmag_context_guard's
     * landing point, the guarded call's temporaries, and whether an out-of-memory
     * diagnostic could not be stored (it is then reported from a constant). */
    fmag_alloc_hook alloc_hook;
    void *alloc_hook_user;
    uint64_t nallocs;
    jmp_buf *guard;
    struct fmag_tmp_block *tmps;
    bool oom_unrecorded;
    /* Resource budgets and the error limit (0: the defaults in IR.h). */
    size_t inline_budget;
    size_t unroll_budget;
    unsigned error_limit;
    bool error_limit_set;
    size_t nerrors; /* stored diagnostics that are not notes, for the limit */
    struct {
        const char *name; /* NULL: free */
        void *obj;
        void (*destroy)(void *obj);
    } slots[FMAG_CONTEXT_MAX_SLOTS];
};

/* The module's constant pool: open addressing on the literal's bits. */
typedef struct fmag_const_pool {
    fmag_value **slots;
    size_t cap, count;
    /* The literals of the sugar forms (SPEC §2), once the pool has them: nearly
     * every instruction a frontend builds asks for two or three of them. */
    fmag_value *zero, *one, *minus_one;
} fmag_const_pool;

/* fmag_context_alloc without the zeroing, for the constructors that write every
 * field themselves (an instruction is made by the thousand per compile, and the
 * memset call cost more than the stores). Counted and hooked the same. */
void *fmag_arena_alloc_dirty(fmag_context *ctx, size_t size);

/* fmag_instr_create(at->func, FMAG_OP_FMAG, 5, 1) with ops[] set as its operands
 * (NULL: left unset), inserted before `before` (NULL: at the end of `at`), in one
 * pass over the block: the builders make one per sugar form. */
fmag_instr *fmag_ir_build_fmag(fmag_block *at, fmag_instr *before, fmag_value *const ops[5]);

void fmag_context_verror(fmag_context *ctx, const char *fmt, va_list ap);

/* The CFG edges out of b (lib/IR/Preds.c): targets that are blocks of the function
 * (blocks[] by id, nb of them), a br with equal arms giving one. Shared by the
 * predecessor lists and the dominator tree so both see the same graph. The targets
 * are the terminator's, or fn's when it is not NULL (fmag_domtree_build_edges). */
unsigned fmag_ir_edges(fmag_succs_fn fn, void *user, const fmag_block *b, fmag_block *const *blocks,
                       unsigned nb, fmag_block *s[2]);
/* fmag_preds_build over a client's edges; sets no valid bit when fn is not NULL. */
bool fmag_preds_build_with(fmag_func *f, fmag_succs_fn fn, void *user, fmag_block *const *from,
                           unsigned nfrom, fmag_preds *p);

#endif
