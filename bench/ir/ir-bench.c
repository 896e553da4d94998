/* Benchmark of the IR front end: parse, verify and print generated .fir modules of
 * growing size (straight-line code with a diamond every 50 instructions), median of
 * repeated runs, in process CPU time (the machine may be busy). Usage:
 * fmag-ir-bench [repeats] */
#include "fmag/IR.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../BenchTime.h"

static double now_us(void)
{
    return bench_seconds(CLOCK_PROCESS_CPUTIME_ID) * 1e6;
}

/* A deterministic module of about n instructions. */
static char *gen_module(unsigned n, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    fprintf(f, "export func @big(%%a, %%b, %%c, %%d) -> 1 {\n^entry:\n");
    unsigned seed = 12345, blk = 0;
    const char *ops[] = {"add", "sub", "mul", "fma", "select", "relu", "neg"};
    const int nops[] = {2, 2, 2, 3, 3, 1, 1};
    fprintf(f, "  %%v0 = add %%a, %%b\n  %%v1 = mul %%c, %%d\n");
    unsigned last = 1;
    for (unsigned i = 2; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        if (i % 50 == 49) {
            blk++;
            fprintf(f, "  br %%v%u, ^t%u, ^e%u\n^t%u:\n  %%t%u = add %%v%u, 1.5\n  jmp ^j%u\n",
                    last, blk, blk, blk, blk, last - 1, blk);
            fprintf(f, "^e%u:\n  %%e%u = mul %%v%u, 0.5\n  jmp ^j%u\n^j%u:\n", blk, blk, last, blk,
                    blk);
            fprintf(f, "  %%v%u = phi [%%t%u, ^t%u], [%%e%u, ^e%u]\n", i, blk, blk, blk, blk);
            last = i;
            continue;
        }
        unsigned k = (seed >> 16) % 7;
        fprintf(f, "  %%v%u = %s", i, ops[k]);
        for (int j = 0; j < nops[k]; j++) {
            unsigned back = 1 + ((seed >> (4 + 3 * j)) % 8);
            fprintf(f, "%s%%v%u", j ? ", " : " ", last >= back ? last - back + 1 : 0);
        }
        fputc('\n', f);
        last = i;
    }
    fprintf(f, "  ret %%v%u\n}\n", last);
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 21;
    if (repeats < 1 || repeats > 10000) {
        fprintf(stderr, "fmag-ir-bench: error: repeats must be 1..10000\n");
        return 1;
    }
    const unsigned sizes[] = {100, 500, 2000, 5000, 20000, 100000};
    printf("%8s %10s %10s %10s %10s %12s\n", "instrs", "parse_us", "verify_us", "print_us",
           "total_us", "ns/instr");
    double *tp = calloc(repeats, sizeof(double)), *tv = calloc(repeats, sizeof(double)),
           *tr = calloc(repeats, sizeof(double));
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t len;
        char *text = gen_module(sizes[s], &len);
        size_t ninstr = 0;
        for (int r = 0; r < repeats; r++) {
            fmag_context *ctx = fmag_context_create();
            double t0 = now_us();
            fmag_module *m = fmag_parse_module(ctx, "bench.fir", text, len);
            double t1 = now_us();
            bool ok = m && fmag_verify_module(m);
            double t2 = now_us();
            FILE *null = fopen("/dev/null", "w");
            if (ok) fmag_module_print(m, null, 0);
            fclose(null);
            double t3 = now_us();
            if (!ok) {
                fmag_context_diag_print(ctx, stderr);
                return 1;
            }
            ninstr = fmag_module_num_instrs(m);
            tp[r] = t1 - t0, tv[r] = t2 - t1, tr[r] = t3 - t2;
            fmag_context_destroy(ctx);
        }
        double p = bench_median(tp, repeats), v = bench_median(tv, repeats),
               w = bench_median(tr, repeats);
        printf("%8zu %10.1f %10.1f %10.1f %10.1f %12.1f\n", ninstr, p, v, w, p + v + w,
               (p + v + w) * 1e3 / ninstr);
        free(text);
    }
    free(tp), free(tv), free(tr);
    return 0;
}
