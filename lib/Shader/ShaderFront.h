/* The GLSL/HLSL front door's shared state and the functions its files share (lib/Shader,
 * internal). Shaderc.c drives the stages; docs/SPIRV.md, "GLSL and HLSL: the front door". */
#ifndef FMAG_SHADER_FRONT_H
#define FMAG_SHADER_FRONT_H
#ifdef FMAG_HAVE_SHADERC
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <shaderc/shaderc.h>
#include "fmag/Shader.h"

/* ------------------------------------------------------------ text buffer */

typedef struct strbuf {
    char *p;
    size_t n, cap;
    bool oom;
} strbuf;

/* ------------------------------------------------------------- tokenizer */

/* Just enough of a C-family tokenizer to find declarations in preprocessed text:
 * identifiers, numbers and single punctuation characters; directives are skipped. */
typedef enum { TK_IDENT, TK_NUM, TK_PUNCT } tok_kind;

typedef struct tok {
    tok_kind kind;
    size_t off, len;
    unsigned line;
} tok;

typedef struct toks {
    tok *v;
    size_t n, cap;
} toks;

/* ------------------------------------------------------------- the front */

/* A file #include brought in, kept for diagnostics about its lines (shaderc has
 * released its own copy by the time glslang reports them). */
typedef fmag_shader_file included;

typedef struct front {
    fmag_context *ctx;
    const char *filename;
    const char *src; /* the user's text, for diagnostics */
    size_t len;
    fmag_source_language lang;
    const char *entry;
    bool entry_implied;              /* HLSL without -entry: "main" was not the user's word */
    const char *const *include_dirs; /* #include's search path (fmag_spirv_options) */
    size_t ninclude_dirs;
    char unfound[256]; /* the last quoted #include not found (glslang then asks for <it>) */
    fmag_include_fn include_fn; /* the embedder's resolver, tried first */
    void *include_user;
    const char *const *defines; /* "NAME" or "NAME=VALUE" */
    size_t ndefines;
    included *incl; /* the files #include read (malloc: shaderc's side of the guards) */
    size_t nincl;
    char *pp; /* preprocessed text, edited in place (same length) */
    size_t pplen;
    toks t;
    size_t main_tok;    /* the user's main (renamed), or SIZE_MAX */
    struct edit *edits; /* insertions made when the text is put together, by offset */
    size_t nedits, capedits;
    struct fstruct *structs; /* file-scope structs of float types, in definition order */
    size_t nstructs, capstructs;
    struct smember *members; /* their members, each struct's contiguous */
    size_t nmembers, capmembers;
    /* Calls that inlining the entry makes, from the text (shf_inline_estimate): past
     * FRONT_SPIRV_INLINE_MAX the SPIR-V is compiled without spirv-opt. */
    uint64_t inline_calls;
    /* The work group size from `layout(local_size_x = X, ...) in;` declarations, for
     * gl_WorkGroupSize: given (some dimension named), unknown (one not an integer
     * constant: an expression, a specialization constant's local_size_x_id). */
    unsigned workgroup[3];
    bool workgroup_given, workgroup_unknown;
    char workgroup_size[64]; /* `uvec3(X, Y, Z)` when given and known */
    bool failed;
} front;

/* Text put before pp[off] when the text glslang compiles is put together: `struct` before
 * a block that becomes a private struct variable. Edits never add a line, so glslang's
 * line numbers stay the user's. */
typedef struct edit {
    size_t off;
    const char *text;
    size_t seq; /* at one offset: declarations (0) first, then in the order made */
} edit;

/* A float type the interface can scalarize: rows x cols floats, or a struct of such
 * types (strct: 1 + its index in f->structs), times an array length. cols counts GLSL
 * columns (matCxR) and HLSL columns (floatRxC) alike; scalarization is column by column
 * in both languages (element [row][col] of the mathematical matrix), a struct member
 * by member. */
typedef struct ftype {
    unsigned rows, cols, array; /* array 0: not an array */
    unsigned strct;
    /* An input of an integer or bool scalar or vector type (FTYPE_INT, _UINT, _BOOL;
     * 0: float): passed as a float, converted as int(x), uint(x), bool(x) do. */
    unsigned base;
} ftype;

enum { FTYPE_FLOAT, FTYPE_INT, FTYPE_UINT, FTYPE_BOOL };

/* A struct the interface can scalarize (all members float types), and its members. */
typedef struct smember {
    size_t name; /* token */
    ftype ty;
} smember;

typedef struct fstruct {
    size_t name;         /* token */
    size_t first, count; /* members: f->members[first .. first + count - 1] */
    unsigned size;       /* scalars */
    unsigned depth;      /* 1 + the deepest struct member's depth */
} fstruct;

/* Limits that keep the wrapper's expressions (`a[3].b.c[1].d`) and size bounded; the
 * SPIR-V reader takes at most 65536 scalars per variable too. */
enum { FRONT_MAX_NAME = 256, FRONT_MAX_DEPTH = 4, FRONT_MAX_SCALARS = 65536 };
enum { FRONT_MAX_LOCATIONS = 4095 }; /* one scalar per location: glslang takes 0..4094 */

static inline unsigned ftype_size(const front *f, ftype t)
{
    unsigned one = t.strct ? f->structs[t.strct - 1].size : t.rows * t.cols;
    return one * (t.array ? t.array : 1);
}

typedef struct param {
    fmag_spirv_param_qual dir; /* as written: in (also no qualifier), out or inout */
    ftype ty;
} param;

typedef struct signature {
    bool has_result;
    ftype result;
    param *params;
    unsigned nparams;
    unsigned line;
} signature;

typedef struct global global;

/* One interface variable. `name` is the token a use names: the variable, a member of an
 * anonymous block, or the instance of a named block, whose member is then `member`
 * (element `index` when the instance is an array). */
struct global {
    size_t name, member; /* token indices; member SIZE_MAX when not in a named block */
    unsigned index;
    bool indexed;
    ftype ty;
    bool out;
    /* A uniform of a type the interface has no place for (int, bool, a struct holding
     * one): made private so that the file compiles, an error where code reads it
     * (type: its type's token). Not part of the interface. */
    bool refused;
    size_t type;
};
typedef struct fdef fdef;

/* A function definition at file scope: its first token (qualifiers and result type),
 * name, body '{' and the index after its '}'. */
struct fdef {
    size_t start, name, body, end;
    bool reached;
};

/* spirv-opt's inliner (shaderc's performance recipe) slows down much faster than
 * linearly with the number of calls it inlines (a function calling its predecessor
 * twice, 2^k leaves: 0.2 s at 1022 calls, 0.9 s at 2046, 6 s at 4094; issue 18's
 * bomb never ends), and no budget of ours reaches inside it. Past this many the
 * SPIR-V is compiled unoptimized, and FMAG's inliner, which checks the inline budget
 * as it goes, does the inlining (a few percent more instructions, docs/SPIRV.md). */
enum { FRONT_SPIRV_INLINE_MAX = 1000 };

/* HLSL cannot skip it: shaderc legalizes glslang's HLSL output (inlining everything)
 * at every optimization level, so past this many calls (about 6 s of spirv-opt) the
 * front refuses the entry instead of waiting. */
enum { FRONT_HLSL_INLINE_MAX = 4096 };

/* Tokens.c */
void shf_sb_put(strbuf *b, const char *s, size_t n);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void shf_sb_printf(strbuf *b, const char *fmt, ...);
bool shf_is_ident_start(char c);
bool shf_is_digit(char c);
bool shf_tokenize(const char *s, size_t n, const char *file, toks *out);
bool shf_tok_is(const front *f, size_t i, const char *s);
bool shf_tok_punct(const front *f, size_t i, char c);
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void shf_front_error(front *f, unsigned line, const char *fmt, ...);
void shf_front_error_col(front *f, unsigned line, unsigned col, const char *msg);

/* Signature.c */
bool shf_parse_type_name(const front *f, size_t i, ftype *ty);
bool shf_parse_input_type(const front *f, size_t i, ftype *ty);
unsigned shf_array_size(const front *f, size_t i);
size_t shf_skip_group(const front *f, size_t i);
bool shf_same_name(const front *f, size_t a, size_t b);
bool shf_tok_eq_str(const front *f, size_t i, const char *s, size_t n);
bool shf_is_param_qualifier(const front *f, size_t i);
bool shf_find_signature(front *f, signature *sig);
/* Whether -entry NAME names a function the file defines; if not, the error, with the
 * closest defined name as a "did you mean" when one is close (edit distance). Called
 * before anything blanks the functions the entry does not reach. */
bool shf_entry_defined(front *f);

/* Wrapper.c */
bool shf_wrap_entry(front *f, strbuf *b, unsigned *nin, unsigned *nout);
bool shf_wrap_main(front *f, strbuf *b, unsigned *nin, unsigned *nout, bool has_main);

/* Globals.c */
void shf_blank_tok(front *f, size_t i);
void shf_blank_range(front *f, size_t b, size_t e);
bool shf_add_edit(front *f, size_t i, const char *text);
bool shf_add_decl_edit(front *f, size_t i, const char *text);
int shf_edit_cmp(const void *a, const void *b);
bool shf_is_refused_value_type(const front *f, size_t i);
bool shf_global_expr(front *f, const global *g, char *buf, size_t cap);
bool shf_find_main(front *f);
bool shf_collect_structs(front *f);
global *shf_strip_globals(front *f, size_t *count);
global *shf_strip_hlsl_globals(front *f, size_t *count);

/* CallGraph.c */
fdef *shf_call_graph(front *f, const char *entry, size_t *count);
uint64_t shf_add_sat(uint64_t a, uint64_t b);
uint64_t shf_mul_sat(uint64_t a, uint64_t b);
uint64_t shf_inline_estimate(front *f, const fdef *defs, size_t nd);
size_t shf_find_global_use(const front *f, const fdef *defs, size_t nd, const global *g, size_t ng,
                           bool refused_only, bool mentions, size_t *which);
void shf_report_refused_read(front *f, size_t i, const global *g);
bool shf_entry_uses_global(front *f, const fdef *defs, size_t nd, const global *g, size_t ng);
bool shf_keep_reached(front *f, const fdef *defs, size_t nd);

/* Report.c */
unsigned shf_count_lines(const char *s, size_t n);
void shf_report_in(front *f, const char *file, const char *src, size_t len, unsigned line,
                   const char *msg, const char *about);
void shf_report(front *f, const char *log, unsigned user_lines);

/* Include.c */
unsigned shf_glsl_version(const char *s, size_t n);
shaderc_include_result *shf_include_resolve(void *user, const char *requested, int type,
                                            const char *requesting, size_t depth);
void shf_include_release(void *user, shaderc_include_result *r);

/* Checks.c */
bool shf_macros_bounded(front *f, const char *s, size_t n);
bool shf_has_directive(const char *s, size_t n);
bool shf_braces_closed(front *f);
bool shf_vertex_outputs_private(front *f);

#endif /* FMAG_HAVE_SHADERC */
#endif /* FMAG_SHADER_FRONT_H */
