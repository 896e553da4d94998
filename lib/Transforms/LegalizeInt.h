/* -legalize-int's private interface: how an i32 value is held in floats while the
 * pass runs, the value ranges, and the expansions of each job's file
 * (LegalizeInt*.c). See LegalizeInt.c for the pass itself. */
#ifndef FMAG_LEGALIZEINT_H
#define FMAG_LEGALIZEINT_H

#include "fmag/IR.h"
#include "fmag/Transforms.h"

#include <stdint.h>

/* An integer whose signed value v has |v| <= 2^24 is exact in one float. */
#define LI_SMALL_MAX 16777216
/* 1.5 * 2^23: adding it rounds any |x| < 2^22 to an integer (the floor trick). */
#define LI_MAGIC 12582912.0f

/* The signed values an i32 may take: lo <= v <= hi (a subset of [INT32_MIN, INT32_MAX]). */
typedef struct li_range {
    int64_t lo, hi;
} li_range;

/* The float forms of one i32 value, made lazily; any one determines the others.
 *   s     one float holding the signed value (only where the range is small)
 *   l     two 16-bit limbs: l[0] = bits 0..15, l[1] = bits 16..31, each an integer
 *         float in [0, 65535] (the unsigned value is l[1] * 65536 + l[0])
 *   bits  32 floats 0.0 / 1.0, bit 0 first (the "bit form" of and/or/xor and shifts)
 * Conversions are emitted right after `after` (the value's definition, or the
 * conversions made so far), so that every form dominates every use. */
typedef struct li_val {
    li_range r;
    fmag_value *s;
    fmag_value *l[2];
    fmag_value **bits;
    fmag_value **guards;   /* 32 floats each > 0 exactly when its bit is 1 (2 a bit from
                            * limbs, 3 for bits); the bits are guards too */
    fmag_value *fptosi_of; /* the float an fptosi took: its sign is the value's sign */
    fmag_instr *after;
    bool done;
} li_val;

/* Where a float made by the pass came from (its aux, while the pass runs): the first
 * i32 value that held it as a limb, and as a bit. An i32 value whose limb is another
 * value's limb (x >> 16, x & 0xFFFF0000, a select of equal limbs) takes that value's
 * bits instead of extracting its own, and 16 bits that are another value's limb's
 * bits assemble to that limb for nothing. The owner's forms dominate every value made
 * from them (it is defined first, and its conversions go right after it). */
typedef struct li_origin {
    fmag_value *limb_of; /* i32 value whose l[limb_half] this is */
    int limb_half;
    fmag_value *bit_of; /* i32 value whose bits[bit_index] this is */
    int bit_index;
} li_origin;

typedef struct li {
    fmag_func *f;
    fmag_module *m;
    fmag_builder b; /* where the current expansion goes */
    li_val *vals;   /* one per i32 result of the function (value->aux) */
    size_t nvals, used;
    li_val **consts; /* forms of i32 literals (arena), looked up by bits */
    uint32_t *const_bits;
    size_t nconsts, cap_consts;
} li;

/* ---- LegalizeInt.c: forms of an operand, made on demand */
li_val *li_info(li *st, fmag_value *v);
/* Records v's limbs and bits as v's where no other value claimed them first. */
void li_note_forms(li *st, fmag_value *v);
/* > 0 exactly when the i32 v is negative, made at st->b (for an fptosi's result from
 * its float, so the high limb may stay dead) */
fmag_value *li_get_neg(li *st, fmag_value *v);
bool li_is_small(const li_range r);
bool li_is_const(fmag_value *v, uint32_t *bits);
fmag_value *li_get_s(li *st, fmag_value *v);
void li_get_l(li *st, fmag_value *v, fmag_value *out[2]);
fmag_value **li_get_bits(li *st, fmag_value *v);
fmag_value **li_new_bits(li *st);
/* The bits as guards: the bits where made, else the cheaper guard form. */
fmag_value **li_get_guards(li *st, fmag_value *v);

/* ---- emission helpers (LegalizeInt.c), at st->b */
fmag_value *li_k(li *st, float f);
fmag_value *li_fm(li *st, fmag_value *a, fmag_value *b, fmag_value *c, fmag_value *d,
                  fmag_value *e);
fmag_value *li_add(li *st, fmag_value *x, fmag_value *y);
fmag_value *li_addk(li *st, fmag_value *x, float k);
fmag_value *li_sub(li *st, fmag_value *x, fmag_value *y);
fmag_value *li_mul(li *st, fmag_value *x, fmag_value *y);
fmag_value *li_fma(li *st, fmag_value *x, fmag_value *y, fmag_value *z);
fmag_value *li_fmak(li *st, fmag_value *x, float y, float z);
/* (g > 0) ? t : f */
fmag_value *li_sel(li *st, fmag_value *t, fmag_value *f, fmag_value *g);
/* (g > 0) ? 1.0 : 0.0, for a finite g */
fmag_value *li_bool(li *st, fmag_value *g);
/* For an integer float x with |x| < 2^22 - 2^k: *q = floor(x / 2^k), *r = x - *q * 2^k
 * (either may be NULL when not wanted). 4 instructions. */
void li_floor_pow2(li *st, fmag_value *x, int k, fmag_value **q, fmag_value **r);

/* ---- LegalizeIntRange.c */
li_range li_range_full(void);
li_range li_range_const(uint32_t bits);
/* The range of op's result from its operands' ranges (f32 operands: their float
 * bounds in fl[k], or NULL when unknown). */
/* Bounds of an f32 value where its definition shows them (depth: start at 0). */
bool li_float_bounds(fmag_value *v, double *lo, double *hi, int depth);
li_range li_range_of(fmag_int_op op, const li_range *r, fmag_value *const *ops);

/* ---- LegalizeIntSmall.c
 * Floor division of an integer float s by a literal 0 < c < 2^22, where |s| < 2^24 and
 * |s| / c < 2^22 - 2: *q = floor(s / c), *r = s - *q * c (the estimate s * fl(1/c)
 * rounds to floor(s / c) or one above; one correction each way). 9 instructions, 4
 * for a power of two. */
void li_floordiv_k(li *st, fmag_value *s, int64_t c, fmag_value **q, fmag_value **r);
/* The in-range forms; false when the operation needs the full-width path. */
bool li_lower_small(li *st, fmag_instr *i, li_val *res, fmag_value **fres);

/* ---- LegalizeIntWide.c: limbs */
void li_wide_add(li *st, fmag_value *const a[2], fmag_value *const b[2], fmag_value *out[2]);
void li_wide_sub(li *st, fmag_value *const a[2], fmag_value *const b[2], fmag_value *out[2]);
void li_wide_neg(li *st, fmag_value *const a[2], fmag_value *out[2]);
void li_wide_mul(li *st, fmag_value *const a[2], fmag_value *const b[2], fmag_value *out[2]);
/* hi limb as a signed value in [-32768, 32767] */
fmag_value *li_signed_hi(li *st, fmag_value *h);
/* > 0 exactly when the value is negative (bit 31 set) */
fmag_value *li_sign_guard(li *st, fmag_value *h);
void li_wide_shift_const(li *st, fmag_int_op op, fmag_value *const a[2], int k, fmag_value *out[2]);
bool li_wide_mask(li *st, fmag_value *const a[2], uint32_t m, fmag_value *out[2]);
bool li_lower_wide(li *st, fmag_instr *i, li_val *res, fmag_value **fres);

/* ---- LegalizeIntBits.c */
void li_l_to_bits(li *st, fmag_value *const l[2], int nbits_lo, int nbits_hi, fmag_value **bits);
void li_s_to_bits(li *st, fmag_value *s, int nbits, fmag_value **bits);
void li_l_to_guards(li *st, fmag_value *const l[2], int nbits_lo, int nbits_hi, fmag_value **g);
void li_bits_to_l(li *st, fmag_value *const *bits, fmag_value *out[2]);
/* One limb from its 16 bits (one fma a bit that is not a literal). */
fmag_value *li_bits_to_limb(li *st, fmag_value *const *bits);
/* Limbs of another value whose bits these are, or NULL (per half). */
void li_bits_reuse_l(li *st, fmag_value *self, fmag_value *const *bits, fmag_value *out[2]);
bool li_lower_bits(li *st, fmag_instr *i, li_val *res);

/* ---- LegalizeIntDiv.c */
bool li_lower_div(li *st, fmag_instr *i, li_val *res);

/* ---- LegalizeIntCast.c */
bool li_lower_cast(li *st, fmag_instr *i, li_val *res, fmag_value **fres);

#endif /* FMAG_LEGALIZEINT_H */
