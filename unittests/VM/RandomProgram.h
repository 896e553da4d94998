/* The VM unit tests' random programs and inputs, one generator for VMTest.c (engines
 * against the reference interpreter) and EmitTest.c (emitted source against it), so that
 * both cover the same operands and special values. Deterministic: each test seeds its
 * own state, and a failure reproduces run after run.
 *
 * What changed against the two copies it replaces: VMTest's inputs now include NaNs of
 * any sign and payload (it replaced them by 1.5, EmitTest kept them), and its operands
 * are drawn in one fixed order (it drew the guard first and B and C in C's unspecified
 * argument order), so its programs are new ones of the same shape; EmitTest meant the
 * largest denormal with 0x1.fffffep-127f, which rounds to 2^-126 (already in the list),
 * and now has it (0x1.fffffcp-127), with VMTest's 1.1754942e-38f written that way. */
#ifndef FMAG_UNITTESTS_VM_RANDOM_PROGRAM_H
#define FMAG_UNITTESTS_VM_RANDOM_PROGRAM_H

#include "fmag/VM.h"

/* xorshift64 (Marsaglia); the 32 bits returned are bits 11..42 of the state. */
typedef struct fmag_test_rng {
    uint64_t s;
} fmag_test_rng;
uint32_t fmag_test_rnd(fmag_test_rng *r);

/* Values where float arithmetic has its edges: both zeros, the smallest and the largest
 * denormal, the smallest normal, the largest finite, the infinities, NaN, the neighbours
 * of 1, 2^24 (where integers stop being exact), and a few plain ones. */
extern const float fmag_test_specials[];
extern const unsigned fmag_test_nspecials;

/* An input value: a special (a quarter of the time), a multiple of 0.25 in [-2.5, 2.5],
 * 32 random bits (any float: NaNs with any sign and payload included), or k/37 in
 * [-27, 27). */
float fmag_test_rnd_value(fmag_test_rng *r);

/* An operand word: a register below regs (half the time; two thirds for a guard) or a
 * literal from fmag_test_rnd_value, a NaN or infinity replaced by -0 (neither can be a
 * literal, SPEC 1). */
uint32_t fmag_test_rnd_word(fmag_test_rng *r, uint16_t regs, bool guard);

/* n random instructions over regs registers; per instruction d, a, then the B, C and
 * guard words, in that order. */
void fmag_test_rnd_code(fmag_test_rng *r, fmag_vm_instr *code, uint32_t n, uint16_t regs);

/* A random valid program: 1..40 registers, 0..regs inputs and outputs (so inputs and
 * outputs overlap, and outputs may be registers no instruction writes), fewer than
 * max_instr instructions (none at times), named `name` (copied). Free it with
 * fmag_test_program_free. */
fmag_vm_program fmag_test_rnd_program(fmag_test_rng *r, uint32_t max_instr, const char *name);
void fmag_test_program_free(fmag_vm_program *p);

#endif
