/* libFuzzer harness for the .fir parser, verifier and printer. Besides "no crash",
 * it checks the round-trip contract: a module that parses and verifies must print
 * to text that parses back to an equal module. */
#include "fmag/IR.h"
#include "fmag/Transforms.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = fmag_parse_module(ctx, "fuzz.fir", (const char *)data, size);
    if (m && fmag_verify_module(m)) {
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        fmag_module_print(m, mem, 0);
        fclose(mem);
        fmag_module *back = fmag_parse_module(ctx, "printed.fir", buf, len);
        if (!back || !fmag_module_equal(m, back)) __builtin_trap();
        if (m->first) fmag_opt_dce(m->first);
        free(buf);
    }
    fmag_context_destroy(ctx);
    return 0;
}
