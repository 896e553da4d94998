/* No global mutable state: four threads parse, optimize (-O2) and lower the same
 * module many times, each with its own context, and every result must equal the
 * stream a single-threaded compile produced. A race in any layer shows up as a
 * different stream (or as a sanitizer report in the ASan build). */
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source = "func @dot3(%ax, %ay, %az, %bx, %by, %bz) -> 1 {\n"
                            "^entry:\n"
                            "  %xx = mul %ax, %bx\n"
                            "  %xy = fma %ay, %by, %xx\n"
                            "  %d = fma %az, %bz, %xy\n"
                            "  ret %d\n"
                            "}\n"
                            "export func @shade(%nx, %ny, %nz, %lx, %ly, %lz, %k) -> 2 {\n"
                            "^entry:\n"
                            "  %ndl = call @dot3(%nx, %ny, %nz, %lx, %ly, %lz)\n"
                            "  br %ndl, ^lit, ^dark\n"
                            "^lit:\n"
                            "  %s = mul %ndl, %k\n"
                            "  %c = min %s, 1.0\n"
                            "  jmp ^done\n"
                            "^dark:\n"
                            "  jmp ^done\n"
                            "^done:\n"
                            "  %r = phi [%c, ^lit], [0.0, ^dark]\n"
                            "  %a = abs %ndl\n"
                            "  ret %r, %a\n"
                            "}\n";

typedef struct compiled {
    fmag_vm_instr code[256];
    unsigned n, regs;
    int ok;
} compiled;

static void compile(compiled *out)
{
    memset(out, 0, sizeof *out);
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = fmag_parse_module(ctx, "threads.fir", source, strlen(source));
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    if (m && fmag_verify_module(m) && fmag_run_passes(m, "O2", NULL) &&
        fmag_codegen_module(m, &img) && img.nprograms == 1 && img.programs[0].ninstr <= 256) {
        out->n = img.programs[0].ninstr;
        out->regs = img.programs[0].regs;
        memcpy(out->code, img.programs[0].code, out->n * sizeof(fmag_vm_instr));
        out->ok = 1;
    }
    fmag_vm_image_free(&img);
    fmag_context_destroy(ctx);
}

enum { NTHREADS = 4, ROUNDS = 200 };
static compiled expected;

static void *worker(void *arg)
{
    int *bad = arg;
    for (int r = 0; r < ROUNDS; r++) {
        compiled c;
        compile(&c);
        if (!c.ok || c.n != expected.n || c.regs != expected.regs ||
            memcmp(c.code, expected.code, c.n * sizeof(fmag_vm_instr)))
            (*bad)++;
    }
    return NULL;
}

int main(void)
{
    compile(&expected);
    if (!expected.ok || expected.n == 0) {
        fprintf(stderr, "FAIL: single-threaded compile failed\n");
        return 1;
    }
    pthread_t t[NTHREADS];
    int bad[NTHREADS] = {0};
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, worker, &bad[i]);
    int total = 0;
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(t[i], NULL);
        total += bad[i];
    }
    printf("%d threads x %d compiles: %d mismatches (stream of %u instructions, %u regs)\n",
           NTHREADS, ROUNDS, total, expected.n, expected.regs);
    return total ? 1 : 0;
}
