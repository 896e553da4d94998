/* Reciprocal, division, square root and inverse square root from the one
 * instruction. No bit operations exist, so the exponent is found by a ladder of
 * comparisons: each step tests m > 2^k and, when it holds, scales m by 2^-k and the
 * result scale by the matching power of two (exact multiplies). A minimax seed
 * (fmag-remez) and Newton steps in fma finish on the reduced interval.
 */
#include <math.h>
#include "MathInternal.h"

/* fmag-remez rcp 3: 1/t on [1,2]; relative error 1.73e-3 (9.2 bits). */
static const float rcp_seed[4] = {2.82842278f, -2.93934131f, 1.3310225f, -0.221837088f};
/* fmag-remez rsqrt 3: 1/sqrt(t) on [1,4]; relative error 7.04e-3 (7.2 bits). */
static const float rsqrt_seed[4] = {1.55618715f, -0.738863051f, 0.194685698f, -0.0190504137f};

/* One ladder step: when m > thresh, m *= mf and s *= sf. 3 instructions. */
static void up_step(fmag_builder *b, fmag_value **m, fmag_value **s, float thresh, float mf,
                    float sf)
{
    fmag_value *g = FMA(b, *m, K(b, 1.0f), K(b, -thresh));
    *m = F(b, *m, K(b, mf), K(b, 0.0f), *m, g);
    *s = F(b, *s, K(b, sf), K(b, 0.0f), *s, g);
}

/* |x| -> m in [1, 2], with 1/x = s * (1/m); s carries the sign of x. 27 instrs. */
static void reduce_rcp(fmag_builder *b, fmag_value *x, fmag_value **m_out, fmag_value **s_out,
                       fmag_value **ax)
{
    fmag_value *nx = fmag_build_neg(b, x);
    fmag_value *m = SEL(b, nx, x, nx);
    if (ax) *ax = m;
    fmag_value *s = SEL(b, K(b, -1.0f), K(b, 1.0f), nx);
    /* Below 1: scale up by 2^126 once, so only downward steps remain. */
    fmag_value *g0 = FMA(b, m, K(b, -1.0f), K(b, 1.0f));
    m = F(b, m, K(b, p2(126)), K(b, 0.0f), m, g0);
    s = F(b, s, K(b, p2(126)), K(b, 0.0f), s, g0);
    for (int k = 64; k >= 1; k /= 2)
        up_step(b, &m, &s, p2(k), p2(-k), p2(-k));
    *m_out = m;
    *s_out = s;
}

/* rcp (39 lowered): seed, two Newton steps e = 1 - m*y, y += y*e (the last one with fma
 * is within 1 ulp), then the exact power-of-two scale. */
fmag_value *fmag_build_rcp(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("rcp", x);
    (void)fm;
    if (fmag_value_is_const(x)) {
        float r = (float)(1.0 / (double)x->imm);
        if (isfinite(r)) return K(b, r);
    }
    fmag_value *m, *s, *ax;
    reduce_rcp(b, x, &m, &s, &ax);
    fmag_value *nm = fmag_build_neg(b, m);
    fmag_value *y = fmag_math_horner(b, m, rcp_seed, 3);
    for (int i = 0; i < 2; i++) {
        fmag_value *e = FMA(b, nm, y, K(b, 1.0f));
        y = FMA(b, y, e, y);
    }
    /* rcp(+-inf) = 0 (the ladder makes a NaN of it): 2 instrs */
    fmag_value *ginf = FMA(b, ax, K(b, 1.0f), K(b, -3.40282347e38f));
    return SEL(b, K(b, 0.0f), MUL(b, y, s), ginf);
}

/* x / y. A literal divisor d: q = x*(1/d) then one residual correction
 * q + (x - q*d)*(1/d) (3 instrs; exact for a power of two). Otherwise (37): reduce
 * y to m in [1,2], 1/m to ~18 bits (seed + one Newton step), q = x*r, the residual
 * x - q*m is exact in fma, and q + rem*r is within 1 ulp; then scale by s. */
fmag_value *fmag_build_div(fmag_builder *b, fmag_value *x, fmag_value *y, bool fm)
{
    FMAG_MATH_OPAQUE2("div", x, y);
    if (fmag_value_is_const(y) && y->imm != 0.0f && isfinite(1.0f / y->imm)) {
        float d = y->imm;
        float r = (float)(1.0 / (double)d);
        if ((double)r * (double)d == 1.0) return MUL(b, x, K(b, r));
        fmag_value *q = MUL(b, x, K(b, r));
        if (fm) return q;
        fmag_value *rem = FMA(b, q, K(b, -d), x);
        return FMA(b, rem, K(b, r), q);
    }
    if (fmag_value_is_const(x) && fmag_value_is_imm(x, 1.0f)) return fmag_build_rcp(b, y, fm);
    fmag_value *m, *s;
    reduce_rcp(b, y, &m, &s, NULL);
    if (!fm) {
        /* A numerator below 2^-120 would make x*r denormal and lose bits before the
         * final scale: lift it by 2^24 and fold 2^-24 into the scale (5 instrs). */
        fmag_value *nx = fmag_build_neg(b, x);
        fmag_value *ax = SEL(b, nx, x, nx);
        fmag_value *g = FMA(b, ax, K(b, -1.0f), K(b, p2(-120)));
        x = F(b, x, K(b, p2(24)), K(b, 0.0f), x, g);
        s = F(b, s, K(b, p2(-24)), K(b, 0.0f), s, g);
    }
    fmag_value *nm = fmag_build_neg(b, m);
    fmag_value *r = fmag_math_horner(b, m, rcp_seed, 3);
    fmag_value *e = FMA(b, nm, r, K(b, 1.0f));
    r = FMA(b, r, e, r);
    fmag_value *q = MUL(b, x, r);
    fmag_value *rem = FMA(b, q, nm, x);
    q = FMA(b, rem, r, q);
    return MUL(b, q, s);
}

/* x >= 0 -> m in [1, 4] with sqrt(x) = sqrt(m) * s (inv: 1/sqrt(x) = s / sqrt(m)).
 * A first step lifts denormals, a second scales everything below 1 by 2^126, then
 * steps of 2^-64 ... 2^-2 (even powers only, so the scale is exact). 24 instrs. */
static void reduce_sqrt(fmag_builder *b, fmag_value *x, bool inv, fmag_value **m_out,
                        fmag_value **s_out)
{
    fmag_value *gd = FMA(b, x, K(b, -1.0f), K(b, p2(-100)));
    fmag_value *m = F(b, x, K(b, p2(48)), K(b, 0.0f), x, gd);
    fmag_value *s = SEL(b, K(b, p2(inv ? 24 : -24)), K(b, 1.0f), gd);
    fmag_value *g0 = FMA(b, m, K(b, -1.0f), K(b, 1.0f));
    m = F(b, m, K(b, p2(126)), K(b, 0.0f), m, g0);
    s = F(b, s, K(b, p2(inv ? 63 : -63)), K(b, 0.0f), s, g0);
    for (int k = 64; k >= 2; k /= 2)
        up_step(b, &m, &s, p2(k), p2(-k), p2(inv ? -k / 2 : k / 2));
    *m_out = m;
    *s_out = s;
}

/* 1/sqrt(m) on [1,4]: seed (7 bits) and two Newton steps y += y*(1/2 - m/2*y^2). */
static fmag_value *rsqrt_core(fmag_builder *b, fmag_value *m, fmag_value **nmh_out)
{
    fmag_value *nmh = MUL(b, m, K(b, -0.5f));
    fmag_value *y = fmag_math_horner(b, m, rsqrt_seed, 3);
    for (int i = 0; i < 2; i++) {
        fmag_value *t = MUL(b, y, y);
        fmag_value *e = FMA(b, t, nmh, K(b, 0.5f));
        y = FMA(b, y, e, y);
    }
    if (nmh_out) *nmh_out = nmh;
    return y;
}

/* sqrt (45 lowered; fast-math 41): s0 = m*y, then the residual correction
 * s0 + (m - s0^2) * y/2 with the residual exact in fma. */
fmag_value *fmag_build_sqrt(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("sqrt", x);
    fmag_value *m, *s;
    reduce_sqrt(b, x, false, &m, &s);
    fmag_value *y = rsqrt_core(b, m, NULL);
    fmag_value *r = MUL(b, m, y);
    if (!fm) {
        fmag_value *nr = fmag_build_neg(b, r);
        fmag_value *hy = MUL(b, y, K(b, 0.5f));
        fmag_value *d = FMA(b, r, nr, m);
        r = FMA(b, d, hy, r);
    }
    r = MUL(b, r, s);
    /* sqrt(+inf) = +inf: the input itself, as the last instruction (2). */
    fmag_value *ginf = FMA(b, x, K(b, 1.0f), K(b, -3.40282347e38f));
    return F(b, x, K(b, 1.0f), K(b, 0.0f), r, ginf);
}

/* inversesqrt (35). */
fmag_value *fmag_build_inversesqrt(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("inversesqrt", x);
    (void)fm;
    fmag_value *m, *s;
    reduce_sqrt(b, x, true, &m, &s);
    fmag_value *y = rsqrt_core(b, m, NULL);
    return MUL(b, y, s);
}
