/* libFuzzer harness for the .fir parser, verifier and printer. Besides "no crash",
 * it checks the round-trip contract: a module that parses and verifies must print
 * to text that parses back to an equal module. A module with integers also goes
 * through -legalize-int, whose result must verify, hold no integer, and compute what
 * the original computes on the IR interpreter (bit for bit, NaN equal to NaN). */
#include "fmag/IR.h"
#include "fmag/Transforms.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool same(float a, float b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static void check_legalize(fmag_module *m)
{
    bool ints = false;
    fmag_foreach_func (f, m)
        ints |= fmag_func_has_int(f);
    if (!ints) return;
    fmag_module *l = fmag_module_clone(m);
    bool ok = true;
    fmag_foreach_func (f, l)
        ok &= fmag_opt_legalize_int(f) != FMAG_PASS_FAILED;
    if (!ok) return; /* integer parameters of a function not inlined: a diagnostic */
    if (!fmag_verify_module(l)) __builtin_trap();
    fmag_foreach_func (f, l)
        if (fmag_func_has_int(f)) __builtin_trap();
    static const float inputs[3][4] = {{0.0f, 1.0f, -2.5f, 3e9f},
                                       {-7.0f, 65536.0f, 1e-40f, -1e30f},
                                       {123456.0f, -0.0f, 4294967040.0f, 0.5f}};
    fmag_foreach_func (f, m) {
        fmag_func *g = fmag_module_get_func(l, f->name);
        if (!f->is_export || !g || f->nparams > 4 || f->nresults > 16) continue;
        for (int t = 0; t < 3; t++) {
            float a[16], b[16];
            if (!fmag_interp_func(f, inputs[t], a) || !fmag_interp_func(g, inputs[t], b)) continue;
            for (unsigned k = 0; k < f->nresults; k++)
                if (!same(a[k], b[k])) __builtin_trap();
        }
    }
}

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
        check_legalize(m);
        if (m->first) fmag_opt_dce(m->first);
        free(buf);
    }
    fmag_context_destroy(ctx);
    return 0;
}
