/* Encoding and decoding of the one 16-byte FMAG instruction (SPEC §1), and the
 * per-instruction validity check shared by the loader, the writer and the engines. */
#include "VMInternal.h"
#include "fmag/Bits.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The API's bit casts (VM.h), kept for embedders; inside FMAG, fmag/Bits.h. */
uint32_t fmag_vm_float_bits(float f)
{
    return fmag_bits_of(f);
}

float fmag_vm_bits_float(uint32_t w)
{
    return fmag_float_of(w);
}

static bool encode_operand(const fmag_vm_operand *op, const char *slot, uint32_t *out, char *err,
                           size_t errlen)
{
    if (op->is_reg) {
        *out = fmag_vm_ref_word(op->reg);
        return true;
    }
    /* One test of the exponent bits for both NaN and infinity: lowering encodes
     * every instruction of every program through here. */
    uint32_t bits = fmag_bits_of(op->imm);
    if ((bits & 0x7F800000u) == 0x7F800000u) {
        snprintf(err, errlen, "operand %s: literal %s cannot be encoded (NaN-boxing reserves it)",
                 slot, isnan(op->imm) ? "NaN" : "infinity");
        return false;
    }
    *out = bits;
    return true;
}

bool fmag_vm_encode(const fmag_vm_decoded *in, fmag_vm_instr *out, char *err, size_t errlen)
{
    fmag_vm_instr r;
    if (!encode_operand(&in->b, "b", &r.b, err, errlen) ||
        !encode_operand(&in->c, "c", &r.c, err, errlen) ||
        !encode_operand(&in->g, "g", &r.g, err, errlen))
        return false;
    r.da = (uint32_t)in->d | ((uint32_t)in->a << 16);
    *out = r;
    return true;
}

static void decode_operand(uint32_t w, fmag_vm_operand *op)
{
    op->is_reg = fmag_vm_word_is_ref(w);
    op->reg = op->is_reg ? (uint16_t)(w & 0xFFFFu) : 0;
    op->imm = op->is_reg ? 0.0f : fmag_vm_bits_float(w);
}

void fmag_vm_decode(fmag_vm_instr in, fmag_vm_decoded *out)
{
    out->d = fmag_vm_instr_d(in);
    out->a = fmag_vm_instr_a(in);
    decode_operand(in.b, &out->b);
    decode_operand(in.c, &out->c);
    decode_operand(in.g, &out->g);
}

bool fmag_vm_instr_check(fmag_vm_instr in, uint32_t regs, unsigned *word_off, char *err,
                         size_t errlen)
{
    static const char *const slot_names[3] = {"b", "c", "guard"};
    const uint32_t words[3] = {in.b, in.c, in.g};
    for (unsigned s = 0; s < 3; s++) {
        uint32_t w = words[s];
        if (fmag_vm_word_is_inf(w)) {
            *word_off = 4 * s;
            snprintf(err, errlen, "literal %sinfinity in operand %s (word 0x%08x)",
                     (w >> 31) ? "-" : "+", slot_names[s], (unsigned)w);
            return false;
        }
        if (fmag_vm_word_is_ref(w) && (w & 0xFFFFu) >= regs) {
            *word_off = 4 * s;
            snprintf(err, errlen, "register index %u in operand %s is out of range (regs = %u)",
                     (unsigned)(w & 0xFFFFu), slot_names[s], (unsigned)regs);
            return false;
        }
    }
    if (fmag_vm_instr_d(in) >= regs) {
        *word_off = 12;
        snprintf(err, errlen, "destination register index %u is out of range (regs = %u)",
                 (unsigned)fmag_vm_instr_d(in), (unsigned)regs);
        return false;
    }
    if (fmag_vm_instr_a(in) >= regs) {
        *word_off = 14;
        snprintf(err, errlen, "register index %u in operand a is out of range (regs = %u)",
                 (unsigned)fmag_vm_instr_a(in), (unsigned)regs);
        return false;
    }
    return true;
}

bool fmag_vm_program_check(const fmag_vm_program *p, uint32_t *bad_instr, unsigned *word_off,
                           char *err, size_t errlen)
{
    *bad_instr = UINT32_MAX;
    *word_off = 0;
    if (p->nin > p->regs) {
        snprintf(err, errlen, "%u inputs exceed the %u registers", (unsigned)p->nin,
                 (unsigned)p->regs);
        return false;
    }
    if (p->nout > p->regs) {
        snprintf(err, errlen, "%u outputs exceed the %u registers", (unsigned)p->nout,
                 (unsigned)p->regs);
        return false;
    }
    if (p->ninstr && !p->code) {
        snprintf(err, errlen, "%u instructions but no code", (unsigned)p->ninstr);
        return false;
    }
    for (uint32_t i = 0; i < p->ninstr; i++) {
        char sub[160];
        if (!fmag_vm_instr_check(p->code[i], p->regs, word_off, sub, sizeof sub)) {
            *bad_instr = i;
            snprintf(err, errlen, "instruction %u: %s", (unsigned)i, sub);
            return false;
        }
    }
    return true;
}

bool fmag_vm_program_validate(const fmag_vm_program *p, char *err, size_t errlen)
{
    uint32_t bad;
    unsigned off;
    return fmag_vm_program_check(p, &bad, &off, err, errlen);
}
