/* A node editor's use of FMAG (docs/API.md walks through it): the user's node graph is
 * built through the IR builder, compiled to an FMAG program, inspected and run; the user
 * then edits a node and the graph is recompiled in the same context and run again. It
 * also compiles SL text, shows a diagnostic as a record, and tries the GPU runner.
 *
 * Built three ways by CI (examples/embed/build.sh): find_package(FMAG), pkg-config, and
 * the single header (-DFMAG_SINGLE_HEADER, fmag.h from utils/amalgamate.py).
 * Exit status 0 when every result matches a direct evaluation of the graph. */
/* The single header first: its implementation picks the POSIX feature level. */
#if defined(FMAG_SINGLE_HEADER)
#define FMAG_IMPLEMENTATION
#include "fmag.h"
#else
#include "fmag/IR.h" /* the builder: the graph becomes IR directly */
#include "fmag/fmag.h"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The editor's own graph: nodes in topological order, each naming earlier nodes. */
typedef enum node_kind { NODE_INPUT, NODE_CONST, NODE_ADD, NODE_MUL, NODE_MIX, NODE_MAX } node_kind;
typedef struct node {
    node_kind kind;
    int a, b, t; /* operand nodes (MIX: a + (b - a) * t) */
    float value; /* NODE_CONST */
    int input;   /* NODE_INPUT: which program input */
} node;

enum { MAX_NODES = 16 };

/* The graph as one export function: inputs are the program's inputs, the last node is
 * its output. */
static fmag_module *build_graph(fmag_context *ctx, const node *g, int n, int ninputs)
{
    fmag_module *m = fmag_module_create(ctx);
    fmag_func *f = fmag_func_create(m, "graph", (unsigned)ninputs, 1, true);
    fmag_builder b;
    fmag_builder_at_end(&b, fmag_block_create(f, "entry"));
    fmag_value *v[MAX_NODES];
    for (int i = 0; i < n; i++) {
        const node *k = &g[i];
        switch (k->kind) {
        case NODE_INPUT:
            v[i] = &f->params[k->input];
            break;
        case NODE_CONST:
            v[i] = fmag_build_const(&b, k->value);
            break;
        case NODE_ADD:
            v[i] = fmag_build_add(&b, v[k->a], v[k->b]);
            break;
        case NODE_MUL:
            v[i] = fmag_build_mul(&b, v[k->a], v[k->b]);
            break;
        case NODE_MAX:
            v[i] = fmag_build_max(&b, v[k->a], v[k->b]);
            break;
        case NODE_MIX:
            v[i] = fmag_build_fma(&b, fmag_build_sub(&b, v[k->b], v[k->a]), v[k->t], v[k->a]);
            break;
        }
    }
    fmag_build_ret(&b, &v[n - 1], 1);
    return m;
}

/* The oracle: the same graph evaluated directly in float, with the operations the IR
 * defines (each one rounding once, as the machine's fma does). */
static float eval_graph(const node *g, int n, const float *in)
{
    float v[MAX_NODES];
    for (int i = 0; i < n; i++) {
        const node *k = &g[i];
        switch (k->kind) {
        case NODE_INPUT:
            v[i] = in[k->input];
            break;
        case NODE_CONST:
            v[i] = k->value;
            break;
        case NODE_ADD:
            v[i] = v[k->a] + v[k->b];
            break;
        case NODE_MUL:
            v[i] = v[k->a] * v[k->b];
            break;
        case NODE_MAX:
            v[i] = v[k->a] - v[k->b] > 0 ? v[k->a] : v[k->b];
            break;
        case NODE_MIX:
            v[i] = fmaf(v[k->b] - v[k->a], v[k->t], v[k->a]);
            break;
        }
    }
    return v[n - 1];
}

static void print_diagnostics(fmag_context *ctx)
{
    for (size_t i = 0; i < fmag_context_diag_count(ctx); i++) {
        fmag_diagnostic d;
        fmag_context_diag_record(ctx, i, &d);
        printf("diagnostic: file=%s line=%u column=%u severity=%d message=\"%s\"\n",
               d.file ? d.file : "(none)", d.line, d.column, (int)d.severity, d.message);
    }
    fmag_context_diag_print(ctx, stdout);
}

/* Compiles the graph, prints the program, runs it on both CPU engines and checks
 * every element against the oracle. Returns the number of mismatches. */
static int compile_and_run(fmag_context *ctx, fmag_runner *ref, fmag_runner *batch, const node *g,
                           int n)
{
    enum { NIN = 3, N = 8 };
    fmag_module *m = build_graph(ctx, g, n, NIN);
    fmag_compile_options opts;
    fmag_compile_options_init(&opts);
    opts.fast_codegen = true; /* an editor recompiles on every edit */
    fmag_image *img = fmag_compile_module(m, &opts);
    if (!img) {
        print_diagnostics(ctx);
        return 1;
    }
    const fmag_vm_program *p = fmag_image_program(img, 0);
    printf("program %s: %u instructions, %u registers, %u inputs, %u outputs, flags %u\n",
           fmag_program_name(p), fmag_program_instr_count(p), fmag_program_regs(p),
           fmag_program_inputs(p), fmag_program_outputs(p), fmag_program_flags(p));
    char *text = fmag_program_disassemble(p);
    if (text) fputs(text, stdout);
    fmag_free(text);

    float in[N][NIN], out_ref[N], out_batch[N];
    for (int k = 0; k < N; k++)
        for (int j = 0; j < NIN; j++)
            in[k][j] = (float)(k - 3) * 0.75f + (float)j * 0.125f;
    int bad = 0;
    if (!fmag_run(ctx, ref, p, &in[0][0], out_ref, N) ||
        !fmag_run(ctx, batch, p, &in[0][0], out_batch, N)) {
        print_diagnostics(ctx);
        bad = 1;
    }
    for (int k = 0; k < N && !bad; k++) {
        float want = eval_graph(g, n, in[k]);
        int ok = memcmp(&want, &out_ref[k], 4) == 0 && memcmp(&want, &out_batch[k], 4) == 0;
        printf("  in %g %g %g -> %.9g %s\n", in[k][0], in[k][1], in[k][2], out_ref[k],
               ok ? "ok" : "MISMATCH");
        bad += !ok;
    }
    fmag_image_destroy(img);
    fmag_context_reset(ctx); /* the IR is gone; the memory is kept for the next compile */
    return bad;
}

int main(void)
{
    printf("FMAG %s (header %s)\n", fmag_version(), FMAG_VERSION_STRING);
    fmag_context *ctx = fmag_context_create();
    fmag_runner *ref = fmag_runner_create(ctx, FMAG_ENGINE_REF);
    fmag_runner *batch = fmag_runner_create(ctx, FMAG_ENGINE_BATCH);
    if (!ref || !batch) {
        print_diagnostics(ctx);
        return 1;
    }

    /* out = mix(x, y, t) * 2 + 0.5 */
    node g[MAX_NODES] = {
        {NODE_INPUT, 0, 0, 0, 0, 0},    {NODE_INPUT, 0, 0, 0, 0, 1}, {NODE_INPUT, 0, 0, 0, 0, 2},
        {NODE_MIX, 0, 1, 2, 0, 0},      {NODE_CONST, 0, 0, 0, 2, 0}, {NODE_MUL, 3, 4, 0, 0, 0},
        {NODE_CONST, 0, 0, 0, 0.5f, 0}, {NODE_ADD, 5, 6, 0, 0, 0},
    };
    int n = 8, bad = 0;
    printf("== graph: mix(x, y, t) * 2 + 0.5\n");
    bad += compile_and_run(ctx, ref, batch, g, n);

    /* The user edits the graph: the constant 2 becomes 3, and a max(.., x) node is
     * appended after the add. */
    g[4].value = 3;
    g[n++] = (node){NODE_MAX, 7, 0, 0, 0, 0};
    printf("== graph after the edit: max(mix(x, y, t) * 3 + 0.5, x)\n");
    bad += compile_and_run(ctx, ref, batch, g, n);

    /* SL text, and an error in it reported as a record. */
    const char *sl = "export f32 glow(f32 x) { return x * x + 1.0 }\n";
    fmag_image *img = fmag_compile(ctx, "glow.sl", sl, strlen(sl), NULL);
    printf("== glow.sl: %s\n", img ? "compiled" : "failed, as it should (missing ';')");
    if (img) bad++;
    print_diagnostics(ctx);
    if (fmag_context_diag_count(ctx) == 0) bad++;
    fmag_image_destroy(img);
    fmag_context_reset(ctx);

    /* The GPU runner where there is one; a clear error where there is none. */
    fmag_runner *gpu = fmag_runner_create(ctx, FMAG_ENGINE_VULKAN);
    if (gpu) {
        sl = "export f32 glow(f32 x) { return x * x + 1.0; }\n";
        img = fmag_compile(ctx, "glow.sl", sl, strlen(sl), NULL);
        float in[4] = {0, 1, 2, -3}, out[4];
        if (img && fmag_run(ctx, gpu, fmag_image_program(img, 0), in, out, 4))
            for (int k = 0; k < 4; k++) {
                float want = fmaf(in[k], in[k], 1.0f);
                printf("vulkan: glow(%g) = %g %s\n", in[k], out[k],
                       memcmp(&want, &out[k], 4) ? "MISMATCH" : "ok");
                bad += memcmp(&want, &out[k], 4) != 0;
            }
        else
            print_diagnostics(ctx);
        fmag_image_destroy(img);
        fmag_runner_destroy(gpu);
    } else {
        printf("vulkan: ");
        fmag_context_diag_print(ctx, stdout);
    }

    fmag_runner_destroy(ref);
    fmag_runner_destroy(batch);
    fmag_context_destroy(ctx);
    printf("%s\n", bad ? "FAILED" : "all results match");
    return bad ? 1 : 0;
}
