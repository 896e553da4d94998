/* The standard library's pattern nodes, each written here as IR from the formulas
 * of the MaterialX Standard Nodes specification (docs/MaterialX.md lists them and
 * what differs from MaterialX's GLSL). One table, sorted by category, maps a node
 * to its implementation. */
#include <math.h>
#include <string.h>
#include "MxInternal.h"

#define B (n->b)
#define F (n->fast)

static unsigned tsize(mx_type t)
{
    unsigned s = mx_type_size(t);
    return s ? s : 1;
}

static mx_val mk(mx_type t)
{
    mx_val v;
    memset(&v, 0, sizeof v);
    v.t = t;
    v.n = tsize(t);
    return v;
}

static bool out(mx_node *n, mx_val v)
{
    n->outs[0] = v;
    return true;
}

static bool is_matrix(mx_type t)
{
    return t == MX_MATRIX33 || t == MX_MATRIX44;
}

static bool is_color(mx_type t)
{
    return t == MX_COLOR3 || t == MX_COLOR4;
}

/* fmag helpers. What is known at build time (a default input is a literal) they do
 * not build, so the reader hands the passes and the lowering less IR: only the folds
 * that the lowering makes at every level (lib/CodeGen/Lower.c, -O0 included) and
 * constfold makes at -O1 and -O2, so that no -O1/-O2 output changes; x - 0, which
 * constfold folds and the -O0 lowering does not, is folded too (shorter -O0 programs,
 * docs/MaterialX.md). The literals come from the gen's cache. */
static bool lit(const fmag_value *v, float *f)
{
    if (v->kind != FMAG_VALUE_CONST || v->type != FMAG_TYPE_F32) return false;
    *f = v->imm;
    return true;
}
static fmag_value *K(mx_node *n, float f)
{
    return mx_k(n, f);
}
/* e > 0 ? a*bb + c : d, or what it is known to be: the literal of an unconditional
 * fma of literals with a finite result, d under a literal guard <= 0, x for x*1 + 0
 * (either factor, either zero) and for a select of x on both arms or of two equal
 * literals. */
static fmag_value *fmagk(mx_node *n, fmag_value *a, fmag_value *bb, fmag_value *c, fmag_value *d,
                         fmag_value *e)
{
    float ka = 0, kb = 0, kc = 0, kd = 0, ke = 0;
    bool la = lit(a, &ka), lb = lit(bb, &kb), lc = lit(c, &kc);
    bool move = lc && kc == 0.0f && ((!la && lb && kb == 1.0f) || (la && ka == 1.0f && !lb));
    fmag_value *moved = la ? bb : a;
    if (lit(e, &ke)) {
        if (!(ke > 0.0f)) return d;
        if (la && lb && lc) {
            float r = fmaf(ka, kb, kc);
            if (r - r == 0.0f) return K(n, r); /* never an infinity or NaN literal */
        }
        if (move) return moved;
        /* x - 0: a product of -0 leaves any c as it is (a +0 one would turn -0 into +0) */
        if (la && lb && ka * kb == 0.0f && signbit(ka * kb)) return c;
    } else {
        if (move && moved == d) return d;
        if (la && lb && lc && lit(d, &kd) && fmaf(ka, kb, kc) == kd) return d;
    }
    return fmag_build_fmag(B, a, bb, c, d, e);
}
static fmag_value *fma3(mx_node *n, fmag_value *x, fmag_value *y, fmag_value *z)
{
    return fmagk(n, x, y, z, n->k0, n->k1);
}
static fmag_value *add(mx_node *n, fmag_value *x, fmag_value *y)
{
    return fma3(n, x, n->k1, y);
}
static fmag_value *sub(mx_node *n, fmag_value *x, fmag_value *y)
{
    return fma3(n, y, n->km1, x);
}
static fmag_value *mul(mx_node *n, fmag_value *x, fmag_value *y)
{
    return fma3(n, x, y, n->k0);
}
static fmag_value *divv(mx_node *n, fmag_value *x, fmag_value *y)
{
    float c;
    if (lit(y, &c) && c == 1.0f) return x;
    return fmag_build_div(B, x, y, F);
}
/* c > 0 ? t : f for a boolean c of 1.0 / 0.0 */
static fmag_value *sel(mx_node *n, fmag_value *c, fmag_value *t, fmag_value *f)
{
    return fmagk(n, t, n->k1, n->k0, f, c);
}
/* The comparisons of fmag/Sugar.def, 1.0 or 0.0, through the folds: x - y decides */
static fmag_value *gt(mx_node *n, fmag_value *x, fmag_value *y)
{
    return sel(n, sub(n, x, y), n->k1, n->k0);
}
static fmag_value *lt(mx_node *n, fmag_value *x, fmag_value *y)
{
    return gt(n, y, x);
}
static fmag_value *le(mx_node *n, fmag_value *x, fmag_value *y)
{
    return sel(n, sub(n, x, y), n->k0, n->k1);
}
static fmag_value *ge(mx_node *n, fmag_value *x, fmag_value *y)
{
    return le(n, y, x);
}

/* The literal that the sequence just built after `last` (NULL: from the block's
 * start) computes, evaluated step by step as constfold and the lowering fold it
 * (fmag_eval, the machine's instruction); false when a step is not an fmag of
 * literals and earlier steps, or is not finite (no literal for it: the folds leave
 * it). */
static bool eval_built(const fmag_block *blk, const fmag_instr *last, const fmag_value *r,
                       float *out)
{
    enum { MAX_STEPS = 128 }; /* a builtin's sequence; a longer one stays built */
    float vals[MAX_STEPS];
    unsigned count = 0;
    bool ok = true;
    fmag_instr *first = last ? last->next : blk->first;
    for (fmag_instr *i = first; i && ok; i = i->next) {
        float o[5];
        ok = i->op == FMAG_OP_FMAG && count < MAX_STEPS;
        for (unsigned k = 0; k < 5 && ok; k++) {
            fmag_value *v = fmag_instr_op(i, k);
            if (lit(v, &o[k])) continue;
            ok = v->kind == FMAG_VALUE_RESULT && v->def->aux;
            if (ok) o[k] = *(const float *)v->def->aux;
        }
        if (!ok) break;
        vals[count] = fmag_eval(o[0], o[1], o[2], o[3], o[4]);
        ok = vals[count] - vals[count] == 0.0f;
        i->aux = &vals[count++];
    }
    bool known = ok && (lit(r, out) || (r->kind == FMAG_VALUE_RESULT && r->def->aux));
    if (known && !lit(r, out)) *out = *(const float *)r->def->aux;
    for (fmag_instr *i = first; i; i = i->next)
        i->aux = NULL;
    return known;
}

/* v, built after `last` at the end of the block: its literal when what was built
 * is a sequence on literals (a builtin of a literal angle or default input), the
 * sequence erased, so that the passes and the lowering never walk what they would
 * fold away to the same literal; else v. */
static fmag_value *fold_since(mx_node *n, fmag_instr *last, fmag_value *v)
{
    fmag_block *blk = B->block;
    float r;
    if (B->before || blk->last == last || !eval_built(blk, last, v, &r)) return v;
    while (blk->last != last)
        fmag_instr_erase(blk->last);
    return K(n, r);
}

/* The one-operand builtins a node applies, a key each for the context's table of
 * those evaluated on literals (mx_folded_get). */
enum {
    U_ABS,
    U_SIGN,
    U_FLOOR,
    U_CEIL,
    U_ROUND,
    U_SIN,
    U_COS,
    U_TAN,
    U_ASIN,
    U_ACOS,
    U_SQRT,
    U_LN,
    U_EXP,
    U_DOT,
    U_FRACT,
    U_RADIANS,
};

typedef fmag_value *(*builtin1)(fmag_builder *b, fmag_value *x, bool fastmath);

/* fn(x), whose op names it. For a literal x, its literal, which the context keeps
 * for the next compile (an editor's, which meets the same literal angle again):
 * its sequence is then not built at all. The key holds what the sequence depends
 * on besides x: the builtin, fast math and the module's intrinsic calls. */
static fmag_value *builtin_of(mx_node *n, int op, builtin1 fn, fmag_value *x)
{
    float kx, r;
    if (!lit(x, &kx)) return fn(B, x, F);
    uint32_t key = (uint32_t)op << 2 | (uint32_t)F << 1 | (uint32_t)B->module->math_calls;
    if (mx_folded_get(n->d, key, x->ibits, &r)) return K(n, r);
    fmag_instr *last = B->block->last;
    fmag_value *v = fold_since(n, last, fn(B, x, F));
    if (lit(v, &r)) mx_folded_put(n->d, key, x->ibits, r);
    return v;
}

/* lib/Math's mix, t*fg + (bg - t*bg) as two fmas, built here through the folds (a
 * literal weight's negation is a literal; a literal background leaves one fma);
 * a weight that is a select of literals is the builder's (it selects instead). */
static fmag_value *mixv(mx_node *n, fmag_value *bg, fmag_value *fg, fmag_value *t)
{
    float kt, k;
    const fmag_instr *d = t->kind == FMAG_VALUE_RESULT ? t->def : NULL;
    if (d && d->op == FMAG_OP_FMAG && lit(fmag_instr_op(d, 0), &k) &&
        lit(fmag_instr_op(d, 1), &k) && lit(fmag_instr_op(d, 2), &k) &&
        lit(fmag_instr_op(d, 3), &k)) {
        fmag_instr *last = B->block->last;
        return fold_since(n, last, fmag_build_mix(B, bg, fg, t, F));
    }
    fmag_value *nt = lit(t, &kt) ? K(n, -kt) : fma3(n, t, n->km1, n->k0);
    return fma3(n, t, fg, fma3(n, nt, bg, bg));
}

/* lib/Math's clamp, built here with the node's literals: on [+0, 1] its saturate
 * (relu, then the min with 1), else the builder's. */
static fmag_value *clampv(mx_node *n, fmag_value *x, fmag_value *lo, fmag_value *hi)
{
    if (lo != n->k0 || hi != n->k1) return fmag_build_clamp(B, x, lo, hi, F);
    fmag_value *r = fmagk(n, x, n->k1, n->k0, n->k0, x);
    return sel(n, sub(n, r, n->k1), n->k1, r);
}

/* lib/Math's smoothstep, and with literal edges (a node's defaults) without what its
 * builder builds to be folded: the width, and a division by a width of 1. Where the
 * module's builtins are calls (a document with derivatives) the division is one, so
 * the builder's own. */
static fmag_value *smooth(mx_node *n, fmag_value *e0, fmag_value *e1, fmag_value *x)
{
    float a, c;
    if (B->module->math_calls || !lit(e0, &a) || !lit(e1, &c))
        return fmag_build_smoothstep(B, e0, e1, x, F);
    fmag_value *num = sub(n, x, e0);
    float w = c - a;
    fmag_value *q = w == 1.0f ? num : fmag_build_div(B, num, K(n, w), F);
    fmag_value *t = clampv(n, q, n->k0, n->k1);
    fmag_value *p = fma3(n, t, K(n, -2.0f), K(n, 3.0f));
    return mul(n, mul(n, t, t), p);
}

/* ----------------------------------------------------------------- math */

static fmag_value *unary(mx_node *n, int op, fmag_value *x)
{
    switch (op) {
    case U_ABS:
        return fmag_build_abs(B, x);
    case U_SIGN:
        return builtin_of(n, U_SIGN, fmag_build_sign, x);
    case U_FLOOR:
        return builtin_of(n, U_FLOOR, fmag_build_floor, x);
    case U_CEIL:
        return builtin_of(n, U_CEIL, fmag_build_ceil, x);
    case U_ROUND:
        return builtin_of(n, U_ROUND, fmag_build_round, x);
    case U_SIN:
        return builtin_of(n, U_SIN, fmag_build_sin, x);
    case U_COS:
        return builtin_of(n, U_COS, fmag_build_cos, x);
    case U_TAN:
        return builtin_of(n, U_TAN, fmag_build_tan, x);
    case U_ASIN:
        return builtin_of(n, U_ASIN, fmag_build_asin, x);
    case U_ACOS:
        return builtin_of(n, U_ACOS, fmag_build_acos, x);
    case U_SQRT:
        return builtin_of(n, U_SQRT, fmag_build_sqrt, x);
    case U_LN:
        return builtin_of(n, U_LN, fmag_build_log, x);
    case U_EXP:
        return builtin_of(n, U_EXP, fmag_build_exp, x);
    case U_FRACT:
        return builtin_of(n, U_FRACT, fmag_build_fract, x);
    default:
        return x;
    }
}

static bool n_unary(mx_node *n, int op)
{
    mx_val x = mx_in(n, "in", n->type, 0.0f), r = mk(n->type);
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = unary(n, op, mx_c(&x, i));
    return out(n, r);
}

enum { BI_ADD, BI_SUB, BI_MUL, BI_DIV, BI_MOD, BI_FMOD, BI_POW, BI_SAFEPOW, BI_MIN, BI_MAX };

static fmag_value *binary(mx_node *n, int op, fmag_value *x, fmag_value *y)
{
    switch (op) {
    case BI_ADD:
        return add(n, x, y);
    case BI_SUB:
        return sub(n, x, y);
    case BI_MUL:
        return mul(n, x, y);
    case BI_DIV: {
        fmag_value *q = divv(n, x, y);
        return n->type == MX_INTEGER ? fmag_build_trunc(B, q, F) : q;
    }
    case BI_MOD:
        return fmag_build_mod(B, x, y, F); /* x - y * floor(x / y) */
    case BI_FMOD:                          /* C's fmod: x - y * trunc(x / y) */
        return sub(n, x, mul(n, y, fmag_build_trunc(B, divv(n, x, y), F)));
    case BI_POW:
        return fmag_build_pow(B, x, y, F);
    case BI_SAFEPOW: /* sign(x) * pow(|x|, y) */
        return mul(n, fmag_build_sign(B, x, F), fmag_build_pow(B, fmag_build_abs(B, x), y, F));
    case BI_MIN:
        return fmag_build_min(B, x, y);
    case BI_MAX:
        return fmag_build_max(B, x, y);
    }
    return x;
}

/* m (N x N, row by row as MaterialX writes it) */
static void mat_mul(mx_node *n, unsigned N, fmag_value *const *a, fmag_value *const *b,
                    fmag_value **r)
{
    for (unsigned i = 0; i < N; i++)
        for (unsigned j = 0; j < N; j++) {
            fmag_value *s = mul(n, a[i * N], b[j]);
            for (unsigned k = 1; k < N; k++)
                s = fma3(n, a[i * N + k], b[k * N + j], s);
            r[i * N + j] = s;
        }
}

static bool n_binary(mx_node *n, int op)
{
    float d2 = (op == BI_MUL || op == BI_DIV || op == BI_MOD || op == BI_FMOD || op == BI_POW ||
                op == BI_SAFEPOW)
                   ? 1.0f
                   : 0.0f;
    mx_val x = mx_in(n, "in1", n->type, 0.0f), y = mx_in(n, "in2", n->type, d2), r = mk(n->type);
    if (is_matrix(n->type) && y.n == r.n && (op == BI_MUL || op == BI_DIV)) {
        /* MaterialX's GLSL computes in1 * in2 on matrices built column by column from
         * the row-major values: as rows, that is in2 . in1 (docs/MaterialX.md). */
        unsigned N = n->type == MX_MATRIX33 ? 3 : 4;
        fmag_value *inv[16];
        if (op == BI_DIV) {
            fmag_build_inverse(B, y.c, N, inv, F);
            mat_mul(n, N, inv, x.c, r.c);
        } else {
            mat_mul(n, N, y.c, x.c, r.c);
        }
        return out(n, r);
    }
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = binary(n, op, mx_c(&x, i), mx_c(&y, i));
    return out(n, r);
}

static bool n_invert(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", n->type, 0.0f), a = mx_in(n, "amount", n->type, 1.0f),
           r = mk(n->type);
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = sub(n, mx_c(&a, i), mx_c(&x, i));
    return out(n, r);
}

static bool n_clamp(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", n->type, 0.0f), lo = mx_in(n, "low", n->type, 0.0f),
           hi = mx_in(n, "high", n->type, 1.0f), r = mk(n->type);
    for (unsigned i = 0; i < r.n; i++) {
        fmag_instr *last = B->block->last;
        r.c[i] = fold_since(n, last, clampv(n, mx_c(&x, i), mx_c(&lo, i), mx_c(&hi, i)));
    }
    return out(n, r);
}

static mx_val in_alt(mx_node *n, const char *a, const char *b, mx_type t, float d)
{
    return mx_doc_child(n->d, n->e, a) ? mx_in(n, a, t, d) : mx_in(n, b, t, d);
}

static bool n_atan2(mx_node *n, int op)
{
    (void)op;
    mx_val y = in_alt(n, "iny", "in1", n->type, 0.0f), x = in_alt(n, "inx", "in2", n->type, 1.0f),
           r = mk(n->type);
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = fmag_build_atan2(B, mx_c(&y, i), mx_c(&x, i), F);
    return out(n, r);
}

static bool n_normalize(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", n->type, 0.0f), r = mk(n->type);
    fmag_value *c[4];
    for (unsigned i = 0; i < r.n; i++)
        c[i] = mx_c(&x, i);
    fmag_build_normalize(B, c, r.n, r.c, F);
    return out(n, r);
}

/* magnitude, distance, dotproduct: a float from vectors */
static bool n_vreduce(mx_node *n, int op)
{
    mx_val x = mx_in(n, op == 0 ? "in" : "in1", MX_NONE, 0.0f), r = mk(MX_FLOAT);
    mx_val y = op ? mx_in(n, "in2", MX_NONE, 0.0f) : x;
    unsigned N = x.n > y.n ? x.n : y.n;
    fmag_value *a[16], *b[16];
    if (N > 4) N = 4;
    for (unsigned i = 0; i < N; i++) {
        a[i] = mx_c(&x, i);
        b[i] = mx_c(&y, i);
    }
    r.c[0] = op == 0   ? fmag_build_length(B, a, N, F)
             : op == 1 ? fmag_build_distance(B, a, b, N, F)
                       : fmag_build_dot(B, a, b, N, F);
    return out(n, r);
}

static bool n_cross(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in1", MX_VECTOR3, 0.0f), y = mx_in(n, "in2", MX_VECTOR3, 0.0f),
           r = mk(MX_VECTOR3);
    fmag_value *a[3], *b[3];
    for (unsigned i = 0; i < 3; i++) {
        a[i] = mx_c(&x, i);
        b[i] = mx_c(&y, i);
    }
    fmag_build_cross(B, a, b, r.c, F);
    return out(n, r);
}

/* transformpoint/vector/normal: FMAG has one space (the program's inputs are in the
 * space the caller chose), so they pass the vector through (docs/MaterialX.md). */
static bool n_passthrough(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", n->type, 0.0f), r = mk(n->type);
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = mx_c(&x, i);
    return out(n, r);
}

/* v as a row vector times the row-major matrix (MaterialX GLSL's mat * v on the
 * column-built matrix); a vector one shorter than the matrix is a point (w = 1). */
static bool n_transformmatrix(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", n->type, 0.0f);
    mx_val m = mx_in(n, "mat", MX_NONE, 0.0f);
    mx_val r = mk(n->type);
    unsigned N = m.n == 16 ? 4 : m.n == 9 ? 3 : 0;
    if (!N) {
        mx_node_error(n, "input 'mat' is not a matrix33 or matrix44");
        return false;
    }
    fmag_value *v[4];
    for (unsigned i = 0; i < N; i++)
        v[i] = i < r.n ? mx_c(&x, i) : K(n, 1.0f);
    for (unsigned j = 0; j < r.n && j < N; j++) {
        fmag_value *s = mul(n, v[0], m.c[j]);
        for (unsigned i = 1; i < N; i++)
            s = fma3(n, v[i], m.c[i * N + j], s);
        r.c[j] = s;
    }
    return out(n, r);
}

static bool n_transpose(mx_node *n, int op)
{
    (void)op;
    mx_val m = mx_in(n, "in", n->type, 0.0f), r = mk(n->type);
    unsigned N = r.n == 9 ? 3 : 4;
    for (unsigned i = 0; i < N; i++)
        for (unsigned j = 0; j < N; j++)
            r.c[i * N + j] = mx_c(&m, j * N + i);
    return out(n, r);
}

static bool n_determinant(mx_node *n, int op)
{
    (void)op;
    mx_val m = mx_in(n, "in", MX_NONE, 0.0f), r = mk(MX_FLOAT);
    unsigned N = m.n == 9 ? 3 : m.n == 16 ? 4 : 0;
    if (!N) {
        mx_node_error(n, "input 'in' is not a matrix33 or matrix44");
        return false;
    }
    r.c[0] = fmag_build_determinant(B, m.c, N, F);
    return out(n, r);
}

static bool n_invertmatrix(mx_node *n, int op)
{
    (void)op;
    mx_val m = mx_in(n, "in", n->type, 0.0f), r = mk(n->type);
    if (m.n != r.n) {
        mx_node_error(n, "input 'in' is not a %s", mx_type_name(n->type));
        return false;
    }
    fmag_build_inverse(B, m.c, r.n == 9 ? 3 : 4, r.c, F);
    return out(n, r);
}

/* GLSL's radians (MaterialX's mx_radians), the constant split for a correctly
 * rounded product */
static fmag_value *radians(mx_node *n, fmag_value *deg)
{
    return builtin_of(n, U_RADIANS, fmag_build_radians, deg);
}

/* rotate2d: MaterialX's GLSL (ca*x + sa*y, -sa*x + ca*y) with amount in degrees. */
static void rot2(mx_node *n, fmag_value *x, fmag_value *y, fmag_value *deg, fmag_value **r)
{
    fmag_value *a = radians(n, deg), *s = builtin_of(n, U_SIN, fmag_build_sin, a),
               *c = builtin_of(n, U_COS, fmag_build_cos, a);
    r[0] = fma3(n, c, x, mul(n, s, y));
    r[1] = sub(n, mul(n, c, y), mul(n, s, x));
}

static bool n_rotate2d(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", MX_VECTOR2, 0.0f), a = mx_in(n, "amount", MX_FLOAT, 0.0f),
           r = mk(MX_VECTOR2);
    rot2(n, mx_c(&x, 0), mx_c(&x, 1), a.c[0], r.c);
    return out(n, r);
}

/* rotate3d: Rodrigues' rotation of in about the normalized axis by amount degrees,
 * in c + (in x axis) s + axis (axis . in)(1 - c), the products and sums in the order of
 * MaterialX's mx_rotate_vector3 (in x axis because MaterialX turns the row vector,
 * v M): with long vectors the terms cancel, and another order rounds otherwise. */
static bool n_rotate3d(mx_node *n, int op)
{
    (void)op;
    static const float yaxis[3] = {0, 1, 0};
    mx_val x = mx_in(n, "in", MX_VECTOR3, 0.0f), a = mx_in(n, "amount", MX_FLOAT, 0.0f),
           ax = mx_in_v(n, "axis", MX_VECTOR3, yaxis), r = mk(MX_VECTOR3);
    fmag_value *k[3], *v[3], *vxk[3];
    fmag_value *axc[3] = {mx_c(&ax, 0), mx_c(&ax, 1), mx_c(&ax, 2)};
    fmag_build_normalize(B, axc, 3, k, F);
    for (unsigned i = 0; i < 3; i++)
        v[i] = mx_c(&x, i);
    fmag_value *t = radians(n, a.c[0]), *s = builtin_of(n, U_SIN, fmag_build_sin, t),
               *c = builtin_of(n, U_COS, fmag_build_cos, t);
    fmag_build_cross(B, v, k, vxk, F);
    fmag_value *kd = fmag_build_dot(B, k, v, 3, F), *omc = sub(n, K(n, 1.0f), c);
    for (unsigned i = 0; i < 3; i++) {
        fmag_value *turned = add(n, mul(n, v[i], c), mul(n, vxk[i], s));
        r.c[i] = add(n, turned, mul(n, mul(n, k[i], kd), omc));
    }
    return out(n, r);
}

/* place2d, as MaterialX's graph switches on operationorder: 0 (SRT)
 * rotate2d((texcoord - pivot) / scale) - offset + pivot, 1 (TRS)
 * rotate2d(texcoord - pivot - offset) / scale + pivot. */
/* place2d. With a literal operationorder (the default 0) only the order it picks is
 * built: the pipeline would remove the other, but building it is half the node's
 * cost. */
static bool n_place2d(mx_node *n, int op)
{
    (void)op;
    static const float one2[2] = {1, 1};
    mx_val tc = mx_in_geom(n, "texcoord", MX_VECTOR2, "texcoord");
    mx_val pv = mx_in(n, "pivot", MX_VECTOR2, 0.0f), sc = mx_in_v(n, "scale", MX_VECTOR2, one2),
           ro = mx_in(n, "rotate", MX_FLOAT, 0.0f), of = mx_in(n, "offset", MX_VECTOR2, 0.0f),
           order = mx_in(n, "operationorder", MX_FLOAT, 0.0f), r = mk(MX_VECTOR2);
    float lit_order;
    bool known = lit(order.c[0], &lit_order), trs_only = known && lit_order == 1.0f,
         rts_only = known && !trs_only;
    fmag_value *sp[2], *p[2], *q[2], *t[2], *u[2];
    for (unsigned i = 0; i < 2; i++) {
        sp[i] = sub(n, mx_c(&tc, i), mx_c(&pv, i));
        if (!trs_only) p[i] = divv(n, sp[i], mx_c(&sc, i));
        if (!rts_only) t[i] = sub(n, sp[i], mx_c(&of, i));
    }
    if (!trs_only) rot2(n, p[0], p[1], ro.c[0], q);
    if (!rts_only) rot2(n, t[0], t[1], ro.c[0], u);
    if (known) {
        for (unsigned i = 0; i < 2; i++)
            r.c[i] = trs_only ? add(n, divv(n, u[i], mx_c(&sc, i)), mx_c(&pv, i))
                              : add(n, sub(n, q[i], mx_c(&of, i)), mx_c(&pv, i));
        return out(n, r);
    }
    fmag_value *trs = fmag_build_eq(B, order.c[0], K(n, 1.0f));
    for (unsigned i = 0; i < 2; i++)
        r.c[i] = sel(n, trs, add(n, divv(n, u[i], mx_c(&sc, i)), mx_c(&pv, i)),
                     add(n, sub(n, q[i], mx_c(&of, i)), mx_c(&pv, i)));
    return out(n, r);
}

static bool n_reflect(mx_node *n, int op)
{
    mx_val I = mx_in(n, "in", MX_VECTOR3, 0.0f), N = mx_in(n, "normal", MX_VECTOR3, 0.0f),
           r = mk(MX_VECTOR3);
    fmag_value *i3[3], *n3[3];
    for (unsigned i = 0; i < 3; i++) {
        i3[i] = mx_c(&I, i);
        n3[i] = mx_c(&N, i);
    }
    if (op == 0) {
        fmag_build_reflect(B, i3, n3, 3, r.c, F);
    } else {
        mx_val eta = mx_in(n, "ior", MX_FLOAT, 1.0f);
        fmag_build_refract(B, i3, n3, eta.c[0], 3, r.c, F);
    }
    return out(n, r);
}

/* ----------------------------------------------------------- adjustment */

static bool n_remap(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", n->type, 0.0f), il = mx_in(n, "inlow", n->type, 0.0f),
           ih = mx_in(n, "inhigh", n->type, 1.0f), ol = mx_in(n, "outlow", n->type, 0.0f),
           oh = mx_in(n, "outhigh", n->type, 1.0f), r = mk(n->type);
    for (unsigned i = 0; i < r.n; i++) {
        fmag_value *t =
            divv(n, sub(n, mx_c(&x, i), mx_c(&il, i)), sub(n, mx_c(&ih, i), mx_c(&il, i)));
        r.c[i] = fma3(n, t, sub(n, mx_c(&oh, i), mx_c(&ol, i)), mx_c(&ol, i));
    }
    return out(n, r);
}

/* smoothstep as MaterialX's mx_smoothstep_float: 1 at in >= high, else 0 at in <= low,
 * else GLSL's smoothstep. The tests come first so that low >= high is a step at high
 * (1 where in >= high), not GLSL's undefined smoothstep over an empty interval. */
static bool n_smoothstep(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", n->type, 0.0f), lo = mx_in(n, "low", n->type, 0.0f),
           hi = mx_in(n, "high", n->type, 1.0f), r = mk(n->type);
    for (unsigned i = 0; i < r.n; i++) {
        fmag_value *v = mx_c(&x, i), *l = mx_c(&lo, i), *h = mx_c(&hi, i);
        fmag_instr *last = B->block->last;
        fmag_value *s = fold_since(n, last, smooth(n, l, h, v));
        s = sel(n, le(n, v, l), K(n, 0.0f), s);
        r.c[i] = sel(n, ge(n, v, h), K(n, 1.0f), s);
    }
    return out(n, r);
}

/* ACEScg luminance weights: the specification's default lumacoeffs. */
static const float acescg[3] = {0.2722287f, 0.6740818f, 0.0536895f};

static fmag_value *luma(mx_node *n, const mx_val *c)
{
    mx_val w = mx_in_v(n, "lumacoeffs", MX_COLOR3, acescg);
    fmag_value *a[3] = {mx_c(c, 0), mx_c(c, 1), mx_c(c, 2)};
    fmag_value *b[3] = {mx_c(&w, 0), mx_c(&w, 1), mx_c(&w, 2)};
    return fmag_build_dot(B, a, b, 3, F);
}

static bool n_luminance(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", n->type, 0.0f), r = mk(n->type);
    fmag_value *l = luma(n, &x);
    for (unsigned i = 0; i < 3; i++)
        r.c[i] = l;
    if (r.n == 4) r.c[3] = mx_c(&x, 3);
    return out(n, r);
}

static bool n_saturate(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", n->type, 0.0f), a = mx_in(n, "amount", MX_FLOAT, 1.0f),
           r = mk(n->type);
    fmag_value *l = luma(n, &x);
    for (unsigned i = 0; i < 3; i++)
        r.c[i] = fma3(n, a.c[0], sub(n, mx_c(&x, i), l), l);
    if (r.n == 4) r.c[3] = mx_c(&x, 3);
    return out(n, r);
}

static void rgb2hsv(mx_node *n, fmag_value *const *c, fmag_value **hsv)
{
    fmag_value *r = c[0], *g = c[1], *b = c[2];
    fmag_value *mn = fmag_build_min(B, r, fmag_build_min(B, g, b));
    fmag_value *mx = fmag_build_max(B, r, fmag_build_max(B, g, b));
    fmag_value *delta = sub(n, mx, mn);
    fmag_value *s = sel(n, gt(n, mx, K(n, 0.0f)), divv(n, delta, mx), K(n, 0.0f));
    /* delta 0 gives h 0; the division is guarded so no NaN reaches a select's arms */
    fmag_value *dsafe = sel(n, gt(n, delta, K(n, 0.0f)), delta, K(n, 1.0f));
    fmag_value *hr = divv(n, sub(n, g, b), dsafe);
    fmag_value *hg = add(n, K(n, 2.0f), divv(n, sub(n, b, r), dsafe));
    fmag_value *hb = add(n, K(n, 4.0f), divv(n, sub(n, r, g), dsafe));
    fmag_value *h = sel(n, ge(n, r, mx), hr, sel(n, ge(n, g, mx), hg, hb));
    h = mul(n, h, K(n, 1.0f / 6.0f));
    h = sel(n, lt(n, h, K(n, 0.0f)), add(n, h, K(n, 1.0f)), h);
    h = sel(n, gt(n, s, K(n, 0.0f)), h, K(n, 0.0f));
    hsv[0] = h;
    hsv[1] = s;
    hsv[2] = mx;
}

static void hsv2rgb(mx_node *n, fmag_value *const *hsv, fmag_value **rgb)
{
    fmag_value *h = hsv[0], *s = hsv[1], *v = hsv[2];
    h = mul(n, fmag_build_fract(B, h, F), K(n, 6.0f));
    fmag_value *hi = fmag_build_floor(B, h, F), *f = sub(n, h, hi);
    fmag_value *one = K(n, 1.0f);
    fmag_value *p = mul(n, v, sub(n, one, s));
    fmag_value *q = mul(n, v, sub(n, one, mul(n, s, f)));
    fmag_value *t = mul(n, v, sub(n, one, mul(n, s, sub(n, one, f))));
    fmag_value *tab[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
    fmag_value *small = lt(n, s, K(n, 0.0001f));
    for (unsigned c = 0; c < 3; c++) {
        fmag_value *r = tab[5][c];
        for (int k = 4; k >= 0; k--)
            r = sel(n, lt(n, hi, K(n, (float)k + 0.5f)), tab[k][c], r);
        rgb[c] = sel(n, small, v, r);
    }
}

static bool n_hsv(mx_node *n, int op)
{
    mx_val x = mx_in(n, "in", n->type, 0.0f), r = mk(n->type);
    fmag_value *c[3] = {mx_c(&x, 0), mx_c(&x, 1), mx_c(&x, 2)};
    if (op == 0)
        rgb2hsv(n, c, r.c);
    else
        hsv2rgb(n, c, r.c);
    if (r.n == 4) r.c[3] = mx_c(&x, 3);
    return out(n, r);
}

static bool n_hsvadjust(mx_node *n, int op)
{
    (void)op;
    static const float dflt[3] = {0, 1, 1};
    mx_val x = mx_in(n, "in", n->type, 0.0f), a = mx_in_v(n, "amount", MX_VECTOR3, dflt),
           r = mk(n->type);
    fmag_value *c[3] = {mx_c(&x, 0), mx_c(&x, 1), mx_c(&x, 2)}, *hsv[3];
    rgb2hsv(n, c, hsv);
    hsv[0] = add(n, hsv[0], mx_c(&a, 0));
    hsv[1] = mul(n, hsv[1], mx_c(&a, 1));
    hsv[2] = mul(n, hsv[2], mx_c(&a, 2));
    hsv2rgb(n, hsv, r.c);
    if (r.n == 4) r.c[3] = mx_c(&x, 3);
    return out(n, r);
}

static bool n_contrast(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", n->type, 0.0f), a = mx_in(n, "amount", n->type, 1.0f),
           p = mx_in(n, "pivot", n->type, 0.5f), r = mk(n->type);
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = fma3(n, sub(n, mx_c(&x, i), mx_c(&p, i)), mx_c(&a, i), mx_c(&p, i));
    return out(n, r);
}

/* range: remap in to [0, 1], pow by 1/gamma, remap to [outlow, outhigh], clamp when
 * doclamp. */
static bool n_range(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", n->type, 0.0f), il = mx_in(n, "inlow", n->type, 0.0f),
           ih = mx_in(n, "inhigh", n->type, 1.0f), ga = mx_in(n, "gamma", n->type, 1.0f),
           ol = mx_in(n, "outlow", n->type, 0.0f), oh = mx_in(n, "outhigh", n->type, 1.0f),
           dc = mx_in(n, "doclamp", MX_BOOLEAN, 0.0f), r = mk(n->type);
    for (unsigned i = 0; i < r.n; i++) {
        fmag_value *t =
            divv(n, sub(n, mx_c(&x, i), mx_c(&il, i)), sub(n, mx_c(&ih, i), mx_c(&il, i)));
        t = fmag_build_pow(B, t, divv(n, K(n, 1.0f), mx_c(&ga, i)), F);
        fmag_value *o = fma3(n, t, sub(n, mx_c(&oh, i), mx_c(&ol, i)), mx_c(&ol, i));
        fmag_value *cl = fmag_build_clamp(B, o, fmag_build_min(B, mx_c(&ol, i), mx_c(&oh, i)),
                                          fmag_build_max(B, mx_c(&ol, i), mx_c(&oh, i)), F);
        r.c[i] = fmag_build_select_truth(B, dc.c[0], cl, o);
    }
    return out(n, r);
}

/* -------------------------------------------------------------- channel */

static bool n_extract(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", MX_NONE, 0.0f), r = mk(MX_FLOAT);
    float idx;
    if (!mx_in_const(n, "index", 0.0f, &idx)) return false;
    if (idx < 0 || idx >= (float)x.n || idx != (float)(int)idx) {
        mx_node_error(n, "index %g is not a channel of a %s", idx, mx_type_name(x.t));
        return false;
    }
    r.c[0] = mx_c(&x, (unsigned)idx);
    return out(n, r);
}

/* combine2/3/4: the inputs' components in order (floats, or a vector and a float). */
static bool n_combine(mx_node *n, int op)
{
    static const char *const names[] = {"in1", "in2", "in3", "in4"};
    mx_val r = mk(n->type);
    unsigned k = 0;
    for (int i = 0; i < op; i++) {
        mx_val x = mx_in(n, names[i], MX_NONE, 0.0f);
        for (unsigned c = 0; c < x.n && k < 16; c++)
            r.c[k++] = x.c[c];
    }
    if (k != r.n) {
        mx_node_error(n, "its inputs have %u components, a %s has %u", k, mx_type_name(n->type),
                      r.n);
        return false;
    }
    return out(n, r);
}

static bool n_separate(mx_node *n, int op)
{
    static const char *const xyzw[] = {"outx", "outy", "outz", "outw"};
    static const char *const rgba[] = {"outr", "outg", "outb", "outa"};
    mx_val x = mx_in(n, "in", MX_NONE, 0.0f);
    if (x.n != (unsigned)op && x.n != 1) {
        mx_node_error(n, "input 'in' is %s; separate%d takes %d components", mx_type_name(x.t), op,
                      op);
        return false;
    }
    n->nouts = (unsigned)op;
    n->out_names = (const char **)(is_color(x.t) ? rgba : xyzw);
    for (int i = 0; i < op; i++) {
        n->outs[i] = mk(MX_FLOAT);
        n->outs[i].c[0] = mx_c(&x, (unsigned)i);
    }
    return true;
}

/* convert: float/integer/boolean to anything (splat), between vectors and colors of
 * one size as they are, one size up with 1 for a 4th component (alpha, w) and 0
 * otherwise, down by dropping the last components. */
static bool n_convert(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", MX_NONE, 0.0f), r = mk(n->type);
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = x.n == 1 ? x.c[0] : i < x.n ? x.c[i] : K(n, i == 3 ? 1.0f : 0.0f);
    if (n->type == MX_BOOLEAN) r.c[0] = fmag_build_truth(B, x.c[0]);
    if (n->type == MX_INTEGER) r.c[0] = fmag_build_trunc(B, x.c[0], F);
    return out(n, r);
}

static bool n_swizzle(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", MX_NONE, 0.0f), r = mk(n->type);
    const char *ch = mx_in_str(n, "channels", "");
    if (strlen(ch) != r.n) {
        mx_node_error(n, "channels '%s' do not make a %s", ch, mx_type_name(n->type));
        return false;
    }
    for (unsigned i = 0; i < r.n; i++) {
        const char *p = strchr("rgbaxyzw01", ch[i]);
        int k = p && ch[i] ? (int)(p - "rgbaxyzw01") : -1;
        if (k < 0 || (k < 8 && (unsigned)(k % 4) >= x.n && x.n != 1)) {
            mx_node_error(n, "'%c' is not a channel of a %s", ch[i], mx_type_name(x.t));
            return false;
        }
        r.c[i] = k == 8 ? K(n, 0.0f) : k == 9 ? K(n, 1.0f) : mx_c(&x, (unsigned)(k % 4));
    }
    return out(n, r);
}

/* ---------------------------------------------------------- compositing */

static bool n_premult(mx_node *n, int op)
{
    mx_val x = mx_in(n, "in", MX_COLOR4, 0.0f), r = mk(MX_COLOR4);
    fmag_value *a = mx_c(&x, 3);
    /* unpremult leaves a pixel of alpha 0 as it is (no division by zero) */
    fmag_value *nz = fmag_build_ne(B, a, K(n, 0.0f)),
               *inv = divv(n, K(n, 1.0f), sel(n, nz, a, K(n, 1.0f)));
    for (unsigned i = 0; i < 3; i++)
        r.c[i] = mul(n, mx_c(&x, i), op == 0 ? a : inv);
    r.c[3] = a;
    return out(n, r);
}

enum { BL_PLUS, BL_MINUS, BL_DIFF, BL_BURN, BL_DODGE, BL_SCREEN, BL_OVERLAY, BL_MIX };

static fmag_value *blend1(mx_node *n, int op, fmag_value *f, fmag_value *b)
{
    fmag_value *one = K(n, 1.0f), *eps = K(n, 1e-8f);
    switch (op) {
    case BL_PLUS:
        return add(n, f, b);
    case BL_MINUS:
        return sub(n, b, f);
    case BL_DIFF:
        return fmag_build_abs(B, sub(n, b, f));
    case BL_BURN: { /* 1 - (1 - B) / F; 0 where |F| is below epsilon */
        fmag_value *ok = ge(n, fmag_build_abs(B, f), eps);
        fmag_value *q = divv(n, sub(n, one, b), sel(n, ok, f, one));
        return sel(n, ok, sub(n, one, q), K(n, 0.0f));
    }
    case BL_DODGE: { /* B / (1 - F); 0 where |1 - F| is below epsilon */
        fmag_value *d = sub(n, one, f), *ok = ge(n, fmag_build_abs(B, d), eps);
        return sel(n, ok, divv(n, b, sel(n, ok, d, one)), K(n, 0.0f));
    }
    case BL_SCREEN:
        return sub(n, one, mul(n, sub(n, one, f), sub(n, one, b)));
    case BL_OVERLAY: { /* 2FB where F < 0.5, else 1 - 2(1 - F)(1 - B) */
        fmag_value *lo = mul(n, K(n, 2.0f), mul(n, f, b));
        fmag_value *hi = sub(n, one, mul(n, K(n, 2.0f), mul(n, sub(n, one, f), sub(n, one, b))));
        return sel(n, lt(n, f, K(n, 0.5f)), lo, hi);
    }
    default:
        return f;
    }
}

/* The blend modes: mix(bg, op(fg, bg), mix) per channel. */
static bool n_blend(mx_node *n, int op)
{
    mx_val f = mx_in(n, "fg", n->type, 0.0f), b = mx_in(n, "bg", n->type, 0.0f),
           m = mx_in(n, "mix", n->type, 1.0f), r = mk(n->type);
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = mixv(n, mx_c(&b, i), blend1(n, op, mx_c(&f, i), mx_c(&b, i)), mx_c(&m, i));
    return out(n, r);
}

enum { PD_OVER, PD_DISJOINTOVER, PD_IN, PD_MASK, PD_MATTE, PD_OUT, PD_ATOP };

/* Porter-Duff on color4 (premultiplied), then mixed with bg by mix. */
static bool n_porterduff(mx_node *n, int op)
{
    mx_val f = mx_in(n, "fg", MX_COLOR4, 0.0f), b = mx_in(n, "bg", MX_COLOR4, 0.0f),
           m = mx_in(n, "mix", MX_FLOAT, 1.0f), r = mk(n->type);
    if (r.n != 4) {
        mx_node_error(n, "the Porter-Duff nodes are color4 nodes");
        return false;
    }
    fmag_value *fa = mx_c(&f, 3), *ba = mx_c(&b, 3), *one = K(n, 1.0f);
    fmag_value *res[4];
    for (unsigned i = 0; i < 4; i++) {
        fmag_value *F_ = mx_c(&f, i), *B_ = mx_c(&b, i), *v;
        switch (op) {
        case PD_OVER:
            v = fma3(n, B_, sub(n, one, fa), F_);
            break;
        case PD_DISJOINTOVER: {
            fmag_value *sum = add(n, fa, ba);
            fmag_value *ok = le(n, sum, one);
            fmag_value *bs = sel(n, gt(n, ba, K(n, 0.0f)), ba, one);
            v = i == 3 ? fmag_build_min(B, sum, one)
                       : sel(n, ok, add(n, F_, B_),
                             add(n, F_, divv(n, mul(n, B_, sub(n, one, fa)), bs)));
            break;
        }
        case PD_IN:
            v = mul(n, F_, ba);
            break;
        case PD_MASK:
            v = mul(n, B_, fa);
            break;
        case PD_MATTE:
            v = i == 3 ? fma3(n, ba, sub(n, one, fa), fa)
                       : fma3(n, F_, fa, mul(n, B_, sub(n, one, fa)));
            break;
        case PD_OUT:
            v = mul(n, F_, sub(n, one, ba));
            break;
        default: /* atop */
            v = i == 3 ? ba : fma3(n, F_, ba, mul(n, B_, sub(n, one, fa)));
            break;
        }
        res[i] = v;
    }
    for (unsigned i = 0; i < 4; i++)
        r.c[i] = mixv(n, mx_c(&b, i), res[i], m.c[0]);
    return out(n, r);
}

static bool n_inside(mx_node *n, int op)
{
    mx_val x = mx_in(n, "in", n->type, 0.0f), m = mx_in(n, "mask", MX_FLOAT, 1.0f), r = mk(n->type);
    fmag_value *k = op ? sub(n, K(n, 1.0f), m.c[0]) : m.c[0];
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = mul(n, mx_c(&x, i), k);
    return out(n, r);
}

static bool n_mix(mx_node *n, int op)
{
    (void)op;
    mx_val f = mx_in(n, "fg", n->type, 0.0f), b = mx_in(n, "bg", n->type, 0.0f),
           m = mx_in(n, "mix", n->type, 0.0f), r = mk(n->type);
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = mixv(n, mx_c(&b, i), mx_c(&f, i), mx_c(&m, i));
    return out(n, r);
}

/* ---------------------------------------------------------- conditional */

static bool n_if(mx_node *n, int op)
{
    mx_val a = mx_in(n, "value1", MX_FLOAT, op == 2 ? 0.0f : 1.0f),
           b = mx_in(n, "value2", MX_FLOAT, 0.0f);
    fmag_value *c = op == 0   ? gt(n, a.c[0], b.c[0])
                    : op == 1 ? ge(n, a.c[0], b.c[0])
                              : fmag_build_eq(B, a.c[0], b.c[0]);
    mx_val r = mk(n->type);
    if (n->type == MX_BOOLEAN && !mx_doc_child(n->d, n->e, "in1") &&
        !mx_doc_child(n->d, n->e, "in2")) {
        r.c[0] = c;
        return out(n, r);
    }
    mx_val x = mx_in(n, "in1", n->type, 0.0f), y = mx_in(n, "in2", n->type, 0.0f);
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = sel(n, c, mx_c(&x, i), mx_c(&y, i));
    return out(n, r);
}

/* switch: in1 where which < 1, in2 where which < 2, ..., the last input otherwise. */
static bool n_switch(mx_node *n, int op)
{
    (void)op;
    static const char *const names[] = {"in1", "in2", "in3", "in4", "in5",
                                        "in6", "in7", "in8", "in9", "in10"};
    unsigned count = 5;
    for (unsigned k = 5; k < 10; k++)
        if (mx_doc_child(n->d, n->e, names[k])) count = k + 1;
    mx_val w = mx_in(n, "which", MX_FLOAT, 0.0f), r = mk(n->type);
    mx_val in[10];
    for (unsigned k = 0; k < count; k++)
        in[k] = mx_in(n, names[k], n->type, 0.0f);
    for (unsigned i = 0; i < r.n; i++) {
        fmag_value *v = mx_c(&in[count - 1], i);
        for (int k = (int)count - 2; k >= 0; k--)
            v = sel(n, lt(n, w.c[0], K(n, (float)(k + 1))), mx_c(&in[k], i), v);
        r.c[i] = v;
    }
    return out(n, r);
}

enum { L_AND, L_OR, L_XOR, L_NOT };

static bool n_logic(mx_node *n, int op)
{
    mx_val r = mk(MX_BOOLEAN);
    if (op == L_NOT) {
        r.c[0] = fmag_build_not(B, mx_in(n, "in", MX_BOOLEAN, 0.0f).c[0]);
        return out(n, r);
    }
    fmag_value *a = fmag_build_truth(B, mx_in(n, "in1", MX_BOOLEAN, 0.0f).c[0]);
    fmag_value *b = fmag_build_truth(B, mx_in(n, "in2", MX_BOOLEAN, 0.0f).c[0]);
    r.c[0] = op == L_AND  ? mul(n, a, b)
             : op == L_OR ? fmag_build_max(B, a, b)
                          : fmag_build_abs(B, sub(n, a, b));
    return out(n, r);
}

/* ----------------------------------------------------------- procedural */

static bool n_constant(mx_node *n, int op)
{
    (void)op;
    mx_val v = mx_in(n, "value", n->type, 0.0f), r = mk(n->type);
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = mx_c(&v, i);
    return out(n, r);
}

static mx_val texcoord(mx_node *n)
{
    return mx_in_geom(n, "texcoord", MX_VECTOR2, "texcoord");
}

static fmag_value *clamp01(mx_node *n, fmag_value *x)
{
    return clampv(n, x, n->k0, n->k1);
}

/* ramplr / ramptb: mix across u (left to right) or v (bottom to top). */
static bool n_ramp(mx_node *n, int op)
{
    mx_val a = mx_in(n, op == 0 ? "valuel" : "valueb", n->type, 0.0f),
           b = mx_in(n, op == 0 ? "valuer" : "valuet", n->type, 0.0f), tc = texcoord(n),
           r = mk(n->type);
    fmag_value *t = clamp01(n, mx_c(&tc, op == 0 ? 0 : 1));
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = mixv(n, mx_c(&a, i), mx_c(&b, i), t);
    return out(n, r);
}

static bool n_ramp4(mx_node *n, int op)
{
    (void)op;
    mx_val tl = mx_in(n, "valuetl", n->type, 0.0f), tr = mx_in(n, "valuetr", n->type, 0.0f),
           bl = mx_in(n, "valuebl", n->type, 0.0f), br = mx_in(n, "valuebr", n->type, 0.0f),
           tc = texcoord(n), r = mk(n->type);
    fmag_value *s = clamp01(n, mx_c(&tc, 0)), *t = clamp01(n, mx_c(&tc, 1));
    for (unsigned i = 0; i < r.n; i++) {
        fmag_value *top = mixv(n, mx_c(&tl, i), mx_c(&tr, i), s);
        fmag_value *bot = mixv(n, mx_c(&bl, i), mx_c(&br, i), s);
        r.c[i] = mixv(n, bot, top, t);
    }
    return out(n, r);
}

/* MaterialX's aastep(center, x): smoothstep over center -/+ w, w the length of x's
 * screen derivatives over sqrt 2 (the caller's derivative inputs, docs/Derivatives.md);
 * where w is 0 (derivatives of 0 given) the limit, a step at x >= center, which
 * smoothstep over an empty interval would not give. */
static fmag_value *aastep(mx_node *n, fmag_value *center, fmag_value *x)
{
    fmag_value *dx = fmag_build_dfdx(B, x), *dy = fmag_build_dfdy(B, x);
    fmag_value *w =
        mul(n, fmag_build_sqrt(B, fma3(n, dx, dx, mul(n, dy, dy)), F), K(n, 0.70710678f));
    fmag_value *soft = smooth(n, sub(n, center, w), add(n, center, w), x);
    fmag_value *step = sel(n, ge(n, x, center), K(n, 1.0f), K(n, 0.0f));
    return sel(n, w, soft, step);
}

/* splitlr / splittb: valuel to valuer across u = center (valueb to valuet across
 * v = center), antialiased as MaterialX does it: mix(valuel, valuer, aastep(center, u)).
 * MaterialX 1.38's GLSL had splittb's values the other way round; this is the
 * specification's (and later MaterialX's) valuet above center. */
static bool n_split(mx_node *n, int op)
{
    mx_val a = mx_in(n, op == 0 ? "valuel" : "valueb", n->type, 0.0f),
           b = mx_in(n, op == 0 ? "valuer" : "valuet", n->type, 0.0f),
           c = mx_in(n, "center", MX_FLOAT, 0.5f), tc = texcoord(n), r = mk(n->type);
    fmag_value *t = aastep(n, c.c[0], mx_c(&tc, op == 0 ? 0 : 1));
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = mixv(n, mx_c(&a, i), mx_c(&b, i), t);
    return out(n, r);
}

/* checkerboard: color1 on the cells where floor(u') + floor(v') is odd, color2 on the
 * others, with (u', v') = texcoord * uvtiling - uvoffset. */
static bool n_checkerboard(mx_node *n, int op)
{
    (void)op;
    static const float eight[2] = {8, 8};
    mx_val c1 = mx_in(n, "color1", n->type, 1.0f), c2 = mx_in(n, "color2", n->type, 0.0f),
           ti = mx_in_v(n, "uvtiling", MX_VECTOR2, eight),
           of = mx_in(n, "uvoffset", MX_VECTOR2, 0.0f), tc = texcoord(n), r = mk(n->type);
    fmag_value *u =
        fmag_build_floor(B, sub(n, mul(n, mx_c(&tc, 0), mx_c(&ti, 0)), mx_c(&of, 0)), F);
    fmag_value *v =
        fmag_build_floor(B, sub(n, mul(n, mx_c(&tc, 1), mx_c(&ti, 1)), mx_c(&of, 1)), F);
    fmag_value *t = fmag_build_mod(B, add(n, u, v), K(n, 2.0f), F);
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = mixv(n, mx_c(&c2, i), mx_c(&c1, i), t);
    return out(n, r);
}

/* circle: 1 inside (distance to center < radius), 0 outside. */
static bool n_circle(mx_node *n, int op)
{
    (void)op;
    mx_val tc = texcoord(n), c = mx_in(n, "center", MX_VECTOR2, 0.0f),
           rad = mx_in(n, "radius", MX_FLOAT, 0.5f), r = mk(MX_FLOAT);
    fmag_value *dx = sub(n, mx_c(&tc, 0), mx_c(&c, 0)), *dy = sub(n, mx_c(&tc, 1), mx_c(&c, 1));
    fmag_value *d2 = fma3(n, dx, dx, mul(n, dy, dy));
    r.c[0] = lt(n, d2, mul(n, rad.c[0], rad.c[0]));
    return out(n, r);
}

/* line: 1 within radius of the segment point1-point2, 0 elsewhere; the points are
 * relative to center (MaterialX's graph measures from texcoord - center). */
static bool n_line(mx_node *n, int op)
{
    (void)op;
    static const float p1d[2] = {0.25f, 0.25f}, p2d[2] = {0.75f, 0.75f};
    mx_val tc = texcoord(n), c = mx_in(n, "center", MX_VECTOR2, 0.0f),
           rad = mx_in(n, "radius", MX_FLOAT, 0.1f), p1 = mx_in_v(n, "point1", MX_VECTOR2, p1d),
           p2 = mx_in_v(n, "point2", MX_VECTOR2, p2d), r = mk(MX_FLOAT);
    fmag_value *lx = sub(n, mx_c(&p2, 0), mx_c(&p1, 0)), *ly = sub(n, mx_c(&p2, 1), mx_c(&p1, 1));
    fmag_value *px = sub(n, sub(n, mx_c(&tc, 0), mx_c(&c, 0)), mx_c(&p1, 0));
    fmag_value *py = sub(n, sub(n, mx_c(&tc, 1), mx_c(&c, 1)), mx_c(&p1, 1));
    fmag_value *ll = fma3(n, lx, lx, mul(n, ly, ly));
    fmag_value *llsafe = sel(n, gt(n, ll, K(n, 0.0f)), ll, K(n, 1.0f));
    fmag_value *t = clamp01(n, divv(n, fma3(n, px, lx, mul(n, py, ly)), llsafe));
    fmag_value *dx = sub(n, px, mul(n, lx, t)), *dy = sub(n, py, mul(n, ly, t));
    fmag_value *d2 = fma3(n, dx, dx, mul(n, dy, dy));
    r.c[0] = le(n, d2, mul(n, rad.c[0], rad.c[0]));
    return out(n, r);
}

/* cloverleaf: 1 inside any of four circles of radius/2 centred radius/2 from center
 * along the axes, 0 elsewhere (our definition; docs/MaterialX.md). */
static bool n_cloverleaf(mx_node *n, int op)
{
    (void)op;
    mx_val tc = texcoord(n), c = mx_in(n, "center", MX_VECTOR2, 0.0f),
           rad = mx_in(n, "radius", MX_FLOAT, 0.5f), r = mk(MX_FLOAT);
    fmag_value *h = mul(n, rad.c[0], K(n, 0.5f)), *h2 = mul(n, h, h);
    fmag_value *dx = fmag_build_abs(B, sub(n, mx_c(&tc, 0), mx_c(&c, 0)));
    fmag_value *dy = fmag_build_abs(B, sub(n, mx_c(&tc, 1), mx_c(&c, 1)));
    /* by symmetry, the nearest leaf along x is at (h, 0), along y at (0, h) */
    fmag_value *ax = sub(n, dx, h), *ay = sub(n, dy, h);
    fmag_value *d1 = fma3(n, ax, ax, mul(n, dy, dy));
    fmag_value *d2 = fma3(n, dx, dx, mul(n, ay, ay));
    r.c[0] = lt(n, fmag_build_min(B, d1, d2), h2);
    return out(n, r);
}

/* hexagon: 1 inside (edge included) the regular hexagon of apothem radius about center
 * with two vertices on the vertical through it, 0 elsewhere: MaterialX's graph, a signed
 * distance of at most 0. */
static bool n_hexagon(mx_node *n, int op)
{
    (void)op;
    mx_val tc = texcoord(n), c = mx_in(n, "center", MX_VECTOR2, 0.0f),
           rad = mx_in(n, "radius", MX_FLOAT, 0.5f), r = mk(MX_FLOAT);
    fmag_value *dx = fmag_build_abs(B, sub(n, mx_c(&tc, 0), mx_c(&c, 0)));
    fmag_value *dy = fmag_build_abs(B, sub(n, mx_c(&tc, 1), mx_c(&c, 1)));
    /* inside: |x| <= radius (the vertical sides) and |x| / 2 + |y| sqrt(3)/2 <= radius
     * (the slanted ones) */
    fmag_value *e = fma3(n, dy, K(n, 0.866025403784f), mul(n, dx, K(n, 0.5f)));
    r.c[0] = mul(n, le(n, dx, rad.c[0]), le(n, e, rad.c[0]));
    return out(n, r);
}

/* MaterialX's randomfloat graph: cellnoise of (in * 4096, seed) (the scale puts
 * nearby inputs in other cells) mapped to [lo, hi] and clamped there, as range does
 * with doclamp. */
static fmag_value *random_in(mx_node *n, fmag_value *in, fmag_value *seed, fmag_value *lo,
                             fmag_value *hi)
{
    fmag_value *p[2] = {mul(n, in, K(n, 4096.0f)), seed}, *c;
    mx_cellnoise(n, p, 2, 1, &c);
    fmag_value *o = fma3(n, c, sub(n, hi, lo), lo);
    return fmag_build_clamp(B, o, fmag_build_min(B, lo, hi), fmag_build_max(B, lo, hi), F);
}

static bool n_randomfloat(mx_node *n, int op)
{
    (void)op;
    mx_val x = mx_in(n, "in", MX_FLOAT, 0.0f), lo = mx_in(n, "min", MX_FLOAT, 0.0f),
           hi = mx_in(n, "max", MX_FLOAT, 1.0f), sd = mx_in(n, "seed", MX_FLOAT, 0.0f),
           r = mk(MX_FLOAT);
    r.c[0] = random_in(n, x.c[0], sd.c[0], lo.c[0], hi.c[0]);
    return out(n, r);
}

/* randomcolor: hue, saturation and brightness each a randomfloat of in in its range,
 * seeded ceil(seed + 413.3), ceil(seed + 1522.4), ceil(seed + 1813.8) as MaterialX's
 * graph seeds them, then hsvtorgb. */
static bool n_randomcolor(mx_node *n, int op)
{
    (void)op;
    static const char *const lo[] = {"huelow", "saturationlow", "brightnesslow"};
    static const char *const hi[] = {"huehigh", "saturationhigh", "brightnesshigh"};
    mx_val x = mx_in(n, "in", MX_FLOAT, 0.0f), sd = mx_in(n, "seed", MX_FLOAT, 0.0f),
           r = mk(n->type);
    static const float seed_offset[3] = {413.3f, 1522.4f, 1813.8f};
    fmag_value *hsv[3];
    for (unsigned k = 0; k < 3; k++) {
        fmag_value *s = fmag_build_ceil(B, add(n, sd.c[0], K(n, seed_offset[k])), F);
        mx_val l = mx_in(n, lo[k], MX_FLOAT, 0.0f), h = mx_in(n, hi[k], MX_FLOAT, 1.0f);
        hsv[k] = random_in(n, x.c[0], s, l.c[0], h.c[0]);
    }
    hsv2rgb(n, hsv, r.c);
    if (r.n == 4) r.c[3] = K(n, 1.0f);
    return out(n, r);
}

/* ---------------------------------------------------------------- noise */

/* noise2d / noise3d: amplitude * noise + pivot; 2 channels are the 3-channel noise's
 * first two, 4 channels the 3-channel noise and the float noise at an offset. */
static bool n_noise(mx_node *n, int op)
{
    unsigned dim = (unsigned)op;
    mx_val p = dim == 2 ? texcoord(n) : mx_in_geom(n, "position", MX_VECTOR3, "position");
    mx_val amp = mx_in(n, "amplitude", n->type, 1.0f), piv = mx_in(n, "pivot", MX_FLOAT, 0.0f),
           r = mk(n->type);
    fmag_value *pc[3] = {mx_c(&p, 0), mx_c(&p, 1), dim == 3 ? mx_c(&p, 2) : NULL}, *v[4];
    if (r.n == 1) {
        mx_perlin(n, pc, dim, 1, v);
    } else {
        mx_perlin(n, pc, dim, 3, v);
        if (r.n == 4) {
            static const float off[3] = {19.0f, 73.0f, 29.0f};
            fmag_value *q[3];
            for (unsigned i = 0; i < dim; i++)
                q[i] = add(n, pc[i], K(n, off[i]));
            mx_perlin(n, q, dim, 1, &v[3]);
        }
    }
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = fma3(n, v[i], mx_c(&amp, i), piv.c[0]);
    return out(n, r);
}

static bool n_fractal(mx_node *n, int op)
{
    unsigned dim = (unsigned)op;
    mx_val p = dim == 2 ? texcoord(n) : mx_in_geom(n, "position", MX_VECTOR3, "position");
    mx_val amp = mx_in(n, "amplitude", n->type, 1.0f), lac = mx_in(n, "lacunarity", MX_FLOAT, 2.0f),
           dim_ = mx_in(n, "diminish", MX_FLOAT, 0.5f), r = mk(n->type);
    float oct;
    if (!mx_in_const(n, "octaves", 3.0f, &oct)) return false;
    if (oct < 0 || oct > 64 || oct != (float)(int)oct) {
        mx_node_error(n, "octaves %g is not an integer from 0 to 64", oct);
        return false;
    }
    fmag_value *pc[3] = {mx_c(&p, 0), mx_c(&p, 1), dim == 3 ? mx_c(&p, 2) : K(n, 0.0f)}, *v[4];
    if (r.n == 1) {
        mx_fractal(n, pc, dim, 1, (int)oct, lac.c[0], dim_.c[0], v);
    } else {
        mx_fractal(n, pc, dim, 3, (int)oct, lac.c[0], dim_.c[0], v);
        if (r.n == 4) {
            static const float off[3] = {19.0f, 193.0f, 17.0f};
            fmag_value *q[3];
            for (unsigned i = 0; i < dim; i++)
                q[i] = add(n, pc[i], K(n, off[i]));
            mx_fractal(n, q, dim, 1, (int)oct, lac.c[0], dim_.c[0], &v[3]);
        }
    }
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = mul(n, v[i], mx_c(&amp, i));
    return out(n, r);
}

static bool n_cellnoise(mx_node *n, int op)
{
    unsigned dim = (unsigned)op;
    mx_val p = dim == 2 ? texcoord(n) : mx_in_geom(n, "position", MX_VECTOR3, "position");
    mx_val r = mk(n->type);
    if (r.n != 1 && r.n != 3) {
        mx_node_error(n, "cellnoise gives a float or 3 channels");
        return false;
    }
    fmag_value *pc[3] = {mx_c(&p, 0), mx_c(&p, 1), dim == 3 ? mx_c(&p, 2) : NULL};
    mx_cellnoise(n, pc, dim, r.n, r.c);
    return out(n, r);
}

/* worleynoise2d/3d: float F1, vector2 (F1, F2) or vector3 (F1, F2, F3), the distances
 * to the nearest jittered points; with 1.39's `style` 1 (solid) instead the cell noise
 * of the nearest point, as MaterialX's mx_worley_noise_* (any other style is the
 * distance there; a literal one is refused here as a likely mistake). */
static bool n_worley(mx_node *n, int op)
{
    unsigned dim = (unsigned)op;
    mx_val p = dim == 2 ? texcoord(n) : mx_in_geom(n, "position", MX_VECTOR3, "position");
    mx_val j = mx_in(n, "jitter", MX_FLOAT, 1.0f), r = mk(n->type);
    mx_val style = mx_in(n, "style", MX_FLOAT, 0.0f);
    float metric, lit_style;
    if (!mx_in_const(n, "metric", 0.0f, &metric)) return false;
    if (n->type != MX_FLOAT && n->type != MX_VECTOR2 && n->type != MX_VECTOR3) {
        mx_node_error(n, "worley noise is a float, vector2 or vector3 (F1, F2, F3)");
        return false;
    }
    if (lit(style.c[0], &lit_style) && lit_style != 0 && lit_style != 1) {
        mx_node_error(n, "style %g is not 0 (distance) or 1 (solid)", lit_style);
        return false;
    }
    if (metric < 0 || metric > 3 || metric != (float)(int)metric) {
        mx_node_error(n,
                      "metric %g is not 0 (Euclidean), 1 (squared), 2 (Manhattan) or 3 "
                      "(Chebyshev)",
                      metric);
        return false;
    }
    fmag_value *pc[3] = {mx_c(&p, 0), mx_c(&p, 1), dim == 3 ? mx_c(&p, 2) : NULL};
    bool is_lit = lit(style.c[0], &lit_style), maybe_solid = !is_lit || lit_style == 1;
    fmag_value *nearest[3], *cell[3];
    mx_worley(n, pc, dim, j.c[0], (int)metric, r.n, r.c, maybe_solid ? nearest : NULL);
    if (!maybe_solid) return out(n, r);
    for (unsigned k = 0; k < dim; k++)
        nearest[k] = add(n, nearest[k], pc[k]);
    mx_cellnoise(n, nearest, dim, r.n == 1 ? 1 : 3, cell);
    fmag_value *solid = is_lit ? K(n, 1.0f) : fmag_build_eq(B, style.c[0], K(n, 1.0f));
    for (unsigned i = 0; i < r.n; i++)
        r.c[i] = sel(n, solid, cell[i], r.c[i]);
    return out(n, r);
}

/* ------------------------------------------------------------ geometric */

static bool n_geom(mx_node *n, int op)
{
    static const char *const kinds[] = {"position", "normal", "tangent", "bitangent"};
    const char *kind = kinds[op];
    const char *space = mx_in_str(n, "space", "object");
    char key[64];
    if (!strcmp(space, "object") || !strcmp(space, "model"))
        snprintf(key, sizeof key, "%s", kind);
    else
        snprintf(key, sizeof key, "%s_%.30s", kind, space);
    return out(n, mx_stream(n, key, n->type == MX_NONE ? MX_VECTOR3 : n->type));
}

static bool n_texcoord(mx_node *n, int op)
{
    float idx;
    if (!mx_in_const(n, "index", 0.0f, &idx)) return false;
    char key[32];
    const char *kind = op ? "color" : "texcoord";
    if (idx == 0)
        snprintf(key, sizeof key, "%s", kind);
    else
        snprintf(key, sizeof key, "%s%d", kind, (int)idx);
    return out(n, mx_stream(n, key, n->type == MX_NONE ? MX_VECTOR2 : n->type));
}

static bool n_time(mx_node *n, int op)
{
    return out(n, mx_stream(n, op ? "frame" : "time", MX_FLOAT));
}

static bool n_geompropvalue(mx_node *n, int op)
{
    (void)op;
    const char *gp = mx_in_str(n, "geomprop", "");
    char key[96];
    snprintf(key, sizeof key, "geomprop.%.80s", gp);
    return out(n, mx_stream(n, key, n->type));
}

/* -------------------------------------------------------------- the table */

typedef struct node_impl {
    const char *category;
    bool (*fn)(mx_node *n, int op);
    int op;
} node_impl;

/* Sorted by category (strcmp order): looked up by binary search. */
static const node_impl table[] = {
    {"absval", n_unary, U_ABS},
    {"acos", n_unary, U_ACOS},
    {"add", n_binary, BI_ADD},
    {"and", n_logic, L_AND},
    {"asin", n_unary, U_ASIN},
    {"atan2", n_atan2, 0},
    {"atop", n_porterduff, PD_ATOP},
    {"bitangent", n_geom, 3},
    {"burn", n_blend, BL_BURN},
    {"ceil", n_unary, U_CEIL},
    {"cellnoise2d", n_cellnoise, 2},
    {"cellnoise3d", n_cellnoise, 3},
    {"checkerboard", n_checkerboard, 0},
    {"circle", n_circle, 0},
    {"clamp", n_clamp, 0},
    {"cloverleaf", n_cloverleaf, 0},
    {"combine2", n_combine, 2},
    {"combine3", n_combine, 3},
    {"combine4", n_combine, 4},
    {"constant", n_constant, 0},
    {"contrast", n_contrast, 0},
    {"convert", n_convert, 0},
    {"cos", n_unary, U_COS},
    {"crossproduct", n_cross, 0},
    {"determinant", n_determinant, 0},
    {"difference", n_blend, BL_DIFF},
    {"disjointover", n_porterduff, PD_DISJOINTOVER},
    {"distance", n_vreduce, 1},
    {"divide", n_binary, BI_DIV},
    {"dodge", n_blend, BL_DODGE},
    {"dot", n_passthrough, 0},
    {"dotproduct", n_vreduce, 2},
    {"exp", n_unary, U_EXP},
    {"extract", n_extract, 0},
    {"floor", n_unary, U_FLOOR},
    {"fmod", n_binary, BI_FMOD},
    {"fractal2d", n_fractal, 2},
    {"fractal3d", n_fractal, 3},
    {"frame", n_time, 1},
    {"geomcolor", n_texcoord, 1},
    {"geompropvalue", n_geompropvalue, 0},
    {"hexagon", n_hexagon, 0},
    {"hsvadjust", n_hsvadjust, 0},
    {"hsvtorgb", n_hsv, 1},
    {"ifequal", n_if, 2},
    {"ifgreater", n_if, 0},
    {"ifgreatereq", n_if, 1},
    {"in", n_porterduff, PD_IN},
    {"inside", n_inside, 0},
    {"invert", n_invert, 0},
    {"invertmatrix", n_invertmatrix, 0},
    {"line", n_line, 0},
    {"ln", n_unary, U_LN},
    {"luminance", n_luminance, 0},
    {"magnitude", n_vreduce, 0},
    {"mask", n_porterduff, PD_MASK},
    {"matte", n_porterduff, PD_MATTE},
    {"max", n_binary, BI_MAX},
    {"min", n_binary, BI_MIN},
    {"minus", n_blend, BL_MINUS},
    {"mix", n_mix, 0},
    {"modulo", n_binary, BI_MOD},
    {"multiply", n_binary, BI_MUL},
    {"noise2d", n_noise, 2},
    {"noise3d", n_noise, 3},
    {"normal", n_geom, 1},
    {"normalize", n_normalize, 0},
    {"not", n_logic, L_NOT},
    {"or", n_logic, L_OR},
    {"out", n_porterduff, PD_OUT},
    {"outside", n_inside, 1},
    {"over", n_porterduff, PD_OVER},
    {"overlay", n_blend, BL_OVERLAY},
    {"place2d", n_place2d, 0},
    {"plus", n_blend, BL_PLUS},
    {"position", n_geom, 0},
    {"power", n_binary, BI_POW},
    {"premult", n_premult, 0},
    {"ramp4", n_ramp4, 0},
    {"ramplr", n_ramp, 0},
    {"ramptb", n_ramp, 1},
    {"randomcolor", n_randomcolor, 0},
    {"randomfloat", n_randomfloat, 0},
    {"range", n_range, 0},
    {"reflect", n_reflect, 0},
    {"refract", n_reflect, 1},
    {"remap", n_remap, 0},
    {"rgbtohsv", n_hsv, 0},
    {"rotate2d", n_rotate2d, 0},
    {"rotate3d", n_rotate3d, 0},
    {"round", n_unary, U_ROUND},
    {"safepower", n_binary, BI_SAFEPOW},
    {"saturate", n_saturate, 0},
    {"screen", n_blend, BL_SCREEN},
    {"separate2", n_separate, 2},
    {"separate3", n_separate, 3},
    {"separate4", n_separate, 4},
    {"sign", n_unary, U_SIGN},
    {"sin", n_unary, U_SIN},
    {"smoothstep", n_smoothstep, 0},
    {"splitlr", n_split, 0},
    {"splittb", n_split, 1},
    {"sqrt", n_unary, U_SQRT},
    {"subtract", n_binary, BI_SUB},
    {"switch", n_switch, 0},
    {"swizzle", n_swizzle, 0},
    {"tan", n_unary, U_TAN},
    {"tangent", n_geom, 2},
    {"texcoord", n_texcoord, 0},
    {"time", n_time, 0},
    {"transformmatrix", n_transformmatrix, 0},
    {"transformnormal", n_passthrough, 0},
    {"transformpoint", n_passthrough, 0},
    {"transformvector", n_passthrough, 0},
    {"transpose", n_transpose, 0},
    {"unpremult", n_premult, 1},
    {"worleynoise2d", n_worley, 2},
    {"worleynoise3d", n_worley, 3},
    {"xor", n_logic, L_XOR},
};

bool mx_std_node(mx_node *n, const char *category, bool *ok)
{
    size_t lo = 0, hi = sizeof table / sizeof table[0];
#ifndef NDEBUG
    for (size_t i = 1; i < hi; i++)
        if (strcmp(table[i - 1].category, table[i].category) >= 0) __builtin_trap();
#endif
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        /* the first letters settle most steps without a call */
        const char *t = table[mid].category;
        int c = category[0] != t[0] ? (unsigned char)category[0] - (unsigned char)t[0]
                                    : strcmp(category, t);
        if (!c) {
            *ok = table[mid].fn(n, table[mid].op);
            return true;
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return false;
}

/* Nodes FMAG cannot run: they need memory (images), the renderer (lights,
 * closures) or neighbouring samples. */
const char *mx_out_of_scope(const char *category, mx_type t)
{
    static const char *const images[] = {"image",
                                         "tiledimage",
                                         "triplanarprojection",
                                         "hextiledimage",
                                         "hextilednormalmap",
                                         "latlongimage",
                                         "UsdUVTexture",
                                         "gltf_image",
                                         "gltf_colorimage",
                                         "gltf_normalmap",
                                         "gltf_iridescence_thickness"};
    static const char *const lights[] = {"light", "point_light", "directional_light", "spot_light"};
    static const char *const samples[] = {"blur", "heighttonormal", "normalmap", "bump"};
    for (size_t i = 0; i < sizeof images / sizeof images[0]; i++)
        if (!strcmp(category, images[i]))
            return "image and texture nodes read memory, which the machine has none of";
    for (size_t i = 0; i < sizeof lights / sizeof lights[0]; i++)
        if (!strcmp(category, lights[i])) return "lights belong to the renderer";
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        if (!strcmp(category, samples[i]))
            return "it needs neighbouring samples or a tangent frame from the renderer";
    if (t == MX_CLOSURE) return "closures and shaders belong to the renderer";
    return NULL;
}
