/* The small GLSL.std.450 builtins: radians/degrees, fma, ldexp/frexp/modf, the
 * NaN and infinity tests, and any/all over boolean vectors. */
#include <math.h>
#include "MathInternal.h"

#define DEG2RAD_HI 0.0174532924f    /* float(pi/180) */
#define DEG2RAD_LO 1.35199602e-10f  /* pi/180 - DEG2RAD_HI */
#define RAD2DEG_HI 57.2957802f      /* float(180/pi) */
#define RAD2DEG_LO -6.68802443e-07f /* 180/pi - RAD2DEG_HI */

/* x * (hi + lo) as fma(x, hi, x*lo) (2): within an ulp of x*c for the exact c,
 * where x*hi alone (the fast-math form) can be off by more. */
static fmag_value *mul_split(fmag_builder *b, fmag_value *x, float hi, float lo, bool fm)
{
    if (fm) return MUL(b, x, K(b, hi));
    return FMA(b, x, K(b, hi), MUL(b, x, K(b, lo)));
}

fmag_value *fmag_build_radians(fmag_builder *b, fmag_value *x, bool fm)
{
    return mul_split(b, x, DEG2RAD_HI, DEG2RAD_LO, fm);
}

fmag_value *fmag_build_degrees(fmag_builder *b, fmag_value *x, bool fm)
{
    return mul_split(b, x, RAD2DEG_HI, RAD2DEG_LO, fm);
}

fmag_value *fmag_build_fma_builtin(fmag_builder *b, fmag_value *x, fmag_value *y, fmag_value *z,
                                   bool fm)
{
    (void)fm;
    return FMA(b, x, y, z);
}

/* ldexp(x, n) for an integer-valued n: a literal n in [-126, 127] is one exact
 * multiply (rounded once if the result is denormal). Otherwise (50): n is clamped
 * to [-300, 300] (beyond, every finite x over- or underflows anyway), one step
 * brings |n| under 175 by a factor 2^127 or 2^-126 applied to x, and the 2^n
 * ladder does the rest. */
fmag_value *fmag_build_ldexp(fmag_builder *b, fmag_value *x, fmag_value *n, bool fm)
{
    (void)fm;
    float c;
    if (fmag_math_literal(n, &c) && c == floorf(c) && c >= -126.0f && c <= 127.0f)
        return MUL(b, x, K(b, p2((int)c)));
    n = fmag_build_min(b, fmag_build_max(b, n, K(b, -300.0f)), K(b, 300.0f));
    fmag_value *gp = FMA(b, n, K(b, 1.0f), K(b, -127.5f));
    x = F(b, x, K(b, p2(127)), K(b, 0.0f), x, gp);
    n = F(b, n, K(b, 1.0f), K(b, -127.0f), n, gp);
    fmag_value *gn = FMA(b, n, K(b, -1.0f), K(b, -126.5f));
    x = F(b, x, K(b, p2(-126)), K(b, 0.0f), x, gn);
    n = F(b, n, K(b, 1.0f), K(b, 126.0f), n, gn);
    return fmag_math_ldexp(b, x, n);
}

/* frexp: x = m * 2^e with 0.5 <= |m| < 1 (m = x and e = 0 for x = +-0). The
 * exponent ladder of the logarithm, with thresholds just below each 2^k so that a
 * step is taken exactly when m >= 2^k (every step is an exact multiply). 34. */
fmag_value *fmag_build_frexp(fmag_builder *b, fmag_value *x, fmag_value **expo, bool fm)
{
    (void)fm;
    fmag_value *nx = fmag_build_neg(b, x);
    fmag_value *a = SEL(b, nx, x, nx);
    fmag_value *gd = FMA(b, a, K(b, -1.0f), K(b, p2(-100)));
    fmag_value *m = F(b, a, K(b, p2(48)), K(b, 0.0f), a, gd);
    fmag_value *e = SEL(b, K(b, -48.0f), K(b, 0.0f), gd);
    fmag_value *g0 = FMA(b, m, K(b, -1.0f), K(b, 1.0f));
    m = F(b, m, K(b, p2(126)), K(b, 0.0f), m, g0);
    e = F(b, e, K(b, 1.0f), K(b, -126.0f), e, g0);
    for (int k = 64; k >= 1; k /= 2) {
        float below = nextafterf(p2(k), 0.0f);
        fmag_value *g = FMA(b, m, K(b, 1.0f), K(b, -below));
        m = F(b, m, K(b, p2(-k)), K(b, 0.0f), m, g);
        e = F(b, e, K(b, 1.0f), K(b, (float)k), e, g);
    }
    /* m in [1, 2): halve it into [1/2, 1), restore the sign; zero keeps x and e = 0 */
    fmag_value *mh = F(b, m, K(b, 0.5f), K(b, 0.0f), m, a);
    mh = F(b, mh, K(b, -1.0f), K(b, 0.0f), mh, nx);
    if (expo) *expo = F(b, e, K(b, 1.0f), K(b, 1.0f), K(b, 0.0f), a);
    return SEL(b, mh, x, a);
}

/* modf: the fraction x - trunc(x) (signed like x) and *whole = trunc(x). */
fmag_value *fmag_build_modf(fmag_builder *b, fmag_value *x, fmag_value **whole, bool fm)
{
    fmag_value *t = fmag_build_trunc(b, x, fm);
    if (whole) *whole = t;
    return fmag_build_sub(b, x, t);
}

/* isnan (4): a NaN fails every comparison, while every other x has x > -1 or
 * x < 1. Written with comparisons only, so that no step turns a finite x into an
 * infinity or a NaN: the optimizer keeps strict semantics only for inputs that
 * produce neither (SPEC section 2), and the sequence stays inside that. */
fmag_value *fmag_build_isnan(fmag_builder *b, fmag_value *x, bool fm)
{
    (void)fm;
    fmag_value *above = FMA(b, x, K(b, 1.0f), K(b, 1.0f));
    fmag_value *below = FMA(b, x, K(b, -1.0f), K(b, 1.0f));
    fmag_value *r = SEL(b, K(b, 0.0f), K(b, 1.0f), above);
    return SEL(b, K(b, 0.0f), r, below);
}

/* isinf (4): x > FLT_MAX or -x > FLT_MAX (a NaN fails both). */
fmag_value *fmag_build_isinf(fmag_builder *b, fmag_value *x, bool fm)
{
    (void)fm;
    fmag_value *pos = FMA(b, x, K(b, 1.0f), K(b, -3.40282347e38f));
    fmag_value *neg = FMA(b, x, K(b, -1.0f), K(b, -3.40282347e38f));
    fmag_value *r = SEL(b, K(b, 1.0f), K(b, 0.0f), pos);
    return SEL(b, K(b, 1.0f), r, neg);
}

/* any / all of n booleans (1.0 / 0.0): one select a component after the first. */
fmag_value *fmag_build_any(fmag_builder *b, fmag_value *const *v, unsigned n)
{
    fmag_value *r = v[0];
    for (unsigned i = 1; i < n; i++)
        r = SEL(b, K(b, 1.0f), r, v[i]);
    return r;
}

fmag_value *fmag_build_all(fmag_builder *b, fmag_value *const *v, unsigned n)
{
    fmag_value *r = v[0];
    for (unsigned i = 1; i < n; i++)
        r = SEL(b, r, K(b, 0.0f), v[i]);
    return r;
}
