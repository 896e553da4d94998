/* GLSL.std.450 extended instructions. The float component-wise ones go through the
 * math library's builtin table by name (so a builtin the library gains is picked up
 * here without a change); the geometric ones through the vector builders of Math.h;
 * the integer ones (SAbs ... FindUMsb) and the packing ones expand into the IR's i32
 * operations. What the library does not have yet is a diagnostic that names the
 * instruction. */
#include <string.h>
#include "SPIRVInternal.h"

#define B (&r->b)

typedef struct glsl_op {
    uint32_t op;
    const char *name;    /* instruction name, for diagnostics */
    const char *builtin; /* math table name for component-wise ones, or NULL */
    unsigned nargs;
} glsl_op;

/* Component-wise float instructions and the math builtin computing them. */
static const glsl_op cwise[] = {
    {GLSLstd450Round, "Round", "round", 1},
    {GLSLstd450RoundEven, "RoundEven", "round", 1},
    {GLSLstd450Trunc, "Trunc", "trunc", 1},
    {GLSLstd450FAbs, "FAbs", "abs", 1},
    {GLSLstd450FSign, "FSign", "sign", 1},
    {GLSLstd450Floor, "Floor", "floor", 1},
    {GLSLstd450Ceil, "Ceil", "ceil", 1},
    {GLSLstd450Fract, "Fract", "fract", 1},
    {GLSLstd450Radians, "Radians", "radians", 1},
    {GLSLstd450Degrees, "Degrees", "degrees", 1},
    {GLSLstd450Sin, "Sin", "sin", 1},
    {GLSLstd450Cos, "Cos", "cos", 1},
    {GLSLstd450Tan, "Tan", "tan", 1},
    {GLSLstd450Asin, "Asin", "asin", 1},
    {GLSLstd450Acos, "Acos", "acos", 1},
    {GLSLstd450Atan, "Atan", "atan", 1},
    {GLSLstd450Sinh, "Sinh", "sinh", 1},
    {GLSLstd450Cosh, "Cosh", "cosh", 1},
    {GLSLstd450Tanh, "Tanh", "tanh", 1},
    {GLSLstd450Asinh, "Asinh", "asinh", 1},
    {GLSLstd450Acosh, "Acosh", "acosh", 1},
    {GLSLstd450Atanh, "Atanh", "atanh", 1},
    {GLSLstd450Atan2, "Atan2", "atan2", 2},
    {GLSLstd450Pow, "Pow", "pow", 2},
    {GLSLstd450Exp, "Exp", "exp", 1},
    {GLSLstd450Log, "Log", "log", 1},
    {GLSLstd450Exp2, "Exp2", "exp2", 1},
    {GLSLstd450Log2, "Log2", "log2", 1},
    {GLSLstd450Sqrt, "Sqrt", "sqrt", 1},
    {GLSLstd450InverseSqrt, "InverseSqrt", "inversesqrt", 1},
    {GLSLstd450FMin, "FMin", "min", 2},
    {GLSLstd450FMax, "FMax", "max", 2},
    {GLSLstd450FClamp, "FClamp", "clamp", 3},
    {GLSLstd450FMix, "FMix", "mix", 3},
    {GLSLstd450Step, "Step", "step", 2},
    {GLSLstd450SmoothStep, "SmoothStep", "smoothstep", 3},
    {GLSLstd450Fma, "Fma", "fma", 3},
    {GLSLstd450NMin, "NMin", "min", 2},
    {GLSLstd450NMax, "NMax", "max", 2},
    {GLSLstd450NClamp, "NClamp", "clamp", 3},
};

/* The rest, by name (for the diagnostics too). */
static const glsl_op others[] = {
    {GLSLstd450Modf, "Modf", NULL, 2},
    {GLSLstd450ModfStruct, "ModfStruct", NULL, 1},
    {GLSLstd450IMix, "IMix", NULL, 3},
    {GLSLstd450Determinant, "Determinant", NULL, 1},
    {GLSLstd450MatrixInverse, "MatrixInverse", NULL, 1},
    {GLSLstd450Frexp, "Frexp", NULL, 2},
    {GLSLstd450FrexpStruct, "FrexpStruct", NULL, 1},
    {GLSLstd450Ldexp, "Ldexp", NULL, 2},
    {GLSLstd450PackSnorm4x8, "PackSnorm4x8", NULL, 1},
    {GLSLstd450PackUnorm4x8, "PackUnorm4x8", NULL, 1},
    {GLSLstd450PackSnorm2x16, "PackSnorm2x16", NULL, 1},
    {GLSLstd450PackUnorm2x16, "PackUnorm2x16", NULL, 1},
    {GLSLstd450PackHalf2x16, "PackHalf2x16", NULL, 1},
    {GLSLstd450PackDouble2x32, "PackDouble2x32", NULL, 1},
    {GLSLstd450UnpackSnorm2x16, "UnpackSnorm2x16", NULL, 1},
    {GLSLstd450UnpackUnorm2x16, "UnpackUnorm2x16", NULL, 1},
    {GLSLstd450UnpackHalf2x16, "UnpackHalf2x16", NULL, 1},
    {GLSLstd450UnpackSnorm4x8, "UnpackSnorm4x8", NULL, 1},
    {GLSLstd450UnpackUnorm4x8, "UnpackUnorm4x8", NULL, 1},
    {GLSLstd450UnpackDouble2x32, "UnpackDouble2x32", NULL, 1},
    {GLSLstd450Length, "Length", NULL, 1},
    {GLSLstd450Distance, "Distance", NULL, 2},
    {GLSLstd450Cross, "Cross", NULL, 2},
    {GLSLstd450Normalize, "Normalize", NULL, 1},
    {GLSLstd450FaceForward, "FaceForward", NULL, 3},
    {GLSLstd450Reflect, "Reflect", NULL, 2},
    {GLSLstd450Refract, "Refract", NULL, 3},
    {GLSLstd450FindILsb, "FindILsb", NULL, 1},
    {GLSLstd450FindSMsb, "FindSMsb", NULL, 1},
    {GLSLstd450FindUMsb, "FindUMsb", NULL, 1},
    {GLSLstd450SAbs, "SAbs", NULL, 1},
    {GLSLstd450SSign, "SSign", NULL, 1},
    {GLSLstd450UMin, "UMin", NULL, 2},
    {GLSLstd450SMin, "SMin", NULL, 2},
    {GLSLstd450UMax, "UMax", NULL, 2},
    {GLSLstd450SMax, "SMax", NULL, 2},
    {GLSLstd450UClamp, "UClamp", NULL, 3},
    {GLSLstd450SClamp, "SClamp", NULL, 3},
    {GLSLstd450InterpolateAtCentroid, "InterpolateAtCentroid", NULL, 1},
    {GLSLstd450InterpolateAtSample, "InterpolateAtSample", NULL, 2},
    {GLSLstd450InterpolateAtOffset, "InterpolateAtOffset", NULL, 2},
};

static const glsl_op *find(const glsl_op *t, size_t n, uint32_t op)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].op == op) return &t[i];
    return NULL;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The instruction's g->nargs operands (after the set and the instruction number). */
static bool operands(spv_reader *r, const spv_inst *in, const glsl_op *g, fmag_value **a[3],
                     uint32_t na[3])
{
    if (in->nw != 5 + g->nargs)
        return spv_error_op(r, "GLSL.std.450 %s takes %u operands", g->name, g->nargs);
    for (unsigned k = 0; k < g->nargs; k++)
        if (!(a[k] = spv_get_value(r, in->w[5 + k], &na[k]))) return false;
    return true;
}

/* Builtins FMAG writes itself: one instruction or a multiplication. */
static fmag_value *own_builtin(spv_reader *r, uint32_t op, fmag_value **x)
{
    switch (op) {
    case GLSLstd450Fma:
        return fmag_build_fma(B, x[0], x[1], x[2]);
    default:
        return NULL;
    }
}

static bool componentwise(spv_reader *r, const spv_inst *in, const glsl_op *g)
{
    uint32_t n, na[3];
    fmag_value **a[3];
    if (!operands(r, in, g, a, na)) return false;
    const fmag_math_builtin *mb = fmag_math_builtin_lookup(g->builtin);
    bool own = g->op == GLSLstd450Fma;
    if (!own && (!mb || mb->nargs != g->nargs)) {
        if (g->op == GLSLstd450Radians || g->op == GLSLstd450Degrees) {
            mb = NULL; /* a multiplication by a constant below */
        } else {
            return spv_error_op(r,
                                "GLSL.std.450 %s is not supported yet (the math library has "
                                "no '%s')",
                                g->name, g->builtin);
        }
    }
    fmag_value **out = spv_new_value(r, in->w[2], in->w[1], &n);
    if (!out) return false;
    for (unsigned k = 0; k < g->nargs; k++)
        if (na[k] != n && na[k] != 1) return spv_error_op(r, "operand types do not match");
    for (uint32_t j = 0; j < n; j++) {
        fmag_value *x[3];
        for (unsigned k = 0; k < g->nargs; k++)
            x[k] = a[k][na[k] == 1 ? 0 : j];
        if (g->op == GLSLstd450Ldexp && x[1]->type == FMAG_TYPE_I32) /* the int exponent */
            x[1] = spv_int(r, FMAG_IOP_SITOFP, x[1], NULL, NULL);
        if (own) {
            out[j] = own_builtin(r, g->op, x);
        } else if (!mb) {
            float c = g->op == GLSLstd450Radians ? 0.0174532925199432958f : 57.295779513082320877f;
            out[j] = fmag_build_mul(B, x[0], fmag_module_const(r->m, c));
        } else if (g->nargs == 1) {
            out[j] = mb->fn1(B, x[0], r->fast);
        } else if (g->nargs == 2) {
            out[j] = mb->fn2(B, x[0], x[1], r->fast);
        } else {
            out[j] = mb->fn3(B, x[0], x[1], x[2], r->fast);
        }
    }
    return true;
}

/* Rows and columns of a matrix type. */
static bool mat_shape(spv_reader *r, uint32_t type, uint32_t *rows, uint32_t *cols)
{
    spv_type *t = spv_type_get(r, type);
    spv_type *c = t && t->kind == TY_MATRIX ? spv_type_get(r, t->elem) : NULL;
    if (!c) return false;
    *rows = c->count;
    *cols = t->count;
    return true;
}

static bool matrix_op(spv_reader *r, const spv_inst *in, const glsl_op *g)
{
    uint32_t n, na, rows, cols;
    if (in->nw != 6) return spv_error_op(r, "GLSL.std.450 %s takes 1 operand", g->name);
    fmag_value **a = spv_get_value(r, in->w[5], &na);
    if (!a) return false;
    if (!mat_shape(r, r->ids[in->w[5]].type, &rows, &cols) || rows != cols || na != rows * cols)
        return spv_error_op(r, "GLSL.std.450 %s wants a square matrix", g->name);
    fmag_value **out = spv_new_value(r, in->w[2], in->w[1], &n);
    if (!out) return false;
    if (g->op == GLSLstd450Determinant) {
        if (n != 1) return spv_error_op(r, "the result type is not a scalar");
        out[0] = fmag_build_determinant(B, a, rows, r->fast);
    } else {
        if (n != na) return spv_error_op(r, "the result type differs from the operand");
        fmag_build_inverse(B, a, rows, out, r->fast);
    }
    return true;
}

/* Modf/Frexp (the second result through a pointer) and their Struct forms. */
static bool split_op(spv_reader *r, const spv_inst *in, const glsl_op *g)
{
    bool is_struct = g->op == GLSLstd450ModfStruct || g->op == GLSLstd450FrexpStruct;
    bool is_modf = g->op == GLSLstd450Modf || g->op == GLSLstd450ModfStruct;
    uint32_t n, na;
    if (in->nw != (is_struct ? 6u : 7u))
        return spv_error_op(r, "GLSL.std.450 %s takes %u operands", g->name, is_struct ? 1 : 2);
    fmag_value **a = spv_get_value(r, in->w[5], &na);
    if (!a) return false;
    fmag_value **out = spv_new_value(r, in->w[2], in->w[1], &n);
    if (!out) return false;
    if (n != (is_struct ? 2 * na : na)) return spv_error_op(r, "the result type does not match");
    fmag_value **second = is_struct ? out + na : fmag_context_alloc(r->ctx, na * sizeof *second);
    for (uint32_t j = 0; j < na; j++) {
        out[j] = is_modf ? fmag_build_modf(B, a[j], &second[j], r->fast)
                         : fmag_build_frexp(B, a[j], &second[j], r->fast);
        if (!is_modf) /* the exponent, an integer-valued float, as the int it is */
            second[j] = spv_int(r, FMAG_IOP_FPTOSI, second[j], NULL, NULL);
    }
    return is_struct || spv_store_to(r, in->w[6], second, na);
}

static bool vector3(spv_reader *r, const spv_inst *in, const glsl_op *g)
{
    uint32_t n, na[3];
    fmag_value **a[3];
    if (!operands(r, in, g, a, na)) return false;
    fmag_value **out = spv_new_value(r, in->w[2], in->w[1], &n);
    if (!out) return false;
    if (n < 1 || n > 4 || na[0] != n || na[1] != n)
        return spv_error_op(r, "operand types do not match");
    switch (g->op) {
    case GLSLstd450Reflect:
        fmag_build_reflect(B, a[0], a[1], n, out, r->fast);
        return true;
    case GLSLstd450Refract:
        if (na[2] != 1) return spv_error_op(r, "eta must be a scalar");
        fmag_build_refract(B, a[0], a[1], a[2][0], n, out, r->fast);
        return true;
    case GLSLstd450FaceForward:
        if (na[2] != n) return spv_error_op(r, "operand types do not match");
        fmag_build_faceforward(B, a[0], a[1], a[2], n, out, r->fast);
        return true;
    default:
        return spv_error_op(r, "internal: not a geometric instruction");
    }
}

static bool geometric(spv_reader *r, const spv_inst *in, const glsl_op *g)
{
    uint32_t n, na[3];
    fmag_value **a[3];
    if (!operands(r, in, g, a, na)) return false;
    fmag_value **out = spv_new_value(r, in->w[2], in->w[1], &n);
    if (!out) return false;
    uint32_t m = na[0];
    if (m < 1 || m > 4) return spv_error_op(r, "operand types do not match");
    for (unsigned k = 1; k < g->nargs; k++)
        if (na[k] != m) return spv_error_op(r, "operand types do not match");
    switch (g->op) {
    case GLSLstd450Length:
        if (n != 1) return spv_error_op(r, "operand types do not match");
        out[0] = fmag_build_length(B, a[0], m, r->fast);
        return true;
    case GLSLstd450Distance:
        if (n != 1) return spv_error_op(r, "operand types do not match");
        out[0] = fmag_build_distance(B, a[0], a[1], m, r->fast);
        return true;
    case GLSLstd450Normalize:
        if (n != m) return spv_error_op(r, "operand types do not match");
        fmag_build_normalize(B, a[0], m, out, r->fast);
        return true;
    case GLSLstd450Cross:
        if (n != 3 || m != 3) return spv_error_op(r, "operand types do not match");
        fmag_build_cross(B, a[0], a[1], out, r->fast);
        return true;
    default:
        return spv_error_op(r, "internal: not a geometric instruction");
    }
}

/* ------------------------------------------------------------------ integers */

static fmag_value *ic(spv_reader *r, uint32_t bits)
{
    return fmag_module_const_i32(r->m, bits);
}
static fmag_value *i1(spv_reader *r, fmag_int_op op, fmag_value *x)
{
    return spv_int(r, op, x, NULL, NULL);
}
static fmag_value *i2(spv_reader *r, fmag_int_op op, fmag_value *x, fmag_value *y)
{
    return spv_int(r, op, x, y, NULL);
}
/* g > 0 ? t : f on integers (g a comparison's 1.0 / 0.0). */
static fmag_value *isel(spv_reader *r, fmag_value *t, fmag_value *f, fmag_value *g)
{
    return spv_int(r, FMAG_IOP_SELECT, t, f, g);
}

/* The most significant set bit: every bit below the top one set, counted, minus one;
 * 0 has none and gives -1 with no special case. */
static fmag_value *find_umsb(spv_reader *r, fmag_value *x)
{
    for (uint32_t s = 1; s <= 16; s *= 2)
        x = i2(r, FMAG_IOP_OR, x, i2(r, FMAG_IOP_LSHR, x, ic(r, s)));
    return i2(r, FMAG_IOP_SUB, spv_bit_count(r, x), ic(r, 1));
}

static fmag_value *int_builtin(spv_reader *r, uint32_t op, fmag_value **x)
{
    switch (op) {
    case GLSLstd450SAbs: /* |INT_MIN| is INT_MIN, as on every GPU */
        return isel(r, i1(r, FMAG_IOP_NEG, x[0]), x[0], i2(r, FMAG_IOP_SLT, x[0], ic(r, 0)));
    case GLSLstd450SSign:
        return isel(r, ic(r, 1),
                    isel(r, ic(r, 0xFFFFFFFFu), ic(r, 0), i2(r, FMAG_IOP_SLT, x[0], ic(r, 0))),
                    i2(r, FMAG_IOP_SGT, x[0], ic(r, 0)));
    case GLSLstd450SMin:
        return isel(r, x[0], x[1], i2(r, FMAG_IOP_SLT, x[0], x[1]));
    case GLSLstd450UMin:
        return isel(r, x[0], x[1], i2(r, FMAG_IOP_ULT, x[0], x[1]));
    case GLSLstd450SMax:
        return isel(r, x[0], x[1], i2(r, FMAG_IOP_SGT, x[0], x[1]));
    case GLSLstd450UMax:
        return isel(r, x[0], x[1], i2(r, FMAG_IOP_UGT, x[0], x[1]));
    case GLSLstd450SClamp: { /* min(max(x, lo), hi), as GLSL defines it */
        fmag_value *m = isel(r, x[0], x[1], i2(r, FMAG_IOP_SGT, x[0], x[1]));
        return isel(r, m, x[2], i2(r, FMAG_IOP_SLT, m, x[2]));
    }
    case GLSLstd450UClamp: {
        fmag_value *m = isel(r, x[0], x[1], i2(r, FMAG_IOP_UGT, x[0], x[1]));
        return isel(r, m, x[2], i2(r, FMAG_IOP_ULT, m, x[2]));
    }
    case GLSLstd450FindUMsb:
        return find_umsb(r, x[0]);
    case GLSLstd450FindSMsb: /* a negative x's highest 0 bit: the msb of ~x */
        return find_umsb(r, i2(r, FMAG_IOP_XOR, x[0], i2(r, FMAG_IOP_ASHR, x[0], ic(r, 31))));
    case GLSLstd450FindILsb: { /* ~x & (x - 1): ones exactly at the trailing zeros */
        fmag_value *t =
            i2(r, FMAG_IOP_AND, i1(r, FMAG_IOP_NOT, x[0]), i2(r, FMAG_IOP_SUB, x[0], ic(r, 1)));
        return isel(r, ic(r, 0xFFFFFFFFu), spv_bit_count(r, t), i2(r, FMAG_IOP_EQ, x[0], ic(r, 0)));
    }
    default:
        return NULL;
    }
}

static bool int_componentwise(spv_reader *r, const spv_inst *in, const glsl_op *g)
{
    uint32_t n, na[3];
    fmag_value **a[3];
    if (!operands(r, in, g, a, na)) return false;
    for (unsigned k = 0; k < g->nargs; k++) {
        if (!spv_type_is_int(r, r->ids[in->w[5 + k]].type))
            return spv_error_op(r, "GLSL.std.450 %s takes integers", g->name);
    }
    if (!spv_type_is_int(r, in->w[1]))
        return spv_error_op(r, "GLSL.std.450 %s gives an integer", g->name);
    fmag_value **out = spv_new_value(r, in->w[2], in->w[1], &n);
    if (!out) return false;
    for (unsigned k = 0; k < g->nargs; k++)
        if (na[k] != n) return spv_error_op(r, "operand types do not match");
    for (uint32_t j = 0; j < n; j++) {
        fmag_value *x[3];
        for (unsigned k = 0; k < g->nargs; k++)
            x[k] = a[k][j];
        out[j] = int_builtin(r, g->op, x);
    }
    return true;
}

/* ------------------------------------------------------------------- packing
 *
 * The GLSL 4.60 definitions (§8.4), exactly: packUnorm is round(clamp(c, 0, 1) *
 * (2^n - 1)), packSnorm round(clamp(c, -1, 1) * (2^(n-1) - 1)), with round half to
 * even as Mesa does; unpackUnorm is f / (2^n - 1), unpackSnorm clamp(f / (2^(n-1) -
 * 1), -1, 1); component 0 in the lowest bits. */

typedef struct pack_format {
    unsigned bits;  /* per component: 8 or 16 */
    bool is_signed; /* snorm */
} pack_format;

static fmag_value *fk(spv_reader *r, float f)
{
    return fmag_module_const(r->m, f);
}

static fmag_value *pack_norm(spv_reader *r, fmag_value **v, unsigned n, pack_format f)
{
    float scale = (float)((1u << (f.bits - (f.is_signed ? 1 : 0))) - 1);
    uint32_t mask = (1u << f.bits) - 1;
    fmag_value *acc = ic(r, 0);
    for (unsigned k = 0; k < n; k++) {
        fmag_value *c =
            fmag_build_clamp(B, v[k], fk(r, f.is_signed ? -1.0f : 0.0f), r->one, r->fast);
        c = fmag_build_round(B, fmag_build_mul(B, c, fk(r, scale)), r->fast);
        fmag_value *q = i1(r, f.is_signed ? FMAG_IOP_FPTOSI : FMAG_IOP_FPTOUI, c);
        q = i2(r, FMAG_IOP_SHL, i2(r, FMAG_IOP_AND, q, ic(r, mask)), ic(r, k * f.bits));
        acc = i2(r, FMAG_IOP_OR, acc, q);
    }
    return acc;
}

static void unpack_norm(spv_reader *r, fmag_value *p, unsigned n, pack_format f, fmag_value **out)
{
    float scale = (float)((1u << (f.bits - (f.is_signed ? 1 : 0))) - 1);
    for (unsigned k = 0; k < n; k++) {
        fmag_value *q;
        if (f.is_signed) /* the field to the top, then arithmetically back: sign-extended */
            q = i2(r, FMAG_IOP_ASHR, i2(r, FMAG_IOP_SHL, p, ic(r, 32 - (k + 1) * f.bits)),
                   ic(r, 32 - f.bits));
        else
            q = i2(r, FMAG_IOP_AND, i2(r, FMAG_IOP_LSHR, p, ic(r, k * f.bits)),
                   ic(r, (1u << f.bits) - 1));
        fmag_value *x = fmag_build_div(B, i1(r, f.is_signed ? FMAG_IOP_SITOFP : FMAG_IOP_UITOFP, q),
                                       fk(r, scale), r->fast);
        out[k] = f.is_signed ? fmag_build_clamp(B, x, fk(r, -1.0f), r->one, r->fast) : x;
    }
}

/* A float to the bits of the nearest half (ties to even): from the float's bits, so
 * that no float step can overflow. Magnitudes from 65520 up (the tie above the
 * largest half, 65504, whose last bit is odd) are infinity; a NaN is 0x7E00; below
 * 2^-14 the half is denormal: the significand with its implicit bit shifted right by
 * 126 - exponent, rounded. The IR's bit cast sees -0.0 as +0.0 (SPEC §2b). */
static fmag_value *half_of(spv_reader *r, fmag_value *x)
{
    fmag_value *u = i1(r, FMAG_IOP_F2I, x);
    fmag_value *sign = i2(r, FMAG_IOP_AND, i2(r, FMAG_IOP_LSHR, u, ic(r, 16)), ic(r, 0x8000u));
    fmag_value *a = i2(r, FMAG_IOP_AND, u, ic(r, 0x7FFFFFFFu));
    /* Normal: rebias the exponent (127 -> 15), then round off 13 bits: add half an
     * ulp less one, plus the kept part's last bit (a carry runs into the exponent). */
    fmag_value *m = i2(r, FMAG_IOP_SUB, a, ic(r, 0x38000000u));
    fmag_value *odd = i2(r, FMAG_IOP_AND, i2(r, FMAG_IOP_LSHR, m, ic(r, 13)), ic(r, 1));
    fmag_value *hn = i2(r, FMAG_IOP_LSHR,
                        i2(r, FMAG_IOP_ADD, i2(r, FMAG_IOP_ADD, m, ic(r, 0xFFFu)), odd), ic(r, 13));
    /* Denormal: the same rounding by a shift of 126 - e, at most 31 (the result is 0
     * from 25 on, as the significand is below 2^24). */
    fmag_value *e = i2(r, FMAG_IOP_LSHR, a, ic(r, 23));
    fmag_value *sh = i2(r, FMAG_IOP_SUB, ic(r, 126), e);
    sh = isel(r, sh, ic(r, 31), i2(r, FMAG_IOP_ULT, sh, ic(r, 31)));
    fmag_value *sig =
        i2(r, FMAG_IOP_OR, i2(r, FMAG_IOP_AND, a, ic(r, 0x7FFFFFu)), ic(r, 0x800000u));
    fmag_value *halfm1 =
        i2(r, FMAG_IOP_SUB, i2(r, FMAG_IOP_SHL, ic(r, 1), i2(r, FMAG_IOP_SUB, sh, ic(r, 1))),
           ic(r, 1));
    fmag_value *dodd = i2(r, FMAG_IOP_AND, i2(r, FMAG_IOP_LSHR, sig, sh), ic(r, 1));
    fmag_value *hd =
        i2(r, FMAG_IOP_LSHR, i2(r, FMAG_IOP_ADD, i2(r, FMAG_IOP_ADD, sig, halfm1), dodd), sh);
    fmag_value *h = isel(r, hn, hd, i2(r, FMAG_IOP_UGE, a, ic(r, 0x38800000u)));
    h = isel(r, ic(r, 0x7C00u), h, i2(r, FMAG_IOP_UGE, a, ic(r, 0x477FF000u)));
    h = isel(r, ic(r, 0x7E00u), h, i2(r, FMAG_IOP_UGT, a, ic(r, 0x7F800000u)));
    return i2(r, FMAG_IOP_OR, h, sign);
}

/* The float a half's bits (the low 16 of h) stand for, exactly. Normal, infinite and
 * NaN halves by moving the fields (the exponent rebiased by 112, or by 224 for the
 * all-ones exponent); zero and denormals as the integer significand times 2^-24 (a
 * float conversion and a scaling, both exact) with the sign put in by its bit, so
 * that 0x8000 is -0.0. */
static fmag_value *float_of_half(spv_reader *r, fmag_value *h)
{
    fmag_value *s = i2(r, FMAG_IOP_SHL, i2(r, FMAG_IOP_AND, h, ic(r, 0x8000u)), ic(r, 16));
    fmag_value *e = i2(r, FMAG_IOP_AND, i2(r, FMAG_IOP_LSHR, h, ic(r, 10)), ic(r, 0x1Fu));
    fmag_value *m = i2(r, FMAG_IOP_AND, h, ic(r, 0x3FFu));
    fmag_value *bias = isel(r, ic(r, 224), ic(r, 112), i2(r, FMAG_IOP_EQ, e, ic(r, 31)));
    fmag_value *bits =
        i2(r, FMAG_IOP_OR, s, i2(r, FMAG_IOP_SHL, i2(r, FMAG_IOP_ADD, e, bias), ic(r, 23)));
    bits = i2(r, FMAG_IOP_OR, bits, i2(r, FMAG_IOP_SHL, m, ic(r, 13)));
    fmag_value *den = fmag_build_mul(B, i1(r, FMAG_IOP_UITOFP, m), fk(r, 0x1p-24f));
    den = i2(r, FMAG_IOP_OR, i1(r, FMAG_IOP_F2I, den), s);
    return i1(r, FMAG_IOP_I2F, isel(r, den, bits, i2(r, FMAG_IOP_EQ, e, ic(r, 0))));
}

static bool pack_op(spv_reader *r, const spv_inst *in, const glsl_op *g)
{
    uint32_t op = in->w[4], n, na;
    bool pack = op == GLSLstd450PackSnorm4x8 || op == GLSLstd450PackUnorm4x8 ||
                op == GLSLstd450PackSnorm2x16 || op == GLSLstd450PackUnorm2x16 ||
                op == GLSLstd450PackHalf2x16;
    bool four = op == GLSLstd450PackSnorm4x8 || op == GLSLstd450PackUnorm4x8 ||
                op == GLSLstd450UnpackSnorm4x8 || op == GLSLstd450UnpackUnorm4x8;
    unsigned ncomp = four ? 4 : 2;
    pack_format f = {four ? 8u : 16u,
                     op == GLSLstd450PackSnorm4x8 || op == GLSLstd450PackSnorm2x16 ||
                         op == GLSLstd450UnpackSnorm4x8 || op == GLSLstd450UnpackSnorm2x16};
    bool half = op == GLSLstd450PackHalf2x16 || op == GLSLstd450UnpackHalf2x16;
    if (in->nw != 6) return spv_error_op(r, "GLSL.std.450 %s takes 1 operand", g->name);
    fmag_value **a = spv_get_value(r, in->w[5], &na);
    if (!a) return false;
    uint32_t at = r->ids[in->w[5]].type;
    if (pack ? (!spv_type_is_float(r, at) || na != ncomp || !spv_type_is_int(r, in->w[1]))
             : (!spv_type_is_int(r, at) || na != 1 || !spv_type_is_float(r, in->w[1])))
        return spv_error_op(r, "GLSL.std.450 %s: operand types do not match", g->name);
    fmag_value **out = spv_new_value(r, in->w[2], in->w[1], &n);
    if (!out) return false;
    if (n != (pack ? 1 : ncomp)) return spv_error_op(r, "the result type does not match");
    if (pack && half) {
        out[0] =
            i2(r, FMAG_IOP_OR, half_of(r, a[0]), i2(r, FMAG_IOP_SHL, half_of(r, a[1]), ic(r, 16)));
    } else if (pack) {
        out[0] = pack_norm(r, a, ncomp, f);
    } else if (half) {
        out[0] = float_of_half(r, a[0]);
        out[1] = float_of_half(r, i2(r, FMAG_IOP_LSHR, a[0], ic(r, 16)));
    } else {
        unpack_norm(r, a[0], ncomp, f, out);
    }
    return true;
}

bool spv_translate_glsl450(spv_reader *r, const spv_inst *in)
{
    uint32_t op = in->w[4];
    const glsl_op *g = find(cwise, COUNT(cwise), op);
    if (g) return componentwise(r, in, g);
    g = find(others, COUNT(others), op);
    if (!g) return spv_error_op(r, "unknown GLSL.std.450 instruction %u", (unsigned)op);
    switch (op) {
    case GLSLstd450Length:
    case GLSLstd450Distance:
    case GLSLstd450Normalize:
    case GLSLstd450Cross:
        return geometric(r, in, g);
    case GLSLstd450Reflect:
    case GLSLstd450Refract:
    case GLSLstd450FaceForward:
        return vector3(r, in, g);
    case GLSLstd450Determinant:
    case GLSLstd450MatrixInverse:
        return matrix_op(r, in, g);
    case GLSLstd450Modf:
    case GLSLstd450ModfStruct:
    case GLSLstd450Frexp:
    case GLSLstd450FrexpStruct:
        return split_op(r, in, g);
    case GLSLstd450Ldexp: {
        static const glsl_op ldexp_op = {GLSLstd450Ldexp, "Ldexp", "ldexp", 2};
        return componentwise(r, in, &ldexp_op);
    }
    case GLSLstd450PackSnorm4x8:
    case GLSLstd450PackUnorm4x8:
    case GLSLstd450PackSnorm2x16:
    case GLSLstd450PackUnorm2x16:
    case GLSLstd450PackHalf2x16:
    case GLSLstd450UnpackSnorm2x16:
    case GLSLstd450UnpackUnorm2x16:
    case GLSLstd450UnpackHalf2x16:
    case GLSLstd450UnpackSnorm4x8:
    case GLSLstd450UnpackUnorm4x8:
        return pack_op(r, in, g);
    case GLSLstd450PackDouble2x32:
    case GLSLstd450UnpackDouble2x32:
        return spv_error_op(r, "GLSL.std.450 %s: 64-bit floats are not supported", g->name);
    case GLSLstd450FindILsb:
    case GLSLstd450FindSMsb:
    case GLSLstd450FindUMsb:
    case GLSLstd450SAbs:
    case GLSLstd450SSign:
    case GLSLstd450UMin:
    case GLSLstd450SMin:
    case GLSLstd450UMax:
    case GLSLstd450SMax:
    case GLSLstd450UClamp:
    case GLSLstd450SClamp:
        return int_componentwise(r, in, g);
    case GLSLstd450InterpolateAtCentroid:
    case GLSLstd450InterpolateAtSample:
    case GLSLstd450InterpolateAtOffset:
        return spv_error_op(r,
                            "GLSL.std.450 %s is not supported: an FMAG program sees one "
                            "element",
                            g->name);
    default:
        return spv_error_op(r, "GLSL.std.450 %s is not supported yet", g->name);
    }
}
