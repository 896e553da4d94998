/* The integer operations of fmag/IntOps.def: the table's columns and their exact
 * meaning, which the IR interpreter, constant folding and every test of
 * -legalize-int share. Where SPIR-V leaves a result undefined, the choice here is
 * the IR's definition (docs/LangRef.md, "Integers"): RISC-V's for division by zero
 * and INT_MIN / -1, the shift amount taken modulo 32 as HLSL and x86 do, and
 * saturating float-to-integer conversions with NaN giving 0, as WebAssembly's
 * trunc_sat and PTX's cvt.rzi.sat do. */
#include "fmag/Bits.h"
#include "fmag/IR.h"

#include <math.h>

enum { T_ = 0, TI = 1, TF = 2 };

static const struct int_op_info {
    const char *name;
    unsigned char nops, rt, t[3], comm;
} int_ops[FMAG_IOP_COUNT] = {
#define FMAG_INT_OP(ID, TEXT, NOPS, RT, T0, T1, T2, COMM)                                          \
    [FMAG_IOP_##ID] = {TEXT, NOPS, T##RT, {T##T0, T##T1, T##T2}, COMM},
#include "fmag/IntOps.def"
#undef FMAG_INT_OP
};

const char *fmag_type_name(fmag_type t)
{
    return t == FMAG_TYPE_I32 ? "i32" : "f32";
}

const char *fmag_int_op_name(fmag_int_op op)
{
    return (unsigned)op < FMAG_IOP_COUNT ? int_ops[op].name : "<bad integer op>";
}

unsigned fmag_int_op_nops(fmag_int_op op)
{
    return int_ops[op].nops;
}

static fmag_type type_of(unsigned char t)
{
    return t == TI ? FMAG_TYPE_I32 : FMAG_TYPE_F32;
}

fmag_type fmag_int_op_result_type(fmag_int_op op)
{
    return type_of(int_ops[op].rt);
}

fmag_type fmag_int_op_operand_type(fmag_int_op op, unsigned k)
{
    return type_of(int_ops[op].t[k]);
}

bool fmag_int_op_commutes(fmag_int_op op)
{
    return int_ops[op].comm;
}

bool fmag_int_op_is_compare(fmag_int_op op)
{
    return op >= FMAG_IOP_EQ && op <= FMAG_IOP_UGE;
}

static uint32_t truth(bool b)
{
    return fmag_bits_of(b ? 1.0f : 0.0f);
}

/* Truncation toward zero, saturating; NaN gives 0. */
static uint32_t fp_to_int(float f, bool is_signed)
{
    if (isnan(f)) return 0;
    double t = trunc((double)f);
    if (is_signed) {
        if (t >= 2147483648.0) return 0x7FFFFFFFu;
        if (t <= -2147483648.0) return 0x80000000u;
        return (uint32_t)(int32_t)t;
    }
    if (t >= 4294967296.0) return 0xFFFFFFFFu;
    if (t <= 0.0) return 0;
    return (uint32_t)t;
}

uint32_t fmag_eval_int(fmag_int_op op, uint32_t a, uint32_t b, uint32_t c)
{
    int32_t sa = (int32_t)a, sb = (int32_t)b;
    switch (op) {
    case FMAG_IOP_ADD:
        return a + b;
    case FMAG_IOP_SUB:
        return a - b;
    case FMAG_IOP_MUL:
        return a * b;
    case FMAG_IOP_SDIV:
        if (!b) return 0xFFFFFFFFu;
        if (sa == INT32_MIN && sb == -1) return a;
        return (uint32_t)(sa / sb);
    case FMAG_IOP_UDIV:
        return b ? a / b : 0xFFFFFFFFu;
    case FMAG_IOP_SREM:
        if (!b) return a;
        if (sa == INT32_MIN && sb == -1) return 0;
        return (uint32_t)(sa % sb);
    case FMAG_IOP_UREM:
        return b ? a % b : a;
    case FMAG_IOP_SMOD: {
        if (!b) return a;
        if (sa == INT32_MIN && sb == -1) return 0;
        int32_t m = sa % sb;
        if (m && ((m < 0) != (sb < 0))) m += sb;
        return (uint32_t)m;
    }
    case FMAG_IOP_AND:
        return a & b;
    case FMAG_IOP_OR:
        return a | b;
    case FMAG_IOP_XOR:
        return a ^ b;
    case FMAG_IOP_NOT:
        return ~a;
    case FMAG_IOP_SHL:
        return a << (b & 31);
    case FMAG_IOP_LSHR:
        return a >> (b & 31);
    case FMAG_IOP_ASHR:
        /* Right shifts of negative values are implementation-defined in C: spell it. */
        return sa < 0 ? ~(~a >> (b & 31)) : a >> (b & 31);
    case FMAG_IOP_NEG:
        return 0u - a;
    case FMAG_IOP_EQ:
        return truth(a == b);
    case FMAG_IOP_NE:
        return truth(a != b);
    case FMAG_IOP_SLT:
        return truth(sa < sb);
    case FMAG_IOP_SLE:
        return truth(sa <= sb);
    case FMAG_IOP_SGT:
        return truth(sa > sb);
    case FMAG_IOP_SGE:
        return truth(sa >= sb);
    case FMAG_IOP_ULT:
        return truth(a < b);
    case FMAG_IOP_ULE:
        return truth(a <= b);
    case FMAG_IOP_UGT:
        return truth(a > b);
    case FMAG_IOP_UGE:
        return truth(a >= b);
    case FMAG_IOP_SELECT:
        return fmag_float_of(c) > 0.0f ? a : b;
    case FMAG_IOP_SITOFP:
        return fmag_bits_of((float)sa);
    case FMAG_IOP_UITOFP:
        return fmag_bits_of((float)a);
    case FMAG_IOP_FPTOSI:
        return fp_to_int(fmag_float_of(a), true);
    case FMAG_IOP_FPTOUI:
        return fp_to_int(fmag_float_of(a), false);
    case FMAG_IOP_F2I: {
        /* No FMAG instruction tells -0.0 from +0.0 or one NaN from another
         * (SPEC §2b), so neither does the IR. */
        float f = fmag_float_of(a);
        if (isnan(f)) return 0x7FC00000u;
        return f == 0.0f ? 0u : a;
    }
    case FMAG_IOP_I2F:
        return isnan(fmag_float_of(a)) ? 0x7FC00000u : a;
    case FMAG_IOP_COUNT:
        break;
    }
    return 0;
}
