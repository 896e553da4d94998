/* The batch CPU engine: many elements at once, bit-identical to the reference
 * interpreter. Each program used is pre-decoded once per run (operand kinds resolved,
 * register operands turned into offsets into the block's register file, never-firing
 * instructions dropped); elements are grouped by program and run in blocks of lanes over
 * a structure-of-arrays register file sized to stay in cache, one decode per instruction per
 * block (lib/VM/BatchKernels.c has the SIMD loops). Blocks are shared out to a persistent
 * thread pool that lives in the engine object. */
#define _POSIX_C_SOURCE 200809L
#include "BatchInternal.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>
/* Round to nearest, every exception masked, no flush-to-zero, no denormals-are-zero:
 * what fmaf means in the reference (SPEC §1). */
#define FMAG_MXCSR_CLEAN 0x1F80u
#define FMAG_MXCSR_CONTROL 0xFFC0u /* the control bits (the low six are sticky flags) */
static unsigned mxcsr_enter(void)
{
    unsigned saved = _mm_getcsr();
    if ((saved & FMAG_MXCSR_CONTROL) != FMAG_MXCSR_CLEAN) _mm_setcsr(FMAG_MXCSR_CLEAN);
    return saved;
}
static void mxcsr_leave(unsigned saved)
{
    /* Keep the exception flags the run raised, as plain C arithmetic would. */
    unsigned now = _mm_getcsr();
    if (now != saved) _mm_setcsr((saved & FMAG_MXCSR_CONTROL) | ((saved | now) & 0x3Fu));
}
#else
static unsigned mxcsr_enter(void)
{
    return 0;
}
static void mxcsr_leave(unsigned saved)
{
    (void)saved;
}
#endif

/* A block has FMAG_BATCH_LANES lanes, fewer only when its register file would pass this
 * many bytes: a record's fixed cost (decode and dispatch) is spread over more lanes, and a
 * register file in L2 streamed row by row costs less than that (docs/PERFORMANCE.md). */
#define FMAG_BATCH_REGFILE_BUDGET (128u * 1024u)
#define FMAG_BATCH_LANES 256u
#define FMAG_BATCH_MIN_LANES FMAG_BATCH_VW
#define FMAG_BATCH_MAX_THREADS 256u
/* Per-lane runs group elements by program within windows of this many elements. */
#define FMAG_BATCH_WINDOW 8192u

typedef struct bprog {
    const fmag_vm_program *p;
    fmag_batch_rec *ins;
    uint32_t n;
    uint32_t lanes;      /* lanes per block (a multiple of FMAG_BATCH_VW) */
    uint32_t *zero_rows; /* rows read before any write that the inputs do not fill */
    uint32_t nzero;
} bprog;

/* A run of consecutive positions (in the program-sorted order) with one program. */
typedef struct segment {
    uint32_t prog;
    size_t begin, end;
    size_t first_item; /* index of its first block in the run's list of blocks */
} segment;

typedef struct job {
    const bprog *progs;
    const segment *segs;
    size_t nsegs, nitems;
    const uint32_t *perm; /* NULL: identity; else offsets from the window's first element */
    const float *in;
    size_t in_stride;
    float *out;
    size_t out_stride;
    const float *const *in_cols; /* non-NULL: one program, input r of element k at in_cols[r][k] */
    float *const *out_cols;
    fmag_batch_io load, store;
    size_t regfile; /* floats of the largest register file of the run */
    unsigned want;  /* threads that take part */
    atomic_bool failed;
    /* Its own cache line: every block's increment would otherwise evict the fields above
     * from the other threads' caches. */
    alignas(64) atomic_size_t next;
} job;

typedef struct scratch {
    float *R;
    size_t cap; /* floats */
} scratch;

struct fmag_vm_engine {
    unsigned nthreads;
    unsigned lanes_opt;
    fmag_batch_isa isa;
    pthread_mutex_t call_mu; /* one run at a time */
    pthread_mutex_t mu;
    pthread_cond_t wake, idle;
    unsigned long gen;
    unsigned pending;
    bool quit;
    job *cur;
    unsigned nworkers; /* started threads: ids 1 .. nworkers */
    pthread_t tids[FMAG_BATCH_MAX_THREADS];
    struct worker_arg {
        fmag_vm_engine *e;
        unsigned id;
    } args[FMAG_BATCH_MAX_THREADS];
    scratch scr[FMAG_BATCH_MAX_THREADS];
};

unsigned fmag_vm_hardware_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) return 1;
    return n > (long)FMAG_BATCH_MAX_THREADS ? FMAG_BATCH_MAX_THREADS : (unsigned)n;
}

const char *fmag_vm_batch_isa(void)
{
    fmag_batch_isa isa = {0};
    return fmag_batch_isa_for(FMAG_VM_ISA_AUTO, &isa) ? isa.name : "generic";
}

/* ---- decoding ---------------------------------------------------------------------- */

static uint32_t block_lanes(const fmag_vm_program *p, unsigned lanes_opt)
{
    if (lanes_opt) {
        uint32_t l = (lanes_opt + FMAG_BATCH_VW - 1) / FMAG_BATCH_VW * FMAG_BATCH_VW;
        return l > FMAG_VM_LANES ? FMAG_VM_LANES : l;
    }
    uint32_t regs = p->regs ? p->regs : 1, l = FMAG_BATCH_LANES;
    while (l > FMAG_BATCH_MIN_LANES && (size_t)regs * l * sizeof(float) > FMAG_BATCH_REGFILE_BUDGET)
        l /= 2;
    return l;
}

/* A literal guard <= 0 never fires (a literal is never NaN), so such instructions vanish;
 * a literal guard > 0 always fires. Also finds the registers that must start at +0: those
 * some instruction (or the output copy) reads before anything writes them for certain. */
static bool decode_program(const fmag_vm_program *p, uint32_t lanes, bprog *bp)
{
    memset(bp, 0, sizeof *bp);
    bp->p = p;
    bp->lanes = lanes;
    bp->ins = p->ninstr ? malloc((size_t)p->ninstr * sizeof(fmag_batch_rec)) : NULL;
    unsigned char *state = calloc(p->regs ? p->regs : 1, 1); /* 1 written, 2 needs zero */
    if ((p->ninstr && !bp->ins) || !state) {
        free(state);
        return false;
    }
    for (uint32_t r = 0; r < p->nin; r++)
        state[r] = 1;
#define READ(r)                                                                                    \
    do {                                                                                           \
        if (!state[r]) state[r] = 2;                                                               \
    } while (0)
    for (uint32_t i = 0; i < p->ninstr; i++) {
        fmag_vm_decoded x;
        fmag_vm_decode(p->code[i], &x);
        fmag_batch_rec di = {.d = x.d * lanes, .a = x.a * lanes};
        if (!x.g.is_reg) {
            if (!(x.g.imm > 0.0f)) continue;
            di.kind |= FMAG_BK_G_ALWAYS;
        } else {
            di.g = x.g.reg * lanes;
            READ(x.g.reg);
            READ(x.d); /* a false guard keeps d */
        }
        READ(x.a);
        if (x.b.is_reg) {
            di.b = x.b.reg * lanes;
            READ(x.b.reg);
        } else {
            di.kind |= FMAG_BK_B_IMM;
            di.bi = x.b.imm;
        }
        if (x.c.is_reg) {
            di.c = x.c.reg * lanes;
            READ(x.c.reg);
        } else {
            di.kind |= FMAG_BK_C_IMM;
            di.ci = x.c.imm;
        }
        if (!state[x.d]) state[x.d] = 1;
        bp->ins[bp->n++] = di;
    }
    for (uint32_t r = 0; r < p->nout; r++)
        READ(r);
#undef READ
    uint32_t nz = 0;
    for (uint32_t r = 0; r < p->regs; r++)
        nz += state[r] == 2;
    bp->zero_rows = malloc((nz ? nz : 1) * sizeof(uint32_t));
    if (!bp->zero_rows) {
        free(state);
        return false;
    }
    for (uint32_t r = 0; r < p->regs; r++)
        if (state[r] == 2) bp->zero_rows[bp->nzero++] = r;
    free(state);
    return true;
}

/* ---- running blocks ------------------------------------------------------------------ */

static void run_item(const fmag_vm_engine *e, const job *j, size_t item, float *R)
{
    size_t lo = 0, hi = j->nsegs;
    while (hi - lo > 1) { /* the segment holding this block */
        size_t mid = (lo + hi) / 2;
        if (j->segs[mid].first_item <= item)
            lo = mid;
        else
            hi = mid;
    }
    const segment *s = &j->segs[lo];
    const bprog *bp = &j->progs[s->prog];
    const fmag_vm_program *p = bp->p;
    const uint32_t L = bp->lanes;
    size_t pos = s->begin + (item - s->first_item) * L;
    uint32_t count = (uint32_t)(s->end - pos < L ? s->end - pos : L);
    /* Lanes past count compute on zeros and are never copied out; the loop only covers
     * whole vectors, so a small group of elements costs little more than its size. */
    uint32_t nl = (count + FMAG_BATCH_VW - 1) / FMAG_BATCH_VW * FMAG_BATCH_VW;
    for (uint32_t z = 0; z < bp->nzero; z++)
        memset(R + (size_t)bp->zero_rows[z] * L, 0, nl * sizeof(float));
    /* Elements at base + (elems ? elems[k] : k): a per-lane block's elements lie in its
     * window, the permutation holding their offsets from the window's first. */
    size_t base = j->perm ? pos / FMAG_BATCH_WINDOW * FMAG_BATCH_WINDOW : pos;
    const uint32_t *elems = j->perm ? j->perm + pos : NULL;
    if (j->in_cols) {
        for (uint32_t r = 0; r < p->nin; r++)
            memcpy(R + (size_t)r * L, j->in_cols[r] + pos, count * sizeof(float));
    } else {
        j->load(R, L, (float *)(j->in + base * j->in_stride), j->in_stride, p->nin, count, elems);
    }
    if (count < nl)
        for (uint32_t r = 0; r < p->nin; r++)
            memset(R + (size_t)r * L + count, 0, (nl - count) * sizeof(float));
    e->isa.run(bp->ins, bp->n, R, nl);
    if (j->out_cols) {
        for (uint32_t r = 0; r < p->nout; r++)
            memcpy(j->out_cols[r] + pos, R + (size_t)r * L, count * sizeof(float));
    } else {
        j->store(R, L, j->out + base * j->out_stride, j->out_stride, p->nout, count, elems);
    }
}

static void work(fmag_vm_engine *e, job *j, unsigned id)
{
    scratch *s = &e->scr[id];
    if (s->cap < j->regfile) {
        free(s->R);
        s->R = aligned_alloc(64, (j->regfile * sizeof(float) + 63) / 64 * 64);
        s->cap = s->R ? j->regfile : 0;
        if (!s->R) {
            atomic_store(&j->failed, true);
            return;
        }
    }
    unsigned saved = mxcsr_enter();
    for (;;) {
        size_t item = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (item >= j->nitems) break;
        run_item(e, j, item, s->R);
    }
    mxcsr_leave(saved);
}

static void *worker_main(void *arg)
{
    struct worker_arg *wa = arg;
    fmag_vm_engine *e = wa->e;
    unsigned long seen = 0;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->quit && e->gen == seen)
            pthread_cond_wait(&e->wake, &e->mu);
        if (e->quit) break;
        seen = e->gen;
        job *j = e->cur;
        pthread_mutex_unlock(&e->mu);
        if (wa->id < j->want) work(e, j, wa->id);
        pthread_mutex_lock(&e->mu);
        if (--e->pending == 0) pthread_cond_signal(&e->idle);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- the engine ---------------------------------------------------------------------- */

fmag_vm_engine *fmag_vm_engine_create(const fmag_vm_engine_options *opt, char *err, size_t errlen)
{
    fmag_vm_engine_options o = {0, FMAG_VM_ISA_AUTO, 0};
    if (opt) o = *opt;
    fmag_batch_isa isa;
    if (!fmag_batch_isa_for(o.isa, &isa)) {
        snprintf(err, errlen, "this CPU (or this build) cannot run the %s batch kernel",
                 o.isa == FMAG_VM_ISA_AVX512 ? "AVX-512" : "AVX2+FMA");
        return NULL;
    }
    fmag_vm_engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    e->isa = isa;
    e->lanes_opt = o.lanes;
    e->nthreads = o.nthreads ? o.nthreads : fmag_vm_hardware_threads();
    if (e->nthreads > FMAG_BATCH_MAX_THREADS) e->nthreads = FMAG_BATCH_MAX_THREADS;
    pthread_mutex_init(&e->call_mu, NULL);
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->wake, NULL);
    pthread_cond_init(&e->idle, NULL);
    /* A thread that cannot be started leaves the pool smaller, not broken. */
    for (unsigned t = 1; t < e->nthreads; t++) {
        e->args[t] = (struct worker_arg){e, t};
        if (pthread_create(&e->tids[t], NULL, worker_main, &e->args[t]) != 0) break;
        e->nworkers = t;
    }
    e->nthreads = e->nworkers + 1;
    return e;
}

void fmag_vm_engine_destroy(fmag_vm_engine *e)
{
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    e->quit = true;
    pthread_cond_broadcast(&e->wake);
    pthread_mutex_unlock(&e->mu);
    for (unsigned t = 1; t <= e->nworkers; t++)
        pthread_join(e->tids[t], NULL);
    for (unsigned t = 0; t < FMAG_BATCH_MAX_THREADS; t++)
        free(e->scr[t].R);
    pthread_cond_destroy(&e->wake);
    pthread_cond_destroy(&e->idle);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->call_mu);
    free(e);
}

const char *fmag_vm_engine_isa(const fmag_vm_engine *e)
{
    return e->isa.name;
}
unsigned fmag_vm_engine_block_lanes(const fmag_vm_engine *e, const fmag_vm_program *p)
{
    return block_lanes(p, e->lanes_opt);
}
unsigned fmag_vm_engine_threads(const fmag_vm_engine *e)
{
    return e->nthreads;
}

/* Runs the job on `want` threads, the caller being thread 0. */
static void dispatch(fmag_vm_engine *e, job *j)
{
    if (j->want <= 1 || e->nworkers == 0) {
        work(e, j, 0);
        return;
    }
    pthread_mutex_lock(&e->mu);
    e->cur = j;
    e->pending = e->nworkers;
    e->gen++;
    pthread_cond_broadcast(&e->wake);
    pthread_mutex_unlock(&e->mu);
    work(e, j, 0);
    pthread_mutex_lock(&e->mu);
    while (e->pending)
        pthread_cond_wait(&e->idle, &e->mu);
    e->cur = NULL;
    pthread_mutex_unlock(&e->mu);
}

/* Below this much work (element-instructions) per thread, waking another thread costs
 * more than it saves. */
#define FMAG_BATCH_WORK_PER_THREAD 100000u

static bool engine_run(fmag_vm_engine *e, const fmag_vm_program *const *progs, size_t nprogs,
                       const uint32_t *prog_index, const float *in, size_t in_stride, float *out,
                       size_t out_stride, const float *const *in_cols, float *const *out_cols,
                       size_t n, char *err, size_t errlen)
{
    if (n == 0) return true;
    if (nprogs == 0 || nprogs > UINT32_MAX) {
        snprintf(err, errlen, "per-lane run needs 1 to 2^32-1 programs, got %zu", nprogs);
        return false;
    }
    if (prog_index && nprogs > 1 && n > UINT32_MAX) {
        snprintf(err, errlen, "per-lane run of more than 2^32 elements is not supported");
        return false;
    }
    size_t *count = calloc(nprogs + 1, sizeof(size_t));
    bprog *bps = calloc(nprogs, sizeof(bprog));
    unsigned char *used = calloc(nprogs, 1);
    segment *segs = NULL;
    uint32_t *perm = NULL;
    bool ok = false;
    if (!count || !bps || !used) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    /* The checks every per-lane engine makes (the programs some element uses, validated). */
    if (!fmag_vm_check_lane_args(progs, nprogs, prog_index, in_stride, out_stride, n, true, used,
                                 err, errlen))
        goto done;
    for (size_t k = 0; k < n; k++)
        count[(prog_index ? prog_index[k] : 0) + 1]++;
    size_t regfile = 1, nused = 0, nitems = 0, work_total = 0;
    for (size_t i = 0; i < nprogs; i++) {
        if (!count[i + 1]) continue;
        const fmag_vm_program *p = progs[i];
        if (!decode_program(p, block_lanes(p, e->lanes_opt), &bps[i])) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
        size_t rf = (size_t)(p->regs ? p->regs : 1) * bps[i].lanes;
        if (rf > regfile) regfile = rf;
        nused++;
        nitems += (count[i + 1] + bps[i].lanes - 1) / bps[i].lanes;
        work_total += count[i + 1] * (size_t)(bps[i].n + p->nin + p->nout + 1);
    }
    /* Group elements by program (a stable counting sort) so that every block runs one
     * program: the SIMD loops never diverge. The sort is done per window of
     * FMAG_BATCH_WINDOW elements, so a window's input and output rows are read from
     * memory once and stay in the L2 cache while each of its programs runs over them
     * (sorted over the whole run, every program would stream through all the rows). */
    size_t ns = 0, first = 0;
    if (nused == 1) {
        segs = malloc(sizeof(segment));
        if (!segs) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < nprogs; i++)
            if (count[i + 1]) segs[ns++] = (segment){(uint32_t)i, 0, n, 0};
    } else {
        size_t nwin = (n + FMAG_BATCH_WINDOW - 1) / FMAG_BATCH_WINDOW;
        size_t maxsegs = nwin * nused < n ? nwin * nused : n;
        uint32_t *ulist = malloc(nused * sizeof(uint32_t));
        size_t *wc = calloc(nprogs, sizeof(size_t));
        perm = malloc(n * sizeof(uint32_t));
        segs = malloc(maxsegs * sizeof(segment));
        if (!ulist || !wc || !perm || !segs) {
            free(ulist);
            free(wc);
            snprintf(err, errlen, "out of memory");
            goto done;
        }
        size_t nu = 0;
        for (size_t i = 0; i < nprogs; i++)
            if (count[i + 1]) ulist[nu++] = (uint32_t)i;
        for (size_t w0 = 0; w0 < n; w0 += FMAG_BATCH_WINDOW) {
            size_t w1 = n - w0 < FMAG_BATCH_WINDOW ? n : w0 + FMAG_BATCH_WINDOW;
            for (size_t k = w0; k < w1; k++)
                wc[prog_index[k]]++;
            size_t pos = w0;
            for (size_t u = 0; u < nu; u++) {
                uint32_t pi = ulist[u];
                size_t c = wc[pi];
                if (!c) continue;
                segs[ns++] = (segment){pi, pos, pos + c, first};
                first += (c + bps[pi].lanes - 1) / bps[pi].lanes;
                wc[pi] = pos; /* from here on: the next free position of program pi */
                pos += c;
            }
            for (size_t k = w0; k < w1; k++)
                perm[wc[prog_index[k]]++] = (uint32_t)(k - w0);
            for (size_t u = 0; u < nu; u++)
                wc[ulist[u]] = 0;
        }
        nitems = first;
        free(ulist);
        free(wc);
    }
    job j = {.progs = bps,
             .segs = segs,
             .nsegs = ns,
             .nitems = nitems,
             .perm = perm,
             .in = in,
             .in_stride = in_stride,
             .out = out,
             .out_stride = out_stride,
             .in_cols = in_cols,
             .out_cols = out_cols,
             .load = e->isa.load,
             .store = e->isa.store,
             .regfile = regfile};
    /* The SIMD moves index with 32-bit offsets: element offsets within a block (or a
     * window) times the stride. */
    size_t span = perm ? FMAG_BATCH_WINDOW : FMAG_VM_LANES, wide = (size_t)1 << 31;
    if (in_stride >= wide / span || out_stride >= wide / span) {
        fmag_batch_isa generic;
        fmag_batch_isa_for(FMAG_VM_ISA_GENERIC, &generic);
        j.load = generic.load;
        j.store = generic.store;
    }
    atomic_init(&j.next, 0);
    atomic_init(&j.failed, false);
    size_t want = work_total / FMAG_BATCH_WORK_PER_THREAD;
    if (want > nitems) want = nitems;
    if (want > e->nthreads) want = e->nthreads;
    j.want = want ? (unsigned)want : 1u;
    dispatch(e, &j);
    ok = !atomic_load(&j.failed);
    if (!ok) snprintf(err, errlen, "out of memory for the register file");
done:
    if (bps)
        for (size_t i = 0; i < nprogs; i++) {
            free(bps[i].ins);
            free(bps[i].zero_rows);
        }
    free(bps);
    free(count);
    free(used);
    free(segs);
    free(perm);
    return ok;
}

bool fmag_vm_engine_run(fmag_vm_engine *e, const fmag_vm_program *const *progs, size_t nprogs,
                        const uint32_t *prog_index, const float *in, size_t in_stride, float *out,
                        size_t out_stride, size_t n, char *err, size_t errlen)
{
    pthread_mutex_lock(&e->call_mu);
    /* The caller's thread too: pre-decoding compares literal guards (a denormal guard is
     * > 0 only without denormals-are-zero). */
    unsigned saved = mxcsr_enter();
    bool ok = engine_run(e, progs, nprogs, prog_index, in, in_stride, out, out_stride, NULL, NULL,
                         n, err, errlen);
    mxcsr_leave(saved);
    pthread_mutex_unlock(&e->call_mu);
    return ok;
}

bool fmag_vm_engine_run_columns(fmag_vm_engine *e, const fmag_vm_program *p, const float *const *in,
                                float *const *out, size_t n, char *err, size_t errlen)
{
    if (n && ((p && p->nin && !in) || (p && p->nout && !out))) {
        snprintf(err, errlen, "column run without %s columns", in ? "output" : "input");
        return false;
    }
    pthread_mutex_lock(&e->call_mu);
    unsigned saved = mxcsr_enter();
    bool ok = engine_run(e, &p, 1, NULL, NULL, p ? p->nin : 0, NULL, p ? p->nout : 0, in, out, n,
                         err, errlen);
    mxcsr_leave(saved);
    pthread_mutex_unlock(&e->call_mu);
    return ok;
}

/* ---- one-shot calls -------------------------------------------------------------------- */

bool fmag_vm_run_per_lane_threads(const fmag_vm_program *const *progs, size_t nprogs,
                                  const uint32_t *prog_index, const float *in, size_t in_stride,
                                  float *out, size_t out_stride, size_t n, unsigned nthreads,
                                  char *err, size_t errlen)
{
    if (n == 0) return true;
    /* A thread pays for itself only with a few blocks of work; a small call never asks
     * the system how many CPUs it has (a sysfs read on Linux, per call). */
    size_t blocks = (n + 63) / 64;
    unsigned most = blocks / 4 > FMAG_BATCH_MAX_THREADS ? FMAG_BATCH_MAX_THREADS
                    : blocks / 4                        ? (unsigned)(blocks / 4)
                                                        : 1u;
    if (nthreads == 0) nthreads = most == 1 ? 1 : fmag_vm_hardware_threads();
    if (nthreads > most) nthreads = most;
    fmag_vm_engine_options o = {nthreads, FMAG_VM_ISA_AUTO, 0};
    fmag_vm_engine *e = fmag_vm_engine_create(&o, err, errlen);
    if (!e) return false;
    bool ok = engine_run(e, progs, nprogs, prog_index, in, in_stride, out, out_stride, NULL, NULL,
                         n, err, errlen);
    fmag_vm_engine_destroy(e);
    return ok;
}

bool fmag_vm_run_per_lane(const fmag_vm_program *const *progs, size_t nprogs,
                          const uint32_t *prog_index, const float *in, size_t in_stride, float *out,
                          size_t out_stride, size_t n, char *err, size_t errlen)
{
    return fmag_vm_run_per_lane_threads(progs, nprogs, prog_index, in, in_stride, out, out_stride,
                                        n, 0, err, errlen);
}

bool fmag_vm_run_batch(const fmag_vm_program *p, const float *in, float *out, size_t n, char *err,
                       size_t errlen)
{
    return fmag_vm_run_per_lane_threads(&p, 1, NULL, in, p->nin, out, p->nout, n, 0, err, errlen);
}
