/* libFuzzer harness for the MaterialX reader (expat, the document walk, every node's
 * IR) and, for documents that compile, the verifier and the -O2 pipeline. Besides "no
 * crash" it checks that what the reader accepts is valid IR and that a rejected
 * document says why, and that an edit of the document, compiled in the context that
 * has it cached (lib/MaterialX/DocCache.c), says what a fresh context says. Seeds:
 * test/MaterialX/ and fuzz/corpus/mtlx-fuzz/. */
#include "fmag/IR.h"
#include "fmag/MaterialX.h"
#include "fmag/Transforms.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool same_outcome(fmag_context *a, fmag_module *ma, fmag_context *b, fmag_module *mb)
{
    if (!ma != !mb || fmag_context_diag_count(a) != fmag_context_diag_count(b)) return false;
    for (size_t i = 0; i < fmag_context_diag_count(a); i++)
        if (strcmp(fmag_context_diag(a, i), fmag_context_diag(b, i))) return false;
    return true;
}

/* The first value="..." with its first byte changed: the edit a slider makes. */
static void check_edit(fmag_context *ctx, const fmag_mtlx_options *opts, const uint8_t *data,
                       size_t size)
{
    static const char key[] = "value=\"";
    size_t n = sizeof key - 1, at = 0;
    while (at + n < size && memcmp(data + at, key, n))
        at++;
    if (at + n >= size) return;
    char *text = malloc(size);
    if (!text) return;
    memcpy(text, data, size);
    text[at + n] = text[at + n] == '7' ? '3' : '7';
    fmag_context_reset(ctx);
    fmag_module *m = fmag_mtlx_compile(ctx, "fuzz.mtlx", text, size, opts);
    fmag_context *fresh = fmag_context_create();
    fmag_module *mf = fmag_mtlx_compile(fresh, "fuzz.mtlx", text, size, opts);
    if (!same_outcome(ctx, m, fresh, mf)) __builtin_trap(); /* the cache changed the answer */
    fmag_context_destroy(fresh);
    free(text);
}

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
    check_edit(ctx, &opts, data, size);
    fmag_context_destroy(ctx);
    return 0;
}
