/* exp, exp2, log, log2 and pow from the one instruction: rounding by the 1.5*2^23
 * trick, Cody-Waite reduction with split constants, minimax polynomials from
 * fmag-remez, and power-of-two ladders for 2^n and for the exponent of x. Steps that
 * fast-math reassociation could merge (the split constants, the rounding trick) are
 * guarded by a value known to be positive at run time, which no rewrite can see
 * through. Also here: log1p and log(hi + lo) for the inverse hyperbolics, e^x*2^k
 * for the hyperbolics, the special values (log(0) = -inf, pow at 0 and below),
 * and pow's strength reduction for a literal exponent. */
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
#define FLT_MAXF 3.40282347e38f
#define LOG2E 1.44269502f
#define LOG2E_LO 1.92596299e-08f /* log2(e) - LOG2E */

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
    FMAG_MATH_OPAQUE1("exp2", x);
    /* a literal integer n: the constant 2^n (what the sequence computes, exactly) */
    float c;
    if (fmag_math_literal(x, &c) && c == floorf(c) && c >= -149.0f && c <= 127.0f)
        return K(b, p2((int)c));
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
    FMAG_MATH_OPAQUE1("exp", x);
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
 * With c non-NULL, *c (a companion value) is scaled by every step as x is.
 * A denormal step, a 2^126 step for x < 1, the downward ladder, one centring step.
 * 30 instructions. *m_out gets 1 + f (a positive value, used as an opaque guard). */
static void reduce_log_carry(fmag_builder *b, fmag_value *x, fmag_value **e_out, fmag_value **f_out,
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
    reduce_log_carry(b, x, e_out, f_out, m_out, NULL);
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

/* The logarithms' special value (3 instructions, last): log(+-0) = -inf. No
 * infinity is a literal (SPEC: none can be) and none is made unless x needs it:
 * h = (x > 0 ? 0 : 1) turns h*-MAX - MAX into -inf exactly for x <= 0. So x < 0
 * also gives -inf (GLSL: undefined; C: NaN, which would cost two more), and +inf
 * is not a case (an infinite input is outside the strict contract). */
static fmag_value *log_specials(fmag_builder *b, fmag_value *x, fmag_value *r)
{
    fmag_value *h = SEL(b, K(b, 0.0f), K(b, 1.0f), x);
    fmag_value *ninf = FMA(b, h, K(b, -FLT_MAXF), K(b, -FLT_MAXF));
    return SEL(b, r, ninf, x);
}

/* log (46 + 3; fast 43 + 3): e*ln2_hi + (f + (tail + e*ln2_lo)). */
fmag_value *fmag_build_log(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("log", x);
    fmag_value *e, *f, *m;
    reduce_log(b, x, &e, &f, &m);
    fmag_value *y = log_tail(b, f, fm);
    y = F(b, e, K(b, LN2_LO), y, y, m);
    fmag_value *r = fmag_build_add(b, f, y);
    return log_specials(b, x, FMA(b, e, K(b, LN2_HI), r));
}

/* log(hi + lo) for hi > 0 and |lo| <= ulp(hi): lo rides the reduction's ladder
 * (each step scales it by the same power of two as hi, exactly), and joins the
 * exact reduced f as f + lo*2^-e before the polynomial; the rest is log. */
fmag_value *fmag_math_log_hilo(fmag_builder *b, fmag_value *hi, fmag_value *lo, bool fm)
{
    fmag_value *e, *f, *m, *c = lo;
    reduce_log_carry(b, hi, &e, &f, &m, &c);
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

/* log2 (48 + 3; fast 45 + 3): the core below, then the special values. */
static fmag_value *log2_core(fmag_builder *b, fmag_value *x, bool fm);
fmag_value *fmag_build_log2(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("log2", x);
    return log_specials(b, x, log2_core(b, x, fm));
}

/* e + (f + tail) * log2(e), the product with f split in two. */
static fmag_value *log2_core(fmag_builder *b, fmag_value *x, bool fm)
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
static fmag_value *pow_core(fmag_builder *b, fmag_value *x, fmag_value *y, bool fm);

/* pow's special values (12 instructions around the core on xs = x > 0 ? x : 1):
 *   y = 0 (+-0): 1 for every x, NaN included (C; GLSL leaves x <= 0 undefined);
 *   x = +-0: +0 for y > 0, +inf for y < 0 (no sign of zero: -0 counts as 0);
 *   x < 0 (and NaN x): NaN — GLSL calls pow(x < 0, y) undefined; C gives a real
 *   result for integer y, which FMAG does not compute.
 * (x = +inf is not a case: an infinite input is outside the strict contract.)
 * The infinities and the NaN are made as in log_specials, only where needed. */
/* > 0 exactly when v is finite (3): MAX - |v|. */
static fmag_value *finite_guard(fmag_builder *b, fmag_value *v)
{
    fmag_value *nv = fmag_build_neg(b, v);
    fmag_value *av = SEL(b, nv, v, nv);
    return FMA(b, av, K(b, -1.0f), K(b, FLT_MAXF));
}

/* x^n (n >= 1) by binary powering. Plain: one rounded multiply a step (fast-math;
 * strict for n <= 3, within 1 ulp). Compensated (strict, n >= 4): the power is
 * carried as h + l with every product's rounding error recovered by fma (the low
 * part's own rounding is ~2^-48 relative), so the result is rounded about once:
 * within ~0.5 ulp, better than the general pow. With lo non-NULL the unrounded
 * pair is returned: h, and *lo = l (NULL when l is 0). */
static fmag_value *ipow(fmag_builder *b, fmag_value *x, unsigned n, bool comp, fmag_value **lo)
{
    unsigned top = 1;
    while (top * 2 <= n)
        top *= 2;
    fmag_value *h = x, *l = NULL;
    for (unsigned bit = top / 2; bit; bit /= 2) {
        /* square: (h + l)^2 = h*h + (err + 2 h l) */
        fmag_value *p = MUL(b, h, h);
        if (comp) {
            fmag_value *e = FMA(b, h, h, fmag_build_neg(b, p));
            l = l ? FMA(b, MUL(b, h, K(b, 2.0f)), l, e) : e;
        }
        h = p;
        if (n & bit) {
            /* times x: (h + l) x = h*x + (err + l x) */
            p = MUL(b, h, x);
            if (comp) {
                fmag_value *e = FMA(b, h, x, fmag_build_neg(b, p));
                l = FMA(b, l, x, e);
            }
            h = p;
        }
    }
    if (lo) {
        *lo = l; /* the caller folds l in */
        return h;
    }
    if (!comp || !l) return h;
    /* h + l, except where h overflowed (l is then an infinity or NaN) */
    return F(b, l, K(b, 1.0f), h, h, finite_guard(b, h));
}

/* x^n for 4 <= n <= 16, strict: the compensated chain up to x^m (m = n - 1 for odd n,
 * whose last step multiplies by x; m = n / 2 for even n, whose last step squares),
 * then that last product fused with the low part: h*x + l*x or h*h + 2h*l in one fma,
 * rounded once (within ~0.5 ulp, as the chain rounded at the end; 12 instructions for
 * n = 5 where the separate rounding of h*x and h + l took 16). The low part is finite
 * only while x^m is: where x*x >= T the result is the plain last product instead,
 * which is +-inf there (T = 2^k with x^n > FLT_MAX whenever x*x >= T, and x^m finite
 * whenever x*x < T; such a k exists for every n: 256/n < k < 256/m). */
static fmag_value *ipow_fused(fmag_builder *b, fmag_value *x, unsigned n)
{
    unsigned m = n & 1 ? n - 1 : n / 2;
    int k = (int)ceil(256.0 / n + 0.05);
    fmag_value *l;
    fmag_value *h = ipow(b, x, m, true, &l);
    fmag_value *g = FMA(b, MUL(b, x, x), K(b, -1.0f), K(b, p2(k)));
    if (n & 1) return F(b, h, x, MUL(b, l, x), MUL(b, h, x), g);
    return F(b, h, h, MUL(b, MUL(b, h, K(b, 2.0f)), l), MUL(b, h, h), g);
}

/* pow(x, c) for a literal c in {0, +-1 .. +-16, 0.5, 1.5 .. 16.5, -0.5 .. -16.5} as
 * multiplications, sqrt, inversesqrt and rcp (docs/Builtins.md: "Literal
 * exponents"). Strict mode takes a form only where its error bound is at most the
 * general pow's; NULL means "use the general pow". */
static fmag_value *pow_literal(fmag_builder *b, fmag_value *x, float c, bool fm)
{
    float a = fabsf(c), twice = 2 * a;
    if (twice != floorf(twice) || a > 16.5f) return NULL;
    unsigned n = (unsigned)a; /* integer part */
    bool half = twice != 2 * (float)n;
    if (a == 0) return K(b, 1.0f);
    if (!half) {
        if (c > 0)
            return n == 1 ? x : !fm && n >= 4 ? ipow_fused(b, x, n) : ipow(b, x, n, false, NULL);
        if (n == 1) return fmag_build_rcp(b, x, fm);
        if (fm) return fmag_build_rcp(b, ipow(b, x, n, false, NULL), fm);
        /* 1/(h + l) = r - r*r*l with r = rcp(h): within ~1 ulp */
        fmag_value *l;
        fmag_value *h = ipow(b, x, n, true, &l);
        fmag_value *r = fmag_build_rcp(b, h, fm);
        if (!l) return r;
        /* r - r*r*l, but r itself where r*l is not finite (x = 0: r = inf, l = 0;
         * h overflowed: l infinite or NaN) */
        fmag_value *nrl = fmag_build_neg(b, MUL(b, r, l));
        return F(b, nrl, r, r, r, finite_guard(b, nrl));
    }
    if (c > 0) {
        fmag_value *s = fmag_build_sqrt(b, x, fm);
        if (n == 0) return s;
        if (fm || n == 1) return MUL(b, n == 1 ? x : ipow(b, x, n, false, NULL), s);
        /* (h + l) * s with l*s folded into the product: one rounding after sqrt's */
        fmag_value *l;
        fmag_value *h = ipow(b, x, n, true, &l);
        fmag_value *hs = MUL(b, h, s);
        if (!l) return hs;
        /* h*s + l*s, or h*s where h overflowed (l is then an infinity or NaN) */
        return F(b, h, s, MUL(b, l, s), hs, finite_guard(b, h));
    }
    if (n == 0) {
        /* inversesqrt(0) is finite; pow(0, -0.5) must be +inf (made from x > 0
         * failing, as in log_specials) */
        fmag_value *h = SEL(b, K(b, 0.0f), K(b, 1.0f), x);
        fmag_value *pinf = FMA(b, h, K(b, FLT_MAXF), K(b, FLT_MAXF));
        return SEL(b, fmag_build_inversesqrt(b, x, fm), pinf, x);
    }
    if (!fm) return NULL; /* rsqrt times rcp would exceed the general pow's error */
    fmag_value *p = n == 1 ? x : ipow(b, x, n, false, NULL);
    return MUL(b, fmag_build_inversesqrt(b, x, fm), fmag_build_rcp(b, p, fm));
}

fmag_value *fmag_build_pow(fmag_builder *b, fmag_value *x, fmag_value *y, bool fm)
{
    FMAG_MATH_OPAQUE2("pow", x, y);
    float c;
    if (fmag_math_literal(y, &c)) {
        fmag_value *r = pow_literal(b, x, c, fm);
        if (r) return r;
    }
    fmag_value *xs = SEL(b, x, K(b, 1.0f), x);
    fmag_value *r = pow_core(b, xs, y, fm);
    fmag_value *nx = fmag_build_neg(b, x), *ny = fmag_build_neg(b, y);
    /* x = 0 (for y != 0): y > 0 -> 0, y < 0 -> +inf */
    fmag_value *hy = SEL(b, K(b, 1.0f), K(b, 0.0f), ny);
    fmag_value *pinf = FMA(b, hy, K(b, FLT_MAXF), K(b, FLT_MAXF));
    fmag_value *a = SEL(b, K(b, 0.0f), pinf, y);
    /* x < 0: NaN = inf - inf, inf made only then */
    fmag_value *hx = SEL(b, K(b, 1.0f), K(b, 0.0f), nx);
    fmag_value *w = FMA(b, hx, K(b, FLT_MAXF), K(b, FLT_MAXF));
    a = F(b, w, K(b, -1.0f), w, a, nx);
    /* y = 0 -> 1 (neither y > 0 nor -y > 0) */
    fmag_value *a1 = SEL(b, a, K(b, 1.0f), ny);
    a = SEL(b, a, a1, y);
    return SEL(b, r, a, x);
}

/* x > 0 (finite): exp2(y * log2 x), the fast way or the careful one. */
static fmag_value *pow_core(fmag_builder *b, fmag_value *x, fmag_value *y, bool fm)
{
    if (fm) return fmag_build_exp2(b, MUL(b, y, log2_core(b, x, fm)), fm);
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
