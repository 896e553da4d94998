/* SL parser: recursive descent from tokens to the AST. On a syntax error it reports,
 * skips to the end of the statement (or function) and goes on, so one run reports
 * several errors. Nesting is bounded so hostile input cannot exhaust the stack.
 *
 *   program := { ['export'] type IDENT '(' [param {',' param}] ')' block }
 *   param   := ['out'] type IDENT
 *   stmt    := block | 'if' '(' expr ')' stmt ['else' stmt] | 'return' [expr] ';'
 *            | decl ';' | ';' | simple ';'
 *            | 'for' '(' [decl | simple] ';' [expr] ';' [simple] ')' stmt
 *   decl    := ['const'] type IDENT ['=' expr] {',' IDENT ['=' expr]}
 *   simple  := expr [('=' | '+=' | '-=' | '*=' | '/=' | '%=' | '&=' | '|=' | '^=' | '<<='
 *                      | '>>=') expr]
 *            | lvalue ('++' | '--') | ('++' | '--') lvalue
 *   global  := 'const' type IDENT '=' expr {',' IDENT '=' expr} ';'   (file scope)
 * `++` and `--` are two adjacent '+' or '-' tokens, recognized only as a whole
 * statement and not before an operand (`a--b` stays a - -b, as it always was).
 *   expr    := or ['?' expr ':' expr]
 *              (precedence climbing below: || && | ^ & == < << + * unary .)
 */
#include <string.h>
#include "SLInternal.h"

const char *sl_tok_desc(sl_tok_kind k)
{
    switch (k) {
    case TK_EOF:
        return "end of file";
    case TK_IDENT:
        return "identifier";
    case TK_NUM:
        return "number";
    case TK_ERROR:
        return "invalid token";
    case TK_LPAREN:
        return "'('";
    case TK_RPAREN:
        return "')'";
    case TK_LBRACE:
        return "'{'";
    case TK_RBRACE:
        return "'}'";
    case TK_COMMA:
        return "','";
    case TK_SEMI:
        return "';'";
    case TK_DOT:
        return "'.'";
    case TK_QUESTION:
        return "'?'";
    case TK_COLON:
        return "':'";
    case TK_PLUS:
        return "'+'";
    case TK_MINUS:
        return "'-'";
    case TK_STAR:
        return "'*'";
    case TK_SLASH:
        return "'/'";
    case TK_PERCENT:
        return "'%'";
    case TK_AMP:
        return "'&'";
    case TK_PIPE:
        return "'|'";
    case TK_CARET:
        return "'^'";
    case TK_TILDE:
        return "'~'";
    case TK_SHL:
        return "'<<'";
    case TK_SHR:
        return "'>>'";
    case TK_ASSIGN:
        return "'='";
    case TK_PLUS_ASSIGN:
        return "'+='";
    case TK_MINUS_ASSIGN:
        return "'-='";
    case TK_STAR_ASSIGN:
        return "'*='";
    case TK_SLASH_ASSIGN:
        return "'/='";
    case TK_PERCENT_ASSIGN:
        return "'%='";
    case TK_AMP_ASSIGN:
        return "'&='";
    case TK_PIPE_ASSIGN:
        return "'|='";
    case TK_CARET_ASSIGN:
        return "'^='";
    case TK_SHL_ASSIGN:
        return "'<<='";
    case TK_SHR_ASSIGN:
        return "'>>='";
    case TK_LT:
        return "'<'";
    case TK_GT:
        return "'>'";
    case TK_LE:
        return "'<='";
    case TK_GE:
        return "'>='";
    case TK_EQ:
        return "'=='";
    case TK_NE:
        return "'!='";
    case TK_ANDAND:
        return "'&&'";
    case TK_OROR:
        return "'||'";
    case TK_NOT:
        return "'!'";
    case TK_IF:
        return "'if'";
    case TK_ELSE:
        return "'else'";
    case TK_RETURN:
        return "'return'";
    case TK_EXPORT:
        return "'export'";
    case TK_OUT:
        return "'out'";
    case TK_TYPE:
        return "type name";
    case TK_FOR:
        return "'for'";
    case TK_CONST:
        return "'const'";
    }
    return "token";
}

static void report_lex(sl_session *s, sl_token *t)
{
    if (t->kind == TK_ERROR && !t->reported) {
        t->reported = true;
        sl_error(s, t->pos, "%s", t->msg);
    }
}

static sl_token *peek(sl_session *s)
{
    report_lex(s, &s->toks[s->p]);
    return &s->toks[s->p];
}
static sl_token *peek2(sl_session *s)
{
    return s->p + 1 < s->ntoks ? &s->toks[s->p + 1] : &s->toks[s->ntoks - 1];
}
static sl_token *next(sl_session *s)
{
    sl_token *t = &s->toks[s->p];
    report_lex(s, t);
    if (t->kind != TK_EOF) s->p++;
    return t;
}
static bool accept(sl_session *s, sl_tok_kind k)
{
    if (peek(s)->kind != k) return false;
    next(s);
    return true;
}

static void err_expected(sl_session *s, const char *what)
{
    sl_token *t = peek(s);
    if (t->kind == TK_ERROR) return; /* already reported; one error per statement */
    if (t->kind == TK_EOF)
        sl_error(s, t->pos, "expected %s before end of file", what);
    else
        sl_error(s, t->pos, "expected %s, found '%.*s'", what, (int)(t->len > 40 ? 40 : t->len),
                 s->src + t->pos);
}

static bool expect(sl_session *s, sl_tok_kind k)
{
    if (accept(s, k)) return true;
    sl_token *t = peek(s);
    if (k == TK_SEMI && s->p > 0 && t->kind != TK_ERROR) {
        /* A missing ';' belongs at the end of the previous token (usually on the
         * line before), as a C compiler reports it. */
        sl_token *prev = &s->toks[s->p - 1];
        if (t->kind == TK_EOF)
            sl_error(s, prev->pos + prev->len, "expected ';' before end of file");
        else
            sl_error(s, prev->pos + prev->len, "expected ';', found '%.*s'",
                     (int)(t->len > 40 ? 40 : t->len), s->src + t->pos);
        return false;
    }
    err_expected(s, sl_tok_desc(k));
    return false;
}

static void *alloc(sl_session *s, size_t n)
{
    return fmag_context_alloc(s->ctx, n);
}

static sl_expr *new_expr(sl_session *s, sl_expr_kind k, unsigned pos)
{
    sl_expr *e = alloc(s, sizeof *e);
    e->kind = k;
    e->pos = pos;
    return e;
}

static sl_expr *parse_expr(sl_session *s);

static bool enter(sl_session *s)
{
    if (++s->depth > SL_MAX_DEPTH) {
        sl_error(s, peek(s)->pos, "nesting too deep (more than %d levels)", SL_MAX_DEPTH);
        return false;
    }
    return true;
}

/* Each operator of a chain (a + b + c ..., v.x.y ...) adds a level to the tree that
 * the checker and the IR generator walk recursively, so chains count against the
 * same depth budget as parentheses: a long chain is a diagnostic, never a stack
 * overflow. */
static bool enter_chain(sl_session *s, unsigned *levels)
{
    if (++s->depth > SL_MAX_DEPTH) {
        sl_error(s, peek(s)->pos,
                 "expression too deep: more than %d operators or nesting levels; split it "
                 "with local variables",
                 SL_MAX_DEPTH);
        return false;
    }
    ++*levels;
    return true;
}

/* Arguments after '(' up to and including ')'. */
static bool parse_args(sl_session *s, sl_expr *call)
{
    sl_expr *tmp[64];
    unsigned n = 0;
    if (!accept(s, TK_RPAREN)) {
        for (;;) {
            sl_expr *a = parse_expr(s);
            if (!a) return false;
            if (n == 64) {
                sl_error(s, a->pos, "too many arguments (at most 64)");
                return false;
            }
            tmp[n++] = a;
            if (accept(s, TK_COMMA)) continue;
            if (!expect(s, TK_RPAREN)) return false;
            break;
        }
    }
    call->nargs = n;
    call->args = alloc(s, (n ? n : 1) * sizeof *call->args);
    memcpy(call->args, tmp, n * sizeof *tmp);
    return true;
}

static sl_expr *parse_primary(sl_session *s)
{
    sl_token *t = peek(s);
    switch (t->kind) {
    case TK_NUM: {
        next(s);
        sl_expr *e = new_expr(s, EX_NUM, t->pos);
        e->num = t->num;
        e->lit = t->lit;
        e->ival = t->ival;
        return e;
    }
    case TK_IDENT: {
        next(s);
        sl_expr *e = new_expr(s, EX_VAR, t->pos);
        e->name = s->src + t->pos;
        e->name_len = t->len;
        if (accept(s, TK_LPAREN)) {
            e->kind = EX_CALL;
            if (!parse_args(s, e)) return NULL;
        }
        return e;
    }
    case TK_TYPE: {
        next(s);
        if (t->width == 0) {
            sl_error(s, t->pos, "'void' cannot be constructed");
            return NULL;
        }
        sl_expr *e = new_expr(s, EX_CALL, t->pos);
        e->call_kind = CALL_CTOR;
        e->ctor_width = t->width;
        e->name = s->src + t->pos;
        e->name_len = t->len;
        if (!expect(s, TK_LPAREN) || !parse_args(s, e)) return NULL;
        return e;
    }
    case TK_LPAREN: {
        next(s);
        sl_expr *e = parse_expr(s);
        if (!e || !expect(s, TK_RPAREN)) return NULL;
        return e;
    }
    default:
        err_expected(s, "an expression");
        return NULL;
    }
}

static sl_expr *parse_postfix(sl_session *s)
{
    sl_expr *e = parse_primary(s);
    unsigned levels = 0;
    while (e && peek(s)->kind == TK_DOT) {
        if (!enter_chain(s, &levels)) {
            e = NULL;
            break;
        }
        sl_token *dot = next(s);
        sl_token *t = peek(s);
        if (t->kind != TK_IDENT) {
            err_expected(s, "swizzle components after '.'");
            e = NULL;
            break;
        }
        next(s);
        sl_expr *w = new_expr(s, EX_SWIZZLE, dot->pos);
        w->a = e;
        w->name = s->src + t->pos;
        w->name_len = t->len;
        e = w;
    }
    s->depth -= levels;
    return e;
}

static sl_expr *parse_unary(sl_session *s)
{
    sl_token *t = peek(s);
    if (t->kind == TK_MINUS || t->kind == TK_PLUS || t->kind == TK_NOT || t->kind == TK_TILDE) {
        if (!enter(s)) return NULL;
        next(s);
        sl_expr *a = parse_unary(s);
        s->depth--;
        if (!a) return NULL;
        sl_expr *e = new_expr(s, EX_UNARY, t->pos);
        e->op = t->kind;
        e->a = a;
        return e;
    }
    return parse_postfix(s);
}

/* C's precedence (so GLSL's): `x & 1 == 0` is `x & (1 == 0)`, which the checker then
 * rejects, since a comparison gives an f32. */
static int binary_prec(sl_tok_kind k)
{
    switch (k) {
    case TK_OROR:
        return 1;
    case TK_ANDAND:
        return 2;
    case TK_PIPE:
        return 3;
    case TK_CARET:
        return 4;
    case TK_AMP:
        return 5;
    case TK_EQ:
    case TK_NE:
        return 6;
    case TK_LT:
    case TK_GT:
    case TK_LE:
    case TK_GE:
        return 7;
    case TK_SHL:
    case TK_SHR:
        return 8;
    case TK_PLUS:
    case TK_MINUS:
        return 9;
    case TK_STAR:
    case TK_SLASH:
    case TK_PERCENT:
        return 10;
    default:
        return 0;
    }
}

static sl_expr *parse_binary(sl_session *s, int min_prec)
{
    sl_expr *lhs = parse_unary(s);
    unsigned levels = 0;
    while (lhs) {
        sl_token *t = peek(s);
        int prec = binary_prec(t->kind);
        if (prec == 0 || prec < min_prec) break;
        if (!enter_chain(s, &levels)) {
            lhs = NULL;
            break;
        }
        next(s);
        sl_expr *rhs = parse_binary(s, prec + 1);
        if (!rhs) {
            lhs = NULL;
            break;
        }
        sl_expr *e = new_expr(s, EX_BINARY, t->pos);
        e->op = t->kind;
        e->a = lhs;
        e->b = rhs;
        lhs = e;
    }
    s->depth -= levels;
    return lhs;
}

static sl_expr *parse_expr(sl_session *s)
{
    if (!enter(s)) return NULL;
    sl_expr *e = parse_binary(s, 1);
    if (e && peek(s)->kind == TK_QUESTION) {
        sl_token *q = next(s);
        sl_expr *a = parse_expr(s);
        sl_expr *b = NULL;
        if (a && expect(s, TK_COLON)) b = parse_expr(s);
        if (!b) {
            e = NULL;
        } else {
            sl_expr *t = new_expr(s, EX_TERNARY, q->pos);
            t->a = e;
            t->b = a;
            t->c = b;
            e = t;
        }
    }
    s->depth--;
    return e;
}

/* Skips to the end of the broken statement: past the next ';' at this brace level,
 * or up to (not past) the '}' closing the enclosing block. */
static void sync_stmt(sl_session *s)
{
    int depth = 0;
    for (;;) {
        sl_token *t = peek(s);
        if (t->kind == TK_EOF) return;
        if (t->kind == TK_LBRACE) depth++;
        if (t->kind == TK_RBRACE) {
            if (depth == 0) return;
            depth--;
            if (depth == 0) {
                next(s);
                return;
            }
        }
        if (t->kind == TK_SEMI && depth == 0) {
            next(s);
            return;
        }
        next(s);
    }
}

static sl_stmt *new_stmt(sl_session *s, sl_stmt_kind k, unsigned pos)
{
    sl_stmt *st = alloc(s, sizeof *st);
    st->kind = k;
    st->pos = pos;
    return st;
}

static sl_stmt *parse_stmt(sl_session *s);

static sl_stmt *parse_block(sl_session *s)
{
    sl_token *lb = peek(s);
    if (!expect(s, TK_LBRACE)) return NULL;
    sl_stmt *blk = new_stmt(s, ST_BLOCK, lb->pos);
    sl_stmt **tail = &blk->body;
    while (peek(s)->kind != TK_RBRACE && peek(s)->kind != TK_EOF) {
        size_t before = s->p;
        unsigned nerr = s->nerrors;
        sl_stmt *st = parse_stmt(s);
        if (s->nerrors != nerr || !st) {
            sync_stmt(s);
            if (s->p == before) next(s);
            if (s->too_many) return NULL;
            continue;
        }
        *tail = st;
        while (st->next)
            st = st->next;
        tail = &st->next;
    }
    if (!expect(s, TK_RBRACE)) return NULL;
    return blk;
}

static bool is_assign_op(sl_tok_kind k)
{
    return k == TK_ASSIGN || k == TK_PLUS_ASSIGN || k == TK_MINUS_ASSIGN || k == TK_STAR_ASSIGN ||
           k == TK_SLASH_ASSIGN || k == TK_PERCENT_ASSIGN || k == TK_AMP_ASSIGN ||
           k == TK_PIPE_ASSIGN || k == TK_CARET_ASSIGN || k == TK_SHL_ASSIGN || k == TK_SHR_ASSIGN;
}

static sl_var *new_var(sl_session *s, sl_token *name, int type)
{
    sl_var *v = alloc(s, sizeof *v);
    v->name = s->src + name->pos;
    v->name_len = name->len;
    v->pos = name->pos;
    v->type = type;
    return v;
}

/* The declarators after the type token `t`: a chain of ST_DECL, without the ';'. */
static sl_stmt *parse_decl(sl_session *s, sl_token *t, bool is_const)
{
    if (t->width == 0) {
        sl_error(s, t->pos, "variable cannot have type 'void'");
        return NULL;
    }
    sl_stmt *first = NULL, **tail = &first;
    do {
        sl_token *name = peek(s);
        if (name->kind != TK_IDENT) {
            err_expected(s, "a variable name");
            return NULL;
        }
        next(s);
        sl_stmt *st = new_stmt(s, ST_DECL, name->pos);
        st->var = new_var(s, name, t->width);
        st->var->is_const = is_const;
        if (accept(s, TK_ASSIGN)) {
            if (!(st->e = parse_expr(s))) return NULL;
        } else if (is_const) {
            sl_error(s, name->pos, "const variable '%.*s' needs an initializer", (int)name->len,
                     s->src + name->pos);
            return NULL;
        }
        *tail = st;
        tail = &st->next;
    } while (accept(s, TK_COMMA));
    return first;
}

/* Two tokens that spell `++` or `--`: the same sign, nothing between them. */
static bool incdec_at(sl_session *s, size_t i)
{
    if (i + 1 >= s->ntoks) return false;
    sl_token *a = &s->toks[i], *b = &s->toks[i + 1];
    return (a->kind == TK_PLUS || a->kind == TK_MINUS) && b->kind == a->kind &&
           b->pos == a->pos + 1;
}

/* `x += 1` or `x -= 1` for an increment or decrement of lvalue e at `op`. */
static sl_stmt *incdec_stmt(sl_session *s, sl_expr *e, sl_token *op)
{
    sl_stmt *st = new_stmt(s, ST_ASSIGN, op->pos);
    st->lhs = e;
    st->op = op->kind == TK_PLUS ? TK_PLUS_ASSIGN : TK_MINUS_ASSIGN;
    st->e = new_expr(s, EX_NUM, op->pos);
    st->e->num = 1.0f; /* an unsuffixed 1: it takes the counter's type */
    st->e->lit = LIT_DEC;
    st->e->ival = 1;
    return st;
}

/* Names that C-family shader code uses for types SL spells differently, and SL's
 * spelling (NULL where SL has no such type). */
static const char *foreign_type(sl_session *s, sl_token *t, const char **sl_name)
{
    static const char *const names[][2] = {{"int", "i32"},   {"uint", "u32"}, {"float", "f32"},
                                           {"double", NULL}, {"half", NULL},  {"bool", NULL}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (t->kind == TK_IDENT && strlen(names[i][0]) == t->len &&
            !memcmp(names[i][0], s->src + t->pos, t->len)) {
            *sl_name = names[i][1];
            return names[i][0];
        }
    return NULL;
}

static void foreign_type_error(sl_session *s, sl_token *t, const char *foreign, const char *sl_name)
{
    if (sl_name)
        sl_error(s, t->pos, "'%s' is not an SL type (did you mean '%s'?)", foreign, sl_name);
    else
        sl_error(s, t->pos,
                 "'%s' is not an SL type (the types are f32, i32, u32 and their vectors f32x2, "
                 "i32x3, u32x4 ...)",
                 foreign);
}

/* An assignment, an increment or decrement, or an expression, without the ';'. */
static sl_stmt *parse_simple(sl_session *s)
{
    sl_token *t = peek(s);
    if (incdec_at(s, s->p)) {
        next(s);
        next(s);
        sl_expr *e = parse_postfix(s);
        return e ? incdec_stmt(s, e, t) : NULL;
    }
    /* lvalue ++: an identifier, swizzles, then the two signs and the statement's end. */
    size_t i = s->p;
    if (s->toks[i].kind == TK_IDENT) {
        i++;
        while (i + 1 < s->ntoks && s->toks[i].kind == TK_DOT && s->toks[i + 1].kind == TK_IDENT)
            i += 2;
        sl_tok_kind after = i + 2 < s->ntoks ? s->toks[i + 2].kind : TK_EOF;
        /* Not `x++y` (x + +y): the signs must end the operand. */
        if (incdec_at(s, i) && after != TK_IDENT && after != TK_NUM && after != TK_LPAREN &&
            after != TK_TYPE && after != TK_NOT && after != TK_TILDE && after != TK_PLUS &&
            after != TK_MINUS) {
            sl_expr *e = parse_postfix(s);
            if (!e) return NULL;
            sl_token *op = next(s);
            next(s);
            return incdec_stmt(s, e, op);
        }
    }
    sl_expr *e = parse_expr(s);
    if (!e) return NULL;
    sl_token *op = peek(s);
    if (is_assign_op(op->kind)) {
        next(s);
        sl_stmt *st = new_stmt(s, ST_ASSIGN, op->pos);
        st->lhs = e;
        st->op = op->kind;
        if (!(st->e = parse_expr(s))) return NULL;
        return st;
    }
    sl_stmt *st = new_stmt(s, ST_EXPR, e->pos);
    st->e = e;
    return st;
}

/* After an error in a `for` header: skips past its closing ')', so that the
 * statement-level recovery then skips the body as one statement. */
static sl_stmt *skip_for_header(sl_session *s, size_t open)
{
    if (s->p < open) return NULL;
    int depth = 0;
    for (size_t i = open; i < s->ntoks; i++) {
        sl_tok_kind k = s->toks[i].kind;
        if (k == TK_LPAREN) depth++;
        if (k == TK_RPAREN && --depth == 0) {
            if (s->p <= i) s->p = i + 1;
            return NULL;
        }
        if (k == TK_LBRACE || k == TK_RBRACE || k == TK_EOF) return NULL;
    }
    return NULL;
}

static sl_stmt *parse_for_header(sl_session *s, sl_stmt *st);

static sl_stmt *parse_for(sl_session *s)
{
    sl_token *t = next(s);
    sl_stmt *st = new_stmt(s, ST_FOR, t->pos);
    size_t open = s->p;
    if (!expect(s, TK_LPAREN)) return NULL;
    if (!parse_for_header(s, st)) return skip_for_header(s, open);
    if (!(st->then_s = parse_stmt(s))) return NULL;
    return st;
}

static sl_stmt *parse_for_header(sl_session *s, sl_stmt *st)
{
    sl_token *it = peek(s);
    const char *sl_name = NULL, *foreign = foreign_type(s, it, &sl_name);
    if (foreign && peek2(s)->kind == TK_IDENT) {
        foreign_type_error(s, it, foreign, sl_name);
        return NULL;
    }
    if (it->kind == TK_CONST) {
        sl_error(s, it->pos, "a loop counter cannot be const");
        return NULL;
    }
    if (it->kind == TK_TYPE && peek2(s)->kind == TK_IDENT) {
        next(s);
        if (!(st->init = parse_decl(s, it, false))) return NULL;
    } else if (it->kind != TK_SEMI && !(st->init = parse_simple(s))) {
        return NULL;
    }
    if (!expect(s, TK_SEMI)) return NULL;
    if (peek(s)->kind != TK_SEMI && !(st->e = parse_expr(s))) return NULL;
    if (!expect(s, TK_SEMI)) return NULL;
    if (peek(s)->kind != TK_RPAREN && !(st->step = parse_simple(s))) return NULL;
    if (!expect(s, TK_RPAREN)) return NULL;
    return st;
}

static sl_stmt *parse_stmt_inner(sl_session *s)
{
    sl_token *t = peek(s);
    switch (t->kind) {
    case TK_FOR:
        return parse_for(s);
    case TK_CONST: {
        next(s);
        sl_token *ty = peek(s);
        if (ty->kind != TK_TYPE) {
            err_expected(s, "a type after 'const'");
            return NULL;
        }
        next(s);
        sl_stmt *first = parse_decl(s, ty, true);
        if (!first || !expect(s, TK_SEMI)) return NULL;
        return first;
    }
    case TK_LBRACE:
        return parse_block(s);
    case TK_SEMI:
        next(s);
        return new_stmt(s, ST_BLOCK, t->pos);
    case TK_IF: {
        next(s);
        sl_stmt *st = new_stmt(s, ST_IF, t->pos);
        if (!expect(s, TK_LPAREN) || !(st->e = parse_expr(s)) || !expect(s, TK_RPAREN)) return NULL;
        if (!(st->then_s = parse_stmt(s))) return NULL;
        if (accept(s, TK_ELSE) && !(st->else_s = parse_stmt(s))) return NULL;
        return st;
    }
    case TK_ELSE:
        sl_error(s, t->pos, "'else' without a matching 'if'");
        return NULL;
    case TK_RETURN: {
        next(s);
        sl_stmt *st = new_stmt(s, ST_RETURN, t->pos);
        if (peek(s)->kind != TK_SEMI && !(st->e = parse_expr(s))) return NULL;
        if (!expect(s, TK_SEMI)) return NULL;
        return st;
    }
    case TK_OUT:
        sl_error(s, t->pos, "'out' is only allowed on function parameters");
        return NULL;
    case TK_EXPORT:
        sl_error(s, t->pos, "'export' is only allowed on functions at file scope");
        return NULL;
    case TK_TYPE:
        if (peek2(s)->kind == TK_IDENT) {
            next(s);
            sl_stmt *first = parse_decl(s, t, false);
            if (!first || !expect(s, TK_SEMI)) return NULL;
            return first;
        }
        break; /* a constructor expression statement */
    case TK_IDENT: {
        const char *sl_name = NULL, *foreign = foreign_type(s, t, &sl_name);
        if (foreign && peek2(s)->kind == TK_IDENT) {
            foreign_type_error(s, t, foreign, sl_name);
            return NULL;
        }
        break;
    }
    default:
        break;
    }
    sl_stmt *st = parse_simple(s);
    if (!st || !expect(s, TK_SEMI)) return NULL;
    return st;
}

static sl_stmt *parse_stmt(sl_session *s)
{
    if (!enter(s)) return NULL;
    sl_stmt *st = parse_stmt_inner(s);
    s->depth--;
    return st;
}

/* Skips a broken function: to the '}' that closes its body, or to the next token
 * that can start a function at file scope. */
static void sync_func(sl_session *s)
{
    int depth = 0;
    for (;;) {
        sl_token *t = peek(s);
        if (t->kind == TK_EOF) return;
        if (depth == 0 && (t->kind == TK_EXPORT || t->kind == TK_TYPE || t->kind == TK_CONST) &&
            peek2(s)->kind != TK_LPAREN)
            return;
        if (t->kind == TK_LBRACE) depth++;
        if (t->kind == TK_RBRACE) {
            next(s);
            if (depth <= 1) return;
            depth--;
            continue;
        }
        next(s);
    }
}

/* A GLSL or HLSL word that starts a declaration at file scope (a type or a
 * qualifier): SL source does not, so the text is likely a shader given as SL. */
static bool shader_decl_word(const sl_session *s, const sl_token *t)
{
    static const char *const words[] = {
        "float",     "int",  "uint",   "double", "half",    "bool",      "vec",
        "ivec",      "uvec", "bvec",   "dvec",   "mat",     "uniform",   "layout",
        "precision", "in",   "struct", "static", "cbuffer", "Texture2D", "sampler2D"};
    if (t->kind != TK_IDENT) return false;
    const char *p = s->src + t->pos;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i]);
        if (t->len < n || memcmp(p, words[i], n)) continue;
        /* The word itself, or a vector/matrix spelling: vec3, mat4, float3, float4x4. */
        size_t k = n;
        while (k < t->len && ((p[k] >= '1' && p[k] <= '4') || p[k] == 'x'))
            k++;
        if (k == t->len && (k == n || (p[n] >= '2' && p[n] <= '4'))) return true;
    }
    return false;
}

static sl_func *parse_func(sl_session *s)
{
    bool is_export = accept(s, TK_EXPORT);
    sl_token *ty = peek(s);
    if (!is_export && shader_decl_word(s, ty)) {
        sl_error(s, ty->pos,
                 "expected a function definition, found '%.*s' (GLSL or HLSL source? compile it "
                 "with -x glsl / -x hlsl, or FMAG_LANG_GLSL / FMAG_LANG_HLSL)",
                 (int)(ty->len > 40 ? 40 : ty->len), s->src + ty->pos);
        s->shader_source = true;
        return NULL;
    }
    if (ty->kind != TK_TYPE) {
        err_expected(s, is_export ? "a return type after 'export'" : "a function definition");
        return NULL;
    }
    next(s);
    sl_token *name = peek(s);
    if (name->kind != TK_IDENT) {
        err_expected(s, "a function name");
        return NULL;
    }
    next(s);
    sl_func *f = alloc(s, sizeof *f);
    f->name = s->src + name->pos;
    f->name_len = name->len;
    f->pos = name->pos;
    f->ret_type = ty->width;
    f->is_export = is_export;
    if (!expect(s, TK_LPAREN)) return NULL;
    sl_var **tail = &f->params;
    if (!accept(s, TK_RPAREN)) {
        for (;;) {
            bool is_out = accept(s, TK_OUT);
            sl_token *pt = peek(s);
            if (pt->kind != TK_TYPE) {
                err_expected(s, "a parameter type");
                return NULL;
            }
            next(s);
            if (pt->width == 0) {
                sl_error(s, pt->pos, "parameter cannot have type 'void'");
                return NULL;
            }
            sl_token *pn = peek(s);
            if (pn->kind != TK_IDENT) {
                err_expected(s, "a parameter name");
                return NULL;
            }
            next(s);
            /* As .fir's: enough for any program (4096 scalars), and it bounds the
             * checker's pairwise test for repeated names. */
            if (f->nparams == 1024) {
                sl_error(s, pn->pos, "too many parameters (at most 1024)");
                return NULL;
            }
            sl_var *v = new_var(s, pn, pt->width);
            v->is_out = is_out;
            v->is_param = true;
            *tail = v;
            tail = &v->next;
            f->nparams++;
            if (accept(s, TK_COMMA)) continue;
            if (!expect(s, TK_RPAREN)) return NULL;
            break;
        }
    }
    if (peek(s)->kind != TK_LBRACE) {
        err_expected(s, "'{' to begin the function body");
        return NULL;
    }
    f->body = parse_block(s);
    return f->body ? f : NULL;
}

/* A file-scope constant: `const type NAME = expr {, NAME = expr};`. */
static bool parse_global(sl_session *s)
{
    next(s);
    sl_token *ty = peek(s);
    if (ty->kind != TK_TYPE) {
        err_expected(s, "a type after 'const'");
        return false;
    }
    next(s);
    sl_stmt *first = parse_decl(s, ty, true);
    if (!first || !expect(s, TK_SEMI)) return false;
    for (sl_stmt *st = first; st; st = st->next) {
        st->var->is_global = true;
        st->var->decl = st;
    }
    if (s->globals_last)
        s->globals_last->next = first;
    else
        s->globals = first;
    for (s->globals_last = first; s->globals_last->next;)
        s->globals_last = s->globals_last->next;
    return true;
}

void sl_parse(sl_session *s)
{
    /* After the hint that the text is GLSL or HLSL, the rest would be that language's
     * errors in SL's words: left out. */
    while (peek(s)->kind != TK_EOF && !s->too_many && !s->shader_source) {
        size_t before = s->p;
        if (peek(s)->kind == TK_CONST) {
            unsigned nerr = s->nerrors;
            if (!parse_global(s) || s->nerrors != nerr) {
                sync_stmt(s);
                if (s->p == before) next(s);
            }
            continue;
        }
        if (peek(s)->kind == TK_TYPE && peek2(s)->kind == TK_IDENT && s->p + 2 < s->ntoks &&
            s->toks[s->p + 2].kind != TK_LPAREN) {
            sl_error(s, peek(s)->pos,
                     "a variable at file scope must be 'const' (const f32 K = 0.5;)");
            sync_stmt(s);
            if (s->p == before) next(s);
            continue;
        }
        sl_func *f = parse_func(s);
        if (!f) {
            if (s->shader_source) break;
            if (s->p == before) next(s);
            sync_func(s);
            continue;
        }
        if (s->funcs_last)
            s->funcs_last->next = f;
        else
            s->funcs = f;
        s->funcs_last = f;
    }
}
