/* A node editor compiles one document after another in one context: the context
 * keeps the last document parsed (DocCache.c) and takes an edit of one attribute
 * value without parsing again. Each edit here is compiled in that context and in a
 * fresh one (which has nothing cached); both must give the hand-computed outputs,
 * and the same diagnostics, line and column included. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../Expect.h"
#include "fmag/Context.h"
#include "fmag/IR.h"
#include "fmag/MaterialX.h"

/* out = texcoord.x * gain + offset, then clamped to [lo, 1]. */
static const char *const doc_fmt =
    "<?xml version=\"1.0\"?>\n"
    "<materialx version=\"1.38\">\n"
    "  <nodegraph name=\"g\">\n"
    "    <texcoord name=\"uv\" type=\"vector2\"/>\n"
    "    <multiply name=\"m\" type=\"float\">\n"
    "      <input name=\"in1\" type=\"float\" nodename=\"uv\" channels=\"x\"/>\n"
    "      <input name=\"in2\" type=\"float\" value=\"%s\"/>\n"
    "    </multiply>\n"
    "    <add name=\"a\" type=\"float\">\n"
    "      <input name=\"in1\" type=\"float\" nodename=\"%s\"/>\n"
    "      <input name=\"in2\" type=\"float\" value='%s'/>\n"
    "    </add>\n"
    "    <%s name=\"c\" type=\"float\">\n"
    "      <input name=\"in\" type=\"float\" nodename=\"a\"/>\n"
    "      <input name=\"low\" type=\"float\" value=\"%s\"/>\n"
    "    </%s>\n"
    "    <output name=\"out\" type=\"float\" nodename=\"c\"/>\n"
    "  </nodegraph>\n"
    "</materialx>\n";

typedef struct edit {
    const char *gain, *from, *offset, *clamp, *lo;
} edit;

static size_t make(char *buf, size_t cap, const edit *e)
{
    int n = snprintf(buf, cap, doc_fmt, e->gain, e->from, e->offset, e->clamp, e->lo, e->clamp);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

/* The program's output at texcoord (x, 0.5), or the diagnostics joined. */
static void compile(fmag_context *ctx, const char *src, size_t len, float x, float *out,
                    char *diags, size_t cap)
{
    diags[0] = 0;
    *out = -1e30f;
    fmag_module *m = fmag_mtlx_compile(ctx, "edit.mtlx", src, len, NULL);
    fmag_func *f = m ? fmag_module_get_func(m, "g.out") : NULL;
    float in[2] = {x, 0.5f};
    if (f && !fmag_interp_func(f, in, out)) *out = -2e30f;
    for (size_t i = 0; i < fmag_context_diag_count(ctx); i++) {
        size_t n = strlen(diags);
        snprintf(diags + n, cap - n, "%s\n", fmag_context_diag(ctx, i));
    }
}

/* A constant's value goes through the reader's own reading of plain decimals
 * (Graph.c) or through strtof: either way the program must return what strtof
 * gives (libc is the oracle), bit for bit, for decimals of every length, sign and
 * number of places, and for the forms left to strtof. One context compiles them all,
 * so that most are edits of the cached document. */
static void check_values(void)
{
    static const char *const fixed[] = {
        "0",        "-0",        "-0.0",      "0.5",      "1.",          ".25",
        "+3.5",     "16777215",  "16777216",  "16777217", "0.1",         "0.3",
        "3.14159",  "1.0000001", "2.5e-3",    "1E2",      "0.000000001", "0.0000000001",
        "9999999.", "0.1234567", "123.45678", "0x1p-2",   "  0.75 ",     "7.0000000000"};
    fmag_context *ctx = fmag_context_create();
    char src[1024], text[64];
    uint64_t seed = 12345;
    for (unsigned i = 0; i < 3000; i++) {
        if (i < sizeof fixed / sizeof fixed[0]) {
            snprintf(text, sizeof text, "%s", fixed[i]);
        } else { /* [-] digits [. digits]: 1 to 9 digits, 0 to 11 after the point */
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            unsigned r = (unsigned)(seed >> 33), n = 1 + r % 9, places = (r >> 4) % 12, k = 0;
            if (r & (1u << 10)) text[k++] = '-';
            for (unsigned j = 0; j < n; j++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                if (j == n - places) text[k++] = '.';
                text[k++] = (char)('0' + (seed >> 40) % 10);
            }
            text[k] = 0;
        }
        int len = snprintf(src, sizeof src,
                           "<materialx version=\"1.38\">\n"
                           "  <nodegraph name=\"g\">\n"
                           "    <constant name=\"k\" type=\"float\">\n"
                           "      <input name=\"value\" type=\"float\" value=\"%s\"/>\n"
                           "    </constant>\n"
                           "    <output name=\"out\" type=\"float\" nodename=\"k\"/>\n"
                           "  </nodegraph>\n"
                           "</materialx>\n",
                           text);
        fmag_context_reset(ctx);
        fmag_module *m = fmag_mtlx_compile(ctx, "value.mtlx", src, (size_t)len, NULL);
        fmag_func *f = m ? fmag_module_get_func(m, "g.out") : NULL;
        float got = -1.0f, want = strtof(text, NULL);
        EXPECT(f && fmag_interp_func(f, NULL, &got));
        uint32_t gb, wb;
        memcpy(&gb, &got, 4);
        memcpy(&wb, &want, 4);
        if (gb != wb) {
            fprintf(stderr, "value '%s': %a, strtof %a\n", text, (double)got, (double)want);
            failures++;
            break;
        }
    }
    fmag_context_destroy(ctx);
}

/* Every context slot taken by the embedder: the reader parses into scratch memory
 * (nothing cached, nothing leaked) and compiles as before. */
static void check_slots_full(const char *src, size_t len)
{
    static const char *const names[FMAG_CONTEXT_MAX_SLOTS] = {"t0", "t1", "t2", "t3",
                                                              "t4", "t5", "t6", "t7"};
    static int dummy;
    fmag_context *ctx = fmag_context_create();
    for (unsigned i = 0; i < FMAG_CONTEXT_MAX_SLOTS; i++)
        EXPECT(fmag_context_slot_set(ctx, names[i], &dummy, NULL));
    for (int round = 0; round < 2; round++) {
        char diags[1024];
        float got;
        fmag_context_reset(ctx);
        compile(ctx, src, len, 0.25f, &got, diags, sizeof diags);
        EXPECT(got == 0.75f && diags[0] == 0);
        EXPECT(fmag_context_slot_get(ctx, FMAG_MTLX_CONTEXT_SLOT) == NULL);
    }
    fmag_context_destroy(ctx);
}

/* A builtin of a literal is read as its value, which the context keeps for later
 * compiles (Nodes.c, DocCache.c: a table of a few). One context compiles documents
 * whose literals come back, more of them than the table holds; each node of a
 * literal must give the bits that the same node gives with the value as a program
 * input (its sequence built and run by the interpreter). */
static void check_folded_builtins(void)
{
    static const char *const ops[] = {"sin", "cos", "sqrt", "floor", "exp"};
    fmag_context *ctx = fmag_context_create();
    char src[2048];
    for (unsigned i = 0; i < 120 && !failures; i++) {
        const char *op = ops[i % 5];
        /* 15 keys (all kept, then found), then 20 (each replaces one) */
        unsigned nvals = i < 60 ? 3 : 4;
        float v = 0.25f + 0.75f * (float)((i / 5) % nvals);
        int len = snprintf(src, sizeof src,
                           "<materialx version=\"1.38\">\n"
                           "  <nodegraph name=\"g\">\n"
                           "    <input name=\"a\" type=\"float\" value=\"0\"/>\n"
                           "    <%s name=\"l\" type=\"float\">\n"
                           "      <input name=\"in\" type=\"float\" value=\"%.9g\"/>\n"
                           "    </%s>\n"
                           "    <%s name=\"b\" type=\"float\">\n"
                           "      <input name=\"in\" type=\"float\" interfacename=\"a\"/>\n"
                           "    </%s>\n"
                           "    <output name=\"lit\" type=\"float\" nodename=\"l\"/>\n"
                           "    <output name=\"bound\" type=\"float\" nodename=\"b\"/>\n"
                           "  </nodegraph>\n"
                           "</materialx>\n",
                           op, (double)v, op, op, op);
        fmag_context_reset(ctx);
        fmag_module *m = fmag_mtlx_compile(ctx, "fold.mtlx", src, (size_t)len, NULL);
        fmag_func *fl = m ? fmag_module_get_func(m, "g.lit") : NULL;
        fmag_func *fb = m ? fmag_module_get_func(m, "g.bound") : NULL;
        float lit = -1.0f, bound = -2.0f;
        EXPECT(fl && fb && fmag_interp_func(fl, &v, &lit) && fmag_interp_func(fb, &v, &bound));
        EXPECT(fl && fl->first && fl->first->first == fl->first->last); /* a ret alone */
        if (memcmp(&lit, &bound, sizeof lit)) {
            fprintf(stderr, "%s(%g): literal %a, as an input %a\n", op, (double)v, (double)lit,
                    (double)bound);
            failures++;
        }
    }
    fmag_context_destroy(ctx);
}

int main(void)
{
    /* Each row: the edit, then the output at x = 0.25 worked by hand (1e30: the
     * document is an error, with that diagnostic). */
    static const struct {
        edit e;
        float want;
        const char *diag; /* a part of the diagnostic, or NULL */
    } steps[] = {
        {{"2.0", "m", "0.25", "clamp", "0.0"}, 0.75f, NULL},      /* parsed */
        {{"2.0", "m", "0.25", "clamp", "0.0"}, 0.75f, NULL},      /* the same text */
        {{"3.0", "m", "0.25", "clamp", "0.0"}, 1.0f, NULL},       /* one value */
        {{"1.5", "m", "0.25", "clamp", "0.0"}, 0.625f, NULL},     /* shorter */
        {{"1.5", "m", "-0.125", "clamp", "0.0"}, 0.25f, NULL},    /* in '' quotes */
        {{"1.5", "m", "-0.125", "clamp", "0.5"}, 0.5f, NULL},     /* after the edit above */
        {{"1.5", "uv", "0.0", "clamp", "0.0"}, 1e30f, "vector2"}, /* a connection: a type error */
        {{"1.5", "m", "0.0", "clamp", "0.0"}, 0.375f, NULL},
        {{"1.5", "m", "0.0", "clampx", "0.0"}, 1e30f, "clampx"}, /* tags: parsed again */
        {{"1.5", "m", "0.0", "clamp", "0.0"}, 0.375f, NULL},
        {{"1<5", "m", "0.0", "clamp", "0.0"}, 1e30f, "malformed XML"}, /* markup: parsed */
        {{"1.5\" x=\"1", "m", "0.0", "clamp", "0.0"}, 0.375f, NULL},   /* a new attribute */
        {{"1.5", "m", "0.0", "clamp", "0.0"}, 0.375f, NULL},
        {{"1&#46;5", "m", "0.0", "clamp", "0.0"}, 0.375f, NULL}, /* a reference: parsed */
        {{"2.5", "m", "0.0", "clamp", "0.0"}, 0.625f, NULL},     /* after a reference */
        {{"x", "m", "0.0", "clamp", "0.0"}, 1e30f, "'x'"},       /* a bad value */
        {{"2.0", "m", "0.125", "clamp", "0.0"}, 0.625f, NULL},
    };
    fmag_context *editor = fmag_context_create();
    char src[4096], dg_editor[4096], dg_fresh[4096];
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        size_t len = make(src, sizeof src, &steps[i].e);
        EXPECT(len > 0);
        float got_editor, got_fresh;
        fmag_context_reset(editor);
        compile(editor, src, len, 0.25f, &got_editor, dg_editor, sizeof dg_editor);
        fmag_context *fresh = fmag_context_create();
        compile(fresh, src, len, 0.25f, &got_fresh, dg_fresh, sizeof dg_fresh);
        fmag_context_destroy(fresh);
        bool error = steps[i].want == 1e30f;
        if (error) {
            EXPECT(got_editor == -1e30f);
            EXPECT(steps[i].diag && strstr(dg_editor, steps[i].diag));
        } else {
            EXPECT(got_editor == steps[i].want);
            EXPECT(dg_editor[0] == 0);
        }
        EXPECT(got_editor == got_fresh);
        EXPECT(!strcmp(dg_editor, dg_fresh)); /* positions after an edit included */
        if (failures) {
            fprintf(stderr, "step %zu: editor %g fresh %g\n%s---\n%s", i, (double)got_editor,
                    (double)got_fresh, dg_editor, dg_fresh);
            break;
        }
    }
    /* Dropping the cached document: the next compile parses. */
    EXPECT(fmag_context_slot_get(editor, FMAG_MTLX_CONTEXT_SLOT) != NULL);
    fmag_context_slot_set(editor, FMAG_MTLX_CONTEXT_SLOT, NULL, NULL);
    EXPECT(fmag_context_slot_get(editor, FMAG_MTLX_CONTEXT_SLOT) == NULL);
    fmag_context_destroy(editor);
    size_t len = make(src, sizeof src, &steps[0].e);
    check_slots_full(src, len);
    check_values();
    check_folded_builtins();
    return failures != 0;
}
