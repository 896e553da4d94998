/* Throughput of the CPU engines on generated programs: the reference
 * interpreter (one element at a time) against the batch engine (SIMD blocks,
 * one thread and all threads) and per-lane mixes. Every batch result is checked
 * bit for bit against the reference before its time is reported. */
#define _POSIX_C_SOURCE 200809L
#include "fmag/VM.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../BenchTime.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static double now(void)
{
    return bench_seconds(CLOCK_MONOTONIC);
}

static uint32_t word_of(float f)
{
    uint32_t w;
    memcpy(&w, &f, 4);
    return w;
}

/* A program shaped like compiled shader code: mostly register operands, some
 * literals, about a third of the guards computed (selects), the rest literal 1. */
static fmag_vm_program make_program(const char *name, uint16_t regs, uint16_t nin, uint16_t nout,
                                    uint32_t n)
{
    fmag_vm_instr *code = aligned_alloc(16, (size_t)n * sizeof(fmag_vm_instr));
    for (uint32_t i = 0; i < n; i++) {
        uint16_t d = (uint16_t)(rnd() % regs), a = (uint16_t)(rnd() % regs);
        uint32_t b = rnd() % 3 ? fmag_vm_ref_word((uint16_t)(rnd() % regs))
                               : word_of((float)((int)(rnd() % 9) - 4) * 0.25f);
        uint32_t c = rnd() % 2 ? fmag_vm_ref_word((uint16_t)(rnd() % regs))
                               : word_of((float)(rnd() % 7) * 0.125f);
        uint32_t g = rnd() % 3 == 0 ? fmag_vm_ref_word((uint16_t)(rnd() % regs)) : word_of(1.0f);
        code[i] = (fmag_vm_instr){b, c, g, (uint32_t)d | ((uint32_t)a << 16)};
    }
    return (fmag_vm_program){(char *)name, 0, regs, nin, nout, n, code, 0};
}

typedef struct result {
    double seconds;
    bool same;
} result;

static double best_of(int reps, double (*fn)(void *), void *arg)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t = fn(arg);
        if (t < best) best = t;
    }
    return best;
}

typedef struct job {
    const fmag_vm_program **progs;
    size_t nprogs;
    const uint32_t *idx;
    const float *in;
    size_t in_stride;
    float *out;
    size_t out_stride;
    size_t n;
    unsigned threads; /* 0 = all; UINT32_MAX = the reference interpreter */
} job;

static double run_job(void *arg)
{
    job *j = arg;
    char err[256];
    double t0 = now();
    bool ok =
        j->threads == UINT32_MAX
            ? fmag_vm_run_ref_per_lane(j->progs, j->nprogs, j->idx, j->in, j->in_stride, j->out,
                                       j->out_stride, j->n, err, sizeof err)
            : fmag_vm_run_per_lane_threads(j->progs, j->nprogs, j->idx, j->in, j->in_stride, j->out,
                                           j->out_stride, j->n, j->threads, err, sizeof err);
    double t = now() - t0;
    if (!ok) {
        fprintf(stderr, "fmag-vm-bench: %s\n", err);
        exit(1);
    }
    return t;
}

static void bench_case(const char *label, const fmag_vm_program **progs, size_t nprogs,
                       const uint32_t *idx, size_t n, double avg_instr, int reps)
{
    size_t in_stride = 0, out_stride = 0;
    for (size_t i = 0; i < nprogs; i++) {
        if (progs[i]->nin > in_stride) in_stride = progs[i]->nin;
        if (progs[i]->nout > out_stride) out_stride = progs[i]->nout;
    }
    float *in = malloc(n * in_stride * sizeof(float));
    float *ref = calloc(n * out_stride, sizeof(float)); /* slots past a nout stay 0 */
    float *out = malloc(n * out_stride * sizeof(float));
    for (size_t k = 0; k < n * in_stride; k++)
        in[k] = (float)((int)(rnd() % 2001) - 1000) / 250.0f;
    job j = {progs, nprogs, idx, in, in_stride, ref, out_stride, n, UINT32_MAX};
    double t_ref = best_of(reps, run_job, &j);
    unsigned hw = fmag_vm_hardware_threads();
    printf("%-28s %9zu %8.1f  ref %8.3g el/s %8.3g in/s", label, n, avg_instr, n / t_ref,
           n * avg_instr / t_ref);
    unsigned counts[2] = {1, hw};
    for (int c = 0; c < (hw > 1 ? 2 : 1); c++) {
        j.out = out;
        j.threads = counts[c];
        memset(out, 0, n * out_stride * sizeof(float));
        double t = best_of(reps, run_job, &j);
        bool same = memcmp(out, ref, n * out_stride * sizeof(float)) == 0;
        printf(" | batch x%u %8.3g el/s %8.3g in/s (%.1fx)%s", counts[c], n / t, n * avg_instr / t,
               t_ref / t, same ? "" : " MISMATCH");
        if (!same) {
            printf("\n");
            exit(1);
        }
    }
    printf("\n");
    free(in);
    free(ref);
    free(out);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 200000;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    if (n == 0 || reps <= 0) {
        fprintf(stderr, "usage: fmag-vm-bench [elements] [repetitions]\n");
        return 1;
    }
    printf("fmag-vm-bench: %zu elements, best of %d, batch ISA %s, %u hardware threads\n", n, reps,
           fmag_vm_batch_isa(), fmag_vm_hardware_threads());
    printf("%-28s %9s %8s\n", "case", "elements", "instrs");
    struct {
        uint16_t regs, nin, nout;
        uint32_t n;
    } shapes[] = {{8, 3, 1, 16}, {16, 4, 4, 64}, {32, 6, 3, 256}, {64, 8, 4, 1024}};
    fmag_vm_program ps[4];
    const fmag_vm_program *pp[4];
    for (int s = 0; s < 4; s++) {
        char *name = malloc(48);
        snprintf(name, 48, "r%u_i%u", (unsigned)shapes[s].regs, (unsigned)shapes[s].n);
        ps[s] = make_program(name, shapes[s].regs, shapes[s].nin, shapes[s].nout, shapes[s].n);
        pp[s] = &ps[s];
        char label[64];
        snprintf(label, sizeof label, "one program, %u instrs", (unsigned)shapes[s].n);
        bench_case(label, &pp[s], 1, NULL, n, shapes[s].n, reps);
    }
    /* Per-lane: element k runs one of the four programs at random. */
    uint32_t *idx = malloc(n * sizeof(uint32_t));
    double total = 0;
    for (size_t k = 0; k < n; k++) {
        idx[k] = rnd() % 3; /* the three smaller programs */
        total += ps[idx[k]].ninstr;
    }
    bench_case("per-lane mix of 3 programs", pp, 3, idx, n, total / (double)n, reps);
    free(idx);
    for (int s = 0; s < 4; s++) {
        free(ps[s].code);
        free(ps[s].name);
    }
    return 0;
}
