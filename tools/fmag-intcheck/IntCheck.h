/* fmag-intcheck's shared pieces: a program compiled as slc and fmag-opt compile it
 * (-O2, codegen), and result comparison. fmag-intcheck.c has the per-operation,
 * exhaustive one-operand and random-program checks; Limbs.c the exhaustive limb-pair
 * and literal-divisor sweeps. */
#ifndef FMAG_INTCHECK_H
#define FMAG_INTCHECK_H

#include "fmag/IR.h"
#include "fmag/VM.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct compiled {
    fmag_vm_image img;
    const fmag_vm_program *p;
    unsigned ninstr;
} compiled;

/* -O2 and codegen of m's first function into c (false with a diagnostic in ctx). */
bool intcheck_compile(fmag_module *m, compiled *c, fmag_context *ctx);
/* Bit for bit, +0 and -0 equal, any NaN equal to any NaN. */
bool intcheck_same(float a, float b);

/* Every pair of 16-bit limbs (a, b): a is x's xhalf limb (0 low, 1 high), b is y's
 * yhalf limb, the other limbs hold ox and oy; pairs [from, to) of the 2^32 (index
 * a * 65536 + b). */
bool intcheck_pairs(const char *op, int xhalf, int yhalf, uint32_t ox, uint32_t oy, uint64_t from,
                    uint64_t to);
/* Every x in [from, to) through OP(x, c) for the literal c (a division by a literal
 * takes its own expansion). */
bool intcheck_literal(const char *op, uint32_t c, uint64_t from, uint64_t to);

#endif
