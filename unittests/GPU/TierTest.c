/* Unit tests of the GPU runners' tiers (docs/GPU.md, "Tiers"): the bake cache with a stand-in
 * compiler (LRU eviction by entries and bytes, failed bakes, the instruction limit and the
 * time budget, many threads asking for the same programs while they bake), then on every
 * back end with a driver the tier switch: baked code against the reference VM bit for bit on
 * random programs (special values included), AUTO / EAGER / OFF, a bake that fails, the
 * NaN-agnostic mode, and threads each running the same program on their runner while it
 * bakes. `--cache-only` runs the first part alone (scripts/tsan.sh). Exit 0 on success. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fmag/Bits.h"
#include "fmag/GPU.h"
#include "../../lib/GPU/Bake.h"
#include "../../lib/GPU/GPUBench.h"

static atomic_int failures;
#define EXPECT(c, ...)                                                                             \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            atomic_fetch_add(&failures, 1);                                                        \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

/* --- the cache, with a stand-in compiler ---------------------------------------------- */

/* The stand-in's native object is the program's instruction count, so that a caller can
 * tell whose code it got; a program named "bad" fails to compile. */
typedef struct stand_in {
    atomic_int compiles, loads, releases;
    int sleep_ms;
} stand_in;

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void *si_compile(void *user, const fmag_vm_program *p, bool nan_agnostic, size_t *len,
                        char *err, size_t errlen)
{
    (void)nan_agnostic;
    stand_in *s = user;
    atomic_fetch_add(&s->compiles, 1);
    if (s->sleep_ms) sleep_ms(s->sleep_ms);
    if (p->name && !strcmp(p->name, "bad")) {
        snprintf(err, errlen, "stand-in compile error");
        return NULL;
    }
    uint32_t *blob = malloc(sizeof *blob);
    if (blob) *blob = p->ninstr;
    *len = 1000; /* what the byte budget counts */
    return blob;
}

static void *si_load(void *user, const void *blob, size_t len, char *err, size_t errlen)
{
    (void)len, (void)err, (void)errlen;
    atomic_fetch_add(&((stand_in *)user)->loads, 1);
    uint32_t *n = malloc(sizeof *n);
    if (n) *n = *(const uint32_t *)blob;
    return n;
}

static void si_release(void *user, void *native)
{
    atomic_fetch_add(&((stand_in *)user)->releases, 1);
    free(native);
}

static fmag_gpu_bake_cache *si_cache(stand_in *s, unsigned entries, size_t bytes)
{
    memset(s, 0, sizeof *s);
    fmag_gpu_baker b = {s, si_compile, si_load, si_release, NULL, false};
    fmag_gpu_bake_cache *c = fmag_gpu_bake_create(&b);
    fmag_gpu_bake_limits lim = {entries, bytes, 1e6, 1000};
    if (c) fmag_gpu_bake_set_limits(c, &lim);
    return c;
}

/* Program k: k + 1 instructions r0 = r0 * 1 + k (distinct bytes per k). */
typedef struct test_prog {
    fmag_vm_program p;
    fmag_vm_instr code[16];
} test_prog;

static void make_prog(test_prog *t, unsigned k, const char *name)
{
    memset(t, 0, sizeof *t);
    for (unsigned i = 0; i <= k && i < 16; ++i)
        t->code[i] =
            (fmag_vm_instr){fmag_bits_of(1.0f), fmag_bits_of((float)k), fmag_bits_of(1.0f), 0};
    t->p.name = (char *)name;
    t->p.regs = 1, t->p.nin = 1, t->p.nout = 1, t->p.ninstr = k + 1 < 16 ? k + 1 : 16;
    t->p.code = t->code;
}

/* EAGER get and put; true when the native code was there. */
static bool eager(fmag_gpu_bake_cache *c, const fmag_vm_program *p)
{
    void *native;
    fmag_gpu_bake_entry *e = fmag_gpu_bake_get(c, p, FMAG_GPU_TIER_EAGER, false, &native);
    bool ok = e && native && *(uint32_t *)native == p->ninstr;
    fmag_gpu_bake_put(c, e);
    return ok;
}

/* Whether p is baked in c now, without queueing it (AUTO would queue a missing one). */
static bool present(fmag_gpu_bake_cache *c, const fmag_vm_program *p)
{
    void *native;
    fmag_gpu_bake_entry *e = fmag_gpu_bake_get(c, p, FMAG_GPU_TIER_AUTO, false, &native);
    fmag_gpu_bake_put(c, e);
    return e != NULL;
}

static void test_cache_eviction(void)
{
    stand_in s;
    test_prog t[5];
    for (unsigned k = 0; k < 5; ++k)
        make_prog(&t[k], k, "p");
    /* entries: three kept, the least recently used goes */
    fmag_gpu_bake_cache *c = si_cache(&s, 3, 1u << 20);
    EXPECT(c, "cache");
    if (!c) return;
    for (unsigned k = 0; k < 3; ++k)
        EXPECT(eager(c, &t[k].p), "eager bake of program %u", k);
    EXPECT(eager(c, &t[0].p), "program 0 again");
    EXPECT(eager(c, &t[3].p), "program 3");
    fmag_gpu_bake_stat st;
    fmag_gpu_bake_stats(c, &st);
    EXPECT(st.entries == 3 && st.evicted == 1 && st.baked == 4,
           "entries %u evicted %llu baked %llu (want 3, 1, 4)", st.entries, st.evicted, st.baked);
    EXPECT(present(c, &t[0].p), "the recently used program 0 stays");
    EXPECT(!present(c, &t[1].p), "the least recently used program 1 is evicted");
    fmag_gpu_bake_wait(c);
    fmag_gpu_bake_destroy(c);
    EXPECT(s.releases == s.loads, "every native object released (%d of %d)", (int)s.releases,
           (int)s.loads);
    /* bytes: each entry counts its 1000-byte blob and its copy: two fit in 2500 */
    c = si_cache(&s, 100, 2500);
    if (!c) return;
    for (unsigned k = 0; k < 4; ++k)
        EXPECT(eager(c, &t[k].p), "eager bake of program %u under the byte budget", k);
    fmag_gpu_bake_stats(c, &st);
    EXPECT(st.entries <= 2 && st.bytes <= 2500 && st.evicted >= 2,
           "byte budget: %u entries, %zu bytes, %llu evicted", st.entries, st.bytes, st.evicted);
    EXPECT(present(c, &t[3].p) && !present(c, &t[0].p), "the newest kept, the oldest evicted");
    fmag_gpu_bake_wait(c);
    fmag_gpu_bake_destroy(c);
    EXPECT(s.releases == s.loads, "released %d of %d", (int)s.releases, (int)s.loads);
}

static void test_cache_failures(void)
{
    stand_in s;
    test_prog bad, big, slow;
    make_prog(&bad, 2, "bad");
    make_prog(&big, 9, "big");
    make_prog(&slow, 4, "slow");
    fmag_gpu_bake_cache *c = si_cache(&s, 8, 1u << 20);
    if (!c) return;
    EXPECT(!eager(c, &bad.p), "a compile error gives no native code");
    EXPECT(!eager(c, &bad.p), "nor the second time");
    EXPECT(s.compiles == 1, "a failed program is compiled once (%d)", (int)s.compiles);
    const char *log = fmag_gpu_bake_log(c);
    EXPECT(strstr(log, "program 'bad'") && strstr(log, "stays interpreted") &&
               strstr(log, "stand-in compile error"),
           "the log says why: '%s'", log);
    fmag_gpu_bake_limits lim = {8, 1u << 20, 1e6, 5};
    fmag_gpu_bake_set_limits(c, &lim);
    EXPECT(!eager(c, &big.p), "over the instruction limit");
    EXPECT(strstr(fmag_gpu_bake_log(c), "over the bake limit of 5"), "log: %s",
           fmag_gpu_bake_log(c));
    lim = (fmag_gpu_bake_limits){8, 1u << 20, 5.0, 1000};
    fmag_gpu_bake_set_limits(c, &lim);
    s.sleep_ms = 30;
    EXPECT(!eager(c, &slow.p), "over the time budget");
    EXPECT(strstr(fmag_gpu_bake_log(c), "over the budget of 5 ms"), "log: %s",
           fmag_gpu_bake_log(c));
    fmag_gpu_bake_stat st;
    fmag_gpu_bake_stats(c, &st);
    EXPECT(st.failed == 3 && st.baked == 0, "failed %llu baked %llu", st.failed, st.baked);
    fmag_gpu_bake_destroy(c);
    EXPECT(s.releases == s.loads, "released %d of %d", (int)s.releases, (int)s.loads);
}

typedef struct cache_worker {
    fmag_gpu_bake_cache *c;
    test_prog *t;
    unsigned seed;
} cache_worker;

static void *cache_worker_run(void *arg)
{
    cache_worker *w = arg;
    for (unsigned i = 0; i < 400; ++i) {
        const fmag_vm_program *p = &w->t[(i + w->seed) % 3].p;
        void *native;
        fmag_gpu_bake_entry *e = fmag_gpu_bake_get(w->c, p, FMAG_GPU_TIER_AUTO, false, &native);
        if (e) EXPECT(*(uint32_t *)native == p->ninstr, "another program's code");
        fmag_gpu_bake_put(w->c, e);
    }
    return NULL;
}

/* Threads ask for the same three programs while they bake (slowly): each is baked once,
 * and every thread that gets code gets its program's. */
static void test_cache_threads(void)
{
    stand_in s;
    test_prog t[3];
    for (unsigned k = 0; k < 3; ++k)
        make_prog(&t[k], k, "p");
    fmag_gpu_bake_cache *c = si_cache(&s, 8, 1u << 20);
    if (!c) return;
    s.sleep_ms = 2;
    enum { NT = 6 };
    pthread_t th[NT];
    cache_worker w[NT];
    for (unsigned i = 0; i < NT; ++i) {
        w[i] = (cache_worker){c, t, i};
        EXPECT(pthread_create(&th[i], NULL, cache_worker_run, &w[i]) == 0, "thread");
    }
    for (unsigned i = 0; i < NT; ++i)
        pthread_join(th[i], NULL);
    fmag_gpu_bake_wait(c);
    EXPECT(s.compiles == 3, "each program baked once (%d bakes)", (int)s.compiles);
    fmag_gpu_bake_destroy(c);
    EXPECT(s.releases == s.loads, "released %d of %d", (int)s.releases, (int)s.loads);
}

/* --- the runners ------------------------------------------------------------------------ */

static uint32_t rng = 0x12345678u;
static uint32_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
    return rng;
}

/* Inputs and literals over the special values (signed zeros, infinities, NaN, denormals,
 * huge and tiny) and ordinary numbers. */
static float special(void)
{
    static const uint32_t pick[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u,
                                    0x7FC00000u, 0x7FFFFFFFu, 0x00000001u, 0x807FFFFFu,
                                    0x7F7FFFFFu, 0x00800000u, 0x3F800000u, 0xBF800000u};
    if (rnd() % 4 == 0) return fmag_float_of(pick[rnd() % (sizeof pick / sizeof *pick)]);
    return (float)((int)(rnd() % 20001) - 10000) / 977.0f;
}

typedef struct rand_prog {
    fmag_vm_program p;
    fmag_vm_instr code[64];
} rand_prog;

/* A valid program: operands in range, finite literals, guards literal (mostly > 0) or
 * registers. */
static void random_prog(rand_prog *r)
{
    memset(r, 0, sizeof *r);
    uint16_t regs = (uint16_t)(2 + rnd() % 10), nin = (uint16_t)(1 + rnd() % 3);
    uint16_t nout = (uint16_t)(1 + rnd() % 2);
    if (nin > regs) nin = regs;
    uint32_t n = 4 + rnd() % 20; /* short: lavapipe compiles a baked shader in ~0.1-1 s */
    for (uint32_t i = 0; i < n; ++i) {
        float lb = special(), lc = special(), lg = rnd() % 6 ? 1.0f : -0.0f;
        if (!isfinite(lb)) lb = 2.0f; /* a literal is finite (SPEC) */
        if (!isfinite(lc)) lc = -0.5f;
        fmag_vm_instr *w = &r->code[i];
        w->b = rnd() % 2 ? fmag_bits_of(lb) : fmag_vm_ref_word((uint16_t)(rnd() % regs));
        w->c = rnd() % 2 ? fmag_bits_of(lc) : fmag_vm_ref_word((uint16_t)(rnd() % regs));
        w->g = rnd() % 4 ? fmag_bits_of(lg) : fmag_vm_ref_word((uint16_t)(rnd() % regs));
        w->da = (uint32_t)(rnd() % regs) | (uint32_t)(rnd() % regs) << 16;
    }
    r->p.name = (char *)"random";
    r->p.regs = regs, r->p.nin = nin, r->p.nout = nout, r->p.ninstr = n, r->p.code = r->code;
}

enum { NEL = 300, INW = 3, OUTW = 3 };

/* A driver that flushes float32 denormals (NVIDIA's Vulkan driver: the runner's description
 * says "flushed") may give a zero of either sign where the reference has a denormal or a
 * zero; everything else is compared bit for bit. */
static bool flushes;
static bool same_bits(float ref, float got, bool nan_any)
{
    if (fmag_bits_of(ref) == fmag_bits_of(got)) return true;
    if (nan_any && isnan(ref) && isnan(got)) return true;
    return flushes && fabsf(ref) < 0x1p-126f && fabsf(got) < 0x1p-126f;
}

static bool is_denormal(float f)
{
    return fpclassify(f) == FP_SUBNORMAL;
}

/* Whether one element's evaluation of p meets a denormal (an input, an operand, a guard or a
 * result): a flushing driver reads it as zero, and what follows may differ from the reference
 * anywhere (inf * denormal is inf, inf * 0 NaN), so such elements are not compared there, as
 * bench/gpu's check does. The evaluation follows the VM's contract: r[d] = g > 0 ?
 * fma(r[a], b, c) : r[d]. */
static bool touches_denormal(const fmag_vm_program *p, const float *in)
{
    float r[1024] = {0};
    for (unsigned i = 0; i < p->nin; ++i)
        if (is_denormal(r[i] = in[i])) return true;
    for (uint32_t i = 0; i < p->ninstr; ++i) {
        fmag_vm_decoded x;
        fmag_vm_decode(p->code[i], &x);
        float b = x.b.is_reg ? r[x.b.reg] : x.b.imm, c = x.c.is_reg ? r[x.c.reg] : x.c.imm;
        float g = x.g.is_reg ? r[x.g.reg] : x.g.imm, a = r[x.a];
        if (is_denormal(g)) return true;
        if (!(g > 0)) continue;
        if (is_denormal(a) || is_denormal(b) || is_denormal(c)) return true;
        if (is_denormal(r[x.d] = fmaf(a, b, c))) return true;
    }
    return false;
}

/* Whether element e's words are compared: always, except where a flushing driver meets a
 * denormal. */
static bool compared(const fmag_vm_program *p, const float *in_row)
{
    return !flushes || !touches_denormal(p, in_row);
}

/* Runs p on the runner and the reference VM over `in`; counts elements that differ (bit for
 * bit, or any NaN for any NaN when nan_any). */
static int run_compare(fmag_gpu_runner *r, const fmag_vm_program *p, const float *in, bool nan_any,
                       const char *what)
{
    float ref[NEL * OUTW], got[NEL * OUTW];
    char err[512] = "";
    memset(ref, 0, sizeof ref);
    memset(got, 0, sizeof got);
    if (!fmag_vm_run_ref_per_lane(&p, 1, NULL, in, INW, ref, OUTW, NEL, err, sizeof err)) {
        EXPECT(0, "%s: reference: %s", what, err);
        return 1;
    }
    if (!fmag_gpu_run(r, p, in, INW, got, OUTW, NEL, err, sizeof err)) {
        EXPECT(0, "%s: run failed: %s", what, err);
        return 1;
    }
    int bad = 0;
    for (size_t e = 0; e < NEL; ++e) {
        if (!compared(p, in + e * INW)) continue;
        for (unsigned k = 0; k < p->nout; ++k) {
            float a = ref[e * OUTW + k], b = got[e * OUTW + k];
            if (!same_bits(a, b, nan_any) && bad++ == 0)
                printf("  %s: element %zu output %u: %08X, reference %08X\n", what, e, k,
                       (unsigned)fmag_bits_of(b), (unsigned)fmag_bits_of(a));
        }
    }
    EXPECT(bad == 0, "%s: %d mismatches", what, bad);
    return bad;
}

static void random_inputs(float *in)
{
    for (size_t i = 0; i < NEL * INW; ++i)
        in[i] = special();
}

/* AUTO: interpreted first, baked after the bake; the same bits both ways. */
static void test_tier_switch(fmag_gpu_runner *r, const char *api)
{
    float in[NEL * INW];
    int baked = 0;
    for (int k = 0; k < 4; ++k) {
        rand_prog rp;
        random_prog(&rp);
        random_inputs(in);
        char what[64];
        snprintf(what, sizeof what, "%s random %d interpreted", api, k);
        run_compare(r, &rp.p, in, false, what);
        EXPECT(fmag_gpu_runner_last_tier(r) == FMAG_GPU_TIER_INTERPRETED,
               "%s: the first run interprets", what);
        fmag_gpu_runner_bake_wait(r);
        snprintf(what, sizeof what, "%s random %d baked", api, k);
        run_compare(r, &rp.p, in, false, what);
        baked += fmag_gpu_runner_last_tier(r) == FMAG_GPU_TIER_BAKED;
    }
    const char *log = fmag_gpu_runner_bake_log(r);
    if (strstr(log, "no GLSL compiler") || strstr(log, "no CUDA compiler")) {
        printf("%s: tiers: no compiler here (%.*s); interpreted throughout\n", api,
               (int)strcspn(log, "\n"), log);
        return;
    }
    EXPECT(baked == 4, "%s: %d of 4 programs ran baked; log: %s", api, baked, log);
    fmag_gpu_bake_stat st;
    fmag_gpu_runner_bake_stats(r, &st);
    printf("%s: tiers: %d of 4 random programs baked, bit-identical (last bake %.1f ms)\n", api,
           baked, st.last_bake_ms);
}

static void test_modes(fmag_gpu_runner *r, const char *api)
{
    float in[NEL * INW];
    random_inputs(in);
    rand_prog rp;
    random_prog(&rp);
    EXPECT(fmag_gpu_runner_set_tier_mode(r, FMAG_GPU_TIER_OFF), "OFF");
    run_compare(r, &rp.p, in, false, "off");
    fmag_gpu_runner_bake_wait(r);
    run_compare(r, &rp.p, in, false, "off, again");
    EXPECT(fmag_gpu_runner_last_tier(r) == FMAG_GPU_TIER_INTERPRETED, "%s: OFF interprets", api);
    EXPECT(fmag_gpu_runner_set_tier_mode(r, FMAG_GPU_TIER_EAGER), "EAGER");
    random_prog(&rp);
    run_compare(r, &rp.p, in, false, "eager");
    EXPECT(fmag_gpu_runner_last_tier(r) == FMAG_GPU_TIER_BAKED, "%s: EAGER bakes at once", api);
    /* the baked code on columns (structure of arrays): the rows' bits */
    {
        static float cin[INW][NEL], cout[OUTW][NEL], rows[NEL * OUTW];
        const float *ci[INW];
        float *co[OUTW];
        for (int i = 0; i < INW; ++i) {
            ci[i] = cin[i];
            for (int e = 0; e < NEL; ++e)
                cin[i][e] = in[e * INW + i];
        }
        for (int i = 0; i < OUTW; ++i)
            co[i] = cout[i];
        char err[256] = "";
        bool ok = fmag_gpu_run(r, &rp.p, in, INW, rows, OUTW, NEL, err, sizeof err) &&
                  fmag_gpu_run_columns(r, &rp.p, ci, co, NEL, err, sizeof err);
        EXPECT(ok && fmag_gpu_runner_last_tier(r) == FMAG_GPU_TIER_BAKED, "%s: columns: %s", api,
               err);
        int bad = 0;
        for (int e = 0; ok && e < NEL; ++e)
            for (unsigned k = 0; k < rp.p.nout; ++k)
                bad += fmag_bits_of(rows[e * OUTW + k]) != fmag_bits_of(cout[k][e]);
        EXPECT(bad == 0, "%s: baked columns differ from rows in %d values", api, bad);
    }
    EXPECT(!fmag_gpu_runner_set_tier_mode(r, (fmag_gpu_tier_mode)7), "a bad mode is refused");
    /* NaN-agnostic: another key, another bake; NaN payloads may differ */
    fmag_gpu_runner_set_nan_agnostic(r, true);
    for (int k = 0; k < 2; ++k) {
        random_prog(&rp);
        run_compare(r, &rp.p, in, true, "nan-agnostic");
        EXPECT(fmag_gpu_runner_last_tier(r) == FMAG_GPU_TIER_BAKED, "%s: NaN-agnostic baked", api);
    }
    fmag_gpu_runner_set_nan_agnostic(r, false);
    /* a failed bake (over the instruction limit) stays interpreted, with a record */
    fmag_gpu_bake_limits lim = {FMAG_GPU_BAKE_ENTRIES, FMAG_GPU_BAKE_BYTES, FMAG_GPU_BAKE_BUDGET_MS,
                                3};
    EXPECT(fmag_gpu_runner_set_bake_limits(r, &lim), "limits");
    random_prog(&rp);
    run_compare(r, &rp.p, in, false, "bake failure");
    EXPECT(fmag_gpu_runner_last_tier(r) == FMAG_GPU_TIER_INTERPRETED, "%s: failed: interpreted",
           api);
    EXPECT(strstr(fmag_gpu_runner_bake_log(r), "over the bake limit of 3"), "%s: log: %s", api,
           fmag_gpu_runner_bake_log(r));
    lim.max_instrs = FMAG_GPU_BAKE_MAX_INSTRS;
    fmag_gpu_runner_set_bake_limits(r, &lim);
    fmag_gpu_runner_set_tier_mode(r, FMAG_GPU_TIER_AUTO);
}

/* Binning: random per-lane images over few programs, binned and not, against the reference
 * VM bit for bit; the columns past an element's outputs keep what the caller had there. */
static void test_binning(fmag_gpu_runner *r, const char *api)
{
    enum { N = 5000, NP = 3 };
    static float in[N * INW], ref[N * OUTW], got[N * OUTW];
    static uint32_t idx[N];
    rand_prog rp[NP];
    const fmag_vm_program *progs[NP];
    for (int k = 0; k < NP; ++k)
        random_prog(&rp[k]), progs[k] = &rp[k].p;
    for (size_t i = 0; i < N * INW; ++i)
        in[i] = special();
    fmag_gpu_runner_set_tier_mode(r, FMAG_GPU_TIER_OFF);
    for (int round = 0; round < 4; ++round) {
        /* round 0: every program; 1: two of them in runs; 2: one program only; 3: program 0
         * at even elements, 1 and 2 at odd ones, which the host's sample (every second
         * element of 5000) does not see: the device's counts decide */
        for (size_t e = 0; e < N; ++e)
            idx[e] = round == 0   ? rnd() % NP
                     : round == 1 ? (uint32_t)(e / 700 % 2) * 2
                     : round == 2 ? 1
                                  : (uint32_t)(e % 2 ? 1 + e / 2 % 2 : 0);
        /* rounds 0 and 3: 3 programs > 2: unbinned too */
        unsigned threshold = round == 0 || round == 3 ? 2 : 8;
        for (int binned = 0; binned < 2; ++binned) {
            char err[512] = "";
            for (size_t i = 0; i < N * OUTW; ++i)
                ref[i] = got[i] = (float)i; /* what the caller had */
            EXPECT(fmag_vm_run_ref_per_lane(progs, NP, idx, in, INW, ref, OUTW, N, err, sizeof err),
                   "reference: %s", err);
            fmag_gpu_runner_set_bin_threshold(r, binned ? 8 : threshold);
            fmag_gpu_counters c0, c1;
            fmag_gpu_runner_counters(r, &c0);
            EXPECT(fmag_gpu_run_per_lane(r, progs, NP, idx, in, INW, got, OUTW, N, err, sizeof err),
                   "%s: per-lane run: %s", api, err);
            fmag_gpu_runner_counters(r, &c1);
            /* both runners sort on the device (gpu/fmag_bin.comp, fmag_bin_* in
             * gpu/fmag_cuda.cu) when they bin */
            bool on_device = c1.device_bins > c0.device_bins;
            EXPECT(on_device == (binned || threshold >= 3),
                   "%s: binning round %d: %s on the device", api, round,
                   on_device ? "binned" : "not binned");
            int bad = 0;
            for (size_t i = 0; i < N * OUTW; ++i)
                bad += !same_bits(ref[i], got[i], false) &&
                       compared(progs[idx[i / OUTW]], in + i / OUTW * INW);
            EXPECT(bad == 0, "%s: binning round %d (%s): %d words differ", api, round,
                   binned ? "binned" : "threshold below", bad);
        }
    }
    fmag_gpu_runner_set_bin_threshold(r, FMAG_GPU_BIN_PROGRAMS);
    fmag_gpu_runner_set_tier_mode(r, FMAG_GPU_TIER_AUTO);
    printf("%s: binning: 4 per-lane images of %d elements, binned and not, bit-identical\n", api,
           (int)N);
}

typedef struct runner_worker {
    fmag_gpu_api api;
    const fmag_vm_program *p;
    const float *in;
    int baked_runs;
} runner_worker;

/* A runner per thread (a runner is one thread's), the same program over and over while it
 * bakes in the background. */
static void *runner_worker_run(void *arg)
{
    runner_worker *w = arg;
    char err[256];
    fmag_gpu_runner *r = fmag_gpu_runner_create(w->api, err, sizeof err);
    if (!r) {
        EXPECT(0, "runner: %s", err);
        return NULL;
    }
    fmag_gpu_runner_set_tier_mode(r, FMAG_GPU_TIER_AUTO);
    for (int i = 0; i < 4; ++i) {
        run_compare(r, w->p, w->in, false, "thread");
        w->baked_runs += fmag_gpu_runner_last_tier(r) == FMAG_GPU_TIER_BAKED;
    }
    fmag_gpu_runner_destroy(r);
    return NULL;
}

static void test_threads(fmag_gpu_api api)
{
    static float in[NEL * INW];
    random_inputs(in);
    rand_prog rp;
    random_prog(&rp);
    enum { NT = 2 };
    pthread_t th[NT];
    runner_worker w[NT];
    for (int i = 0; i < NT; ++i) {
        w[i] = (runner_worker){api, &rp.p, in, 0};
        EXPECT(pthread_create(&th[i], NULL, runner_worker_run, &w[i]) == 0, "thread");
    }
    for (int i = 0; i < NT; ++i)
        pthread_join(th[i], NULL);
}

int main(int argc, char **argv)
{
    bool cache_only = argc > 1 && !strcmp(argv[1], "--cache-only");
    test_cache_eviction();
    test_cache_failures();
    test_cache_threads();
    printf("bake cache: %s\n", failures ? "FAILED" : "ok");
    static const struct {
        fmag_gpu_api api;
        const char *name;
    } apis[] = {{FMAG_GPU_VULKAN, "vulkan"}, {FMAG_GPU_CUDA, "cuda"}};
    for (size_t i = 0; i < 2 && !cache_only; ++i) {
        char err[256] = "";
        fmag_gpu_runner *r = fmag_gpu_runner_create(apis[i].api, err, sizeof err);
        if (!r) {
            printf("%s: skipped: %s\n", apis[i].name, err);
            continue;
        }
        flushes = strstr(fmag_gpu_runner_describe(r), "flushed") != NULL;
        /* explicitly: a CPU driver (lavapipe in CI) has the tiers off by default */
        fmag_gpu_runner_set_tier_mode(r, FMAG_GPU_TIER_AUTO);
        test_binning(r, apis[i].name);
        test_tier_switch(r, apis[i].name);
        bool have_compiler = fmag_gpu_runner_last_tier(r) == FMAG_GPU_TIER_BAKED;
        if (have_compiler) test_modes(r, apis[i].name);
        fmag_gpu_runner_destroy(r);
        if (have_compiler) test_threads(apis[i].api);
    }
    if (failures) printf("%d failures\n", (int)failures);
    return failures ? 1 : 0;
}
