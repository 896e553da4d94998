/* The batch CPU engine: many elements at once, bit-identical to the reference
 * interpreter. Elements are grouped by program, then run in blocks of
 * FMAG_VM_LANES lanes over a structure-of-arrays register file (row r holds
 * register r of every lane), so each decoded instruction becomes one short
 * branch-free loop the compiler vectorizes; blocks are split across threads. */
#define _POSIX_C_SOURCE 200809L
#include "VMInternal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LANES FMAG_VM_LANES

/* Operand kinds, decided once per instruction when the program is decoded. */
enum {
    K_B_IMM = 1,    /* b is a literal */
    K_C_IMM = 2,    /* c is a literal */
    K_G_ALWAYS = 4, /* the guard is a literal > 0: an unconditional write */
};

typedef struct dec_instr {
    uint32_t d, a, b, c, g; /* register rows (b, c, g only when not literal) */
    float bi, ci;
    uint32_t kind;
} dec_instr;

typedef struct dec_prog {
    const fmag_vm_program *p;
    dec_instr *ins;
    uint32_t n;
} dec_prog;

typedef struct engine {
    const dec_prog *progs;
    const uint32_t *prog_index; /* NULL: every element runs program 0 */
    const uint32_t *perm;       /* NULL: identity */
    const float *in;
    size_t in_stride;
    float *out;
    size_t out_stride;
    uint32_t max_regs;
} engine;

/* A literal guard <= 0 never fires (a literal is never NaN), so such
 * instructions vanish; a literal guard > 0 always fires. */
static bool decode_program(const fmag_vm_program *p, dec_prog *dp)
{
    dp->p = p;
    dp->n = 0;
    dp->ins = p->ninstr ? malloc((size_t)p->ninstr * sizeof(dec_instr)) : NULL;
    if (p->ninstr && !dp->ins) return false;
    for (uint32_t i = 0; i < p->ninstr; i++) {
        fmag_vm_decoded x;
        fmag_vm_decode(p->code[i], &x);
        dec_instr di = {.d = x.d, .a = x.a};
        if (!x.g.is_reg) {
            if (!(x.g.imm > 0.0f)) continue;
            di.kind |= K_G_ALWAYS;
        } else {
            di.g = x.g.reg;
        }
        if (x.b.is_reg)
            di.b = x.b.reg;
        else {
            di.kind |= K_B_IMM;
            di.bi = x.b.imm;
        }
        if (x.c.is_reg)
            di.c = x.c.reg;
        else {
            di.kind |= K_C_IMM;
            di.ci = x.c.imm;
        }
        dp->ins[dp->n++] = di;
    }
    return true;
}

static inline float canonical_nan(void)
{
    uint32_t w = FMAG_VM_CANONICAL_NAN;
    float f;
    memcpy(&f, &w, sizeof f);
    return f;
}

/* One decoded instruction over all lanes. The result goes through a local array
 * because d may equal a, b, c or g: the compiler then needs no alias checks. */
#define KLOOP(BV, CV, SEL)                                                                         \
    for (int k = 0; k < LANES; k++) {                                                              \
        float f_ = fmaf(ra[k], BV, CV);                                                            \
        f_ = f_ != f_ ? qnan : f_; /* the canonical NaN, as the reference */                       \
        t[k] = SEL;                                                                                \
    }

#define EXEC_BODY                                                                                  \
    for (uint32_t i = 0; i < n; i++) {                                                             \
        const dec_instr *x = &ins[i];                                                              \
        float t[LANES];                                                                            \
        float *rd = R + (size_t)x->d * LANES;                                                      \
        const float *ra = R + (size_t)x->a * LANES;                                                \
        const float *rb = R + (size_t)x->b * LANES;                                                \
        const float *rc = R + (size_t)x->c * LANES;                                                \
        const float *rg = R + (size_t)x->g * LANES;                                                \
        const float bi = x->bi, ci = x->ci;                                                        \
        const float qnan = canonical_nan();                                                        \
        switch (x->kind) {                                                                         \
        case 0:                                                                                    \
            KLOOP(rb[k], rc[k], rg[k] > 0.0f ? f_ : rd[k]);                                        \
            break;                                                                                 \
        case K_B_IMM:                                                                              \
            KLOOP(bi, rc[k], rg[k] > 0.0f ? f_ : rd[k]);                                           \
            break;                                                                                 \
        case K_C_IMM:                                                                              \
            KLOOP(rb[k], ci, rg[k] > 0.0f ? f_ : rd[k]);                                           \
            break;                                                                                 \
        case K_B_IMM | K_C_IMM:                                                                    \
            KLOOP(bi, ci, rg[k] > 0.0f ? f_ : rd[k]);                                              \
            break;                                                                                 \
        case K_G_ALWAYS:                                                                           \
            KLOOP(rb[k], rc[k], f_);                                                               \
            break;                                                                                 \
        case K_G_ALWAYS | K_B_IMM:                                                                 \
            KLOOP(bi, rc[k], f_);                                                                  \
            break;                                                                                 \
        case K_G_ALWAYS | K_C_IMM:                                                                 \
            KLOOP(rb[k], ci, f_);                                                                  \
            break;                                                                                 \
        default:                                                                                   \
            KLOOP(bi, ci, f_);                                                                     \
            break;                                                                                 \
        }                                                                                          \
        memcpy(rd, t, sizeof t);                                                                   \
    }

static void exec_generic(const dec_instr *ins, uint32_t n, float *R)
{
    EXEC_BODY
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define FMAG_VM_HAVE_AVX2 1
/* Without a hardware fma, fmaf is a library call per lane; with it (and AVX2) the
 * loops above become vfmadd over 8 lanes. Both are exactly fmaf. */
__attribute__((target("avx2,fma"))) static void exec_avx2(const dec_instr *ins, uint32_t n,
                                                          float *R)
{
    EXEC_BODY
}
#endif

typedef void (*exec_fn)(const dec_instr *, uint32_t, float *);

static exec_fn pick_exec(void)
{
#ifdef FMAG_VM_HAVE_AVX2
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return exec_avx2;
#endif
    return exec_generic;
}

const char *fmag_vm_batch_isa(void)
{
    return pick_exec() == exec_generic ? "generic" : "avx2+fma";
}

typedef struct worker {
    const engine *e;
    size_t begin, end; /* positions in the (permuted) element order */
    bool ok;
} worker;

static void run_range(worker *w)
{
    const engine *e = w->e;
    exec_fn exec = pick_exec();
    float *R = aligned_alloc(64, (size_t)(e->max_regs ? e->max_regs : 1) * LANES * sizeof(float));
    if (!R) {
        w->ok = false;
        return;
    }
    size_t elem[LANES];
    size_t pos = w->begin;
    while (pos < w->end) {
        size_t first = e->perm ? e->perm[pos] : pos;
        uint32_t pi = e->prog_index ? e->prog_index[first] : 0;
        const dec_prog *dp = &e->progs[pi];
        const fmag_vm_program *p = dp->p;
        unsigned lanes = 0;
        while (pos < w->end && lanes < LANES) {
            size_t el = e->perm ? e->perm[pos] : pos;
            if ((e->prog_index ? e->prog_index[el] : 0) != pi) break;
            elem[lanes++] = el;
            pos++;
        }
        memset(R, 0, (size_t)p->regs * LANES * sizeof(float));
        for (unsigned j = 0; j < lanes; j++) {
            const float *src = e->in + elem[j] * e->in_stride;
            for (uint32_t r = 0; r < p->nin; r++)
                R[(size_t)r * LANES + j] = src[r];
        }
        exec(dp->ins, dp->n, R);
        for (unsigned j = 0; j < lanes; j++) {
            float *dst = e->out + elem[j] * e->out_stride;
            for (uint32_t r = 0; r < p->nout; r++)
                dst[r] = R[(size_t)r * LANES + j];
        }
    }
    free(R);
    w->ok = true;
}

static void *worker_main(void *arg)
{
    run_range(arg);
    return NULL;
}

unsigned fmag_vm_hardware_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) return 1;
    return n > 256 ? 256u : (unsigned)n;
}

bool fmag_vm_run_per_lane_threads(const fmag_vm_program *const *progs, size_t nprogs,
                                  const uint32_t *prog_index, const float *in, size_t in_stride,
                                  float *out, size_t out_stride, size_t n, unsigned nthreads,
                                  char *err, size_t errlen)
{
    if (n == 0) return true;
    if (nprogs == 0 || nprogs > UINT32_MAX) {
        snprintf(err, errlen, "per-lane run needs 1 to 2^32-1 programs, got %zu", nprogs);
        return false;
    }
    /* Which programs are used, and that every index names one. */
    unsigned char *used = calloc(nprogs, 1);
    size_t *count = calloc(nprogs + 1, sizeof(size_t));
    dec_prog *dps = calloc(nprogs, sizeof(dec_prog));
    uint32_t *perm = NULL;
    bool ok = false;
    if (!used || !count || !dps) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < n; k++) {
        uint32_t pi = prog_index ? prog_index[k] : 0;
        if (pi >= nprogs) {
            snprintf(err, errlen, "element %zu: program index %u out of range (%zu programs)", k,
                     (unsigned)pi, nprogs);
            goto done;
        }
        used[pi] = 1;
        count[pi + 1]++;
    }
    uint32_t max_regs = 0;
    for (size_t i = 0; i < nprogs; i++) {
        if (!used[i]) continue;
        const fmag_vm_program *p = progs[i];
        char why[200];
        if (!p) {
            snprintf(err, errlen, "program %zu is NULL", i);
            goto done;
        }
        if (!fmag_vm_program_validate(p, why, sizeof why)) {
            snprintf(err, errlen, "program %zu '%s': %s", i, p->name ? p->name : "", why);
            goto done;
        }
        if (p->nin > in_stride || p->nout > out_stride) {
            snprintf(err, errlen,
                     "program %zu '%s' has %u inputs and %u outputs; strides are %zu and %zu", i,
                     p->name ? p->name : "", (unsigned)p->nin, (unsigned)p->nout, in_stride,
                     out_stride);
            goto done;
        }
        if (!decode_program(p, &dps[i])) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
        if (p->regs > max_regs) max_regs = p->regs;
    }
    /* Group elements by program (a stable counting sort) so that every block of
     * lanes runs one program: the SIMD loops then never diverge. */
    if (prog_index && nprogs > 1 && n <= UINT32_MAX) {
        perm = malloc(n * sizeof(uint32_t));
        if (!perm) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
        for (size_t i = 1; i <= nprogs; i++)
            count[i] += count[i - 1];
        for (size_t k = 0; k < n; k++)
            perm[count[prog_index[k]]++] = (uint32_t)k;
    } else if (prog_index && nprogs > 1) {
        snprintf(err, errlen, "per-lane run of more than 2^32 elements is not supported");
        goto done;
    }
    engine e = {dps,     nprogs > 1 ? prog_index : NULL, perm, in, in_stride, out, out_stride,
                max_regs};
    if (nthreads == 0) nthreads = fmag_vm_hardware_threads();
    /* A thread pays for itself only with a few blocks of work. */
    size_t blocks = (n + LANES - 1) / LANES;
    if (nthreads > blocks / 4) nthreads = (unsigned)(blocks / 4 ? blocks / 4 : 1);
    worker ws[256];
    pthread_t tids[256];
    bool started[256] = {0};
    if (nthreads > 256) nthreads = 256;
    size_t per = (blocks + nthreads - 1) / nthreads * LANES;
    for (unsigned t = 0; t < nthreads; t++) {
        size_t b = (size_t)t * per, en = b + per;
        ws[t] = (worker){&e, b < n ? b : n, en < n ? en : n, false};
    }
    for (unsigned t = 1; t < nthreads; t++)
        started[t] = pthread_create(&tids[t], NULL, worker_main, &ws[t]) == 0;
    run_range(&ws[0]);
    ok = ws[0].ok;
    for (unsigned t = 1; t < nthreads; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            run_range(&ws[t]); /* no thread: do its share here */
        ok = ok && ws[t].ok;
    }
    if (!ok) snprintf(err, errlen, "out of memory for the register file");
done:
    if (dps)
        for (size_t i = 0; i < nprogs; i++)
            free(dps[i].ins);
    free(dps);
    free(used);
    free(count);
    free(perm);
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
