/* FMAG IR: an SSA control-flow graph over scalar float32 values.
 *
 * Every arithmetic instruction is the machine instruction
 *     fmag(a, b, c, d, e) = (e > 0) ? fma(a, b, c) : d
 * applied to SSA values; the sugar forms (add, max, ...) are builder helpers that
 * expand to plain fmag. Around that sit phi, call, br, jmp and ret.
 *
 * Ownership: a fmag_context owns every module, function, block, instruction and
 * value in arenas; nothing is freed before fmag_context_destroy(). Nothing here
 * uses global mutable state, so two threads may compile with two contexts.
 *
 * Errors on user input are never fatal: parsers and the verifier return false /
 * NULL and record diagnostics in the context (fmag_context_diag*). Broken
 * invariants inside the library are bugs and assert.
 */
#ifndef FMAG_IR_H
#define FMAG_IR_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fmag/Context.h" /* the context handle, budgets, diagnostics */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fmag_func fmag_func;
typedef struct fmag_block fmag_block;
/* A source file a frontend read, for the positions of the passes' diagnostics: its
 * name and, when the frontend kept it, its text (the quoted line); in the arena. */
typedef struct fmag_source {
    const char *file;
    const char *text; /* NULL: not kept */
    size_t len;
} fmag_source;
typedef struct fmag_instr fmag_instr;
typedef struct fmag_value fmag_value;
typedef struct fmag_use fmag_use;

/* ---------------------------------------------------------------- context */

/* Arena allocation owned by the context: zeroed, 16-byte aligned, freed with it. */
void *fmag_context_alloc(fmag_context *ctx, size_t size);
char *fmag_context_strdup(fmag_context *ctx, const char *s, size_t len);

/* ------------------------------------------------- allocation-failure policy
 *
 * No allocation failure ends the process. Inside a library entry point that
 * allocates (parsers, the SL compiler, the pass manager, codegen, the interpreter)
 * a failed allocation records "error: out of memory" in the context, frees the
 * call's temporaries and makes that entry point return its failure value (NULL or
 * false); the module it was working on may then only be reset or destroyed. Called
 * directly outside such an entry point, fmag_context_alloc records the same
 * diagnostic and returns NULL. docs/Reliability.md has the details. */

/* Called before every allocation the context makes (arena and temporaries) with
 * its size; returning false makes that allocation fail exactly as if the system
 * allocator had. For fault-injection tests ("fail the Nth allocation"). NULL
 * removes the hook. */
typedef bool (*fmag_alloc_hook)(void *user, size_t size);
void fmag_context_set_alloc_hook(fmag_context *ctx, fmag_alloc_hook hook, void *user);
/* How many allocations the context has been asked for since it was created. */
uint64_t fmag_context_alloc_count(const fmag_context *ctx);
/* Runs fn(arg); an allocation failure anywhere inside it unwinds back here, after
 * recording the diagnostic and freeing the temporaries, and the result is false.
 * Nested guards on one context catch at the outermost. The IR constructors and
 * builders do not check for a NULL from the arena: code that builds IR by hand
 * runs inside a guard (every library entry point above already does). */
bool fmag_context_guard(fmag_context *ctx, void (*fn)(void *arg), void *arg);
/* Records "error: out of memory in <what>" (for a system allocation that failed
 * outside the arena); inside a guard it also unwinds. */
void fmag_context_out_of_memory(fmag_context *ctx, const char *what);
/* Scratch memory of the library's own passes, parsers and codegen: malloc,
 * calloc, realloc and free whose blocks a guard frees when it unwinds (and to
 * which the allocation hook applies inside a guard). Outside a guard they behave
 * as the C functions do. A block from these must be freed with fmag_tmp_free. */
void *fmag_tmp_malloc(size_t size);
void *fmag_tmp_calloc(size_t n, size_t size);
void *fmag_tmp_realloc(void *p, size_t size);
void fmag_tmp_free(void *p);

/* ----------------------------------------------------- diagnostics: producers */

/* Diagnostics (Context.h reads them). Each is one fully formatted message: for text
 * input "file:line:col: error: msg" followed by the source line and a caret line;
 * for IR checks "error: in function @f, block ^b, instruction %x: msg". */
void fmag_context_error(fmag_context *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The length of a UTF-8 byte-order mark at the start of text (3), or 0: every text
 * reader skips one (editors on Windows write it). lib/VM, which depends on nothing,
 * keeps its own test for guessing a file's kind. */
size_t fmag_text_bom_len(const char *text, size_t len);
/* A diagnostic about source text: "file:line:col: error: msg", then the source line
 * and a caret under the byte at `offset`. Shared by every text parser. */
void fmag_context_source_error(fmag_context *ctx, const char *filename, const char *text,
                               size_t len, size_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* The same at line:col (1-based; col counts bytes; 0: unknown, "file:line: error: msg"
 * and the line without a caret) of `text`, for code that knows a position rather than
 * an offset (a pass, from the position a frontend recorded). With text NULL (the
 * frontend kept none) or the position outside it, the first line alone. */
void fmag_context_error_at(fmag_context *ctx, const char *filename, const char *text, size_t len,
                           unsigned line, unsigned col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* ----------------------------------------------------------------- values */

/* A value's type (SPEC §2b): a float32 (the default, what the machine has) or a 32-bit
 * integer (two's complement; signedness is in the operations). -legalize-int turns
 * every integer into float arithmetic before lowering. */
typedef enum fmag_type {
    FMAG_TYPE_F32,
    FMAG_TYPE_I32,
} fmag_type;
/* "f32" / "i32": the .fir spelling. */
const char *fmag_type_name(fmag_type t);

typedef enum fmag_value_kind {
    FMAG_VALUE_CONST,  /* an interned float literal, owned by the module */
    FMAG_VALUE_PARAM,  /* a function parameter */
    FMAG_VALUE_RESULT, /* result number `index` of instruction `def` */
} fmag_value_kind;

struct fmag_use {
    fmag_value *value; /* the operand; never NULL once set */
    fmag_instr *user;
    unsigned index;                /* operand slot in user->ops */
    fmag_use *prev_use, *next_use; /* in value->uses */
};

struct fmag_value {
    fmag_value_kind kind;
    fmag_type type;     /* set when the value is made; FMAG_TYPE_F32 unless it is an integer */
    unsigned id;        /* dense per function for params/results (FMAG_VALID_VALUE_IDS) */
    const char *name;   /* the name from text without '%', or NULL (printer numbers it) */
    union {             /* FMAG_VALUE_CONST: */
        float imm;      /* an f32 literal */
        uint32_t ibits; /* an i32 literal's 32 bits */
    };
    fmag_func *func; /* FMAG_VALUE_PARAM: owner */
    fmag_instr *def; /* FMAG_VALUE_RESULT */
    unsigned index;  /* param number or result number */
    fmag_use *uses;  /* head of the use list */
    void *aux;       /* scratch: see "derived state and scratch" below */
};

static inline bool fmag_value_is_const(const fmag_value *v)
{
    return v->kind == FMAG_VALUE_CONST;
}
static inline bool fmag_value_is_int(const fmag_value *v)
{
    return v->type == FMAG_TYPE_I32;
}
/* True when v is the i32 literal with these bits. */
static inline bool fmag_value_is_int_imm(const fmag_value *v, uint32_t bits)
{
    return v->kind == FMAG_VALUE_CONST && v->type == FMAG_TYPE_I32 && v->ibits == bits;
}
/* True when v is the literal with exactly these bits (so +0 and -0 differ). */
bool fmag_value_is_imm(const fmag_value *v, float f);
size_t fmag_value_num_uses(const fmag_value *v);
/* Whether v has exactly n uses, in O(n) whatever v's use count: for passes that
 * ask "single use?" of values (parameters, shared literals' users) that may have
 * thousands. */
bool fmag_value_num_uses_is(const fmag_value *v, size_t n);
/* Replace every use of `from` by `to`. */
void fmag_value_replace_all_uses(fmag_value *from, fmag_value *to);

#define fmag_foreach_use(u, v)                                                                     \
    for (fmag_use *u = (v)->uses, *u##_next = u ? u->next_use : NULL; u;                           \
         u = u##_next, u##_next = u ? u->next_use : NULL)

/* ----------------------------------------------------------- instructions */

typedef enum fmag_opcode {
    FMAG_OP_FMAG, /* 5 operands a,b,c,d,e; 1 result */
    FMAG_OP_PHI,  /* n operands, incoming block i for operand i in phi_blocks; 1 result */
    FMAG_OP_CALL, /* operands = arguments; callee->nresults results */
    FMAG_OP_BR,   /* 1 operand (guard); targets[0] when guard > 0, else targets[1] */
    FMAG_OP_JMP,  /* targets[0] */
    FMAG_OP_RET,  /* operands = returned values, one per function result */
    FMAG_OP_INT,  /* an integer operation (iop, fmag/IntOps.def); 1 result */
} fmag_opcode;

/* The integer operations, one per row of fmag/IntOps.def. */
typedef enum fmag_int_op {
#define FMAG_INT_OP(ID, TEXT, NOPS, RT, T0, T1, T2, COMM) FMAG_IOP_##ID,
#include "fmag/IntOps.def"
#undef FMAG_INT_OP
    FMAG_IOP_COUNT
} fmag_int_op;
/* The table's columns: the .fir keyword, the operand count, the result's and each
 * operand's type, and whether the two operands commute. */
const char *fmag_int_op_name(fmag_int_op op);
unsigned fmag_int_op_nops(fmag_int_op op);
fmag_type fmag_int_op_result_type(fmag_int_op op);
fmag_type fmag_int_op_operand_type(fmag_int_op op, unsigned k);
bool fmag_int_op_commutes(fmag_int_op op);
/* The integer comparisons (icmp.*), whose result is the machine's boolean 1.0 / 0.0. */
bool fmag_int_op_is_compare(fmag_int_op op);

/* The opcode's .fir keyword ("fmag", "phi", ...), for diagnostics. */
const char *fmag_opcode_name(fmag_opcode op);

/* fmag operand slots. */
enum { FMAG_A = 0, FMAG_B = 1, FMAG_C = 2, FMAG_D = 3, FMAG_E = 4 };

struct fmag_instr {
    fmag_opcode op;
    fmag_block *block;
    fmag_instr *prev, *next;
    unsigned nops;
    fmag_use *ops; /* nops uses */
    unsigned nresults;
    fmag_value *results;     /* nresults values */
    fmag_block **phi_blocks; /* FMAG_OP_PHI: incoming block per operand */
    fmag_block *targets[2];  /* BR / JMP */
    fmag_func *callee;       /* CALL */
    fmag_int_op iop;         /* INT */
    void *aux;               /* scratch: see "derived state and scratch" below */
};

static inline fmag_value *fmag_instr_op(const fmag_instr *i, unsigned k)
{
    return i->ops[k].value;
}
static inline fmag_value *fmag_instr_result(fmag_instr *i)
{
    return &i->results[0];
}
static inline bool fmag_instr_is_terminator(const fmag_instr *i)
{
    return i->op == FMAG_OP_BR || i->op == FMAG_OP_JMP || i->op == FMAG_OP_RET;
}
void fmag_instr_set_op(fmag_instr *i, unsigned k, fmag_value *v);
/* Unlink from its block and drop its operand uses. Its results must be unused. */
void fmag_instr_erase(fmag_instr *i);
/* Unlink from its block but keep operands (to move it elsewhere). */
void fmag_instr_remove(fmag_instr *i);
void fmag_instr_insert_before(fmag_instr *pos, fmag_instr *i);
void fmag_instr_insert_after(fmag_instr *pos, fmag_instr *i);
/* Phi editing. */
void fmag_phi_add_incoming(fmag_instr *phi, fmag_value *v, fmag_block *from);
void fmag_phi_remove_incoming(fmag_instr *phi, unsigned k);
/* The incoming value for predecessor `from`, or NULL. */
fmag_value *fmag_phi_value_for(const fmag_instr *phi, const fmag_block *from);

/* ----------------------------------------------------------------- blocks */

struct fmag_block {
    const char *name; /* without '^'; the printer invents one when NULL */
    unsigned id;      /* dense per function (FMAG_VALID_BLOCK_IDS) */
    fmag_func *func;
    fmag_block *prev, *next;
    fmag_instr *first, *last;
    void *aux; /* scratch: see "derived state and scratch" below */
    /* Where a frontend made the block (a loop header), for diagnostics of the passes
     * (-loop-unroll); 0 when unknown. The file is src's, or the module's src_file when
     * src is NULL. */
    unsigned src_line, src_col;
    const fmag_source *src;
};

#define fmag_foreach_instr(i, b)                                                                   \
    for (fmag_instr *i = (b)->first, *i##_next = i ? i->next : NULL; i;                            \
         i = i##_next, i##_next = i ? i->next : NULL)
#define fmag_foreach_instr_rev(i, b)                                                               \
    for (fmag_instr *i = (b)->last, *i##_prev = i ? i->prev : NULL; i;                             \
         i = i##_prev, i##_prev = i ? i->prev : NULL)

/* The terminator, or NULL if the block does not end in one. */
fmag_instr *fmag_block_terminator(const fmag_block *b);
/* Successors from the terminator (0, 1 or 2; a br with equal arms gives 2). */
unsigned fmag_block_succs(const fmag_block *b, fmag_block *succ[2]);
/* Distinct predecessors of one block, in function order (arena-allocated array).
 * O(blocks) per call: code that asks for many blocks builds fmag_preds once. */
unsigned fmag_block_preds(fmag_block *b, fmag_block ***preds);

/* Distinct predecessors of every block, as CSR arrays by block id: the one
 * predecessor computation of the library (lib/IR/Preds.c). Edges come from the
 * blocks from[0..nfrom) in that order, which is the order of each block's list;
 * from NULL means every block of f in function order. An edge counts only when its
 * target is a block of f (unverified IR is fine), and a br with two equal arms is
 * one edge. fmag_preds_build numbers the blocks (fmag_func_number_blocks); the
 * arrays are fmag_tmp_* memory, valid until the CFG or the block ids change.
 * Returns false when out of memory (outside a guard; inside one it unwinds). */
typedef struct fmag_preds {
    unsigned nblocks;
    unsigned *start; /* nblocks + 1: block id b's preds are list[start[b]..start[b+1]) */
    fmag_block **list;
} fmag_preds;
bool fmag_preds_build(fmag_func *f, fmag_block *const *from, unsigned nfrom, fmag_preds *p);
void fmag_preds_free(fmag_preds *p);
static inline unsigned fmag_preds_count(const fmag_preds *p, const fmag_block *b)
{
    return p->start[b->id + 1] - p->start[b->id];
}
static inline fmag_block *const *fmag_preds_of(const fmag_preds *p, const fmag_block *b)
{
    return p->list + p->start[b->id];
}
void fmag_block_append(fmag_block *b, fmag_instr *i);
/* Unlink an empty-of-uses block from its function (its instructions are erased). */
void fmag_block_erase(fmag_block *b);

/* -------------------------------------------------------------- functions */

struct fmag_func {
    const char *name; /* without '@' */
    fmag_module *module;
    fmag_func *prev, *next;
    bool is_export;
    unsigned nparams;
    fmag_value *params; /* each param's type is params[k].type */
    unsigned nresults;
    fmag_type *result_types; /* NULL: every result is f32 (fmag_func_result_type) */
    /* Set by -legalize-int when it wrote integer sequences into f: they are exact
     * float code that reassociation would break, so -reassoc leaves f alone even in
     * fast-math mode. */
    bool exact_float;
    fmag_block *first, *last; /* first is the entry */
    unsigned nvalues;         /* params + results, when FMAG_VALID_VALUE_IDS */
    unsigned nblocks;         /* blocks, when FMAG_VALID_BLOCK_IDS */
    unsigned valid;           /* FMAG_VALID_* bits that are up to date */
    void *aux;                /* scratch: see "derived state and scratch" below */
    /* -derivatives made this export take derivative inputs: nderiv of its ordinary
     * inputs carry them, and its last 2*nderiv parameters are their x derivatives,
     * then their y derivatives (SPEC 5b). 0: none. */
    unsigned nderiv;
};

#define fmag_foreach_block(b, f)                                                                   \
    for (fmag_block *b = (f)->first, *b##_next = b ? b->next : NULL; b;                            \
         b = b##_next, b##_next = b ? b->next : NULL)

fmag_func *fmag_func_create(fmag_module *m, const char *name, unsigned nparams, unsigned nresults,
                            bool is_export);
fmag_block *fmag_block_create(fmag_func *f, const char *name); /* appended at the end */
fmag_block *fmag_block_create_after(fmag_func *f, fmag_block *after, const char *name);
/* A copy's shell: a new block with like's name and source position, after `after`
 * (NULL: at the end), for the passes that clone blocks (inlining, module clone). */
fmag_block *fmag_block_create_like(fmag_func *f, fmag_block *after, const fmag_block *like);
/* Give every block, parameter and result a dense id (params first, then results
 * in block order); sets nvalues and nblocks. */
void fmag_func_renumber(fmag_func *f);
/* Block ids only (dense, in list order); sets nblocks. Much cheaper than
 * fmag_func_renumber on large blocks: the CFG analyses use it. */
void fmag_func_number_blocks(fmag_func *f);
size_t fmag_func_num_instrs(const fmag_func *f);
/* Unlink a function from its module (its calls must be gone). */
void fmag_func_erase(fmag_func *f);
/* Result k's type, and setting it (before any call or ret names the function). An
 * export's parameters and results are f32: a program's inputs and outputs are floats. */
static inline fmag_type fmag_func_result_type(const fmag_func *f, unsigned k)
{
    return f->result_types ? f->result_types[k] : FMAG_TYPE_F32;
}
void fmag_func_set_result_type(fmag_func *f, unsigned k, fmag_type t);
/* Whether any value of f (a parameter, a result, an instruction's result) is an i32. */
bool fmag_func_has_int(const fmag_func *f);

/* ------------------------------------------------- derived state and scratch
 *
 * Ids and analyses are derived from a function's body and go stale when it
 * changes. As with Mesa NIR's metadata bits, f->valid says which are up to date:
 * the functions that compute one set its bit, the IR mutators of this header clear
 * the bits their change breaks, and readers that rely on one assert it (in builds
 * without NDEBUG; a stale read is a bug in the library, never the user's input).
 *   FMAG_VALID_BLOCK_IDS   block ids dense in list order, f->nblocks: set by
 *                          fmag_func_number_blocks and fmag_func_renumber; cleared
 *                          by creating or erasing a block.
 *   FMAG_VALID_VALUE_IDS   parameter and result ids dense, f->nvalues: set by
 *                          fmag_func_renumber; cleared by inserting, removing or
 *                          erasing an instruction, and by block changes.
 *   FMAG_VALID_PREDS       the CFG is what the last fmag_preds_build saw;
 *   FMAG_VALID_DOMINANCE   ... what the last fmag_domtree_build saw: both cleared by
 *                          inserting, removing or erasing a terminator and by block
 *                          changes. Code that writes a terminator's targets[]
 *                          directly calls fmag_func_invalidate(f, FMAG_VALID_CFG).
 * An analysis a pass holds across its own edits (-simplifycfg's splicing reads
 * predecessor lists made at the start of its round, and marks what it touched) is
 * that pass's responsibility; fmag_domtree_dominates asserts FMAG_VALID_DOMINANCE.
 *
 * The `aux` fields of functions, blocks, instructions and values are scratch with
 * one owner at a time: whoever sets them (a pass, the cloner, the recursion check)
 * owns them for the duration of that one call, and clears every aux it set before
 * it returns (fmag_func_clear_aux). Between passes every aux is NULL, nobody reads
 * an aux it did not set, and the pass manager checks that after every pass (in
 * every build). Users today: DCE, GuardStrip, MinMax (instructions),
 * IfConvert and CFG cleanup (blocks), LoopUnroll and fmag_clone_body (blocks and
 * instructions of the source), Inline (functions, and the cloner's), the verifier's
 * recursion check (functions, saved and restored), and outside lib/IR and
 * lib/Transforms the SPIR-V reader, the lowering and superopt's IR bridge. */
enum {
    FMAG_VALID_BLOCK_IDS = 1u << 0,
    FMAG_VALID_VALUE_IDS = 1u << 1,
    FMAG_VALID_PREDS = 1u << 2,
    FMAG_VALID_DOMINANCE = 1u << 3,
    FMAG_VALID_CFG = FMAG_VALID_PREDS | FMAG_VALID_DOMINANCE,
    FMAG_VALID_ALL = 0xfu,
};
void fmag_func_invalidate(fmag_func *f, unsigned bits);
/* Asserts (without NDEBUG) that every one of `bits` is valid in f. */
void fmag_func_assert_valid(const fmag_func *f, unsigned bits);
/* Sets the aux of f, its blocks, instructions, parameters and results to NULL. */
void fmag_func_clear_aux(fmag_func *f);
/* Whether every aux of f (and of everything in it) is NULL. */
bool fmag_func_aux_clear(const fmag_func *f);

/* ---------------------------------------------------------------- modules */

struct fmag_module {
    fmag_context *ctx;
    bool fastmath;
    /* -loop-unroll's budget: the most instructions a function may reach by
     * unrolling; 0 is the context's (fmag_context_unroll_budget; fmag_run_passes
     * sets it from fmag_pass_options.max_unroll_instrs). */
    size_t max_unroll_instrs;
    const char *src_file; /* the source a frontend read (for block positions), or NULL */
    /* Its text when the frontend kept it (in the context's arena), so that a pass's
     * diagnostic at a source position quotes the line as the frontend's do; or NULL. */
    const char *src_text;
    size_t src_len;
    fmag_func *first, *last;
    void *consts; /* the constant pool (opaque) */
    /* Set by a frontend before it builds a program that uses derivatives (dfdx, dFdx,
     * ddx): the lib/Math builtins whose sequences cannot be differentiated instruction
     * by instruction (rounding tricks, range reduction, Newton steps) then emit a call
     * of an intrinsic function @fmag.<name> (its body built once by the same builder)
     * for -derivatives to apply the builtin's chain rule to; -inline then inlines them.
     * False (the default): every builtin is its inline sequence, as always. */
    bool math_calls;
    /* -derivatives: the names of the export inputs that carry derivatives, comma
     * separated (a name also selects its scalarized components "name.x" ...); NULL:
     * every input (docs/Derivatives.md). */
    const char *deriv_inputs;
};

#define fmag_foreach_func(fn, m)                                                                   \
    for (fmag_func *fn = (m)->first, *fn##_next = fn ? fn->next : NULL; fn;                        \
         fn = fn##_next, fn##_next = fn ? fn->next : NULL)

fmag_module *fmag_module_create(fmag_context *ctx);
fmag_func *fmag_module_get_func(const fmag_module *m, const char *name);
/* The interned literal with exactly these bits. A NaN or an infinity is accepted
 * here (folding may make one) but the verifier reports it. */
fmag_value *fmag_module_const(fmag_module *m, float f);
/* The interned i32 literal with these bits (a pool apart from the f32 literals). */
fmag_value *fmag_module_const_i32(fmag_module *m, uint32_t bits);
/* The literal of type t with these 32 bits (an f32's bit pattern, or an i32). */
fmag_value *fmag_module_const_bits(fmag_module *m, fmag_type t, uint32_t bits);
size_t fmag_module_num_instrs(const fmag_module *m);
/* Deep structural equality (names of values/blocks ignored, literal bits compared);
 * used by round-trip tests. */
bool fmag_module_equal(const fmag_module *a, const fmag_module *b);
/* Deep copy into the same context. */
fmag_module *fmag_module_clone(const fmag_module *m);

/* ----------------------------------------------------------------- cloning */

/* How fmag_clone_body maps what the body refers to. */
typedef struct fmag_clone_opts {
    fmag_value *const *params; /* the value in dst for each parameter of src */
    fmag_block *ret_to;        /* non-NULL: each ret becomes `jmp ret_to` (inlining) */
    bool names;                /* copy the values' names from the text */
    bool map_callees;          /* a callee c becomes c->aux (a module copy's function) */
} fmag_clone_opts;
/* Copies every block of src, in order, into dst: after `after`, or at the end when
 * it is NULL (block names and source positions come along). Literals stay the same
 * values within one module and are interned again across modules. Returns the copy
 * of src's entry. Afterwards each block and instruction of src has its copy in
 * `aux` (clear them with fmag_func_clear_aux). The one cloner of the library:
 * fmag_module_clone and -inline use it. */
fmag_block *fmag_clone_body(fmag_func *dst, fmag_block *after, fmag_func *src,
                            const fmag_clone_opts *o);
/* The copy in dst of a value of src, as fmag_clone_body mapped it. */
fmag_value *fmag_clone_map_value(const fmag_func *src, fmag_func *dst, const fmag_clone_opts *o,
                                 fmag_value *v);

/* ---------------------------------------------------------------- builder */

/* Instructions go before `before` in `block`, or at the block's end when before is
 * NULL. All helpers return the result value. */
typedef struct fmag_builder {
    fmag_module *module;
    fmag_block *block;
    fmag_instr *before;
} fmag_builder;

void fmag_builder_at_end(fmag_builder *b, fmag_block *blk);
void fmag_builder_before(fmag_builder *b, fmag_instr *pos);
fmag_value *fmag_build_const(fmag_builder *b, float f);

fmag_value *fmag_build_fmag(fmag_builder *b, fmag_value *a, fmag_value *bb, fmag_value *c,
                            fmag_value *d, fmag_value *e);
/* Sugar of SPEC §2, expanded exactly as written there. */
fmag_value *fmag_build_add(fmag_builder *b, fmag_value *x, fmag_value *y);
fmag_value *fmag_build_sub(fmag_builder *b, fmag_value *x, fmag_value *y);
fmag_value *fmag_build_mul(fmag_builder *b, fmag_value *x, fmag_value *y);
fmag_value *fmag_build_neg(fmag_builder *b, fmag_value *x);
fmag_value *fmag_build_fma(fmag_builder *b, fmag_value *x, fmag_value *y, fmag_value *z);
/* (g > 0) ? t : f */
fmag_value *fmag_build_select(fmag_builder *b, fmag_value *t, fmag_value *f, fmag_value *g);
fmag_value *fmag_build_relu(fmag_builder *b, fmag_value *x);
fmag_value *fmag_build_max(fmag_builder *b, fmag_value *x, fmag_value *y);
fmag_value *fmag_build_min(fmag_builder *b, fmag_value *x, fmag_value *y);
fmag_value *fmag_build_abs(fmag_builder *b, fmag_value *x);
/* Comparisons giving the booleans 1.0 / 0.0: (x > y) = select(1, 0, x - y), and so on.
 * The machine's truth is `> 0`; these are exact for finite operands. */
fmag_value *fmag_build_gt(fmag_builder *b, fmag_value *x, fmag_value *y);
fmag_value *fmag_build_lt(fmag_builder *b, fmag_value *x, fmag_value *y);
fmag_value *fmag_build_ge(fmag_builder *b, fmag_value *x, fmag_value *y);
fmag_value *fmag_build_le(fmag_builder *b, fmag_value *x, fmag_value *y);

fmag_instr *fmag_build_phi(fmag_builder *b); /* add incoming with fmag_phi_add_incoming */
fmag_instr *fmag_build_phi_typed(fmag_builder *b, fmag_type t);

/* Integers (SPEC §2b): an operation of fmag/IntOps.def on its operands (unused ones
 * NULL), and the i32 literal. */
fmag_value *fmag_build_int(fmag_builder *b, fmag_int_op op, fmag_value *x, fmag_value *y,
                           fmag_value *z);
fmag_value *fmag_build_const_i32(fmag_builder *b, uint32_t bits);
/* (g > 0) ? t : f on two values of one type: fmag's select for f32, iselect for i32;
 * what the passes that turn phis into selects use. */
fmag_value *fmag_build_select_typed(fmag_builder *b, fmag_value *t, fmag_value *f, fmag_value *g);
/* Returns the call instruction; its results are call->results[0..callee->nresults-1]. */
fmag_instr *fmag_build_call(fmag_builder *b, fmag_func *callee, fmag_value *const *args,
                            unsigned nargs);
fmag_instr *fmag_build_br(fmag_builder *b, fmag_value *guard, fmag_block *then_bb,
                          fmag_block *else_bb);
fmag_instr *fmag_build_jmp(fmag_builder *b, fmag_block *target);
fmag_instr *fmag_build_ret(fmag_builder *b, fmag_value *const *vals, unsigned nvals);

/* Low level: a detached instruction with nops operand slots (all NULL) and
 * nresults results; insert it with fmag_block_append / fmag_instr_insert_*. */
fmag_instr *fmag_instr_create(fmag_func *f, fmag_opcode op, unsigned nops, unsigned nresults);

/* ------------------------------------------------------- printer / parser */

typedef enum fmag_print_flags {
    FMAG_PRINT_DEFAULT = 0,
    FMAG_PRINT_RAW = 1 << 0, /* every arithmetic instruction as `fmag` (no sugar) */
} fmag_print_flags;

/* Prints the module in the .fir syntax that fmag_parse_module reads back. */
void fmag_module_print(fmag_module *m, FILE *out, unsigned flags);
void fmag_func_print(fmag_func *f, FILE *out, unsigned flags);
/* Gives every unnamed (or duplicate-named) value and block of f a unique name, the
 * ones the printer shows; diagnostics use them too. Idempotent. */
void fmag_func_name_values(fmag_func *f);
/* The printed name of a value ("%x" / literal text) into buf (>= 64 bytes). */
const char *fmag_value_str(fmag_value *v, char *buf, size_t len);
/* Prints one instruction (no newline), as the printer would inside f. */
void fmag_instr_print(fmag_instr *i, FILE *out, unsigned flags);
/* Prints a float literal so that it parses back to the same bits. */
void fmag_print_float(FILE *out, float f);
/* Writes a float literal into buf (at least 32 bytes); returns buf. */
char *fmag_format_float(char *buf, float f);

/* Parses .fir text (SPEC §2). On error returns NULL with diagnostics
 * "filename:line:col: error: ..." in the context. Does not verify. */
fmag_module *fmag_parse_module(fmag_context *ctx, const char *filename, const char *text,
                               size_t len);
/* Parses a float literal in FMAG syntax (decimal, exponent, C99 hex float, optional
 * sign). Returns the number of characters consumed, 0 if none. Rejects nothing: the
 * caller checks for inf/NaN. Shared by the .fir parser and the .fmas assembler. */
size_t fmag_parse_float(const char *s, size_t len, float *out);

/* ---------------------------------------------------------------- verifier */

/* Checks SSA dominance, phis against predecessors, one terminator at each block's
 * end, operand counts, call arity, ret arity, no NaN/inf literal. Returns true when
 * valid; otherwise records diagnostics naming the function, block and instruction. */
bool fmag_verify_module(fmag_module *m);
bool fmag_verify_func(fmag_func *f);
/* Whether every operand of i (an instruction of f) has the type SPEC §2b gives it: what
 * a front end checks as it builds, to refuse an ill-typed input with its own message. */
bool fmag_instr_operand_types_ok(const fmag_func *f, const fmag_instr *i);
/* Records a diagnostic and returns true when the call graph has a cycle. */
bool fmag_module_has_recursion(fmag_module *m);

/* -------------------------------------------------------------- dominators */

/* The dominator tree of a function's reachable blocks: the one implementation the
 * verifier and the passes share (lib/IR/Dominance.c). It reads the CFG as it is,
 * verified or not: an edge counts only when its target is a block of the function,
 * and a br with two equal arms is one edge. The arrays are fmag_tmp_* memory. */
#define FMAG_DOM_UNREACHABLE UINT32_MAX
typedef struct fmag_domtree {
    fmag_func *f;
    unsigned n;           /* reachable blocks */
    unsigned nblocks;     /* all blocks (the ids it gave) */
    fmag_block **rpo;     /* n blocks in reverse postorder from the entry */
    unsigned *rpo_index;  /* by block id: index in rpo, or FMAG_DOM_UNREACHABLE */
    unsigned *idom;       /* by rpo index: the immediate dominator's rpo index (entry: 0) */
    unsigned *tin, *tout; /* by rpo index: the dominator tree's DFS interval */
} fmag_domtree;
/* Gives every block of f a dense id in list order (f->nblocks), then builds the
 * tree. Block ids must not change while it is used. Returns false when out of
 * memory (outside a guard; inside one the failure unwinds). */
bool fmag_domtree_build(fmag_func *f, fmag_domtree *dt);
/* The same tree over edges a client supplies instead of the terminators': at most two
 * successors of b into s (a frontend whose blocks have their edges before their
 * terminators: the SPIR-V reader). Leaves the function's valid bits alone. */
typedef unsigned (*fmag_succs_fn)(void *user, const fmag_block *b, fmag_block *s[2]);
bool fmag_domtree_build_edges(fmag_func *f, fmag_succs_fn succs, void *user, fmag_domtree *dt);
void fmag_domtree_free(fmag_domtree *dt);
bool fmag_domtree_reachable(const fmag_domtree *dt, const fmag_block *b);
/* Does block a dominate block b? False when either is unreachable. O(1). */
bool fmag_domtree_dominates(const fmag_domtree *dt, const fmag_block *a, const fmag_block *b);

/* --------------------------------------------------------- IR interpreter */

/* Evaluates function f of a verified module on one element: in[0..nparams-1] ->
 * out[0..nresults-1], exactly in float32 with a single-rounding fmaf. Returns false
 * (with a diagnostic) on recursion deeper than a limit or a step budget overrun
 * (a loop that does not end). */
bool fmag_interp_func(fmag_func *f, const float *in, float *out);

/* What an interpreted execution did beside its outputs. */
typedef struct fmag_interp_report {
    /* An f32 input or an instruction's f32 result (in f or a function it called) was an
     * infinity or a NaN: SPEC §2's strict contract holds optimized code to the
     * unoptimized outputs only on executions where this is false. */
    bool nonfinite;
    unsigned long steps; /* instructions executed, phis included, calls' bodies too */
} fmag_interp_report;
/* fmag_interp_func, filling *report (when not NULL) even when it returns false. */
bool fmag_interp_func_ex(fmag_func *f, const float *in, float *out, fmag_interp_report *report);

/* ----------------------------------------------------------- the machine op */

/* The one instruction, exactly: (e > 0) ? fmaf(a, b, c) : d. */
float fmag_eval(float a, float b, float c, float d, float e);
/* An integer operation, exactly (fmag/IntOps.def): each operand and the result as
 * its 32 bits (an f32 operand or result as its bit pattern; unused operands 0). The
 * one definition the interpreter, constant folding and the tests share. */
uint32_t fmag_eval_int(fmag_int_op op, uint32_t a, uint32_t b, uint32_t c);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_IR_H */
