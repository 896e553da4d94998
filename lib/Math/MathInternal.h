/* Helpers shared by the math library's files: short names for building plain fmag
 * instructions, and the power-of-two ladders that stand in for exponent extraction
 * on a machine with no bit operations. */
#ifndef FMAG_MATH_INTERNAL_H
#define FMAG_MATH_INTERNAL_H

#include <math.h>
#include "fmag/IR.h"
#include "fmag/Math.h"

static inline fmag_value *K(fmag_builder *b, float f)
{
    return fmag_module_const(b->module, f);
}
/* (e > 0) ? a*bb + c : d */
static inline fmag_value *F(fmag_builder *b, fmag_value *a, fmag_value *bb, fmag_value *c,
                            fmag_value *d, fmag_value *e)
{
    return fmag_build_fmag(b, a, bb, c, d, e);
}
static inline fmag_value *FMA(fmag_builder *b, fmag_value *a, fmag_value *bb, fmag_value *c)
{
    return fmag_build_fma(b, a, bb, c);
}
static inline fmag_value *MUL(fmag_builder *b, fmag_value *a, fmag_value *bb)
{
    return fmag_build_mul(b, a, bb);
}
/* (g > 0) ? t : f */
static inline fmag_value *SEL(fmag_builder *b, fmag_value *t, fmag_value *f, fmag_value *g)
{
    return fmag_build_select(b, t, f, g);
}

/* Horner in float: c[0] + t*(c[1] + t*(...c[n])). */
fmag_value *fmag_math_horner(fmag_builder *b, fmag_value *t, const float *c, int n);

/* Round half to even, exact for every finite x (4 instructions). *sbias receives the
 * internal bias -2^23*sign(x) (+2^23 for x <= 0), which trunc reuses. */
fmag_value *fmag_math_rne(fmag_builder *b, fmag_value *x, fmag_value **sbias);

/* For a finite x (|x| < 2^22), its nearest integer through the 1.5*2^23 trick, with
 * the subtraction guarded by the biased sum itself (always > 0 in range) so that a
 * fast-math reassociation cannot cancel the two constants. *biased gets x + 1.5*2^23,
 * a value known positive that callers reuse as an opaque guard. */
fmag_value *fmag_math_round_magic(fmag_builder *b, fmag_value *x, fmag_value **biased);

/* 2^n for an integer-valued n in [-150, 128] as a float value, times p: p * 2^n,
 * by a binary ladder of conditional multiplies (denormal results rounded once). */
fmag_value *fmag_math_ldexp(fmag_builder *b, fmag_value *p, fmag_value *n);

/* exp(x) * 2^shift, x clamped to [-104, hi]: exp's sequence with the shift folded
 * into the scaling ladder, so e^x/2 stays finite up to x = hi = 89.4. */
fmag_value *fmag_math_exp_scaled(fmag_builder *b, fmag_value *x, float hi, int shift, bool fm);

/* log(hi + lo) with lo a correction below an ulp of hi > 0. */
fmag_value *fmag_math_log_hilo(fmag_builder *b, fmag_value *hi, fmag_value *lo, bool fm);

/* x + y = s + *err exactly (Knuth's 2Sum, 6 instrs, any magnitudes). Every step
 * is guarded by pos, a value the caller knows to be > 0 at run time, so that
 * fast-math reassociation cannot see through the sums and fold err to 0; NULL
 * stands for s itself (for sums known positive). */
fmag_value *fmag_math_two_sum(fmag_builder *b, fmag_value *x, fmag_value *y, fmag_value *pos,
                              fmag_value **err);

/* log1p(u + u_lo) (u_lo may be NULL) for u > -1, within an ulp or so over the range. */
fmag_value *fmag_math_log1p(fmag_builder *b, fmag_value *u, fmag_value *u_lo, bool fm);

/* The value of v when it is known at build time: a literal, or an unconditional
 * fmag of literals (a frontend's -2.0 arrives as neg(2.0)), computed as the VM
 * would. */
bool fmag_math_literal(const fmag_value *v, float *out);

/* A call of the intrinsic @fmag.<name> on args (its body built on first use by the
 * builder of that name), for a module whose math_calls flag is set (MathDeriv.c). */
fmag_value *fmag_math_opaque(fmag_builder *b, const char *name, fmag_value *const *args,
                             unsigned nargs, bool fm);
/* The first line of a builder that -derivatives must see as one call: while the module
 * asks for calls, a call (unless every operand is known at build time: its derivative
 * is 0 and its sequence folds). Uses the builder's `b` and `fm`. */
#define FMAG_MATH_OPAQUE1(NAME, X)                                                                 \
    do {                                                                                           \
        float opq_lit_;                                                                            \
        if (b->module->math_calls && !fmag_math_literal(X, &opq_lit_)) {                           \
            fmag_value *opq_[1] = {X};                                                             \
            return fmag_math_opaque(b, NAME, opq_, 1, fm);                                         \
        }                                                                                          \
    } while (0)
#define FMAG_MATH_OPAQUE2(NAME, X, Y)                                                              \
    do {                                                                                           \
        float opq_lit_;                                                                            \
        if (b->module->math_calls &&                                                               \
            !(fmag_math_literal(X, &opq_lit_) && fmag_math_literal(Y, &opq_lit_))) {               \
            fmag_value *opq_[2] = {X, Y};                                                          \
            return fmag_math_opaque(b, NAME, opq_, 2, fm);                                         \
        }                                                                                          \
    } while (0)

#define FMAG_MAGIC 12582912.0f /* 1.5 * 2^23 */

/* 2^k as a float for a build-time constant k in [-149, 127] (ldexpf, exact). */
static inline float p2(int k)
{
    return ldexpf(1.0f, k);
}

#endif
