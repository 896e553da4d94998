/* Internal data of the SL frontend: tokens, the AST, and the compile session that
 * the lexer, parser, checker and IR generator share. */
#ifndef FMAG_SL_INTERNAL_H
#define FMAG_SL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fmag/IR.h"
#include "fmag/SL.h"

/* A type is a kind and a width: SL_TYPE(kind, width), where the f32 types keep their
 * old codes 1..4 (so a float type is its width); 0 is void and -1 marks an expression
 * that already produced an error (so one mistake gives one diagnostic).
 * SL_KLIT is an expression made only of integer literals without a suffix (`7`,
 * `1 + 2`, `0x1F`): it takes the type its context wants (an f32, i32 or u32 operand,
 * the variable it initializes), and is an f32 where nothing says (every SL program
 * written before integers keeps its meaning), or an i32 once an integer-only operator
 * (`% & | ^ ~ << >>`) is applied to it (SL_KLITI). Only scalars are SL_KLIT. */
enum { SL_VOID = 0, SL_ERR = -1 };
enum { SL_KF32 = 0, SL_KI32 = 1, SL_KU32 = 2, SL_KLIT = 3, SL_KLITI = 4 };
#define SL_TYPE(kind, width) ((kind)*8 + (width))
#define SL_WIDTH(t) ((t)&7)
#define SL_KIND(t) ((t) >> 3)
/* Whether the kind holds integers once settled (i32, u32, or an integer-only literal). */
#define SL_KIND_IS_INT(k) ((k) == SL_KI32 || (k) == SL_KU32)

typedef enum sl_tok_kind {
    TK_EOF,
    TK_IDENT,
    TK_NUM,
    TK_ERROR, /* TK_ERROR: a lexical error, reported in order */
    TK_LPAREN,
    TK_RPAREN,
    TK_LBRACE,
    TK_RBRACE,
    TK_COMMA,
    TK_SEMI,
    TK_DOT,
    TK_QUESTION,
    TK_COLON,
    TK_PLUS,
    TK_MINUS,
    TK_STAR,
    TK_SLASH,
    TK_PERCENT,
    TK_AMP,
    TK_PIPE,
    TK_CARET,
    TK_TILDE,
    TK_SHL,
    TK_SHR,
    TK_ASSIGN,
    TK_PLUS_ASSIGN,
    TK_MINUS_ASSIGN,
    TK_STAR_ASSIGN,
    TK_SLASH_ASSIGN,
    TK_PERCENT_ASSIGN,
    TK_AMP_ASSIGN,
    TK_PIPE_ASSIGN,
    TK_CARET_ASSIGN,
    TK_SHL_ASSIGN,
    TK_SHR_ASSIGN,
    TK_LT,
    TK_GT,
    TK_LE,
    TK_GE,
    TK_EQ,
    TK_NE,
    TK_ANDAND,
    TK_OROR,
    TK_NOT,
    /* keywords */
    TK_IF,
    TK_ELSE,
    TK_RETURN,
    TK_EXPORT,
    TK_OUT,
    TK_TYPE,
    TK_FOR,
    TK_CONST,
} sl_tok_kind;

typedef struct sl_token {
    sl_tok_kind kind;
    unsigned pos; /* byte offset in the source */
    unsigned len;
    float num;       /* TK_NUM: the value as an f32 */
    int lit;         /* TK_NUM: an sl_lit_kind */
    uint64_t ival;   /* TK_NUM, an integer literal: its value (saturated at 2^64 - 1) */
    int width;       /* TK_TYPE: the type (SL_TYPE) */
    const char *msg; /* TK_ERROR: the message, reported when the parser reaches it */
    bool reported;
} sl_token;

/* What a number literal's spelling makes it. */
typedef enum sl_lit_kind {
    LIT_FLOAT, /* a '.' or an exponent: f32 */
    LIT_DEC,   /* decimal digits only: an integer literal of SL_KLIT */
    LIT_HEX,   /* 0x...: an integer literal of SL_KLIT (an i32 may take all 32 bits) */
    LIT_U32,   /* a 'u' suffix (7u, 0xFFu): u32 */
} sl_lit_kind;

typedef enum sl_expr_kind {
    EX_NUM,
    EX_VAR,
    EX_CALL,
    EX_UNARY,
    EX_BINARY,
    EX_TERNARY,
    EX_SWIZZLE,
} sl_expr_kind;

typedef enum sl_call_kind { CALL_USER, CALL_BUILTIN, CALL_CTOR } sl_call_kind;

struct sl_func;
struct sl_var;

typedef struct sl_expr {
    sl_expr_kind kind;
    unsigned pos;
    int type;         /* set by the checker */
    float num;        /* EX_NUM */
    int lit;          /* EX_NUM: an sl_lit_kind */
    uint64_t ival;    /* EX_NUM, an integer literal */
    const char *name; /* EX_VAR, EX_CALL */
    unsigned name_len;
    struct sl_var *var;        /* EX_VAR after checking */
    sl_tok_kind op;            /* EX_UNARY, EX_BINARY */
    struct sl_expr *a, *b, *c; /* operands; EX_SWIZZLE base is a */
    struct sl_expr **args;
    unsigned nargs;
    sl_call_kind call_kind;
    int ctor_width;         /* CALL_CTOR */
    struct sl_func *callee; /* CALL_USER */
    int builtin;            /* CALL_BUILTIN: index in the checker's table */
    unsigned char comp[4];  /* EX_SWIZZLE */
    unsigned ncomp;
} sl_expr;

typedef enum sl_stmt_kind {
    ST_DECL,
    ST_ASSIGN,
    ST_EXPR,
    ST_IF,
    ST_RETURN,
    ST_BLOCK,
    ST_FOR,
} sl_stmt_kind;

typedef struct sl_stmt {
    sl_stmt_kind kind;
    unsigned pos;
    struct sl_stmt *next;            /* in a block */
    struct sl_var *var;              /* ST_DECL */
    sl_expr *lhs;                    /* ST_ASSIGN */
    sl_tok_kind op;                  /* ST_ASSIGN: TK_ASSIGN or a compound */
    sl_expr *e;                      /* init, rhs, expression, condition, return value */
    struct sl_stmt *then_s, *else_s; /* ST_IF; ST_FOR: then_s is the loop body */
    struct sl_stmt *body;            /* ST_BLOCK: first statement */
    struct sl_stmt *init, *step;     /* ST_FOR: each optional; e is the condition */
} sl_stmt;

typedef struct sl_var {
    const char *name;
    unsigned name_len;
    unsigned pos;
    int type;
    bool is_out;
    bool is_param;
    bool is_const;         /* `const`: assignments are errors */
    bool is_global;        /* a file-scope const: slot indexes the file's global slots */
    bool needed;           /* irgen: a global the current function reads */
    struct sl_stmt *decl;  /* is_global: its declaration (the initializer) */
    unsigned slot;         /* first scalar slot in the function's environment */
    struct sl_var *next;   /* in a parameter list */
    struct sl_var *shadow; /* checker: the same name's previous binding while in scope */
    unsigned depth;        /* checker: block nesting depth of the declaration */
} sl_var;

typedef struct sl_func {
    const char *name;
    unsigned name_len;
    unsigned pos;
    int ret_type;
    bool is_export;
    sl_var *params; /* linked */
    unsigned nparams;
    sl_stmt *body; /* ST_BLOCK */
    unsigned nslots;
    struct sl_func *next;
    fmag_func *ir;
    int visit;                 /* recursion check state */
    struct sl_callsite *calls; /* call sites in the body, for the recursion check */
} sl_func;

typedef struct sl_session {
    fmag_context *ctx;
    const char *filename;
    const char *src;
    size_t len;
    fmag_sl_options opts;
    unsigned nerrors;
    bool too_many;
    bool shader_source; /* the text looks like GLSL/HLSL: one error, then stop */
    /* lexer */
    sl_token *toks;
    size_t ntoks, cap_toks;
    /* parser */
    size_t p;
    unsigned depth;
    sl_func *funcs, *funcs_last;
    /* The functions by name while sl_check runs (open addressing, the first
     * definition of a name; NULL otherwise): lookups stay linear in the file. */
    sl_func **func_table;
    size_t func_table_cap;
    struct sl_stmt *globals, *globals_last; /* file-scope consts (ST_DECL), in order */
    unsigned nglobal_slots;
} sl_session;

#define SL_MAX_DEPTH 1000

void sl_error(sl_session *s, unsigned pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void sl_note(sl_session *s, unsigned pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
const char *sl_type_name(int t);
/* How a diagnostic names a token kind: "'+='", "identifier", "end of file". */
const char *sl_tok_desc(sl_tok_kind k);
bool sl_lex(sl_session *s);
void sl_parse(sl_session *s);
void sl_check(sl_session *s);
fmag_module *sl_irgen(sl_session *s);

/* Builtins known to the checker (index used by irgen). */
typedef enum sl_builtin_shape {
    BS_MAP1, /* component-wise, one operand */
    BS_MAP2, /* component-wise with scalar broadcast, two operands */
    BS_MAP3, /* three operands */
    BS_DOT,
    BS_LENGTH,
    BS_DISTANCE,
    BS_NORMALIZE,
    BS_CROSS,
    BS_REFLECT,     /* reflect(I, N): two vectors of one type */
    BS_REFRACT,     /* refract(I, N, eta): two vectors and an f32 */
    BS_FACEFORWARD, /* faceforward(N, I, Nref): three vectors of one type */
    BS_ANYALL,      /* any/all(v): f32 (1.0 / 0.0) of a vector's truth */
    BS_OUTARG,      /* modf(x, out i) / frexp(x, out e): component-wise, the second an lvalue */
    BS_BITS,        /* floatBitsToInt/Uint, intBitsToFloat, uintBitsToFloat: the same 32 bits */
} sl_builtin_shape;

typedef struct sl_builtin {
    const char *name;
    sl_builtin_shape shape;
} sl_builtin;

extern const sl_builtin sl_builtins[];
extern const unsigned sl_nbuiltins;
int sl_builtin_find(const char *name, unsigned len);

#endif
