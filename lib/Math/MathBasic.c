/* The simple builtins: truth tests, sign, the rounding family, clamps and blends,
 * and the vector helpers, plus the builtin table. Each comment gives the
 * instruction count and why the sequence is exact. */
#include <math.h>
#include <string.h>
#include "MathInternal.h"

bool fmag_math_literal(const fmag_value *v, float *out)
{
    if (fmag_value_is_const(v)) {
        *out = v->imm;
        return true;
    }
    if (v->kind != FMAG_VALUE_RESULT || !v->def || v->def->op != FMAG_OP_FMAG) return false;
    const fmag_instr *i = v->def;
    for (unsigned k = 0; k < 5; k++)
        if (k != 3 && !fmag_value_is_const(fmag_instr_op(i, k))) return false;
    if (!(fmag_instr_op(i, 4)->imm > 0)) return false;
    float r = fmaf(fmag_instr_op(i, 0)->imm, fmag_instr_op(i, 1)->imm, fmag_instr_op(i, 2)->imm);
    if (!isfinite(r)) return false;
    *out = r;
    return true;
}

fmag_value *fmag_math_horner(fmag_builder *b, fmag_value *t, const float *c, int n)
{
    fmag_value *r = K(b, c[n]);
    for (int i = n - 1; i >= 0; i--)
        r = FMA(b, r, t, K(b, c[i]));
    return r;
}

/* x != 0 as 1/0 (3): -x > 0 or x > 0. */
fmag_value *fmag_build_truth(fmag_builder *b, fmag_value *x)
{
    fmag_value *n = fmag_build_neg(b, x);
    fmag_value *t = SEL(b, K(b, 1.0f), K(b, 0.0f), n);
    return SEL(b, K(b, 1.0f), t, x);
}

fmag_value *fmag_build_not(fmag_builder *b, fmag_value *x)
{
    fmag_value *n = fmag_build_neg(b, x);
    fmag_value *t = SEL(b, K(b, 0.0f), K(b, 1.0f), n);
    return SEL(b, K(b, 0.0f), t, x);
}

/* x == y (4): neither x - y > 0 nor y - x > 0 (exact for finite operands: a
 * difference of floats is 0 only when they are equal, with gradual underflow). */
fmag_value *fmag_build_eq(fmag_builder *b, fmag_value *x, fmag_value *y)
{
    fmag_value *d = fmag_build_sub(b, x, y), *nd = fmag_build_sub(b, y, x);
    fmag_value *t = SEL(b, K(b, 0.0f), K(b, 1.0f), nd);
    return SEL(b, K(b, 0.0f), t, d);
}

fmag_value *fmag_build_ne(fmag_builder *b, fmag_value *x, fmag_value *y)
{
    fmag_value *d = fmag_build_sub(b, x, y), *nd = fmag_build_sub(b, y, x);
    fmag_value *t = SEL(b, K(b, 1.0f), K(b, 0.0f), nd);
    return SEL(b, K(b, 1.0f), t, d);
}

fmag_value *fmag_build_select_truth(fmag_builder *b, fmag_value *cond, fmag_value *t, fmag_value *f)
{
    fmag_value *n = fmag_build_neg(b, cond);
    fmag_value *s = SEL(b, t, f, n);
    return SEL(b, t, s, cond);
}

/* sign (3): 1 for x > 0, -1 for x < 0, x itself for +-0. */
fmag_value *fmag_build_sign(fmag_builder *b, fmag_value *x, bool fm)
{
    (void)fm;
    fmag_value *n = fmag_build_neg(b, x);
    fmag_value *s = SEL(b, K(b, -1.0f), x, n);
    return SEL(b, K(b, 1.0f), s, x);
}

/* Round half to even for every finite x (4):
 *   s = x > 0 ? -2^23 : 2^23;  t = x - s  (rounds x to an integer when |x| < 2^23)
 *   g = 2^46 - |x|*2^23 = fma(x, s, 2^46) ... > 0 exactly when |x| < 2^23
 *   r = g > 0 ? t + s : x     (|x| >= 2^23 is already an integer)
 * The final add is guarded by a data-dependent g, so fast-math reassociation cannot
 * fold (x - s) + s back to x. |x|*2^23 may overflow to inf for |x| > 2^104: then g is
 * -inf and x is kept, which is right. */
fmag_value *fmag_math_rne(fmag_builder *b, fmag_value *x, fmag_value **sbias)
{
    fmag_value *s = SEL(b, K(b, -8388608.0f), K(b, 8388608.0f), x);
    fmag_value *t = FMA(b, s, K(b, -1.0f), x);
    fmag_value *g = FMA(b, x, s, K(b, 70368744177664.0f));
    if (sbias) *sbias = s;
    return F(b, t, K(b, 1.0f), s, x, g);
}

fmag_value *fmag_math_round_magic(fmag_builder *b, fmag_value *x, fmag_value **biased)
{
    fmag_value *t = FMA(b, x, K(b, 1.0f), K(b, FMAG_MAGIC));
    if (biased) *biased = t;
    return F(b, t, K(b, 1.0f), K(b, -FMAG_MAGIC), t, t);
}

fmag_value *fmag_build_round(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("round", x);
    (void)fm;
    return fmag_math_rne(b, x, NULL);
}

/* floor (6): r = rne(x); r - 1 when r > x. */
fmag_value *fmag_build_floor(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("floor", x);
    (void)fm;
    fmag_value *r = fmag_math_rne(b, x, NULL);
    fmag_value *d = fmag_build_sub(b, r, x);
    return F(b, r, K(b, 1.0f), K(b, -1.0f), r, d);
}

/* ceil (6): r = rne(x); r + 1 when r < x. */
fmag_value *fmag_build_ceil(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("ceil", x);
    (void)fm;
    fmag_value *r = fmag_math_rne(b, x, NULL);
    fmag_value *d = fmag_build_sub(b, x, r);
    return F(b, r, K(b, 1.0f), K(b, 1.0f), r, d);
}

/* trunc (7): r = rne(x) moved one step toward zero when |r| > |x|. With s the rne
 * bias (-2^23 sign x), (x - r)*s > 0 exactly when r lies beyond x, away from zero. */
fmag_value *fmag_build_trunc(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("trunc", x);
    (void)fm;
    fmag_value *s;
    fmag_value *r = fmag_math_rne(b, x, &s);
    fmag_value *e = fmag_build_sub(b, x, r);
    fmag_value *g = MUL(b, e, s);
    return F(b, s, K(b, 1.0f / 8388608.0f), r, r, g);
}

/* fract (7): x - floor(x). */
fmag_value *fmag_build_fract(fmag_builder *b, fmag_value *x, bool fm)
{
    fmag_value *f = fmag_build_floor(b, x, fm);
    return fmag_build_sub(b, x, f);
}

/* saturate (3): relu then min with 1. */
fmag_value *fmag_build_saturate(fmag_builder *b, fmag_value *x, bool fm)
{
    (void)fm;
    fmag_value *r = fmag_build_relu(b, x);
    return fmag_build_min(b, r, K(b, 1.0f));
}

fmag_value *fmag_build_clamp(fmag_builder *b, fmag_value *x, fmag_value *lo, fmag_value *hi,
                             bool fm)
{
    (void)fm;
    if (fmag_value_is_imm(lo, 0.0f) && fmag_value_is_imm(hi, 1.0f))
        return fmag_build_saturate(b, x, fm);
    return fmag_build_min(b, fmag_build_max(b, x, lo), hi);
}

/* mix (3; 2 when t is a literal, 1 when t is a 0/1 select): t*y + (x - t*x) as
 * two fmas, each product exact inside its fma. Exact at both ends for finite x, y:
 * t = 0 gives 0*y + x = x, t = 1 gives y + (x - x) = y. (The former x + (y - x)*t was exact at
 * t = 0 only: mix(1e8, 1, 1) gave 0.) No two-instruction form is exact at both
 * ends: the inner x - t*x needs -t, which one fma cannot form from t. */
fmag_value *fmag_build_mix(fmag_builder *b, fmag_value *x, fmag_value *y, fmag_value *t, bool fm)
{
    (void)fm;
    /* t a select between the literals 0 and 1 (step(), a comparison): since both
     * ends are exact, mix(x, y, t) is that select of x and y on t's own guard (1). */
    if (t->kind == FMAG_VALUE_RESULT && t->def && t->def->op == FMAG_OP_FMAG) {
        const fmag_instr *i = t->def;
        fmag_value *a = fmag_instr_op(i, 0), *bb = fmag_instr_op(i, 1), *c = fmag_instr_op(i, 2);
        fmag_value *d = fmag_instr_op(i, 3);
        if (fmag_value_is_const(a) && fmag_value_is_const(bb) && fmag_value_is_const(c) &&
            fmag_value_is_const(d)) {
            float t1 = fmaf(a->imm, bb->imm, c->imm), t0 = d->imm;
            if ((t1 == 0 || t1 == 1) && (t0 == 0 || t0 == 1))
                return SEL(b, t1 == 1 ? y : x, t0 == 1 ? y : x, fmag_instr_op(i, 4));
        }
    }
    fmag_value *nt = fmag_value_is_const(t) ? K(b, -t->imm) : fmag_build_neg(b, t);
    return FMA(b, t, y, FMA(b, nt, x, x));
}

/* step (2): x < edge ? 0 : 1. */
fmag_value *fmag_build_step(fmag_builder *b, fmag_value *edge, fmag_value *x, bool fm)
{
    (void)fm;
    return fmag_build_ge(b, x, edge);
}

/* smoothstep: t = saturate((x - e0) / (e1 - e0)); t*t*(3 - 2t). */
fmag_value *fmag_build_smoothstep(fmag_builder *b, fmag_value *e0, fmag_value *e1, fmag_value *x,
                                  bool fm)
{
    fmag_value *num = fmag_build_sub(b, x, e0);
    fmag_value *den = fmag_build_sub(b, e1, e0);
    if (fmag_value_is_const(e0) && fmag_value_is_const(e1)) den = K(b, e1->imm - e0->imm);
    fmag_value *t = fmag_build_saturate(b, fmag_build_div(b, num, den, fm), fm);
    fmag_value *p = FMA(b, t, K(b, -2.0f), K(b, 3.0f));
    return MUL(b, MUL(b, t, t), p);
}

/* mod: x - y*floor(x/y) (GLSL). */
fmag_value *fmag_build_mod(fmag_builder *b, fmag_value *x, fmag_value *y, bool fm)
{
    fmag_value *q = fmag_build_floor(b, fmag_build_div(b, x, y, fm), fm);
    fmag_value *nq = fmag_build_neg(b, q);
    return FMA(b, nq, y, x);
}

/* dot: a chain of fmas (one rounding per term). */
fmag_value *fmag_build_dot(fmag_builder *b, fmag_value *const *x, fmag_value *const *y, unsigned n,
                           bool fm)
{
    (void)fm;
    fmag_value *r = MUL(b, x[0], y[0]);
    for (unsigned i = 1; i < n; i++)
        r = FMA(b, x[i], y[i], r);
    return r;
}

fmag_value *fmag_build_length(fmag_builder *b, fmag_value *const *x, unsigned n, bool fm)
{
    if (n == 1) return fmag_build_abs(b, x[0]);
    return fmag_build_sqrt(b, fmag_build_dot(b, x, x, n, fm), fm);
}

fmag_value *fmag_build_distance(fmag_builder *b, fmag_value *const *x, fmag_value *const *y,
                                unsigned n, bool fm)
{
    fmag_value *d[4] = {0};
    if (n > 4) n = 4;
    for (unsigned i = 0; i < n; i++)
        d[i] = fmag_build_sub(b, x[i], y[i]);
    return fmag_build_length(b, d, n, fm);
}

void fmag_build_normalize(fmag_builder *b, fmag_value *const *x, unsigned n, fmag_value **out,
                          bool fm)
{
    fmag_value *r = fmag_build_inversesqrt(b, fmag_build_dot(b, x, x, n, fm), fm);
    for (unsigned i = 0; i < n; i++)
        out[i] = MUL(b, x[i], r);
}

/* cross (9): each lane a*b - c*d as fma(a, b, -(c*d)). */
void fmag_build_cross(fmag_builder *b, fmag_value *const *x, fmag_value *const *y, fmag_value **out,
                      bool fm)
{
    (void)fm;
    static const int i1[3] = {1, 2, 0}, i2[3] = {2, 0, 1};
    for (int k = 0; k < 3; k++) {
        fmag_value *t = MUL(b, x[i2[k]], y[i1[k]]);
        out[k] = FMA(b, x[i1[k]], y[i2[k]], fmag_build_neg(b, t));
    }
}

static fmag_value *abs_fn(fmag_builder *b, fmag_value *x, bool fm)
{
    (void)fm;
    return fmag_build_abs(b, x);
}
static fmag_value *min_fn(fmag_builder *b, fmag_value *x, fmag_value *y, bool fm)
{
    (void)fm;
    return fmag_build_min(b, x, y);
}
static fmag_value *max_fn(fmag_builder *b, fmag_value *x, fmag_value *y, bool fm)
{
    (void)fm;
    return fmag_build_max(b, x, y);
}
static fmag_value *select_fn(fmag_builder *b, fmag_value *c, fmag_value *t, fmag_value *f, bool fm)
{
    (void)fm;
    return fmag_build_select_truth(b, c, t, f);
}

#define B1(n, f)                                                                                   \
    {                                                                                              \
        n, 1, f, NULL, NULL                                                                        \
    }
#define B2(n, f)                                                                                   \
    {                                                                                              \
        n, 2, NULL, f, NULL                                                                        \
    }
#define B3(n, f)                                                                                   \
    {                                                                                              \
        n, 3, NULL, NULL, f                                                                        \
    }
static const fmag_math_builtin builtins[] = {
    B1("abs", abs_fn),
    B1("sign", fmag_build_sign),
    B1("floor", fmag_build_floor),
    B1("ceil", fmag_build_ceil),
    B1("round", fmag_build_round),
    B1("trunc", fmag_build_trunc),
    B1("fract", fmag_build_fract),
    B1("saturate", fmag_build_saturate),
    B1("sqrt", fmag_build_sqrt),
    B1("inversesqrt", fmag_build_inversesqrt),
    B1("rcp", fmag_build_rcp),
    B1("exp", fmag_build_exp),
    B1("exp2", fmag_build_exp2),
    B1("log", fmag_build_log),
    B1("log2", fmag_build_log2),
    B1("sin", fmag_build_sin),
    B1("cos", fmag_build_cos),
    B1("tan", fmag_build_tan),
    B1("atan", fmag_build_atan),
    B1("asin", fmag_build_asin),
    B1("acos", fmag_build_acos),
    B1("sinh", fmag_build_sinh),
    B1("cosh", fmag_build_cosh),
    B1("tanh", fmag_build_tanh),
    B1("asinh", fmag_build_asinh),
    B1("acosh", fmag_build_acosh),
    B1("atanh", fmag_build_atanh),
    B1("radians", fmag_build_radians),
    B1("degrees", fmag_build_degrees),
    B1("isnan", fmag_build_isnan),
    B1("isinf", fmag_build_isinf),
    B2("min", min_fn),
    B2("max", max_fn),
    B2("mod", fmag_build_mod),
    B2("step", fmag_build_step),
    B2("pow", fmag_build_pow),
    B2("atan2", fmag_build_atan2),
    B2("div", fmag_build_div),
    B2("ldexp", fmag_build_ldexp),
    B3("clamp", fmag_build_clamp),
    B3("mix", fmag_build_mix),
    B3("smoothstep", fmag_build_smoothstep),
    B3("select", select_fn),
    B3("fma", fmag_build_fma_builtin),
};

size_t fmag_math_builtin_count(void)
{
    return sizeof builtins / sizeof builtins[0];
}
const fmag_math_builtin *fmag_math_builtin_get(size_t i)
{
    return i < fmag_math_builtin_count() ? &builtins[i] : NULL;
}
const fmag_math_builtin *fmag_math_builtin_lookup(const char *name)
{
    for (size_t i = 0; i < fmag_math_builtin_count(); i++)
        if (!strcmp(builtins[i].name, name)) return &builtins[i];
    return NULL;
}
