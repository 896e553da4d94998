/* CPU throughput on real programs (.fmag files, first program of each): the reference
 * VM, the batch engine on one thread and on all threads, and the program emitted as C
 * (lib/VM/EmitSource.c) compiled with -O3 -march=native -ffp-contract=off, each checked
 * bit for bit against the reference; then thread scaling and per-lane mixes. Prints
 * markdown tables for docs/PERFORMANCE.md. */
#define _POSIX_C_SOURCE 200809L
#include "fmag/VM.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
/* Wall time; and the process's CPU time, which single-thread figures use so that other
 * work on a shared machine (the development machine's two cores carry many jobs) does not
 * count against them. */
static double now(void)
{
    return clock_of(CLOCK_MONOTONIC);
}
static double cpu_now(void)
{
    return clock_of(CLOCK_PROCESS_CPUTIME_ID);
}

typedef struct bench_prog {
    const char *file;
    fmag_vm_image img;
    const fmag_vm_program *p;
    void (*soa)(size_t, const float *const *, float *const *);
} bench_prog;

static size_t opt_n = 1000000, opt_ref_n = 0;
static int opt_reps = 3;
static unsigned opt_threads = 0, opt_lanes = 0;
static const char *opt_cc = "cc", *opt_tmp = "/tmp";
/* 512-bit vectors where the CPU has them: GCC's -march=native alone picks 256 on some
 * AVX-512 parts (Zen 4), which made the emitted C 1.6x slower there. */
static const char *opt_cflags = "-O3 -march=native -mprefer-vector-width=512 -ffp-contract=off";
static int failures;

static void fill_inputs(float *in, size_t count)
{
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (size_t k = 0; k < count; k++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        in[k] = (float)(int32_t)(uint32_t)(s >> 32) * (4.0f / 2147483648.0f);
    }
}

/* Best-of-reps seconds of one engine run of n elements (AoS rows). */
static double time_engine(fmag_vm_engine *e, const fmag_vm_program *const *ps, size_t np,
                          const uint32_t *idx, const float *in, size_t is, float *out, size_t os,
                          size_t n)
{
    char err[256];
    double best = 1e30;
    double (*clk)(void) = fmag_vm_engine_threads(e) == 1 ? cpu_now : now;
    for (int r = 0; r < opt_reps; r++) {
        double t0 = clk();
        if (!fmag_vm_engine_run(e, ps, np, idx, in, is, out, os, n, err, sizeof err)) {
            fprintf(stderr, "fmag-cpu-bench: %s\n", err);
            exit(1);
        }
        double dt = clk() - t0;
        if (dt < best) best = dt;
    }
    return best;
}

/* Emits every program as C into one file, compiles it once and loads each _soa loop. */
static void load_native(bench_prog *bp, size_t nb)
{
    char path[512], so[512], cmd[2048], err[256];
    snprintf(path, sizeof path, "%s/fmag-cpu-bench-%d.c", opt_tmp, (int)getpid());
    snprintf(so, sizeof so, "%s/fmag-cpu-bench-%d.so", opt_tmp, (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) return;
    for (size_t i = 0; i < nb; i++) {
        fmag_vm_program q = *bp[i].p;
        q.name = (char *)"p";
        const fmag_vm_program *qp = &q;
        char prefix[32], *text;
        snprintf(prefix, sizeof prefix, "b%zu_", i);
        if (!fmag_vm_emit_source(&qp, 1, FMAG_VM_EMIT_C, prefix, &text, NULL, err, sizeof err)) {
            fprintf(stderr, "fmag-cpu-bench: emit: %s\n", err);
            exit(1);
        }
        fputs(text, f);
        free(text);
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s %s -w -shared -fPIC -o %s %s", opt_cc, opt_cflags, so, path);
    if (system(cmd) != 0) {
        fprintf(stderr, "fmag-cpu-bench: '%s' failed: no native column\n", cmd);
        return;
    }
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    for (size_t i = 0; i < nb; i++) {
        char sym[64];
        snprintf(sym, sizeof sym, "b%zu_p_soa", i);
        *(void **)&bp[i].soa = dlsym(h, sym);
    }
    remove(path);
    remove(so);
}

static bool same(const float *a, const float *b, size_t n)
{
    return !memcmp(a, b, n * 4);
}

static void bench_one(bench_prog *b, fmag_vm_engine *e1, fmag_vm_engine *en)
{
    const fmag_vm_program *p = b->p;
    size_t n = opt_n, nin = p->nin ? p->nin : 1, nout = p->nout ? p->nout : 1;
    float *in = malloc(n * nin * 4), *o1 = calloc(n * nout, 4), *on = calloc(n * nout, 4);
    float *want = calloc(n * nout, 4), *regs = malloc(((size_t)p->regs + 1) * 4);
    fill_inputs(in, n * nin);
    /* The reference: fewer elements (it is slow), about 2e7 element-instructions. */
    size_t rn = opt_ref_n ? opt_ref_n : 20000000u / (p->ninstr + 1);
    if (rn > n) rn = n;
    if (rn < 1000) rn = n < 1000 ? n : 1000;
    double t0 = cpu_now();
    for (size_t k = 0; k < rn; k++)
        fmag_vm_run(p, in + k * p->nin, want + k * p->nout, regs);
    double tref = cpu_now() - t0;
    double t1 = time_engine(e1, &p, 1, NULL, in, p->nin, o1, p->nout, n);
    double tn = time_engine(en, &p, 1, NULL, in, p->nin, on, p->nout, n);
    bool ok = same(want, o1, rn * p->nout) && same(o1, on, n * p->nout);
    double tc = 0;
    bool cok = false;
    if (b->soa) {
        const float **ci = malloc(nin * sizeof *ci);
        float **co = malloc(nout * sizeof *co);
        float *cin = malloc(n * nin * 4), *cout = calloc(n * nout, 4);
        for (size_t j = 0; j < p->nin; j++) {
            for (size_t k = 0; k < n; k++)
                cin[j * n + k] = in[k * p->nin + j];
            ci[j] = cin + j * n;
        }
        for (size_t j = 0; j < p->nout; j++)
            co[j] = cout + j * n;
        tc = 1e30;
        for (int r = 0; r < opt_reps; r++) {
            double s = cpu_now();
            b->soa(n, ci, co);
            double dt = cpu_now() - s;
            if (dt < tc) tc = dt;
        }
        cok = true;
        for (size_t k = 0; k < n && cok; k++)
            for (size_t j = 0; j < p->nout; j++)
                if (memcmp(&cout[j * n + k], &o1[k * p->nout + j], 4)) cok = false;
        free(ci);
        free(co);
        free(cin);
        free(cout);
    }
    double ni = (double)p->ninstr;
    double rref = (double)rn / tref, r1 = (double)n / t1, rn_ = (double)n / tn;
    printf("| %s | %u | %u | %.3g | %.3g | %.3g |", p->name, (unsigned)p->ninstr, (unsigned)p->regs,
           rref, r1, rn_);
    if (b->soa)
        printf(" %.3g | %.2f |", (double)n / tc, tc > 0 ? t1 / tc : 0);
    else
        printf(" - | - |");
    printf(" %.1f | %.3g | %.3g | %s |\n", r1 / rref, r1 * ni, rn_ * ni,
           ok && (cok || !b->soa) ? "yes" : "NO");
    if (!ok || (b->soa && !cok)) failures++;
    free(in);
    free(o1);
    free(on);
    free(want);
    free(regs);
}

static void scaling(bench_prog *bp, size_t nb, unsigned maxt)
{
    printf("\nThread scaling (%zu elements; elements/s, and efficiency = rate(t) / (t * "
           "rate(1))):\n\n| program | instr |",
           opt_n);
    for (unsigned t = 1; t <= maxt; t++)
        printf(" %u |", t);
    printf("\n|---|---:|");
    for (unsigned t = 1; t <= maxt; t++)
        printf("---:|");
    printf("\n");
    for (size_t i = 0; i < nb; i++) {
        const fmag_vm_program *p = bp[i].p;
        if (p->ninstr < 100) continue;
        size_t n = opt_n, nin = p->nin ? p->nin : 1, nout = p->nout ? p->nout : 1;
        float *in = malloc(n * nin * 4), *out = calloc(n * nout, 4);
        fill_inputs(in, n * nin);
        printf("| %s | %u |", p->name, (unsigned)p->ninstr);
        double r1 = 0;
        for (unsigned t = 1; t <= maxt; t++) {
            char err[256];
            fmag_vm_engine_options o = {t, FMAG_VM_ISA_AUTO, opt_lanes};
            fmag_vm_engine *e = fmag_vm_engine_create(&o, err, sizeof err);
            double r = (double)n / time_engine(e, &p, 1, NULL, in, p->nin, out, p->nout, n);
            if (t == 1) r1 = r;
            printf(" %.3g (%.2f) |", r, r / (t * r1));
            fmag_vm_engine_destroy(e);
        }
        printf("\n");
        free(in);
        free(out);
    }
}

/* Several programs, elements interleaved (element k runs program k % m), against the
 * same elements run uniformly, one call per program. */
static void mixes(bench_prog *bp, size_t nb, fmag_vm_engine *e)
{
    printf("\nPer-lane mixes (%zu elements, one thread; element k runs program k %% m):\n\n"
           "| programs | mixed elements/s | uniform elements/s | mixed / uniform time | "
           "same bits |\n|---|---:|---:|---:|---|\n",
           opt_n);
    /* Node-graph-sized programs (50 to 1000 instructions), spread over the list. */
    size_t cand[4096], nc = 0;
    for (size_t i = 0; i < nb && nc < 4096; i++)
        if (bp[i].p->ninstr >= 50 && bp[i].p->ninstr <= 1000) cand[nc++] = i;
    for (size_t m = 2; m <= 8 && m <= nc; m *= 2) {
        const fmag_vm_program *ps[8];
        size_t is = 1, os = 1;
        for (size_t i = 0; i < m; i++) {
            ps[i] = bp[cand[(i * nc) / m]].p;
            if (ps[i]->nin > is) is = ps[i]->nin;
            if (ps[i]->nout > os) os = ps[i]->nout;
        }
        size_t n = opt_n;
        float *in = malloc(n * is * 4), *out = calloc(n * os, 4), *uout = calloc(n * os, 4);
        uint32_t *idx = malloc(n * 4);
        fill_inputs(in, n * is);
        for (size_t k = 0; k < n; k++)
            idx[k] = (uint32_t)(k % m);
        double tm = time_engine(e, ps, m, idx, in, is, out, os, n);
        /* Uniform: program i's elements, gathered into a contiguous block first. */
        double tu = 0;
        float *uin = malloc(n * is * 4), *ublk = calloc(n * os, 4);
        bool ok = true;
        for (size_t i = 0; i < m; i++) {
            size_t c = 0;
            for (size_t k = i; k < n; k += m, c++)
                memcpy(uin + c * is, in + k * is, is * 4);
            tu += time_engine(e, &ps[i], 1, NULL, uin, is, ublk, os, c);
            c = 0;
            for (size_t k = i; k < n; k += m, c++)
                ok = ok && same(ublk + c * os, out + k * os, ps[i]->nout);
        }
        printf("| ");
        for (size_t i = 0; i < m; i++)
            printf("%s%s (%u)", i ? ", " : "", ps[i]->name, (unsigned)ps[i]->ninstr);
        printf(" | %.3g | %.3g | %.2f | %s |\n", n / tm, n / tu, tm / tu, ok ? "yes" : "NO");
        if (!ok) failures++;
        free(in);
        free(out);
        free(uout);
        free(idx);
        free(uin);
        free(ublk);
    }
}

int main(int argc, char **argv)
{
    bench_prog *bp = calloc((size_t)argc, sizeof *bp);
    size_t nb = 0;
    bool native = true, scale = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "--elements=", 11))
            opt_n = strtoull(a + 11, NULL, 10);
        else if (!strncmp(a, "--reps=", 7))
            opt_reps = atoi(a + 7);
        else if (!strncmp(a, "--threads=", 10))
            opt_threads = (unsigned)atoi(a + 10);
        else if (!strncmp(a, "--lanes=", 8))
            opt_lanes = (unsigned)atoi(a + 8);
        else if (!strncmp(a, "--cc=", 5))
            opt_cc = a + 5;
        else if (!strncmp(a, "--cflags=", 9))
            opt_cflags = a + 9;
        else if (!strncmp(a, "--tmp=", 6))
            opt_tmp = a + 6;
        else if (!strcmp(a, "--no-native"))
            native = false;
        else if (!strcmp(a, "--no-scaling"))
            scale = false;
        else if (a[0] == '-') {
            fprintf(stderr,
                    "usage: fmag-cpu-bench [--elements=N] [--reps=R] [--threads=T] [--cc=CC] "
                    "[--cflags=FLAGS] [--tmp=DIR] [--no-native] [--no-scaling] FILE.fmag...\n");
            return a[1] == 'h' || !strcmp(a, "--help") ? 0 : 1;
        } else {
            char err[512];
            fmag_vm_image_init(&bp[nb].img);
            if (!fmag_vm_image_load(&bp[nb].img, a, err, sizeof err)) {
                fprintf(stderr, "fmag-cpu-bench: %s\n", err);
                return 1;
            }
            bp[nb].file = a;
            bp[nb].p = &bp[nb].img.programs[0];
            nb++;
        }
    }
    if (!nb) return fprintf(stderr, "fmag-cpu-bench: no .fmag files\n"), 1;
    if (native) load_native(bp, nb);
    char err[256];
    unsigned maxt = opt_threads ? opt_threads : fmag_vm_hardware_threads();
    fmag_vm_engine_options o1 = {1, FMAG_VM_ISA_AUTO, opt_lanes},
                           on = {maxt, FMAG_VM_ISA_AUTO, opt_lanes};
    fmag_vm_engine *e1 = fmag_vm_engine_create(&o1, err, sizeof err);
    fmag_vm_engine *en = fmag_vm_engine_create(&on, err, sizeof err);
    if (!e1 || !en) return fprintf(stderr, "fmag-cpu-bench: %s\n", err), 1;
    printf("batch kernel %s, %u threads, %zu elements, best of %d\n\n", fmag_vm_engine_isa(e1),
           fmag_vm_engine_threads(en), opt_n, opt_reps);
    printf("| program | instr | regs | ref el/s | batch 1T el/s | batch %uT el/s | C -O3 el/s | "
           "batch1T / C time | batch1T / ref | batch 1T instr/s | batch %uT instr/s | same bits "
           "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
           maxt, maxt);
    for (size_t i = 0; i < nb; i++) {
        bench_one(&bp[i], e1, en);
        fflush(stdout);
    }
    mixes(bp, nb, e1);
    if (scale && maxt > 1) scaling(bp, nb, maxt);
    fmag_vm_engine_destroy(e1);
    fmag_vm_engine_destroy(en);
    for (size_t i = 0; i < nb; i++)
        fmag_vm_image_free(&bp[i].img);
    free(bp);
    if (failures)
        fprintf(stderr, "fmag-cpu-bench: %d results differ from the reference\n", failures);
    return failures != 0;
}
