/* GLSL.std.450 extended instructions through lib/Math. The component-wise ones
 * go through the math library's builtin table by name (so a builtin the library
 * gains is picked up here without a change); the geometric ones through the
 * vector builders of Math.h. What the library does not have yet is a diagnostic
 * that names the instruction. */
#include <string.h>
#include "SPIRVInternal.h"

#define B (&r->b)

typedef struct glsl_op {
    uint32_t op;
    const char *name;    /* instruction name, for diagnostics */
    const char *builtin; /* math table name for component-wise ones, or NULL */
    unsigned nargs;
} glsl_op;

/* Component-wise instructions and the math builtin computing them. Integer
 * variants (SAbs, SMin, ...) use the float builtins: exact on the integers a
 * float holds, and folded when the operands are constants. */
static const glsl_op cwise[] = {
    {GLSLstd450Round, "Round", "round", 1},
    {GLSLstd450RoundEven, "RoundEven", "round", 1},
    {GLSLstd450Trunc, "Trunc", "trunc", 1},
    {GLSLstd450FAbs, "FAbs", "abs", 1},
    {GLSLstd450SAbs, "SAbs", "abs", 1},
    {GLSLstd450FSign, "FSign", "sign", 1},
    {GLSLstd450SSign, "SSign", "sign", 1},
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
    {GLSLstd450UMin, "UMin", "min", 2},
    {GLSLstd450SMin, "SMin", "min", 2},
    {GLSLstd450FMax, "FMax", "max", 2},
    {GLSLstd450UMax, "UMax", "max", 2},
    {GLSLstd450SMax, "SMax", "max", 2},
    {GLSLstd450FClamp, "FClamp", "clamp", 3},
    {GLSLstd450UClamp, "UClamp", "clamp", 3},
    {GLSLstd450SClamp, "SClamp", "clamp", 3},
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
    if (in->nw != 5 + g->nargs)
        return spv_error_op(r, "GLSL.std.450 %s takes %u operands", g->name, g->nargs);
    for (unsigned k = 0; k < g->nargs; k++)
        if (!(a[k] = spv_get_value(r, in->w[5 + k], &na[k]))) return false;
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
    for (uint32_t j = 0; j < na; j++)
        out[j] = is_modf ? fmag_build_modf(B, a[j], &second[j], r->fast)
                         : fmag_build_frexp(B, a[j], &second[j], r->fast);
    return is_struct || spv_store_to(r, in->w[6], second, na);
}

static bool vector3(spv_reader *r, const spv_inst *in, const glsl_op *g)
{
    uint32_t n, na[3];
    fmag_value **a[3];
    if (in->nw != 5 + g->nargs)
        return spv_error_op(r, "GLSL.std.450 %s takes %u operands", g->name, g->nargs);
    for (unsigned k = 0; k < g->nargs; k++)
        if (!(a[k] = spv_get_value(r, in->w[5 + k], &na[k]))) return false;
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
    if (in->nw != 5 + g->nargs)
        return spv_error_op(r, "GLSL.std.450 %s takes %u operands", g->name, g->nargs);
    for (unsigned k = 0; k < g->nargs; k++)
        if (!(a[k] = spv_get_value(r, in->w[5 + k], &na[k]))) return false;
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
    case GLSLstd450PackDouble2x32:
    case GLSLstd450UnpackSnorm2x16:
    case GLSLstd450UnpackUnorm2x16:
    case GLSLstd450UnpackHalf2x16:
    case GLSLstd450UnpackSnorm4x8:
    case GLSLstd450UnpackUnorm4x8:
    case GLSLstd450UnpackDouble2x32:
    case GLSLstd450FindILsb:
    case GLSLstd450FindSMsb:
    case GLSLstd450FindUMsb:
        return spv_error_op(r, "GLSL.std.450 %s works on bits: FMAG has no integer arithmetic",
                            g->name);
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
