/* fmag.h alone, as an embedder includes it: the API compiles, and the IR's types are
 * handles only (opaque.test's LEAK build must fail). */
#include "fmag/fmag.h"

size_t use(fmag_context *ctx)
{
    fmag_compile_options o;
    fmag_compile_options_init(&o);
    fmag_compile_result r;
    fmag_compile_result_init(&r);
    fmag_status st = fmag_compile_ex(ctx, "x.sl", "", 0, &o, &r);
    fmag_compile_result_free(&r);
    return (size_t)st + sizeof(fmag_diagnostic);
}

#ifdef LEAK
size_t leak(fmag_module *m)
{
    return sizeof(*m) + sizeof(struct fmag_func);
}
#endif
