/* The builtins as opaque calls, and their chain rules: what -derivatives
 * (lib/Transforms/Derivatives.c) needs to differentiate a program.
 *
 * A builtin whose sequence cannot be differentiated instruction by instruction (floor
 * as (x + 1.5*2^23) - 1.5*2^23 would differentiate to 1, sin's range reduction and
 * rcp's Newton steps likewise) becomes, while the module's math_calls flag is set, a
 * call of the intrinsic function @fmag.<name> (@fmag.<name>.fast under fast-math)
 * whose body is the builder's own sequence, built once per module. The builtins made
 * of exact arithmetic and selects (min, max, abs, clamp, mix, step, sign, dot, cross,
 * fract = x - floor(x), mod, smoothstep, normalize...) stay inline: their
 * instructions differentiate to the derivative of the branch taken, which is the
 * analytic rule, and the intrinsics they call inside carry their own rules.
 *
 * docs/Derivatives.md lists every rule. */
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "MathInternal.h"
#include "fmag/Bits.h"

typedef fmag_value *(*rule_fn)(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                               fmag_value *r, bool fm);

typedef struct intrinsic {
    const char *name;
    unsigned nargs;
    fmag_value *(*fn1)(fmag_builder *, fmag_value *, bool);
    fmag_value *(*fn2)(fmag_builder *, fmag_value *, fmag_value *, bool);
    rule_fn rule; /* d result from the arguments' derivatives (NULL entries are 0) */
} intrinsic;

/* --------------------------------------------------------------- helpers */

static fmag_value *neg(fmag_builder *b, fmag_value *x)
{
    return fmag_build_neg(b, x);
}
/* x > 0 ? x : 1, a divisor that is never 0 (the unselected arm of a guarded rule must
 * not make an infinity: the optimizer's strict contract covers programs without). */
static fmag_value *pos_or_one(fmag_builder *b, fmag_value *x)
{
    return SEL(b, x, K(b, 1.0f), x);
}
/* x * c for c = hi + lo, as fma(x, hi, x*lo): within an ulp of the exact product,
 * where x*hi alone is not (ln 2 and 1/ln 2 below). */
static fmag_value *mul_hilo(fmag_builder *b, fmag_value *x, float hi, float lo)
{
    return FMA(b, x, K(b, hi), MUL(b, x, K(b, lo)));
}
#define LN2_HI 0.693147182f
#define LN2_LO -1.90465421e-09f
#define INV_LN2_HI 1.44269502f
#define INV_LN2_LO 1.92596303e-08f

/* g > 0 ? v : 0 */
static fmag_value *when_pos(fmag_builder *b, fmag_value *v, fmag_value *g)
{
    return SEL(b, v, K(b, 0.0f), g);
}

/* ----------------------------------------------------------------- rules */

static fmag_value *d_zero(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                          fmag_value *r, bool fm)
{
    (void)b, (void)x, (void)dx, (void)r, (void)fm;
    return NULL;
}
/* rcp: -r^2 dx */
static fmag_value *d_rcp(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                         fmag_value *r, bool fm)
{
    (void)x, (void)fm;
    return MUL(b, MUL(b, r, r), neg(b, dx[0]));
}
/* x / y: (dx - r dy) / y */
static fmag_value *d_div(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                         fmag_value *r, bool fm)
{
    fmag_value *num = dx[0];
    if (dx[1]) num = num ? FMA(b, neg(b, r), dx[1], num) : MUL(b, neg(b, r), dx[1]);
    return fmag_build_div(b, num, x[1], fm);
}
/* sqrt: dx / (2 r) where r > 0; 0 at 0 (the limit is infinite) */
static fmag_value *d_sqrt(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                          fmag_value *r, bool fm)
{
    (void)x;
    fmag_value *q = fmag_build_div(b, MUL(b, dx[0], K(b, 0.5f)), pos_or_one(b, r), fm);
    return when_pos(b, q, r);
}
/* inversesqrt: -r^3 dx / 2 */
static fmag_value *d_inversesqrt(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                                 fmag_value *r, bool fm)
{
    (void)x, (void)fm;
    fmag_value *r3 = MUL(b, MUL(b, r, r), r);
    return MUL(b, r3, MUL(b, dx[0], K(b, -0.5f)));
}
/* exp: r dx;  exp2: r ln2 dx */
static fmag_value *d_exp(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                         fmag_value *r, bool fm)
{
    (void)x, (void)fm;
    return MUL(b, r, dx[0]);
}
static fmag_value *d_exp2(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                          fmag_value *r, bool fm)
{
    (void)x, (void)fm;
    return MUL(b, r, mul_hilo(b, dx[0], LN2_HI, LN2_LO));
}
/* log: dx / x;  log2: dx / (x ln2); 0 where x <= 0 */
static fmag_value *d_log(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                         fmag_value *r, bool fm)
{
    (void)r;
    return when_pos(b, fmag_build_div(b, dx[0], pos_or_one(b, x[0]), fm), x[0]);
}
static fmag_value *d_log2(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                          fmag_value *r, bool fm)
{
    (void)r;
    fmag_value *s = mul_hilo(b, dx[0], INV_LN2_HI, INV_LN2_LO);
    return when_pos(b, fmag_build_div(b, s, pos_or_one(b, x[0]), fm), x[0]);
}
/* pow: r (y dx / x + log(x) dy), for x > 0; 0 where x <= 0. (y x^(y-1) as y r / x
 * reuses r and keeps the exponent exact: a literal y - 1 would be rounded.) */
static fmag_value *d_pow(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                         fmag_value *r, bool fm)
{
    fmag_value *xs = pos_or_one(b, x[0]), *d = NULL;
    if (dx[0]) d = fmag_build_div(b, MUL(b, MUL(b, x[1], r), dx[0]), xs, fm);
    if (dx[1]) {
        fmag_value *t = MUL(b, MUL(b, r, fmag_build_log(b, xs, fm)), dx[1]);
        d = d ? fmag_build_add(b, d, t) : t;
    }
    return when_pos(b, d, x[0]);
}
/* sin: cos x dx;  cos: -sin x dx;  tan: (1 + r^2) dx */
static fmag_value *d_sin(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                         fmag_value *r, bool fm)
{
    (void)r;
    return MUL(b, fmag_build_cos(b, x[0], fm), dx[0]);
}
static fmag_value *d_cos(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                         fmag_value *r, bool fm)
{
    (void)r;
    return MUL(b, fmag_build_sin(b, x[0], fm), neg(b, dx[0]));
}
static fmag_value *d_tan(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                         fmag_value *r, bool fm)
{
    (void)x, (void)fm;
    return MUL(b, FMA(b, r, r, K(b, 1.0f)), dx[0]);
}
/* atan: dx / (1 + x^2) */
static fmag_value *d_atan(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                          fmag_value *r, bool fm)
{
    (void)r;
    return fmag_build_div(b, dx[0], FMA(b, x[0], x[0], K(b, 1.0f)), fm);
}
/* asin: dx / sqrt(1 - x^2), acos: its negation; 0 where |x| >= 1 */
static fmag_value *d_asin_sign(fmag_builder *b, fmag_value *x, fmag_value *dx, float sign, bool fm)
{
    fmag_value *s = FMA(b, neg(b, x), x, K(b, 1.0f));
    fmag_value *q = fmag_build_inversesqrt(b, pos_or_one(b, s), fm);
    return when_pos(b, MUL(b, q, MUL(b, dx, K(b, sign))), s);
}
static fmag_value *d_asin(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                          fmag_value *r, bool fm)
{
    (void)r;
    return d_asin_sign(b, x[0], dx[0], 1.0f, fm);
}
static fmag_value *d_acos(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                          fmag_value *r, bool fm)
{
    (void)r;
    return d_asin_sign(b, x[0], dx[0], -1.0f, fm);
}
/* sinh: cosh x dx;  cosh: sinh x dx;  tanh: (1 - r^2) dx */
static fmag_value *d_sinh(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                          fmag_value *r, bool fm)
{
    (void)r;
    return MUL(b, fmag_build_cosh(b, x[0], fm), dx[0]);
}
static fmag_value *d_cosh(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                          fmag_value *r, bool fm)
{
    (void)r;
    return MUL(b, fmag_build_sinh(b, x[0], fm), dx[0]);
}
static fmag_value *d_tanh(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                          fmag_value *r, bool fm)
{
    (void)x, (void)fm;
    return MUL(b, FMA(b, neg(b, r), r, K(b, 1.0f)), dx[0]);
}
/* asinh: dx / sqrt(x^2 + 1);  acosh: dx / sqrt(x^2 - 1), 0 where x <= 1;
 * atanh: dx / (1 - x^2), 0 where |x| >= 1 */
static fmag_value *d_asinh(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                           fmag_value *r, bool fm)
{
    (void)r;
    fmag_value *s = FMA(b, x[0], x[0], K(b, 1.0f));
    return MUL(b, fmag_build_inversesqrt(b, s, fm), dx[0]);
}
static fmag_value *d_acosh(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                           fmag_value *r, bool fm)
{
    (void)r;
    fmag_value *s = FMA(b, x[0], x[0], K(b, -1.0f));
    fmag_value *q = fmag_build_inversesqrt(b, pos_or_one(b, s), fm);
    return when_pos(b, MUL(b, q, dx[0]), s);
}
static fmag_value *d_atanh(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                           fmag_value *r, bool fm)
{
    (void)r;
    fmag_value *s = FMA(b, neg(b, x[0]), x[0], K(b, 1.0f));
    return when_pos(b, fmag_build_div(b, dx[0], pos_or_one(b, s), fm), s);
}
/* atan2(y, x): (x dy - y dx) / (x^2 + y^2); 0 at the origin */
static fmag_value *d_atan2(fmag_builder *b, fmag_value *const *x, fmag_value *const *dx,
                           fmag_value *r, bool fm)
{
    (void)r;
    fmag_value *y = x[0], *xx = x[1], *num = NULL;
    if (dx[0]) num = MUL(b, xx, dx[0]);
    if (dx[1]) {
        fmag_value *t = MUL(b, neg(b, y), dx[1]);
        num = num ? fmag_build_add(b, num, t) : t;
    }
    fmag_value *den = FMA(b, xx, xx, MUL(b, y, y));
    return when_pos(b, fmag_build_div(b, num, pos_or_one(b, den), fm), den);
}

// clang-format off
static const intrinsic intrinsics[] = {
    {"floor", 1, fmag_build_floor, NULL, d_zero},
    {"ceil", 1, fmag_build_ceil, NULL, d_zero},
    {"round", 1, fmag_build_round, NULL, d_zero},
    {"trunc", 1, fmag_build_trunc, NULL, d_zero},
    {"rcp", 1, fmag_build_rcp, NULL, d_rcp},
    {"sqrt", 1, fmag_build_sqrt, NULL, d_sqrt},
    {"inversesqrt", 1, fmag_build_inversesqrt, NULL, d_inversesqrt},
    {"exp", 1, fmag_build_exp, NULL, d_exp},
    {"exp2", 1, fmag_build_exp2, NULL, d_exp2},
    {"log", 1, fmag_build_log, NULL, d_log},
    {"log2", 1, fmag_build_log2, NULL, d_log2},
    {"sin", 1, fmag_build_sin, NULL, d_sin},
    {"cos", 1, fmag_build_cos, NULL, d_cos},
    {"tan", 1, fmag_build_tan, NULL, d_tan},
    {"atan", 1, fmag_build_atan, NULL, d_atan},
    {"asin", 1, fmag_build_asin, NULL, d_asin},
    {"acos", 1, fmag_build_acos, NULL, d_acos},
    {"sinh", 1, fmag_build_sinh, NULL, d_sinh},
    {"cosh", 1, fmag_build_cosh, NULL, d_cosh},
    {"tanh", 1, fmag_build_tanh, NULL, d_tanh},
    {"asinh", 1, fmag_build_asinh, NULL, d_asinh},
    {"acosh", 1, fmag_build_acosh, NULL, d_acosh},
    {"atanh", 1, fmag_build_atanh, NULL, d_atanh},
    {"div", 2, NULL, fmag_build_div, d_div},
    {"pow", 2, NULL, fmag_build_pow, d_pow},
    {"atan2", 2, NULL, fmag_build_atan2, d_atan2},
};
// clang-format on

#define NINTRINSICS (sizeof intrinsics / sizeof intrinsics[0])
#define PREFIX "fmag."

/* The table entry of an intrinsic function's name ("fmag.sin", "fmag.sin.fast",
 * "fmag.pow.lit1_40000000": an operand baked in as a literal, below). */
static const intrinsic *lookup(const char *fname, bool *fm)
{
    if (strncmp(fname, PREFIX, sizeof PREFIX - 1)) return NULL;
    const char *n = fname + sizeof PREFIX - 1;
    const char *lit = strstr(n, ".lit");
    size_t len = lit ? (size_t)(lit - n) : strlen(n);
    *fm = len > 5 && !memcmp(n + len - 5, ".fast", 5);
    if (*fm) len -= 5;
    for (size_t i = 0; i < NINTRINSICS; i++)
        if (strlen(intrinsics[i].name) == len && !memcmp(intrinsics[i].name, n, len))
            return &intrinsics[i];
    return NULL;
}

/* An operand known at build time (a literal, or a frontend's -2.0 as neg(2.0)) is
 * baked into the body as a literal, one body per such value (its bits in the name):
 * the builder then takes its literal paths (pow(x, 2.0) is x*x, a literal divisor
 * a multiply) as it does without derivatives. The call still passes the operand, for
 * the rule to read. */
fmag_value *fmag_math_opaque(fmag_builder *b, const char *name, fmag_value *const *args,
                             unsigned nargs, bool fm)
{
    fmag_module *m = b->module;
    char fname[96];
    int len = snprintf(fname, sizeof fname, PREFIX "%s%s", name, fm ? ".fast" : "");
    float lit[2];
    bool known[2] = {false, false};
    for (unsigned k = 0; k < nargs && k < 2; k++) {
        known[k] = fmag_math_literal(args[k], &lit[k]);
        if (known[k])
            len += snprintf(fname + len, sizeof fname - (size_t)len, ".lit%u_%08x", k,
                            (unsigned)fmag_bits_of(lit[k]));
    }
    fmag_func *f = fmag_module_get_func(m, fname);
    if (!f) {
        bool fast;
        const intrinsic *in = lookup(fname, &fast);
        assert(in && in->nargs == nargs);
        f = fmag_func_create(m, fname, nargs, 1, false);
        fmag_builder fb;
        fmag_builder_at_end(&fb, fmag_block_create(f, "entry"));
        fmag_value *p[2] = {NULL, NULL};
        for (unsigned k = 0; k < nargs; k++)
            p[k] = known[k] ? K(&fb, lit[k]) : &f->params[k];
        m->math_calls = false; /* the body is the plain sequence */
        fmag_value *r = nargs == 1 ? in->fn1(&fb, p[0], fm) : in->fn2(&fb, p[0], p[1], fm);
        m->math_calls = true;
        fmag_build_ret(&fb, &r, 1);
    }
    return &fmag_build_call(b, f, args, nargs)->results[0];
}

bool fmag_math_is_intrinsic(const fmag_func *f)
{
    return !strncmp(f->name, PREFIX, sizeof PREFIX - 1);
}

bool fmag_math_intrinsic_derivative(fmag_builder *b, fmag_instr *call, fmag_value *const *dargs,
                                    fmag_value **out)
{
    bool fm;
    const intrinsic *in = lookup(call->callee->name, &fm);
    if (!in || call->nops != in->nargs) return false;
    fmag_value *x[2] = {NULL, NULL};
    bool any = false;
    for (unsigned k = 0; k < in->nargs; k++) {
        x[k] = fmag_instr_op(call, k);
        any |= dargs[k] != NULL;
    }
    *out = any ? in->rule(b, x, dargs, &call->results[0], fm) : NULL;
    return true;
}

/* ---------------------------------------------------------- derivatives */

/* @fmag.dfdx / @fmag.dfdy: placeholders that -derivatives replaces by the operand's
 * partial derivative. Their body returns 0, the derivative when no input carries
 * one, so that a module interpreted before the pass still runs. */
static fmag_value *deriv_call(fmag_builder *b, const char *fname, fmag_value *x)
{
    fmag_module *m = b->module;
    fmag_func *f = fmag_module_get_func(m, fname);
    if (!f) {
        f = fmag_func_create(m, fname, 1, 1, false);
        fmag_builder fb;
        fmag_builder_at_end(&fb, fmag_block_create(f, "entry"));
        fmag_value *z = K(&fb, 0.0f);
        fmag_build_ret(&fb, &z, 1);
    }
    return &fmag_build_call(b, f, &x, 1)->results[0];
}

fmag_value *fmag_build_dfdx(fmag_builder *b, fmag_value *x)
{
    return deriv_call(b, FMAG_DFDX_NAME, x);
}
fmag_value *fmag_build_dfdy(fmag_builder *b, fmag_value *x)
{
    return deriv_call(b, FMAG_DFDY_NAME, x);
}
/* |dx| + |dy| (GLSL's fwidth) */
fmag_value *fmag_build_fwidth(fmag_builder *b, fmag_value *x)
{
    fmag_value *ax = fmag_build_abs(b, fmag_build_dfdx(b, x));
    fmag_value *ay = fmag_build_abs(b, fmag_build_dfdy(b, x));
    return fmag_build_add(b, ax, ay);
}
