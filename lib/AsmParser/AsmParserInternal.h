/* What the .fir parser and the .fmas assembler share. */
#ifndef FMAG_ASMPARSER_INTERNAL_H
#define FMAG_ASMPARSER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "fmag/IR.h"

/* Text never holds a NUL byte: a binary input is named once ("this is a binary .fmag
 * file, not .fir text (HINT)") instead of echoing its bytes. `what` is ".fir" or
 * ".fmas"; fmag_hint says what to do with a .fmag. True when the input was refused.
 * A leading UTF-8 byte-order mark is skipped (*text and *len move past it). */
bool fmag_asm_refuse_binary(fmag_context *ctx, const char *file, const char **text, size_t *len,
                            const char *what, const char *fmag_hint);

#endif
