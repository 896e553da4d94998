/* The VM unit tests' shared random programs and inputs (RandomProgram.h). */
#include "RandomProgram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint32_t fmag_test_rnd(fmag_test_rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 11);
}

const float fmag_test_specials[] = {
    0.0f,          -0.0f,
    1.0f,          -1.0f,
    0.5f,          3.0f,
    -7.25f,        0.1f,
    0x1p-149f,     -0x1p-149f,       /* the smallest denormal */
    1e-40f,        0x1.fffffcp-127f, /* a denormal; the largest */
    0x1p-126f,                       /* the smallest normal */
    3.4028235e38f, -3.4028235e38f,
    INFINITY,      -INFINITY,
    NAN,           1.0000001f,
    0.99999994f,   16777216.0f,
    1e20f,         -1e-20f,
};
const unsigned fmag_test_nspecials = sizeof fmag_test_specials / sizeof fmag_test_specials[0];

float fmag_test_rnd_value(fmag_test_rng *r)
{
    switch (fmag_test_rnd(r) % 4) {
    case 0:
        return fmag_test_specials[fmag_test_rnd(r) % fmag_test_nspecials];
    case 1:
        return (float)((int)(fmag_test_rnd(r) % 21) - 10) * 0.25f;
    case 2: {
        uint32_t w = fmag_test_rnd(r) ^ (fmag_test_rnd(r) << 21); /* all 32 bits random */
        return fmag_vm_bits_float(w);
    }
    default:
        return ((float)(fmag_test_rnd(r) % 2000) - 1000.0f) / 37.0f;
    }
}

uint32_t fmag_test_rnd_word(fmag_test_rng *r, uint16_t regs, bool guard)
{
    if (fmag_test_rnd(r) % (guard ? 3 : 2) != 0)
        return fmag_vm_ref_word((uint16_t)(fmag_test_rnd(r) % regs));
    float f = fmag_test_rnd_value(r);
    if (isnan(f) || isinf(f)) f = -0.0f;
    return fmag_vm_float_bits(f);
}

void fmag_test_rnd_code(fmag_test_rng *r, fmag_vm_instr *code, uint32_t n, uint16_t regs)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t d = fmag_test_rnd(r) % regs, a = fmag_test_rnd(r) % regs;
        uint32_t b = fmag_test_rnd_word(r, regs, false);
        uint32_t c = fmag_test_rnd_word(r, regs, false);
        uint32_t g = fmag_test_rnd_word(r, regs, true);
        code[i] = (fmag_vm_instr){b, c, g, d | (a << 16)};
    }
}

fmag_vm_program fmag_test_rnd_program(fmag_test_rng *r, uint32_t max_instr, const char *name)
{
    fmag_vm_program p;
    memset(&p, 0, sizeof p);
    p.regs = (uint16_t)(1 + fmag_test_rnd(r) % 40);
    p.nin = (uint16_t)(fmag_test_rnd(r) % (p.regs + 1u));
    p.nout = (uint16_t)(fmag_test_rnd(r) % (p.regs + 1u));
    p.ninstr = fmag_test_rnd(r) % max_instr;
    p.code = p.ninstr ? aligned_alloc(16, p.ninstr * sizeof(fmag_vm_instr)) : NULL;
    fmag_test_rnd_code(r, p.code, p.ninstr, p.regs);
    p.name = malloc(strlen(name) + 1);
    strcpy(p.name, name);
    return p;
}

void fmag_test_program_free(fmag_vm_program *p)
{
    free(p->code);
    free(p->name);
    p->code = NULL;
    p->name = NULL;
}
