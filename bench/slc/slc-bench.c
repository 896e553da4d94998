/* slc-bench: compile latency of SL source to an FMAG stream in memory through the
 * library API (fmag_sl_compile, the O2 pipeline, codegen), the number that matters
 * next to a run-time shader compiler. Median of many repeats per program: the
 * examples given on the command line, then a generated family of node-graph
 * programs of growing size to show how time scales.
 *
 *   slc-bench [--min-ms N] [FILE.sl ...]
 */
#define _POSIX_C_SOURCE 200809L
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

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* One full compile; returns the instruction count of all programs, 0 on error.
 * ph[0..2] get the frontend, O2 and codegen times. */
static unsigned compile_once(const char *name, const char *src, size_t len, double *ph)
{
    double t0 = now_us();
    fmag_context *ctx = fmag_context_create();
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    unsigned n = 0;
    fmag_module *m = fmag_sl_compile(ctx, name, src, len, NULL);
    double t1 = now_us();
    fmag_pass_options po;
    memset(&po, 0, sizeof po);
    bool ok = m && fmag_run_passes(m, "O2", &po);
    double t2 = now_us();
    ok = ok && fmag_codegen_module(m, &img);
    double t3 = now_us();
    ph[0] = t1 - t0;
    ph[1] = t2 - t1;
    ph[2] = t3 - t2;
    if (ok)
        for (size_t i = 0; i < img.nprograms; i++)
            n += img.programs[i].ninstr;
    else
        fmag_context_diag_print(ctx, stderr);
    fmag_vm_image_free(&img);
    fmag_context_destroy(ctx);
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void bench(const char *name, const char *src, size_t len, double min_ms, unsigned nodes)
{
    enum { MAXREP = 20000 };
    static double t[MAXREP], p0[MAXREP], p1[MAXREP], p2[MAXREP];
    double ph[3];
    unsigned instrs = compile_once(name, src, len, ph);
    if (!instrs) {
        printf("%-24s  compile error\n", name);
        return;
    }
    double start = now_us();
    int reps = 0;
    while (reps < MAXREP && (reps < 21 || now_us() - start < min_ms * 1000)) {
        double t0 = now_us();
        compile_once(name, src, len, ph);
        p0[reps] = ph[0];
        p1[reps] = ph[1];
        p2[reps] = ph[2];
        t[reps++] = now_us() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    qsort(p0, (size_t)reps, sizeof t[0], cmp_double);
    qsort(p1, (size_t)reps, sizeof t[0], cmp_double);
    qsort(p2, (size_t)reps, sizeof t[0], cmp_double);
    double med = t[reps / 2];
    printf("%-24s %6u %7u %10.1f %9.3f %9.1f %9.1f %9.1f %6d\n", name, nodes, instrs, med,
           med / instrs, p0[reps / 2], p1[reps / 2], p2[reps / 2], reps);
    fflush(stdout);
}

/* A node-graph program of n nodes as an artist tool would emit it: each node reads
 * one or two earlier nodes or inputs and applies a simple math node. */
static char *gen_graph(unsigned n, size_t *len)
{
    size_t cap = 256 + (size_t)n * 96;
    char *s = malloc(cap);
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

int main(int argc, char **argv)
{
    double min_ms = 300;
    int first = 1;
    if (argc > 2 && !strcmp(argv[1], "--min-ms")) {
        min_ms = atof(argv[2]);
        first = 3;
    }
    printf("%-24s %6s %7s %10s %9s %9s %9s %9s %6s\n", "program", "nodes", "instrs", "median_us",
           "us/instr", "sl_us", "O2_us", "cg_us", "reps");
    for (int i = first; i < argc; i++) {
        size_t len;
        char *src = read_file(argv[i], &len);
        if (!src) {
            fprintf(stderr, "slc-bench: cannot read %s\n", argv[i]);
            return 1;
        }
        const char *base = strrchr(argv[i], '/');
        bench(base ? base + 1 : argv[i], src, len, min_ms, 0);
        free(src);
    }
    static const unsigned sizes[] = {15, 30, 60, 125, 250, 500, 1000, 2000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t len;
        char *src = gen_graph(sizes[i], &len);
        char name[32];
        snprintf(name, sizeof name, "graph-%u", sizes[i]);
        bench(name, src, len, min_ms, sizes[i]);
        free(src);
    }
    return 0;
}
