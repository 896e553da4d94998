/* -legalize-int's value ranges: the signed interval of every i32 result from its
 * operands' intervals (interval arithmetic in 64 bits, so a result that could wrap
 * is known to be "anything"), and for fptosi/fptoui the bounds of a float operand
 * where they are evident (a literal, a clamp by selects of literals). What is proved
 * here decides which values stay one float (LegalizeIntSmall.c). */
#include "LegalizeInt.h"

#include "OptUtil.h"

#include <math.h>

li_range li_range_full(void)
{
    return (li_range){INT32_MIN, INT32_MAX};
}

li_range li_range_const(uint32_t bits)
{
    int64_t v = (int32_t)bits;
    return (li_range){v, v};
}

static li_range mk(int64_t lo, int64_t hi)
{
    if (lo < INT32_MIN || hi > INT32_MAX || lo > hi) return li_range_full();
    return (li_range){lo, hi};
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}
static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}
static int64_t mag(li_range r)
{
    return max64(r.lo < 0 ? -r.lo : r.lo, r.hi < 0 ? -r.hi : r.hi);
}
static bool has(li_range r, int64_t v)
{
    return r.lo <= v && v <= r.hi;
}
static bool is_k(li_range r, int64_t *k)
{
    if (r.lo != r.hi) return false;
    *k = r.lo;
    return true;
}
static int64_t ones_below(int64_t hi)
{
    int64_t m = 0;
    while (m < hi)
        m = 2 * m + 1;
    return m;
}

/* Float bounds of an f32 value, by a short look through its definition: literals,
 * selects (union of the arms) and x*k+c with literal k and c. Depth-limited. */
bool li_float_bounds(fmag_value *v, double *lo, double *hi, int depth)
{
    if (fmag_value_is_const(v)) {
        if (!isfinite(v->imm)) return false;
        *lo = *hi = v->imm;
        return true;
    }
    fmag_instr *d = fmag_ou_fmag_def(v);
    if (!d || depth > 8) return false;
    fmag_value *a = fmag_instr_op(d, FMAG_A), *b = fmag_instr_op(d, FMAG_B);
    fmag_value *c = fmag_instr_op(d, FMAG_C), *fb = fmag_instr_op(d, FMAG_D);
    double alo, ahi, clo, chi, dlo, dhi;
    if (!fmag_value_is_const(b) || !li_float_bounds(a, &alo, &ahi, depth + 1) ||
        !li_float_bounds(c, &clo, &chi, depth + 1))
        return false;
    double k = b->imm, p1 = alo * k, p2 = ahi * k;
    double tlo = fmin(p1, p2) + clo, thi = fmax(p1, p2) + chi;
    /* One rounding can move a bound by half an ulp: widen by a relative 2^-23. */
    tlo -= fabs(tlo) * 0x1p-23;
    thi += fabs(thi) * 0x1p-23;
    if (!fmag_ou_const_true(fmag_instr_op(d, FMAG_E))) {
        if (!li_float_bounds(fb, &dlo, &dhi, depth + 1)) return false;
        tlo = fmin(tlo, dlo);
        thi = fmax(thi, dhi);
    }
    *lo = tlo;
    *hi = thi;
    return true;
}

li_range li_range_of(fmag_int_op op, const li_range *r, fmag_value *const *ops)
{
    li_range a = r[0], b = r[1];
    int64_t k;
    switch (op) {
    case FMAG_IOP_ADD:
        return mk(a.lo + b.lo, a.hi + b.hi);
    case FMAG_IOP_SUB:
        return mk(a.lo - b.hi, a.hi - b.lo);
    case FMAG_IOP_NEG:
        return mk(-a.hi, -a.lo);
    case FMAG_IOP_NOT:
        return mk(-a.hi - 1, -a.lo - 1);
    case FMAG_IOP_MUL: {
        int64_t p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
        int64_t lo = p[0], hi = p[0];
        for (int j = 1; j < 4; j++)
            lo = min64(lo, p[j]), hi = max64(hi, p[j]);
        return mk(lo, hi);
    }
    case FMAG_IOP_SDIV:
    case FMAG_IOP_SREM: {
        if (has(a, INT32_MIN)) return li_range_full();
        int64_t m = mag(a);
        li_range out = {-m, m};
        if (op == FMAG_IOP_SDIV && has(b, 0)) out.lo = min64(out.lo, -1);
        return out;
    }
    case FMAG_IOP_SMOD: {
        if (has(a, INT32_MIN) || has(b, INT32_MIN)) return li_range_full();
        int64_t m = max64(mag(a), mag(b));
        return (li_range){-m, m};
    }
    case FMAG_IOP_UDIV:
        if (a.lo < 0) return li_range_full();
        return has(b, 0) ? mk(-1, a.hi) : mk(0, a.hi);
    case FMAG_IOP_UREM:
        if (a.lo >= 0) return mk(0, a.hi);
        if (b.lo > 0) return mk(0, b.hi - 1);
        return li_range_full();
    case FMAG_IOP_AND:
        if (a.lo >= 0 && b.lo >= 0) return mk(0, min64(a.hi, b.hi));
        if (a.lo >= 0) return mk(0, a.hi);
        if (b.lo >= 0) return mk(0, b.hi);
        return li_range_full();
    case FMAG_IOP_OR:
    case FMAG_IOP_XOR:
        if (a.lo >= 0 && b.lo >= 0) return mk(0, ones_below(max64(a.hi, b.hi)));
        return li_range_full();
    case FMAG_IOP_SHL:
        if (is_k(b, &k)) {
            k &= 31;
            return mk(a.lo * ((int64_t)1 << k), a.hi * ((int64_t)1 << k));
        }
        return a.lo == 0 && a.hi == 0 ? a : li_range_full();
    case FMAG_IOP_LSHR:
        if (is_k(b, &k)) {
            k &= 31;
            if (a.lo >= 0) return mk(a.lo >> k, a.hi >> k);
            if (k == 0) return a;
            return mk(0, (int64_t)(0xFFFFFFFFu >> k));
        }
        return a.lo >= 0 ? mk(0, a.hi) : li_range_full();
    case FMAG_IOP_ASHR:
        if (is_k(b, &k)) {
            k &= 31;
            /* >> on int64_t: arithmetic on every compiler this builds with; spell it. */
            int64_t lo = a.lo < 0 ? -((-a.lo - 1) >> k) - 1 : a.lo >> k;
            int64_t hi = a.hi < 0 ? -((-a.hi - 1) >> k) - 1 : a.hi >> k;
            return mk(lo, hi);
        }
        return mk(min64(a.lo, 0), max64(a.hi, 0));
    case FMAG_IOP_SELECT:
        return mk(min64(a.lo, b.lo), max64(a.hi, b.hi));
    case FMAG_IOP_FPTOSI:
    case FMAG_IOP_FPTOUI: {
        double lo, hi;
        if (!ops || !ops[0] || !li_float_bounds(ops[0], &lo, &hi, 0)) {
            return op == FMAG_IOP_FPTOUI ? li_range_full() : li_range_full();
        }
        if (!(lo > -2147483648.0 && hi < 2147483648.0)) return li_range_full();
        int64_t tlo = (int64_t)trunc(lo), thi = (int64_t)trunc(hi);
        if (op == FMAG_IOP_FPTOUI) tlo = max64(tlo, 0), thi = max64(thi, 0);
        return mk(tlo, thi);
    }
    default:
        return li_range_full();
    }
}
