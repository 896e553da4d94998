/* -legalize-int, conversions that look at a float's representation: fptosi and
 * fptoui (truncation toward zero, saturating, NaN giving 0), and the bit casts
 * (f32 -> i32 by finding the exponent with comparisons and scaling by powers of two;
 * i32 -> f32 by building the power of two from the exponent's bits). A NaN or an
 * infinity operand is recognised by a guard and its result selected at the end, so
 * what the main path computes for it does not matter; for finite operands every
 * intermediate stays finite. Checked over every float (docs/Integers.md). */
#include "LegalizeInt.h"

#include <math.h>

/* trunc(a) for a float a >= 0 (any size; >= 2^23 it is an integer already). */
static fmag_value *trunc_nonneg(li *st, fmag_value *a)
{
    /* a + 2^23 rounds a in [0, 2^23) to an integer */
    fmag_value *y = li_addk(st, li_addk(st, a, 8388608.0f), -8388608.0f);
    fmag_value *over = li_sub(st, y, a);
    fmag_value *t = li_fm(st, y, li_k(st, 1.0f), li_k(st, -1.0f), y, over);
    fmag_value *small = li_fmak(st, a, -1.0f, 8388608.0f); /* > 0 when a < 2^23 */
    return li_sel(st, t, a, small);
}

/* An integer float t in [0, 2^32] to limbs (2^32 gives hi 65536: callers override). */
static void split(li *st, fmag_value *t, fmag_value *out[2])
{
    fmag_value *y = li_fmak(st, t, 1.0f / 65536.0f, LI_MAGIC);
    fmag_value *q = li_addk(st, y, -LI_MAGIC);
    fmag_value *r = li_fma(st, q, li_k(st, -65536.0f), t);
    fmag_value *ng = li_fmak(st, r, -1.0f, -0.5f);
    out[0] = li_fm(st, r, li_k(st, 1.0f), li_k(st, 65536.0f), r, ng);
    out[1] = li_fm(st, q, li_k(st, 1.0f), li_k(st, -1.0f), q, ng);
}

static void sel2(li *st, float hi, float lo, fmag_value *l[2], fmag_value *g)
{
    l[0] = li_sel(st, li_k(st, lo), l[0], g);
    l[1] = li_sel(st, li_k(st, hi), l[1], g);
}

static void fp_to_int(li *st, fmag_value *x, bool is_signed, fmag_value *out[2])
{
    fmag_value *nx = li_fmak(st, x, -1.0f, 0.0f);
    fmag_value *a = is_signed ? li_sel(st, nx, x, nx) : x;
    fmag_value *l[2];
    split(st, trunc_nonneg(st, a), l);
    if (is_signed) {
        fmag_value *n[2];
        li_wide_neg(st, l, n);
        l[0] = li_sel(st, n[0], l[0], nx);
        l[1] = li_sel(st, n[1], l[1], nx);
        /* x >= 2^31 and x <= -2^31 saturate (2^31 - 128 is the float below 2^31) */
        sel2(st, 32767.0f, 65535.0f, l, li_addk(st, x, -2147483520.0f));
        sel2(st, 32768.0f, 0.0f, l, li_fmak(st, x, -1.0f, -2147483520.0f));
        fmag_value *notnan = li_addk(st, a, 1.0f);
        l[0] = li_sel(st, l[0], li_k(st, 0.0f), notnan);
        l[1] = li_sel(st, l[1], li_k(st, 0.0f), notnan);
    } else {
        /* x >= 2^32 saturates; x <= 0 and NaN (no guard holds) give 0 */
        sel2(st, 65535.0f, 65535.0f, l, li_addk(st, x, -4294967040.0f));
        l[0] = li_sel(st, l[0], li_k(st, 0.0f), x);
        l[1] = li_sel(st, l[1], li_k(st, 0.0f), x);
    }
    out[0] = l[0];
    out[1] = l[1];
}

/* f32 -> its bits: sign, exponent found by halving/doubling in 7 + 7 stages, the
 * 23-bit field from the normalized significand (or a * 2^149 for denormals). */
static void f2i(li *st, fmag_value *x, fmag_value *out[2])
{
    fmag_value *one = li_k(st, 1.0f);
    fmag_value *nx = li_fmak(st, x, -1.0f, 0.0f);
    fmag_value *a = li_sel(st, nx, x, nx);
    fmag_value *s = a, *e = li_k(st, 127.0f);
    for (int k = 64; k >= 1; k /= 2) { /* down to s < 2 */
        fmag_value *g = li_addk(st, s, -nextafterf(ldexpf(1.0f, k), 0.0f));
        s = li_fm(st, s, li_k(st, ldexpf(1.0f, -k)), li_k(st, 0.0f), s, g);
        e = li_fm(st, e, one, li_k(st, (float)k), e, g);
    }
    for (int k = 64; k >= 1; k /= 2) { /* up to s >= 1 (normal numbers) */
        fmag_value *g = li_fmak(st, s, -1.0f, ldexpf(1.0f, 1 - k));
        s = li_fm(st, s, li_k(st, ldexpf(1.0f, k)), li_k(st, 0.0f), s, g);
        e = li_fm(st, e, one, li_k(st, (float)-k), e, g);
    }
    fmag_value *m = li_fmak(st, s, 8388608.0f, -8388608.0f);
    /* denormals (a < 2^-126): field 0, mantissa a * 2^149 */
    fmag_value *normal = li_addk(st, a, -0x1.fffffcp-127f);
    fmag_value *dm = li_mul(st, li_mul(st, a, li_k(st, 0x1p100f)), li_k(st, 0x1p49f));
    m = li_sel(st, m, dm, normal);
    e = li_sel(st, e, li_k(st, 0.0f), normal);
    fmag_value *mh, *ml;
    li_floor_pow2(st, m, 16, &mh, &ml);
    fmag_value *hi = li_fma(st, e, li_k(st, 128.0f), mh);
    hi = li_fm(st, hi, one, li_k(st, 32768.0f), hi, nx);
    fmag_value *l[2] = {ml, hi};
    /* infinities: a > FLT_MAX; NaN: no guard on a holds */
    fmag_value *inf = li_addk(st, a, -0x1.fffffep127f);
    l[0] = li_sel(st, li_k(st, 0.0f), l[0], inf);
    fmag_value *infhi = li_sel(st, li_k(st, 65408.0f), li_k(st, 32640.0f), nx);
    l[1] = li_sel(st, infhi, l[1], inf);
    fmag_value *notnan = li_addk(st, a, 1.0f);
    out[0] = li_sel(st, l[0], li_k(st, 0.0f), notnan);
    out[1] = li_sel(st, l[1], li_k(st, 32704.0f), notnan);
}

/* bits -> f32: (-1)^s * (1 + m/2^23) * 2^(E-127), E = 0 denormal, E = 255 inf/NaN. */
static fmag_value *i2f(li *st, fmag_value *const l[2])
{
    fmag_value *one = li_k(st, 1.0f);
    fmag_value *sg = li_sign_guard(st, l[1]);
    fmag_value *h = li_fm(st, l[1], one, li_k(st, -32768.0f), l[1], sg);
    fmag_value *E, *mh;
    li_floor_pow2(st, h, 7, &E, &mh);
    fmag_value *m = li_fma(st, mh, li_k(st, 65536.0f), l[0]);
    fmag_value *eb[8];
    fmag_value *r = E;
    for (int i = 7; i >= 1; i--) {
        float p = ldexpf(1.0f, i);
        fmag_value *g = li_addk(st, r, 0.5f - p);
        eb[i] = g;
        r = li_fm(st, r, one, li_k(st, -p), r, g);
    }
    eb[0] = li_addk(st, r, -0.5f);
    fmag_value *t = li_fmak(st, m, 0x1p-23f, 1.0f);
    for (int j = 0; j < 7; j++)
        t = li_fm(st, t, li_k(st, ldexpf(1.0f, 1 << j)), li_k(st, 0.0f), t, eb[j]);
    /* E >= 128: one more doubling; E < 128: 2^-127 in two exact steps */
    fmag_value *lo = li_mul(st, li_mul(st, t, li_k(st, 0x1p-64f)), li_k(st, 0x1p-63f));
    fmag_value *v = li_sel(st, li_fmak(st, t, 2.0f, 0.0f), lo, eb[7]);
    fmag_value *den = li_mul(st, li_mul(st, m, li_k(st, 0x1p-100f)), li_k(st, 0x1p-49f));
    v = li_sel(st, v, den, li_addk(st, E, -0.5f));
    /* E = 255: infinity, or a NaN when m != 0 (inf * 0 is one) */
    /* Literals are never infinite (SPEC §1): 3e38 * 10 makes one, and inf - inf a NaN
     * that no fold of x*0 can take away. */
    fmag_value *inf = li_mul(st, li_k(st, 3e38f), li_k(st, 10.0f));
    fmag_value *ninf = li_mul(st, li_k(st, -3e38f), li_k(st, 10.0f));
    fmag_value *special = li_sel(st, li_add(st, inf, ninf), inf, m);
    v = li_sel(st, special, v, li_addk(st, E, -254.5f));
    return li_fm(st, v, li_k(st, -1.0f), li_k(st, 0.0f), v, sg);
}

bool li_lower_cast(li *st, fmag_instr *i, li_val *res, fmag_value **fres)
{
    fmag_value *x = fmag_instr_op(i, 0);
    switch (i->iop) {
    case FMAG_IOP_FPTOSI:
    case FMAG_IOP_FPTOUI:
        fp_to_int(st, x, i->iop == FMAG_IOP_FPTOSI, res->l);
        if (i->iop == FMAG_IOP_FPTOSI) res->fptosi_of = x;
        return true;
    case FMAG_IOP_F2I:
        f2i(st, x, res->l);
        return true;
    case FMAG_IOP_I2F: {
        fmag_value *l[2];
        li_get_l(st, x, l);
        *fres = i2f(st, l);
        return true;
    }
    default:
        return false;
    }
}
