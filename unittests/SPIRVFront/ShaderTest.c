/* Unit tests of the GLSL/HLSL front door through the public API (include/fmag/SPIRV.h):
 * interface sizes, compiler reuse, programs run on the IR interpreter against hand
 * values, diagnostics and hostile text. Without shaderc only the stub is checked. */
#include "fmag/IR.h"
#include "fmag/SPIRV.h"
#include "fmag/Shader.h"

#include "../Expect.h"
#include "../../lib/Shader/GlslangDiag.h"

#include <stdlib.h>
#include <string.h>

static const char *glsl = "// comment\n"
                          "float k(float x) { return x * 3.0; }\n"
                          "vec2 f(vec2 a, inout float b, out float c, mat2 m)\n"
                          "{\n"
                          "    b = b + 1.0;\n"
                          "    c = m[1][0];\n"
                          "    return vec2(k(a.y), m[0][1]);\n"
                          "}\n";

static void test_stub(void)
{
    fmag_context *ctx = fmag_context_create();
    fmag_shader_spirv s;
    EXPECT(!fmag_shader_to_spirv(ctx, "t.glsl", glsl, strlen(glsl), FMAG_SOURCE_GLSL, "f", &s));
    EXPECT(fmag_context_diag_count(ctx) == 1 &&
           strstr(fmag_context_diag(ctx, 0), "built without GLSL/HLSL input"));
    EXPECT(fmag_shader_compiler_create() == NULL);
    fmag_context_destroy(ctx);
}

static void test_spirv(void)
{
    fmag_context *ctx = fmag_context_create();
    fmag_shader_compiler *c = fmag_shader_compiler_create();
    EXPECT(c != NULL);
    fmag_shader_spirv a, b;
    /* a (2) + b (1) + m (4) in; result (2) + b (1) + c (1) out. */
    EXPECT(
        fmag_shader_to_spirv_with(c, ctx, "t.glsl", glsl, strlen(glsl), FMAG_SOURCE_GLSL, "f", &a));
    EXPECT(a.nin == 7 && a.nout == 4 && a.nwords > 5 && a.words[0] == 0x07230203u);
    /* The same text through the same compiler gives the same module. */
    EXPECT(
        fmag_shader_to_spirv_with(c, ctx, "t.glsl", glsl, strlen(glsl), FMAG_SOURCE_GLSL, "f", &b));
    EXPECT(a.nwords == b.nwords && !memcmp(a.words, b.words, a.nwords * 4));
    fmag_shader_spirv_free(&a);
    fmag_shader_spirv_free(&b);
    EXPECT(a.words == NULL && a.nwords == 0);
    fmag_shader_compiler_destroy(c);
    fmag_context_destroy(ctx);
}

static void test_import(void)
{
    fmag_context *ctx = fmag_context_create();
    fmag_spirv_options o;
    memset(&o, 0, sizeof o);
    o.entry = "f";
    fmag_module *m = fmag_glsl_import(ctx, "t.glsl", glsl, strlen(glsl), FMAG_SOURCE_GLSL, &o);
    EXPECT(m != NULL);
    fmag_func *f = m ? fmag_module_get_func(m, "f") : NULL;
    EXPECT(f && f->is_export && f->nparams == 7 && f->nresults == 4);
    /* a = (1, 2), b = 5, m = columns (10, 20) (30, 40): a.x is never read, and stays an
     * input. Outputs: (k(a.y), m[0][1]) = (6, 20), b + 1 = 6, c = m[1][0] = 30. */
    float in[7] = {1, 2, 5, 10, 20, 30, 40}, out[4] = {0};
    EXPECT(f && fmag_interp_func(f, in, out));
    EXPECT(out[0] == 6.0f && out[1] == 20.0f && out[2] == 6.0f && out[3] == 30.0f);

    /* HLSL: matrices column by column as well (m00 m10 m01 m11). */
    const char *hlsl = "float2 g(float2x2 m) { return float2(m[0][1], m[1][0]); }\n";
    o.entry = "g";
    m = fmag_glsl_import(ctx, "t.hlsl", hlsl, strlen(hlsl), FMAG_SOURCE_HLSL, &o);
    fmag_func *g = m ? fmag_module_get_func(m, "g") : NULL;
    float hin[4] = {1, 2, 3, 4}, hout[2] = {0};
    EXPECT(g && g->nparams == 4 && g->nresults == 2 && fmag_interp_func(g, hin, hout));
    EXPECT(hout[0] == 3.0f && hout[1] == 2.0f);
    fmag_context_destroy(ctx);
}

/* Text that must fail with a diagnostic and nothing worse. */
static void test_hostile(void)
{
    static const char *const bad[] = {
        "",
        "{",
        "}}}}",
        "float f(",
        "float f(float x) { return x; ",
        "vec3 f(vec3 a[) { return a; }",
        "float f(float x[0]) { return x[0]; }",
        "float f(float x[N]) { return x[0]; }",
        "#if\n",
        "#define f(\n",
        "float f(float x) { return x; }\n#error boom\n",
        "in float x; out float y; void main() { y = x; } void main() { }",
        "layout(location=0) in; out float y;",
        "uniform struct S { float a; } s;",
        "float f(float, float) { return 1.0; }",
    };
    fmag_context *ctx = fmag_context_create();
    fmag_shader_compiler *c = fmag_shader_compiler_create();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fmag_shader_spirv s;
        fmag_context_diag_clear(ctx);
        bool ok = fmag_shader_to_spirv_with(c, ctx, "bad.glsl", bad[i], strlen(bad[i]),
                                            FMAG_SOURCE_GLSL, i % 2 ? "f" : NULL, &s);
        if (ok) {
            fmag_shader_spirv_free(&s);
        } else {
            EXPECT(fmag_context_diag_count(ctx) > 0);
        }
    }
    /* A NUL byte inside the text. */
    char nul[] = "float f(float x) { return x; }\0 junk";
    fmag_shader_spirv s;
    EXPECT(!fmag_shader_to_spirv_with(c, ctx, "nul.glsl", nul, sizeof nul - 1, FMAG_SOURCE_GLSL,
                                      "f", &s));
    fmag_shader_compiler_destroy(c);
    fmag_context_destroy(ctx);
}

/* glslang's message text in SL's words (GlslangDiag.c), each expected string written by
 * hand from glslang's own output for the mistake (test/SPIRV/glsl-messages.test runs the
 * real compiler); and degenerate text never gives an empty message or reads past it. */
static void test_glslang_messages(void)
{
    static const struct {
        const char *in;
        bool hlsl, earlier, kept;
        const char *out, *tok;
    } cases[] = {
        {"'' :  syntax error, unexpected RETURN, expecting COMMA or SEMICOLON", false, false, true,
         "expected ',' or ';' before 'return'", "return"},
        {"'' :  syntax error, unexpected SEMICOLON", false, false, true, "unexpected ';'", ";"},
        {"'' : syntax error, unexpected $end", false, false, true, "unexpected end of input", ""},
        {"'zzz' : undeclared identifier", false, false, true, "use of undeclared identifier 'zzz'",
         "zzz"},
        {"'zzz' : unknown variable", true, false, true, "use of undeclared identifier 'zzz'",
         "zzz"},
        {"'=' :  cannot convert from ' in highp float' to ' temp highp 3-component vector of "
         "float'",
         false, false, true, "cannot convert from 'float' to 'vec3'", "="},
        {"'=' :  cannot convert from ' const int' to ' temp 2-component vector of float'", true,
         false, true, "cannot convert from 'int' to 'float2'", "="},
        {"';' : Expected", true, false, true, "expected ';'", ""},
        {"'expression' : Expected", true, false, true, "expected expression", ""},
        {"'' : function does not return a value: @f", true, false, true,
         "function 'f' does not return a value", ""},
        {"'' : function does not return a value: @f", true, true, false, "", ""},
        {"'' : Could not perform requested binary operation", true, true, false, "", ""},
        {"HLSL parsing failed.", true, false, true, "syntax error", ""},
        {"HLSL parsing failed.", true, true, false, "", ""},
        {"'sin' : no matching overloaded function found", false, false, true,
         "'sin': no matching overloaded function found", "sin"},
        {"#version: Desktop shaders for Vulkan SPIR-V require version 140 or higher", false, false,
         true, "#version: Desktop shaders for Vulkan SPIR-V require version 140 or higher", ""},
        {"", false, false, true, "glslang failed without a message", ""},
        {"'' :", false, false, true, "'' :", ""},
        {"'a' : ", false, false, true, "'a'", "a"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256], tok[64];
        bool kept = fmag_glslang_message(cases[i].in, strlen(cases[i].in), cases[i].hlsl,
                                         cases[i].earlier, out, sizeof out, tok, sizeof tok);
        EXPECT(kept == cases[i].kept);
        if (kept && (strcmp(out, cases[i].out) || strcmp(tok, cases[i].tok))) {
            fprintf(stderr, "case %zu: got '%s' (token '%s')\n", i, out, tok);
            EXPECT(!"glslang message");
        }
    }
    /* A small buffer truncates, never overflows. */
    char small[8], tok[2];
    EXPECT(fmag_glslang_message(cases[0].in, strlen(cases[0].in), false, false, small, sizeof small,
                                tok, sizeof tok));
    EXPECT(strlen(small) == sizeof small - 1 && strlen(tok) <= 1);
    /* Columns: a token once on the line, whole; none when twice or inside another. */
    EXPECT(fmag_glslang_token_column("  return x * zzz;", 17, "zzz") == 14);
    EXPECT(fmag_glslang_token_column("  vec3 v = x;", 13, "=") == 10);
    EXPECT(fmag_glslang_token_column("a == b = c", 10, "=") == 8);
    EXPECT(fmag_glslang_token_column("y = x +; z = 1.0;", 17, ";") == 0);
    EXPECT(fmag_glslang_token_column("zzz + zz", 8, "z") == 0);
    EXPECT(fmag_glslang_token_column("", 0, "x") == 0);
}

int main(void)
{
    test_glslang_messages();
    if (!fmag_shader_input_available()) {
        test_stub();
        return failures != 0;
    }
    test_spirv();
    test_import();
    test_hostile();
    if (failures) fprintf(stderr, "%d expectation(s) failed\n", failures);
    return failures != 0;
}
