/* fmag-bench-codegen: the lowering benchmark. For every export of every .fir
 * given: -O2, then lowering, printed as one Markdown table row: IR instructions
 * after -O2, emitted instructions, registers, the stream's live-register maximum,
 * whether regs <= max(max-live + 1, inputs, outputs), moves, and the lowering
 * time (median of repeated runs). Not a test: numbers go to docs/CodeGen.md. */
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int reps = 51;
    int first = 1;
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: fmag-bench-codegen [--reps N] FILE.fir...\n"
               "Prints a Markdown table: per export, instructions after -O2, emitted\n"
               "instructions, registers, live-register maximum, the regs bound, moves and the\n"
               "median lowering time over N runs (default 51). Exit 1 on an unreadable or\n"
               "unlowerable file, or when a program breaks the regs bound.\n");
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--version")) {
        printf("fmag-bench-codegen %s\n", FMAG_VERSION_STRING);
        return 0;
    }
    if (argc > 2 && !strcmp(argv[1], "--reps")) {
        reps = atoi(argv[2]);
        if (reps < 1 || reps > 100000) {
            fprintf(stderr, "fmag-bench-codegen: error: bad --reps '%s'\n", argv[2]);
            return 1;
        }
        first = 3;
    }
    if (first >= argc) {
        fprintf(stderr, "fmag-bench-codegen: error: no input files (see --help)\n");
        return 1;
    }
    double *times = malloc(sizeof *times * (size_t)reps);
    if (!times) return 1;
    int rc = 0;
    unsigned nprog = 0, sum_ir = 0, sum_instrs = 0, sum_regs = 0, sum_live = 0, bound_bad = 0;
    printf("| program | in | out | IR instrs (-O2) | instrs | regs | max-live | regs <= max-live+1 "
           "| moves | lower (us) |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|:---:|---:|---:|\n");
    for (int a = first; a < argc; a++) {
        size_t len;
        char *text = read_file(argv[a], &len);
        if (!text) {
            fprintf(stderr, "fmag-bench-codegen: error: cannot read '%s'\n", argv[a]);
            rc = 1;
            continue;
        }
        fmag_context *ctx = fmag_context_create();
        fmag_module *m = ctx ? fmag_parse_module(ctx, argv[a], text, len) : NULL;
        fmag_pass_options po;
        memset(&po, 0, sizeof po);
        if (!m || !fmag_verify_module(m) || !fmag_run_passes(m, "O2", &po)) {
            if (ctx) fmag_context_diag_print(ctx, stderr);
            rc = 1;
            fmag_context_destroy(ctx);
            free(text);
            continue;
        }
        fmag_foreach_func (f, m) {
            if (!f->is_export) continue;
            fmag_codegen_stats st;
            memset(&st, 0, sizeof st);
            bool ok = true;
            for (int r = 0; r < reps && ok; r++) {
                fmag_vm_image img;
                fmag_vm_image_init(&img);
                double t0 = now_us();
                ok = fmag_codegen_func(f, &img, &st);
                times[r] = now_us() - t0;
                fmag_vm_image_free(&img);
            }
            if (!ok) {
                fmag_context_diag_print(ctx, stderr);
                rc = 1;
                continue;
            }
            qsort(times, (size_t)reps, sizeof *times, cmp_double);
            unsigned nin = f->nparams, nout = f->nresults;
            unsigned bound = st.max_live + 1;
            if (bound < nin) bound = nin;
            if (bound < nout) bound = nout;
            bool within = st.regs <= bound;
            bound_bad += !within;
            unsigned ir = (unsigned)fmag_func_num_instrs(f) - 1; /* without the ret */
            printf("| %s | %u | %u | %u | %u | %u | %u | %s | %u | %.1f |\n", f->name, nin, nout,
                   ir, st.instrs, st.regs, st.max_live, within ? "yes" : "NO", st.moves,
                   times[reps / 2]);
            nprog++;
            sum_ir += ir;
            sum_instrs += st.instrs;
            sum_regs += st.regs;
            sum_live += st.max_live;
        }
        fmag_context_destroy(ctx);
        free(text);
    }
    printf("| **total (%u programs)** | | | %u | %u | %u | %u | %u over | | |\n", nprog, sum_ir,
           sum_instrs, sum_regs, sum_live, bound_bad);
    free(times);
    if (bound_bad) rc = 1;
    return rc;
}
