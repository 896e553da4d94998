/* The prover: checks a candidate against its target exhaustively over every finite
 * float32 (one input) or over edge cases and dense samples (two inputs), in
 * vectorizable chunks spread over threads. */
#include "fmag/Superopt.h"
#include "fmag/Bits.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CH 256 /* lanes per chunk: 256-aligned blocks of float bits never straddle an exponent */

typedef struct prove_shared {
    const fmag_superopt_target *t;
    const fmag_superopt_program *p;
    float (*consts)[CH]; /* one splatted row per literal slot (tape and program) */
    unsigned nconst_rows;
    unsigned *tape_row; /* per tape slot (op*5+s): row index for literals */
    unsigned *prog_row; /* per program slot (i*3+k) */
    unsigned result_row;
    /* work distribution */
    atomic_uint_fast64_t next;
    uint64_t nblocks;
    atomic_bool stop;
    pthread_mutex_t lock;
    /* result */
    uint64_t checked, skipped;
    bool failed;
    float cex[2], want, got;
    /* two-input sampling */
    const float *edges;
    unsigned nedges;
    uint64_t samples;
    uint64_t seed;
} prove_shared;

typedef struct prove_local {
    float *tv; /* [nops][CH] */
    float rg[FMAG_SUPEROPT_MAX_REGS][CH];
    float in[2][CH];
    uint32_t bad[CH];
} prove_local;

static inline __attribute__((always_inline)) const float *
slot_ptr(const prove_shared *sh, prove_local *l, const fmag_so_ref *r, unsigned row)
{
    switch (r->kind) {
    case FMAG_SO_REF_INPUT:
        return l->in[r->index];
    case FMAG_SO_REF_CONST:
        return sh->consts[row];
    default:
        return l->tv + (size_t)r->index * CH;
    }
}

typedef int (*check_fn)(const prove_shared *, prove_local *, uint64_t *, uint64_t *);

/* Evaluates target and candidate on l->in and returns the first mismatching lane,
 * or -1; adds the lanes compared / skipped to the counters. */
static inline __attribute__((always_inline)) int
check_chunk_body(const prove_shared *sh, prove_local *l, uint64_t *checked, uint64_t *skipped)
{
    const fmag_superopt_target *t = sh->t;
    const fmag_superopt_program *p = sh->p;
    uint32_t *bad = l->bad;
    for (int i = 0; i < CH; i++)
        bad[i] = 0;
    for (unsigned k = 0; k < t->nops; k++) {
        const fmag_so_op *op = &t->ops[k];
        const float *a = slot_ptr(sh, l, &op->s[0], sh->tape_row[k * 5 + 0]);
        const float *b = slot_ptr(sh, l, &op->s[1], sh->tape_row[k * 5 + 1]);
        const float *c = slot_ptr(sh, l, &op->s[2], sh->tape_row[k * 5 + 2]);
        const float *d = slot_ptr(sh, l, &op->s[3], sh->tape_row[k * 5 + 3]);
        const float *e = slot_ptr(sh, l, &op->s[4], sh->tape_row[k * 5 + 4]);
        float *restrict o = l->tv + (size_t)k * CH;
        for (int i = 0; i < CH; i++) {
            float v = e[i] > 0.0f ? fmaf(a[i], b[i], c[i]) : d[i];
            o[i] = v;
            bad[i] |= (fmag_bits_of(v) & 0x7F800000u) == 0x7F800000u;
        }
    }
    const float *want = slot_ptr(sh, l, &t->result, sh->result_row);
    for (int i = 0; i < CH; i++)
        bad[i] |= (fmag_bits_of(want[i]) & 0x7F800000u) == 0x7F800000u;
    unsigned regs = p->regs;
    for (unsigned r = 0; r < regs; r++) {
        if (r < p->nin)
            memcpy(l->rg[r], l->in[r], sizeof l->rg[r]);
        else
            memset(l->rg[r], 0, sizeof l->rg[r]);
    }
    for (unsigned k = 0; k < p->len; k++) {
        const fmag_vm_decoded *ins = &p->code[k];
        const float *a = l->rg[ins->a];
        const float *b = ins->b.is_reg ? l->rg[ins->b.reg] : sh->consts[sh->prog_row[k * 3 + 0]];
        const float *c = ins->c.is_reg ? l->rg[ins->c.reg] : sh->consts[sh->prog_row[k * 3 + 1]];
        const float *g = ins->g.is_reg ? l->rg[ins->g.reg] : sh->consts[sh->prog_row[k * 3 + 2]];
        float *o = l->rg[ins->d];
        for (int i = 0; i < CH; i++)
            o[i] = g[i] > 0.0f ? fmaf(a[i], b[i], c[i]) : o[i];
    }
    const float *got = l->rg[0];
    uint32_t nbad = 0, nmis = 0;
    for (int i = 0; i < CH; i++) {
        nbad += bad[i];
        nmis += !bad[i] && !(want[i] == got[i]);
    }
    *skipped += nbad;
    *checked += CH - nbad;
    if (!nmis) return -1;
    for (int i = 0; i < CH; i++)
        if (!bad[i] && !(want[i] == got[i])) return i;
    return -1;
}

__attribute__((target("avx2,fma"))) static int
check_chunk_avx2(const prove_shared *sh, prove_local *l, uint64_t *ch, uint64_t *sk)
{
    return check_chunk_body(sh, l, ch, sk);
}

/* GCC takes the vector width preference in target(); clang has no such target feature
 * and asks for it with min_vector_width instead. */
#if defined(__clang__)
#define FMAG_AVX512_TARGET                                                                         \
    __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,fma"), min_vector_width(512)))
#else
#define FMAG_AVX512_TARGET                                                                         \
    __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,fma,prefer-vector-width=512")))
#endif
FMAG_AVX512_TARGET static int check_chunk_avx512(const prove_shared *sh, prove_local *l,
                                                 uint64_t *ch, uint64_t *sk)
{
    return check_chunk_body(sh, l, ch, sk);
}

static int check_chunk_generic(const prove_shared *sh, prove_local *l, uint64_t *ch, uint64_t *sk)
{
    return check_chunk_body(sh, l, ch, sk);
}

/* The widest chunk checker this CPU runs; all three compute the same bits. */
static check_fn pick_check(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("fma"))
        return check_chunk_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return check_chunk_avx2;
#endif
    return check_chunk_generic;
}

static void record_cex(prove_shared *sh, prove_local *l, int lane)
{
    pthread_mutex_lock(&sh->lock);
    if (!sh->failed) {
        sh->failed = true;
        sh->cex[0] = l->in[0][lane];
        sh->cex[1] = sh->t->nin > 1 ? l->in[1][lane] : 0.0f;
        fmag_superopt_target_eval(sh->t, sh->cex, &sh->want);
        sh->got = fmag_superopt_program_run(sh->p, sh->cex);
    }
    pthread_mutex_unlock(&sh->lock);
    atomic_store(&sh->stop, true);
}

typedef struct worker_arg {
    prove_shared *sh;
    check_fn check;
    unsigned index;
} worker_arg;

/* One input: block b covers float bit patterns [b * 2^16, (b+1) * 2^16). */
#define BLOCK_BITS 16

/* A worker's scratch (its lanes and the trace buffer), or NULL after marking the
 * proof failed: it cannot prove without memory, so it reports no proof. */
static prove_local *worker_local(prove_shared *sh)
{
    prove_local *l = malloc(sizeof *l);
    float *tv = malloc(((size_t)sh->t->nops + 1) * CH * sizeof(float));
    if (!l || !tv) {
        free(l);
        free(tv);
        atomic_store(&sh->stop, true);
        pthread_mutex_lock(&sh->lock);
        sh->failed = true;
        pthread_mutex_unlock(&sh->lock);
        return NULL;
    }
    l->tv = tv;
    return l;
}

/* Adds a worker's counts to the totals and frees its scratch. */
static void worker_done(prove_shared *sh, prove_local *l, uint64_t checked, uint64_t skipped)
{
    pthread_mutex_lock(&sh->lock);
    sh->checked += checked;
    sh->skipped += skipped;
    pthread_mutex_unlock(&sh->lock);
    free(l->tv);
    free(l);
}

static void *exhaustive_worker(void *varg)
{
    worker_arg *arg = varg;
    prove_shared *sh = arg->sh;
    prove_local *l = worker_local(sh);
    uint64_t checked = 0, skipped = 0;
    if (!l) return NULL;
    check_fn check = arg->check;
    memset(l->in[1], 0, sizeof l->in[1]);
    while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        uint64_t b = atomic_fetch_add(&sh->next, 1);
        if (b >= sh->nblocks) break;
        uint32_t base = (uint32_t)(b << BLOCK_BITS);
        if ((base & 0x7F800000u) == 0x7F800000u)
            continue; /* infinities and NaNs: outside "finite inputs" */
        for (uint32_t off = 0; off < (1u << BLOCK_BITS); off += CH) {
            for (int i = 0; i < CH; i++)
                l->in[0][i] = fmag_float_of(base + off + (uint32_t)i);
            int lane = check(sh, l, &checked, &skipped);
            if (lane >= 0) {
                record_cex(sh, l, lane);
                break;
            }
        }
    }
    worker_done(sh, l, checked, skipped);
    return NULL;
}

static inline uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float finite_from_bits(uint32_t u)
{
    if ((u & 0x7F800000u) == 0x7F800000u)
        u &= 0xFF7FFFFFu; /* clear the exponent's low bit: now finite */
    return fmag_float_of(u);
}

/* A sample of the kind that breaks wrong candidates: raw bit patterns, small
 * numbers, pairs close to each other (comparisons), and edge values. */
static void sample_pair(prove_shared *sh, uint64_t *rng, float *x, float *y)
{
    uint64_t r = splitmix(rng);
    uint64_t s = splitmix(rng);
    switch (r & 7) {
    case 0:
    case 1:
        *x = finite_from_bits((uint32_t)s);
        *y = finite_from_bits((uint32_t)(s >> 32));
        break;
    case 2:
    case 3:
        *x = ((float)(int32_t)(uint32_t)s) * 0x1p-28f;
        *y = ((float)(int32_t)(uint32_t)(s >> 32)) * 0x1p-28f;
        break;
    case 4: {
        *x = (r & 8) ? finite_from_bits((uint32_t)s) : ((float)(int32_t)(uint32_t)s) * 0x1p-28f;
        int32_t delta = (int32_t)((s >> 32) & 0xF) - 8;
        *y = finite_from_bits(fmag_bits_of(*x) + (uint32_t)delta);
        if (r & 16) {
            float t = *x;
            *x = *y;
            *y = t;
        }
        break;
    }
    case 5:
        *x = sh->edges[(s & 0xFFFFFFFF) % sh->nedges];
        *y = finite_from_bits((uint32_t)(s >> 32));
        break;
    case 6:
        *x = finite_from_bits((uint32_t)s);
        *y = sh->edges[(s >> 32) % sh->nedges];
        break;
    default:
        *x = sh->edges[(s & 0xFFFFFFFF) % sh->nedges];
        *y = sh->edges[(s >> 32) % sh->nedges];
        break;
    }
}

/* Two inputs: the first blocks walk the edge-value grid (every pair of edge values),
 * the rest are random pairs. */
static void *sampling_worker(void *varg)
{
    worker_arg *arg = varg;
    prove_shared *sh = arg->sh;
    prove_local *l = worker_local(sh);
    uint64_t checked = 0, skipped = 0;
    if (!l) return NULL;
    check_fn check = arg->check;
    while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        uint64_t b = atomic_fetch_add(&sh->next, 1);
        if (b >= sh->nblocks) break;
        uint64_t rng = sh->seed ^ (b * 0xD1B54A32D192ED03ull);
        uint64_t grid = (uint64_t)sh->nedges * sh->nedges;
        for (int i = 0; i < CH; i++) {
            uint64_t flat = b * CH + (uint64_t)i;
            if (flat < grid) {
                l->in[0][i] = sh->edges[flat / sh->nedges];
                l->in[1][i] = sh->edges[flat % sh->nedges];
            } else {
                sample_pair(sh, &rng, &l->in[0][i], &l->in[1][i]);
            }
        }
        int lane = check(sh, l, &checked, &skipped);
        if (lane >= 0) {
            record_cex(sh, l, lane);
            break;
        }
    }

    worker_done(sh, l, checked, skipped);
    return NULL;
}

static unsigned build_edges(const fmag_superopt_target *t, float *e, unsigned cap)
{
    unsigned n = 0;
#define ADD(v)                                                                                     \
    do {                                                                                           \
        float v_ = (v);                                                                            \
        if (isfinite(v_) && n + 2 <= cap) {                                                        \
            e[n++] = v_;                                                                           \
            e[n++] = -v_;                                                                          \
        }                                                                                          \
    } while (0)
    ADD(0.0f);
    ADD(0x1p-149f);
    ADD(0x1.fffffcp-127f);
    ADD(0x1p-126f);
    for (int k = -149; k <= 127; k += 3)
        ADD(ldexpf(1.0f, k));
    for (int k = -3; k <= 3; k++)
        ADD(ldexpf(1.0f, k));
    ADD(3.0f);
    ADD(0.75f);
    ADD(1.5f);
    ADD(1e30f);
    ADD(3.4028235e38f);
    ADD(nextafterf(1.0f, 2.0f));
    ADD(nextafterf(1.0f, 0.0f));
    for (unsigned i = 0; i < t->nconsts; i++) {
        float c = t->consts[i];
        ADD(c);
        ADD(nextafterf(c, INFINITY));
        ADD(nextafterf(c, -INFINITY));
        ADD(c * 0.5f);
        ADD(c * 2.0f);
    }
#undef ADD
    return n;
}

const char *fmag_superopt_proof_status_name(fmag_superopt_proof_status s)
{
    switch (s) {
    case FMAG_PROOF_NONE:
        return "none";
    case FMAG_PROOF_EXHAUSTIVE:
        return "proven (exhaustive over all finite float32 inputs)";
    case FMAG_PROOF_SAMPLED:
        return "sampled (edge-case grid and random pairs; not a proof)";
    case FMAG_PROOF_FAILED:
        return "FAILED";
    }
    return "?";
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

bool fmag_superopt_prove(const fmag_superopt_target *t, const fmag_superopt_program *p,
                         unsigned threads, uint64_t samples, fmag_superopt_proof *proof)
{
    double t0 = now_s();
    memset(proof, 0, sizeof *proof);
    proof->status = FMAG_PROOF_FAILED;
    if (p->nin != t->nin || p->regs > FMAG_SUPEROPT_MAX_REGS ||
        fmag_superopt_program_regs_used(p) > p->regs)
        return false;
    prove_shared *sh = calloc(1, sizeof *sh);
    if (!sh) return false;
    sh->t = t;
    sh->p = p;
    unsigned rows = 0, cap = t->nops * 5 + p->len * 3 + 1;
    sh->consts = aligned_alloc(64, (size_t)cap * sizeof(float[CH]));
    sh->tape_row = calloc((size_t)t->nops * 5 + 1, sizeof(unsigned));
    sh->prog_row = calloc((size_t)p->len * 3 + 1, sizeof(unsigned));
    float edges[1024];
    bool ok = sh->consts && sh->tape_row && sh->prog_row;
    if (ok) {
#define ROW(val, slot)                                                                             \
    do {                                                                                           \
        for (int i_ = 0; i_ < CH; i_++)                                                            \
            sh->consts[rows][i_] = (val);                                                          \
        (slot) = rows++;                                                                           \
    } while (0)
        for (unsigned k = 0; k < t->nops; k++)
            for (int s = 0; s < 5; s++)
                if (t->ops[k].s[s].kind == FMAG_SO_REF_CONST)
                    ROW(t->ops[k].s[s].imm, sh->tape_row[k * 5 + s]);
        for (unsigned k = 0; k < p->len; k++) {
            const fmag_vm_operand *o[3] = {&p->code[k].b, &p->code[k].c, &p->code[k].g};
            for (int s = 0; s < 3; s++)
                if (!o[s]->is_reg) ROW(o[s]->imm, sh->prog_row[k * 3 + s]);
        }
        if (t->result.kind == FMAG_SO_REF_CONST) ROW(t->result.imm, sh->result_row);
#undef ROW
        sh->nconst_rows = rows;
        pthread_mutex_init(&sh->lock, NULL);
        atomic_init(&sh->next, 0);
        atomic_init(&sh->stop, false);
        if (threads == 0) {
            long n = sysconf(_SC_NPROCESSORS_ONLN);
            threads = n > 0 ? (unsigned)n : 1;
        }
        if (threads > 64) threads = 64;
        void *(*fn)(void *);
        if (t->nin == 1) {
            sh->nblocks = 1ull << (32 - BLOCK_BITS);
            fn = exhaustive_worker;
        } else {
            sh->nedges = build_edges(t, edges, 1024);
            sh->edges = edges;
            sh->samples = samples ? samples : (1ull << 24);
            sh->seed = 0x5EED5EEDull;
            sh->nblocks = ((uint64_t)sh->nedges * sh->nedges + sh->samples + CH - 1) / CH;
            fn = sampling_worker;
        }
        check_fn check = pick_check();
        pthread_t tid[64];
        worker_arg args[64];
        bool created[64] = {false};
        unsigned started = 0;
        for (unsigned i = 0; i < threads; i++) {
            args[i].sh = sh;
            args[i].check = check;
            args[i].index = i;
            if (i > 0 && pthread_create(&tid[i], NULL, fn, &args[i]) == 0) {
                created[i] = true;
                started++;
            }
        }
        fn(&args[0]); /* the calling thread works too */
        for (unsigned i = 1; i < threads; i++)
            if (created[i]) pthread_join(tid[i], NULL);
        pthread_mutex_destroy(&sh->lock);
        proof->threads = started + 1;
        proof->checked = sh->checked;
        proof->skipped = sh->skipped;
        if (sh->failed) {
            proof->cex[0] = sh->cex[0];
            proof->cex[1] = sh->cex[1];
            proof->cex_want = sh->want;
            proof->cex_got = sh->got;
            ok = false;
        } else {
            proof->status = t->nin == 1 ? FMAG_PROOF_EXHAUSTIVE : FMAG_PROOF_SAMPLED;
        }
    }
    free(sh->consts);
    free(sh->tape_row);
    free(sh->prog_row);
    free(sh);
    proof->seconds = now_s() - t0;
    return ok;
}
