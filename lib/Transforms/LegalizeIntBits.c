/* -legalize-int, bit form: and/or/xor/not and shifts on 32 floats of 0.0/1.0. A
 * value enters the bit form once (3 instructions a bit, from its limbs) and stays in
 * it through a chain of bit operations (xorshift, PCG's output, murmur's mixes):
 * each bit operation is one fmag per bit that is not a literal, a shift by a
 * literal only renames bits, and a shift by a variable amount is a five-stage
 * barrel of selects. Arithmetic takes the limbs back (one fma per bit). */
#include "LegalizeInt.h"

#include <math.h>

static bool is_k(fmag_value *v, float k)
{
    return fmag_value_is_imm(v, k);
}

/* The bits of an integer float x in [0, 2^n), bit 0 first, into bits[0..n). */
static void extract(li *st, fmag_value *x, int n, fmag_value **bits)
{
    fmag_value *r = x;
    for (int i = n - 1; i >= 1; i--) {
        float p = ldexpf(1.0f, i);
        /* r - (p - 1) > 0 exactly when r >= p; 1 - p is exact up to p = 2^24 (0.5 - p
         * is not, and bit 24 of an in-range value needs it) */
        fmag_value *g = li_addk(st, r, 1.0f - p);
        bits[i] = li_bool(st, g);
        r = li_fm(st, r, li_k(st, 1.0f), li_k(st, -p), r, g);
    }
    if (n >= 1) bits[0] = r;
}

/* Guards of the bits of an integer float x in [0, 2^n): g[i] > 0 exactly when bit i
 * is set (the remainder's comparison, without making it 0/1); bit 0 is the last
 * remainder itself. */
static void extract_guards(li *st, fmag_value *x, int n, fmag_value **g)
{
    fmag_value *r = x;
    for (int i = n - 1; i >= 1; i--) {
        float p = ldexpf(1.0f, i);
        g[i] = li_addk(st, r, 1.0f - p);
        r = li_fm(st, r, li_k(st, 1.0f), li_k(st, -p), r, g[i]);
    }
    if (n >= 1) g[0] = r;
}

void li_l_to_guards(li *st, fmag_value *const l[2], int nbits_lo, int nbits_hi, fmag_value **g)
{
    for (int k = 0; k < 32; k++)
        g[k] = li_k(st, 0.0f);
    extract_guards(st, l[0], nbits_lo, g);
    extract_guards(st, l[1], nbits_hi, g + 16);
}

void li_l_to_bits(li *st, fmag_value *const l[2], int nbits_lo, int nbits_hi, fmag_value **bits)
{
    for (int k = 0; k < 32; k++)
        bits[k] = li_k(st, 0.0f);
    extract(st, l[0], nbits_lo, bits);
    extract(st, l[1], nbits_hi, bits + 16);
}

void li_s_to_bits(li *st, fmag_value *s, int nbits, fmag_value **bits)
{
    for (int k = 0; k < 32; k++)
        bits[k] = li_k(st, 0.0f);
    extract(st, s, nbits, bits);
}

fmag_value *li_bits_to_limb(li *st, fmag_value *const *bits)
{
    float off = 0.0f;
    fmag_value *acc = NULL;
    for (int i = 0; i < 16; i++) {
        float p = ldexpf(1.0f, i);
        if (is_k(bits[i], 0.0f)) continue;
        if (is_k(bits[i], 1.0f)) {
            off += p;
            continue;
        }
        acc = acc ? li_fma(st, bits[i], li_k(st, p), acc) : li_fmak(st, bits[i], p, 0.0f);
    }
    if (!acc) return li_k(st, off);
    return off != 0.0f ? li_addk(st, acc, off) : acc;
}

void li_bits_to_l(li *st, fmag_value *const *bits, fmag_value *out[2])
{
    out[0] = li_bits_to_limb(st, bits);
    out[1] = li_bits_to_limb(st, bits + 16);
}

/* The amount's low five bits, as 0/1 floats. */
static void amount_bits(li *st, fmag_value *n, fmag_value *nb[5])
{
    li_val *iv = li_info(st, n);
    if (iv->bits) {
        for (int k = 0; k < 5; k++)
            nb[k] = iv->bits[k];
        return;
    }
    fmag_value *l[2], *r;
    li_get_l(st, n, l);
    li_floor_pow2(st, l[0], 5, NULL, &r);
    fmag_value *b[5];
    extract(st, r, 5, b);
    for (int k = 0; k < 5; k++)
        nb[k] = b[k];
}

/* Shifts by a variable amount on limbs (a value not in bit form): with m = n mod 16,
 * 2^m and 2^-m come from the amount's bits by conditional doublings, shl is a
 * product by 2^n (LegalizeIntWide's exact multiply) and the right shifts split each
 * limb with the floor trick scaled by 2^-m; bit 4 of n picks the limb. */
static void shift_var_limbs(li *st, fmag_int_op op, fmag_value *const a[2], fmag_value *const nb[5],
                            fmag_value *out[2])
{
    fmag_value *one = li_k(st, 1.0f), *z = li_k(st, 0.0f);
    fmag_value *pw = one, *inv = one;
    for (int j = 0; j < 4; j++) {
        pw = li_fm(st, pw, li_k(st, ldexpf(1.0f, 1 << j)), z, pw, nb[j]);
        inv = li_fm(st, inv, li_k(st, ldexpf(1.0f, -(1 << j))), z, inv, nb[j]);
    }
    if (op == FMAG_IOP_SHL) {
        fmag_value *p[2] = {li_sel(st, z, pw, nb[4]), li_sel(st, pw, z, nb[4])};
        li_wide_mul(st, a, p, out);
        return;
    }
    bool arith = op == FMAG_IOP_ASHR;
    fmag_value *h = arith ? li_signed_hi(st, a[1]) : a[1];
    fmag_value *hp = li_fmak(st, pw, -0.5f, 0.5f); /* 0.5 - 2^m / 2 */
    /* floor(v / 2^m): v/2^m - 1/2 + 2^-(m+1) is never a tie (m = 0: v itself) */
    fmag_value *yh = li_fma(st, li_add(st, h, hp), inv, li_k(st, LI_MAGIC));
    fmag_value *qh = li_addk(st, yh, -LI_MAGIC);
    fmag_value *rh = li_fma(st, qh, li_fmak(st, pw, -1.0f, 0.0f), h);
    fmag_value *yl = li_fma(st, li_add(st, a[0], hp), inv, li_k(st, LI_MAGIC));
    fmag_value *ql = li_addk(st, yl, -LI_MAGIC);
    fmag_value *lo = li_fma(st, li_mul(st, rh, inv), li_k(st, 65536.0f), ql);
    fmag_value *hi = qh;
    if (arith) {
        fmag_value *g = li_fmak(st, qh, -1.0f, -0.5f);
        hi = li_fm(st, qh, one, li_k(st, 65536.0f), qh, g);
    }
    fmag_value *fill = arith ? li_sel(st, li_k(st, 65535.0f), z, li_sign_guard(st, a[1])) : z;
    out[0] = li_sel(st, hi, lo, nb[4]);
    out[1] = li_sel(st, fill, hi, nb[4]);
}

static void shift_const(li *st, fmag_int_op op, fmag_value **x, int k, fmag_value **out)
{
    fmag_value *fill = op == FMAG_IOP_ASHR ? x[31] : li_k(st, 0.0f);
    for (int i = 0; i < 32; i++) {
        int j = op == FMAG_IOP_SHL ? i - k : i + k;
        out[i] = j < 0 ? li_k(st, 0.0f) : j > 31 ? fill : x[j];
    }
}

/* An and/or/xor that works on bits (an and with a literal mask stays on limbs). */
static bool is_bit_op(const fmag_instr *user)
{
    if (user->op != FMAG_OP_INT) return false;
    if (user->iop == FMAG_IOP_OR || user->iop == FMAG_IOP_XOR) return true;
    return user->iop == FMAG_IOP_AND && !fmag_value_is_const(fmag_instr_op(user, 0)) &&
           !fmag_value_is_const(fmag_instr_op(user, 1));
}

/* Whether a bit operation takes i's result: then a shift by a literal renames the
 * bits of its operand, which the bit operation (x ^ x >> k) often needs anyway,
 * rather than splitting limbs whose bits the bit operation would extract again. */
static bool feeds_bit_op(fmag_instr *i)
{
    fmag_foreach_use (u, &i->results[0])
        if (is_bit_op(u->user)) return true;
    return false;
}

/* One bit of x OP y, folding literal bits. */
static fmag_value *bit_op(li *st, fmag_int_op op, fmag_value *x, fmag_value *y)
{
    if (fmag_value_is_const(x) && !fmag_value_is_const(y)) {
        fmag_value *t = x;
        x = y;
        y = t;
    }
    bool y0 = is_k(y, 0.0f), y1 = is_k(y, 1.0f);
    switch (op) {
    case FMAG_IOP_AND:
        if (y0) return y;
        if (y1) return x;
        if (x == y) return x;
        return li_fm(st, x, li_k(st, 1.0f), li_k(st, 0.0f), li_k(st, 0.0f), y);
    case FMAG_IOP_OR:
        if (y0) return x;
        if (y1) return y;
        if (x == y) return x;
        return li_fm(st, y, li_k(st, 1.0f), li_k(st, 0.0f), x, y);
    case FMAG_IOP_XOR:
        if (y0) return x;
        if (y1) return li_fmak(st, x, -1.0f, 1.0f);
        if (x == y) return li_k(st, 0.0f);
        return li_fm(st, x, li_k(st, -1.0f), li_k(st, 1.0f), x, y);
    default:
        return NULL;
    }
}

/* One bit of x OP y from x's bit (0/1) and y's guard; 0/1. */
static fmag_value *bit_op_guard(li *st, fmag_int_op op, fmag_value *x, fmag_value *g)
{
    fmag_value *one = li_k(st, 1.0f), *zero = li_k(st, 0.0f);
    if (x == g) return op == FMAG_IOP_XOR ? zero : x; /* a 0/1 bit is its own guard */
    if (is_k(x, 0.0f)) return op == FMAG_IOP_AND ? zero : li_bool(st, g);
    if (is_k(x, 1.0f)) {
        if (op == FMAG_IOP_OR) return one;
        return op == FMAG_IOP_AND ? li_bool(st, g) : li_fm(st, zero, one, zero, one, g);
    }
    switch (op) {
    case FMAG_IOP_AND:
        return li_fm(st, x, one, zero, zero, g);
    case FMAG_IOP_OR:
        return li_fm(st, one, one, zero, x, g);
    default:
        return li_fm(st, x, li_k(st, -1.0f), one, x, g);
    }
}

/* Whether v goes on to bit operations other than `except` (keep it in bit form) or
 * to arithmetic (make its limbs). */
static bool wants_bits(fmag_value *v, fmag_instr *except)
{
    fmag_foreach_use (u, v) {
        fmag_instr *user = u->user;
        if (user == except || user->op != FMAG_OP_INT) continue;
        if (is_bit_op(user)) return true;
        bool shift = user->iop == FMAG_IOP_SHL || user->iop == FMAG_IOP_LSHR ||
                     user->iop == FMAG_IOP_ASHR || user->iop == FMAG_IOP_NOT;
        if (shift && feeds_bit_op(user)) return true;
    }
    return false;
}

/* x OP y, x's bits 0/1 and y's guards. In bit form: one fmag a bit. To limbs: the
 * and of each limb accumulates with one fmag a bit (g > 0 ? b * 2^i + acc : acc),
 * and x | y = x + y - (x & y), x ^ y = x + y - 2 (x & y) on the limbs. */
static bool lower_bitwise(li *st, fmag_instr *i, fmag_value *x, fmag_value *y, li_val *res)
{
    fmag_int_op op = i->iop;
    /* the 0/1 side: one in bit form already (y's guards then cost nothing or 2 a bit) */
    bool xb = li_info(st, x)->bits || wants_bits(x, i);
    bool yb = li_info(st, y)->bits || wants_bits(y, i);
    if (!xb && yb) {
        fmag_value *t = x;
        x = y;
        y = t;
    }
    fmag_value **bx = li_get_bits(st, x);
    fmag_value **gy = xb && yb ? li_get_bits(st, y) : li_get_guards(st, y);
    bool y01 = gy == li_info(st, y)->bits;
    /* or/xor on limbs needs both operands' limbs: from bits, one fma a bit each */
    bool limbs_cost = !li_info(st, x)->l[0] || !li_info(st, y)->l[0];
    if (wants_bits(&i->results[0], NULL) || (op != FMAG_IOP_AND && y01 && limbs_cost)) {
        res->bits = li_new_bits(st);
        for (int k = 0; k < 32; k++)
            res->bits[k] = y01 ? bit_op(st, op, bx[k], gy[k]) : bit_op_guard(st, op, bx[k], gy[k]);
        return true;
    }
    fmag_value *acc[2], *a[2], *b[2];
    for (int k = 0; k < 2; k++) {
        acc[k] = li_k(st, 0.0f);
        for (int j = 0; j < 16; j++)
            if (!is_k(bx[16 * k + j], 0.0f))
                acc[k] = li_fm(st, bx[16 * k + j], li_k(st, ldexpf(1.0f, j)), acc[k], acc[k],
                               gy[16 * k + j]);
    }
    if (op == FMAG_IOP_AND) {
        res->l[0] = acc[0];
        res->l[1] = acc[1];
        return true;
    }
    li_get_l(st, x, a);
    li_get_l(st, y, b);
    float m = op == FMAG_IOP_OR ? -1.0f : -2.0f;
    for (int k = 0; k < 2; k++)
        res->l[k] = li_add(st, li_fma(st, acc[k], li_k(st, m), a[k]), b[k]);
    return true;
}

bool li_lower_bits(li *st, fmag_instr *i, li_val *res)
{
    fmag_int_op op = i->iop;
    fmag_value *x = fmag_instr_op(i, 0), *y = i->nops > 1 ? fmag_instr_op(i, 1) : NULL;
    uint32_t c;
    switch (op) {
    case FMAG_IOP_AND:
        /* a mask of low bits (or the high half) on a value not in bit form: limbs */
        if (fmag_value_is_const(x) && !fmag_value_is_const(y)) {
            fmag_value *t = x;
            x = y;
            y = t;
        }
        if (li_is_const(y, &c) && !li_info(st, x)->bits) {
            fmag_value *a[2];
            li_get_l(st, x, a);
            if (li_wide_mask(st, a, c, res->l)) return true;
        }
        return lower_bitwise(st, i, x, y, res);
    case FMAG_IOP_OR:
    case FMAG_IOP_XOR:
        return lower_bitwise(st, i, x, y, res);
    case FMAG_IOP_NOT: {
        li_val *iv = li_info(st, x);
        if (!iv->bits) return false; /* limbs: 65535 - limb */
        res->bits = li_new_bits(st);
        for (int k = 0; k < 32; k++)
            res->bits[k] = li_fmak(st, iv->bits[k], -1.0f, 1.0f);
        return true;
    }
    case FMAG_IOP_SHL:
    case FMAG_IOP_LSHR:
    case FMAG_IOP_ASHR: {
        if (li_is_const(y, &c) && !li_info(st, x)->bits && !(c % 16 && feeds_bit_op(i))) {
            fmag_value *a[2];
            li_get_l(st, x, a);
            li_wide_shift_const(st, op, a, (int)(c & 31), res->l);
            return true;
        }
        if (!li_info(st, x)->bits) {
            fmag_value *a[2], *nb[5];
            li_get_l(st, x, a);
            amount_bits(st, y, nb);
            shift_var_limbs(st, op, a, nb, res->l);
            return true;
        }
        fmag_value **bx = li_get_bits(st, x);
        res->bits = li_new_bits(st);
        if (li_is_const(y, &c)) {
            shift_const(st, op, bx, (int)(c & 31), res->bits);
            return true;
        }
        fmag_value *nb[5], *cur[32], *nxt[32];
        amount_bits(st, y, nb);
        for (int k = 0; k < 32; k++)
            cur[k] = bx[k];
        for (int s = 0; s < 5; s++) {
            shift_const(st, op, cur, 1 << s, nxt);
            for (int k = 0; k < 32; k++)
                cur[k] = li_sel(st, nxt[k], cur[k], nb[s]);
        }
        for (int k = 0; k < 32; k++)
            res->bits[k] = cur[k];
        return true;
    }
    default:
        return false;
    }
}
