/* SL checker: resolves names, computes every expression's type (its width), checks
 * lvalues, calls, returns and recursion. Errors name both types; an unknown name
 * gets a did-you-mean from the names in scope. After it succeeds, IR generation
 * can trust the AST. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "SLInternal.h"
#include "fmag/Bits.h"

/* GLSL.std.450's others (issue 14), after the original ones. */
// clang-format off
#define GLSL450_BUILTINS \
    {"asin", BS_MAP1}, {"acos", BS_MAP1}, {"sinh", BS_MAP1}, {"cosh", BS_MAP1}, \
    {"tanh", BS_MAP1}, {"asinh", BS_MAP1}, {"acosh", BS_MAP1}, {"atanh", BS_MAP1}, \
    {"radians", BS_MAP1}, {"degrees", BS_MAP1}, {"isnan", BS_MAP1}, {"isinf", BS_MAP1}, \
    {"ldexp", BS_MAP2}, {"fma", BS_MAP3}, {"reflect", BS_REFLECT}, {"refract", BS_REFRACT}, \
    {"faceforward", BS_FACEFORWARD}, {"any", BS_ANYALL}, {"all", BS_ANYALL}, \
    {"modf", BS_OUTARG}, {"frexp", BS_OUTARG}, \
    {"floatBitsToInt", BS_BITS}, {"floatBitsToUint", BS_BITS}, {"intBitsToFloat", BS_BITS}, \
    {"uintBitsToFloat", BS_BITS},
/* Derivatives by automatic differentiation (docs/Derivatives.md). */
#define DERIV_BUILTINS {"dfdx", BS_DERIV}, {"dfdy", BS_DERIV}, {"fwidth", BS_DERIV},

const sl_builtin sl_builtins[] = {
    {"abs", BS_MAP1},         {"sign", BS_MAP1},         {"floor", BS_MAP1},
    {"ceil", BS_MAP1},        {"round", BS_MAP1},        {"trunc", BS_MAP1},
    {"fract", BS_MAP1},       {"saturate", BS_MAP1},     {"sqrt", BS_MAP1},
    {"inversesqrt", BS_MAP1}, {"rcp", BS_MAP1},          {"exp", BS_MAP1},
    {"exp2", BS_MAP1},        {"log", BS_MAP1},          {"log2", BS_MAP1},
    {"sin", BS_MAP1},         {"cos", BS_MAP1},          {"tan", BS_MAP1},
    {"atan", BS_MAP1},        {"min", BS_MAP2},          {"max", BS_MAP2},
    {"mod", BS_MAP2},         {"step", BS_MAP2},         {"pow", BS_MAP2},
    {"atan2", BS_MAP2},       {"clamp", BS_MAP3},        {"mix", BS_MAP3},
    {"smoothstep", BS_MAP3},  {"select", BS_MAP3},       {"dot", BS_DOT},
    {"length", BS_LENGTH},    {"distance", BS_DISTANCE}, {"normalize", BS_NORMALIZE},
    {"cross", BS_CROSS},      GLSL450_BUILTINS DERIV_BUILTINS};
// clang-format on
const unsigned sl_nbuiltins = sizeof sl_builtins / sizeof sl_builtins[0];

int sl_builtin_find(const char *name, unsigned len)
{
    for (unsigned i = 0; i < sl_nbuiltins; i++)
        if (strlen(sl_builtins[i].name) == len && !memcmp(sl_builtins[i].name, name, len))
            return (int)i;
    return -1;
}

typedef struct sl_callsite {
    sl_func *callee;
    unsigned pos;
    struct sl_callsite *next;
} sl_callsite;

typedef struct checker {
    sl_session *s;
    sl_func *fn;
    sl_var **scope; /* visible variables, innermost last; NULL marks a block start */
    size_t nscope, cap;
    /* name -> innermost binding (open addressing), so lookups stay O(1) in long
     * node-graph functions */
    sl_var **table;
    size_t tcap, tcount;
    unsigned depth;
    sl_callsite **calls; /* per function, indexed parallel to the function list */
} checker;

static bool name_eq(const char *a, unsigned alen, const char *b, unsigned blen)
{
    return alen == blen && !memcmp(a, b, alen);
}

/* The slot of s->func_table for a name: its function or the empty slot. */
static sl_func **func_slot(sl_session *s, const char *name, unsigned len)
{
    size_t mask = s->func_table_cap - 1;
    for (size_t i = fmag_hash_bytes(name, len) & mask;; i = (i + 1) & mask) {
        sl_func **e = &s->func_table[i];
        if (!*e || name_eq((*e)->name, (*e)->name_len, name, len)) return e;
    }
}

static sl_func *find_func(sl_session *s, const char *name, unsigned len)
{
    if (s->func_table) return *func_slot(s, name, len);
    for (sl_func *f = s->funcs; f; f = f->next)
        if (name_eq(f->name, f->name_len, name, len)) return f;
    return NULL;
}

/* The table slot for a name: its binding or the empty slot where it goes. */
static sl_var **table_slot(checker *c, const char *name, unsigned len)
{
    size_t mask = c->tcap - 1;
    for (size_t i = fmag_hash_bytes(name, len) & mask;; i = (i + 1) & mask) {
        sl_var **e = &c->table[i];
        if (!*e || name_eq((*e)->name, (*e)->name_len, name, len)) return e;
    }
}

static bool table_grow(checker *c)
{
    size_t ncap = c->tcap ? c->tcap * 2 : 64;
    sl_var **old = c->table;
    size_t ocap = c->tcap;
    c->table = fmag_tmp_calloc(ncap, sizeof *c->table);
    if (!c->table) {
        c->table = old;
        return false;
    }
    c->tcap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i]) *table_slot(c, old[i]->name, old[i]->name_len) = old[i];
    fmag_tmp_free(old);
    return true;
}

static sl_var *find_var(checker *c, const char *name, unsigned len)
{
    if (!c->tcap) return NULL;
    return *table_slot(c, name, len);
}

/* Pops scope entries above mark, restoring shadowed bindings. Entries stay in the
 * table as deleted-by-shadow: a name whose last binding leaves keeps a NULL-free
 * slot pointing at its shadow (possibly NULL). */
static void pop_to(checker *c, size_t mark)
{
    while (c->nscope > mark) {
        sl_var *v = c->scope[--c->nscope];
        if (!v) continue;
        sl_var **e = table_slot(c, v->name, v->name_len);
        if (*e == v) {
            if (v->shadow) {
                *e = v->shadow;
            } else {
                /* remove with backward-shift deletion to keep probe chains intact */
                size_t mask = c->tcap - 1, i = (size_t)(e - c->table);
                c->table[i] = NULL;
                c->tcount--;
                for (size_t j = (i + 1) & mask; c->table[j]; j = (j + 1) & mask) {
                    sl_var *w = c->table[j];
                    c->table[j] = NULL;
                    *table_slot(c, w->name, w->name_len) = w;
                }
            }
        }
    }
}

static void push_scope_entry(checker *c, sl_var *v)
{
    if (v) {
        if ((c->tcount + 1) * 2 > c->tcap && !table_grow(c)) return;
        sl_var **e = table_slot(c, v->name, v->name_len);
        if (!*e) c->tcount++;
        v->shadow = *e;
        v->depth = c->depth;
        *e = v;
    }
    if (c->nscope == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        sl_var **n = fmag_tmp_realloc(c->scope, cap * sizeof *n);
        if (!n) return; /* the name is then just not visible; the error follows */
        c->scope = n;
        c->cap = cap;
    }
    c->scope[c->nscope++] = v;
}

static unsigned edit_distance(const char *a, unsigned n, const char *b, unsigned m)
{
    if (n > 31 || m > 31) return 99;
    unsigned d[32][32];
    for (unsigned i = 0; i <= n; i++)
        d[i][0] = i;
    for (unsigned j = 0; j <= m; j++)
        d[0][j] = j;
    for (unsigned i = 1; i <= n; i++)
        for (unsigned j = 1; j <= m; j++) {
            unsigned best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

typedef struct suggestion {
    const char *name;
    unsigned len, dist;
} suggestion;

static void consider(suggestion *sg, const char *name, unsigned len, const char *want,
                     unsigned wlen)
{
    unsigned d = edit_distance(want, wlen, name, len);
    unsigned limit = wlen <= 3 ? 1 : wlen <= 6 ? 2 : 3;
    /* Ties between names of one length go to the lexicographically last, so the
     * suggestion does not depend on declaration order (f32x5 suggests f32x4). */
    if (d <= limit &&
        (d < sg->dist || (d == sg->dist && len == sg->len && memcmp(name, sg->name, len) > 0))) {
        sg->name = name;
        sg->len = len;
        sg->dist = d;
    }
}

/* " (did you mean 'x'?)" or "" */
static const char *did_you_mean(checker *c, const char *want, unsigned wlen, bool calls, char *buf,
                                size_t bufsz)
{
    suggestion sg = {NULL, 0, 99};
    if (calls) {
        for (sl_func *f = c->s->funcs; f; f = f->next)
            consider(&sg, f->name, f->name_len, want, wlen);
        for (unsigned i = 0; i < sl_nbuiltins; i++)
            consider(&sg, sl_builtins[i].name, (unsigned)strlen(sl_builtins[i].name), want, wlen);
        static const char *const types[] = {"f32",   "f32x2", "f32x3", "f32x4", "i32",   "i32x2",
                                            "i32x3", "i32x4", "u32",   "u32x2", "u32x3", "u32x4"};
        for (unsigned i = 0; i < sizeof types / sizeof types[0]; i++)
            consider(&sg, types[i], (unsigned)strlen(types[i]), want, wlen);
    } else {
        for (size_t i = 0; i < c->nscope; i++)
            if (c->scope[i]) consider(&sg, c->scope[i]->name, c->scope[i]->name_len, want, wlen);
    }
    if (!sg.name) return "";
    snprintf(buf, bufsz, " (did you mean '%.*s'?)", (int)sg.len, sg.name);
    return buf;
}

static int check_expr(checker *c, sl_expr *e);

/* A value-producing expression: void is an error here. */
static int check_value(checker *c, sl_expr *e)
{
    int t = check_expr(c, e);
    if (t == SL_VOID) {
        sl_error(c->s, e->pos, "void value used in an expression");
        return SL_ERR;
    }
    return t;
}

static bool is_lit(int t)
{
    return t > 0 && (SL_KIND(t) == SL_KLIT || SL_KIND(t) == SL_KLITI);
}

static bool is_int_op(sl_tok_kind op)
{
    return op == TK_PERCENT || op == TK_AMP || op == TK_PIPE || op == TK_CARET || op == TK_SHL ||
           op == TK_SHR || op == TK_TILDE || op == TK_PERCENT_ASSIGN || op == TK_AMP_ASSIGN ||
           op == TK_PIPE_ASSIGN || op == TK_CARET_ASSIGN || op == TK_SHL_ASSIGN ||
           op == TK_SHR_ASSIGN;
}

/* Gives an expression of integer literals (SL_KLIT) the type of its context: kind is
 * f32, i32 or u32. Each literal must fit (a decimal i32 up to 2^31 - 1; hex and u32
 * up to 2^32 - 1); an integer-only operator cannot become f32. Returns the new type,
 * or SL_ERR after reporting. */
static int coerce(checker *c, sl_expr *e, int kind)
{
    sl_session *s = c->s;
    int t = SL_TYPE(kind, 1);
    if (!is_lit(e->type)) return e->type;
    switch (e->kind) {
    case EX_NUM:
        if (kind == SL_KI32 && e->lit == LIT_DEC && e->ival > 0x7FFFFFFFu) {
            sl_error(s, e->pos,
                     "integer literal does not fit in i32 (the largest is 2147483647; write a "
                     "u32 with a 'u' suffix, or the bits in hex)");
            return e->type = SL_ERR;
        }
        if (kind == SL_KU32 && e->ival > 0xFFFFFFFFu) {
            sl_error(s, e->pos, "integer literal does not fit in u32 (the largest is 4294967295)");
            return e->type = SL_ERR;
        }
        break;
    case EX_UNARY:
        if (kind == SL_KF32 && e->op == TK_TILDE) goto int_only;
        if (coerce(c, e->a, kind) == SL_ERR) return e->type = SL_ERR;
        break;
    case EX_BINARY:
        if (kind == SL_KF32 && is_int_op(e->op)) goto int_only;
        if (coerce(c, e->a, kind) == SL_ERR || coerce(c, e->b, kind) == SL_ERR)
            return e->type = SL_ERR;
        break;
    case EX_TERNARY:
        if (coerce(c, e->b, kind) == SL_ERR || coerce(c, e->c, kind) == SL_ERR)
            return e->type = SL_ERR;
        break;
    case EX_CALL: /* abs min max clamp select of literals (check_call) */
        for (unsigned i = 0; i < e->nargs; i++) /* select's settled condition stays */
            if (coerce(c, e->args[i], kind) == SL_ERR) return e->type = SL_ERR;
        break;
    default:
        break;
    }
    return e->type = t;
int_only:
    sl_error(s, e->pos,
             "operator %s on integer literals gives an integer, not the f32 expected here "
             "(convert with f32(...))",
             sl_tok_desc(e->op));
    return e->type = SL_ERR;
}

/* Where no context gives a literal expression its type: f32 (what every unsuffixed
 * number meant before SL had integers), i32 once an integer-only operator is in it. */
static int settle(checker *c, sl_expr *e)
{
    if (!is_lit(e->type)) return e->type;
    return coerce(c, e, SL_KIND(e->type) == SL_KLITI ? SL_KI32 : SL_KF32);
}

/* A scalar whose truth is asked (`if`, `?:`, `!`, `&&`, `||`): any kind, != 0. */
static int check_scalar(checker *c, sl_expr *e, const char *what)
{
    int t = check_value(c, e);
    if (t == SL_ERR) return t;
    if (SL_WIDTH(t) > 1) {
        sl_error(c->s, e->pos, "%s must be a scalar, got %s", what, sl_type_name(t));
        return SL_ERR;
    }
    return settle(c, e);
}

/* Common width of component-wise operands of one kind: equal widths, or a scalar
 * broadcast. */
static int broadcast(checker *c, unsigned pos, const char *what, int a, int b)
{
    if (a == SL_ERR || b == SL_ERR) return SL_ERR;
    if (a == b || SL_WIDTH(b) == 1) return a;
    if (SL_WIDTH(a) == 1) return b;
    sl_error(c->s, pos, "%s: mismatched types %s and %s", what, sl_type_name(a), sl_type_name(b));
    return SL_ERR;
}

/* The one kind of n operands: a typed operand's kind, which the literal operands then
 * take; two typed operands must agree (SL converts nothing else implicitly). With
 * only literals: SL_KLIT/SL_KLITI when keep_lit, else they settle. types[] is
 * updated. Returns the kind, or -1 after reporting. */
static int unify_kinds(checker *c, unsigned pos, const char *what, sl_expr **es, int *types,
                       unsigned n, bool keep_lit)
{
    int kind = -1, lit = SL_KLIT;
    for (unsigned i = 0; i < n; i++) {
        if (types[i] == SL_ERR) return -1;
        int k = SL_KIND(types[i]);
        if (is_lit(types[i])) {
            if (k == SL_KLITI) lit = SL_KLITI;
            continue;
        }
        if (kind >= 0 && k != kind) {
            if (n == 2)
                sl_error(c->s, pos,
                         "%s: mismatched types %s and %s (only literals convert implicitly; "
                         "write f32(x), i32(x) or u32(x))",
                         what, sl_type_name(types[0]), sl_type_name(types[1]));
            else
                sl_error(c->s, pos,
                         "%s: mixes %s and %s (only literals convert implicitly; write f32(x), "
                         "i32(x) or u32(x))",
                         what, sl_type_name(SL_TYPE(kind, 1)), sl_type_name(SL_TYPE(k, 1)));
            return -1;
        }
        kind = k;
    }
    if (kind < 0) {
        if (keep_lit) return lit;
        kind = lit == SL_KLITI ? SL_KI32 : SL_KF32;
    }
    for (unsigned i = 0; i < n; i++)
        if (is_lit(types[i]) && (types[i] = coerce(c, es[i], kind)) == SL_ERR) return -1;
    return kind;
}

/* The type of a binary operator's result, both operands checked (e->a, e->b). */
static int check_binary(checker *c, sl_expr *e, int a, int b)
{
    sl_session *s = c->s;
    char what[32];
    snprintf(what, sizeof what, "operator %s", sl_tok_desc(e->op));
    if (a == SL_ERR || b == SL_ERR) return SL_ERR;
    sl_expr *es[2] = {e->a, e->b};
    int ts[2] = {a, b};
    if (e->op == TK_SHL || e->op == TK_SHR) {
        /* The amount may be signed or unsigned; the result has the left side's type. */
        bool li = is_lit(a) || SL_KIND_IS_INT(SL_KIND(a)),
             ri = is_lit(b) || SL_KIND_IS_INT(SL_KIND(b));
        if (!li || !ri) {
            sl_error(s, e->pos, "operator %s needs integer operands, got %s and %s",
                     sl_tok_desc(e->op), sl_type_name(a), sl_type_name(b));
            return SL_ERR;
        }
        /* A literal shifted takes its type from the context, as the left side does
         * in C: the amount's type has no say (1 << u is an i32 where nothing says). */
        if (is_lit(a) && SL_WIDTH(b) == 1) return SL_TYPE(SL_KLITI, 1);
        if (is_lit(a) && (a = coerce(c, e->a, SL_KIND(b))) == SL_ERR) return SL_ERR;
        if (is_lit(b) && (b = coerce(c, e->b, SL_KIND(a))) == SL_ERR) return SL_ERR;
        if (SL_WIDTH(b) != 1 && SL_WIDTH(b) != SL_WIDTH(a)) {
            sl_error(s, e->pos,
                     "%s: cannot shift %s by %s (the amount is a scalar or one per lane)", what,
                     sl_type_name(a), sl_type_name(b));
            return SL_ERR;
        }
        return a;
    }
    bool cmp = e->op == TK_LT || e->op == TK_GT || e->op == TK_LE || e->op == TK_GE ||
               e->op == TK_EQ || e->op == TK_NE;
    if (cmp && (SL_WIDTH(a) != 1 || SL_WIDTH(b) != 1)) {
        sl_error(s, e->pos, "operands of %s must be scalars, got %s and %s", sl_tok_desc(e->op),
                 sl_type_name(a), sl_type_name(b));
        return SL_ERR;
    }
    if (is_int_op(e->op) && (SL_KIND(a) == SL_KF32 || SL_KIND(b) == SL_KF32)) {
        sl_error(s, e->pos, "operator %s needs integer operands, got %s and %s%s",
                 sl_tok_desc(e->op), sl_type_name(a), sl_type_name(b),
                 e->op == TK_PERCENT ? " (for f32 use mod(x, y))" : "");
        return SL_ERR;
    }
    int kind = unify_kinds(c, e->pos, what, es, ts, 2, !cmp);
    if (kind < 0) return SL_ERR;
    if (cmp) return SL_TYPE(SL_KF32, 1);
    if (is_int_op(e->op) && kind == SL_KLIT) kind = SL_KLITI;
    return broadcast(c, e->pos, what, SL_TYPE(kind, SL_WIDTH(ts[0])),
                     SL_TYPE(kind, SL_WIDTH(ts[1])));
}

static int check_swizzle(checker *c, sl_expr *e)
{
    int bt = check_value(c, e->a);
    if (bt == SL_ERR || (bt = settle(c, e->a)) == SL_ERR) return SL_ERR;
    int bkind = SL_KIND(bt);
    bt = SL_WIDTH(bt);
    const char *sets[2] = {"xyzw", "rgba"};
    if (e->name_len > 4) {
        sl_error(c->s, e->pos + 1, "swizzle '%.*s' has more than 4 components",
                 (int)(e->name_len > 40 ? 40 : e->name_len), e->name);
        return SL_ERR;
    }
    int set = -1;
    for (unsigned i = 0; i < e->name_len; i++) {
        int which = -1, idx = -1;
        for (int k = 0; k < 2; k++) {
            const char *p = strchr(sets[k], e->name[i]);
            if (p && e->name[i]) {
                which = k;
                idx = (int)(p - sets[k]);
            }
        }
        if (which < 0) {
            sl_error(c->s, e->pos + 1,
                     "invalid swizzle component '%c' in '%.*s' (use xyzw or rgba)", e->name[i],
                     (int)e->name_len, e->name);
            return SL_ERR;
        }
        if (set >= 0 && which != set) {
            sl_error(c->s, e->pos + 1, "swizzle '%.*s' mixes xyzw and rgba components",
                     (int)e->name_len, e->name);
            return SL_ERR;
        }
        set = which;
        if (idx >= bt) {
            sl_error(c->s, e->pos + 1, "swizzle component '%c' out of range for type %s",
                     e->name[i], sl_type_name(SL_TYPE(bkind, bt)));
            return SL_ERR;
        }
        e->comp[i] = (unsigned char)idx;
    }
    e->ncomp = e->name_len;
    return SL_TYPE(bkind, (int)e->ncomp);
}

/* An assignable expression: a variable or a swizzle of one without repeats. */
static bool check_lvalue(checker *c, sl_expr *e, const char *what)
{
    if (e->type == SL_ERR) return false;
    if (e->kind == EX_VAR && e->var && e->var->is_const) {
        sl_error(c->s, e->pos, "cannot assign to '%.*s': it is const (%s)", (int)e->var->name_len,
                 e->var->name, what);
        sl_note(c->s, e->var->pos, "'%.*s' is declared const here", (int)e->var->name_len,
                e->var->name);
        return false;
    }
    if (e->kind == EX_VAR) return e->var != NULL;
    if (e->kind == EX_SWIZZLE) {
        if (!check_lvalue(c, e->a, what)) return false;
        for (unsigned i = 0; i < e->ncomp; i++)
            for (unsigned j = i + 1; j < e->ncomp; j++)
                if (e->comp[i] == e->comp[j]) {
                    sl_error(c->s, e->pos + 1, "swizzle '%.*s' repeats component '%c' in %s",
                             (int)e->name_len, e->name, e->name[j], what);
                    return false;
                }
        return true;
    }
    sl_error(c->s, e->pos, "%s must be a variable or a swizzle of one", what);
    return false;
}

static void record_call(checker *c, sl_func *callee, unsigned pos)
{
    sl_callsite *cs = fmag_context_alloc(c->s->ctx, sizeof *cs);
    cs->callee = callee;
    cs->pos = pos;
    cs->next = c->fn->calls;
    c->fn->calls = cs;
}

static int check_call(checker *c, sl_expr *e)
{
    sl_session *s = c->s;
    int types[64];
    bool bad = false;
    if (e->call_kind == CALL_CTOR) {
        /* A constructor converts: each argument's lanes become the constructor's kind
         * (i32(x) truncates toward zero; literals take the kind directly). */
        int total = 0, want = SL_WIDTH(e->ctor_width);
        for (unsigned i = 0; i < e->nargs; i++) {
            types[i] = check_value(c, e->args[i]);
            /* f32(1 << 4): an integer-only literal expression is an i32, converted. */
            if (types[i] != SL_ERR && is_lit(types[i]))
                types[i] = SL_KIND(types[i]) == SL_KLITI && SL_KIND(e->ctor_width) == SL_KF32
                               ? settle(c, e->args[i])
                               : coerce(c, e->args[i], SL_KIND(e->ctor_width));
            if (types[i] == SL_ERR)
                bad = true;
            else
                total += SL_WIDTH(types[i]);
        }
        if (bad) return SL_ERR;
        if (e->nargs == 1 && total == 1) return e->ctor_width;
        if (total != want) {
            sl_error(s, e->pos, "constructor %s needs %d components (or one scalar), got %d",
                     sl_type_name(e->ctor_width), want, total);
            return SL_ERR;
        }
        return e->ctor_width;
    }
    sl_func *f = find_func(s, e->name, e->name_len);
    if (f && !c->fn) {
        sl_error(s, e->pos, "a file-scope constant cannot call function '%.*s' (builtins are fine)",
                 (int)f->name_len, f->name);
        return SL_ERR;
    }
    if (f) {
        e->call_kind = CALL_USER;
        e->callee = f;
        record_call(c, f, e->pos);
        if (e->nargs != f->nparams) {
            sl_error(s, e->pos, "function '%.*s' takes %u argument%s, got %u", (int)f->name_len,
                     f->name, f->nparams, f->nparams == 1 ? "" : "s", e->nargs);
            for (unsigned i = 0; i < e->nargs; i++)
                check_expr(c, e->args[i]);
            return SL_ERR;
        }
        unsigned i = 0;
        for (sl_var *p = f->params; p; p = p->next, i++) {
            int t = check_value(c, e->args[i]);
            if (t != SL_ERR && is_lit(t)) t = coerce(c, e->args[i], SL_KIND(p->type));
            if (t == SL_ERR) {
                bad = true;
                continue;
            }
            if (t != p->type) {
                sl_error(s, e->args[i]->pos, "argument %u of '%.*s': expected %s, got %s", i + 1,
                         (int)f->name_len, f->name, sl_type_name(p->type), sl_type_name(t));
                bad = true;
                continue;
            }
            if (p->is_out && !check_lvalue(c, e->args[i], "an 'out' argument")) bad = true;
        }
        return bad ? SL_ERR : f->ret_type;
    }
    int bi = sl_builtin_find(e->name, e->name_len);
    if (bi < 0) {
        char buf[96];
        sl_error(s, e->pos, "call to undeclared function '%.*s'%s",
                 (int)(e->name_len > 64 ? 64 : e->name_len), e->name,
                 did_you_mean(c, e->name, e->name_len, true, buf, sizeof buf));
        for (unsigned i = 0; i < e->nargs; i++)
            check_expr(c, e->args[i]);
        return SL_ERR;
    }
    /* GLSL spells atan2(y, x) as a two-argument atan */
    if (!strcmp(sl_builtins[bi].name, "atan") && e->nargs == 2) bi = sl_builtin_find("atan2", 5);
    e->call_kind = CALL_BUILTIN;
    e->builtin = bi;
    const sl_builtin *b = &sl_builtins[bi];
    unsigned want = 0;
    switch (b->shape) {
    case BS_MAP1:
    case BS_LENGTH:
    case BS_NORMALIZE:
    case BS_ANYALL:
    case BS_BITS:
    case BS_DERIV:
        want = 1;
        break;
    case BS_MAP2:
    case BS_DOT:
    case BS_DISTANCE:
    case BS_CROSS:
    case BS_REFLECT:
    case BS_OUTARG:
        want = 2;
        break;
    case BS_MAP3:
    case BS_REFRACT:
    case BS_FACEFORWARD:
        want = 3;
        break;
    }
    for (unsigned i = 0; i < e->nargs; i++) {
        types[i] = check_value(c, e->args[i]);
        if (types[i] == SL_ERR) bad = true;
    }
    if (e->nargs != want) {
        if (!strcmp(b->name, "atan")) /* atan(x) and GLSL's atan(y, x) */
            sl_error(s, e->pos,
                     "builtin 'atan' takes 1 argument (atan(x)) or 2 (atan(y, x)), "
                     "got %u",
                     e->nargs);
        else
            sl_error(s, e->pos, "builtin '%s' takes %u argument%s, got %u", b->name, want,
                     want == 1 ? "" : "s", e->nargs);
        return SL_ERR;
    }
    if (bad) return SL_ERR;
    /* abs min max clamp and select's arms also take integers (of one kind); every other
     * builtin takes f32, and a literal argument is an f32 as it always was. */
    bool int_ok = !strcmp(b->name, "abs") || !strcmp(b->name, "min") || !strcmp(b->name, "max") ||
                  !strcmp(b->name, "clamp");
    bool is_select = !strcmp(b->name, "select");
    if (is_select) {
        if (settle(c, e->args[0]) == SL_ERR) return SL_ERR;
        types[0] = e->args[0]->type;
        if (SL_WIDTH(types[0]) == 1 && is_lit(types[1]) && is_lit(types[2]))
            return SL_TYPE(SL_KIND(types[1]) == SL_KLITI || SL_KIND(types[2]) == SL_KLITI ? SL_KLITI
                                                                                          : SL_KLIT,
                           1);
        int kind = unify_kinds(c, e->pos, b->name, e->args + 1, types + 1, 2, false);
        if (kind < 0) return SL_ERR;
        int arms = broadcast(c, e->pos, b->name, types[1], types[2]);
        if (arms == SL_ERR) return SL_ERR;
        int w = SL_WIDTH(arms);
        int cw = SL_WIDTH(types[0]);
        if (cw != 1 && cw != w && w != 1) {
            sl_error(s, e->pos, "%s: mismatched types %s and %s", b->name, sl_type_name(types[0]),
                     sl_type_name(SL_TYPE(kind, w)));
            return SL_ERR;
        }
        return SL_TYPE(kind, cw > w ? cw : w);
    }
    if (b->shape == BS_BITS) {
        /* GLSL's names; the argument's kind is the one the name starts with. */
        int from = b->name[0] == 'f' ? SL_KF32 : b->name[0] == 'i' ? SL_KI32 : SL_KU32;
        int to = from != SL_KF32 ? SL_KF32 : b->name[11] == 'I' ? SL_KI32 : SL_KU32;
        if (is_lit(types[0]) && (types[0] = coerce(c, e->args[0], from)) == SL_ERR) return SL_ERR;
        if (SL_KIND(types[0]) != from) {
            sl_error(s, e->args[0]->pos, "builtin '%s' takes %s, got %s", b->name,
                     sl_type_name(SL_TYPE(from, 1)), sl_type_name(types[0]));
            return SL_ERR;
        }
        return SL_TYPE(to, SL_WIDTH(types[0]));
    }
    if (int_ok) {
        /* Of literals only, the call is a literal expression itself: max(3, 5) + i is
         * an i32 and max(3, 5) * x an f32. */
        int kind = unify_kinds(c, e->pos, b->name, e->args, types, e->nargs, true);
        if (kind < 0) return SL_ERR;
        if (kind == SL_KLIT || kind == SL_KLITI) return SL_TYPE(kind, 1);
    } else {
        for (unsigned i = 0; i < e->nargs; i++) {
            if (is_lit(types[i])) types[i] = coerce(c, e->args[i], SL_KF32);
            if (types[i] == SL_ERR) return SL_ERR;
            if (SL_KIND(types[i]) != SL_KF32) {
                sl_error(s, e->args[i]->pos, "builtin '%s' takes f32 arguments, got %s (%s)",
                         b->name, sl_type_name(types[i]),
                         !strcmp(b->name, "mod") ? "for integers use %" : "convert with f32(...)");
                return SL_ERR;
            }
        }
    }
    switch (b->shape) {
    case BS_DERIV:
        s->uses_derivs = true;
        return types[0];
    case BS_MAP1:
        return types[0];
    case BS_MAP2:
        return broadcast(c, e->pos, b->name, types[0], types[1]);
    case BS_MAP3: {
        int t = broadcast(c, e->pos, b->name, types[0], types[1]);
        return t == SL_ERR ? t : broadcast(c, e->pos, b->name, t, types[2]);
    }
    case BS_DOT:
    case BS_DISTANCE:
        if (types[0] != types[1]) {
            sl_error(s, e->pos, "%s: mismatched types %s and %s", b->name, sl_type_name(types[0]),
                     sl_type_name(types[1]));
            return SL_ERR;
        }
        return 1;
    case BS_LENGTH:
        return 1;
    case BS_NORMALIZE:
        return types[0];
    case BS_CROSS:
        if (types[0] != 3 || types[1] != 3) {
            sl_error(s, e->pos, "cross needs two f32x3 operands, got %s and %s",
                     sl_type_name(types[0]), sl_type_name(types[1]));
            return SL_ERR;
        }
        return 3;
    case BS_REFLECT:
    case BS_FACEFORWARD:
    case BS_OUTARG:
        for (unsigned i = 1; i < e->nargs; i++)
            if (types[i] != types[0]) {
                sl_error(s, e->args[i]->pos, "%s: mismatched types %s and %s", b->name,
                         sl_type_name(types[0]), sl_type_name(types[i]));
                return SL_ERR;
            }
        if (b->shape == BS_OUTARG && !check_lvalue(c, e->args[1], "an 'out' argument"))
            return SL_ERR;
        return types[0];
    case BS_REFRACT:
        if (types[0] != types[1] || types[2] != 1) {
            sl_error(s, e->pos, "refract needs two vectors of one type and an f32, got %s, %s, %s",
                     sl_type_name(types[0]), sl_type_name(types[1]), sl_type_name(types[2]));
            return SL_ERR;
        }
        return types[0];
    case BS_ANYALL:
        return 1;
    case BS_BITS:
        break; /* handled above */
    }
    return SL_ERR;
}

static int check_expr_inner(checker *c, sl_expr *e)
{
    sl_session *s = c->s;
    switch (e->kind) {
    case EX_NUM:
        if (e->lit == LIT_FLOAT) return SL_TYPE(SL_KF32, 1);
        if (e->lit == LIT_U32) return SL_TYPE(SL_KU32, 1);
        return SL_TYPE(SL_KLIT, 1);
    case EX_VAR: {
        sl_var *v = find_var(c, e->name, e->name_len);
        if (v) {
            e->var = v;
            return v->type;
        }
        if (find_func(s, e->name, e->name_len) || sl_builtin_find(e->name, e->name_len) >= 0) {
            sl_error(s, e->pos, "'%.*s' is a function; call it with arguments", (int)e->name_len,
                     e->name);
            return SL_ERR;
        }
        char buf[96];
        sl_error(s, e->pos, "use of undeclared identifier '%.*s'%s",
                 (int)(e->name_len > 64 ? 64 : e->name_len), e->name,
                 did_you_mean(c, e->name, e->name_len, false, buf, sizeof buf));
        return SL_ERR;
    }
    case EX_CALL:
        return check_call(c, e);
    case EX_UNARY: {
        if (e->op == TK_NOT) {
            int t = check_scalar(c, e->a, "operand of '!'");
            return t == SL_ERR ? t : SL_TYPE(SL_KF32, 1);
        }
        int t = check_value(c, e->a);
        if (t == SL_ERR || e->op != TK_TILDE) return t;
        if (SL_KIND(t) == SL_KLIT || SL_KIND(t) == SL_KLITI) return SL_TYPE(SL_KLITI, 1);
        if (!SL_KIND_IS_INT(SL_KIND(t))) {
            sl_error(s, e->pos, "operator '~' needs an integer operand, got %s", sl_type_name(t));
            return SL_ERR;
        }
        return t;
    }
    case EX_BINARY: {
        if (e->op == TK_ANDAND || e->op == TK_OROR) {
            char what[40];
            snprintf(what, sizeof what, "operand of %s", sl_tok_desc(e->op));
            int a = check_scalar(c, e->a, what), b = check_scalar(c, e->b, what);
            return a == SL_ERR || b == SL_ERR ? SL_ERR : SL_TYPE(SL_KF32, 1);
        }
        int a = check_value(c, e->a), b = check_value(c, e->b);
        return check_binary(c, e, a, b);
    }
    case EX_TERNARY: {
        int cond = check_scalar(c, e->a, "condition of '?:'");
        sl_expr *es[2] = {e->b, e->c};
        int ts[2] = {check_value(c, e->b), check_value(c, e->c)};
        int kind = unify_kinds(c, e->pos, "arms of '?:'", es, ts, 2, true);
        if (kind < 0) return SL_ERR;
        int t = broadcast(c, e->pos, "arms of '?:'", SL_TYPE(kind, SL_WIDTH(ts[0])),
                          SL_TYPE(kind, SL_WIDTH(ts[1])));
        return cond == SL_ERR ? SL_ERR : t;
    }
    case EX_SWIZZLE:
        return check_swizzle(c, e);
    }
    return SL_ERR;
}

static int check_expr(checker *c, sl_expr *e)
{
    e->type = check_expr_inner(c, e);
    return e->type;
}

/* The value e (of type `got`) stored where `want` is expected: equal, a scalar of the
 * same kind (broadcast), or a literal expression, which takes want's kind. */
static bool check_store(checker *c, sl_expr *e, const char *what, int want, int got)
{
    if (want == SL_ERR || got == SL_ERR) return false;
    if (is_lit(got) && (got = coerce(c, e, SL_KIND(want))) == SL_ERR) return false;
    if (want == got || got == SL_TYPE(SL_KIND(want), 1)) return true;
    if (SL_KIND(want) != SL_KIND(got))
        sl_error(c->s, e->pos, "%s: cannot assign %s to %s (convert with %s(...))", what,
                 sl_type_name(got), sl_type_name(want), sl_type_name(want));
    else
        sl_error(c->s, e->pos, "%s: cannot assign %s to %s", what, sl_type_name(got),
                 sl_type_name(want));
    return false;
}

static bool check_stmt(checker *c, sl_stmt *st);

static bool check_block(checker *c, sl_stmt *blk)
{
    size_t mark = c->nscope;
    bool falls = true;
    c->depth++;
    for (sl_stmt *st = blk->body; st; st = st->next)
        if (!check_stmt(c, st)) falls = false;
    pop_to(c, mark);
    c->depth--;
    return falls;
}

static bool check_stmt(checker *c, sl_stmt *st)
{
    sl_session *s = c->s;
    switch (st->kind) {
    case ST_DECL: {
        sl_var *v = st->var;
        if (st->e) {
            int t = check_value(c, st->e);
            check_store(c, st->e, "initializer", v->type, t);
        }
        /* Redefinition is an error only within one block (inner blocks may shadow). */
        sl_var *prev = find_var(c, v->name, v->name_len);
        if (prev && prev->depth == c->depth && !prev->is_param)
            sl_error(s, v->pos, "redefinition of '%.*s'", (int)v->name_len, v->name);
        /* Parameters live in the function body's outermost block, as in C. */
        if (prev && prev->is_param && prev->depth + 1 == c->depth) {
            sl_error(s, v->pos, "redeclaration of '%.*s'", (int)v->name_len, v->name);
            sl_note(s, prev->pos, "'%.*s' is a parameter of '%.*s'", (int)prev->name_len,
                    prev->name, (int)c->fn->name_len, c->fn->name);
        }
        v->slot = c->fn->nslots;
        c->fn->nslots += (unsigned)SL_WIDTH(v->type);
        push_scope_entry(c, v);
        return true;
    }
    case ST_ASSIGN: {
        int lt = check_value(c, st->lhs);
        int rt = check_value(c, st->e);
        if (lt == SL_ERR || rt == SL_ERR) return true;
        if (!check_lvalue(c, st->lhs, "the left side of an assignment")) return true;
        if (st->op == TK_ASSIGN) {
            check_store(c, st->e, "assignment", lt, rt);
            return true;
        }
        bool shift = st->op == TK_SHL_ASSIGN || st->op == TK_SHR_ASSIGN;
        if (is_int_op(st->op) && !SL_KIND_IS_INT(SL_KIND(lt))) {
            sl_error(s, st->pos, "operator %s needs an integer variable, got %s%s",
                     sl_tok_desc(st->op), sl_type_name(lt),
                     st->op == TK_PERCENT_ASSIGN ? " (for f32 use x = mod(x, y))" : "");
            return true;
        }
        if (is_lit(rt) && (rt = coerce(c, st->e, SL_KIND(lt))) == SL_ERR) return true;
        bool kind_ok = shift ? SL_KIND_IS_INT(SL_KIND(rt)) : SL_KIND(rt) == SL_KIND(lt);
        if (!kind_ok || (SL_WIDTH(rt) != SL_WIDTH(lt) && SL_WIDTH(rt) != 1))
            sl_error(s, st->pos, "operator %s: mismatched types %s and %s", sl_tok_desc(st->op),
                     sl_type_name(lt), sl_type_name(rt));
        return true;
    }
    case ST_EXPR:
        if (check_expr(c, st->e) != SL_ERR) settle(c, st->e);
        return true;
    case ST_IF: {
        check_scalar(c, st->e, "condition of 'if'");
        /* A lone statement arm gets its own scope, as a block would. */
        size_t mark = c->nscope;
        c->depth++;
        bool t = check_stmt(c, st->then_s);
        pop_to(c, mark);
        bool e = true;
        if (st->else_s) {
            e = check_stmt(c, st->else_s);
            pop_to(c, mark);
        }
        c->depth--;
        return t || e;
    }
    case ST_RETURN: {
        sl_func *f = c->fn;
        if (f->ret_type == SL_VOID) {
            if (st->e) {
                check_expr(c, st->e);
                sl_error(s, st->pos, "void function '%.*s' cannot return a value", (int)f->name_len,
                         f->name);
            }
        } else if (!st->e) {
            sl_error(s, st->pos, "function '%.*s' must return a value of type %s", (int)f->name_len,
                     f->name, sl_type_name(f->ret_type));
        } else {
            int t = check_value(c, st->e);
            if (t != SL_ERR && is_lit(t)) t = coerce(c, st->e, SL_KIND(f->ret_type));
            if (t != SL_ERR && t != f->ret_type && t != SL_TYPE(SL_KIND(f->ret_type), 1))
                sl_error(s, st->e->pos, "return value: expected %s, got %s%s",
                         sl_type_name(f->ret_type), sl_type_name(t),
                         SL_KIND(t) != SL_KIND(f->ret_type) ? " (convert it explicitly)" : "");
        }
        return false;
    }
    case ST_BLOCK:
        return check_block(c, st);
    case ST_FOR: {
        /* The counter's scope is the loop; the body has a scope of its own. */
        size_t mark = c->nscope;
        c->depth++;
        for (sl_stmt *i = st->init; i; i = i->next)
            check_stmt(c, i);
        if (st->e) check_scalar(c, st->e, "condition of 'for'");
        if (st->step) check_stmt(c, st->step);
        size_t body = c->nscope;
        c->depth++;
        check_stmt(c, st->then_s);
        pop_to(c, body);
        c->depth--;
        pop_to(c, mark);
        c->depth--;
        /* The body may run zero times; without a condition (and SL has no break)
         * the loop only ends by returning. */
        return st->e != NULL;
    }
    }
    return true;
}

/* File-scope constants: each initializer sees the constants before it. Their
 * slots number the file's global slots (irgen evaluates them at the entry of each
 * function that reads them). */
static void check_globals(checker *c)
{
    sl_session *s = c->s;
    c->fn = NULL;
    s->nglobal_slots = 0;
    for (sl_stmt *st = s->globals; st; st = st->next) {
        sl_var *v = st->var;
        int t = check_value(c, st->e);
        check_store(c, st->e, "initializer", v->type, t);
        sl_var *prev = find_var(c, v->name, v->name_len);
        if (prev) {
            sl_error(s, v->pos, "redefinition of '%.*s'", (int)v->name_len, v->name);
            sl_note(s, prev->pos, "'%.*s' was declared here", (int)prev->name_len, prev->name);
        }
        if (find_func(s, v->name, v->name_len))
            sl_error(s, v->pos, "'%.*s' is already the name of a function", (int)v->name_len,
                     v->name);
        v->slot = s->nglobal_slots;
        s->nglobal_slots += (unsigned)SL_WIDTH(v->type);
        push_scope_entry(c, v);
    }
}

static void check_recursion(sl_session *s, sl_func *f)
{
    f->visit = 1;
    for (sl_callsite *cs = f->calls; cs; cs = cs->next) {
        if (cs->callee->visit == 1) {
            sl_error(s, cs->pos, "recursive call to '%.*s' (recursion is not supported)",
                     (int)cs->callee->name_len, cs->callee->name);
        } else if (cs->callee->visit == 0) {
            check_recursion(s, cs->callee);
        }
    }
    f->visit = 2;
}

void sl_check(sl_session *s)
{
    checker c;
    memset(&c, 0, sizeof c);
    c.s = s;
    check_globals(&c);
    size_t nglobals = c.nscope, nf = 0;
    for (sl_func *f = s->funcs; f; f = f->next)
        nf++;
    s->func_table_cap = 16;
    while (s->func_table_cap < 2 * nf)
        s->func_table_cap *= 2;
    s->func_table = fmag_tmp_calloc(s->func_table_cap, sizeof *s->func_table);
    for (sl_func *f = s->funcs; f && s->func_table; f = f->next) {
        sl_func **e = func_slot(s, f->name, f->name_len);
        if (!*e) *e = f;
    }
    for (sl_func *f = s->funcs; f; f = f->next) {
        /* Reported here, in source order with the function's other errors. */
        if (find_func(s, f->name, f->name_len) != f)
            sl_error(s, f->pos, "redefinition of function '%.*s'", (int)f->name_len, f->name);
        if (sl_builtin_find(f->name, f->name_len) >= 0)
            sl_error(s, f->pos, "function '%.*s' redefines a builtin", (int)f->name_len, f->name);
        c.fn = f;
        pop_to(&c, nglobals);
        c.depth = 0;
        f->nslots = 0;
        for (sl_var *p = f->params; p; p = p->next) {
            for (sl_var *q = f->params; q != p; q = q->next)
                if (name_eq(p->name, p->name_len, q->name, q->name_len))
                    sl_error(s, p->pos, "redefinition of parameter '%.*s'", (int)p->name_len,
                             p->name);
            p->slot = f->nslots;
            f->nslots += (unsigned)SL_WIDTH(p->type);
            push_scope_entry(&c, p);
        }
        bool falls = check_block(&c, f->body);
        if (falls && f->ret_type != SL_VOID)
            sl_error(s, f->pos, "control can reach the end of non-void function '%.*s'",
                     (int)f->name_len, f->name);
        if (f->is_export && f->name_len > 0xFFFFu)
            sl_error(s, f->pos,
                     "export function name is %u bytes long; a program name holds at most 65535 "
                     "(the .fmag header's 16-bit length)",
                     f->name_len);
        if (f->is_export) {
            unsigned nout = (unsigned)SL_WIDTH(f->ret_type);
            for (sl_var *p = f->params; p; p = p->next)
                if (p->is_out) nout += (unsigned)SL_WIDTH(p->type);
            if (nout == 0)
                sl_error(s, f->pos,
                         "export function '%.*s' has no outputs (return a value or add an 'out' "
                         "parameter)",
                         (int)f->name_len, f->name);
        }
    }
    for (sl_func *f = s->funcs; f; f = f->next)
        if (f->visit == 0) check_recursion(s, f);
    if (s->opts.entry) {
        sl_func *f = find_func(s, s->opts.entry, (unsigned)strlen(s->opts.entry));
        if (!f || !f->is_export) {
            fmag_context_report(s->ctx, FMAG_DIAG_ERROR, s->filename, 0, 0,
                                "no export function named '%s'", s->opts.entry);
            s->nerrors++;
        }
    }
    fmag_tmp_free(c.scope);
    fmag_tmp_free(c.table);
    fmag_tmp_free(s->func_table);
    s->func_table = NULL;
}
