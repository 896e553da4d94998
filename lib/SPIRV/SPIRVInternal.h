/* Private parts of the SPIR-V reader shared between its files: the parsed module
 * (instructions, ids, types), the per-function translation state and the SSA
 * construction for variables. */
#ifndef FMAG_SPIRV_INTERNAL_H
#define FMAG_SPIRV_INTERNAL_H

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.h>
#include <stdbool.h>
#include <stdint.h>
#include "fmag/IR.h"
#include "fmag/Math.h"
#include "fmag/SPIRV.h"

/* Bounds that keep a hostile module from asking for unbounded memory: a value
 * scalarizes to at most this many floats, a function to at most this many SSA
 * slots of variables. */
#define SPV_MAX_LEAVES 65536u
#define SPV_MAX_SLOTS (1u << 20)

typedef struct spv_inst {
    const uint32_t *w; /* w[0] = word count << 16 | opcode */
    uint32_t nw;
    uint32_t op;
    uint32_t word;            /* offset of the instruction in the module, in words */
    uint32_t file, line, col; /* the OpLine in effect (file = OpString id; 0 = none) */
} spv_inst;

typedef enum spv_type_kind {
    TY_NONE,
    TY_VOID,
    TY_BOOL,
    TY_INT,
    TY_FLOAT,
    TY_VECTOR,
    TY_MATRIX,
    TY_ARRAY,
    TY_STRUCT,
    TY_POINTER,
    TY_FUNCTION,
    TY_OPAQUE, /* images, samplers, runtime arrays, ...: no value FMAG can hold */
} spv_type_kind;

typedef struct spv_type {
    spv_type_kind kind;
    bool is_signed;
    uint32_t width;
    uint32_t elem;  /* vector/matrix/array element, pointer pointee, function return */
    uint32_t count; /* vector size, matrix columns, array length, members, params */
    uint32_t storage;
    const uint32_t *members; /* struct member / function parameter type ids */
    uint32_t nleaves;        /* floats after scalarization */
    uint32_t *offs;          /* struct: first leaf of each member */
    const char *bad;         /* why a value of this type cannot be held, or NULL */
    bool has_int;            /* holds an integer somewhere (spv_leaf_type looks further) */
} spv_type;

typedef enum spv_id_kind {
    ID_NONE,
    ID_TYPE,
    ID_CONST,     /* module-level constant: val */
    ID_VALUE,     /* a value inside a function: val */
    ID_VAR,       /* a pointer: ptr (module or function variable, access chain, param) */
    ID_FUNC,      /* fn */
    ID_LABEL,     /* blk */
    ID_EXTIMPORT, /* ext = 1 for GLSL.std.450 */
    ID_STRING,
    ID_OTHER, /* defined, but nothing FMAG holds (decoration groups, ...) */
} spv_id_kind;

struct spv_var;
struct spv_func;
struct spv_block;

typedef struct spv_ptr {
    struct spv_var *var;
    uint32_t type;   /* pointee type */
    uint32_t off;    /* leaf of element 0 within the variable */
    fmag_value *dyn; /* a non-constant element index, or NULL */
    uint32_t stride; /* with dyn: leaves per element */
    uint32_t count;  /* with dyn: number of elements */
} spv_ptr;

typedef struct spv_id {
    spv_id_kind kind;
    uint32_t type; /* result type id of a value or pointer */
    uint32_t def;  /* index of the defining instruction + 1 (0 = undefined) */
    const char *name;
    spv_type *ty;     /* ID_TYPE */
    fmag_value **val; /* ID_CONST / ID_VALUE: nleaves of type */
    const char *bad;  /* ID_CONST: why using this constant is an error */
    bool has_lit;     /* ID_CONST scalar: its 32-bit literal (OpBitcast of a NaN constant) */
    uint32_t lit;
    spv_ptr *ptr; /* ID_VAR */
    struct spv_func *fn;
    struct spv_block *blk;  /* ID_LABEL: the block */
    struct spv_block *dblk; /* ID_VALUE / ID_VAR in a function: the defining block */
    const char *text;       /* ID_STRING */
    char *src;              /* ID_STRING naming a file: its source text from OpSource */
    size_t srclen;
    fmag_source *source; /* ID_STRING: the file for IR blocks' positions, made on first use */
    uint32_t ext;        /* ID_EXTIMPORT: 1 = GLSL.std.450 */
    /* decorations */
    bool has_location, has_binding, is_builtin, is_block, is_buffer_block, is_spec;
    uint32_t location, component, binding, set;
} spv_id;

/* A variable: module-scope OpVariable, function-local OpVariable or pointer
 * parameter. Its leaves are SSA slots [slot, slot + nleaves) in the function
 * being translated. */
typedef struct spv_var {
    uint32_t id;
    uint32_t type; /* pointee type */
    uint32_t storage;
    uint32_t nleaves;
    uint32_t init; /* initializer constant id or 0 */
    uint32_t slot; /* in the current function; UINT32_MAX when not mapped */
    bool global;
    bool readonly;
    bool loaded, stored; /* pointer parameters: how the body uses them */
    unsigned index;      /* module-scope: order of declaration */
} spv_var;

typedef struct spv_block {
    uint32_t label;
    uint32_t first, term; /* instruction indices: first after OpLabel, terminator */
    bool reachable;
    fmag_block *ir;
    fmag_block **tests; /* OpSwitch: one test block per case compared at run time */
    unsigned ntests;
    unsigned pre, post; /* the dominator tree's DFS interval (Function.c) */
} spv_block;

typedef struct spv_func {
    uint32_t id;
    uint32_t type;       /* function type */
    uint32_t ret;        /* return type */
    uint32_t begin, end; /* OpFunction .. OpFunctionEnd instruction indices */
    uint32_t *params;
    unsigned nparams;
    spv_block *blocks;
    unsigned nblocks;
    spv_var **globals;
    unsigned nglobals; /* module variables it (or a callee) uses */
    spv_var **pvars;   /* pointer parameters' variables, or NULL */
    bool reached, visiting, scanned, translated;
    fmag_func *ir;
    unsigned nin, nout; /* IR params / results */
} spv_func;

/* Braun et al.'s per-block SSA state, hung on fmag_block::aux. */
typedef struct ssa_phi {
    uint32_t slot;
    fmag_instr *phi;
    struct ssa_phi *next;
} ssa_phi;

typedef struct ssa_block {
    fmag_block *ir;
    uint32_t spv_label; /* the SPIR-V block whose code or terminator it holds */
    fmag_block **preds;
    unsigned npreds, cappreds, unfilled;
    fmag_block *succs[2]; /* the edges out, before the terminator exists (dominators) */
    unsigned nsuccs;
    bool sealed, filled;
    uint32_t *keys; /* slot + 1; 0 = empty */
    fmag_value **vals;
    unsigned cap, count;
    ssa_phi *incomplete;
} ssa_block;

typedef enum { SPV_SOURCE_SPIRV, SPV_SOURCE_GLSL, SPV_SOURCE_HLSL } spv_source;

typedef struct spv_reader {
    fmag_context *ctx;
    const fmag_spirv_options *opts;
    const char *filename;
    const uint32_t *words;
    size_t nwords;
    uint32_t bound;
    spv_inst *insts;
    uint32_t ninsts;
    spv_id *ids;
    spv_func *funcs;
    unsigned nfuncs;
    spv_var **gvars;
    unsigned ngvars;
    fmag_module *m;
    bool fast;
    bool failed;
    unsigned nerrors;
    /* the function being translated */
    spv_func *fn;
    fmag_builder b;
    uint32_t nslots;
    fmag_type *slot_types; /* per slot: spv_var_leaf_type of its variable's leaf */
    uint32_t slot_cap;
    uint32_t cur_inst;  /* for diagnostics */
    spv_block *cur_blk; /* the block being translated (dominance of operands) */
    fmag_value *zero, *one;
    uint64_t dyn_cost; /* select-chain steps made for non-constant indices */
    uint64_t work;     /* scalars computed or stored: a bound on the IR's size */
    /* The module came from slc's GLSL or HLSL front end: what FMAG cannot run is
     * named in that language's words, the SPIR-V opcode as a trailing detail. */
    spv_source source;
} spv_reader;

/* Diag.c */
const char *spv_op_name(uint32_t op, char *buf, size_t len);
/* Where the user's text starts in an OpSource text: after glslang's preamble of
 * "// OpModuleProcessed" lines and the `#line 1` after them (a module compiled with
 * -g), so that line N of the rest is the user's line N; 0 without one. */
size_t spv_source_preamble(const char *t, size_t len);
/* Records "pos: error: msg" for instruction `inst` (index into insts, or
 * UINT32_MAX for none) and marks the reader failed. Returns false. */
bool spv_error(spv_reader *r, uint32_t inst, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* An error about the current instruction, prefixed with its opcode name. */
bool spv_error_op(spv_reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* An unsupported-feature error about the current instruction: with GLSL or HLSL
 * source, the glsl or hlsl wording followed by the opcode's name in parentheses (as in
 * "atomic operations are not supported (SPIR-V OpAtomicIAdd)"); for raw
 * SPIR-V, the opcode's name, a colon and the spirv wording. */
bool spv_error_feature(spv_reader *r, const char *glsl, const char *hlsl, const char *spirv);
const char *spv_id_str(spv_reader *r, uint32_t id, char *buf, size_t len);

/* Parse.c */
bool spv_parse(spv_reader *r);
spv_type *spv_type_get(spv_reader *r, uint32_t id);
/* The leaf count of type id, or 0 when it is not a data type. */
uint32_t spv_type_leaves(spv_reader *r, uint32_t id);
/* Scalar element type of a scalar/vector/matrix type id (0 if none). */
uint32_t spv_scalar_type(spv_reader *r, uint32_t id);
bool spv_type_is_int(spv_reader *r, uint32_t id);   /* int scalar or vector */
bool spv_type_is_bool(spv_reader *r, uint32_t id);  /* bool scalar or vector */
bool spv_type_is_float(spv_reader *r, uint32_t id); /* float scalar/vector/matrix */
/* Every SPIR-V integer value is an IR i32 (signedness is in the operations); bools
 * and floats are f32, a bool the IR's 1.0 / 0.0. An i32 literal's value read as a
 * signed integer (indices, lengths); false for anything else. */
bool spv_int_of(const fmag_value *v, int64_t *out);
/* The scalar type (TY_BOOL, TY_INT or TY_FLOAT) of leaf j of a value of type id, or
 * NULL; and the IR type of that leaf (i32 for an integer, f32 otherwise). */
spv_type *spv_leaf_scalar(spv_reader *r, uint32_t id, uint32_t j);
fmag_type spv_leaf_type(spv_reader *r, uint32_t id, uint32_t j);
/* The zero of an IR type (OpUndef, OpConstantNull, a variable read before a write). */
fmag_value *spv_zero(spv_reader *r, fmag_type t);

/* Import.c */
/* A built-in variable (gl_FragCoord, gl_PerVertex, ...): never program data. */
bool is_builtin(spv_reader *r, const spv_var *v);
/* A storage buffer: class StorageBuffer, or (before SPIR-V 1.3) a Uniform BufferBlock. */
bool spv_is_storage_buffer(spv_reader *r, const spv_var *v);

/* Function.c */
bool spv_translate_func(spv_reader *r, spv_func *f);
/* Operand access for the instruction translators. */
fmag_value **spv_get_value(spv_reader *r, uint32_t id, uint32_t *n);
fmag_value **spv_new_value(spv_reader *r, uint32_t id, uint32_t type, uint32_t *n);
/* The IR type a variable holds leaf j in: the leaf's own type, except that an
 * interface variable (Input, Output, a uniform) holds an integer as a float. */
fmag_type spv_var_leaf_type(spv_reader *r, const spv_var *v, uint32_t j);
/* Sets the types of f's IR parameters and results (before any call to it is built). */
void spv_func_set_types(spv_reader *r, spv_func *f);
/* Stores v[0..n-1] through pointer id ptr_id (GLSL.std.450 Modf/Frexp results). */
bool spv_store_to(spv_reader *r, uint32_t ptr_id, fmag_value **v, uint32_t n);

/* Ops.c: the integer operation (fmag/IntOps.def) an integer SPIR-V opcode is. */
bool spv_int_iop(uint32_t op, fmag_int_op *iop);
/* The operation on literals computed with fmag_eval_int, the IR's one definition
 * (the only place the reader folds integers), or NULL when an operand is not a
 * literal or an f32 result would not be finite. spv_int: folded, else built. */
fmag_value *spv_int_fold(spv_reader *r, fmag_int_op op, fmag_value *x, fmag_value *y,
                         fmag_value *z);
fmag_value *spv_int(spv_reader *r, fmag_int_op op, fmag_value *x, fmag_value *y, fmag_value *z);
/* The number of set bits of an i32 (OpBitCount; GLSL.std.450 FindUMsb and FindILsb). */
fmag_value *spv_bit_count(spv_reader *r, fmag_value *x);

/* Ops.c: one SPIR-V instruction (not control flow, memory or calls) into the
 * current block. Returns false after a diagnostic. */
bool spv_translate_op(spv_reader *r, const spv_inst *in);
/* Whether the module (host-order words) has a derivative instruction (OpDPdx ...
 * OpFwidthCoarse): the reader then asks the math library for builtin calls. */
bool spv_uses_derivatives(const uint32_t *words, size_t nwords);

/* GLSL450.c */
bool spv_translate_glsl450(spv_reader *r, const spv_inst *in);

/* SSA.c */
ssa_block *ssa_block_new(spv_reader *r, fmag_block *ir, uint32_t spv_label);
void ssa_add_pred(spv_reader *r, ssa_block *b, fmag_block *pred);
void ssa_write(spv_reader *r, fmag_block *b, uint32_t slot, fmag_value *v);
fmag_value *ssa_read(spv_reader *r, fmag_block *b, uint32_t slot);
void ssa_seal(spv_reader *r, fmag_block *b);
/* Marks b filled; seals every successor whose predecessors are all filled. */
void ssa_filled(spv_reader *r, fmag_block *b);
/* Removes phis whose operands are all one value (or the phi itself). */
void ssa_remove_trivial_phis(fmag_func *f);

#endif
