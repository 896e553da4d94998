/* fmag.h alone reads SPIR-V through fmag_compile (lib/SPIRV is in the amalgamation) and
 * answers GLSL with "not built in" (shaderc is a link-time library). */
#define FMAG_IMPLEMENTATION
#include "fmag.h"

int main(int argc, char **argv)
{
    static char buf[1 << 16];
    if (argc < 2) return 2;
    FILE *fp = fopen(argv[1], "rb");
    if (!fp) return 2;
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    fmag_context *ctx = fmag_context_create();
    fmag_compile_options o;
    fmag_compile_options_init(&o);
    printf("have spirv %d glsl %d\n", fmag_have_language(FMAG_LANG_SPIRV),
           fmag_have_language(FMAG_LANG_GLSL));
    fmag_image *img = fmag_compile(ctx, argv[1], buf, n, &o);
    fmag_runner *r = img ? fmag_runner_create(ctx, FMAG_ENGINE_REF) : NULL;
    float in[3] = {2, 3, 4}, out[1];
    if (!r || !fmag_run(ctx, r, fmag_image_program(img, 0), in, out, 1)) {
        fmag_context_diag_print(ctx, stderr);
        return 1;
    }
    printf("%g\n", out[0]);
    fmag_runner_destroy(r);
    fmag_image_destroy(img);
    if (!fmag_compile(ctx, "f.glsl", "float f(float x) { return x; }", 30, &o))
        fmag_context_diag_print(ctx, stdout);
    fmag_context_destroy(ctx);
    return 0;
}
