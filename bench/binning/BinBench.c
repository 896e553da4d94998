/* fmag-bin-bench [--n=N] [--threads=T] [--reps=R] A.fmag B.fmag ...: the first program of each
 * file, element e running file e mod count (neighbours differ, a material per pixel), on the
 * batch engine per lane, then binned: counting sort by program, one uniform run per program
 * over its gathered inputs, outputs scattered back. Prints the median of R runs of each and
 * checks that the two agree bit for bit. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fmag/VM.h"
#include "../BenchTime.h"

static double now_ms(void)
{
    return bench_seconds(CLOCK_MONOTONIC) * 1e3;
}

typedef struct image_set {
    const fmag_vm_program **progs;
    size_t nprogs, n, iw, ow;
    uint32_t *idx;
    float *in;
} image_set;

/* Binned: count, prefix, scatter the inputs, a uniform run per program, scatter back. */
static bool run_binned(fmag_vm_engine *e, const image_set *s, float *out, float *gin, float *gout,
                       uint32_t *perm, size_t *start, char *err, size_t errlen)
{
    memset(start, 0, (s->nprogs + 1) * sizeof *start);
    for (size_t k = 0; k < s->n; ++k)
        ++start[s->idx[k] + 1];
    for (size_t p = 0; p < s->nprogs; ++p)
        start[p + 1] += start[p];
    for (size_t k = 0; k < s->n; ++k) {
        size_t q = start[s->idx[k]]++;
        perm[q] = (uint32_t)k;
        memcpy(gin + q * s->iw, s->in + k * s->iw, s->iw * sizeof *gin);
    }
    for (size_t p = s->nprogs; p > 0; --p) /* back to the group starts */
        start[p] = start[p - 1];
    start[0] = 0;
    for (size_t p = 0; p < s->nprogs; ++p) {
        size_t m = start[p + 1] - start[p];
        if (m && !fmag_vm_engine_run(e, &s->progs[p], 1, NULL, gin + start[p] * s->iw, s->iw,
                                     gout + start[p] * s->ow, s->ow, m, err, errlen))
            return false;
    }
    for (size_t q = 0; q < s->n; ++q)
        memcpy(out + (size_t)perm[q] * s->ow, gout + q * s->ow,
               s->progs[s->idx[perm[q]]]->nout * sizeof *out);
    return true;
}

int main(int argc, char **argv)
{
    size_t n = 1u << 20;
    unsigned threads = 0, reps = 7;
    image_set s = {0};
    fmag_vm_image *imgs = calloc((size_t)argc, sizeof *imgs);
    s.progs = calloc((size_t)argc, sizeof *s.progs);
    char err[512];
    for (int i = 1; i < argc; ++i) {
        if (!strncmp(argv[i], "--n=", 4)) {
            n = strtoull(argv[i] + 4, NULL, 10);
        } else if (!strncmp(argv[i], "--threads=", 10)) {
            threads = (unsigned)atoi(argv[i] + 10);
        } else if (!strncmp(argv[i], "--reps=", 7)) {
            reps = (unsigned)atoi(argv[i] + 7);
        } else {
            fmag_vm_image_init(&imgs[s.nprogs]);
            if (!fmag_vm_image_load(&imgs[s.nprogs], argv[i], err, sizeof err) ||
                !imgs[s.nprogs].nprograms) {
                fprintf(stderr, "fmag-bin-bench: %s: %s\n", argv[i], err);
                return 1;
            }
            s.progs[s.nprogs] = &imgs[s.nprogs].programs[0];
            ++s.nprogs;
        }
    }
    if (!s.nprogs || !n || !reps || reps > 99) {
        fprintf(stderr, "usage: fmag-bin-bench [--n=N] [--threads=T] [--reps=R] A.fmag ...\n");
        return 1;
    }
    for (size_t p = 0; p < s.nprogs; ++p) {
        if (s.progs[p]->nin > s.iw) s.iw = s.progs[p]->nin;
        if (s.progs[p]->nout > s.ow) s.ow = s.progs[p]->nout;
    }
    if (!s.iw) s.iw = 1;
    if (!s.ow) s.ow = 1;
    s.n = n;
    s.idx = malloc(n * sizeof *s.idx);
    s.in = malloc(n * s.iw * sizeof *s.in);
    float *o1 = calloc(n * s.ow, sizeof *o1), *o2 = calloc(n * s.ow, sizeof *o2);
    float *gin = malloc(n * s.iw * sizeof *gin), *gout = malloc(n * s.ow * sizeof *gout);
    uint32_t *perm = malloc(n * sizeof *perm);
    size_t *start = malloc((s.nprogs + 1) * sizeof *start);
    if (!s.idx || !s.in || !o1 || !o2 || !gin || !gout || !perm || !start) {
        fprintf(stderr, "fmag-bin-bench: out of memory\n");
        return 1;
    }
    uint64_t st = 0x9E3779B97F4A7C15ull;
    for (size_t k = 0; k < n * s.iw; ++k) {
        st ^= st << 13, st ^= st >> 7, st ^= st << 17;
        s.in[k] = (float)((double)(st >> 11) / (double)(1ull << 53) * 2.0);
    }
    for (size_t k = 0; k < n; ++k)
        s.idx[k] = (uint32_t)(k % s.nprogs);
    fmag_vm_engine_options eo = {threads, FMAG_VM_ISA_AUTO, 0};
    fmag_vm_engine *e = fmag_vm_engine_create(&eo, err, sizeof err);
    if (!e) {
        fprintf(stderr, "fmag-bin-bench: %s\n", err);
        return 1;
    }
    double t[2][100];
    for (unsigned r = 0; r <= reps; ++r) { /* run 0 warms up */
        double t0 = now_ms();
        if (!fmag_vm_engine_run(e, s.progs, s.nprogs, s.idx, s.in, s.iw, o1, s.ow, n, err,
                                sizeof err)) {
            fprintf(stderr, "fmag-bin-bench: %s\n", err);
            return 1;
        }
        double t1 = now_ms();
        if (!run_binned(e, &s, o2, gin, gout, perm, start, err, sizeof err)) {
            fprintf(stderr, "fmag-bin-bench: %s\n", err);
            return 1;
        }
        if (r) t[0][r - 1] = t1 - t0, t[1][r - 1] = now_ms() - t1;
    }
    double per_lane = bench_median(t[0], reps), binned = bench_median(t[1], reps);
    size_t differ = 0;
    for (size_t k = 0; k < n * s.ow; ++k)
        differ += memcmp(&o1[k], &o2[k], sizeof *o1) != 0;
    printf("%zu programs, %zu elements, %u threads (%s): per lane %.2f ms, binned %.2f ms "
           "(x%.2f), %zu values differ\n",
           s.nprogs, n, fmag_vm_engine_threads(e), fmag_vm_engine_isa(e), per_lane, binned,
           per_lane / binned, differ);
    fmag_vm_engine_destroy(e);
    return differ ? 1 : 0;
}
