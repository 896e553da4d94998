/* libFuzzer harness for the SPIR-V reader on arbitrary words: the input bytes
 * are the module (a trailing partial word is dropped). Besides "no crash", a
 * rejected module must carry a diagnostic, an "internal:" diagnostic is a reader
 * bug, and what the import accepts goes through the -O2 pipeline. Seeds:
 * fuzz/run.sh assembles test/SPIRV's modules. */
#include "fmag/IR.h"
#include "fmag/SPIRV.h"
#include "spirv_fuzz_check.h"
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
    fmag_spirv_options o;
    memset(&o, 0, sizeof o);
    /* The last partial word picks the options. */
    uint8_t opt = size % 4 ? data[size - 1] : 0;
    o.entry = opt & 1 ? "f" : NULL;
    o.fastmath = opt & 2;
    o.globals_as_inputs = opt & 4;
    spirv_fuzz_import_and_check(w, n, &o);
    free(w);
    return 0;
}
