/* What both SPIR-V harnesses check of one import: a module that imports also goes
 * through -O2; a rejected one says why; no diagnostic reports a reader bug
 * ("internal: ..."). Traps on a violation so libFuzzer keeps the input. */
#ifndef FMAG_FUZZ_SPIRV_CHECK_H
#define FMAG_FUZZ_SPIRV_CHECK_H

#include <stdio.h>
#include <string.h>
#include "fmag/IR.h"
#include "fmag/SPIRV.h"
#include "fmag/Transforms.h"

static void spirv_fuzz_import_and_check(const uint32_t *w, size_t n, const fmag_spirv_options *o)
{
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = fmag_spirv_import(ctx, w, n, o);
    if (m) {
        fmag_pass_options po;
        memset(&po, 0, sizeof po);
        fmag_run_passes(m, "O2", &po);
    } else if (fmag_context_diag_count(ctx) == 0) {
        __builtin_trap(); /* a rejected module must say why */
    }
    for (size_t i = 0; i < fmag_context_diag_count(ctx); i++) {
        /* The record's message, not the text: the file name before it comes from the
         * module's OpString and the source excerpt after it from OpSource, so either
         * may hold "error: internal: " */
        fmag_diagnostic d;
        if (fmag_context_diag_record(ctx, i, &d) && !strncmp(d.message, "internal: ", 10)) {
            fmag_context_diag_print(ctx, stderr);
            __builtin_trap();
        }
    }
    fmag_context_destroy(ctx);
}

#endif
