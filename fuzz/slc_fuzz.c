/* libFuzzer harness for the SL frontend (lexer, parser, checker, IR generation)
 * and, for sources that compile, the verifier and the -O2 pipeline. Besides "no
 * crash", it checks that everything the frontend accepts is valid IR. */
#include "fmag/IR.h"
#include "fmag/SL.h"
#include "fmag/Transforms.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fmag_context *ctx = fmag_context_create();
    fmag_sl_options opts = {size > 0 && (data[0] & 1), NULL};
    fmag_module *m = fmag_sl_compile(ctx, "fuzz.sl", (const char *)data, size, &opts);
    bool any_export = false;
    if (m)
        fmag_foreach_func (f, m)
            any_export |= f->is_export;
    if (m && any_export) {
        if (!fmag_verify_module(m)) __builtin_trap(); /* the frontend produced invalid IR */
        fmag_pass_options po;
        memset(&po, 0, sizeof po);
        fmag_run_passes(m, "O2", &po);
    } else if (!m && fmag_context_diag_count(ctx) == 0) {
        __builtin_trap(); /* a rejected program must say why */
    }
    fmag_context_destroy(ctx);
    return 0;
}
