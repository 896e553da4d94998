/* -legalize-int, full width on two 16-bit limbs: add and sub with carry, neg, the
 * low 32 bits of a product (fma's exact error term), comparisons, select and the
 * conversions to float. Each sequence is exact for every pair of limbs (checked
 * exhaustively over the limb domain; docs/Integers.md). */
#include "LegalizeInt.h"

#include <math.h>

/* s an integer in [0, 2^17): s mod 65536; *g > 0 when s >= 65536 (the carry). */
static fmag_value *wrap_up(li *st, fmag_value *s, fmag_value **g)
{
    fmag_value *gg = li_addk(st, s, -65535.5f);
    if (g) *g = gg;
    return li_fm(st, s, li_k(st, 1.0f), li_k(st, -65536.0f), s, gg);
}

/* s an integer in [-65536, 65536): s mod 65536; *g > 0 when s < 0 (the borrow). */
static fmag_value *wrap_down(li *st, fmag_value *s, fmag_value **g)
{
    fmag_value *gg = li_fmak(st, s, -1.0f, -0.5f);
    if (g) *g = gg;
    return li_fm(st, s, li_k(st, 1.0f), li_k(st, 65536.0f), s, gg);
}

void li_wide_add(li *st, fmag_value *const a[2], fmag_value *const b[2], fmag_value *out[2])
{
    fmag_value *g;
    out[0] = wrap_up(st, li_add(st, a[0], b[0]), &g);
    fmag_value *h = li_add(st, a[1], b[1]);
    h = li_fm(st, h, li_k(st, 1.0f), li_k(st, 1.0f), h, g);
    out[1] = wrap_up(st, h, NULL);
}

void li_wide_sub(li *st, fmag_value *const a[2], fmag_value *const b[2], fmag_value *out[2])
{
    fmag_value *g;
    out[0] = wrap_down(st, li_sub(st, a[0], b[0]), &g);
    fmag_value *h = li_sub(st, a[1], b[1]);
    h = li_fm(st, h, li_k(st, 1.0f), li_k(st, -1.0f), h, g);
    out[1] = wrap_down(st, h, NULL);
}

void li_wide_neg(li *st, fmag_value *const a[2], fmag_value *out[2])
{
    fmag_value *z[2] = {li_k(st, 0.0f), li_k(st, 0.0f)};
    li_wide_sub(st, z, a, out);
}

/* x*y = *q * 65536 + *w exactly, |*w| <= 32896, for integers x, y in [0, 65535]. The
 * product rounds once (p); fma gives its exact error (e = x*y - p); p splits by
 * rounding p/65536 to an integer with the 1.5*2^23 trick (exact: p/65536 < 2^16),
 * and *w = (p - q*65536) + e. With a literal factor the negated product comes for
 * free (x * -k), which saves the negation fma's error term needs. */
static void prod16(li *st, fmag_value *x, fmag_value *y, fmag_value **q, fmag_value **w)
{
    if (fmag_value_is_const(x)) {
        fmag_value *t = x;
        x = y;
        y = t;
    }
    if (fmag_value_is_const(y)) {
        fmag_value *np = li_fmak(st, x, -y->imm, 0.0f);
        fmag_value *e = li_fma(st, x, y, np);
        fmag_value *t = li_fmak(st, np, -1.0f / 65536.0f, LI_MAGIC);
        *q = li_addk(st, t, -LI_MAGIC);
        fmag_value *nr = li_fma(st, *q, li_k(st, 65536.0f), np); /* -(p - q*65536) */
        *w = li_sub(st, e, nr);
        return;
    }
    fmag_value *p = li_mul(st, x, y);
    fmag_value *e = li_fma(st, x, y, li_fmak(st, p, -1.0f, 0.0f));
    fmag_value *t = li_fmak(st, p, 1.0f / 65536.0f, LI_MAGIC);
    *q = li_addk(st, t, -LI_MAGIC);
    *w = li_add(st, li_fma(st, *q, li_k(st, -65536.0f), p), e);
}

void li_wide_mul(li *st, fmag_value *const a[2], fmag_value *const b[2], fmag_value *out[2])
{
    fmag_value *q0, *w0, *q1, *w1, *q2, *w2, *g;
    prod16(st, a[0], b[0], &q0, &w0);
    out[0] = wrap_down(st, w0, &g);
    fmag_value *carry = li_fm(st, q0, li_k(st, 1.0f), li_k(st, -1.0f), q0, g);
    /* the cross products matter mod 2^16 only: their q is dropped */
    prod16(st, a[1], b[0], &q1, &w1);
    prod16(st, a[0], b[1], &q2, &w2);
    fmag_value *h = li_add(st, li_add(st, carry, w1), w2);
    li_floor_pow2(st, h, 16, NULL, &out[1]);
}

fmag_value *li_sign_guard(li *st, fmag_value *h)
{
    return li_addk(st, h, -32767.5f);
}

fmag_value *li_signed_hi(li *st, fmag_value *h)
{
    return li_fm(st, h, li_k(st, 1.0f), li_k(st, -65536.0f), h, li_sign_guard(st, h));
}

/* x - y as one float whose sign (and zero) is exactly that of the 32-bit difference:
 * (xh - yh) * 65536 + (xl - yl) rounds once. bias 0.5 makes "> 0" mean ">= 0". */
static fmag_value *diff(li *st, fmag_value *xh, fmag_value *xl, fmag_value *yh, fmag_value *yl,
                        float bias)
{
    fmag_value *dl = li_sub(st, xl, yl);
    if (bias != 0.0f) dl = li_addk(st, dl, bias);
    return li_fma(st, li_sub(st, xh, yh), li_k(st, 65536.0f), dl);
}

static fmag_value *compare(li *st, fmag_int_op op, fmag_value *x, fmag_value *y)
{
    fmag_value *a[2], *b[2];
    li_get_l(st, x, a);
    li_get_l(st, y, b);
    if (op == FMAG_IOP_EQ || op == FMAG_IOP_NE) {
        fmag_value *d = diff(st, a[1], a[0], b[1], b[0], 0.0f);
        fmag_value *q = li_mul(st, d, d);
        return op == FMAG_IOP_NE ? li_bool(st, q)
                                 : li_fm(st, q, li_k(st, 0.0f), li_k(st, 0.0f), li_k(st, 1.0f), q);
    }
    bool is_signed = op >= FMAG_IOP_SLT && op <= FMAG_IOP_SGE;
    fmag_value *ah = a[1], *bh = b[1];
    if (is_signed) {
        ah = li_signed_hi(st, ah);
        bh = li_signed_hi(st, bh);
    }
    bool strict =
        op == FMAG_IOP_SLT || op == FMAG_IOP_SGT || op == FMAG_IOP_ULT || op == FMAG_IOP_UGT;
    bool less =
        op == FMAG_IOP_SLT || op == FMAG_IOP_SLE || op == FMAG_IOP_ULT || op == FMAG_IOP_ULE;
    float bias = strict ? 0.0f : 0.5f;
    fmag_value *d = less ? diff(st, bh, b[0], ah, a[0], bias) : diff(st, ah, a[0], bh, b[0], bias);
    return li_bool(st, d);
}

bool li_lower_wide(li *st, fmag_instr *i, li_val *res, fmag_value **fres)
{
    fmag_value *a[2], *b[2];
    fmag_value *x = fmag_instr_op(i, 0), *y = i->nops > 1 ? fmag_instr_op(i, 1) : NULL;
    switch (i->iop) {
    case FMAG_IOP_ADD:
    case FMAG_IOP_SUB:
    case FMAG_IOP_MUL:
        li_get_l(st, x, a);
        li_get_l(st, y, b);
        if (i->iop == FMAG_IOP_ADD)
            li_wide_add(st, a, b, res->l);
        else if (i->iop == FMAG_IOP_SUB)
            li_wide_sub(st, a, b, res->l);
        else
            li_wide_mul(st, a, b, res->l);
        return true;
    case FMAG_IOP_NEG:
        li_get_l(st, x, a);
        li_wide_neg(st, a, res->l);
        return true;
    case FMAG_IOP_NOT:
        li_get_l(st, x, a);
        res->l[0] = li_fmak(st, a[0], -1.0f, 65535.0f);
        res->l[1] = li_fmak(st, a[1], -1.0f, 65535.0f);
        return true;
    case FMAG_IOP_EQ:
    case FMAG_IOP_NE:
    case FMAG_IOP_SLT:
    case FMAG_IOP_SLE:
    case FMAG_IOP_SGT:
    case FMAG_IOP_SGE:
    case FMAG_IOP_ULT:
    case FMAG_IOP_ULE:
    case FMAG_IOP_UGT:
    case FMAG_IOP_UGE:
        *fres = compare(st, i->iop, x, y);
        return true;
    case FMAG_IOP_SELECT: {
        fmag_value *g = fmag_instr_op(i, 2);
        li_val *vx = li_info(st, x), *vy = li_info(st, y);
        if (vx->bits && vy->bits) {
            fmag_value **bx = vx->bits, **by = li_info(st, y)->bits;
            res->bits = li_new_bits(st);
            for (int k = 0; k < 32; k++)
                res->bits[k] = li_sel(st, bx[k], by[k], g);
            return true;
        }
        li_get_l(st, x, a);
        li_get_l(st, y, b);
        res->l[0] = li_sel(st, a[0], b[0], g);
        res->l[1] = li_sel(st, a[1], b[1], g);
        return true;
    }
    case FMAG_IOP_SITOFP:
        li_get_l(st, x, a);
        *fres = li_fma(st, li_signed_hi(st, a[1]), li_k(st, 65536.0f), a[0]);
        return true;
    case FMAG_IOP_UITOFP:
        li_get_l(st, x, a);
        *fres = li_fma(st, a[1], li_k(st, 65536.0f), a[0]);
        return true;
    default:
        return false;
    }
}

/* Shifts by a literal on limbs (a value not in bit form yet): the floor trick splits
 * each limb where the shift cuts it. 0 to 10 instructions; a multiple of 16 is free. */
void li_wide_shift_const(li *st, fmag_int_op op, fmag_value *const a[2], int k, fmag_value *out[2])
{
    fmag_value *z = li_k(st, 0.0f), *q, *r, *qh, *rh, *ql;
    out[0] = a[0];
    out[1] = a[1];
    if (k == 0) return;
    if (op == FMAG_IOP_SHL) {
        if (k >= 16) {
            li_floor_pow2(st, a[0], 32 - k, NULL, &r);
            out[1] = li_fmak(st, r, ldexpf(1.0f, k - 16), 0.0f);
            out[0] = z;
        } else {
            li_floor_pow2(st, a[0], 16 - k, &ql, &r);
            out[0] = li_fmak(st, r, ldexpf(1.0f, k), 0.0f);
            li_floor_pow2(st, a[1], 16 - k, NULL, &rh);
            out[1] = li_fma(st, rh, li_k(st, ldexpf(1.0f, k)), ql);
        }
        return;
    }
    bool arith = op == FMAG_IOP_ASHR;
    fmag_value *h = arith ? li_signed_hi(st, a[1]) : a[1];
    if (k >= 16) {
        li_floor_pow2(st, h, k - 16, &q, NULL);
        out[0] = arith ? wrap_down(st, q, NULL) : q;
        out[1] = arith ? li_sel(st, li_k(st, 65535.0f), z, li_sign_guard(st, a[1])) : z;
        return;
    }
    li_floor_pow2(st, h, k, &qh, &rh);
    li_floor_pow2(st, a[0], k, &ql, NULL);
    out[0] = li_fma(st, rh, li_k(st, ldexpf(1.0f, 16 - k)), ql);
    out[1] = arith ? wrap_down(st, qh, NULL) : qh;
}

/* x & m for a literal m of the form 2^n - 1 or 0xFFFF0000, on limbs; false otherwise. */
bool li_wide_mask(li *st, fmag_value *const a[2], uint32_t m, fmag_value *out[2])
{
    fmag_value *z = li_k(st, 0.0f);
    if (m == 0xFFFF0000u) {
        out[0] = z;
        out[1] = a[1];
        return true;
    }
    if (m & (m + 1)) return false;
    int n = 0;
    while (n < 32 && (m >> n) & 1)
        n++;
    if (n <= 16) {
        out[1] = z;
        if (n == 16)
            out[0] = a[0];
        else
            li_floor_pow2(st, a[0], n, NULL, &out[0]);
    } else {
        out[0] = a[0];
        if (n == 32)
            out[1] = a[1];
        else
            li_floor_pow2(st, a[1], n - 16, NULL, &out[1]);
    }
    return true;
}
