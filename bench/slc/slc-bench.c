/* slc-bench: compile latency of SL source to an FMAG stream in memory through the
 * library API (fmag_sl_compile, the O2 pipeline, codegen), the number that matters
 * next to a run-time shader compiler. Median of many repeats per program: the
 * examples given on the command line, then generated families of growing size to
 * show how time scales: node-graph chains (graph-N) and wide sums (wide-N).
 *
 *   slc-bench [--min-ms N] [--graph N] [--print-graph N] [--fast-only] [--cpu-time]
 *             [FILE.sl ...]
 *
 * Each program is compiled twice: with the fast lowering a JIT would use
 * (FMAG_CODEGEN_FAST) and with the full search (the default of slc), to show what
 * the search costs and what it buys. --fast-only skips the second.
 * --graph N runs only the generated graph of N nodes (for profiling);
 * --print-graph N writes its source to stdout.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/SL.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"
#include "../BenchTime.h"

/* What a run measures: --cpu-time reads the thread's CPU clock instead of the
 * wall clock, for a loaded machine where other processes steal the core. */
/* Generated programs above this many nodes are not what the benchmark is for and
 * take seconds and hundreds of MB each. */
#define GRAPH_MAX_NODES 200000u

typedef struct bench_cfg {
    double min_ms;
    clockid_t clock;
    bool fast_only;
} bench_cfg;

static double now_us(const bench_cfg *cfg)
{
    return bench_seconds(cfg->clock) * 1e6;
}

/* One full compile; returns the instruction count of all programs, 0 on error.
 * ph[0..2] get the frontend, O2 and codegen times. */
static unsigned compile_once(const bench_cfg *cfg, fmag_context *reuse, const char *name,
                             const char *src, size_t len, fmag_codegen_effort effort, double *ph)
{
    double t0 = now_us(cfg);
    fmag_context *ctx = reuse ? reuse : fmag_context_create();
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    unsigned n = 0;
    fmag_module *m = fmag_sl_compile(ctx, name, src, len, NULL);
    double t1 = now_us(cfg);
    fmag_pass_options po;
    memset(&po, 0, sizeof po);
    bool ok = m && fmag_run_passes(m, "O2", &po);
    double t2 = now_us(cfg);
    fmag_codegen_options co = {effort};
    ok = ok && fmag_codegen_module_with(m, &img, &co);
    double t3 = now_us(cfg);
    ph[0] = t1 - t0;
    ph[1] = t2 - t1;
    ph[2] = t3 - t2;
    if (ok)
        for (size_t i = 0; i < img.nprograms; i++)
            n += img.programs[i].ninstr;
    else
        fmag_context_diag_print(ctx, stderr);
    fmag_vm_image_free(&img);
    if (reuse)
        fmag_context_reset(ctx);
    else
        fmag_context_destroy(ctx);
    return n;
}

typedef struct timing {
    unsigned instrs;
    double total, phase[3]; /* medians, µs */
} timing;

/* reuse: one context reset between compiles (what a JIT does), or NULL for a new
 * context per compile. */
static bool time_compile(const bench_cfg *cfg, fmag_context *reuse, const char *name,
                         const char *src, size_t len, fmag_codegen_effort effort, timing *out)
{
    enum { MAXREP = 20000 };
    double *t = malloc(sizeof *t * 4 * MAXREP);
    if (!t) return false;
    double *p[3] = {t + MAXREP, t + 2 * MAXREP, t + 3 * MAXREP};
    double ph[3];
    out->instrs = compile_once(cfg, reuse, name, src, len, effort, ph);
    if (!out->instrs) {
        free(t);
        return false;
    }
    double start = now_us(cfg);
    int reps = 0;
    while (reps < MAXREP && (reps < 21 || now_us(cfg) - start < cfg->min_ms * 1000)) {
        double t0 = now_us(cfg);
        compile_once(cfg, reuse, name, src, len, effort, ph);
        t[reps] = now_us(cfg) - t0;
        for (int k = 0; k < 3; k++)
            p[k][reps] = ph[k];
        reps++;
    }
    out->total = bench_median(t, (size_t)reps);
    for (int k = 0; k < 3; k++)
        out->phase[k] = bench_median(p[k], (size_t)reps);
    free(t);
    return true;
}

/* One row: the JIT path (one context reset between compiles, O2, fast lowering),
 * the same with a new context per compile, then the full lowering search for
 * comparison of time and code size. */
static void bench(const bench_cfg *cfg, const char *name, const char *src, size_t len,
                  unsigned nodes)
{
    timing fast, fresh = {0, 0, {0, 0, 0}}, full = {0, 0, {0, 0, 0}};
    fmag_context *ctx = fmag_context_create();
    bool ok =
        time_compile(cfg, ctx, name, src, len, FMAG_CODEGEN_FAST, &fast) &&
        (cfg->fast_only || (time_compile(cfg, NULL, name, src, len, FMAG_CODEGEN_FAST, &fresh) &&
                            time_compile(cfg, ctx, name, src, len, FMAG_CODEGEN_FULL, &full)));
    fmag_context_destroy(ctx);
    if (!ok) {
        printf("%-22s  compile error\n", name);
        return;
    }
    printf("%-22s %5u %6u %8.1f %7.3f %7.1f %7.1f %7.1f", name, nodes, fast.instrs, fast.total,
           fast.total / fast.instrs, fast.phase[0], fast.phase[1], fast.phase[2]);
    if (cfg->fast_only)
        printf("\n");
    else
        printf(" %8.1f | %6u %8.1f %8.1f\n", fresh.total, full.instrs, full.total, full.phase[2]);
    fflush(stdout);
}

/* A node-graph program of n nodes as an artist tool would emit it: each node reads
 * one or two earlier nodes or inputs and applies a simple math node. */
static char *gen_graph(unsigned n, size_t *len)
{
    size_t cap = 256 + (size_t)n * 96;
    char *s = malloc(cap);
    if (!s) return NULL;
    size_t k = 0;
    k += (size_t)snprintf(s + k, cap - k,
                          "export f32 graph(f32 a, f32 b, f32 c, f32 d) {\n    f32 n0 = a;\n");
    unsigned seed = 12345;
    for (unsigned i = 1; i <= n; i++) {
        seed = seed * 1103515245u + 12345u;
        /* every node feeds the next, so the whole graph stays live */
        unsigned x = i - 1, y = (seed >> 16) % i, op = (seed >> 24) % 10;
        static const char *const ops[] = {"n%u + n%u",
                                          "n%u * n%u",
                                          "n%u - n%u * 0.5",
                                          "max(n%u, n%u)",
                                          "min(n%u, n%u) + b",
                                          "mix(n%u, n%u, c)",
                                          "clamp(n%u + n%u, 0.0, 4.0)",
                                          "abs(n%u - n%u)",
                                          "n%u * 0.75 + n%u * d",
                                          "(n%u > n%u) ? a : n%u"};
        char expr[64];
        snprintf(expr, sizeof expr, ops[op], x, y, x);
        k += (size_t)snprintf(s + k, cap - k, "    f32 n%u = %s;\n", i, expr);
    }
    k += (size_t)snprintf(s + k, cap - k, "    return n%u;\n}\n", n);
    *len = k;
    return s;
}

/* A wide program: n independent terms summed, as a layer-blending or
 * weighted-sum node emits; many values are ready at once, the case where a
 * scheduler can blow up registers or time. */
static char *gen_wide(unsigned n, size_t *len)
{
    size_t cap = 256 + (size_t)n * 128;
    char *s = malloc(cap);
    if (!s) return NULL;
    size_t k = 0;
    k += (size_t)snprintf(s + k, cap - k, "export f32 wide(f32 a, f32 b, f32 c, f32 d) {\n");
    unsigned seed = 777;
    static const char in[] = "abcd";
    for (unsigned i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        char x = in[(seed >> 16) & 3], y = in[(seed >> 20) & 3];
        /* distinct literals, so CSE cannot merge terms */
        k += (size_t)snprintf(s + k, cap - k, "    f32 t%u = max(%c * %u.%04u, %c - 0.5);\n", i, x,
                              1 + (seed >> 24) % 3, i, y);
    }
    k += (size_t)snprintf(s + k, cap - k, "    f32 s0 = t0;\n");
    for (unsigned i = 1; i < n; i++)
        k += (size_t)snprintf(s + k, cap - k, "    f32 s%u = s%u + t%u;\n", i, i - 1, i);
    k += (size_t)snprintf(s + k, cap - k, "    return s%u;\n}\n", n - 1);
    *len = k;
    return s;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    *len = buf ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    return buf;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: slc-bench [options] [FILE.sl ...]\n"
            "\n"
            "Compile latency of SL source to an FMAG stream through the library API: each\n"
            "FILE, then generated node-graph chains (graph-N) and wide sums (wide-N). Per\n"
            "program: the JIT path (one context reset between compiles, O2, fast lowering),\n"
            "a new context per compile, and the full lowering search (docs/PERFORMANCE.md).\n"
            "\n"
            "options:\n"
            "  --min-ms MS        compile for at least MS ms per column (default 300; at\n"
            "                     least 21 repeats)\n"
            "  --graph N          only the generated graph of N nodes (1..%u)\n"
            "  --print-graph N    write that graph's source to stdout and exit\n"
            "  --fast-only        only the JIT path\n"
            "  --cpu-time         thread CPU time instead of wall-clock time (a loaded\n"
            "                     machine; the clock read itself costs a few us per compile)\n"
            "  --help\n",
            GRAPH_MAX_NODES);
}

/* A node count for --graph / --print-graph: 1..GRAPH_MAX_NODES. */
static bool parse_nodes(const char *opt, const char *val, unsigned *n)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(val, &end, 10);
    if (errno || end == val || *end || val[0] == '-' || v < 1 || v > GRAPH_MAX_NODES) {
        fprintf(stderr, "slc-bench: %s wants 1..%u nodes, not '%s'\n", opt, GRAPH_MAX_NODES, val);
        return false;
    }
    *n = (unsigned)v;
    return true;
}

int main(int argc, char **argv)
{
    bench_cfg cfg = {300, CLOCK_MONOTONIC, false};
    unsigned only_graph = 0, print_graph = 0;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0;
    if (!files) return 1;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (opt[0] != '-' || !opt[1]) {
            files[nfiles++] = opt;
            continue;
        }
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            usage(stdout);
            free(files);
            return 0;
        }
        if (!strcmp(opt, "--fast-only") || !strcmp(opt, "--cpu-time")) {
            if (opt[2] == 'f')
                cfg.fast_only = true;
            else
                cfg.clock = CLOCK_THREAD_CPUTIME_ID;
            continue;
        }
        bool takes_value =
            !strcmp(opt, "--min-ms") || !strcmp(opt, "--graph") || !strcmp(opt, "--print-graph");
        if (!takes_value || i + 1 >= argc) {
            fprintf(stderr, "slc-bench: %s '%s' (see --help)\n",
                    takes_value ? "missing value for" : "unknown option", opt);
            free(files);
            return 1;
        }
        const char *val = argv[++i];
        bool ok = true;
        if (!strcmp(opt, "--min-ms")) {
            char *end;
            cfg.min_ms = strtod(val, &end);
            ok = end != val && !*end && cfg.min_ms >= 0 && cfg.min_ms <= 1e6;
            if (!ok) fprintf(stderr, "slc-bench: --min-ms wants 0..1000000, not '%s'\n", val);
        } else {
            ok = parse_nodes(opt, val, opt[2] == 'g' ? &only_graph : &print_graph);
        }
        if (!ok) {
            free(files);
            return 1;
        }
    }
    if (print_graph) {
        size_t len;
        char *src = gen_graph(print_graph, &len);
        if (src) fwrite(src, 1, len, stdout);
        free(src);
        free(files);
        return src ? 0 : 1;
    }
    printf("%-22s %5s %6s %8s %7s %7s %7s %7s %8s | %6s %8s %8s\n", "", "", "fast", "", "", "", "",
           "", "new-ctx", "full", "", "");
    printf("%-22s %5s %6s %8s %7s %7s %7s %7s %8s | %6s %8s %8s\n", "program", "nodes", "instrs",
           "us", "us/ins", "sl_us", "O2_us", "cg_us", "us", "instrs", "us", "cg_us");
    for (int i = 0; i < nfiles; i++) {
        size_t len;
        char *src = read_file(files[i], &len);
        if (!src) {
            fprintf(stderr, "slc-bench: cannot read %s\n", files[i]);
            free(files);
            return 1;
        }
        const char *base = strrchr(files[i], '/');
        bench(&cfg, base ? base + 1 : files[i], src, len, 0);
        free(src);
    }
    free(files);
    static const unsigned sizes[] = {15, 30, 60, 125, 250, 500, 1000, 2000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] + (only_graph != 0); i++) {
        if (only_graph && i < sizeof sizes / sizeof sizes[0]) continue;
        unsigned n = only_graph ? only_graph : sizes[i];
        size_t len;
        char *src = gen_graph(n, &len);
        if (!src) return 1;
        char name[32];
        snprintf(name, sizeof name, "graph-%u", n);
        bench(&cfg, name, src, len, n);
        free(src);
    }
    static const unsigned wide_sizes[] = {60, 250, 1000};
    for (size_t i = 0; !only_graph && i < sizeof wide_sizes / sizeof wide_sizes[0]; i++) {
        size_t len;
        char *src = gen_wide(wide_sizes[i], &len);
        if (!src) return 1;
        char name[32];
        snprintf(name, sizeof name, "wide-%u", wide_sizes[i]);
        bench(&cfg, name, src, len, wide_sizes[i]);
        free(src);
    }
    return 0;
}
