/* FMAG Math: the math library built from the one instruction. Each builtin is a
 * builder call that appends plain fmag instructions (straight-line, no branches)
 * computing the function of its scalar operands; vector builtins take arrays.
 *
 * `fastmath` selects a shorter, less accurate sequence where one exists (docs/
 * Builtins.md lists both counts and their measured errors). Every sequence is
 * written to survive the fast-math optimizer: the rounding trick and split
 * constants are expressed so that reassociation cannot cancel them.
 */
#ifndef FMAG_MATH_H
#define FMAG_MATH_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdbool.h>
#include "fmag/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Booleans are 1.0 / 0.0; a condition is true when it is != 0 (SPEC §5). */
fmag_value *fmag_build_truth(fmag_builder *b, fmag_value *x); /* x != 0 ? 1 : 0 */
fmag_value *fmag_build_not(fmag_builder *b, fmag_value *x);   /* x != 0 ? 0 : 1 */
fmag_value *fmag_build_eq(fmag_builder *b, fmag_value *x, fmag_value *y);
fmag_value *fmag_build_ne(fmag_builder *b, fmag_value *x, fmag_value *y);
/* cond != 0 ? t : f (the SL select/?: semantics, -0 is false, negatives true). */
fmag_value *fmag_build_select_truth(fmag_builder *b, fmag_value *cond, fmag_value *t,
                                    fmag_value *f);

/* One-operand builtins. */
fmag_value *fmag_build_sign(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_floor(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_ceil(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_round(fmag_builder *b, fmag_value *x, bool fastmath); /* half to even */
fmag_value *fmag_build_trunc(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_fract(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_saturate(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_rcp(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_sqrt(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_inversesqrt(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_exp(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_exp2(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_log(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_log2(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_sin(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_cos(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_tan(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_atan(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_asin(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_acos(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_sinh(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_cosh(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_tanh(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_asinh(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_acosh(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_atanh(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_radians(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_degrees(fmag_builder *b, fmag_value *x, bool fastmath);
/* 1.0 / 0.0, from comparisons only (no step makes an infinity or NaN of x). */
fmag_value *fmag_build_isnan(fmag_builder *b, fmag_value *x, bool fastmath);
fmag_value *fmag_build_isinf(fmag_builder *b, fmag_value *x, bool fastmath);
/* modf: returns the fraction x - trunc(x); *whole (if non-NULL) gets trunc(x). */
fmag_value *fmag_build_modf(fmag_builder *b, fmag_value *x, fmag_value **whole, bool fastmath);
/* frexp: returns m with x = m * 2^e, 0.5 <= |m| < 1 (m = x, e = 0 for +-0);
 * *exp (if non-NULL) gets e as an integer-valued float. */
fmag_value *fmag_build_frexp(fmag_builder *b, fmag_value *x, fmag_value **exp, bool fastmath);

/* Two- and three-operand builtins. */
fmag_value *fmag_build_div(fmag_builder *b, fmag_value *x, fmag_value *y, bool fastmath);
fmag_value *fmag_build_mod(fmag_builder *b, fmag_value *x, fmag_value *y, bool fastmath);
fmag_value *fmag_build_step(fmag_builder *b, fmag_value *edge, fmag_value *x, bool fastmath);
fmag_value *fmag_build_pow(fmag_builder *b, fmag_value *x, fmag_value *y, bool fastmath);
fmag_value *fmag_build_atan2(fmag_builder *b, fmag_value *y, fmag_value *x, bool fastmath);
/* x * 2^n for an integer-valued n (GLSL ldexp; n is the float of the int). */
fmag_value *fmag_build_ldexp(fmag_builder *b, fmag_value *x, fmag_value *n, bool fastmath);
/* fma(x, y, z) with one rounding (the instruction itself). */
fmag_value *fmag_build_fma_builtin(fmag_builder *b, fmag_value *x, fmag_value *y, fmag_value *z,
                                   bool fastmath);
fmag_value *fmag_build_clamp(fmag_builder *b, fmag_value *x, fmag_value *lo, fmag_value *hi,
                             bool fastmath);
fmag_value *fmag_build_mix(fmag_builder *b, fmag_value *x, fmag_value *y, fmag_value *t,
                           bool fastmath);
fmag_value *fmag_build_smoothstep(fmag_builder *b, fmag_value *e0, fmag_value *e1, fmag_value *x,
                                  bool fastmath);

/* Vector builtins over n scalar components (n = 1..4). */
fmag_value *fmag_build_dot(fmag_builder *b, fmag_value *const *x, fmag_value *const *y, unsigned n,
                           bool fastmath);
fmag_value *fmag_build_length(fmag_builder *b, fmag_value *const *x, unsigned n, bool fastmath);
fmag_value *fmag_build_distance(fmag_builder *b, fmag_value *const *x, fmag_value *const *y,
                                unsigned n, bool fastmath);
/* out[0..n-1] = x / length(x) */
void fmag_build_normalize(fmag_builder *b, fmag_value *const *x, unsigned n, fmag_value **out,
                          bool fastmath);
/* out[0..2] = cross(x, y) for 3-component x, y */
void fmag_build_cross(fmag_builder *b, fmag_value *const *x, fmag_value *const *y, fmag_value **out,
                      bool fastmath);

/* any / all of n booleans given as 1.0 / 0.0 (n = 1..4). */
fmag_value *fmag_build_any(fmag_builder *b, fmag_value *const *v, unsigned n);
fmag_value *fmag_build_all(fmag_builder *b, fmag_value *const *v, unsigned n);

/* Geometric builtins over n = 1..4 components (GLSL argument order). */
void fmag_build_reflect(fmag_builder *b, fmag_value *const *I, fmag_value *const *N, unsigned n,
                        fmag_value **out, bool fastmath);
void fmag_build_refract(fmag_builder *b, fmag_value *const *I, fmag_value *const *N,
                        fmag_value *eta, unsigned n, fmag_value **out, bool fastmath);
void fmag_build_faceforward(fmag_builder *b, fmag_value *const *N, fmag_value *const *I,
                            fmag_value *const *Nref, unsigned n, fmag_value **out, bool fastmath);

/* Matrices are scalarized column-major: element (row r, column c) of a matrix with
 * R rows is m[c*R + r]. Square ones are n x n, n = 2..4. */
fmag_value *fmag_build_determinant(fmag_builder *b, fmag_value *const *m, unsigned n,
                                   bool fastmath);
/* out[0..n*n-1] = inverse(m) (undefined, as in GLSL, when m is singular). */
void fmag_build_inverse(fmag_builder *b, fmag_value *const *m, unsigned n, fmag_value **out,
                        bool fastmath);
/* transpose of a cols x rows matrix (cols columns of rows components): pure data
 * movement, out gets rows columns of cols components. */
void fmag_build_transpose(fmag_value *const *m, unsigned cols, unsigned rows, fmag_value **out);
/* outerProduct(c, r): a matrix of cols = len(r) columns, rows = len(c) rows. */
void fmag_build_outer_product(fmag_builder *b, fmag_value *const *c, unsigned rows,
                              fmag_value *const *r, unsigned cols, fmag_value **out);
/* matrixCompMult over count = cols*rows scalars. */
void fmag_build_matrix_comp_mult(fmag_builder *b, fmag_value *const *x, fmag_value *const *y,
                                 unsigned count, fmag_value **out);

/* Derivatives (SPEC 5b, docs/Derivatives.md). A frontend whose program uses them sets
 * module->math_calls before it builds anything, so that the builtins that need a
 * chain rule arrive at -derivatives as calls of intrinsic functions @fmag.<name>;
 * dfdx / dfdy build calls of the placeholders @fmag.dfdx / @fmag.dfdy, which
 * -derivatives replaces by the operand's partial derivative; fwidth is
 * |dfdx| + |dfdy|. */
#define FMAG_DFDX_NAME "fmag.dfdx"
#define FMAG_DFDY_NAME "fmag.dfdy"
fmag_value *fmag_build_dfdx(fmag_builder *b, fmag_value *x);
fmag_value *fmag_build_dfdy(fmag_builder *b, fmag_value *x);
fmag_value *fmag_build_fwidth(fmag_builder *b, fmag_value *x);
/* Whether f is one of the library's intrinsic functions (its name starts "fmag."):
 * -derivatives keeps their calls while it runs. */
bool fmag_math_is_intrinsic(const fmag_func *f);
/* The derivative of an intrinsic call's result along one direction, built at b from
 * the derivatives dargs[k] of its operands (NULL: zero), by the builtin's chain rule;
 * *out is NULL when it is zero. False when call's callee is not a differentiable
 * intrinsic. */
bool fmag_math_intrinsic_derivative(fmag_builder *b, fmag_instr *call, fmag_value *const *dargs,
                                    fmag_value **out);

/* The scalar builtins as a table, for the frontend and the accuracy tool. Exactly
 * one of fn1/fn2/fn3 is set, matching nargs. */
typedef struct fmag_math_builtin {
    const char *name;
    unsigned nargs;
    fmag_value *(*fn1)(fmag_builder *, fmag_value *, bool);
    fmag_value *(*fn2)(fmag_builder *, fmag_value *, fmag_value *, bool);
    fmag_value *(*fn3)(fmag_builder *, fmag_value *, fmag_value *, fmag_value *, bool);
} fmag_math_builtin;

size_t fmag_math_builtin_count(void);
const fmag_math_builtin *fmag_math_builtin_get(size_t i);
const fmag_math_builtin *fmag_math_builtin_lookup(const char *name);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_MATH_H */
