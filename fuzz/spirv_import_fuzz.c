/* libFuzzer harness for the SPIR-V reader on arbitrary words: the input bytes
 * are the module (a trailing partial word is dropped). Besides "no crash", a
 * rejected module must carry a diagnostic, an "internal:" diagnostic is a reader
 * bug, and what the import accepts goes through the -O2 pipeline. Seeds:
 * fuzz/run.sh assembles test/SPIRV's modules. */
#include "fmag/IR.h"
#include "fmag/SPIRV.h"
#include "fmag/Transforms.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = size / 4;
    uint32_t *w = malloc(n ? n * 4 : 4);
    if (!w) return 0;
    memcpy(w, data, n * 4);
    fmag_context *ctx = fmag_context_create();
    fmag_spirv_options o;
    memset(&o, 0, sizeof o);
    /* The last partial word picks the options. */
    uint8_t opt = size % 4 ? data[size - 1] : 0;
    o.entry = opt & 1 ? "f" : NULL;
    o.fastmath = opt & 2;
    o.globals_as_inputs = opt & 4;
    fmag_module *m = fmag_spirv_import(ctx, w, n, &o);
    if (m) {
        fmag_pass_options po;
        memset(&po, 0, sizeof po);
        fmag_run_passes(m, "O2", &po);
    } else if (fmag_context_diag_count(ctx) == 0) {
        __builtin_trap(); /* a rejected module must say why */
    }
    for (size_t i = 0; i < fmag_context_diag_count(ctx); i++) {
        /* after "error: ", since the file name comes from the module's OpString */
        const char *e = strstr(fmag_context_diag(ctx, i), "error: ");
        if (e && strstr(e, "internal: ")) {
            fmag_context_diag_print(ctx, stderr);
            __builtin_trap();
        }
    }
    fmag_context_destroy(ctx);
    free(w);
    return 0;
}
