/* A user's file that includes C library headers before fmag.h, as most files do: the
 * implementation's feature-test macros then come too late for the C library (issue 31:
 * strnlen, clock_gettime, open_memstream, aligned_alloc undeclared under -std=c99). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define FMAG_IMPLEMENTATION
#include "fmag.h"

int main(void)
{
    const char *src = "export f32 f(f32 x) { return x * 2.0 + 1.0; }";
    fmag_context *ctx = fmag_context_create();
    fmag_compile_options o;
    fmag_compile_options_init(&o);
    fmag_image *img = fmag_compile(ctx, "f.sl", src, strlen(src), &o);
    fmag_runner *r = img ? fmag_runner_create(ctx, FMAG_ENGINE_REF) : NULL;
    float in[1] = {3}, out[1];
    if (!r || !fmag_run(ctx, r, fmag_image_program(img, 0), in, out, 1)) {
        fmag_context_diag_print(ctx, stderr);
        return 1;
    }
    printf("f(3) = %g\n", out[0]);
    fmag_runner_destroy(r);
    fmag_image_destroy(img);
    fmag_context_destroy(ctx);
    return 0;
}
