/* Unit tests of fmag/fmag.h: compiling (SL, .fir, .fmas, builder modules), inspecting,
 * running on the CPU engines (results against float32 arithmetic worked here), images
 * through bytes, diagnostics as records (positions known by construction), and the GPU
 * runners' errors where there is no device. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "../Expect.h"
#include "fmag/IR.h"    /* the builder */
#include "fmag/SPIRV.h" /* the shader compiler's slot name */
#include "fmag/fmag.h"

static bool same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static fmag_image *compile(fmag_context *ctx, const char *name, const char *src)
{
    return fmag_compile(ctx, name, src, strlen(src), NULL);
}

static void test_version(void)
{
    EXPECT(!strcmp(fmag_version(), FMAG_VERSION_STRING));
    EXPECT(fmag_version_number() == FMAG_VERSION_NUMBER);
    EXPECT(FMAG_VERSION_NUMBER ==
           FMAG_VERSION_MAJOR * 10000 + FMAG_VERSION_MINOR * 100 + FMAG_VERSION_PATCH);
}

static void test_compile_run(void)
{
    fmag_context *ctx = fmag_context_create();
    fmag_image *img = compile(
        ctx, "f.sl", "export f32 f(f32 x, f32 y, out f32 z) { z = x - y; return x * y + 0.5; }");
    EXPECT(img && fmag_image_program_count(img) == 1);
    if (!img) return;
    const fmag_vm_program *p = fmag_image_program(img, 0);
    EXPECT(p == fmag_image_find(img, "f") && !fmag_image_find(img, "g"));
    EXPECT(!fmag_image_program(img, 1));
    EXPECT(!strcmp(fmag_program_name(p), "f"));
    EXPECT(fmag_program_inputs(p) == 2 && fmag_program_outputs(p) == 2);
    EXPECT(fmag_program_flags(p) == 0 && fmag_program_deriv_inputs(p) == 0);
    EXPECT(fmag_program_regs(p) >= 2 && fmag_program_instr_count(p) >= 2);
    fmag_vm_decoded d;
    EXPECT(fmag_program_instr(p, 0, &d));
    EXPECT(!fmag_program_instr(p, fmag_program_instr_count(p), &d));
    char *text = fmag_program_disassemble(p);
    EXPECT(text && strstr(text, ".def f, 2, 2"));
    free(text);

    enum { N = 300 };
    float in[N][2], out[N][2], out2[N][2];
    for (int k = 0; k < N; k++) {
        in[k][0] = (float)k * 0.37f - 50.0f;
        in[k][1] = 1.0f / (float)(k + 1);
    }
    fmag_runner *ref = fmag_runner_create(ctx, FMAG_ENGINE_REF);
    fmag_runner *batch = fmag_runner_create(ctx, FMAG_ENGINE_BATCH);
    EXPECT(ref && batch && fmag_runner_engine(batch) == FMAG_ENGINE_BATCH);
    fmag_runner_set_threads(batch, 3);
    EXPECT(fmag_run(ctx, ref, p, &in[0][0], &out[0][0], N));
    EXPECT(fmag_run(ctx, batch, p, &in[0][0], &out2[0][0], N));
    /* NULL where a pointer is needed: a diagnostic each, no crash */
    size_t nd = fmag_context_diag_count(ctx);
    EXPECT(!fmag_run(ctx, ref, fmag_image_find(img, "typo"), &in[0][0], &out[0][0], N));
    EXPECT(fmag_context_diag_count(ctx) == nd + 1 &&
           strstr(fmag_context_diag(ctx, nd), "fmag_run: the program is NULL"));
    EXPECT(!fmag_run(ctx, NULL, p, &in[0][0], &out[0][0], N));
    EXPECT(!fmag_run(ctx, ref, p, NULL, &out[0][0], N) &&
           !fmag_run(ctx, ref, p, &in[0][0], NULL, 1));
    EXPECT(fmag_run(ctx, ref, p, NULL, NULL, 0));
    EXPECT(!fmag_run_per_lane(ctx, ref, NULL, NULL, &in[0][0], 2, &out[0][0], 2, N));
    EXPECT(fmag_context_diag_count(ctx) == nd + 5);
    for (int k = 0; k < N; k++) {
        volatile float prod = in[k][0] * in[k][1]; /* strict: two roundings */
        EXPECT(same_bits(out[k][0], prod + 0.5f));
        EXPECT(same_bits(out[k][1], in[k][0] - in[k][1]));
        EXPECT(same_bits(out2[k][0], out[k][0]) && same_bits(out2[k][1], out[k][1]));
    }

    /* the image outlives the context's IR, and goes through bytes unchanged */
    fmag_context_reset(ctx);
    void *bytes;
    size_t len;
    EXPECT(fmag_image_write(ctx, img, &bytes, &len));
    fmag_image *img2 = fmag_image_read(ctx, bytes, len);
    EXPECT(img2 &&
           fmag_program_instr_count(fmag_image_program(img2, 0)) == fmag_program_instr_count(p));
    ((unsigned char *)bytes)[0] = 'X';
    EXPECT(!fmag_image_read(ctx, bytes, len) && fmag_context_diag_count(ctx) == 1);
    free(bytes);
    fmag_image_destroy(img2);
    fmag_image_destroy(img);
    fmag_runner_destroy(ref);
    fmag_runner_destroy(batch);
    fmag_context_destroy(ctx);
}

static void test_languages(void)
{
    fmag_context *ctx = fmag_context_create();
    fmag_runner *ref = fmag_runner_create(ctx, FMAG_ENGINE_REF);
    const char *fir = "export func @g(%x) -> 1 {\n^entry:\n  %0 = mul %x, 3.0\n  ret %0\n}\n"
                      "export func @h(%x) -> 1 {\n^entry:\n  ret %x\n}\n";
    fmag_compile_options o;
    fmag_compile_options_init(&o);
    o.entry = "g";
    o.pipeline = "O0";
    fmag_image *img = fmag_compile(ctx, "g.fir", fir, strlen(fir), &o);
    EXPECT(img && fmag_image_program_count(img) == 1);
    float x = 1.25f, y = 0;
    EXPECT(img && fmag_run(ctx, ref, fmag_image_program(img, 0), &x, &y, 1) && y == 3.75f);
    fmag_image_destroy(img);

    const char *fmas = ".def two, 1, 1\n    %r0 = fmag %r0, 2, 0, 1\n";
    img = compile(ctx, "t.fmas", fmas);
    EXPECT(img && fmag_run(ctx, ref, fmag_image_program(img, 0), &x, &y, 1) && y == 2.5f);
    fmag_image_destroy(img);

    /* fast-math is recorded in the program's flags */
    fmag_compile_options_init(&o);
    o.fastmath = true;
    o.fast_codegen = true;
    const char *sl = "export f32 f(f32 x) { return x * 2.0 + 1.0; }";
    img = fmag_compile(ctx, "f.sl", sl, strlen(sl), &o);
    EXPECT(img && (fmag_program_flags(fmag_image_program(img, 0)) & FMAG_VM_FLAG_FASTMATH));
    fmag_image_destroy(img);

    /* a program with derivatives says how many inputs carry them (docs/Derivatives.md):
     * x and k, so 2 + 2*2 inputs; dfdx(x*k) at (3, 5) along (1, 0) is 5 */
    fmag_compile_options_init(&o);
    const char *dsl = "export f32 f(f32 x, f32 k) { return dfdx(x * k); }";
    img = fmag_compile(ctx, "d.sl", dsl, strlen(dsl), &o);
    const fmag_vm_program *dp = img ? fmag_image_program(img, 0) : NULL;
    EXPECT(dp && fmag_program_deriv_inputs(dp) == 2 && fmag_program_inputs(dp) == 6 &&
           (fmag_program_flags(dp) & FMAG_VM_FLAG_DERIVS));
    float din[6] = {3, 5, 1, 0, 0, 1}, dout = 0;
    EXPECT(dp && fmag_run(ctx, ref, dp, din, &dout, 1) && dout == 5.0f);
    fmag_image_destroy(img);

    /* per-lane: element k runs program idx[k] */
    img = compile(ctx, "two.sl",
                  "export f32 a(f32 x) { return x + 1.0; }\n"
                  "export f32 b(f32 x, f32 y) { return x * y; }\n");
    uint32_t idx[4] = {0, 1, 1, 0};
    float in[4][2] = {{1, 9}, {2, 3}, {4, 5}, {6, 9}}, out[4] = {0};
    EXPECT(img && fmag_run_per_lane(ctx, ref, img, idx, &in[0][0], 2, out, 1, 4));
    EXPECT(out[0] == 2 && out[1] == 6 && out[2] == 20 && out[3] == 7);
    idx[2] = 7;
    EXPECT(!fmag_run_per_lane(ctx, ref, img, idx, &in[0][0], 2, out, 1, 4));
    fmag_image_destroy(img);

    /* FMAG_LANG_AUTO: the content first, then the name. .fir and .fmas text under no
     * name or a wrong one is read as what it is; a .fmag image is refused by name. */
    img = compile(ctx, NULL, fir);
    EXPECT(img && fmag_image_program_count(img) == 2);
    EXPECT(img && fmag_run(ctx, ref, fmag_image_program(img, 0), &x, &y, 1) && y == 3.75f);
    fmag_image_destroy(img);
    img = compile(ctx, "notes.sl", fmas);
    EXPECT(img && fmag_run(ctx, ref, fmag_image_program(img, 0), &x, &y, 1) && y == 2.5f);
    fmag_image_destroy(img);
    const char fmag_bytes[] = "FMAG\1\0\0\0";
    fmag_context_diag_clear(ctx);
    EXPECT(!fmag_compile(ctx, "x.sl", fmag_bytes, sizeof fmag_bytes - 1, NULL));
    EXPECT(fmag_context_diag_count(ctx) == 1 &&
           strstr(fmag_context_diag(ctx, 0), "x.sl: error: this is a compiled .fmag image"));
    fmag_context_diag_clear(ctx);

    EXPECT(fmag_have_language(FMAG_LANG_SL) && fmag_have_language(FMAG_LANG_FMAS));

    /* GLSL: the context keeps its shaderc compiler through resets (its setup is the
     * cost of a compile otherwise), and destroys it with itself (ASan: no leak). */
    if (fmag_have_language(FMAG_LANG_GLSL)) {
        const char *glsl = "float twice(float x) { return 2.0 * x; }";
        fmag_compile_options_init(&o);
        o.language = FMAG_LANG_GLSL;
        o.entry = "twice";
        EXPECT(!fmag_context_slot_get(ctx, FMAG_CONTEXT_SLOT_SHADER_COMPILER));
        img = fmag_compile(ctx, "t.glsl", glsl, strlen(glsl), &o);
        EXPECT(img && fmag_run(ctx, ref, fmag_image_program(img, 0), &x, &y, 1) && y == 2.5f);
        fmag_image_destroy(img);
        void *kept = fmag_context_slot_get(ctx, FMAG_CONTEXT_SLOT_SHADER_COMPILER);
        EXPECT(kept != NULL);
        fmag_context_reset(ctx);
        img = fmag_compile(ctx, "t.glsl", glsl, strlen(glsl), &o);
        EXPECT(img && fmag_context_slot_get(ctx, FMAG_CONTEXT_SLOT_SHADER_COMPILER) == kept);
        fmag_image_destroy(img);
    }
    fmag_runner_destroy(ref);
    fmag_context_destroy(ctx);
}

/* An engine's in-memory file system for #include: two files. */
static bool vfs_include(void *user, const char *name, const char *includer, bool quoted,
                        char **text, size_t *len, char **resolved)
{
    (void)includer;
    int *calls = user;
    ++*calls;
    const char *body =
        !strcmp(name, "common.glsl") && quoted ? "float sq(float x) { return x * x; }\n"
        : !strcmp(name, "lib.glsl") && !quoted ? "float lib(float x) {\n"
                                                 "  return 10.0 * x + broken;\n"
                                                 "}\n"
        : !strcmp(name, "ok.glsl") && !quoted  ? "float lib(float x) { return 10.0 * x; }\n"
                                               : NULL;
    if (!body) return false;
    *len = strlen(body);
    *text = malloc(*len);
    *resolved = malloc(strlen(name) + 8);
    if (!*text || !*resolved) {
        free(*text), free(*resolved);
        return false;
    }
    memcpy(*text, body, *len);
    sprintf(*resolved, "vfs:/%s", name);
    return true;
}

/* #include through the embedder's resolver: results, and an error inside a file that
 * exists only in memory quoted from the resolver's text. */
static void test_include_callback(void)
{
    if (!fmag_have_language(FMAG_LANG_GLSL)) return;
    fmag_context *ctx = fmag_context_create();
    fmag_runner *ref = fmag_runner_create(ctx, FMAG_ENGINE_REF);
    int calls = 0;
    fmag_compile_options o;
    fmag_compile_options_init(&o);
    o.language = FMAG_LANG_GLSL;
    o.entry = "h";
    o.include_fn = vfs_include;
    o.include_user = &calls;
    const char *good = "#include \"common.glsl\"\n#include <ok.glsl>\n"
                       "float h(float x) { return sq(x) + lib(x); }\n";
    fmag_image *img = fmag_compile(ctx, "main.glsl", good, strlen(good), &o);
    float x = 3.0f, y = 0;
    EXPECT(img && fmag_run(ctx, ref, fmag_image_program(img, 0), &x, &y, 1) && y == 39.0f);
    EXPECT(calls == 2);
    fmag_image_destroy(img);
    const char *bad = "#include <lib.glsl>\nfloat h(float x) { return lib(x); }\n";
    EXPECT(!fmag_compile(ctx, "main.glsl", bad, strlen(bad), &o));
    EXPECT(fmag_context_diag_count(ctx) >= 1 &&
           strstr(fmag_context_diag(ctx, 0), "vfs:/lib.glsl:2:") &&
           strstr(fmag_context_diag(ctx, 0), "return 10.0 * x + broken;"));
    fmag_context_diag_clear(ctx);
    const char *missing = "#include \"nope.glsl\"\nfloat h(float x) { return x; }\n";
    EXPECT(!fmag_compile(ctx, "main.glsl", missing, strlen(missing), &o));
    EXPECT(fmag_context_diag_count(ctx) >= 1 &&
           strstr(fmag_context_diag(ctx, 0), "cannot find 'nope.glsl'"));
    fmag_runner_destroy(ref);
    fmag_context_destroy(ctx);
}

static int slot_destroyed;
static void count_destroy(void *obj)
{
    slot_destroyed += *(int *)obj;
}

/* A context slot's object is destroyed when the slot is set again and with the
 * context, not by a reset; slots are found by the content of their names, and a
 * context holds FMAG_CONTEXT_MAX_SLOTS of them. */
static void test_context_slots(void)
{
    static int one = 1, ten = 10, hundred = 100;
    fmag_context *ctx = fmag_context_create();
    EXPECT(fmag_context_slot_set(ctx, "test.a", &one, count_destroy));
    fmag_context_reset(ctx);
    char name[] = "test.a"; /* another pointer, the same name */
    EXPECT(slot_destroyed == 0 && fmag_context_slot_get(ctx, name) == &one);
    EXPECT(!fmag_context_slot_get(ctx, "test.b"));
    EXPECT(fmag_context_slot_set(ctx, "test.a", &ten, count_destroy));
    EXPECT(slot_destroyed == 1);
    EXPECT(fmag_context_slot_set(ctx, "test.b", &hundred, NULL));
    EXPECT(fmag_context_slot_get(ctx, "test.a") == &ten &&
           fmag_context_slot_get(ctx, "test.b") == &hundred);
    fmag_context_destroy(ctx);
    EXPECT(slot_destroyed == 11);
    ctx = fmag_context_create();
    static const char *const names[] = {"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"};
    for (int i = 0; i < FMAG_CONTEXT_MAX_SLOTS; i++)
        EXPECT(fmag_context_slot_set(ctx, names[i], &one, NULL));
    EXPECT(!fmag_context_slot_set(ctx, names[FMAG_CONTEXT_MAX_SLOTS], &one, NULL));
    EXPECT(!fmag_context_slot_get(ctx, names[FMAG_CONTEXT_MAX_SLOTS]));
    EXPECT(fmag_context_slot_set(ctx, "s3", NULL, NULL) && !fmag_context_slot_get(ctx, "s3"));
    EXPECT(fmag_context_slot_set(ctx, names[FMAG_CONTEXT_MAX_SLOTS], &ten, NULL));
    fmag_context_destroy(ctx);
}

/* The builder, as a node editor uses it: build, compile, edit, recompile. */
static void test_builder(void)
{
    fmag_context *ctx = fmag_context_create();
    fmag_runner *ref = fmag_runner_create(ctx, FMAG_ENGINE_REF);
    for (int edit = 0; edit < 2; edit++) {
        fmag_module *m = fmag_module_create(ctx);
        fmag_func *f = fmag_func_create(m, "node", 2, 1, true);
        fmag_builder b;
        fmag_builder_at_end(&b, fmag_block_create(f, "entry"));
        fmag_value *v = fmag_build_mul(&b, &f->params[0], fmag_build_const(&b, edit ? 3.0f : 2.0f));
        v = fmag_build_max(&b, v, &f->params[1]);
        fmag_build_ret(&b, &v, 1);
        fmag_image *img = fmag_compile_module(m, NULL);
        float in[2] = {1.5f, 4.0f}, out = 0;
        EXPECT(img && fmag_run(ctx, ref, fmag_image_program(img, 0), in, &out, 1));
        EXPECT(out == (edit ? 4.5f : 4.0f));
        fmag_image_destroy(img);
        fmag_context_reset(ctx);
    }
    fmag_runner_destroy(ref);
    fmag_context_destroy(ctx);
}

static void test_diagnostic_records(void)
{
    fmag_context *ctx = fmag_context_create();
    fmag_diagnostic d;
    /* SL: the position of the missing operand (line 2, column 13) */
    EXPECT(!compile(ctx, "bad.sl", "export f32 f(f32 x) {\n  return x +;\n}\n"));
    EXPECT(fmag_context_diag_count(ctx) >= 1 && fmag_context_diag_record(ctx, 0, &d));
    EXPECT(d.file && !strcmp(d.file, "bad.sl") && d.line == 2 && d.column == 13);
    EXPECT(d.severity == FMAG_DIAG_ERROR);
    EXPECT(!strncmp(d.text, "bad.sl:2:13: error: ", 20));
    EXPECT(strstr(d.text, d.message) == d.text + 20);
    EXPECT(!strchr(d.message, '\n'));
    EXPECT(!fmag_context_diag_record(ctx, fmag_context_diag_count(ctx), &d));
    fmag_context_diag_clear(ctx);

    /* .fmas: several errors, one record each, in order */
    EXPECT(!compile(ctx, "x.fmas", ".def p, 1, 1\n  %r0 = fmag %r0, inf, 0, 1\n  %r0 = bogus\n"));
    EXPECT(fmag_context_diag_count(ctx) >= 2);
    unsigned last = 0;
    for (size_t i = 0; i < fmag_context_diag_count(ctx); i++) {
        EXPECT(fmag_context_diag_record(ctx, i, &d) && d.file && !strcmp(d.file, "x.fmas"));
        EXPECT(d.line > last && d.column >= 1);
        last = d.line;
    }
    fmag_context_diag_clear(ctx);

    /* no position: the verifier's "error: in function ..." and formatted by hand */
    fmag_context_error(ctx, "error: in function @f: something");
    fmag_context_error(ctx, "a.sl:7: warning: only a line");
    fmag_context_error(ctx, "C:/x.sl:3:4: note: a file name with a colon");
    fmag_context_error(ctx, "no severity at all");
    EXPECT(fmag_context_diag_record(ctx, 0, &d) && !d.file && d.line == 0 && d.column == 0);
    EXPECT(!strcmp(d.message, "in function @f: something") && d.severity == FMAG_DIAG_ERROR);
    EXPECT(fmag_context_diag_record(ctx, 1, &d) && d.file && !strcmp(d.file, "a.sl"));
    EXPECT(d.line == 7 && d.column == 0 && d.severity == FMAG_DIAG_WARNING);
    EXPECT(!strcmp(d.message, "only a line"));
    EXPECT(fmag_context_diag_record(ctx, 2, &d) && d.file && !strcmp(d.file, "C:/x.sl"));
    EXPECT(d.line == 3 && d.column == 4 && d.severity == FMAG_DIAG_NOTE);
    EXPECT(fmag_context_diag_record(ctx, 3, &d) && !d.file && d.severity == FMAG_DIAG_ERROR);
    EXPECT(!strcmp(d.message, "no severity at all"));
    fmag_context_diag_clear(ctx);

    /* A file name may hold anything, ": error: " and "note: " included (a SPIR-V
     * module's OpString, a path a user chose): the producer gives the position, so the
     * record splits it right and the error still counts as one. */
    const char *odd = "a: error: internal: b.sl";
    EXPECT(!compile(ctx, odd, "export f32 f(f32 x) {\n  return x +;\n}\n"));
    EXPECT(fmag_context_diag_record(ctx, 0, &d) && d.file && !strcmp(d.file, odd));
    EXPECT(d.line == 2 && d.column == 13 && d.severity == FMAG_DIAG_ERROR);
    EXPECT(!strncmp(d.message, "expected", 8));
    fmag_context_diag_clear(ctx);
    if (fmag_have_language(FMAG_LANG_GLSL)) { /* the file name through shaderc's OpString */
        const char *glsl = "float f(float x) {\n  return x + 1.0 / 0.0;\n}\n";
        fmag_compile_options o;
        fmag_compile_options_init(&o);
        o.language = FMAG_LANG_GLSL;
        o.entry = "f";
        EXPECT(!fmag_compile(ctx, "x: note: y.glsl", glsl, strlen(glsl), &o));
        EXPECT(fmag_context_diag_record(ctx, 0, &d) && d.file &&
               !strcmp(d.file, "x: note: y.glsl") && d.line == 2);
        EXPECT(d.severity == FMAG_DIAG_ERROR && strstr(d.message, "infinite constant"));
        fmag_context_diag_clear(ctx);
    }
    fmag_context_report(ctx, FMAG_DIAG_NOTE, "n: error: m", 3, 0, "see %s", "here");
    EXPECT(fmag_context_diag_record(ctx, 0, &d) && d.severity == FMAG_DIAG_NOTE && d.line == 3);
    EXPECT(!strcmp(d.file, "n: error: m") && !strcmp(d.message, "see here"));
    EXPECT(!strcmp(d.text, "n: error: m:3: note: see here"));
    fmag_context_report(ctx, FMAG_DIAG_WARNING, NULL, 5, 6, "no file");
    EXPECT(fmag_context_diag_record(ctx, 1, &d) && !d.file && d.line == 0 && d.column == 0);
    EXPECT(!strcmp(d.text, "warning: no file") && !strcmp(d.message, "no file"));
    fmag_context_report(ctx, FMAG_DIAG_ERROR, "two\nlines", 1, 2, "m\nexcerpt");
    EXPECT(fmag_context_diag_record(ctx, 2, &d) && !strcmp(d.file, "two\nlines"));
    EXPECT(d.line == 1 && d.column == 2 && !strcmp(d.message, "m"));

    fmag_context_diag_clear(ctx);
    /* an error whose message quotes "note: " is an error: it counts toward the limit */
    fmag_context_set_error_limit(ctx, 1);
    fmag_context_error(ctx, "error: unknown pass 'x note: y'");
    EXPECT(fmag_context_error_limit_reached(ctx));
    EXPECT(fmag_context_diag_record(ctx, 0, &d) && d.severity == FMAG_DIAG_ERROR);
    fmag_context_set_error_limit(ctx, 0);

    /* the records go with reset */
    fmag_context_reset(ctx);
    EXPECT(fmag_context_diag_count(ctx) == 0 && !fmag_context_diag_record(ctx, 0, &d));

    /* no export, an unknown pipeline, a bad file */
    EXPECT(!compile(ctx, "none.sl", "f32 f(f32 x) { return x; }"));
    EXPECT(fmag_context_diag_count(ctx) == 1 && fmag_context_diag_record(ctx, 0, &d) &&
           strstr(d.message, "no export function"));
    fmag_compile_options o;
    fmag_compile_options_init(&o);
    o.pipeline = "no-such-pass";
    const char *sl = "export f32 f(f32 x) { return x; }";
    EXPECT(!fmag_compile(ctx, "f.sl", sl, strlen(sl), &o));
    EXPECT(!fmag_image_load(ctx, "/nonexistent/x.fmag"));
    fmag_context_destroy(ctx);
}

/* The budgets are the context's (IR.h), so fmag_compile and the tools share them. */
static void test_budgets(void)
{
    fmag_context *ctx = fmag_context_create();
    EXPECT(fmag_context_unroll_budget(ctx) == FMAG_UNROLL_DEFAULT_BUDGET);
    EXPECT(fmag_context_inline_budget(ctx) == FMAG_DEFAULT_INLINE_BUDGET);
    /* 40 trips of s += x: 40 x 0.25 = 10 exactly */
    const char *loop = "export f32 f(f32 x) {\n"
                       "  f32 s = 0.0;\n"
                       "  for (f32 i = 0.0; i < 40.0; i++) { s = s + x; }\n"
                       "  return s;\n}\n";
    fmag_image *img = compile(ctx, "loop.sl", loop);
    float in = 0.25f, out = 0.0f;
    fmag_runner *ref = fmag_runner_create(ctx, FMAG_ENGINE_REF);
    EXPECT(img && ref && fmag_run(ctx, ref, fmag_image_program(img, 0), &in, &out, 1));
    EXPECT(out == 10.0f);
    fmag_runner_destroy(ref);
    fmag_image_destroy(img);

    fmag_context_set_unroll_budget(ctx, 30);
    EXPECT(fmag_context_unroll_budget(ctx) == 30);
    EXPECT(!compile(ctx, "loop.sl", loop));
    fmag_diagnostic d;
    EXPECT(fmag_context_diag_record(ctx, 0, &d) && d.line == 3 && d.column == 3 &&
           strstr(d.message, "exceed the budget of 30 instructions"));
    fmag_context_reset(ctx);
    fmag_context_set_unroll_budget(ctx, 0); /* back to the default */
    EXPECT(fmag_context_unroll_budget(ctx) == FMAG_UNROLL_DEFAULT_BUDGET);

    /* four calls of a 2-instruction function: within 100, not within 4 */
    const char *calls = "f32 g(f32 x) { return x * 1.5 + 0.25; }\n"
                        "export f32 f(f32 x) { return g(x) + g(x * 0.5) + g(x) * g(x); }\n";
    img = compile(ctx, "calls.sl", calls);
    EXPECT(img != NULL);
    fmag_image_destroy(img);
    fmag_context_set_inline_budget(ctx, 4);
    EXPECT(!compile(ctx, "calls.sl", calls));
    EXPECT(fmag_context_diag_record(ctx, 0, &d) &&
           strstr(d.message, "inline budget of 4 instructions"));
    fmag_context_destroy(ctx);
}

static void test_gpu_errors(void)
{
    fmag_context *ctx = fmag_context_create();
    for (fmag_engine e = FMAG_ENGINE_VULKAN; e <= FMAG_ENGINE_CUDA; e++) {
        size_t before = fmag_context_diag_count(ctx);
        fmag_runner *r = fmag_runner_create(ctx, e);
        if (r) {
            /* where there is a runner, it agrees with the reference */
            EXPECT(fmag_runner_describe(r)[0] != 0);
            fmag_image *img = compile(ctx, "g.sl", "export f32 g(f32 x) { return x * x - 2.0; }");
            float in[5] = {0, 1, 1.5f, -3, 1e-3f}, out[5];
            EXPECT(img && fmag_run(ctx, r, fmag_image_program(img, 0), in, out, 5));
            for (int k = 0; k < 5; k++) {
                volatile float sq = in[k] * in[k];
                EXPECT(same_bits(out[k], sq - 2.0f));
            }
            fmag_image_destroy(img);
            fmag_runner_destroy(r);
        } else {
            fmag_diagnostic d;
            EXPECT(fmag_context_diag_count(ctx) == before + 1);
            EXPECT(fmag_context_diag_record(ctx, before, &d));
            EXPECT(strstr(d.message, "runner unavailable") != NULL);
            EXPECT(strstr(d.message, fmag_engine_name(e)) == d.message);
        }
    }
    fmag_engine e;
    EXPECT(fmag_engine_lookup("batch", &e) && e == FMAG_ENGINE_BATCH);
    EXPECT(!fmag_engine_lookup("opengl", &e));
    EXPECT(!fmag_runner_create(ctx, (fmag_engine)9));
    fmag_context_destroy(ctx);
}

/* The tiers through the API: options checked (size, mode), the CPU engines interpret; on a
 * GPU runner OFF interprets, EAGER bakes before the run (where this machine has the compiler:
 * lavapipe in CI bakes through libfmag-shaderc.so) and both give the reference engine's bits;
 * NaN-agnostic baking changes NaN payloads only. */
static bool same_or_nan(float a, float b, bool nan_any)
{
    return same_bits(a, b) || (nan_any && isnan(a) && isnan(b));
}

static int tier_run(fmag_context *ctx, fmag_runner *r, const fmag_vm_program *p, const float *in,
                    const float *want, int n, bool nan_any)
{
    float out[64];
    if (!fmag_run(ctx, r, p, in, out, (size_t)n)) return -1;
    int bad = 0;
    for (int k = 0; k < n; k++)
        bad += !same_or_nan(out[k], want[k], nan_any);
    return bad;
}

/* Sets r's tier mode and NaN mode, runs p once against `want`; whether the run matched and
 * ran in the tier `tier`. */
static bool run_in_mode(fmag_context *ctx, fmag_runner *r, fmag_runner_options *o,
                        fmag_tier_mode mode, bool nan_agnostic, const fmag_vm_program *p,
                        const float *in, const float *want, int n, fmag_tier tier)
{
    o->tier_mode = mode, o->nan_agnostic = nan_agnostic;
    return fmag_runner_set_options(ctx, r, o) &&
           tier_run(ctx, r, p, in, want, n, nan_agnostic) == 0 && fmag_runner_last_tier(r) == tier;
}

/* Runs the image per lane on r and on the reference runner over LANE_N elements (program
 * e / 1000 % 2, inputs from e); the count of output words that differ, -1 when a run fails. */
enum { LANE_N = 6000 };
static int lane_run(fmag_context *ctx, fmag_runner *r, fmag_runner *ref, const fmag_image *img)
{
    static float in[LANE_N][2], want[LANE_N][2], got[LANE_N][2];
    static uint32_t idx[LANE_N];
    if (!img) return -1;
    for (int k = 0; k < LANE_N; k++) {
        idx[k] = (uint32_t)(k / 1000 % 2);
        in[k][0] = (float)(k % 97) * 0.125f - 6.0f, in[k][1] = (float)(k % 13) - 6.5f;
        want[k][1] = got[k][1] = 7.0f; /* past program 0's one output: kept */
    }
    if (!fmag_run_per_lane(ctx, ref, img, idx, &in[0][0], 2, &want[0][0], 2, LANE_N) ||
        !fmag_run_per_lane(ctx, r, img, idx, &in[0][0], 2, &got[0][0], 2, LANE_N))
        return -1;
    int bad = 0;
    for (int k = 0; k < LANE_N; k++)
        bad += !same_bits(got[k][0], want[k][0]) || !same_bits(got[k][1], want[k][1]);
    return bad;
}

static void test_tiers(void)
{
    EXPECT(!strcmp(fmag_tier_name(FMAG_TIER_INTERPRETED), "interpreted"));
    EXPECT(!strcmp(fmag_tier_name(FMAG_TIER_BAKED), "baked"));
    EXPECT(!strcmp(fmag_tier_name(FMAG_TIER_MIXED), "mixed"));
    EXPECT(!strcmp(fmag_tier_name((fmag_tier)5), "unknown"));
    fmag_context *ctx = fmag_context_create();
    fmag_runner_options o;
    fmag_runner_options_init(&o);
    EXPECT(o.size == sizeof o && o.tier_mode == FMAG_TIER_MODE_DEFAULT && !o.nan_agnostic);
    fmag_runner *ref = fmag_runner_create(ctx, FMAG_ENGINE_REF);
    /* misuse: each refused with one diagnostic naming what is wrong */
    fmag_runner_options bad = o;
    bad.size = 4;
    size_t nd = fmag_context_diag_count(ctx);
    EXPECT(!fmag_runner_set_options(ctx, ref, &bad));
    EXPECT(!fmag_runner_set_options(ctx, ref, NULL));
    EXPECT(!fmag_runner_set_options(ctx, NULL, &o));
    bad = o, bad.tier_mode = (fmag_tier_mode)9;
    EXPECT(!fmag_runner_set_options(ctx, ref, &bad));
    EXPECT(fmag_context_diag_count(ctx) == nd + 4);
    EXPECT(strstr(fmag_context_diag(ctx, nd), "fmag_runner_options_init"));
    EXPECT(strstr(fmag_context_diag(ctx, nd + 1), "the options are NULL"));
    EXPECT(strstr(fmag_context_diag(ctx, nd + 3), "unknown tier mode 9"));
    /* x*y + 0.5 and a select: infinities make NaN (inf * 0), which the modes treat apart */
    fmag_image *img = compile(ctx, "t.sl",
                              "export f32 t(f32 x, f32 y) { f32 v = x * y + 0.5; "
                              "return v > 1.0 ? v * 0.25 : v - y; }");
    EXPECT(img != NULL);
    if (!img) {
        fmag_runner_destroy(ref);
        fmag_context_destroy(ctx);
        return;
    }
    const fmag_vm_program *p = fmag_image_program(img, 0);
    enum { N = 32 };
    float in[N][2], want[N];
    for (int k = 0; k < N; k++) {
        in[k][0] = (float)(k % 7) * 0.75f - 2.0f;
        in[k][1] = k % 5 == 0 ? INFINITY : (float)(k % 3) - 1.0f; /* 0 * inf: NaN */
    }
    EXPECT(fmag_run(ctx, ref, p, &in[0][0], want, N));
    fmag_image *lanes = compile(ctx, "lanes.sl",
                                "export f32 a(f32 x, f32 y) { return x * y - 0.75; }\n"
                                "export f32 b(f32 x, f32 y, out f32 z) { z = x - y; "
                                "return max(x, y) * 0.5; }");
    EXPECT(lanes != NULL);
    o.tier_mode = FMAG_TIER_MODE_EAGER;
    EXPECT(fmag_runner_set_options(ctx, ref, &o)); /* accepted, and ignored */
    EXPECT(tier_run(ctx, ref, p, &in[0][0], want, N, false) == 0);
    EXPECT(fmag_runner_last_tier(ref) == FMAG_TIER_INTERPRETED);
    EXPECT(!strcmp(fmag_runner_bake_log(ref), ""));
    for (fmag_engine e = FMAG_ENGINE_VULKAN; e <= FMAG_ENGINE_CUDA; e++) {
        fmag_runner *r = fmag_runner_create(ctx, e);
        if (!r) continue; /* test_gpu_errors checks the diagnostic */
        EXPECT(fmag_runner_last_tier(r) == FMAG_TIER_INTERPRETED);
        EXPECT(run_in_mode(ctx, r, &o, FMAG_TIER_MODE_OFF, false, p, &in[0][0], want, N,
                           FMAG_TIER_INTERPRETED));
        o.tier_mode = FMAG_TIER_MODE_EAGER;
        EXPECT(fmag_runner_set_options(ctx, r, &o));
        EXPECT(tier_run(ctx, r, p, &in[0][0], want, N, false) == 0);
        const char *log = fmag_runner_bake_log(r);
        if (fmag_runner_last_tier(r) != FMAG_TIER_BAKED) {
            /* only a machine without the compiler may stay interpreted under EAGER */
            EXPECT(strstr(log, "no GLSL compiler") || strstr(log, "no CUDA compiler"));
            printf("api-unittests: %s: no compiler to bake with: %.*s\n", fmag_engine_name(e),
                   (int)strcspn(log, "\n"), log);
            fmag_runner_destroy(r);
            continue;
        }
        EXPECT(!strcmp(log, ""));
        /* baked once: AUTO uses it at once; OFF interprets again */
        EXPECT(run_in_mode(ctx, r, &o, FMAG_TIER_MODE_AUTO, false, p, &in[0][0], want, N,
                           FMAG_TIER_BAKED));
        EXPECT(run_in_mode(ctx, r, &o, FMAG_TIER_MODE_OFF, false, p, &in[0][0], want, N,
                           FMAG_TIER_INTERPRETED));
        /* NaN-agnostic: another bake; any NaN where the reference has its canonical one */
        EXPECT(run_in_mode(ctx, r, &o, FMAG_TIER_MODE_EAGER, true, p, &in[0][0], want, N,
                           FMAG_TIER_BAKED));
        /* a per-lane image of two programs, large enough to be binned by program: each
         * group baked (EAGER), the reference engine's bits */
        o.nan_agnostic = false;
        EXPECT(fmag_runner_set_options(ctx, r, &o));
        EXPECT(lane_run(ctx, r, ref, lanes) == 0);
        EXPECT(fmag_runner_last_tier(r) == FMAG_TIER_BAKED);
        printf("api-unittests: %s: OFF interpreted, EAGER baked (per lane too), reference bits\n",
               fmag_engine_name(e));
        fmag_runner_destroy(r);
    }
    fmag_runner_destroy(ref);
    fmag_image_destroy(lanes);
    fmag_image_destroy(img);
    fmag_context_destroy(ctx);
}

/* fmag_run_columns gives fmag_run's bits on every engine this machine has (fmag_run on
 * the reference engine is the oracle); fmag_run_device is refused off the GPU runners. */
static void test_columns(void)
{
    fmag_context *ctx = fmag_context_create();
    fmag_image *img = compile(ctx, "c.sl",
                              "export f32 c(f32 x, f32 y, f32 w, out f32 z) "
                              "{ z = w > 0.0 ? x / y : x - w; return x * y + w; }");
    EXPECT(img != NULL);
    if (!img) return;
    const fmag_vm_program *p = fmag_image_program(img, 0);
    enum { N = 777 };
    static float rows[N][3], want[N][2], cin[3][N], cout[2][N];
    for (int k = 0; k < N; k++)
        for (int i = 0; i < 3; i++)
            rows[k][i] = cin[i][k] = (float)((k * 7 + i * 13) % 41) * 0.25f - 5.0f;
    fmag_runner *ref = fmag_runner_create(ctx, FMAG_ENGINE_REF);
    EXPECT(fmag_run(ctx, ref, p, &rows[0][0], &want[0][0], N));
    const float *const ins[3] = {cin[0], cin[1], cin[2]};
    float *const outs[2] = {cout[0], cout[1]};
    for (fmag_engine e = FMAG_ENGINE_REF; e <= FMAG_ENGINE_CUDA; e++) {
        size_t before = fmag_context_diag_count(ctx);
        fmag_runner *r = e == FMAG_ENGINE_REF ? ref : fmag_runner_create(ctx, e);
        if (!r) { /* a GPU runner this machine lacks: its creation's diagnostic only */
            EXPECT(fmag_context_diag_count(ctx) == before + 1);
            continue;
        }
        if (e == FMAG_ENGINE_BATCH) fmag_runner_set_threads(r, 2);
        memset(cout, 0, sizeof cout);
        EXPECT(fmag_run_columns(ctx, r, p, ins, outs, N));
        int bad = 0;
        for (int k = 0; k < N; k++)
            bad += !same_bits(cout[0][k], want[k][0]) || !same_bits(cout[1][k], want[k][1]);
        EXPECT(bad == 0);
        fmag_device_info info = {.size = sizeof info};
        fmag_device_buffer none = {0, 0};
        bool gpu = e == FMAG_ENGINE_VULKAN || e == FMAG_ENGINE_CUDA;
        EXPECT(fmag_runner_device(ctx, r, &info) == gpu);
        EXPECT(!gpu || (info.engine == e && (e == FMAG_ENGINE_CUDA || info.device)));
        if (!gpu) EXPECT(!fmag_run_device(ctx, r, p, none, 3, none, 2, N));
        if (r != ref) fmag_runner_destroy(r);
    }
    /* a missing column is a diagnostic, not a crash */
    const float *const short_ins[3] = {cin[0], NULL, cin[2]};
    size_t nd = fmag_context_diag_count(ctx);
    EXPECT(!fmag_run_columns(ctx, ref, p, short_ins, outs, N));
    EXPECT(fmag_context_diag_count(ctx) == nd + 1 &&
           strstr(fmag_context_diag(ctx, nd), "input column is NULL"));
    fmag_device_info small = {.size = 8};
    EXPECT(!fmag_runner_device(ctx, ref, &small));
    fmag_runner_destroy(ref);
    fmag_image_destroy(img);
    fmag_context_destroy(ctx);
}

/* The compile driver: each stage and emit, against what the other calls give. */
static void test_compile_stages(void)
{
    fmag_context *ctx = fmag_context_create();
    const char *sl = "f32 sq(f32 x) { return x * x; }\n"
                     "export f32 f(f32 x) { return sq(x) + 1.0; }\n";
    fmag_compile_options o;
    fmag_compile_options_init(&o);
    EXPECT(o.size == sizeof o && o.stop_after == FMAG_STAGE_PROGRAMS && !o.pass_options);
    fmag_compile_result r;
    fmag_compile_result_init(&r);
    /* the programs, as .fmas: what disassembling fmag_compile's image gives */
    o.emit = FMAG_EMIT_FMAS;
    EXPECT(fmag_compile_ex(ctx, "f.sl", sl, strlen(sl), &o, &r) == FMAG_OK && r.image && r.module &&
           r.data);
    fmag_image *img = compile(ctx, "f.sl", sl);
    char *text = img ? fmag_program_disassemble(fmag_image_program(img, 0)) : NULL;
    EXPECT(text && r.len == strlen(text) && !memcmp(r.data, text, r.len));
    fmag_free(text);
    fmag_compile_result_free(&r);
    EXPECT(!r.image && !r.data);
    /* .fmag bytes: fmag_image_write's */
    o.emit = FMAG_EMIT_FMAG;
    void *bytes = NULL;
    size_t n = 0;
    EXPECT(img && fmag_image_write(ctx, img, &bytes, &n));
    EXPECT(fmag_compile_ex(ctx, "f.sl", sl, strlen(sl), &o, &r) == FMAG_OK && r.len == n &&
           !memcmp(r.data, bytes, n));
    fmag_free(bytes);
    fmag_compile_result_free(&r);
    fmag_image_destroy(img);
    /* the IR before the passes still calls @sq; after O2 it does not */
    o.emit = FMAG_EMIT_FIR;
    o.stop_after = FMAG_STAGE_IR;
    EXPECT(fmag_compile_ex(ctx, "f.sl", sl, strlen(sl), &o, &r) == FMAG_OK && !r.image &&
           r.module && r.data && strstr(r.data, "call @sq"));
    fmag_compile_result_free(&r);
    o.stop_after = FMAG_STAGE_PASSES;
    EXPECT(fmag_compile_ex(ctx, "f.sl", sl, strlen(sl), &o, &r) == FMAG_OK && r.data &&
           strstr(r.data, "export func @f") && !strstr(r.data, "call @"));
    fmag_compile_result_free(&r);
    /* an empty pipeline runs no pass */
    o.pipeline = "";
    EXPECT(fmag_compile_ex(ctx, "f.sl", sl, strlen(sl), &o, &r) == FMAG_OK && r.data &&
           strstr(r.data, "call @sq"));
    fmag_compile_result_free(&r);
    /* straight-line C of the program */
    fmag_compile_options_init(&o);
    o.emit = FMAG_EMIT_C;
    o.emit_prefix = "t_";
    EXPECT(fmag_compile_ex(ctx, "f.sl", sl, strlen(sl), &o, &r) == FMAG_OK && r.data &&
           strstr(r.data, "t_f"));
    fmag_compile_result_free(&r);
    /* misuse: .fir of programs, SPIR-V of SL, options without their size */
    fmag_context_reset(ctx);
    o.emit = FMAG_EMIT_FIR;
    EXPECT(fmag_compile_ex(ctx, "f.sl", sl, strlen(sl), &o, &r) == FMAG_ERROR_MISUSE && !r.data &&
           !r.image && fmag_context_diag_count(ctx) == 1);
    o.emit = FMAG_EMIT_SPIRV;
    o.stop_after = FMAG_STAGE_SPIRV;
    EXPECT(fmag_compile_ex(ctx, "f.sl", sl, strlen(sl), &o, &r) == FMAG_ERROR_MISUSE);
    fmag_compile_options zero;
    memset(&zero, 0, sizeof zero);
    fmag_context_reset(ctx);
    EXPECT(fmag_compile_ex(ctx, "f.sl", sl, strlen(sl), &zero, &r) == FMAG_ERROR_MISUSE &&
           !fmag_compile(ctx, "f.sl", sl, strlen(sl), &zero));
    EXPECT(fmag_context_diag_count(ctx) == 2 &&
           strstr(fmag_context_diag(ctx, 0), "fmag_compile_options_init"));
    /* a caller built against a newer header (a larger struct): the known part is read */
    struct {
        fmag_compile_options o;
        int later_field;
    } newer;
    fmag_compile_options_init_size(&newer.o, sizeof newer);
    newer.later_field = 7;
    newer.o.pipeline = "no-such-pass";
    fmag_context_reset(ctx);
    EXPECT(!fmag_compile(ctx, "f.sl", sl, strlen(sl), &newer.o) &&
           strstr(fmag_context_diag(ctx, 0), "no-such-pass"));
    /* statuses: bad source, and their names */
    fmag_compile_options_init(&o);
    EXPECT(fmag_compile_ex(ctx, "bad.sl", "export", 6, &o, &r) == FMAG_ERROR_INPUT);
    EXPECT(!strcmp(fmag_status_name(FMAG_OK), "ok") &&
           !strcmp(fmag_status_name(FMAG_ERROR_MISUSE), "misuse"));
    fmag_free(NULL);
    fmag_context_destroy(ctx);
}

/* fmag_abi_entry reports the layout this test was compiled against. */
static void test_abi_table(void)
{
    char kind;
    const char *name;
    long long value, extra;
    int found = 0;
    for (size_t i = 0; fmag_abi_entry(i, &kind, &name, &value, &extra); i++) {
        if (kind == 'S' && !strcmp(name, "fmag_compile_options"))
            found += value == (long long)sizeof(fmag_compile_options);
        if (kind == 'S' && !strcmp(name, "fmag_diagnostic"))
            found += value == (long long)sizeof(fmag_diagnostic);
        if (kind == 'F' && !strcmp(name, "fmag_compile_options.pass_options"))
            found += value == (long long)offsetof(fmag_compile_options, pass_options) &&
                     extra == (long long)sizeof(void *);
        if (kind == 'E' && !strcmp(name, "FMAG_LANG_SPIRV")) found += value == FMAG_LANG_SPIRV;
    }
    EXPECT(found == 4);
    EXPECT(!fmag_abi_entry((size_t)-1, &kind, &name, &value, &extra));
}

int main(void)
{
    test_version();
    test_compile_run();
    test_languages();
    test_context_slots();
    test_include_callback();
    test_builder();
    test_diagnostic_records();
    test_budgets();
    test_gpu_errors();
    test_columns();
    test_tiers();
    test_compile_stages();
    test_abi_table();
    if (failures) fprintf(stderr, "api-unittests: %d failures\n", failures);
    return failures != 0;
}
