/* FMAG float literal checks shared by the .fir parser, the .fmas assembler and the
 * SL lexer, on top of fmag_parse_float (fmag/IR.h), so all three reject the same text. */
#ifndef FMAG_FLOATTEXT_H
#define FMAG_FLOATTEXT_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* True when s[0, len) is a decimal literal (optional sign, digits, '.', exponent)
 * with a non-zero digit whose float32 value is zero: a number too small for
 * float32, such as 1e-50. Callers report it as an error, like a decimal that
 * overflows to infinity. A hex float (0x1p-200) is never flagged: its bits are
 * spelled out, so rounding to a denormal or to zero is what the writer asked for. */
bool fmag_float_literal_underflows(const char *s, size_t len, float value);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop
#endif
