/* -legalize-int, full-width division: restoring division, one quotient bit per step,
 * with the partial remainder in two limbs (the high one may reach 2^17 before the
 * subtraction). Whether the remainder reaches the divisor is the sign of one fma,
 * (rh - bh) * 65536 + (rl - bl + 0.5), which rounds once and so keeps the exact
 * sign. Division by zero gives all ones and the dividend back, which is what
 * fmag_eval_int defines for udiv/urem; the signed forms run on magnitudes and fix
 * the signs, the zero divisor and smod's adjustment after.
 *
 * A literal divisor below 2^16 takes long division by limbs instead (about 15 to 30
 * instructions against 500): the high limb divides first, and its remainder joins
 * the low limb (whole, for a divisor up to 256, else a byte at a time) in a float
 * below 2^24, so every step is the exact floor division of LegalizeIntSmall.c. The
 * signed remainders need no magnitude: for a negative a (unsigned U = a + 2^32),
 * |a| mod c = ((2^32 mod c) - (U mod c)) mod c, a few small floats. */
#include "LegalizeInt.h"

/* q = a / b, r = a % b, unsigned, b == 0 giving q = 0xFFFFFFFF, r = a. q in bit form. */
static void udivrem(li *st, fmag_value *const al[2], fmag_value **abits, fmag_value *const b[2],
                    fmag_value **qbits, fmag_value *r[2])
{
    fmag_value *one = li_k(st, 1.0f);
    fmag_value *rl = li_k(st, 0.0f), *rh = li_k(st, 0.0f);
    fmag_value *nbl = li_fmak(st, b[0], -1.0f, 0.5f);
    (void)al;
    for (int i = 31; i >= 0; i--) {
        fmag_value *rl2 = li_fma(st, rl, li_k(st, 2.0f), abits[i]);
        fmag_value *rh2 = li_add(st, rh, rh);
        fmag_value *g = li_addk(st, rl2, -65535.5f);
        rl2 = li_fm(st, rl2, one, li_k(st, -65536.0f), rl2, g);
        rh2 = li_fm(st, rh2, one, one, rh2, g);
        fmag_value *d = li_fma(st, li_sub(st, rh2, b[1]), li_k(st, 65536.0f), li_add(st, rl2, nbl));
        qbits[i] = li_bool(st, d);
        fmag_value *rl3 = li_fm(st, b[0], li_k(st, -1.0f), rl2, rl2, d);
        fmag_value *rh3 = li_fm(st, b[1], li_k(st, -1.0f), rh2, rh2, d);
        fmag_value *ng = li_fmak(st, rl3, -1.0f, -0.5f);
        rl = li_fm(st, rl3, one, li_k(st, 65536.0f), rl3, ng);
        rh = li_fm(st, rh3, one, li_k(st, -1.0f), rh3, ng);
    }
    r[0] = rl;
    r[1] = rh;
}

/* (g > 0) ? -x : x on limbs */
static void cond_neg(li *st, fmag_value *const x[2], fmag_value *g, fmag_value *out[2])
{
    fmag_value *n[2];
    li_wide_neg(st, x, n);
    out[0] = li_sel(st, n[0], x[0], g);
    out[1] = li_sel(st, n[1], x[1], g);
}

/* a (limbs, unsigned) = q * c + r for a literal 0 < c < 65536: q as limbs, r one
 * float in [0, c). */
static void udivrem_k(li *st, fmag_value *const a[2], uint32_t c, fmag_value *q[2], fmag_value **r)
{
    if ((c & (c - 1)) == 0) {
        int k = 0;
        while ((1u << k) < c)
            k++;
        li_wide_shift_const(st, FMAG_IOP_LSHR, a, k, q);
        li_floor_pow2(st, a[0], k, NULL, r);
        return;
    }
    fmag_value *qh, *rh;
    li_floordiv_k(st, a[1], c, &qh, &rh);
    q[1] = qh;
    if (c <= 256) { /* rh * 65536 + lo < c * 65536 <= 2^24 */
        li_floordiv_k(st, li_fma(st, rh, li_k(st, 65536.0f), a[0]), c, &q[0], r);
        return;
    }
    fmag_value *lh, *ll, *q1, *r1, *q2;
    li_floor_pow2(st, a[0], 8, &lh, &ll);
    li_floordiv_k(st, li_fma(st, rh, li_k(st, 256.0f), lh), c, &q1, &r1);
    li_floordiv_k(st, li_fma(st, r1, li_k(st, 256.0f), ll), c, &q2, r);
    q[0] = li_fma(st, q1, li_k(st, 256.0f), q2);
}

/* x / c and x % c for a literal divisor |c| < 2^16 (not 0); false for others. */
static bool div_k(li *st, fmag_instr *i, li_val *res)
{
    uint32_t cb;
    fmag_int_op op = i->iop;
    if (!li_is_const(fmag_instr_op(i, 1), &cb) || cb == 0) return false;
    bool is_u = op == FMAG_IOP_UDIV || op == FMAG_IOP_UREM;
    int64_t c = is_u ? (int64_t)cb : (int64_t)(int32_t)cb;
    int64_t C = c < 0 ? -c : c;
    if (C >= 65536) return false;
    fmag_value *a[2], *q[2], *u;
    if (!is_u && !(op == FMAG_IOP_SDIV || li_is_small(res->r))) return false;
    li_get_l(st, fmag_instr_op(i, 0), a);
    fmag_value *z = li_k(st, 0.0f), *one = li_k(st, 1.0f), *fc = li_k(st, (float)C);
    if (op == FMAG_IOP_UDIV || op == FMAG_IOP_UREM) {
        udivrem_k(st, a, (uint32_t)C, q, &u);
        if (op == FMAG_IOP_UDIV) {
            res->l[0] = q[0];
            res->l[1] = q[1];
        } else {
            res->l[0] = u;
            res->l[1] = z;
            if (li_is_small(res->r)) res->s = u;
        }
        return true;
    }
    fmag_value *neg = li_get_neg(st, fmag_instr_op(i, 0));
    if (op == FMAG_IOP_SDIV) {
        /* truncation: the quotient of the magnitudes, negated when the signs differ */
        fmag_value *n[2], *m[2], *nq[2];
        li_wide_neg(st, a, n);
        m[0] = li_sel(st, n[0], a[0], neg);
        m[1] = li_sel(st, n[1], a[1], neg);
        udivrem_k(st, m, (uint32_t)C, q, &u);
        li_wide_neg(st, q, nq);
        for (int k = 0; k < 2; k++)
            res->l[k] = c > 0 ? li_sel(st, nq[k], q[k], neg) : li_sel(st, q[k], nq[k], neg);
        return true;
    }
    udivrem_k(st, a, (uint32_t)C, q, &u);
    float K = (float)((UINT64_C(1) << 32) % (uint64_t)C);
    /* m = |a| mod C for a negative a: (K - u) mod C */
    fmag_value *w = li_fmak(st, u, -1.0f, K);
    fmag_value *m = li_fm(st, w, one, fc, w, li_fmak(st, w, -1.0f, -0.5f));
    fmag_value *mneg = li_fmak(st, m, -1.0f, 0.0f);
    if (op == FMAG_IOP_SREM) {
        res->s = li_sel(st, mneg, u, neg);
    } else if (c > 0) { /* smod: a mod C in [0, C) */
        fmag_value *v = li_fmak(st, u, 1.0f, -K);
        fmag_value *vm = li_fm(st, v, one, fc, v, li_fmak(st, v, -1.0f, -0.5f));
        res->s = li_sel(st, vm, u, neg);
    } else { /* smod by a negative literal: in (c, 0] */
        fmag_value *up = li_fm(st, u, one, li_k(st, (float)-C), u, li_addk(st, u, -0.5f));
        res->s = li_sel(st, mneg, up, neg);
    }
    return true;
}

bool li_lower_div(li *st, fmag_instr *i, li_val *res)
{
    fmag_int_op op = i->iop;
    if (op != FMAG_IOP_SDIV && op != FMAG_IOP_UDIV && op != FMAG_IOP_SREM && op != FMAG_IOP_UREM &&
        op != FMAG_IOP_SMOD)
        return false;
    if (div_k(st, i, res)) return true;
    fmag_value *x = fmag_instr_op(i, 0), *y = fmag_instr_op(i, 1);
    fmag_value *a[2], *b[2], *q[32], *r[2];
    li_get_l(st, x, a);
    li_get_l(st, y, b);
    if (op == FMAG_IOP_UDIV || op == FMAG_IOP_UREM) {
        fmag_value **abits = li_get_bits(st, x);
        if (op == FMAG_IOP_UDIV) {
            res->bits = li_new_bits(st);
            udivrem(st, a, abits, b, res->bits, r);
        } else {
            udivrem(st, a, abits, b, q, res->l);
        }
        return true;
    }
    fmag_value *sa = li_sign_guard(st, a[1]), *sb = li_sign_guard(st, b[1]);
    fmag_value *ma[2], *mb[2];
    cond_neg(st, a, sa, ma);
    cond_neg(st, b, sb, mb);
    fmag_value *mbits[32];
    li_l_to_bits(st, ma, 16, 16, mbits);
    udivrem(st, ma, mbits, mb, q, r);
    fmag_value *sab = li_bool(st, sa), *sbb = li_bool(st, sb);
    if (op == FMAG_IOP_SDIV) {
        fmag_value *ql[2];
        li_bits_to_l(st, q, ql);
        fmag_value *dx = li_sub(st, sab, sbb);
        cond_neg(st, ql, li_mul(st, dx, dx), ql);
        /* a / 0 is -1 whatever the sign of a */
        fmag_value *bz = li_fmak(st, li_add(st, b[0], b[1]), -1.0f, 0.5f);
        res->l[0] = li_sel(st, li_k(st, 65535.0f), ql[0], bz);
        res->l[1] = li_sel(st, li_k(st, 65535.0f), ql[1], bz);
        return true;
    }
    fmag_value *m[2];
    cond_neg(st, r, sa, m); /* srem takes the dividend's sign */
    if (op == FMAG_IOP_SREM) {
        res->l[0] = m[0];
        res->l[1] = m[1];
        return true;
    }
    /* smod: a nonzero remainder whose sign differs from the divisor's gets b added */
    fmag_value *dx = li_sub(st, sab, sbb);
    fmag_value *g = li_mul(st, li_mul(st, dx, dx), li_add(st, m[0], m[1]));
    fmag_value *s[2];
    li_wide_add(st, m, b, s);
    res->l[0] = li_sel(st, s[0], m[0], g);
    res->l[1] = li_sel(st, s[1], m[1], g);
    return true;
}
