/* CPU throughput on real programs (.fmag files, first program of each): the reference
 * VM, the batch engine on one thread (array-of-structs rows and columns) and on all
 * threads, and the program emitted as C (lib/VM/EmitSource.c) compiled with -O3
 * -march=native -ffp-contract=off, each checked bit for bit against the reference; the
 * batch engine's cost model (TSC cycles, machine instructions counted in its AVX-512
 * kernel's disassembly, bytes per element-instruction); then per-lane mixes and thread
 * scaling. Prints markdown tables for docs/PERFORMANCE.md. */
#define _POSIX_C_SOURCE 200809L
#include "fmag/VM.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../BenchTime.h"

/* Wall time; and the process's CPU time, which single-thread figures use so that other
 * work on a shared machine (the development machine's two cores carry many jobs) does not
 * count against them. */
static double now(void)
{
    return bench_seconds(CLOCK_MONOTONIC);
}
static double cpu_now(void)
{
    return bench_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

/* Cycles: the time-stamp counter, which ticks at a constant rate (not the core clock,
 * which turbo and AVX-512 licences move); its rate is calibrated against the monotonic
 * clock. Hardware counters (perf) are not available on the machines measured. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <x86intrin.h>
static uint64_t tsc(void)
{
    return __rdtsc();
}
#else
static uint64_t tsc(void)
{
    return 0;
}
#endif
static double tsc_hz;
static void calibrate_tsc(void)
{
    double t0 = now();
    uint64_t c0 = tsc();
    while (now() - t0 < 0.2) {
    }
    tsc_hz = (double)(tsc() - c0) / (now() - t0);
}

/* Machine instructions of the AVX-512 kernel, counted in its disassembly (objdump of this
 * binary): per record outside the lane loop, and per 16-lane vector for each operand
 * shape (guarded or not, 0 to 2 of b and c in registers). */
typedef struct kernel_model {
    bool ok;
    double per_record;
    double per_vector[2][3];
} kernel_model;
static kernel_model model;

typedef struct dis_insn {
    unsigned long addr, target;
    char text[160];
} dis_insn;

static void count_kernel(void)
{
    char exe[1024], cmd[1200];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) return;
    exe[len] = 0;
    snprintf(cmd, sizeof cmd,
             "objdump -d --no-show-raw-insn --disassemble=kernel_avx512 '%s' 2>/dev/null", exe);
    FILE *f = popen(cmd, "r");
    if (!f) return;
    static dis_insn ins[4096];
    size_t n = 0;
    char line[512];
    bool in = false;
    while (fgets(line, sizeof line, f) && n < 4096) {
        if (strstr(line, "<kernel_avx512>:")) in = true;
        unsigned long a;
        char rest[400];
        if (!in || sscanf(line, " %lx:\t%399[^\n]", &a, rest) != 2) continue;
        dis_insn *d = &ins[n++];
        d->addr = a;
        snprintf(d->text, sizeof d->text, "%.159s", rest);
        d->target = 0;
        if (rest[0] == 'j' && strncmp(rest, "jmp", 3))
            sscanf(strchr(rest, ' ') ? strchr(rest, ' ') : rest, " %lx", &d->target);
    }
    pclose(f);
    /* The record loop's head is the target most back edges jump to (one per operand
     * shape); every other back edge closes a lane loop. */
    unsigned long head = 0;
    int best = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ins[i].target || ins[i].target >= ins[i].addr) continue;
        int c = 0;
        for (size_t j = 0; j < n; j++)
            c += ins[j].target == ins[i].target && ins[j].target < ins[j].addr;
        if (c > best) best = c, head = ins[i].target;
    }
    if (best < 2) return;
    size_t h = 0, jmp = 0;
    while (h < n && ins[h].addr != head)
        h++;
    for (jmp = h; jmp < n && !strstr(ins[jmp].text, "jmp    *"); jmp++) {
    }
    if (jmp >= n) return;
    /* Dispatch, plus each shape's entry test (3) and exit (3: next record, compare, branch). */
    model.per_record = (double)(jmp - h + 1) + 6;
    double sum[2][3] = {{0}};
    int cnt[2][3] = {{0}};
    for (size_t i = 0; i < n; i++) {
        if (!ins[i].target || ins[i].target >= ins[i].addr || ins[i].target == head) continue;
        size_t b = i;
        while (b > 0 && ins[b].addr != ins[i].target)
            b--;
        int loads = 0, guarded = 0;
        bool inner = true; /* a lane loop has no other branch (the shared exits jump back too) */
        for (size_t k = b; k < i; k++)
            inner = inner && ins[k].text[0] != 'j' && strncmp(ins[k].text, "ret", 3);
        if (!inner) continue;
        for (size_t k = b; k <= i; k++) {
            const char *t = ins[k].text, *mem = strchr(t, '('), *last = NULL;
            int depth = 0;
            for (const char *c = t; *c; c++) { /* the last operand starts after this comma */
                depth += (*c == '(') - (*c == ')');
                if (*c == ',' && !depth) last = c;
            }
            if (strstr(t, "vcmpgt")) guarded = 1;
            if (mem && last && mem < last) loads++; /* AT&T: a memory source, not the store */
        }
        int regs = loads - 1 - guarded; /* a, and the guard when it is a register */
        if (regs < 0 || regs > 2) continue;
        sum[guarded][regs] += (double)(i - b + 1);
        cnt[guarded][regs]++;
    }
    for (int g = 0; g < 2; g++)
        for (int r = 0; r < 3; r++) {
            if (!cnt[g][r]) return;
            model.per_vector[g][r] = sum[g][r] / cnt[g][r];
        }
    model.ok = true;
}

/* Per element-instruction of p in the batch engine: machine instructions (the kernel
 * model, lanes per block L) and bytes loaded and stored from the register file. */
static void cost_of(const fmag_vm_program *p, unsigned L, double *insns, double *bytes)
{
    double mi = 0, by = 0;
    for (uint32_t i = 0; i < p->ninstr; i++) {
        fmag_vm_decoded x;
        fmag_vm_decode(p->code[i], &x);
        if (!x.g.is_reg && !(x.g.imm > 0.0f)) continue; /* dropped when decoding */
        int g = x.g.is_reg, r = x.b.is_reg + x.c.is_reg;
        mi += model.per_record + (double)L / 16.0 * model.per_vector[g][r];
        by += 4.0 * (1 + g + r) + 4.0; /* a, the register operands, one store */
    }
    double ei = (double)L * (p->ninstr ? p->ninstr : 1);
    *insns = mi / ei;
    *bytes = by / (p->ninstr ? p->ninstr : 1);
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
static fmag_vm_isa opt_isa = FMAG_VM_ISA_AUTO;
static const char *opt_cc = "cc", *opt_tmp = "/tmp";
/* 512-bit vectors where the CPU has them: GCC's -march=native alone picks 256 on some
 * AVX-512 parts, and the baseline should be the best the compiler does. */
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

/* Best-of-reps seconds of one engine run of n elements: AoS rows, or columns when icol is
 * given (one program). Single-thread runs are timed in process CPU time unless wall is
 * set; *cycles (if given) gets the best run's TSC cycles. */
static double time_engine_cols(fmag_vm_engine *e, const fmag_vm_program *const *ps, size_t np,
                               const uint32_t *idx, const float *in, size_t is, float *out,
                               size_t os, const float *const *icol, float *const *ocol, size_t n,
                               bool wall, double *cycles)
{
    char err[256];
    double best = 1e30, bestc = 1e30;
    double (*clk)(void) = fmag_vm_engine_threads(e) == 1 && !wall ? cpu_now : now;
    for (int r = 0; r < opt_reps; r++) {
        double t0 = clk();
        uint64_t c0 = tsc();
        bool ok = icol ? fmag_vm_engine_run_columns(e, ps[0], icol, ocol, n, err, sizeof err)
                       : fmag_vm_engine_run(e, ps, np, idx, in, is, out, os, n, err, sizeof err);
        double dc = (double)(tsc() - c0), dt = clk() - t0;
        if (!ok) {
            fprintf(stderr, "fmag-cpu-bench: %s\n", err);
            exit(1);
        }
        if (dt < best) best = dt;
        if (dc < bestc) bestc = dc;
    }
    if (cycles) *cycles = bestc;
    return best;
}
static double time_engine(fmag_vm_engine *e, const fmag_vm_program *const *ps, size_t np,
                          const uint32_t *idx, const float *in, size_t is, float *out, size_t os,
                          size_t n)
{
    return time_engine_cols(e, ps, np, idx, in, is, out, os, NULL, NULL, n, false, NULL);
}

/* Emits each program as C into its own file, compiles them in parallel (one compiler
 * per file: the thousand-instruction graphs take a compiler tens of seconds), links them
 * into one shared object and loads each _soa loop. */
static void load_native(bench_prog *bp, size_t nb)
{
    char dir[512], path[600], so[600], err[256];
    snprintf(dir, sizeof dir, "%s/fmag-cpu-bench-%d", opt_tmp, (int)getpid());
    snprintf(so, sizeof so, "%s/all.so", dir);
    size_t cap = 4096 + nb * 64;
    char *cmd = malloc(cap + 2 * strlen(opt_cflags) + 4 * sizeof dir);
    if (!cmd) return;
    snprintf(cmd, cap, "mkdir -p '%s'", dir);
    if (system(cmd) != 0) {
        free(cmd);
        return;
    }
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
        snprintf(path, sizeof path, "%s/b%zu.c", dir, i);
        FILE *f = fopen(path, "w");
        if (!f) exit(1);
        fputs(text, f);
        fclose(f);
        free(text);
    }
    /* One shell: every compile in the background, then the link. */
    size_t len = (size_t)snprintf(cmd, cap,
                                  "cd '%s' && for f in b*.c; do %s %s -w -fPIC -c \"$f\" "
                                  "-o \"${f%%.c}.o\" & done; wait; %s -shared -o all.so b*.o",
                                  dir, opt_cc, opt_cflags, opt_cc);
    bool ok = len < cap && system(cmd) == 0;
    void *h = ok ? dlopen(so, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!h) fprintf(stderr, "fmag-cpu-bench: '%s' failed: no native column\n", cmd);
    for (size_t i = 0; h && i < nb; i++) {
        char sym[64];
        snprintf(sym, sizeof sym, "b%zu_p_soa", i);
        *(void **)&bp[i].soa = dlsym(h, sym);
    }
    snprintf(cmd, cap, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "fmag-cpu-bench: could not remove %s\n", dir);
    free(cmd);
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
    double cyc1 = 0;
    double t1 =
        time_engine_cols(e1, &p, 1, NULL, in, p->nin, o1, p->nout, NULL, NULL, n, false, &cyc1);
    double tn = time_engine(en, &p, 1, NULL, in, p->nin, on, p->nout, n);
    bool ok = same(want, o1, rn * p->nout) && same(o1, on, n * p->nout);
    double tc = 0;
    bool cok = false;
    /* Columns: what the emitted C's _soa loop takes, and the batch engine's column entry. */
    const float **ci = malloc(nin * sizeof *ci);
    float **co = malloc(nout * sizeof *co);
    float *cin = malloc(n * nin * 4), *cout = calloc(n * nout, 4), *bout = calloc(n * nout, 4);
    float **bo = malloc(nout * sizeof *bo);
    for (size_t j = 0; j < p->nin; j++) {
        for (size_t k = 0; k < n; k++)
            cin[j * n + k] = in[k * p->nin + j];
        ci[j] = cin + j * n;
    }
    for (size_t j = 0; j < p->nout; j++) {
        co[j] = cout + j * n;
        bo[j] = bout + j * n;
    }
    double tcol = time_engine_cols(e1, &p, 1, NULL, NULL, 0, NULL, 0, ci, bo, n, false, NULL);
    for (size_t k = 0; k < n && ok; k++)
        for (size_t j = 0; j < p->nout; j++)
            if (memcmp(&bout[j * n + k], &o1[k * p->nout + j], 4)) ok = false;
    if (b->soa) {
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
    }
    free(ci);
    free(co);
    free(bo);
    free(cin);
    free(cout);
    free(bout);
    double ni = (double)p->ninstr;
    double rref = (double)rn / tref, r1 = (double)n / t1, rn_ = (double)n / tn;
    unsigned L = fmag_vm_engine_block_lanes(e1, p);
    printf("| %s | %u | %u | %u | %.3g | %.3g | %.3g | %.3g |", p->name, (unsigned)p->ninstr,
           (unsigned)p->regs, L, rref, r1, (double)n / tcol, rn_);
    if (b->soa)
        printf(" %.3g | %.2f | %.2f |", (double)n / tc, tc > 0 ? t1 / tc : 0,
               tc > 0 ? tcol / tc : 0);
    else
        printf(" - | - | - |");
    /* Element-instructions per TSC cycle (one thread, AoS run); the kernel's machine
     * instructions per element-instruction; their product: instructions per TSC cycle. */
    /* On a shared machine the process may be off the CPU during a timed run: then the
     * cycles are its CPU time at the TSC rate, and the figure is marked '*'. */
    bool off_cpu = t1 * tsc_hz < 0.9 * cyc1;
    if (off_cpu) cyc1 = t1 * tsc_hz;
    double epc = cyc1 > 0 ? (double)n * ni / cyc1 : 0, mi = 0, by = 0;
    cost_of(p, L, &mi, &by);
    printf(" %.1f | %.1f | %.2f%s |", r1 / rref, (double)n / tcol / rref, epc, off_cpu ? "*" : "");
    if (model.ok && !strcmp(fmag_vm_engine_isa(e1), "avx512"))
        printf(" %.3f | %.2f |", mi, mi * epc);
    else
        printf(" - | - |");
    printf(" %.1f | %s |\n", by, ok && (cok || !b->soa) ? "yes" : "NO");
    if (!ok || (b->soa && !cok)) failures++;
    free(in);
    free(o1);
    free(on);
    free(want);
    free(regs);
}

/* 1, 2, 4, ... and the largest. */
static unsigned next_threads(unsigned t, unsigned maxt)
{
    return t >= maxt ? 0 : (2 * t < maxt ? 2 * t : maxt);
}

static void scaling(bench_prog *bp, size_t nb, unsigned maxt)
{
    printf("\nThread scaling (%zu elements, wall time at every thread count; elements/s, and "
           "efficiency = rate(t) / (t * rate(1))):\n\n| program | instr |",
           opt_n);
    for (unsigned t = 1; t; t = next_threads(t, maxt))
        printf(" %u |", t);
    printf("\n|---|---:|");
    for (unsigned t = 1; t; t = next_threads(t, maxt))
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
        for (unsigned t = 1; t; t = next_threads(t, maxt)) {
            char err[256];
            fmag_vm_engine_options o = {t, opt_isa, opt_lanes};
            fmag_vm_engine *e = fmag_vm_engine_create(&o, err, sizeof err);
            if (!e) {
                fprintf(stderr, "fmag-cpu-bench: %s\n", err);
                exit(1);
            }
            double r = (double)n / time_engine_cols(e, &p, 1, NULL, in, p->nin, out, p->nout, NULL,
                                                    NULL, n, true, NULL);
            if (t == 1) r1 = r;
            printf(" %.3g (%.2f) |", r, r / (t * r1));
            fmag_vm_engine_destroy(e);
        }
        printf("\n");
        free(in);
        free(out);
    }
}

/* Core clock under load: each of t threads runs a chain of dependent instructions of
 * known latency (integer multiply: 3 cycles; AVX-512 FMA: 4 cycles on recent Intel cores)
 * at once, so cycles / seconds is the clock each core keeps with t cores busy: turbo and
 * the AVX-512 licence lower it as cores are added, which bounds thread scaling below
 * linear whatever the engine does. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PROBE_ITERS 5000000L
/* Thread CPU time: a probe thread taken off its core does not count. */
static double thread_now(void)
{
    return bench_seconds(CLOCK_THREAD_CPUTIME_ID);
}
static double probe_add(void)
{
    uint64_t x = 1;
    double t0 = thread_now();
    /* imul (3 cycles): recent cores fold chains of add-immediate at rename. */
    for (long i = 0; i < PROBE_ITERS; i++)
        __asm__ volatile("imul $3, %0, %0\n\timul $3, %0, %0\n\timul $3, %0, %0\n\t"
                         "imul $3, %0, %0\n\timul $3, %0, %0\n\timul $3, %0, %0\n\t"
                         "imul $3, %0, %0\n\timul $3, %0, %0"
                         : "+r"(x));
    return 24.0 * PROBE_ITERS / (thread_now() - t0);
}
__attribute__((target("avx512f"))) static double probe_fma(void)
{
    __m512 acc = _mm512_set1_ps(1.0f), z = _mm512_setzero_ps(); /* no denormal, no NaN */
    double t0 = thread_now();
    for (long i = 0; i < PROBE_ITERS; i++)
        __asm__ volatile("vfmadd231ps %1, %1, %0\n\tvfmadd231ps %1, %1, %0\n\t"
                         "vfmadd231ps %1, %1, %0\n\tvfmadd231ps %1, %1, %0\n\t"
                         "vfmadd231ps %1, %1, %0\n\tvfmadd231ps %1, %1, %0\n\t"
                         "vfmadd231ps %1, %1, %0\n\tvfmadd231ps %1, %1, %0"
                         : "+v"(acc)
                         : "v"(z));
    return 32.0 * PROBE_ITERS / (thread_now() - t0);
}
/* Throughput, not latency: eight independent FMA chains, enough to fill both FMA ports.
 * Vector FMAs per second per thread; a CPU that shares its core with another busy one
 * (a hyperthread sibling) gets about half. */
__attribute__((target("avx512f"))) static double probe_fma_tput(void)
{
    __m512 a0 = _mm512_set1_ps(1.0f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0,
           z = _mm512_setzero_ps();
    double t0 = thread_now();
    for (long i = 0; i < PROBE_ITERS; i++)
        __asm__ volatile("vfmadd231ps %8, %8, %0\n\tvfmadd231ps %8, %8, %1\n\t"
                         "vfmadd231ps %8, %8, %2\n\tvfmadd231ps %8, %8, %3\n\t"
                         "vfmadd231ps %8, %8, %4\n\tvfmadd231ps %8, %8, %5\n\t"
                         "vfmadd231ps %8, %8, %6\n\tvfmadd231ps %8, %8, %7"
                         : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5), "+v"(a6),
                           "+v"(a7)
                         : "v"(z));
    return 8.0 * PROBE_ITERS / (thread_now() - t0);
}
typedef struct probe_arg {
    int kind; /* 0: imul chain, 1: FMA chain, 2: FMA throughput */
    double hz;
} probe_arg;
static void *probe_main(void *arg)
{
    probe_arg *a = arg;
    a->hz = a->kind == 2 ? probe_fma_tput() : a->kind ? probe_fma() : probe_add();
    return NULL;
}
static double probe(unsigned t, int fma)
{
    pthread_t tid[256];
    probe_arg args[256];
    unsigned started = 0;
    for (unsigned i = 0; i < t && i < 256; i++) {
        args[i] = (probe_arg){fma, 0};
        if (pthread_create(&tid[i], NULL, probe_main, &args[i]) != 0) break;
        started++;
    }
    double sum = 0;
    for (unsigned i = 0; i < started; i++) {
        pthread_join(tid[i], NULL);
        sum += args[i].hz;
    }
    return started ? sum / started : 0;
}
static void clocks(unsigned maxt)
{
    bool avx512 = __builtin_cpu_supports("avx512f");
    printf("\nCore clock with t cores busy (GHz per core, mean over the t threads: a chain of "
           "dependent integer multiplies (3 cycles each), and of dependent AVX-512 FMAs (4); then "
           "AVX-512 FMAs per ns per thread from eight independent chains):\n\n| threads | imul "
           "chain | AVX-512 FMA chain | AVX-512 FMA throughput |\n|---:|---:|---:|---:|\n");
    for (unsigned t = 1; t; t = next_threads(t, maxt)) {
        double a = probe(t, 0), f = avx512 ? probe(t, 1) : 0, tp = avx512 ? probe(t, 2) : 0;
        printf("| %u | %.2f | ", t, a * 1e-9);
        if (avx512)
            printf("%.2f | %.2f |\n", f * 1e-9, tp * 1e-9);
        else
            printf("- | - |\n");
        fflush(stdout);
    }
}
#else
static void clocks(unsigned maxt)
{
    (void)maxt;
}
#endif

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
    bool native = true, scale = true, table = true;
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
        else if (!strcmp(a, "--isa=avx2"))
            opt_isa = FMAG_VM_ISA_AVX2;
        else if (!strcmp(a, "--isa=generic"))
            opt_isa = FMAG_VM_ISA_GENERIC;
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
        else if (!strcmp(a, "--only-scaling"))
            table = native = false;
        else if (a[0] == '-') {
            fprintf(stderr,
                    "usage: fmag-cpu-bench [--elements=N] [--reps=R] [--threads=T] [--lanes=L] "
                    "[--isa=avx2|generic] [--cc=CC] "
                    "[--cflags=FLAGS] [--tmp=DIR] [--no-native] [--no-scaling] [--only-scaling] "
                    "FILE.fmag...\n");
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
    fmag_vm_engine_options o1 = {1, opt_isa, opt_lanes}, on = {maxt, opt_isa, opt_lanes};
    fmag_vm_engine *e1 = fmag_vm_engine_create(&o1, err, sizeof err);
    fmag_vm_engine *en = fmag_vm_engine_create(&on, err, sizeof err);
    if (!e1 || !en) return fprintf(stderr, "fmag-cpu-bench: %s\n", err), 1;
    calibrate_tsc();
    count_kernel();
    printf("batch kernel %s, %u threads, %zu elements, best of %d; TSC %.3f GHz (against "
           "CLOCK_MONOTONIC)\n",
           fmag_vm_engine_isa(e1), fmag_vm_engine_threads(en), opt_n, opt_reps, tsc_hz * 1e-9);
    if (model.ok)
        printf("AVX-512 kernel (objdump of this binary): %.0f machine instructions per record, "
               "per 16-lane vector %.0f/%.0f/%.0f (unguarded, 0/1/2 of b, c in registers), "
               "%.0f/%.0f/%.0f (register guard)\n",
               model.per_record, model.per_vector[0][0], model.per_vector[0][1],
               model.per_vector[0][2], model.per_vector[1][0], model.per_vector[1][1],
               model.per_vector[1][2]);
    else
        printf("AVX-512 kernel not counted (no objdump, or the kernel's shape was not found)\n");
    if (table)
        printf(
            "\n| program | instr | regs | lanes | ref el/s | batch 1T el/s | batch 1T cols el/s | "
            "batch %uT el/s | C -O3 el/s | batch1T / C time | cols / C time | batch1T / ref | "
            "cols / ref | el-instr per TSC cycle | machine instr per el-instr | IPC (TSC) | "
            "bytes per el-instr | same bits |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            "---|\n",
            maxt);
    for (size_t i = 0; i < nb && table; i++) {
        bench_one(&bp[i], e1, en);
        fflush(stdout);
    }
    if (table) mixes(bp, nb, e1);
    if (scale && maxt > 1) {
        scaling(bp, nb, maxt);
        clocks(maxt);
    }
    fmag_vm_engine_destroy(e1);
    fmag_vm_engine_destroy(en);
    for (size_t i = 0; i < nb; i++)
        fmag_vm_image_free(&bp[i].img);
    free(bp);
    if (failures)
        fprintf(stderr, "fmag-cpu-bench: %d results differ from the reference\n", failures);
    return failures != 0;
}
