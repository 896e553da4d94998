/* The value instructions: float arithmetic, matrices, composites and swizzles,
 * comparisons and logic on the IR's 1.0 / 0.0 booleans, conversions, integer
 * arithmetic as the IR's i32 operations (folded exactly when every operand is a
 * literal) and the bit operations expanded into them, plus the diagnostics for
 * everything FMAG cannot run. */
#include <math.h>
#include <string.h>
#include "SPIRVInternal.h"
#include "fmag/Bits.h"

#define B (&r->b)

static fmag_value *K(spv_reader *r, float f)
{
    return fmag_module_const(r->m, f);
}

static bool need(spv_reader *r, const spv_inst *in, uint32_t nw)
{
    if (in->nw < nw) return spv_error_op(r, "truncated instruction");
    return true;
}

/* The result array of an instruction with a result type (w[1]) and id (w[2]). */
static fmag_value **result(spv_reader *r, const spv_inst *in, uint32_t *n)
{
    return spv_new_value(r, in->w[2], in->w[1], n);
}

static fmag_value **operand(spv_reader *r, const spv_inst *in, uint32_t k, uint32_t *n)
{
    if (k >= in->nw) {
        spv_error_op(r, "truncated instruction");
        return NULL;
    }
    return spv_get_value(r, in->w[k], n);
}

static uint32_t otype(spv_reader *r, const spv_inst *in, uint32_t k)
{
    return r->ids[in->w[k]].type;
}

/* --------------------------------------------------------- float arithmetic */

typedef fmag_value *(*fn2)(spv_reader *, fmag_value *, fmag_value *);

static fmag_value *f_add(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_add(B, x, y);
}
static fmag_value *f_sub(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_sub(B, x, y);
}
static fmag_value *f_mul(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_mul(B, x, y);
}
static fmag_value *f_div(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_div(B, x, y, r->fast);
}
/* OpFMod: GLSL mod, x - y*floor(x/y): the sign of y. */
static fmag_value *f_mod(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_mod(B, x, y, r->fast);
}
/* OpFRem: the C remainder, x - y*trunc(x/y): the sign of x. */
static fmag_value *f_rem(spv_reader *r, fmag_value *x, fmag_value *y)
{
    fmag_value *q = fmag_build_trunc(B, fmag_build_div(B, x, y, r->fast), r->fast);
    return fmag_build_fma(B, fmag_build_neg(B, q), y, x);
}
static fmag_value *f_lt(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_lt(B, x, y);
}
static fmag_value *f_gt(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_gt(B, x, y);
}
static fmag_value *f_le(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_le(B, x, y);
}
static fmag_value *f_ge(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_ge(B, x, y);
}
static fmag_value *f_eq(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_eq(B, x, y);
}
static fmag_value *f_ne(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_ne(B, x, y);
}
/* Booleans are exactly 0 or 1. */
static fmag_value *b_and(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_mul(B, x, y);
}
static fmag_value *b_or(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_select(B, r->one, y, x);
}
static fmag_value *b_xor(spv_reader *r, fmag_value *x, fmag_value *y)
{
    /* x + y - 2xy = x*(1 - 2y) + y */
    fmag_value *t = fmag_build_fma(B, y, K(r, -2.0f), r->one);
    return fmag_build_fma(B, x, t, y);
}
static fmag_value *b_eqv(spv_reader *r, fmag_value *x, fmag_value *y)
{
    return fmag_build_sub(B, r->one, b_xor(r, x, y));
}

/* Component-wise binary operation; a scalar operand is not broadcast (SPIR-V
 * requires equal types). */
static bool binary(spv_reader *r, const spv_inst *in, fn2 fn)
{
    uint32_t n, na, nb;
    if (!need(r, in, 5)) return false;
    fmag_value **a = operand(r, in, 3, &na), **b = a ? operand(r, in, 4, &nb) : NULL;
    if (!b) return false;
    fmag_value **out = result(r, in, &n);
    if (!out) return false;
    if (na != n || nb != n) return spv_error_op(r, "operand types differ from the result type");
    for (uint32_t j = 0; j < n; j++)
        out[j] = fn(r, a[j], b[j]);
    return true;
}

/* The operand and result of a one-operand instruction of one type (vectors component
 * by component). */
static bool unary_operands(spv_reader *r, const spv_inst *in, fmag_value ***a, fmag_value ***out,
                           uint32_t *n)
{
    uint32_t na;
    if (!need(r, in, 4)) return false;
    if (!(*a = operand(r, in, 3, &na))) return false;
    if (!(*out = result(r, in, n))) return false;
    if (na != *n) return spv_error_op(r, "the operand type differs from the result type");
    return true;
}

static bool negate(spv_reader *r, const spv_inst *in)
{
    uint32_t n;
    fmag_value **a, **out;
    if (!unary_operands(r, in, &a, &out, &n)) return false;
    for (uint32_t j = 0; j < n; j++) {
        if (in->op == SpvOpLogicalNot)
            out[j] = fmag_build_sub(B, r->one, a[j]);
        else
            out[j] = fmag_build_neg(B, a[j]);
    }
    return true;
}

/* ------------------------------------------------------------ linear algebra */

static spv_type *ty(spv_reader *r, uint32_t id)
{
    return spv_type_get(r, id);
}

/* Rows of a matrix type (its column vector's size) and its columns. */
static bool mat_shape(spv_reader *r, uint32_t type, uint32_t *rows, uint32_t *cols)
{
    spv_type *t = ty(r, type);
    if (!t || t->kind != TY_MATRIX) return false;
    spv_type *c = ty(r, t->elem);
    if (!c || c->kind != TY_VECTOR) return false;
    *rows = c->count;
    *cols = t->count;
    return true;
}

static fmag_value *dot_strided(spv_reader *r, fmag_value **x, uint32_t xs, fmag_value **y,
                               uint32_t ys, uint32_t n)
{
    fmag_value *xv[4], *yv[4];
    for (uint32_t k = 0; k < n; k++) {
        xv[k] = x[k * xs];
        yv[k] = y[k * ys];
    }
    return fmag_build_dot(B, xv, yv, n, r->fast);
}

static bool linalg(spv_reader *r, const spv_inst *in)
{
    uint32_t n, na, nb;
    if (!need(r, in, 4)) return false;
    fmag_value **a = operand(r, in, 3, &na);
    if (!a) return false;
    fmag_value **b = NULL;
    if (in->op != SpvOpTranspose) {
        if (!need(r, in, 5)) return false;
        b = operand(r, in, 4, &nb);
        if (!b) return false;
    }
    fmag_value **out = result(r, in, &n);
    if (!out) return false;
    uint32_t rows, cols, rows2, cols2;
    switch (in->op) {
    case SpvOpVectorTimesScalar:
    case SpvOpMatrixTimesScalar:
        if (na != n || nb != 1) return spv_error_op(r, "operand types do not match");
        for (uint32_t j = 0; j < n; j++)
            out[j] = fmag_build_mul(B, a[j], b[0]);
        return true;
    case SpvOpDot:
        if (na != nb || na > 4 || n != 1) return spv_error_op(r, "operand types do not match");
        out[0] = fmag_build_dot(B, a, b, na, r->fast);
        return true;
    case SpvOpMatrixTimesVector: /* (cols x rows) * cols-vector = rows-vector */
        if (!mat_shape(r, otype(r, in, 3), &rows, &cols) || nb != cols || n != rows)
            return spv_error_op(r, "operand types do not match");
        for (uint32_t i = 0; i < rows; i++)
            out[i] = dot_strided(r, a + i, rows, b, 1, cols);
        return true;
    case SpvOpVectorTimesMatrix: /* rows-vector * (cols x rows) = cols-vector */
        if (!mat_shape(r, otype(r, in, 4), &rows, &cols) || na != rows || n != cols)
            return spv_error_op(r, "operand types do not match");
        for (uint32_t j = 0; j < cols; j++)
            out[j] = dot_strided(r, a, 1, b + j * rows, 1, rows);
        return true;
    case SpvOpMatrixTimesMatrix:
        if (!mat_shape(r, otype(r, in, 3), &rows, &cols) ||
            !mat_shape(r, otype(r, in, 4), &rows2, &cols2) || rows2 != cols || n != rows * cols2)
            return spv_error_op(r, "operand types do not match");
        for (uint32_t j = 0; j < cols2; j++)
            for (uint32_t i = 0; i < rows; i++)
                out[j * rows + i] = dot_strided(r, a + i, rows, b + j * rows2, 1, cols);
        return true;
    case SpvOpOuterProduct: /* column vector a (rows) times row vector b (cols) */
        if (!mat_shape(r, in->w[1], &rows, &cols) || na != rows || nb != cols)
            return spv_error_op(r, "operand types do not match");
        for (uint32_t j = 0; j < cols; j++)
            for (uint32_t i = 0; i < rows; i++)
                out[j * rows + i] = fmag_build_mul(B, a[i], b[j]);
        return true;
    case SpvOpTranspose:
        if (!mat_shape(r, otype(r, in, 3), &rows, &cols) || n != na)
            return spv_error_op(r, "operand types do not match");
        for (uint32_t j = 0; j < cols; j++)
            for (uint32_t i = 0; i < rows; i++)
                out[i * cols + j] = a[j * rows + i];
        return true;
    default:
        return spv_error_op(r, "internal: not a linear algebra opcode");
    }
}

/* ---------------------------------------------------------------- composites */

/* The leaf range that literal indices w[k..] select within type `type`. */
static bool walk_indices(spv_reader *r, const spv_inst *in, uint32_t k, uint32_t type,
                         uint32_t *off, uint32_t *len)
{
    *off = 0;
    for (; k < in->nw; k++) {
        spv_type *t = ty(r, type);
        uint32_t idx = in->w[k];
        if (!t) return spv_error_op(r, "indexing into an undeclared type");
        if (t->kind == TY_STRUCT) {
            if (idx >= t->count) return spv_error_op(r, "member index %u out of range", idx);
            *off += t->offs[idx];
            type = t->members[idx];
        } else if (t->kind == TY_VECTOR || t->kind == TY_MATRIX || t->kind == TY_ARRAY) {
            if (idx >= t->count) return spv_error_op(r, "index %u out of range", idx);
            *off += idx * spv_type_leaves(r, t->elem);
            type = t->elem;
        } else {
            return spv_error_op(r, "indexing into a type that is not a composite");
        }
    }
    *len = spv_type_leaves(r, type);
    return true;
}

static bool composite(spv_reader *r, const spv_inst *in)
{
    uint32_t n, nc, off, len;
    fmag_value **out, **c, **obj;
    switch (in->op) {
    case SpvOpCompositeConstruct: {
        if (!need(r, in, 3)) return false;
        out = result(r, in, &n);
        if (!out) return false;
        uint32_t at = 0;
        for (uint32_t k = 3; k < in->nw; k++) {
            c = operand(r, in, k, &nc);
            if (!c) return false;
            if ((uint64_t)at + nc > n)
                return spv_error_op(r, "constituents do not match the result type");
            memcpy(out + at, c, nc * sizeof *c);
            at += nc;
        }
        if (at != n) return spv_error_op(r, "constituents do not match the result type");
        return true;
    }
    case SpvOpCompositeExtract:
        if (!need(r, in, 4)) return false;
        c = operand(r, in, 3, &nc);
        if (!c || !walk_indices(r, in, 4, otype(r, in, 3), &off, &len)) return false;
        out = result(r, in, &n);
        if (!out) return false;
        if (len != n || off + len > nc)
            return spv_error_op(r, "the result type differs from the element");
        memcpy(out, c + off, n * sizeof *c);
        return true;
    case SpvOpCompositeInsert:
        if (!need(r, in, 5)) return false;
        obj = operand(r, in, 3, &len);
        c = obj ? operand(r, in, 4, &nc) : NULL;
        if (!c || !walk_indices(r, in, 5, otype(r, in, 4), &off, &n)) return false;
        if (n != len || off + len > nc)
            return spv_error_op(r, "the object's type differs from the element");
        out = result(r, in, &n);
        if (!out) return false;
        if (n != nc) return spv_error_op(r, "the result type differs from the composite");
        memcpy(out, c, n * sizeof *c);
        memcpy(out + off, obj, len * sizeof *c);
        return true;
    case SpvOpCopyObject:
    case SpvOpCopyLogical:
        if (!need(r, in, 4)) return false;
        c = operand(r, in, 3, &nc);
        if (!c) return false;
        out = result(r, in, &n);
        if (!out) return false;
        if (n != nc) return spv_error_op(r, "the result type differs from the operand");
        memcpy(out, c, n * sizeof *c);
        return true;
    case SpvOpVectorShuffle: {
        if (!need(r, in, 5)) return false;
        uint32_t n1, n2;
        fmag_value **v1 = operand(r, in, 3, &n1), **v2 = v1 ? operand(r, in, 4, &n2) : NULL;
        if (!v2) return false;
        out = result(r, in, &n);
        if (!out) return false;
        if (n != in->nw - 5)
            return spv_error_op(r, "the component count differs from the result type");
        for (uint32_t j = 0; j < n; j++) {
            uint32_t s = in->w[5 + j];
            if (s == 0xFFFFFFFFu)
                out[j] = spv_zero(r, spv_leaf_type(r, in->w[1], j)); /* undefined */
            else if (s < n1)
                out[j] = v1[s];
            else if (s - n1 < n2)
                out[j] = v2[s - n1];
            else
                return spv_error_op(r, "component %u out of range", s);
        }
        return true;
    }
    default:
        return spv_error_op(r, "internal: not a composite opcode");
    }
}

/* Element idx of v[0..n-1] by a select chain (element k wins when idx > k - 0.5). */
static fmag_value *pick(spv_reader *r, fmag_value **v, uint32_t n, fmag_value *idx)
{
    fmag_value *acc = v[0];
    for (uint32_t k = 1; k < n; k++)
        acc = fmag_build_select_typed(B, v[k], acc, fmag_build_sub(B, idx, K(r, (float)k - 0.5f)));
    return acc;
}

static bool dynamic_vec(spv_reader *r, const spv_inst *in)
{
    uint32_t n, nv, ni, nc = 0;
    bool insert = in->op == SpvOpVectorInsertDynamic;
    if (!need(r, in, insert ? 6 : 5)) return false;
    fmag_value **v = operand(r, in, 3, &nv);
    fmag_value **c = insert && v ? operand(r, in, 4, &nc) : NULL;
    fmag_value **idx = (v && (!insert || c)) ? operand(r, in, insert ? 5 : 4, &ni) : NULL;
    if (!idx) return false;
    if (ni != 1 || !spv_type_is_int(r, otype(r, in, insert ? 5 : 4)))
        return spv_error_op(r, "the index is not an integer scalar");
    fmag_value **out = result(r, in, &n);
    if (!out) return false;
    if (insert ? (n != nv || nc != 1) : n != 1)
        return spv_error_op(r, "operand types do not match");
    int64_t k;
    bool konst = spv_int_of(idx[0], &k);
    if (konst && (k < 0 || k >= nv))
        return spv_error_op(r, "index %lld out of range", (long long)k);
    r->dyn_cost += konst ? 0 : nv;
    /* The select chains compare the index as a float (exact for every index in range;
     * the conversion folds once unrolling has made the index a literal). */
    fmag_value *fidx = konst ? NULL : spv_int(r, FMAG_IOP_SITOFP, idx[0], NULL, NULL);
    if (!insert) {
        out[0] = konst ? v[k] : pick(r, v, nv, fidx);
        return true;
    }
    for (uint32_t j = 0; j < nv; j++) {
        if (konst) {
            out[j] = (int64_t)j == k ? c[0] : v[j];
            continue;
        }
        fmag_value *d = fmag_build_abs(B, fmag_build_sub(B, fidx, K(r, (float)j)));
        out[j] = fmag_build_select_typed(B, c[0], v[j], fmag_build_sub(B, K(r, 0.5f), d));
    }
    return true;
}

/* ------------------------------------------------------------- select, any, all */

static bool select_op(spv_reader *r, const spv_inst *in)
{
    uint32_t n, nc, na, nb;
    if (!need(r, in, 6)) return false;
    fmag_value **c = operand(r, in, 3, &nc);
    fmag_value **a = c ? operand(r, in, 4, &na) : NULL, **b = a ? operand(r, in, 5, &nb) : NULL;
    if (!b) return false;
    if (!spv_type_is_bool(r, otype(r, in, 3)))
        return spv_error_op(r, "the condition is not a bool");
    fmag_value **out = result(r, in, &n);
    if (!out) return false;
    if (na != n || nb != n || (nc != 1 && nc != n))
        return spv_error_op(r, "operand types do not match");
    for (uint32_t j = 0; j < n; j++)
        out[j] = fmag_build_select_typed(B, a[j], b[j], c[nc == 1 ? 0 : j]);
    return true;
}

static bool any_all(spv_reader *r, const spv_inst *in)
{
    uint32_t n, na;
    if (!need(r, in, 4)) return false;
    fmag_value **a = operand(r, in, 3, &na);
    if (!a) return false;
    fmag_value **out = result(r, in, &n);
    if (!out) return false;
    if (n != 1 || !na) return spv_error_op(r, "operand types do not match");
    fmag_value *acc = a[0];
    for (uint32_t j = 1; j < na; j++)
        acc = in->op == SpvOpAny ? b_or(r, acc, a[j]) : b_and(r, acc, a[j]);
    out[0] = acc;
    return true;
}

/* NaN and infinity tests. fma(x, 0, 1) is 1 for finite x and NaN otherwise;
 * a NaN is neither > 0 nor < 0. Under FMAG's strict contract (no NaN or
 * infinity anywhere) the optimizer may fold both to false. */
static bool class_op(spv_reader *r, const spv_inst *in)
{
    uint32_t n, na;
    if (!need(r, in, 4)) return false;
    fmag_value **a = operand(r, in, 3, &na);
    if (!a) return false;
    fmag_value **out = result(r, in, &n);
    if (!out) return false;
    if (n != na) return spv_error_op(r, "operand types do not match");
    for (uint32_t j = 0; j < n; j++) {
        fmag_value *x = a[j];
        fmag_value *fin = fmag_build_fmag(B, x, r->zero, r->one, r->zero, r->one);
        fmag_value *nonfin = fmag_build_select(B, r->zero, r->one, fin);
        fmag_value *pos = fmag_build_select(B, r->one, r->zero, x);
        fmag_value *sgn =
            fmag_build_select(B, r->one, pos, fmag_build_neg(B, x)); /* x != 0, not NaN */
        if (in->op == SpvOpIsInf)
            out[j] = fmag_build_mul(B, nonfin, sgn);
        else if (in->op == SpvOpIsNan)
            out[j] = fmag_build_mul(B, nonfin, fmag_build_sub(B, r->one, sgn));
        else /* OpIsFinite */
            out[j] = fmag_build_sub(B, r->one, nonfin);
    }
    return true;
}

/* ------------------------------------------------------------------ integers */

/* Every SPIR-V integer is an IR i32 and every integer instruction one row of
 * fmag/IntOps.def (SPEC §2b); the reader only chooses rows and folds literals
 * through fmag_eval_int, the IR's definition (docs/SPIRV.md "Integers"). */
bool spv_int_iop(uint32_t op, fmag_int_op *iop)
{
    static const struct {
        uint32_t spv;
        fmag_int_op iop;
    } map[] = {
        {SpvOpIAdd, FMAG_IOP_ADD},
        {SpvOpISub, FMAG_IOP_SUB},
        {SpvOpIMul, FMAG_IOP_MUL},
        {SpvOpSDiv, FMAG_IOP_SDIV},
        {SpvOpUDiv, FMAG_IOP_UDIV},
        {SpvOpSRem, FMAG_IOP_SREM},
        {SpvOpSMod, FMAG_IOP_SMOD},
        {SpvOpUMod, FMAG_IOP_UREM}, /* unsigned: the remainder is the modulus */
        {SpvOpBitwiseAnd, FMAG_IOP_AND},
        {SpvOpBitwiseOr, FMAG_IOP_OR},
        {SpvOpBitwiseXor, FMAG_IOP_XOR},
        {SpvOpNot, FMAG_IOP_NOT},
        {SpvOpShiftLeftLogical, FMAG_IOP_SHL},
        {SpvOpShiftRightLogical, FMAG_IOP_LSHR},
        {SpvOpShiftRightArithmetic, FMAG_IOP_ASHR},
        {SpvOpSNegate, FMAG_IOP_NEG},
        {SpvOpIEqual, FMAG_IOP_EQ},
        {SpvOpINotEqual, FMAG_IOP_NE},
        {SpvOpSLessThan, FMAG_IOP_SLT},
        {SpvOpSLessThanEqual, FMAG_IOP_SLE},
        {SpvOpSGreaterThan, FMAG_IOP_SGT},
        {SpvOpSGreaterThanEqual, FMAG_IOP_SGE},
        {SpvOpULessThan, FMAG_IOP_ULT},
        {SpvOpULessThanEqual, FMAG_IOP_ULE},
        {SpvOpUGreaterThan, FMAG_IOP_UGT},
        {SpvOpUGreaterThanEqual, FMAG_IOP_UGE},
        {SpvOpConvertSToF, FMAG_IOP_SITOFP},
        {SpvOpConvertUToF, FMAG_IOP_UITOFP},
        {SpvOpConvertFToS, FMAG_IOP_FPTOSI},
        {SpvOpConvertFToU, FMAG_IOP_FPTOUI},
    };
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++) {
        if (map[k].spv == op) {
            *iop = map[k].iop;
            return true;
        }
    }
    return false;
}

fmag_value *spv_int_fold(spv_reader *r, fmag_int_op op, fmag_value *x, fmag_value *y, fmag_value *z)
{
    fmag_value *v[3] = {x, y, z};
    uint32_t bits[3] = {0, 0, 0};
    for (unsigned k = 0; k < fmag_int_op_nops(op); k++) {
        if (!v[k] || !fmag_value_is_const(v[k])) return NULL;
        bits[k] = v[k]->ibits; /* an f32 literal's bit pattern, as fmag_eval_int wants */
    }
    uint32_t res = fmag_eval_int(op, bits[0], bits[1], bits[2]);
    fmag_type t = fmag_int_op_result_type(op);
    if (t == FMAG_TYPE_F32 && !isfinite(fmag_float_of(res))) return NULL; /* literals are finite */
    return fmag_module_const_bits(r->m, t, res);
}

fmag_value *spv_int(spv_reader *r, fmag_int_op op, fmag_value *x, fmag_value *y, fmag_value *z)
{
    fmag_value *c = spv_int_fold(r, op, x, y, z);
    return c ? c : fmag_build_int(B, op, x, y, z);
}

static fmag_value *I(spv_reader *r, uint32_t bits)
{
    return fmag_module_const_i32(r->m, bits);
}

static bool int_op(spv_reader *r, const spv_inst *in)
{
    fmag_int_op iop;
    if (!spv_int_iop(in->op, &iop)) return spv_error_op(r, "internal: not an integer opcode");
    bool unary = fmag_int_op_nops(iop) == 1;
    uint32_t n, na, nb = 0;
    if (!need(r, in, unary ? 4 : 5)) return false;
    fmag_value **a = operand(r, in, 3, &na), **b = NULL;
    if (!a) return false;
    if (!unary && !(b = operand(r, in, 4, &nb))) return false;
    if (!spv_type_is_int(r, otype(r, in, 3)) || (b && !spv_type_is_int(r, otype(r, in, 4))))
        return spv_error_op(r, "operands must be integers");
    bool cmp = fmag_int_op_is_compare(iop);
    if (cmp ? !spv_type_is_bool(r, in->w[1]) : !spv_type_is_int(r, in->w[1]))
        return spv_error_op(r, "the result type does not match the operation");
    fmag_value **out = result(r, in, &n);
    if (!out) return false;
    bool shift = iop == FMAG_IOP_SHL || iop == FMAG_IOP_LSHR || iop == FMAG_IOP_ASHR;
    if (na != n || (b && nb != n && !(shift && nb == 1)))
        return spv_error_op(r, "operand types differ from the result type");
    for (uint32_t j = 0; j < n; j++)
        out[j] = spv_int(r, iop, a[j], b ? b[nb == 1 ? 0 : j] : NULL, NULL);
    return true;
}

/* ------------------------------------------------------------ bit operations */

/* Set bits, by the classic SWAR reduction: pairs, nibbles, bytes, then the byte sums
 * gathered into the top byte by one multiplication (exact: each sum is below 256). */
fmag_value *spv_bit_count(spv_reader *r, fmag_value *x)
{
    fmag_value *t = spv_int(r, FMAG_IOP_AND, spv_int(r, FMAG_IOP_LSHR, x, I(r, 1), NULL),
                            I(r, 0x55555555u), NULL);
    x = spv_int(r, FMAG_IOP_SUB, x, t, NULL);
    x = spv_int(r, FMAG_IOP_ADD, spv_int(r, FMAG_IOP_AND, x, I(r, 0x33333333u), NULL),
                spv_int(r, FMAG_IOP_AND, spv_int(r, FMAG_IOP_LSHR, x, I(r, 2), NULL),
                        I(r, 0x33333333u), NULL),
                NULL);
    x = spv_int(r, FMAG_IOP_AND,
                spv_int(r, FMAG_IOP_ADD, x, spv_int(r, FMAG_IOP_LSHR, x, I(r, 4), NULL), NULL),
                I(r, 0x0F0F0F0Fu), NULL);
    return spv_int(r, FMAG_IOP_LSHR, spv_int(r, FMAG_IOP_MUL, x, I(r, 0x01010101u), NULL), I(r, 24),
                   NULL);
}

/* Bit reversal: swap halves of ever larger groups (1, 2, 4, 8 bits), then the bytes'
 * halves by shifting by 16. */
static fmag_value *bit_reverse(spv_reader *r, fmag_value *x)
{
    static const uint32_t mask[4] = {0x55555555u, 0x33333333u, 0x0F0F0F0Fu, 0x00FF00FFu};
    for (unsigned k = 0; k < 4; k++) {
        fmag_value *s = I(r, 1u << k);
        fmag_value *lo =
            spv_int(r, FMAG_IOP_AND, spv_int(r, FMAG_IOP_LSHR, x, s, NULL), I(r, mask[k]), NULL);
        fmag_value *hi =
            spv_int(r, FMAG_IOP_SHL, spv_int(r, FMAG_IOP_AND, x, I(r, mask[k]), NULL), s, NULL);
        x = spv_int(r, FMAG_IOP_OR, lo, hi, NULL);
    }
    return spv_int(r, FMAG_IOP_OR, spv_int(r, FMAG_IOP_LSHR, x, I(r, 16), NULL),
                   spv_int(r, FMAG_IOP_SHL, x, I(r, 16), NULL), NULL);
}

/* v when count != 0, else 0: a field of no bits is 0 (and the shifts by 32 - count
 * below would shift by 32, which the IR takes modulo 32). */
static fmag_value *unless_empty(spv_reader *r, fmag_value *v, fmag_value *count, fmag_value *zero)
{
    fmag_value *nonzero = spv_int(r, FMAG_IOP_NE, count, I(r, 0), NULL);
    return spv_int(r, FMAG_IOP_SELECT, v, zero, nonzero);
}

/* OpBitFieldSExtract/UExtract: bits [offset, offset + count) moved to the bottom, by
 * shifting them to the top and back (arithmetically for the signed form). SPIR-V
 * leaves offset + count > 32 undefined; this computes with the IR's shifts. */
static fmag_value *bit_extract(spv_reader *r, fmag_value *base, fmag_value *offset,
                               fmag_value *count, bool is_signed)
{
    fmag_value *up =
        spv_int(r, FMAG_IOP_SUB, spv_int(r, FMAG_IOP_SUB, I(r, 32), offset, NULL), count, NULL);
    fmag_value *down = spv_int(r, FMAG_IOP_SUB, I(r, 32), count, NULL);
    fmag_value *v = spv_int(r, is_signed ? FMAG_IOP_ASHR : FMAG_IOP_LSHR,
                            spv_int(r, FMAG_IOP_SHL, base, up, NULL), down, NULL);
    return unless_empty(r, v, count, I(r, 0));
}

/* OpBitFieldInsert: the low count bits of insert replace bits [offset, offset +
 * count) of base. */
static fmag_value *bit_insert(spv_reader *r, fmag_value *base, fmag_value *insert,
                              fmag_value *offset, fmag_value *count)
{
    fmag_value *ones = spv_int(r, FMAG_IOP_LSHR, I(r, 0xFFFFFFFFu),
                               spv_int(r, FMAG_IOP_SUB, I(r, 32), count, NULL), NULL);
    fmag_value *mask =
        unless_empty(r, spv_int(r, FMAG_IOP_SHL, ones, offset, NULL), count, I(r, 0));
    fmag_value *keep =
        spv_int(r, FMAG_IOP_AND, base, spv_int(r, FMAG_IOP_NOT, mask, NULL, NULL), NULL);
    fmag_value *put =
        spv_int(r, FMAG_IOP_AND, spv_int(r, FMAG_IOP_SHL, insert, offset, NULL), mask, NULL);
    return spv_int(r, FMAG_IOP_OR, keep, put, NULL);
}

static bool bit_op(spv_reader *r, const spv_inst *in)
{
    uint32_t nops = in->op == SpvOpBitFieldInsert                                        ? 4
                    : in->op == SpvOpBitFieldSExtract || in->op == SpvOpBitFieldUExtract ? 3
                                                                                         : 1;
    uint32_t n, na[4];
    fmag_value **a[4];
    if (!need(r, in, 3 + nops)) return false;
    for (uint32_t k = 0; k < nops; k++) {
        if (!(a[k] = operand(r, in, 3 + k, &na[k]))) return false;
        if (!spv_type_is_int(r, otype(r, in, 3 + k)))
            return spv_error_op(r, "operands must be integers");
    }
    if (!spv_type_is_int(r, in->w[1]))
        return spv_error_op(r, "the result type does not match the operation");
    fmag_value **out = result(r, in, &n);
    if (!out) return false;
    /* Base (and Insert) have the result's components; Offset and Count are scalars. */
    uint32_t nvec = in->op == SpvOpBitFieldInsert ? 2 : 1;
    for (uint32_t k = 0; k < nops; k++)
        if (k < nvec ? na[k] != n : na[k] != 1)
            return spv_error_op(r, "operand types do not match");
    for (uint32_t j = 0; j < n; j++) {
        switch (in->op) {
        case SpvOpBitCount:
            out[j] = spv_bit_count(r, a[0][j]);
            break;
        case SpvOpBitReverse:
            out[j] = bit_reverse(r, a[0][j]);
            break;
        case SpvOpBitFieldInsert:
            out[j] = bit_insert(r, a[0][j], a[1][j], a[2][0], a[3][0]);
            break;
        default:
            out[j] = bit_extract(r, a[0][j], a[1][0], a[2][0], in->op == SpvOpBitFieldSExtract);
            break;
        }
    }
    return true;
}

/* --------------------------------------------------------------- conversions */

/* OpBitcast of a scalar constant whose value no literal may hold (a float NaN or
 * infinity, refused where it is used) to an integer: from its literal, through
 * fmag_eval_int as everywhere. */
static bool bitcast_literal(spv_reader *r, const spv_inst *in)
{
    spv_id *c = &r->ids[in->w[3]];
    uint32_t n;
    if (!c->bad || !spv_type_is_float(r, c->type) || !spv_type_is_int(r, in->w[1])) return false;
    fmag_value **out = result(r, in, &n);
    if (!out) return true; /* the diagnostic is recorded; the caller sees r->failed */
    if (n != 1) return spv_error_op(r, "the operand and result sizes differ"), true;
    out[0] = I(r, fmag_eval_int(FMAG_IOP_F2I, c->lit, 0, 0));
    return true;
}

static bool convert(spv_reader *r, const spv_inst *in)
{
    uint32_t n, na;
    if (!need(r, in, 4)) return false;
    if (in->op == SpvOpBitcast && in->w[3] < r->bound && r->ids[in->w[3]].kind == ID_CONST &&
        r->ids[in->w[3]].has_lit && bitcast_literal(r, in))
        return !r->failed;
    fmag_value **a = operand(r, in, 3, &na);
    if (!a) return false;
    uint32_t from = otype(r, in, 3), to = in->w[1];
    fmag_value **out = result(r, in, &n);
    if (!out) return false;
    if (n != na) return spv_error_op(r, "the operand and result sizes differ");
    bool from_int = spv_type_is_int(r, from), to_int = spv_type_is_int(r, to);
    fmag_int_op iop = FMAG_IOP_COUNT;
    switch (in->op) {
    case SpvOpConvertSToF:
    case SpvOpConvertUToF:
        if (!from_int || !spv_type_is_float(r, to))
            return spv_error_op(r, "converts something other than an integer to a float");
        spv_int_iop(in->op, &iop);
        break;
    case SpvOpConvertFToS:
    case SpvOpConvertFToU:
        if (!spv_type_is_float(r, from) || !to_int)
            return spv_error_op(r, "converts something other than a float to an integer");
        spv_int_iop(in->op, &iop);
        break;
    case SpvOpSConvert:
    case SpvOpUConvert: /* between 32-bit integer types (the only width): the bits */
        if (!from_int || !to_int) return spv_error_op(r, "operands must be integers");
        break;
    case SpvOpFConvert:
        if (!spv_type_is_float(r, from) || !spv_type_is_float(r, to))
            return spv_error_op(r, "operands must be floats");
        break;
    case SpvOpBitcast:
        /* int <-> uint: the same bits; float <-> integer: the IR's bit casts (the
         * f32 -> i32 cast sees -0.0 as 0 and every NaN as 0x7FC00000: SPEC §2b). */
        if (spv_type_is_bool(r, from) || spv_type_is_bool(r, to) ||
            (!from_int && !spv_type_is_float(r, from)) || (!to_int && !spv_type_is_float(r, to)))
            return spv_error_op(r, "reinterprets something other than 32-bit scalars");
        if (from_int != to_int) iop = from_int ? FMAG_IOP_I2F : FMAG_IOP_F2I;
        break;
    default:
        return spv_error_op(r, "internal: not a conversion");
    }
    for (uint32_t j = 0; j < n; j++)
        out[j] = iop == FMAG_IOP_COUNT ? a[j] : spv_int(r, iop, a[j], NULL, NULL);
    return true;
}

/* ---------------------------------------------------------------- derivatives */

/* OpDPdx ... OpFwidthCoarse (dFdx, ddy_fine, fwidth ...): calls that -derivatives
 * replaces by forward-mode derivatives (docs/Derivatives.md); Fine and Coarse are
 * the same exact derivative here. */
static bool derivative(spv_reader *r, const spv_inst *in)
{
    uint32_t n;
    fmag_value **a, **out;
    if (!unary_operands(r, in, &a, &out, &n)) return false;
    uint32_t op = in->op;
    bool x = op == SpvOpDPdx || op == SpvOpDPdxFine || op == SpvOpDPdxCoarse;
    bool y = op == SpvOpDPdy || op == SpvOpDPdyFine || op == SpvOpDPdyCoarse;
    for (uint32_t j = 0; j < n; j++)
        out[j] = x   ? fmag_build_dfdx(B, a[j])
                 : y ? fmag_build_dfdy(B, a[j])
                     : fmag_build_fwidth(B, a[j]);
    return true;
}

bool spv_uses_derivatives(const uint32_t *words, size_t nwords)
{
    for (size_t i = 5; i < nwords;) {
        uint32_t wc = words[i] >> 16, op = words[i] & 0xFFFFu;
        if (op >= SpvOpDPdx && op <= SpvOpFwidthCoarse) return true;
        if (!wc) break;
        i += wc;
    }
    return false;
}

/* ------------------------------------------------------------------ dispatch */

static bool unsupported(spv_reader *r, const spv_inst *in)
{
    uint32_t op = in->op;
    if ((op >= SpvOpSampledImage && op <= SpvOpImageWrite) ||
        (op >= SpvOpImageSparseSampleImplicitLod && op <= SpvOpImageSparseRead) ||
        op == SpvOpImage || op == SpvOpImageQueryFormat || op == SpvOpImageQueryOrder ||
        (op >= SpvOpImageQuerySizeLod && op <= SpvOpImageQuerySamples))
        return spv_error_feature(
            r,
            "texture sampling and image access (texture(), texelFetch(), imageLoad()) is not "
            "supported",
            "texture sampling and image access (Sample(), Load(), GetDimensions()) is not "
            "supported",
            "texture and image access is not supported");
    if (op >= SpvOpAtomicLoad && op <= SpvOpAtomicXor)
        return spv_error_feature(r, "atomic operations are not supported",
                                 "atomic operations (Interlocked*) are not supported",
                                 "atomics are not supported");
    if (op == SpvOpControlBarrier || op == SpvOpMemoryBarrier)
        return spv_error_feature(r, "barriers (barrier(), memoryBarrier()) are not supported",
                                 "barriers (GroupMemoryBarrier() ...) are not supported",
                                 "barriers are not supported");
    if (op == SpvOpEmitVertex || op == SpvOpEndPrimitive || op == SpvOpEmitStreamVertex ||
        op == SpvOpEndStreamPrimitive)
        return spv_error_feature(r, "geometry shader output (EmitVertex()) is not supported",
                                 "geometry shader output (Append()) is not supported",
                                 "geometry shader output is not supported");
    if (op >= SpvOpGroupNonUniformElect && op <= SpvOpGroupNonUniformQuadSwap)
        return spv_error_feature(r, "subgroup operations (subgroup*()) are not supported",
                                 "wave operations (Wave*()) are not supported",
                                 "subgroup operations are not supported");
    if (op == SpvOpDemoteToHelperInvocation || op == SpvOpKill || op == SpvOpTerminateInvocation)
        return spv_error_feature(r, "discard is not supported",
                                 "discard and clip() are not supported",
                                 "discarding a fragment is not supported");
    if (op == SpvOpPtrAccessChain || op == SpvOpArrayLength)
        return spv_error_feature(r, "runtime-sized arrays (.length()) are not supported",
                                 "runtime-sized buffers are not supported",
                                 "pointer arithmetic and runtime arrays are not supported");
    return spv_error_feature(r, "this operation is not supported",
                             "this operation is not supported", "is not supported");
}

bool spv_translate_op(spv_reader *r, const spv_inst *in)
{
    switch (in->op) {
    case SpvOpUndef: {
        uint32_t n;
        fmag_value **out = need(r, in, 3) ? result(r, in, &n) : NULL;
        if (!out) return false;
        for (uint32_t j = 0; j < n; j++)
            out[j] = spv_zero(r, spv_leaf_type(r, in->w[1], j));
        return true;
    }
    case SpvOpFAdd:
        return binary(r, in, f_add);
    case SpvOpFSub:
        return binary(r, in, f_sub);
    case SpvOpFMul:
        return binary(r, in, f_mul);
    case SpvOpFDiv:
        return binary(r, in, f_div);
    case SpvOpFMod:
        return binary(r, in, f_mod);
    case SpvOpFRem:
        return binary(r, in, f_rem);
    case SpvOpDPdx:
    case SpvOpDPdy:
    case SpvOpFwidth:
    case SpvOpDPdxFine:
    case SpvOpDPdyFine:
    case SpvOpFwidthFine:
    case SpvOpDPdxCoarse:
    case SpvOpDPdyCoarse:
    case SpvOpFwidthCoarse:
        return derivative(r, in);
    case SpvOpFNegate:
    case SpvOpLogicalNot:
        return negate(r, in);
    case SpvOpFOrdEqual:
    case SpvOpFUnordEqual:
        return binary(r, in, f_eq);
    case SpvOpFOrdNotEqual:
    case SpvOpFUnordNotEqual:
        return binary(r, in, f_ne);
    case SpvOpFOrdLessThan:
    case SpvOpFUnordLessThan:
        return binary(r, in, f_lt);
    case SpvOpFOrdGreaterThan:
    case SpvOpFUnordGreaterThan:
        return binary(r, in, f_gt);
    case SpvOpFOrdLessThanEqual:
    case SpvOpFUnordLessThanEqual:
        return binary(r, in, f_le);
    case SpvOpFOrdGreaterThanEqual:
    case SpvOpFUnordGreaterThanEqual:
        return binary(r, in, f_ge);
    case SpvOpLogicalAnd:
        return binary(r, in, b_and);
    case SpvOpLogicalOr:
        return binary(r, in, b_or);
    case SpvOpLogicalEqual:
        return binary(r, in, b_eqv);
    case SpvOpLogicalNotEqual:
        return binary(r, in, b_xor);
    case SpvOpSelect:
        return select_op(r, in);
    case SpvOpAny:
    case SpvOpAll:
        return any_all(r, in);
    case SpvOpIsNan:
    case SpvOpIsInf:
    case SpvOpIsFinite:
        return class_op(r, in);
    case SpvOpVectorTimesScalar:
    case SpvOpMatrixTimesScalar:
    case SpvOpMatrixTimesVector:
    case SpvOpVectorTimesMatrix:
    case SpvOpMatrixTimesMatrix:
    case SpvOpOuterProduct:
    case SpvOpTranspose:
    case SpvOpDot:
        return linalg(r, in);
    case SpvOpCompositeConstruct:
    case SpvOpCompositeExtract:
    case SpvOpCompositeInsert:
    case SpvOpCopyObject:
    case SpvOpCopyLogical:
    case SpvOpVectorShuffle:
        return composite(r, in);
    case SpvOpVectorExtractDynamic:
    case SpvOpVectorInsertDynamic:
        return dynamic_vec(r, in);
    case SpvOpIAdd:
    case SpvOpISub:
    case SpvOpIMul:
    case SpvOpSNegate:
    case SpvOpUDiv:
    case SpvOpSDiv:
    case SpvOpUMod:
    case SpvOpSRem:
    case SpvOpSMod:
    case SpvOpShiftRightLogical:
    case SpvOpShiftRightArithmetic:
    case SpvOpShiftLeftLogical:
    case SpvOpBitwiseOr:
    case SpvOpBitwiseXor:
    case SpvOpBitwiseAnd:
    case SpvOpNot:
    case SpvOpIEqual:
    case SpvOpINotEqual:
    case SpvOpUGreaterThan:
    case SpvOpSGreaterThan:
    case SpvOpUGreaterThanEqual:
    case SpvOpSGreaterThanEqual:
    case SpvOpULessThan:
    case SpvOpSLessThan:
    case SpvOpULessThanEqual:
    case SpvOpSLessThanEqual:
        return int_op(r, in);
    case SpvOpBitCount:
    case SpvOpBitReverse:
    case SpvOpBitFieldInsert:
    case SpvOpBitFieldSExtract:
    case SpvOpBitFieldUExtract:
        return bit_op(r, in);
    case SpvOpConvertFToU:
    case SpvOpConvertFToS:
    case SpvOpConvertSToF:
    case SpvOpConvertUToF:
    case SpvOpUConvert:
    case SpvOpSConvert:
    case SpvOpFConvert:
    case SpvOpBitcast:
        return convert(r, in);
    case SpvOpExtInst: {
        if (!need(r, in, 5)) return false;
        spv_id *set = in->w[3] < r->bound ? &r->ids[in->w[3]] : NULL;
        if (!set || set->kind != ID_EXTIMPORT)
            return spv_error_op(r, "not an extended instruction set");
        if (set->ext == 2) return true; /* NonSemantic: debug information, no value */
        if (set->ext == 1) return spv_translate_glsl450(r, in);
        return spv_error_op(r, "extended instruction set is not supported");
    }
    default:
        return unsupported(r, in);
    }
}
