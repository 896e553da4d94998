// fmag.h's declarations from C++ (the implementation is in a C file, cplusplus.test):
// compiles x * 2 + 1 and runs it on the reference VM.
#include "fmag.h"

#include <cstdio>
#include <cstring>

int main()
{
    const char *src = "export f32 f(f32 x) { return x * 2.0 + 1.0; }";
    fmag_context *ctx = fmag_context_create();
    fmag_compile_options o;
    fmag_compile_options_init(&o);
    fmag_image *img = fmag_compile(ctx, "f.sl", src, std::strlen(src), &o);
    fmag_runner *r = img ? fmag_runner_create(ctx, FMAG_ENGINE_REF) : nullptr;
    float in[1] = {3}, out[1];
    if (!r || !fmag_run(ctx, r, fmag_image_program(img, 0), in, out, 1)) {
        fmag_context_diag_print(ctx, stderr);
        return 1;
    }
    std::printf("%g\n", out[0]);
    fmag_runner_destroy(r);
    fmag_image_destroy(img);
    fmag_context_destroy(ctx);
    return 0;
}
