/* libFuzzer harness for the MaterialX reader (expat, the document walk, every node's
 * IR) and, for documents that compile, the verifier and the -O2 pipeline. Besides "no
 * crash" it checks that what the reader accepts is valid IR and that a rejected
 * document says why. Seeds: test/MaterialX/ and fuzz/corpus/mtlx-fuzz/. */
#include "fmag/IR.h"
#include "fmag/MaterialX.h"
#include "fmag/Transforms.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fmag_context *ctx = fmag_context_create();
    fmag_mtlx_options opts = {size > 0 && (data[0] & 1), NULL};
    fmag_module *m = fmag_mtlx_compile(ctx, "fuzz.mtlx", (const char *)data, size, &opts);
    if (m) {
        if (!fmag_verify_module(m)) __builtin_trap(); /* the reader produced invalid IR */
        fmag_pass_options po;
        memset(&po, 0, sizeof po);
        fmag_run_passes(m, "O2", &po);
    } else if (fmag_context_diag_count(ctx) == 0) {
        __builtin_trap(); /* a rejected document must say why */
    }
    fmag_context_destroy(ctx);
    return 0;
}
