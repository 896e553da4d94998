/* asin, acos, the hyperbolic functions and their inverses. asin/acos evaluate one
 * odd polynomial on [0, 1/2] and reach |x| > 1/2 through asin x = pi/2 -
 * 2 asin(sqrt((1-x)/2)), with the leading subtraction done as an exact Fast2Sum;
 * sinh/cosh/tanh are a polynomial near zero and exp elsewhere (e^x/2 scaled inside
 * the exponent ladder so that it stays finite up to 89.4); the inverses are log1p
 * of an argument built without cancellation. */
#include "MathInternal.h"

/* fmag-remez asin 5: P(z), asin s = s + s^3 P(s^2), s in [0,1/2]; 1.07e-9 */
static const float asin_poly[6] = {0.166666597f,  0.0750050396f, 0.0445169546f,
                                   0.0318077244f, 0.0144385863f, 0.0375164784f};
/* fast-math: fmag-remez asin 3 (9.0e-8) */
static const float asin_poly_fast[4] = {0.166655794f, 0.0754053146f, 0.0400349796f, 0.0499531254f};
/* fmag-remez sinh 3: P(z), sinh x = x + x^3 P(x^2), x in [0,1]; 5.2e-9 */
static const float sinh_poly[4] = {0.166666672f, 0.0083333496f, 0.000198361595f, 2.81695111e-06f};
/* fast-math: fmag-remez sinh 2 (2.6e-8) */
static const float sinh_poly_fast[3] = {0.166667163f, 0.00833028369f, 0.000203721938f};
/* fmag-remez tanh 4: P(z), tanh x = x + x^3 P(x^2), x in [0,0.55]; 4.4e-9 */
static const float tanh_poly[5] = {-0.333333164f, 0.13332586f, -0.0538523085f, 0.0210716799f,
                                   -0.00627423963f};

#define PIO2_HI 1.57079637f
#define PIO2_LO -4.37113883e-08f
#define PI_HI 3.14159274f
#define PI_LO -8.74227766e-08f
#define LN2_HI 0.693147182f
#define LN2_LO -1.90465421e-09f

/* The shared reduction of asin and acos for a = |x|:
 *   a <= 1/2:  v = a,              z = a^2
 *   a >  1/2:  v = sqrt((1-a)/2),  z = (1-a)/2  (exact: 1-a by Sterbenz)
 * and t = v z P(z), so that asin(v) = v + t with v exact and t small. */
typedef struct asin_parts {
    fmag_value *v, *t, *big; /* big > 0 when a > 1/2 */
} asin_parts;

static void asin_reduce(fmag_builder *b, fmag_value *a, bool fm, asin_parts *ap)
{
    ap->big = FMA(b, a, K(b, 1.0f), K(b, -0.5f));
    fmag_value *zs = MUL(b, a, a);
    fmag_value *zb = FMA(b, a, K(b, -0.5f), K(b, 0.5f));
    fmag_value *z = SEL(b, zb, zs, ap->big);
    fmag_value *s = fmag_build_sqrt(b, z, fm);
    ap->v = SEL(b, s, a, ap->big);
    fmag_value *p =
        fm ? fmag_math_horner(b, z, asin_poly_fast, 3) : fmag_math_horner(b, z, asin_poly, 5);
    ap->t = MUL(b, MUL(b, ap->v, z), p);
}

/* c + k*(v + t) for constants chosen per lane (c = chi + clo; k = +-1 or +-2, so
 * k*v is exact): chi + k*v by Fast2Sum (|k v| <= |chi| whenever chi != 0), then the
 * low parts, then one final rounding. */
static fmag_value *asin_combine(fmag_builder *b, const asin_parts *ap, fmag_value *chi,
                                fmag_value *clo, fmag_value *k)
{
    fmag_value *kv = MUL(b, ap->v, k);
    fmag_value *hi = fmag_build_add(b, chi, kv);
    fmag_value *err = fmag_build_sub(b, kv, fmag_build_sub(b, hi, chi));
    fmag_value *lo = FMA(b, ap->t, k, fmag_build_add(b, err, clo));
    return fmag_build_add(b, hi, lo);
}

/* asin: |x| <= 1/2: v + t; |x| > 1/2: pi/2 - 2(v + t); the sign of x restored. */
fmag_value *fmag_build_asin(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("asin", x);
    fmag_value *nx = fmag_build_neg(b, x);
    fmag_value *a = SEL(b, nx, x, nx);
    asin_parts ap;
    asin_reduce(b, a, fm, &ap);
    fmag_value *chi = SEL(b, K(b, PIO2_HI), K(b, 0.0f), ap.big);
    fmag_value *clo = SEL(b, K(b, PIO2_LO), K(b, 0.0f), ap.big);
    fmag_value *k = SEL(b, K(b, -2.0f), K(b, 1.0f), ap.big);
    fmag_value *r = asin_combine(b, &ap, chi, clo, k);
    return F(b, r, K(b, -1.0f), K(b, 0.0f), r, nx);
}

/* acos: |x| <= 1/2: pi/2 - asin x; x > 1/2: 2 asin(v); x < -1/2: pi - 2 asin(v). */
fmag_value *fmag_build_acos(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("acos", x);
    fmag_value *nx = fmag_build_neg(b, x);
    fmag_value *a = SEL(b, nx, x, nx);
    asin_parts ap;
    asin_reduce(b, a, fm, &ap);
    /* small: (pi/2, -sign x); big: x > 0 -> (0, 2), x < 0 -> (pi, -2) */
    fmag_value *ks = SEL(b, K(b, 1.0f), K(b, -1.0f), nx);
    fmag_value *kb = SEL(b, K(b, -2.0f), K(b, 2.0f), nx);
    fmag_value *k = SEL(b, kb, ks, ap.big);
    fmag_value *chb = SEL(b, K(b, PI_HI), K(b, 0.0f), nx);
    fmag_value *clb = SEL(b, K(b, PI_LO), K(b, 0.0f), nx);
    fmag_value *chi = SEL(b, chb, K(b, PIO2_HI), ap.big);
    fmag_value *clo = SEL(b, clb, K(b, PIO2_LO), ap.big);
    return asin_combine(b, &ap, chi, clo, k);
}

/* e^|x| / 2 and, while it matters (|x| < 16), e^-|x| / 2 = 1/(4 * (e^|x|/2)). */
static void exp_pair(fmag_builder *b, fmag_value *a, bool fm, fmag_value **h, fmag_value **q)
{
    *h = fmag_math_exp_scaled(b, a, 89.5f, -1, fm);
    fmag_value *hc = fmag_build_min(b, *h, K(b, 0x1p30f));
    *q = MUL(b, fmag_build_rcp(b, hc, fm), K(b, 0.25f));
}

/* sinh: |x| < 1: x + x^3 P(x^2); else e^|x|/2 - e^-|x|/2 with the sign of x. */
fmag_value *fmag_build_sinh(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("sinh", x);
    fmag_value *nx = fmag_build_neg(b, x);
    fmag_value *a = SEL(b, nx, x, nx);
    fmag_value *h, *q;
    exp_pair(b, a, fm, &h, &q);
    fmag_value *big = fmag_build_sub(b, h, q);
    big = F(b, big, K(b, -1.0f), K(b, 0.0f), big, nx);
    fmag_value *z = MUL(b, x, x);
    fmag_value *p =
        fm ? fmag_math_horner(b, z, sinh_poly_fast, 2) : fmag_math_horner(b, z, sinh_poly, 3);
    fmag_value *small = FMA(b, MUL(b, z, x), p, x);
    fmag_value *g = FMA(b, a, K(b, 1.0f), K(b, -1.0f));
    return SEL(b, big, small, g);
}

/* cosh: e^|x|/2 + e^-|x|/2 (no cancellation anywhere). */
fmag_value *fmag_build_cosh(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("cosh", x);
    fmag_value *a = fmag_build_abs(b, x);
    fmag_value *h, *q;
    exp_pair(b, a, fm, &h, &q);
    return fmag_build_add(b, h, q);
}

/* tanh: |x| < 0.55: x + x^3 P(x^2); else 1 - 1/(e^(2|x|)/2 + 1/2), |x| clamped at 10
 * (tanh rounds to 1 from 9.01 on), with the sign of x. */
fmag_value *fmag_build_tanh(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("tanh", x);
    fmag_value *nx = fmag_build_neg(b, x);
    fmag_value *a = SEL(b, nx, x, nx);
    fmag_value *a2 = MUL(b, fmag_build_min(b, a, K(b, 10.0f)), K(b, 2.0f));
    fmag_value *h = fmag_math_exp_scaled(b, a2, 89.0f, -1, fm);
    fmag_value *r = fmag_build_rcp(b, fmag_build_add(b, h, K(b, 0.5f)), fm);
    fmag_value *big = fmag_build_sub(b, K(b, 1.0f), r);
    big = F(b, big, K(b, -1.0f), K(b, 0.0f), big, nx);
    fmag_value *z = MUL(b, x, x);
    fmag_value *p = fmag_math_horner(b, z, tanh_poly, 4);
    fmag_value *small = FMA(b, MUL(b, z, x), p, x);
    fmag_value *g = FMA(b, a, K(b, 1.0f), K(b, -0.55f));
    return SEL(b, big, small, g);
}

/* log(|x|) + ln 2 for the huge arguments of asinh/acosh, where x^2 would overflow:
 * the callers pass hi = |x| with lo = 0 and add ln 2 to the result. */
static fmag_value *add_ln2(fmag_builder *b, fmag_value *r, fmag_value *g)
{
    fmag_value *u = F(b, r, K(b, 1.0f), K(b, LN2_HI), r, g);
    return F(b, u, K(b, 1.0f), K(b, LN2_LO), u, g);
}

/* asinh: log1p(a + a^2 / (1 + sqrt(1 + a^2))) (no cancellation near 0), for a =
 * |x| < 2^24; log(a) + ln 2 beyond (where sqrt(1 + a^2) = a in float). Sign last. */
fmag_value *fmag_build_asinh(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("asinh", x);
    fmag_value *nx = fmag_build_neg(b, x);
    fmag_value *a = SEL(b, nx, x, nx);
    fmag_value *huge = FMA(b, a, K(b, 1.0f), K(b, -0x1p24f));
    fmag_value *as = fmag_build_min(b, a, K(b, 0x1p24f));
    fmag_value *z = MUL(b, as, as);
    fmag_value *sq = fmag_build_sqrt(b, fmag_build_add(b, z, K(b, 1.0f)), fm);
    fmag_value *q = fmag_build_div(b, z, fmag_build_add(b, sq, K(b, 1.0f)), fm);
    /* u = a + q and w = 1 + u with their rounding errors (2Sum guarded by
     * sq >= 1, out of fast-math's reach) */
    fmag_value *ulo, *err;
    fmag_value *u = fmag_math_two_sum(b, as, q, sq, &ulo);
    fmag_value *w = fmag_math_two_sum(b, K(b, 1.0f), u, sq, &err);
    err = F(b, err, K(b, 1.0f), ulo, err, sq);
    w = SEL(b, a, w, huge);
    err = SEL(b, K(b, 0.0f), err, huge);
    fmag_value *r = fmag_math_log_hilo(b, w, err, fm);
    r = add_ln2(b, r, huge);
    return F(b, r, K(b, -1.0f), K(b, 0.0f), r, nx);
}

/* acosh (x >= 1): log1p(d + sqrt(d (x + 1))) with d = x - 1 (exact below 2), for
 * x < 2^24; log(x) + ln 2 beyond. */
fmag_value *fmag_build_acosh(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("acosh", x);
    fmag_value *huge = FMA(b, x, K(b, 1.0f), K(b, -0x1p24f));
    fmag_value *xs = fmag_build_min(b, x, K(b, 0x1p24f));
    fmag_value *d = fmag_build_sub(b, xs, K(b, 1.0f));
    fmag_value *s = fmag_build_sqrt(b, FMA(b, d, xs, d), fm);
    /* guarded by xs >= 1 */
    fmag_value *ulo, *err;
    fmag_value *u = fmag_math_two_sum(b, d, s, xs, &ulo);
    fmag_value *w = fmag_math_two_sum(b, K(b, 1.0f), u, xs, &err);
    err = F(b, err, K(b, 1.0f), ulo, err, xs);
    w = SEL(b, x, w, huge);
    err = SEL(b, K(b, 0.0f), err, huge);
    fmag_value *r = fmag_math_log_hilo(b, w, err, fm);
    return add_ln2(b, r, huge);
}

/* atanh (|x| < 1): log1p(2a / (1 - a)) / 2 with the sign of x (1 - a is exact for
 * a >= 1/2, and 2a/(1-a) is one correctly rounded division). */
fmag_value *fmag_build_atanh(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("atanh", x);
    fmag_value *nx = fmag_build_neg(b, x);
    fmag_value *a = SEL(b, nx, x, nx);
    fmag_value *den = fmag_build_sub(b, K(b, 1.0f), a);
    fmag_value *u = fmag_build_div(b, MUL(b, a, K(b, 2.0f)), den, fm);
    fmag_value *r = MUL(b, fmag_math_log1p(b, u, NULL, fm), K(b, 0.5f));
    return F(b, r, K(b, -1.0f), K(b, 0.0f), r, nx);
}
