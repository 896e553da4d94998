/* sin, cos, tan, atan and atan2 from the one instruction. sin/cos/tan reduce by
 * k = round(x * 2/pi) with a three-part Cody-Waite pi/2 (k*C1 is exact in fma), pick
 * the quadrant from k mod 4 by two floor-halvings with the rounding trick, and
 * evaluate minimax polynomials from fmag-remez. atan reduces |x| > 1 through the
 * reciprocal. */
#include "MathInternal.h"

/* The polynomials reach |r| <= 0.9 (z <= 0.81), beyond pi/4: for large |x| the
 * rounded k = round(x * float(2/pi)) can miss the nearest multiple by up to
 * |x| * 2^-24.6, and the wider reach keeps r inside it up to |x| ~ 3e6.
 * fmag-remez sin 3 1e-6 0.81: P(z), sin r = r + r^3 P(r^2); 5.1e-9 relative */
static const float sin_poly[4] = {-0.166666672f, 0.00833332445f, -0.000198378912f, 2.70636565e-06f};
/* fmag-remez cos 3 1e-6 0.81: Q(z), cos r = 1 - z/2 + z^2 Q(z); 1.4e-9 */
static const float cos_poly[4] = {0.0416666679f, -0.00138888811f, 2.47987045e-05f,
                                  -2.71376535e-07f};
/* fast-math: fmag-remez sin 2 1e-6 0.81 (1.4e-8), cos 2 1e-6 0.81 (1.7e-9) */
static const float sin_poly_fast[3] = {-0.166666389f, 0.00833130814f, -0.000194134147f};
static const float cos_poly_fast[3] = {0.0416666195f, -0.00138861523f, 2.43162831e-05f};
/* fmag-remez atan 8: P(z), atan x = x + x^3 P(x^2) on [0,1]; 8.1e-9 */
static const float atan_poly[9] = {-0.333332986f, 0.199985489f,  -0.142642424f,
                                   0.109521858f,  -0.08403451f,  0.0579576045f,
                                   -0.031177856f, 0.0109146116f, -0.00179362297f};
/* fast-math: fmag-remez atan 5 (7.5e-7) */
static const float atan_poly_fast[6] = {-0.333284914f, 0.198978737f,   -0.135445759f,
                                        0.0848410428f, -0.0377967246f, 0.00810636953f};

#define TWO_OVER_PI 0.636619747f
#define PIO2_1 1.57079637f      /* float(pi/2); k*PIO2_1 is exact inside fma */
#define PIO2_2 -4.37113883e-08f /* float(pi/2 - PIO2_1) */
#define PIO2_3 -1.71512451e-15f /* float(pi/2 - PIO2_1 - PIO2_2) */
#define R_MAX 0.9f              /* the polynomials' reach (see above) */
#define PIO2_HI 1.57079637f
#define PIO2_LO -4.37113883e-08f
#define PI_HI 3.14159274f
#define PI_LO -8.74227766e-08f

typedef struct trig_parts {
    fmag_value *s, *c;    /* sin r, cos r */
    fmag_value *odd, *hi; /* k mod 2, floor(k/2) mod 2 */
} trig_parts;

/* floor(v/2) and v mod 2 for an integer-valued v: round(v/2 - 1/4) has no ties.
 * The first step is guarded by `pos` (known > 0) so that fast-math cannot merge its
 * -1/4 into the rounding constant, where it would round away. */
static fmag_value *halve(fmag_builder *b, fmag_value *v, fmag_value *pos, fmag_value **bit)
{
    fmag_value *a = F(b, v, K(b, 0.5f), K(b, -0.25f), v, pos);
    fmag_value *h = fmag_math_round_magic(b, a, NULL);
    *bit = FMA(b, h, K(b, -2.0f), v);
    return h;
}

/* words: 3 for the three-word pi/2 (strict, and fast tan: near its poles the result
 * divides by the reduced argument's error); fast sin/cos take 2. */
static void trig_reduce(fmag_builder *b, fmag_value *x, bool fm, int words, bool want_hi,
                        trig_parts *tp)
{
    if (fm) {
        /* fast-math: reassociation would fold an affine producer of x into the
         * rounding constant below; pass x through a select whose guard x*x + 1 is
         * positive but not a literal (2 instrs). */
        fmag_value *g = FMA(b, x, x, K(b, 1.0f));
        x = F(b, x, K(b, 1.0f), K(b, 0.0f), K(b, 0.0f), g);
    }
    fmag_value *t = FMA(b, x, K(b, TWO_OVER_PI), K(b, FMAG_MAGIC));
    /* t > 0 for |x| < 2^22: the guard keeps the rounding trick and the split
     * constants out of reach of fast-math reassociation. */
    fmag_value *k = F(b, t, K(b, 1.0f), K(b, -FMAG_MAGIC), t, t);
    fmag_value *r = FMA(b, k, K(b, -PIO2_1), x);
    r = F(b, k, K(b, -PIO2_2), r, r, t);
    if (words == 3) r = F(b, k, K(b, -PIO2_3), r, r, t);
    /* (A fourth word would reduce the error of pi/2 below 1e-17 at |x| = 2e6, far
     * under a float ulp of the smallest r there, ~2^-29: three words suffice.)
     * From |x| ~ 3e6 the rounded k can miss by more than the polynomials' reach,
     * and past 2^22 the rounding trick no longer yields an integer: r is then no
     * reduced argument. Clamping it to the reach keeps sin and cos in [-1, 1] and
     * tan finite for every finite x (a NaN r lands on -R_MAX); where k is right
     * the clamp never acts. */
    fmag_value *glo = FMA(b, r, K(b, 1.0f), K(b, R_MAX));
    r = F(b, r, K(b, 1.0f), K(b, 0.0f), K(b, -R_MAX), glo);
    fmag_value *ghi = FMA(b, r, K(b, 1.0f), K(b, -R_MAX));
    r = F(b, K(b, R_MAX), K(b, 1.0f), K(b, 0.0f), r, ghi);
    fmag_value *z = MUL(b, r, r);
    fmag_value *ps =
        fm ? fmag_math_horner(b, z, sin_poly_fast, 2) : fmag_math_horner(b, z, sin_poly, 3);
    tp->s = FMA(b, MUL(b, z, r), ps, r);
    fmag_value *pc =
        fm ? fmag_math_horner(b, z, cos_poly_fast, 2) : fmag_math_horner(b, z, cos_poly, 3);
    /* Built one at a time: two builder calls as arguments of one call would be emitted
     * in the C compiler's argument order (GCC right to left, clang left to right). */
    fmag_value *hz = MUL(b, z, K(b, -0.5f));
    fmag_value *zz = MUL(b, z, z);
    fmag_value *u = FMA(b, zz, pc, hz);
    tp->c = fmag_build_add(b, u, K(b, 1.0f));
    fmag_value *h = halve(b, k, t, &tp->odd);
    tp->hi = NULL;
    if (want_hi) halve(b, h, t, &tp->hi);
}

/* sin (28; fast 23): quadrant q = k mod 4 gives s, c, -s, -c. */
fmag_value *fmag_build_sin(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("sin", x);
    trig_parts tp;
    trig_reduce(b, x, fm, fm ? 2 : 3, true, &tp);
    fmag_value *v = SEL(b, tp.c, tp.s, tp.odd);
    return F(b, v, K(b, -1.0f), K(b, 0.0f), v, tp.hi);
}

/* cos (30; fast 25): quadrant q gives c, -s, -c, s: negate when odd xor hi. */
fmag_value *fmag_build_cos(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("cos", x);
    trig_parts tp;
    trig_reduce(b, x, fm, fm ? 2 : 3, true, &tp);
    fmag_value *v = SEL(b, tp.s, tp.c, tp.odd);
    fmag_value *d = fmag_build_sub(b, tp.odd, tp.hi);
    fmag_value *dd = MUL(b, d, d);
    return F(b, v, K(b, -1.0f), K(b, 0.0f), v, dd);
}

/* tan: s/c in even quadrants, -c/s in odd ones, then the correctly rounding divide. */
fmag_value *fmag_build_tan(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("tan", x);
    trig_parts tp;
    trig_reduce(b, x, fm, 3, false, &tp);
    fmag_value *num = SEL(b, fmag_build_neg(b, tp.c), tp.s, tp.odd);
    fmag_value *den = SEL(b, tp.s, tp.c, tp.odd);
    return fmag_build_div(b, num, den, fm);
}

/* atan(t) for t in [0, 1]. */
static fmag_value *atan_core(fmag_builder *b, fmag_value *t, bool fm)
{
    fmag_value *z = MUL(b, t, t);
    fmag_value *p =
        fm ? fmag_math_horner(b, z, atan_poly_fast, 5) : fmag_math_horner(b, z, atan_poly, 8);
    return FMA(b, MUL(b, z, t), p, t);
}

/* (hi - a) + lo when g > 0, else a (2 instrs): the split constant keeps pi/2 - a
 * and pi - a within an ulp. */
static fmag_value *reflect(fmag_builder *b, fmag_value *a, float hi, float lo, fmag_value *g)
{
    fmag_value *u = F(b, a, K(b, -1.0f), K(b, hi), a, g);
    return F(b, u, K(b, 1.0f), K(b, lo), u, g);
}

/* atan: |x| > 1 goes through 1/|x| and pi/2 - atan; the sign is restored last. */
fmag_value *fmag_build_atan(fmag_builder *b, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE1("atan", x);
    fmag_value *nx = fmag_build_neg(b, x);
    fmag_value *ax = SEL(b, nx, x, nx);
    fmag_value *big = FMA(b, ax, K(b, 1.0f), K(b, -1.0f));
    fmag_value *r = fmag_build_rcp(b, ax, fm);
    fmag_value *t = SEL(b, r, ax, big);
    fmag_value *a = atan_core(b, t, fm);
    a = reflect(b, a, PIO2_HI, PIO2_LO, big);
    return F(b, a, K(b, -1.0f), K(b, 0.0f), a, nx);
}

/* atan2(y, x): t = min(|x|,|y|) / max(|x|,|y|), then the octant reflections. */
fmag_value *fmag_build_atan2(fmag_builder *b, fmag_value *y, fmag_value *x, bool fm)
{
    FMAG_MATH_OPAQUE2("atan2", y, x);
    fmag_value *nx = fmag_build_neg(b, x), *ny = fmag_build_neg(b, y);
    fmag_value *ax = SEL(b, nx, x, nx), *ay = SEL(b, ny, y, ny);
    fmag_value *g = fmag_build_sub(b, ay, ax);
    fmag_value *num = SEL(b, ax, ay, g), *den = SEL(b, ay, ax, g);
    /* atan2 is scale-invariant: lift tiny pairs out of the denormals the division's
     * reduction does not cover (3 instrs). */
    fmag_value *gs = FMA(b, den, K(b, -1.0f), K(b, 0x1p-60f));
    num = F(b, num, K(b, 0x1p64f), K(b, 0.0f), num, gs);
    den = F(b, den, K(b, 0x1p64f), K(b, 0.0f), den, gs);
    /* The strict division even under fast-math: its lift of tiny numerators keeps a
     * denormal y from costing thousands of ulps. */
    fmag_value *t = fmag_build_div(b, num, den, false);
    fmag_value *a = atan_core(b, t, fm);
    a = reflect(b, a, PIO2_HI, PIO2_LO, g);
    a = reflect(b, a, PI_HI, PI_LO, nx);
    return F(b, a, K(b, -1.0f), K(b, 0.0f), a, ny);
}
