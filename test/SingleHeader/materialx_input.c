/* fmag.h with FMAG_SINGLE_HEADER_MATERIALX (and -lexpat) reads MaterialX documents
 * through fmag_compile; without the macro it answers one with the reason. The document:
 * out = texcoord.x * gain + 0.25, gain an interface input (the program's first input). */
#define FMAG_IMPLEMENTATION
#include "fmag.h"

static const char doc[] =
    "<?xml version=\"1.0\"?>\n"
    "<materialx version=\"1.38\">\n"
    "  <nodegraph name=\"g\">\n"
    "    <input name=\"gain\" type=\"float\" value=\"2\"/>\n"
    "    <texcoord name=\"uv\" type=\"vector2\"/>\n"
    "    <multiply name=\"m\" type=\"float\">\n"
    "      <input name=\"in1\" type=\"float\" nodename=\"uv\" channels=\"x\"/>\n"
    "      <input name=\"in2\" type=\"float\" interfacename=\"gain\"/>\n"
    "    </multiply>\n"
    "    <add name=\"a\" type=\"float\">\n"
    "      <input name=\"in1\" type=\"float\" nodename=\"m\"/>\n"
    "      <input name=\"in2\" type=\"float\" value=\"0.25\"/>\n"
    "    </add>\n"
    "    <output name=\"out\" type=\"float\" nodename=\"a\"/>\n"
    "  </nodegraph>\n"
    "</materialx>\n";

int main(void)
{
    fmag_context *ctx = fmag_context_create();
    fmag_compile_options o;
    fmag_compile_options_init(&o);
    printf("have mtlx %d\n", fmag_have_language(FMAG_LANG_MTLX));
    fmag_image *img = fmag_compile(ctx, "look.mtlx", doc, sizeof doc - 1, &o);
    if (!img) {
        fmag_context_diag_print(ctx, stdout);
        fmag_context_destroy(ctx);
        return 0;
    }
    fmag_runner *r = fmag_runner_create(ctx, FMAG_ENGINE_REF);
    float in[3] = {3, 0.5f, 0.125f}, out[1]; /* gain, texcoord.x, texcoord.y */
    if (!r || !fmag_run(ctx, r, fmag_image_program(img, 0), in, out, 1)) {
        fmag_context_diag_print(ctx, stderr);
        return 1;
    }
    printf("%g\n", out[0]);
    fmag_runner_destroy(r);
    fmag_image_destroy(img);
    fmag_context_destroy(ctx);
    return 0;
}
