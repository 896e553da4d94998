/* -legalize-int, in range: where the range analysis proves every operand and the
 * result within |v| <= 2^24, an integer is one float holding its value, and
 * add/sub/mul/neg/compare/select/sitofp are the float operations themselves (exact:
 * every intermediate is an integer below 2^25), division and remainder by a literal
 * and shifts by a literal use the floor trick. Anything else goes to the full-width
 * files. */
#include "LegalizeInt.h"

#include <math.h>

static bool const_of(fmag_value *v, int64_t *k)
{
    uint32_t b;
    if (!li_is_const(v, &b)) return false;
    *k = (int32_t)b;
    return true;
}

/* trunc(x) for a float proved within |x| < 2^22 (nonneg: x >= 0 known). */
static fmag_value *trunc_small(li *st, fmag_value *x, bool nonneg)
{
    fmag_value *a = x, *nx = NULL;
    if (!nonneg) {
        nx = li_fmak(st, x, -1.0f, 0.0f);
        a = li_sel(st, nx, x, nx);
    }
    fmag_value *y = li_addk(st, li_addk(st, a, LI_MAGIC), -LI_MAGIC);
    fmag_value *over = li_sub(st, y, a);
    fmag_value *t = li_fm(st, y, li_k(st, 1.0f), li_k(st, -1.0f), y, over);
    if (!nonneg) t = li_fm(st, t, li_k(st, -1.0f), li_k(st, 0.0f), t, nx);
    return t;
}

void li_floordiv_k(li *st, fmag_value *s, int64_t c, fmag_value **q, fmag_value **r)
{
    if ((c & (c - 1)) == 0) {
        int k = 0;
        while (((int64_t)1 << k) < c)
            k++;
        li_floor_pow2(st, s, k, q, r);
        return;
    }
    float fc = (float)c;
    fmag_value *y = li_fmak(st, s, 1.0f / fc, LI_MAGIC);
    fmag_value *q0 = li_addk(st, y, -LI_MAGIC);
    fmag_value *r0 = li_fma(st, q0, li_k(st, -fc), s);
    fmag_value *ng = li_fmak(st, r0, -1.0f, -0.5f);
    fmag_value *r1 = li_fm(st, r0, li_k(st, 1.0f), li_k(st, fc), r0, ng);
    fmag_value *q1 = li_fm(st, q0, li_k(st, 1.0f), li_k(st, -1.0f), q0, ng);
    fmag_value *g = li_addk(st, r1, 0.5f - fc);
    *r = li_fm(st, r1, li_k(st, 1.0f), li_k(st, -fc), r1, g);
    *q = li_fm(st, q1, li_k(st, 1.0f), li_k(st, 1.0f), q1, g);
}

static int64_t mag(li_range r)
{
    int64_t a = r.lo < 0 ? -r.lo : r.lo, b = r.hi < 0 ? -r.hi : r.hi;
    return a > b ? a : b;
}

static bool lower_div_k(li *st, fmag_instr *i, li_val *res, li_range ra)
{
    int64_t c;
    fmag_value *a = fmag_instr_op(i, 0);
    if (!const_of(fmag_instr_op(i, 1), &c)) return false;
    fmag_int_op op = i->iop;
    bool is_u = op == FMAG_IOP_UDIV || op == FMAG_IOP_UREM;
    if (is_u && ra.lo < 0) return false;
    fmag_value *s = li_get_s(st, a);
    if (c == 0) {
        res->s = op == FMAG_IOP_SDIV || op == FMAG_IOP_UDIV ? li_k(st, -1.0f) : s;
        return true;
    }
    if (is_u && c < 0) { /* an unsigned divisor >= 2^31 exceeds a */
        res->s = op == FMAG_IOP_UDIV ? li_k(st, 0.0f) : s;
        return true;
    }
    int64_t C = c < 0 ? -c : c;
    if (C >= (1 << 22) || mag(ra) / C >= (1 << 22) - 2 || mag(ra) >= (1 << 22) - C) return false;
    fmag_value *q, *r;
    li_floordiv_k(st, s, C, &q, &r);
    bool nonneg = ra.lo >= 0;
    fmag_value *na = nonneg ? NULL : li_fmak(st, s, -1.0f, 0.0f);
    switch (op) {
    case FMAG_IOP_UDIV:
        res->s = q;
        break;
    case FMAG_IOP_UREM:
        res->s = r;
        break;
    case FMAG_IOP_SDIV:
        if (!nonneg) q = li_sel(st, li_fm(st, q, li_k(st, 1.0f), li_k(st, 1.0f), q, r), q, na);
        res->s = c < 0 ? li_fmak(st, q, -1.0f, 0.0f) : q;
        break;
    case FMAG_IOP_SREM:
        if (!nonneg) r = li_sel(st, li_sel(st, li_addk(st, r, (float)-C), r, na), r, r);
        res->s = r;
        break;
    case FMAG_IOP_SMOD:
        res->s = c > 0 ? r : li_sel(st, li_addk(st, r, (float)-C), r, r);
        break;
    default:
        return false;
    }
    return true;
}

bool li_lower_small(li *st, fmag_instr *i, li_val *res, fmag_value **fres)
{
    li_range r[3];
    fmag_value *ops[3] = {NULL, NULL, NULL};
    for (unsigned k = 0; k < i->nops; k++) {
        ops[k] = fmag_instr_op(i, k);
        if (ops[k]->type != FMAG_TYPE_I32) continue;
        r[k] = li_info(st, ops[k])->r;
        if (!li_is_small(r[k])) return false;
    }
    if (res && !li_is_small(res->r)) return false;
    fmag_int_op op = i->iop;
    int64_t k;
    switch (op) {
    case FMAG_IOP_ADD:
        res->s = li_add(st, li_get_s(st, ops[0]), li_get_s(st, ops[1]));
        return true;
    case FMAG_IOP_SUB:
        res->s = li_sub(st, li_get_s(st, ops[0]), li_get_s(st, ops[1]));
        return true;
    case FMAG_IOP_MUL:
        res->s = li_mul(st, li_get_s(st, ops[0]), li_get_s(st, ops[1]));
        return true;
    case FMAG_IOP_NEG:
        res->s = li_fmak(st, li_get_s(st, ops[0]), -1.0f, 0.0f);
        return true;
    case FMAG_IOP_NOT:
        res->s = li_fmak(st, li_get_s(st, ops[0]), -1.0f, -1.0f);
        return true;
    case FMAG_IOP_ULT:
    case FMAG_IOP_ULE:
    case FMAG_IOP_UGT:
    case FMAG_IOP_UGE:
    case FMAG_IOP_SLT:
    case FMAG_IOP_SLE:
    case FMAG_IOP_SGT:
    case FMAG_IOP_SGE: {
        /* on values >= 0 unsigned and signed order agree */
        if (op >= FMAG_IOP_ULT && (r[0].lo < 0 || r[1].lo < 0)) return false;
        fmag_value *x = li_get_s(st, ops[0]), *y = li_get_s(st, ops[1]);
        bool strict =
            op == FMAG_IOP_SLT || op == FMAG_IOP_SGT || op == FMAG_IOP_ULT || op == FMAG_IOP_UGT;
        bool less =
            op == FMAG_IOP_SLT || op == FMAG_IOP_SLE || op == FMAG_IOP_ULT || op == FMAG_IOP_ULE;
        /* d > 0 exactly when the comparison holds (integers: >= is > after +0.5) */
        fmag_value *d = less ? li_sub(st, y, x) : li_sub(st, x, y);
        if (!strict) d = li_addk(st, d, 0.5f);
        *fres = li_bool(st, d);
        return true;
    }
    case FMAG_IOP_EQ:
    case FMAG_IOP_NE: {
        fmag_value *d = li_sub(st, li_get_s(st, ops[0]), li_get_s(st, ops[1]));
        fmag_value *q = li_mul(st, d, d);
        *fres = op == FMAG_IOP_NE ? li_bool(st, q)
                                  : li_fm(st, q, li_k(st, 0.0f), li_k(st, 0.0f), li_k(st, 1.0f), q);
        return true;
    }
    case FMAG_IOP_SELECT:
        res->s = li_sel(st, li_get_s(st, ops[0]), li_get_s(st, ops[1]), ops[2]);
        return true;
    case FMAG_IOP_SITOFP:
        *fres = li_get_s(st, ops[0]);
        return true;
    case FMAG_IOP_UITOFP:
        if (r[0].lo < 0) return false;
        *fres = li_get_s(st, ops[0]);
        return true;
    case FMAG_IOP_FPTOSI:
    case FMAG_IOP_FPTOUI: {
        /* res->r came from the float's bounds; keep to where the rounding trick works */
        if (res->r.lo <= -(1 << 22) + 2 || res->r.hi >= (1 << 22) - 2) return false;
        fmag_value *x = ops[0];
        double flo, fhi;
        bool nonneg = li_float_bounds(x, &flo, &fhi, 0) && flo >= 0.0;
        if (op == FMAG_IOP_FPTOUI && !nonneg) {
            x = li_fm(st, x, li_k(st, 1.0f), li_k(st, 0.0f), li_k(st, 0.0f), x);
            nonneg = true;
        }
        res->s = trunc_small(st, x, nonneg);
        return true;
    }
    case FMAG_IOP_SDIV:
    case FMAG_IOP_UDIV:
    case FMAG_IOP_SREM:
    case FMAG_IOP_UREM:
    case FMAG_IOP_SMOD:
        return lower_div_k(st, i, res, r[0]);
    case FMAG_IOP_SHL:
        if (!const_of(ops[1], &k)) return false;
        res->s = li_fmak(st, li_get_s(st, ops[0]), ldexpf(1.0f, (int)(k & 31)), 0.0f);
        return true;
    case FMAG_IOP_LSHR:
    case FMAG_IOP_ASHR:
        if (op == FMAG_IOP_LSHR && r[0].lo < 0) return false;
        if (!const_of(ops[1], &k)) return false;
        k &= 31;
        if (mag(r[0]) >= (1 << 22) - ((int64_t)1 << k)) return false;
        li_floor_pow2(st, li_get_s(st, ops[0]), (int)k, &res->s, NULL);
        return true;
    case FMAG_IOP_AND:
        /* x & (2^k - 1) is x mod 2^k, for negative x too */
        if (!const_of(ops[1], &k) || k <= 0 || (k & (k + 1)) != 0) return false;
        if (mag(r[0]) >= (1 << 22) - k - 1) return false;
        {
            int n = 0;
            while (((int64_t)1 << n) <= k)
                n++;
            li_floor_pow2(st, li_get_s(st, ops[0]), n, NULL, &res->s);
        }
        return true;
    default:
        return false;
    }
}
