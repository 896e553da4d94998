/* FMAG SL: the shading language frontend (SPEC §5) as a library — lexer, parser,
 * type checker and IR generation through the public builder API. */
#ifndef FMAG_SL_H
#define FMAG_SL_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdbool.h>
#include <stddef.h>
#include "fmag/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fmag_sl_options {
    bool fastmath;     /* module is marked fastmath; builtins may pick shorter sequences */
    const char *entry; /* only this export becomes a program; NULL = all exports */
} fmag_sl_options;

/* Compiles SL source to an unoptimized IR module (calls not inlined, control flow
 * as written). Every export function becomes an export fmag_func whose params are
 * the scalarized non-`out` parameters and whose results are the scalarized return
 * value followed by each `out` parameter; all of them f32 (an i32/u32 parameter is
 * converted from its float as i32(x)/u32(x), an integer result to the nearest float),
 * while integers pass between non-export functions as i32. Returns NULL with diagnostics
 * "file:line:col: error: msg" + source line + caret in ctx (several per run).
 * opts may be NULL (strict mode, all exports). Never aborts on any input. */
fmag_module *fmag_sl_compile(fmag_context *ctx, const char *filename, const char *src, size_t len,
                             const fmag_sl_options *opts);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_SL_H */
