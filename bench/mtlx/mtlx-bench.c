/* mtlx-bench: compile latency of a MaterialX document to an FMAG stream in memory
 * (fmag_mtlx_compile, the O2 or O1 pipeline, codegen), the number an editor that recompiles
 * on every slider drag needs, beside slc-bench's SL numbers. A generated node graph
 * of N pattern nodes (default 60; texcoord, place2d, math, adjustment, compositing,
 * conditional and procedural nodes, color3) is compiled many times in one context
 * (reset between compiles, as a JIT does) three ways: parsed each time (the context's
 * cached document dropped: a first compile), the same text again, and the text with
 * one value changed (the cached document patched, lib/MaterialX/DocCache.c); the
 * median of each phase is printed. Then
 * the editor's loop: change one value in the text, recompile, run the program over a
 * 256 x 256 grid of texture coordinates (the batch engine), and time the round trip.
 * Each graph is built twice: color3 nodes (three channels each) and float nodes.
 * Times are the thread's CPU time (the machine is shared), median and minimum.
 *
 *   mtlx-bench [--min-ms N] [--nodes N] [--type T] [--print] [--reader-only]
 *              [--compile-only] [--reps N] [--pipeline O2|O1] [--mode parse|same|edit]
 *
 * --compile-only compiles the graph (--type, default color3) and prints its row, nothing
 * else; with --reps (here and with --reader-only) a fixed number of compiles instead of
 * --min-ms: for callgrind, whose instruction counts do not depend on the machine's load;
 * --mode what the context has seen (bench()'s reader_mode; parse by default);
 * --pipeline the pass pipeline it compiles with (O2; the table has O1 rows too: on such
 * graphs O1 gives an editor's preview a program a few percent longer, for less time).
 * --print writes the graph's text (--nodes, --type) instead: bench/mtlx/same-bytes.sh
 * compiles the graphs measured here with two builds.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/MaterialX.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k >= 0 && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        b->cap = b->cap * 2 + (size_t)k + 1024;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
}

/* A graph of `nodes` nodes: each node reads the one before (and sometimes the
 * interface input `gain` or the texture coordinate). `gain` is a literal value in
 * the text, which the editor's loop changes. */
static char *make_graph(unsigned nodes, float gain, const char *T, size_t *len)
{
    buf b = {malloc(4096), 0, 4096};
    put(&b, "<?xml version=\"1.0\"?>\n<materialx version=\"1.38\">\n  <nodegraph name=\"g\">\n");
    put(&b, "    <texcoord name=\"n0\" type=\"vector2\"/>\n");
    put(&b, "    <place2d name=\"n1\" type=\"vector2\">\n"
            "      <input name=\"texcoord\" type=\"vector2\" nodename=\"n0\"/>\n"
            "      <input name=\"scale\" type=\"vector2\" value=\"2, 2\"/>\n"
            "      <input name=\"rotate\" type=\"float\" value=\"30\"/>\n    </place2d>\n");
    bool color = !strcmp(T, "color3");
    if (color)
        put(&b,
            "    <combine3 name=\"n2\" type=\"color3\">\n"
            "      <input name=\"in1\" type=\"float\" nodename=\"n1\" channels=\"x\"/>\n"
            "      <input name=\"in2\" type=\"float\" nodename=\"n1\" channels=\"y\"/>\n"
            "      <input name=\"in3\" type=\"float\" value=\"%.4f\"/>\n    </combine3>\n",
            gain);
    else
        put(&b,
            "    <add name=\"n2\" type=\"float\">\n"
            "      <input name=\"in1\" type=\"float\" nodename=\"n1\" channels=\"x\"/>\n"
            "      <input name=\"in2\" type=\"float\" value=\"%.4f\"/>\n    </add>\n",
            gain);
    static const char *const kinds[] = {"multiply", "add",    "mix",        "clamp",
                                        "contrast", "remap",  "smoothstep", "ifgreater",
                                        "ramplr",   "screen", "subtract",   "max"};
    for (unsigned i = 3; i < nodes; i++) {
        const char *k = kinds[i % (sizeof kinds / sizeof kinds[0])];
        unsigned p = i - 1;
        put(&b, "    <%s name=\"n%u\" type=\"%s\">\n", k, i, T);
        if (!strcmp(k, "multiply") || !strcmp(k, "add") || !strcmp(k, "subtract") ||
            !strcmp(k, "max"))
            put(&b,
                "      <input name=\"in1\" type=\"%s\" nodename=\"n%u\"/>\n"
                "      <input name=\"in2\" type=\"float\" value=\"%.3f\"/>\n",
                T, p, 0.5 + 0.01 * i);
        else if (!strcmp(k, "mix") || !strcmp(k, "screen"))
            put(&b,
                "      <input name=\"fg\" type=\"%s\" nodename=\"n%u\"/>\n"
                "      <input name=\"bg\" type=\"%s\" nodename=\"n%u\"/>\n"
                "      <input name=\"mix\" type=\"float\" value=\"0.3\"/>\n",
                T, p, T, i >= 4 ? i - 3 : 2);
        else if (!strcmp(k, "ifgreater"))
            put(&b,
                "      <input name=\"value1\" type=\"float\" nodename=\"n0\" channels=\"x\"/>\n"
                "      <input name=\"value2\" type=\"float\" value=\"0.5\"/>\n"
                "      <input name=\"in1\" type=\"%s\" nodename=\"n%u\"/>\n"
                "      <input name=\"in2\" type=\"%s\" nodename=\"n%u\"/>\n",
                T, p, T, i >= 4 ? i - 2 : 2);
        else if (!strcmp(k, "ramplr"))
            put(&b,
                "      <input name=\"valuel\" type=\"%s\" nodename=\"n%u\"/>\n"
                "      <input name=\"valuer\" type=\"%s\" value=\"%s\"/>\n"
                "      <input name=\"texcoord\" type=\"vector2\" nodename=\"n1\"/>\n",
                T, p, T, color ? "0.2, 0.4, 0.8" : "0.4");
        else
            put(&b, "      <input name=\"in\" type=\"%s\" nodename=\"n%u\"/>\n", T, p);
        put(&b, "    </%s>\n", k);
    }
    put(&b, "    <output name=\"out\" type=\"%s\" nodename=\"n%u\"/>\n", T, nodes - 1);
    put(&b, "  </nodegraph>\n</materialx>\n");
    *len = b.n;
    return b.p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One compile; ph[0..2]: reader, O2, codegen (µs). */
static bool compile_once(fmag_context *ctx, const char *src, size_t len, const char *pipeline,
                         fmag_codegen_effort e, fmag_vm_image *img, double *ph)
{
    double t0 = now_us();
    fmag_module *m = fmag_mtlx_compile(ctx, "bench.mtlx", src, len, NULL);
    double t1 = now_us();
    fmag_pass_options po;
    memset(&po, 0, sizeof po);
    bool ok = m && fmag_run_passes(m, pipeline, &po);
    double t2 = now_us();
    fmag_codegen_options co = {e};
    ok = ok && fmag_codegen_module_with(m, img, &co);
    double t3 = now_us();
    ph[0] = t1 - t0;
    ph[1] = t2 - t1;
    ph[2] = t3 - t2;
    if (!ok) fmag_context_diag_print(ctx, stderr);
    return ok;
}

/* What the context has seen before each compile: nothing (the cached document
 * dropped: a first compile, expat parses), the same text (a recompile), or the text
 * with the value of `gain` changed (an editor's edit: the cached document patched). */
typedef enum reader_mode { READ_COLD, READ_SAME, READ_EDIT } reader_mode;
static const char *const mode_names[] = {"parse", "same text", "edit"};

/* Compiles at least min_reps times and for at least min_ms. */
static void bench(unsigned nodes, const char *T, double min_ms, unsigned min_reps,
                  const char *pipeline, fmag_codegen_effort e, reader_mode mode)
{
    size_t len;
    char *src = make_graph(nodes, 0.5f, T, &len);
    fmag_context *ctx = fmag_context_create();
    enum { MAXREP = 20000 };
    double *t = malloc(sizeof *t * 4 * MAXREP);
    unsigned n = 0, instrs = 0;
    double start = now_us();
    while (n < MAXREP && (n < min_reps || now_us() - start < min_ms * 1000)) {
        if (mode == READ_COLD) fmag_context_slot_set(ctx, FMAG_MTLX_CONTEXT_SLOT, NULL, NULL);
        if (mode == READ_EDIT) { /* a slider drag on gain */
            free(src);
            src = make_graph(nodes, 0.25f + 0.001f * (float)(n % 500), T, &len);
        }
        fmag_vm_image img;
        fmag_vm_image_init(&img);
        double ph[3];
        double a = now_us();
        if (!compile_once(ctx, src, len, pipeline, e, &img, ph)) exit(1);
        double b = now_us();
        instrs = img.programs[0].ninstr;
        fmag_vm_image_free(&img);
        fmag_context_reset(ctx);
        t[n] = b - a;
        for (int k = 0; k < 3; k++)
            t[(k + 1) * MAXREP + n] = ph[k];
        n++;
    }
    double med[4], lo;
    for (int k = 0; k < 4; k++) {
        qsort(t + k * MAXREP, n, sizeof *t, cmp_double);
        med[k] = t[k * MAXREP + n / 2];
    }
    lo = t[0];
    printf("| graph-%u %s | %s | %s %s | %zu | %u | **%.1f** | %.1f | %.1f | %.1f | %.1f | %u |\n",
           nodes, T, mode_names[mode], pipeline, e == FMAG_CODEGEN_FAST ? "fast" : "full", len,
           instrs, med[0], lo, med[1], med[2], med[3], n);
    free(t);
    free(src);
    fmag_context_destroy(ctx);
}

/* The editor's loop: a new value in the text, a compile, a 256 x 256 evaluation. */
static void editor_loop(unsigned nodes, const char *T, double min_ms, const char *pipeline)
{
    enum { W = 256, MAXREP = 20000 };
    float *in = malloc(sizeof(float) * W * W * 2), *out = malloc(sizeof(float) * W * W * 3);
    (void)T;
    for (unsigned y = 0; y < W; y++)
        for (unsigned x = 0; x < W; x++) {
            in[2 * (y * W + x)] = (x + 0.5f) / W;
            in[2 * (y * W + x) + 1] = (y + 0.5f) / W;
        }
    fmag_context *ctx = fmag_context_create();
    double *tc = malloc(sizeof(double) * MAXREP), *tr = malloc(sizeof(double) * MAXREP);
    unsigned n = 0;
    double start = now_us();
    while (n < MAXREP && (n < 20 || now_us() - start < min_ms * 1000)) {
        size_t len;
        char *src = make_graph(nodes, 0.25f + 0.001f * (float)(n % 500), T, &len); /* drag */
        fmag_vm_image img;
        fmag_vm_image_init(&img);
        double ph[3], a = now_us();
        if (!compile_once(ctx, src, len, pipeline, FMAG_CODEGEN_FAST, &img, ph)) exit(1);
        double b = now_us();
        char err[256];
        if (!fmag_vm_run_batch(&img.programs[0], in, out, W * W, err, sizeof err)) {
            fprintf(stderr, "run: %s\n", err);
            exit(1);
        }
        double c = now_us();
        tc[n] = b - a;
        tr[n] = c - b;
        n++;
        fmag_vm_image_free(&img);
        fmag_context_reset(ctx);
        free(src);
    }
    qsort(tc, n, sizeof *tc, cmp_double);
    qsort(tr, n, sizeof *tr, cmp_double);
    printf("editor loop, graph-%u %s, %s: edit + compile %.1f µs, run 256x256 (batch, %s) %.1f "
           "µs, %u rounds\n",
           nodes, T, pipeline, tc[n / 2], fmag_vm_batch_isa(), tr[n / 2], n);
    free(in);
    free(out);
    free(tc);
    free(tr);
    fmag_context_destroy(ctx);
}

int main(int argc, char **argv)
{
    double min_ms = 500;
    unsigned only = 0;
    bool print = false, reader_only = false, compile_only = false;
    unsigned reps = 0;
    const char *pipeline = "O2";
    reader_mode mode = READ_COLD;
    const char *only_type = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--min-ms") && i + 1 < argc)
            min_ms = atof(argv[++i]);
        else if (!strcmp(argv[i], "--nodes") && i + 1 < argc)
            only = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--print"))
            print = true;
        else if (!strcmp(argv[i], "--reader-only"))
            reader_only = true;
        else if (!strcmp(argv[i], "--type") && i + 1 < argc)
            only_type = argv[++i];
        else if (!strcmp(argv[i], "--pipeline") && i + 1 < argc)
            pipeline = argv[++i];
        else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            const char *m = argv[++i];
            mode = !strcmp(m, "parse") ? READ_COLD : !strcmp(m, "same") ? READ_SAME : READ_EDIT;
        } else if (!strcmp(argv[i], "--compile-only"))
            compile_only = true;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = (unsigned)atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: mtlx-bench [--min-ms N] [--nodes N] [--type T] [--print] "
                            "[--reader-only] [--compile-only] [--reps N] [--pipeline P] [--mode "
                            "parse|same|edit]\n");
            return 2;
        }
    }
    if (only && only < 4) only = 4;
    if (reader_only) { /* for profiling the reader alone */
        size_t len;
        char *s = make_graph(only ? only : 60, 0.5f, only_type ? only_type : "float", &len);
        fmag_context *ctx = fmag_context_create();
        double t0 = now_us();
        unsigned done = 0;
        while (reps ? done < reps : now_us() - t0 < min_ms * 1000) {
            if (mode == READ_COLD) fmag_context_slot_set(ctx, FMAG_MTLX_CONTEXT_SLOT, NULL, NULL);
            if (!fmag_mtlx_compile(ctx, "bench.mtlx", s, len, NULL)) return 1;
            fmag_context_reset(ctx);
            done++;
        }
        printf("reader: %.1f µs per compile (%u compiles)\n", (now_us() - t0) / done, done);
        free(s);
        fmag_context_destroy(ctx);
        return 0;
    }
    if (print) {
        size_t len;
        char *s = make_graph(only ? only : 60, 0.5f, only_type ? only_type : "color3", &len);
        fwrite(s, 1, len, stdout);
        free(s);
        return 0;
    }
    if (compile_only) {
        bench(only ? only : 60, only_type ? only_type : "color3", reps ? 0 : min_ms,
              reps ? reps : 20, pipeline, FMAG_CODEGEN_FAST, mode);
        return 0;
    }
    printf("| graph | reader | passes, codegen | bytes | instrs | **median µs** | min µs | reader "
           "| passes | codegen | repeats |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    unsigned sizes[] = {60, 250, 1000};
    for (unsigned k = 0; k < 3; k++) {
        unsigned nodes = only ? only : sizes[k];
        for (reader_mode m = READ_COLD; m <= READ_EDIT; m++) {
            bench(nodes, "color3", min_ms, 20, "O2", FMAG_CODEGEN_FAST, m);
            bench(nodes, "float", min_ms, 20, "O2", FMAG_CODEGEN_FAST, m);
        }
        bench(nodes, "color3", min_ms, 20, "O1", FMAG_CODEGEN_FAST, READ_EDIT);
        bench(nodes, "float", min_ms, 20, "O1", FMAG_CODEGEN_FAST, READ_EDIT);
        bench(nodes, "color3", min_ms, 20, "O2", FMAG_CODEGEN_FULL, READ_COLD);
        if (only) break;
    }
    editor_loop(only ? only : 60, "color3", min_ms, "O2");
    editor_loop(only ? only : 60, "float", min_ms, "O2");
    editor_loop(only ? only : 60, "color3", min_ms, "O1");
    editor_loop(only ? only : 60, "float", min_ms, "O1");
    return 0;
}
