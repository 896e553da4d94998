/* Superoptimizer targets: the fmag tape, its scalar evaluator and the built-in
 * expression language that produces it (for `superopt -e` without the SL frontend). */
#include "fmag/Bits.h"
#include "fmag/FloatText.h"
#include "fmag/Superopt.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

fmag_superopt_target *fmag_superopt_target_create(unsigned nin)
{
    fmag_superopt_target *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    t->nin = nin;
    t->result = fmag_so_input(0);
    return t;
}

void fmag_superopt_target_free(fmag_superopt_target *t)
{
    if (!t) return;
    free(t->ops);
    free(t);
}

fmag_so_ref fmag_superopt_target_add(fmag_superopt_target *t, fmag_so_ref a, fmag_so_ref b,
                                     fmag_so_ref c, fmag_so_ref d, fmag_so_ref e)
{
    /* Grow in powers of two; the caller checks nops against the tape limit. */
    if ((t->nops & (t->nops - 1)) == 0) {
        unsigned cap = t->nops ? t->nops * 2 : 8;
        fmag_so_op *n = realloc(t->ops, cap * sizeof(*n));
        if (!n) return fmag_so_const(0.0f);
        t->ops = n;
    }
    fmag_so_op *op = &t->ops[t->nops];
    op->s[0] = a;
    op->s[1] = b;
    op->s[2] = c;
    op->s[3] = d;
    op->s[4] = e;
    fmag_so_ref r = {FMAG_SO_REF_OP, t->nops++, 0.0f};
    return r;
}

void fmag_superopt_target_collect_consts(fmag_superopt_target *t)
{
    t->nconsts = 0;
    for (unsigned i = 0; i < t->nops; i++) {
        for (unsigned k = 0; k < 5; k++) {
            const fmag_so_ref *r = &t->ops[i].s[k];
            if (r->kind != FMAG_SO_REF_CONST) continue;
            bool seen = false;
            for (unsigned j = 0; j < t->nconsts; j++)
                seen |= fmag_bits_of(t->consts[j]) == fmag_bits_of(r->imm);
            if (!seen && t->nconsts < FMAG_SUPEROPT_MAX_POOL) t->consts[t->nconsts++] = r->imm;
        }
    }
    if (t->result.kind == FMAG_SO_REF_CONST && t->nconsts < FMAG_SUPEROPT_MAX_POOL)
        t->consts[t->nconsts++] = t->result.imm;
}

static inline float ref_value(const fmag_so_ref *r, const float *in, const float *vals)
{
    switch (r->kind) {
    case FMAG_SO_REF_INPUT:
        return in[r->index];
    case FMAG_SO_REF_CONST:
        return r->imm;
    default:
        return vals[r->index];
    }
}

bool fmag_superopt_target_eval(const fmag_superopt_target *t, const float *in, float *out)
{
    float vals[FMAG_SUPEROPT_MAX_TAPE];
    for (unsigned i = 0; i < t->nops; i++) {
        const fmag_so_op *op = &t->ops[i];
        float a = ref_value(&op->s[0], in, vals), b = ref_value(&op->s[1], in, vals);
        float c = ref_value(&op->s[2], in, vals), d = ref_value(&op->s[3], in, vals);
        float e = ref_value(&op->s[4], in, vals);
        float v = e > 0.0f ? fmaf(a, b, c) : d;
        if (!isfinite(v)) return false;
        vals[i] = v;
    }
    float r = ref_value(&t->result, in, vals);
    *out = r;
    return isfinite(r);
}

/* ------------------------------------------------------------------ parser */

typedef struct pval {
    fmag_so_ref r;
    bool is_bool; /* known to be exactly 1.0 or 0.0 */
} pval;

typedef struct parser {
    const char *name, *src;
    size_t len, pos;
    fmag_superopt_target *t;
    bool uses_y;
    bool failed;
    unsigned depth; /* nesting, bounded so hostile input cannot exhaust the stack */
    char *err;
    size_t errlen;
} parser;

static void perror_at(parser *p, size_t at, const char *fmt, ...)
{
    if (p->failed) return;
    p->failed = true;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (at > p->len) at = p->len;
    int w = snprintf(p->err, p->errlen, "%s:1:%zu: error: %s\n%.*s\n", p->name, at + 1, msg,
                     (int)p->len, p->src);
    if (w < 0 || (size_t)w >= p->errlen) return;
    size_t n = (size_t)w;
    for (size_t i = 0; i < at && n + 2 < p->errlen; i++)
        p->err[n++] = p->src[i] == '\t' ? '\t' : ' ';
    if (n + 2 < p->errlen) {
        p->err[n++] = '^';
        p->err[n] = 0;
    }
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len && isspace((unsigned char)p->src[p->pos]))
        p->pos++;
}

static bool accept(parser *p, const char *tok)
{
    skip_ws(p);
    size_t n = strlen(tok);
    if (p->pos + n > p->len || memcmp(p->src + p->pos, tok, n) != 0) return false;
    /* "<" must not swallow the first half of "<=", nor "!" of "!=". */
    if (n == 1 && p->pos + 1 < p->len && p->src[p->pos + 1] == '=' && strchr("<>!=", tok[0]))
        return false;
    p->pos += n;
    return true;
}

static void expect(parser *p, const char *tok)
{
    if (!accept(p, tok)) {
        skip_ws(p);
        perror_at(p, p->pos, "expected '%s'", tok);
    }
}

static pval pconst(float f)
{
    pval v = {fmag_so_const(f), f == 0.0f || f == 1.0f};
    return v;
}

static bool is_const(pval v)
{
    return v.r.kind == FMAG_SO_REF_CONST;
}

/* One fmag operation; folds when every slot is a literal, exactly as the VM would. */
static pval emit(parser *p, pval a, pval b, pval c, pval d, pval e)
{
    pval out = {fmag_so_const(0.0f), false};
    if (p->failed) return out;
    if (is_const(a) && is_const(b) && is_const(c) && is_const(d) && is_const(e)) {
        float v = e.r.imm > 0.0f ? fmaf(a.r.imm, b.r.imm, c.r.imm) : d.r.imm;
        if (!isfinite(v)) {
            perror_at(p, p->pos, "constant subexpression is not finite");
            return out;
        }
        return pconst(v);
    }
    if (p->t->nops >= FMAG_SUPEROPT_MAX_TAPE) {
        perror_at(p, p->pos, "expression too large (more than %d operations)",
                  FMAG_SUPEROPT_MAX_TAPE);
        return out;
    }
    out.r = fmag_superopt_target_add(p->t, a.r, b.r, c.r, d.r, e.r);
    return out;
}

static pval k(float f)
{
    return pconst(f);
}
static pval op_add(parser *p, pval a, pval b)
{
    return emit(p, a, k(1), b, k(0), k(1));
}
static pval op_sub(parser *p, pval a, pval b)
{
    return emit(p, b, k(-1), a, k(0), k(1));
}
static pval op_mul(parser *p, pval a, pval b)
{
    return emit(p, a, b, k(0), k(0), k(1));
}
static pval op_neg(parser *p, pval a)
{
    return emit(p, a, k(-1), k(0), k(0), k(1));
}
static pval op_select(parser *p, pval t, pval f, pval g)
{
    pval r = emit(p, t, k(1), k(0), f, g);
    r.is_bool = r.is_bool || (t.is_bool && f.is_bool);
    return r;
}
static pval op_max(parser *p, pval a, pval b)
{
    return op_select(p, a, b, op_sub(p, a, b));
}
static pval op_min(parser *p, pval a, pval b)
{
    return op_select(p, b, a, op_sub(p, a, b));
}
static pval op_abs(parser *p, pval x)
{
    return op_select(p, x, op_neg(p, x), x);
}
/* Comparisons as the IR builder makes them: the sign of a difference is exact for
 * finite operands (gradual underflow keeps x != y from giving 0). */
static pval op_gt(parser *p, pval x, pval y)
{
    return op_select(p, k(1), k(0), op_sub(p, x, y));
}
static pval op_le(parser *p, pval x, pval y)
{
    return op_select(p, k(0), k(1), op_sub(p, x, y));
}
static pval op_eq(parser *p, pval x, pval y)
{
    return op_select(p, k(0), op_le(p, y, x), op_sub(p, x, y));
}
static pval op_ne(parser *p, pval x, pval y)
{
    return op_select(p, k(1), op_gt(p, y, x), op_sub(p, x, y));
}
/* SL truth: a value is true when != 0, so -0 is false and negatives are true. */
static pval op_truth(parser *p, pval v)
{
    if (v.is_bool) return v;
    return op_select(p, k(1), op_select(p, k(1), k(0), op_neg(p, v)), v);
}
static pval op_not(parser *p, pval v)
{
    if (v.is_bool) return op_select(p, k(0), k(1), v);
    return op_select(p, k(0), op_select(p, k(0), k(1), op_neg(p, v)), v);
}
static pval op_select_truth(parser *p, pval c, pval a, pval b)
{
    if (c.is_bool) return op_select(p, a, b, c);
    return op_select(p, a, op_select(p, a, b, op_neg(p, c)), c);
}

static pval parse_expr(parser *p);

static pval parse_primary(parser *p);
static pval parse_unary_inner(parser *p);
static pval parse_unary(parser *p)
{
    if (++p->depth > 256) {
        skip_ws(p);
        perror_at(p, p->pos, "expression nested too deeply (more than 256 levels)");
        p->depth--;
        return k(0);
    }
    pval v = parse_unary_inner(p);
    p->depth--;
    return v;
}

static pval parse_unary_inner(parser *p)
{
    if (accept(p, "-")) {
        pval v = parse_unary(p);
        if (is_const(v)) return pconst(-v.r.imm);
        return op_neg(p, v);
    }
    if (accept(p, "+")) return parse_unary(p);
    if (accept(p, "!")) return op_not(p, parse_unary(p));
    return parse_primary(p);
}

typedef enum builtin_id {
    B_ABS,
    B_MIN,
    B_MAX,
    B_CLAMP,
    B_SATURATE,
    B_SIGN,
    B_STEP,
    B_MIX,
    B_SMOOTHSTEP,
    B_SELECT,
} builtin_id;

static const struct {
    const char *name;
    builtin_id id;
    unsigned nargs;
} builtins[] = {
    {"abs", B_ABS, 1},       {"min", B_MIN, 2},           {"max", B_MAX, 2},
    {"clamp", B_CLAMP, 3},   {"saturate", B_SATURATE, 1}, {"sign", B_SIGN, 1},
    {"step", B_STEP, 2},     {"mix", B_MIX, 3},           {"smoothstep", B_SMOOTHSTEP, 3},
    {"select", B_SELECT, 3},
};

static pval call_builtin(parser *p, builtin_id id, pval *a, size_t at)
{
    switch (id) {
    case B_ABS:
        return op_abs(p, a[0]);
    case B_MIN:
        return op_min(p, a[0], a[1]);
    case B_MAX:
        return op_max(p, a[0], a[1]);
    case B_CLAMP:
        return op_min(p, op_max(p, a[0], a[1]), a[2]);
    case B_SATURATE:
        return op_min(p, op_max(p, a[0], k(0)), k(1));
    case B_SIGN:
        return op_select(p, k(1), op_select(p, k(-1), k(0), op_neg(p, a[0])), a[0]);
    case B_STEP: /* x >= edge ? 1 : 0 */
        return op_le(p, a[0], a[1]);
    case B_MIX:
        return emit(p, op_sub(p, a[1], a[0]), a[2], a[0], k(0), k(1));
    case B_SMOOTHSTEP: {
        if (!is_const(a[0]) || !is_const(a[1])) {
            perror_at(p, at, "smoothstep edges must be constants");
            return k(0);
        }
        float w = a[1].r.imm - a[0].r.imm;
        float inv = 1.0f / w;
        int e;
        if (w == 0.0f || !isfinite(inv) || frexpf(w, &e) != 0.5f) {
            perror_at(p, at,
                      "smoothstep edges must differ by a power of two (an exact "
                      "reciprocal)");
            return k(0);
        }
        pval t = op_sub(p, a[2], a[0]);
        if (inv != 1.0f) t = op_mul(p, t, k(inv));
        t = op_min(p, op_max(p, t, k(0)), k(1));
        pval u = emit(p, t, k(-2), k(3), k(0), k(1));
        return op_mul(p, op_mul(p, t, t), u);
    }
    case B_SELECT:
        return op_select_truth(p, a[0], a[1], a[2]);
    }
    return k(0);
}

static pval parse_primary(parser *p)
{
    skip_ws(p);
    size_t at = p->pos;
    if (p->pos >= p->len) {
        perror_at(p, at, "expected an expression");
        return k(0);
    }
    char ch = p->src[p->pos];
    if (accept(p, "(")) {
        pval v = parse_expr(p);
        expect(p, ")");
        return v;
    }
    if (isdigit((unsigned char)ch) || ch == '.') {
        char buf[64];
        size_t n = 0;
        while (
            p->pos < p->len && n + 1 < sizeof buf &&
            (isalnum((unsigned char)p->src[p->pos]) || p->src[p->pos] == '.' ||
             ((p->src[p->pos] == '-' || p->src[p->pos] == '+') && n > 0 &&
              (buf[n - 1] == 'e' || buf[n - 1] == 'E' || buf[n - 1] == 'p' || buf[n - 1] == 'P'))))
            buf[n++] = p->src[p->pos++];
        buf[n] = 0;
        char *end;
        float f = strtof(buf, &end);
        if (*end != 0 && !(end[0] == 'f' && end[1] == 0)) {
            perror_at(p, at, "malformed number '%s'", buf);
            return k(0);
        }
        if (!isfinite(f)) {
            perror_at(p, at, "number '%s' is not a finite float32", buf);
            return k(0);
        }
        if (fmag_float_literal_underflows(buf, n, f)) {
            perror_at(p, at,
                      "number '%s' is too small for float32: it rounds to zero (the smallest "
                      "non-zero float32 is 1.4e-45; write 0.0 for zero)",
                      buf);
            return k(0);
        }
        return pconst(f);
    }
    if (isalpha((unsigned char)ch) || ch == '_') {
        size_t s = p->pos;
        while (p->pos < p->len && (isalnum((unsigned char)p->src[p->pos]) || p->src[p->pos] == '_'))
            p->pos++;
        size_t n = p->pos - s;
        const char *id = p->src + s;
        if (n == 1 && id[0] == 'x') {
            pval v = {fmag_so_input(0), false};
            return v;
        }
        if (n == 1 && id[0] == 'y') {
            p->uses_y = true;
            pval v = {fmag_so_input(1), false};
            return v;
        }
        for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
            if (strlen(builtins[i].name) != n || memcmp(builtins[i].name, id, n) != 0) continue;
            pval args[3];
            unsigned na = 0;
            expect(p, "(");
            if (p->failed) return k(0);
            if (!accept(p, ")")) {
                do {
                    if (na == 3) {
                        perror_at(p, p->pos, "too many arguments to '%s'", builtins[i].name);
                        return k(0);
                    }
                    args[na++] = parse_expr(p);
                } while (!p->failed && accept(p, ","));
                expect(p, ")");
            }
            if (p->failed) return k(0);
            if (na != builtins[i].nargs) {
                perror_at(p, s, "'%s' takes %u argument%s, got %u", builtins[i].name,
                          builtins[i].nargs, builtins[i].nargs == 1 ? "" : "s", na);
                return k(0);
            }
            return call_builtin(p, builtins[i].id, args, s);
        }
        perror_at(p, s,
                  "unknown name '%.*s' (inputs are x and y; builtins: abs min max clamp "
                  "saturate sign step mix smoothstep select)",
                  (int)n, id);
        return k(0);
    }
    perror_at(p, at, "expected an expression");
    return k(0);
}

static pval parse_mul(parser *p)
{
    pval v = parse_unary(p);
    for (;;) {
        skip_ws(p);
        size_t at = p->pos;
        if (accept(p, "*")) {
            v = op_mul(p, v, parse_unary(p));
        } else if (accept(p, "/")) {
            pval d = parse_unary(p);
            if (p->failed) return v;
            int e;
            if (!is_const(d) || d.r.imm == 0.0f || fabsf(frexpf(d.r.imm, &e)) != 0.5f ||
                !isfinite(1.0f / d.r.imm) || fabsf(1.0f / d.r.imm) < 1.17549435e-38f) {
                perror_at(p, at,
                          "division is only supported by a power-of-two constant "
                          "(an exact multiplication by its reciprocal)");
                return v;
            }
            v = op_mul(p, v, k(1.0f / d.r.imm));
        } else {
            return v;
        }
    }
}

static pval parse_add(parser *p)
{
    pval v = parse_mul(p);
    for (;;) {
        if (accept(p, "+"))
            v = op_add(p, v, parse_mul(p));
        else if (accept(p, "-"))
            v = op_sub(p, v, parse_mul(p));
        else
            return v;
    }
}

static pval parse_cmp(parser *p)
{
    pval v = parse_add(p);
    for (;;) {
        if (accept(p, "<="))
            v = op_le(p, v, parse_add(p));
        else if (accept(p, ">="))
            v = op_le(p, parse_add(p), v);
        else if (accept(p, "=="))
            v = op_eq(p, v, parse_add(p));
        else if (accept(p, "!="))
            v = op_ne(p, v, parse_add(p));
        else if (accept(p, "<"))
            v = op_gt(p, parse_add(p), v);
        else if (accept(p, ">"))
            v = op_gt(p, v, parse_add(p));
        else
            return v;
        v.is_bool = true;
    }
}

static pval parse_and(parser *p)
{
    pval v = parse_cmp(p);
    while (accept(p, "&&")) {
        pval a = op_truth(p, v);
        pval b = op_truth(p, parse_cmp(p));
        v = op_select(p, b, k(0), a);
        v.is_bool = true;
    }
    return v;
}

static pval parse_or(parser *p)
{
    pval v = parse_and(p);
    while (accept(p, "||")) {
        pval a = op_truth(p, v);
        pval b = op_truth(p, parse_and(p));
        v = op_select(p, k(1), b, a);
        v.is_bool = true;
    }
    return v;
}

static pval parse_expr(parser *p)
{
    pval c = parse_or(p);
    if (!accept(p, "?")) return c;
    if (++p->depth > 256) {
        perror_at(p, p->pos, "expression nested too deeply (more than 256 levels)");
        return k(0);
    }
    pval a = parse_expr(p);
    expect(p, ":");
    pval b = parse_expr(p);
    p->depth--;
    return op_select_truth(p, c, a, b);
}

fmag_superopt_target *fmag_superopt_parse_expr(const char *name, const char *expr, char *err,
                                               size_t errlen)
{
    parser p = {0};
    p.name = name ? name : "<expr>";
    p.src = expr;
    p.len = strlen(expr);
    p.err = err;
    p.errlen = errlen;
    p.t = fmag_superopt_target_create(1);
    if (!p.t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pval v = parse_expr(&p);
    skip_ws(&p);
    if (!p.failed && p.pos < p.len)
        perror_at(&p, p.pos, "unexpected '%c' after the expression", p.src[p.pos]);
    if (p.failed) {
        fmag_superopt_target_free(p.t);
        return NULL;
    }
    p.t->nin = p.uses_y ? 2 : 1;
    p.t->result = v.r;
    fmag_superopt_target_collect_consts(p.t);
    return p.t;
}
