/* exp, exp2, log, log2 and pow from the one instruction: rounding by the 1.5*2^23
 * trick, Cody-Waite reduction with split constants, minimax polynomials from
 * fmag-remez, and power-of-two ladders for 2^n and for the exponent of x. Steps that
 * fast-math reassociation could merge (the split constants, the rounding trick) are
 * guarded by a value known to be positive at run time, which no rewrite can see
 * through. */
#include <math.h>
#include "MathInternal.h"

/* fmag-remez exp2 6: 2^t on [-0.5,0.5]; 1.55e-8 with float coefficients. */
static const float exp2_poly[7] = {1.0f,           0.693147182f,   0.240226462f,   0.0555032864f,
                                   0.00961848907f, 0.00133999309f, 0.000153458124f};
/* fmag-remez exp 6: e^t on [-ln2/2,ln2/2]; 1.74e-8 with float coefficients. */
static const float exp_poly[7] = {1.0f,          1.0f,           0.499999911f,  0.166664198f,
                                  0.0416682251f, 0.00837481581f, 0.00138368458f};
/* fast-math: fmag-remez exp2 5 / exp 5 (1.5e-7 and 1.3e-7 with float coefficients),
 * with c0 set to exactly 1 so that x near 0 gives 1 within an ulp (the fitted
 * 1.00000012 would be 3 ulps above 2^f for tiny negative f). */
static const float exp2_poly_fast[6] = {1.0f,          0.693146944f,   0.240221202f,
                                        0.0555071309f, 0.00967554096f, 0.00132764725f};
static const float exp_poly_fast[6] = {1.0f,         0.999999702f,  0.499988943f,
                                       0.166675746f, 0.0419153832f, 0.0082976548f};
/* fmag-remez logq 8: q(f), log(1+f) = f - f^2/2 + f^3 q(f) on [sqrt(1/2)-1, sqrt(2)-1]. */
static const float log_poly[9] = {0.333333135f,  -0.250000089f, 0.200021192f,
                                  -0.166679963f, 0.142195523f,  -0.124055885f,
                                  0.11888162f,   -0.116756521f, 0.0674664229f};
/* fast-math: fmag-remez logq 5 (2.6e-7 relative) */
static const float log_poly_fast[6] = {0.333342463f,  -0.249832675f, 0.199245036f,
                                       -0.171371266f, 0.160243809f,  -0.101917326f};

/* pow only: fmag-remez logr 7: r(f), log(1+f) = f - f^2/2 + f^3/3 - f^4/4 + f^5 r(f);
 * 3.6e-10 relative with float coefficients. */
static const float logr_poly[8] = {0.200000435f, -0.166677505f, 0.142847359f, -0.124506846f,
                                   0.110644087f, -0.106855661f, 0.104117192f, -0.0596845262f};
#define THIRD 0.333333343f        /* float(1/3) */
#define THIRD_LO -9.93410776e-09f /* 1/3 - THIRD */

#define LN2_HI 0.693145751953125f /* 16 bits: n*LN2_HI is exact for |n| < 256 */
#define LN2_LO 1.42860677e-06f    /* ln 2 - LN2_HI */
#define LOG2E 1.44269502f
#define LOG2E_LO 1.92596299e-08f /* log2(e) - LOG2E */

static float p2(int k)
{
    float r = 1.0f;
    for (; k > 0; k--)
        r *= 2.0f;
    for (; k < 0; k++)
        r *= 0.5f;
    return r;
}

/* p * 2^n for integer-valued n in [-150, 128] (33 instructions). The ladder walks
 * |n| from 128 down to 1; each step multiplies by 2^k or 2^-k as n's sign says
 * (2^128 as two steps of 2^64). Multiplying by powers of two is exact while the
 * result is normal; a denormal result is rounded at most twice (< 1 ulp). */
fmag_value *fmag_math_ldexp(fmag_builder *b, fmag_value *p, fmag_value *n)
{
    fmag_value *gneg = fmag_build_neg(b, n);
    fmag_value *u = F(b, n, K(b, -1.0f), K(b, 0.0f), n, gneg);
    fmag_value *bk[8];
    for (int i = 1; i < 8; i++) {
        int k = 1 << (7 - i);
        bk[i] = SEL(b, K(b, p2(-k)), K(b, p2(k)), gneg);
    }
    fmag_value *r = p;
    for (int i = 0; i < 8; i++) {
        int k = 1 << (7 - i);
        fmag_value *g = FMA(b, u, K(b, 1.0f), K(b, -((float)k - 0.5f)));
        if (k > 1) u = F(b, u, K(b, 1.0f), K(b, (float)-k), u, g);
        if (k == 128) {
            r = F(b, r, bk[1], K(b, 0.0f), r, g);
            r = F(b, r, bk[1], K(b, 0.0f), r, g);
        } else {
            r = F(b, r, bk[i], K(b, 0.0f), r, g);
        }
    }
    return r;
}

/* clamp to [lo, hi] (4) */
static fmag_value *clampk(fmag_builder *b, fmag_value *x, float lo, float hi)
{
    fmag_value *g = FMA(b, x, K(b, 1.0f), K(b, -lo));
    x = SEL(b, x, K(b, lo), g);
    fmag_value *h = FMA(b, x, K(b, 1.0f), K(b, -hi));
    return SEL(b, K(b, hi), x, h);
}

/* exp2 (46; fast 44): n = round(x), f = x - n exact, 2^f by the polynomial, scale. */
fmag_value *fmag_build_exp2(fmag_builder *b, fmag_value *x, bool fm)
{
    x = clampk(b, x, -150.0f, 128.0f);
    fmag_value *n = fmag_math_round_magic(b, x, NULL);
    fmag_value *f = fmag_build_sub(b, x, n);
    fmag_value *p =
        fm ? fmag_math_horner(b, f, exp2_poly_fast, 5) : fmag_math_horner(b, f, exp2_poly, 6);
    return fmag_math_ldexp(b, p, n);
}

/* exp (47; fast 45): n = round(x*log2 e); f = x - n*ln2 in two exact-product steps
 * (the second guarded by the positive biased sum so that it cannot be merged). */
fmag_value *fmag_build_exp(fmag_builder *b, fmag_value *x, bool fm)
{
    return fmag_math_exp_scaled(b, x, 89.0f, 0, fm);
}

fmag_value *fmag_math_exp_scaled(fmag_builder *b, fmag_value *x, float hi, int shift, bool fm)
{
    x = clampk(b, x, -104.0f, hi);
    fmag_value *t = FMA(b, x, K(b, LOG2E), K(b, FMAG_MAGIC));
    fmag_value *n = F(b, t, K(b, 1.0f), K(b, -FMAG_MAGIC), t, t);
    fmag_value *f = FMA(b, n, K(b, -LN2_HI), x);
    f = F(b, n, K(b, -LN2_LO), f, f, t);
    fmag_value *p =
        fm ? fmag_math_horner(b, f, exp_poly_fast, 5) : fmag_math_horner(b, f, exp_poly, 6);
    if (shift) n = fmag_build_add(b, n, K(b, (float)shift));
    return fmag_math_ldexp(b, p, n);
}

/* x > 0 -> e, f with x = 2^e * (1 + f), 1 + f in [sqrt(1/2), sqrt(2)]; f exact.
 * A denormal step, a 2^126 step for x < 1, the downward ladder, one centring step.
 * 30 instructions. *m_out gets 1 + f (a positive value, used as an opaque guard). */
static void reduce_log2(fmag_builder *b, fmag_value *x, fmag_value **e_out, fmag_value **f_out,
                        fmag_value **m_out, fmag_value **c)
{
    fmag_value *gd = FMA(b, x, K(b, -1.0f), K(b, p2(-100)));
    fmag_value *m = F(b, x, K(b, p2(48)), K(b, 0.0f), x, gd);
    if (c) *c = F(b, *c, K(b, p2(48)), K(b, 0.0f), *c, gd);
    fmag_value *e = SEL(b, K(b, -48.0f), K(b, 0.0f), gd);
    fmag_value *g0 = FMA(b, m, K(b, -1.0f), K(b, 1.0f));
    m = F(b, m, K(b, p2(126)), K(b, 0.0f), m, g0);
    if (c) *c = F(b, *c, K(b, p2(126)), K(b, 0.0f), *c, g0);
    e = F(b, e, K(b, 1.0f), K(b, -126.0f), e, g0);
    for (int k = 64; k >= 1; k /= 2) {
        fmag_value *g = FMA(b, m, K(b, 1.0f), K(b, -p2(k)));
        m = F(b, m, K(b, p2(-k)), K(b, 0.0f), m, g);
        if (c) *c = F(b, *c, K(b, p2(-k)), K(b, 0.0f), *c, g);
        e = F(b, e, K(b, 1.0f), K(b, (float)k), e, g);
    }
    fmag_value *gc = FMA(b, m, K(b, 1.0f), K(b, -1.41421354f));
    m = F(b, m, K(b, 0.5f), K(b, 0.0f), m, gc);
    if (c) *c = F(b, *c, K(b, 0.5f), K(b, 0.0f), *c, gc);
    e = F(b, e, K(b, 1.0f), K(b, 1.0f), e, gc);
    *e_out = e;
    *f_out = FMA(b, m, K(b, 1.0f), K(b, -1.0f));
    *m_out = m;
}

static void reduce_log(fmag_builder *b, fmag_value *x, fmag_value **e_out, fmag_value **f_out,
                       fmag_value **m_out)
{
    reduce_log2(b, x, e_out, f_out, m_out, NULL);
}

/* log(1+f) - f = -f^2/2 + f^3 q(f) */
static fmag_value *log_tail(fmag_builder *b, fmag_value *f, bool fm)
{
    fmag_value *z = MUL(b, f, f);
    fmag_value *q =
        fm ? fmag_math_horner(b, f, log_poly_fast, 5) : fmag_math_horner(b, f, log_poly, 8);
    fmag_value *y = MUL(b, MUL(b, z, f), q);
    return FMA(b, z, K(b, -0.5f), y);
}

/* log (46; fast 43): e*ln2_hi + (f + (tail + e*ln2_lo)). */
fmag_value *fmag_build_log(fmag_builder *b, fmag_value *x, bool fm)
{
    fmag_value *e, *f, *m;
    reduce_log(b, x, &e, &f, &m);
    fmag_value *y = log_tail(b, f, fm);
    y = F(b, e, K(b, LN2_LO), y, y, m);
    fmag_value *r = fmag_build_add(b, f, y);
    return FMA(b, e, K(b, LN2_HI), r);
}

/* log(hi + lo) for hi > 0 and |lo| <= ulp(hi): lo rides the reduction's ladder
 * (each step scales it by the same power of two as hi, exactly), and joins the
 * exact reduced f as f + lo*2^-e before the polynomial; the rest is log. */
fmag_value *fmag_math_log_hilo(fmag_builder *b, fmag_value *hi, fmag_value *lo, bool fm)
{
    fmag_value *e, *f, *m, *c = lo;
    reduce_log2(b, hi, &e, &f, &m, &c);
    f = fmag_build_add(b, f, c);
    fmag_value *y = log_tail(b, f, fm);
    y = F(b, e, K(b, LN2_LO), y, y, m);
    fmag_value *r = fmag_build_add(b, f, y);
    return FMA(b, e, K(b, LN2_HI), r);
}

fmag_value *fmag_math_two_sum(fmag_builder *b, fmag_value *x, fmag_value *y, fmag_value *pos,
                              fmag_value **err)
{
    fmag_value *s = FMA(b, x, K(b, 1.0f), y);
    if (!pos) pos = s;
    fmag_value *yy = F(b, x, K(b, -1.0f), s, s, pos);
    fmag_value *xx = F(b, yy, K(b, -1.0f), s, s, pos);
    fmag_value *ex = F(b, xx, K(b, -1.0f), x, x, pos);
    fmag_value *ey = F(b, yy, K(b, -1.0f), y, y, pos);
    *err = F(b, ex, K(b, 1.0f), ey, ey, pos);
    return s;
}

/* log1p(u) for u > -1: w = 1 + u with its rounding error recovered by 2Sum (exact
 * for any u; guarded by w > 0), then log(w + err). */
fmag_value *fmag_math_log1p(fmag_builder *b, fmag_value *u, fmag_value *u_lo, bool fm)
{
    fmag_value *err;
    fmag_value *w = fmag_math_two_sum(b, K(b, 1.0f), u, NULL, &err);
    if (u_lo) err = F(b, err, K(b, 1.0f), u_lo, err, w);
    return fmag_math_log_hilo(b, w, err, fm);
}

/* log2 (48; fast 45): e + (f + tail) * log2(e), the product with f split in two. */
fmag_value *fmag_build_log2(fmag_builder *b, fmag_value *x, bool fm)
{
    fmag_value *e, *f, *m;
    reduce_log(b, x, &e, &f, &m);
    fmag_value *y = log_tail(b, f, fm);
    fmag_value *a = MUL(b, f, K(b, LOG2E_LO));
    a = FMA(b, y, K(b, LOG2E), a);
    a = FMA(b, f, K(b, LOG2E), a);
    return fmag_build_add(b, a, e);
}

/* pow(x, y) = 2^(y * log2 x) for x > 0. Strict mode carries log2 x as hi + lo
 * (error-free sums) and y*log2 x as hi + lo (an fma recovers the product's rounding),
 * so the exponent's rounding does not swamp large results; fast-math is the plain
 * exp2(y * log2 x). x = 0 gives 0 for y > 0 (through a very negative logarithm). */
fmag_value *fmag_build_pow(fmag_builder *b, fmag_value *x, fmag_value *y, bool fm)
{
    if (fm) return fmag_build_exp2(b, MUL(b, y, fmag_build_log2(b, x, fm)), fm);
    fmag_value *e, *f, *m;
    reduce_log(b, x, &e, &f, &m);
    /* log(1+f) = f - f^2/2 + f^3/3 - f^4/4 + f^5 r(f): the first four terms as exact
     * double-floats (fma recovers each product's rounding), so that only the small
     * f^5 r(f) (|.| < 0.0025) carries float rounding. */
    fmag_value *z = MUL(b, f, f);
    fmag_value *z_lo = FMA(b, f, f, fmag_build_neg(b, z));
    fmag_value *w = MUL(b, z, f);
    fmag_value *w_lo = FMA(b, z, f, fmag_build_neg(b, w));
    w_lo = FMA(b, z_lo, f, w_lo);
    fmag_value *v = MUL(b, z, z);
    fmag_value *v_lo = FMA(b, z, z, fmag_build_neg(b, v));
    v_lo = FMA(b, MUL(b, z, K(b, 2.0f)), z_lo, v_lo);
    fmag_value *t3 = MUL(b, w, K(b, THIRD));
    fmag_value *t3_lo = FMA(b, w, K(b, THIRD), fmag_build_neg(b, t3));
    t3_lo = FMA(b, w, K(b, THIRD_LO), t3_lo);
    t3_lo = FMA(b, w_lo, K(b, THIRD), t3_lo);
    fmag_value *r = fmag_math_horner(b, f, logr_poly, 7);
    fmag_value *t5 = MUL(b, MUL(b, v, f), r);
    /* hi: f - z/2 + t3 - v/4 by Fast2Sums in decreasing magnitude */
    fmag_value *hz = MUL(b, z, K(b, -0.5f)), *qv = MUL(b, v, K(b, -0.25f));
    fmag_value *s1 = fmag_build_add(b, f, hz);
    fmag_value *e1 = fmag_build_add(b, fmag_build_sub(b, f, s1), hz);
    fmag_value *s2 = fmag_build_add(b, s1, t3);
    fmag_value *e2 = fmag_build_add(b, fmag_build_sub(b, s1, s2), t3);
    fmag_value *s3 = fmag_build_add(b, s2, qv);
    fmag_value *e3 = fmag_build_add(b, fmag_build_sub(b, s2, s3), qv);
    /* lo: the sums' errors, the low parts and the f^5 term */
    fmag_value *lo1 = FMA(b, z_lo, K(b, -0.5f), t5);
    lo1 = FMA(b, v_lo, K(b, -0.25f), lo1);
    lo1 = fmag_build_add(b, lo1, t3_lo);
    lo1 = fmag_build_add(b, lo1, e3);
    lo1 = fmag_build_add(b, lo1, e2);
    lo1 = fmag_build_add(b, lo1, e1);
    fmag_value *t_hi = fmag_build_add(b, s3, lo1);
    fmag_value *t_lo = fmag_build_add(b, fmag_build_sub(b, s3, t_hi), lo1);
    /* log2 m = (t_hi + t_lo) * (L + L_lo) as p + p_lo, p's rounding recovered by fma. */
    fmag_value *ph = MUL(b, t_hi, K(b, LOG2E));
    fmag_value *pl = FMA(b, t_hi, K(b, LOG2E), fmag_build_neg(b, ph));
    pl = FMA(b, t_hi, K(b, LOG2E_LO), pl);
    pl = FMA(b, t_lo, K(b, LOG2E), pl);
    /* hi = e + ph with its error (e is 0 or an integer >= 1 in magnitude). */
    fmag_value *hi = fmag_build_add(b, e, ph);
    fmag_value *err = fmag_build_add(b, fmag_build_sub(b, e, hi), ph);
    fmag_value *lo = fmag_build_add(b, err, pl);
    /* y * (hi + lo) = p_hi + p_lo */
    fmag_value *p_hi = MUL(b, y, hi);
    fmag_value *p_lo = FMA(b, y, hi, fmag_build_neg(b, p_hi));
    p_lo = FMA(b, y, lo, p_lo);
    p_hi = clampk(b, p_hi, -150.0f, 128.0f);
    fmag_value *n = fmag_math_round_magic(b, p_hi, NULL);
    fmag_value *g = fmag_build_add(b, fmag_build_sub(b, p_hi, n), p_lo);
    fmag_value *p = fmag_math_horner(b, g, exp2_poly, 6);
    return fmag_math_ldexp(b, p, n);
}
