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

/* Bounds of an f32 value: lo <= v <= hi (either may be infinite), and whether v can
 * be a NaN. Found by a short, depth-limited look through its definition: literals;
 * x*k + c with a literal k; max and min as the sugar builds them (select(A, B, A - B)
 * and select(B, A, A - B): a NaN guard picks B, so a clamp of anything to literals is
 * bounded and never a NaN); relu; other selects as the union of their arms. */
typedef struct fbounds {
    double lo, hi;
    bool nan_free;
} fbounds;

static const fbounds fb_any = {-INFINITY, INFINITY, false};

static bool is_sub_of(fmag_value *g, fmag_value *x, fmag_value *y) /* g = x - y */
{
    fmag_instr *d = fmag_ou_fmag_def(g);
    return d && fmag_instr_op(d, FMAG_A) == y &&
           fmag_value_is_imm(fmag_instr_op(d, FMAG_B), -1.0f) && fmag_instr_op(d, FMAG_C) == x &&
           fmag_ou_const_true(fmag_instr_op(d, FMAG_E));
}

static fbounds float_bounds(fmag_value *v, int depth)
{
    if (fmag_value_is_const(v)) {
        if (v->type != FMAG_TYPE_F32 || !isfinite(v->imm)) return fb_any;
        return (fbounds){v->imm, v->imm, true};
    }
    fmag_instr *d = fmag_ou_fmag_def(v);
    if (!d || depth > 12) return fb_any;
    fmag_value *a = fmag_instr_op(d, FMAG_A), *b = fmag_instr_op(d, FMAG_B);
    fmag_value *c = fmag_instr_op(d, FMAG_C), *fv = fmag_instr_op(d, FMAG_D);
    fmag_value *g = fmag_instr_op(d, FMAG_E);
    bool uncond = fmag_ou_const_true(g);
    bool is_sel = fmag_value_is_imm(b, 1.0f) && fmag_ou_is_zero(c) && !uncond;
    if (is_sel) {
        fbounds t = float_bounds(a, depth + 1), f = float_bounds(fv, depth + 1);
        if (is_sub_of(g, a, fv)) /* max(t, f): a NaN guard picks f */
            return (fbounds){fmax(t.lo, f.lo), fmax(t.hi, f.hi), f.nan_free};
        if (is_sub_of(g, fv, a)) /* min(f, t) */
            return (fbounds){fmin(t.lo, f.lo), fmin(t.hi, f.hi), f.nan_free};
        if (g == a && f.nan_free && f.lo == 0.0 && f.hi == 0.0) /* relu */
            return (fbounds){fmax(t.lo, 0.0), fmax(t.hi, 0.0), true};
        return (fbounds){fmin(t.lo, f.lo), fmax(t.hi, f.hi), t.nan_free && f.nan_free};
    }
    if (!fmag_value_is_const(b) || b->type != FMAG_TYPE_F32) return fb_any;
    fbounds x = float_bounds(a, depth + 1), z = float_bounds(c, depth + 1);
    if (!x.nan_free || !z.nan_free || !isfinite(x.lo) || !isfinite(x.hi) || !isfinite(z.lo) ||
        !isfinite(z.hi))
        return fb_any;
    double k = b->imm, p1 = x.lo * k, p2 = x.hi * k;
    double tlo = fmin(p1, p2) + z.lo, thi = fmax(p1, p2) + z.hi;
    /* One rounding can move a bound by half an ulp: widen by a relative 2^-23. */
    tlo -= fabs(tlo) * 0x1p-23;
    thi += fabs(thi) * 0x1p-23;
    if (fabs(tlo) > 1e38 || fabs(thi) > 1e38) return fb_any; /* may overflow */
    fbounds r = {tlo, thi, true};
    if (!uncond) {
        fbounds f = float_bounds(fv, depth + 1);
        r = (fbounds){fmin(r.lo, f.lo), fmax(r.hi, f.hi), f.nan_free};
    }
    return r;
}

bool li_float_bounds(fmag_value *v, double *lo, double *hi, int depth)
{
    fbounds b = float_bounds(v, depth);
    if (!b.nan_free || !isfinite(b.lo) || !isfinite(b.hi)) return false;
    *lo = b.lo;
    *hi = b.hi;
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
        /* by a literal c: |a / c| <= 2^31 / |c|, |a % c| < |c| */
        if (is_k(b, &k) && k != 0 && k != INT32_MIN && (op == FMAG_IOP_SREM || k != -1)) {
            int64_t m =
                op == FMAG_IOP_SDIV ? ((int64_t)1 << 31) / (k < 0 ? -k : k) : (k < 0 ? -k : k) - 1;
            if (!has(a, INT32_MIN)) m = min64(m, mag(a));
            if (op == FMAG_IOP_SDIV && k < 0) return mk(-m, m);
            return mk(a.lo >= 0 ? 0 : -m, a.hi <= 0 ? 0 : m);
        }
        if (has(a, INT32_MIN)) return li_range_full();
        int64_t m = mag(a);
        li_range out = {-m, m};
        if (op == FMAG_IOP_SDIV && has(b, 0)) out.lo = min64(out.lo, -1);
        return out;
    }
    case FMAG_IOP_SMOD: {
        if (is_k(b, &k) && k != 0 && k != INT32_MIN) /* the divisor's sign */
            return k > 0 ? mk(0, k - 1) : mk(k + 1, 0);
        if (has(a, INT32_MIN) || has(b, INT32_MIN)) return li_range_full();
        int64_t m = max64(mag(a), mag(b));
        return (li_range){-m, m};
    }
    case FMAG_IOP_UDIV:
        if (is_k(b, &k) && k >= 2) /* an unsigned literal below 2^31 */
            return mk(0, (a.lo < 0 ? (int64_t)UINT32_MAX : a.hi) / k);
        if (a.lo < 0) return li_range_full();
        return has(b, 0) ? mk(-1, a.hi) : mk(0, a.hi);
    case FMAG_IOP_UREM:
        if (is_k(b, &k) && k > 0) return mk(0, a.lo >= 0 ? min64(a.hi, k - 1) : k - 1);
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
