/* Search 2: STOKE-style stochastic search. A Markov chain over programs of at most
 * the seed's length: each step proposes one random rewrite (change an operand,
 * switch a slot between register and literal, replace an instruction, insert,
 * delete, swap two), scores it with cost = error on the test vectors + length, and
 * accepts it by the Metropolis rule. A proposal that matches every vector and is
 * shorter than the best so far goes through a quick random check and then the
 * proof; a counterexample joins the vectors. Since only proven programs shorter
 * than the seed are reported, starting from the compiler's output it can only
 * improve on it.
 */
#include "SearchInternal.h"
#include "fmag/Bits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BETA 1.0
#define QUICK_SAMPLES 4096

typedef struct chain {
    unsigned L, R, nin, n;
    bool used[FMAG_SUPEROPT_MAX_LEN];
    fmag_vm_decoded code[FMAG_SUPEROPT_MAX_LEN];
} chain;

typedef struct ctx {
    const fmag_superopt_target *t;
    so_vectors vec;
    float pool[FMAG_SUPEROPT_MAX_POOL * 2];
    unsigned npool;
    uint64_t rng;
} ctx;

static unsigned chain_len(const chain *c)
{
    unsigned n = 0;
    for (unsigned i = 0; i < c->L; i++)
        n += c->used[i];
    return n;
}

static void chain_to_program(const chain *c, fmag_superopt_program *p)
{
    memset(p, 0, sizeof *p);
    p->nin = c->nin;
    for (unsigned i = 0; i < c->L; i++)
        if (c->used[i]) p->code[p->len++] = c->code[i];
    p->regs = fmag_superopt_program_regs_used(p);
}

/* ulp distance as a bounded error: 1 for any mismatch, up to 5 for a far one */
static double lane_error(float got, float want)
{
    if (got == want) return 0.0;
    if (got != got) return 5.0;
    int32_t a = (int32_t)fmag_bits_of(got), b = (int32_t)fmag_bits_of(want);
    int64_t ia = a < 0 ? (int64_t)INT32_MIN - a : a;
    int64_t ib = b < 0 ? (int64_t)INT32_MIN - b : b;
    double d = (double)(ia > ib ? ia - ib : ib - ia);
    return 1.0 + log2(1.0 + d) / 8.0;
}

static double eval_error(const ctx *x, const chain *c)
{
    unsigned n = x->vec.n;
    float r[FMAG_SUPEROPT_MAX_REGS][SO_NV];
    float lit[3][SO_NV];
    for (unsigned k = 0; k < c->R; k++)
        for (unsigned i = 0; i < n; i++)
            r[k][i] = k < c->nin ? x->vec.in[k][i] : 0.0f;
    for (unsigned s = 0; s < c->L; s++) {
        if (!c->used[s]) continue;
        const fmag_vm_decoded *ins = &c->code[s];
        const fmag_vm_operand *ops[3] = {&ins->b, &ins->c, &ins->g};
        const float *p[3];
        for (int k = 0; k < 3; k++) {
            if (ops[k]->is_reg) {
                p[k] = r[ops[k]->reg];
            } else {
                for (unsigned i = 0; i < n; i++)
                    lit[k][i] = ops[k]->imm;
                p[k] = lit[k];
            }
        }
        float *o = r[ins->d];
        const float *a = r[ins->a];
        for (unsigned i = 0; i < n; i++)
            o[i] = p[2][i] > 0.0f ? fmaf(a[i], p[0][i], p[1][i]) : o[i];
    }
    double e = 0.0;
    for (unsigned i = 0; i < n; i++)
        e += lane_error(r[0][i], x->vec.want[i]);
    return e;
}

static unsigned rnd(ctx *x, unsigned n)
{
    return (unsigned)(so_splitmix(&x->rng) % n);
}

static fmag_vm_operand random_operand(ctx *x, unsigned R, bool guard)
{
    fmag_vm_operand o = {false, 0, 0.0f};
    if (rnd(x, 2)) {
        o.is_reg = true;
        o.reg = (uint16_t)rnd(x, R);
    } else {
        o.imm = guard ? 1.0f : x->pool[rnd(x, x->npool)];
    }
    return o;
}

static void random_instr(ctx *x, unsigned R, fmag_vm_decoded *ins)
{
    ins->d = (uint16_t)rnd(x, R);
    ins->a = (uint16_t)rnd(x, R);
    ins->b = random_operand(x, R, false);
    ins->c = random_operand(x, R, false);
    ins->g = random_operand(x, R, true);
}

static void mutate(ctx *x, chain *c)
{
    unsigned s = rnd(x, c->L);
    switch (rnd(x, 6)) {
    case 0: /* change one operand of a used instruction */
    case 1: {
        if (!c->used[s]) {
            random_instr(x, c->R, &c->code[s]);
            c->used[s] = true;
            break;
        }
        fmag_vm_decoded *ins = &c->code[s];
        switch (rnd(x, 5)) {
        case 0:
            ins->d = (uint16_t)rnd(x, c->R);
            break;
        case 1:
            ins->a = (uint16_t)rnd(x, c->R);
            break;
        case 2:
            ins->b = random_operand(x, c->R, false);
            break;
        case 3:
            ins->c = random_operand(x, c->R, false);
            break;
        default:
            ins->g = random_operand(x, c->R, true);
            break;
        }
        break;
    }
    case 2: /* replace or insert */
        random_instr(x, c->R, &c->code[s]);
        c->used[s] = true;
        break;
    case 3: /* delete */
        c->used[s] = false;
        break;
    case 4: { /* swap */
        unsigned u = rnd(x, c->L);
        bool ub = c->used[s];
        fmag_vm_decoded ui = c->code[s];
        c->used[s] = c->used[u];
        c->code[s] = c->code[u];
        c->used[u] = ub;
        c->code[u] = ui;
        break;
    }
    default: /* flip a multiplier operand between a register and a literal */
        if (c->used[s]) {
            fmag_vm_decoded *ins = &c->code[s];
            fmag_vm_operand *o = rnd(x, 2) ? &ins->b : &ins->c;
            *o = random_operand(x, c->R, false);
        }
        break;
    }
}

/* Random inputs beyond the vectors: most wrong candidates fail here, cheaply. */
static bool quick_check(ctx *x, const fmag_superopt_program *p, float *cex)
{
    uint64_t rng = x->rng ^ 0xABCDEF;
    for (unsigned k = 0; k < QUICK_SAMPLES; k++) {
        float in[2];
        for (unsigned j = 0; j < 2; j++) {
            uint32_t u = (uint32_t)so_splitmix(&rng);
            if (k & 1) u = (u & 0x807FFFFFu) | ((uint32_t)(112 + (u >> 23) % 30) << 23);
            if ((u & 0x7F800000u) == 0x7F800000u) u ^= 0x40000000u;
            in[j] = fmag_float_of(u);
        }
        if (k % 7 == 0 && x->t->nin > 1) in[1] = in[0];
        float want;
        if (!fmag_superopt_target_eval(x->t, in, &want)) continue;
        float got = fmag_superopt_program_run(p, in);
        if (!(got == want)) {
            cex[0] = in[0];
            cex[1] = in[1];
            return false;
        }
    }
    return true;
}

bool fmag_superopt_stochastic(const fmag_superopt_target *t, const fmag_superopt_options *o,
                              fmag_superopt_result *r, char *err, size_t errlen)
{
    double t0 = so_now();
    memset(r, 0, sizeof *r);
    fmag_superopt_program seed;
    if (o->start) {
        seed = *o->start;
    } else if (!fmag_superopt_naive_lower(t, &seed)) {
        snprintf(err, errlen, "target too large to lower for a seed");
        return false;
    }
    if (seed.nin != t->nin) {
        snprintf(err, errlen, "seed program has %u inputs, the target %u", seed.nin, t->nin);
        return false;
    }
    ctx *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    x->t = t;
    x->rng = o->seed * 0x9E3779B97F4A7C15ull + 1;
    /* the pool plus every literal of the seed */
    if (o->pool) {
        unsigned n = o->npool > FMAG_SUPEROPT_MAX_POOL ? FMAG_SUPEROPT_MAX_POOL : o->npool;
        memcpy(x->pool, o->pool, n * sizeof(float));
        x->npool = n;
    } else {
        x->npool = fmag_superopt_default_pool(t, x->pool);
    }
    for (unsigned i = 0; i < seed.len; i++) {
        const fmag_vm_operand *ops[2] = {&seed.code[i].b, &seed.code[i].c};
        for (int k = 0; k < 2; k++) {
            if (ops[k]->is_reg || x->npool >= FMAG_SUPEROPT_MAX_POOL * 2) continue;
            bool seen = false;
            for (unsigned j = 0; j < x->npool; j++)
                seen |= fmag_bits_of(x->pool[j]) == fmag_bits_of(ops[k]->imm);
            if (!seen) x->pool[x->npool++] = ops[k]->imm;
        }
    }
    r->npool = x->npool < FMAG_SUPEROPT_MAX_POOL ? x->npool : FMAG_SUPEROPT_MAX_POOL;
    memcpy(r->pool, x->pool, r->npool * sizeof(float));
    so_vectors_init(&x->vec, t, 40, o->seed);

    chain cur;
    memset(&cur, 0, sizeof cur);
    cur.nin = t->nin;
    cur.L = o->max_len && o->max_len < seed.len ? o->max_len : seed.len;
    if (cur.L == 0) cur.L = 1;
    unsigned R = o->regs ? o->regs : fmag_superopt_program_regs_used(&seed) + 1;
    if (R > FMAG_SUPEROPT_MAX_REGS) R = FMAG_SUPEROPT_MAX_REGS;
    cur.R = R;
    for (unsigned i = 0; i < seed.len && i < cur.L; i++) {
        cur.used[i] = true;
        cur.code[i] = seed.code[i];
    }
    r->prog = seed;
    r->regs_tried = R;
    unsigned best_len = seed.len;
    double deadline = t0 + (o->time_limit > 0 ? o->time_limit : 60.0);
    double cur_cost = eval_error(x, &cur) * 1.0 + chain_len(&cur);
    chain best_chain = cur;
    uint64_t iters = 0;
    while (best_len > 1) {
        if ((iters & 1023) == 0 && so_now() > deadline) {
            r->timed_out = true;
            break;
        }
        iters++;
        /* restart from the best program now and then: the chain may drift far */
        if ((iters & 0x3FFFF) == 0)
            cur = best_chain, cur_cost = eval_error(x, &cur) + chain_len(&cur);
        chain prop = cur;
        mutate(x, &prop);
        double e = eval_error(x, &prop);
        unsigned len = chain_len(&prop);
        double cost = e + len;
        double u = (double)(so_splitmix(&x->rng) >> 11) * 0x1p-53;
        if (cost <= cur_cost || u < exp(-BETA * (cost - cur_cost))) {
            cur = prop;
            cur_cost = cost;
        }
        if (e != 0.0 || len >= best_len) continue;
        fmag_superopt_program p;
        chain_to_program(&prop, &p);
        float cex[2];
        fmag_superopt_proof proof;
        bool ok = quick_check(x, &p, cex);
        if (ok) {
            ok = fmag_superopt_prove(t, &p, o->threads, o->prove_samples, &proof);
            if (!ok) {
                cex[0] = proof.cex[0];
                cex[1] = proof.cex[1];
            }
        }
        if (ok) {
            best_len = len;
            r->prog = p;
            r->proof = proof;
            r->found = true;
            best_chain = prop;
            continue;
        }
        r->cegis_rounds++;
        if (!so_vectors_add(&x->vec, t, cex) && x->vec.n >= SO_NV) {
            /* full: replace a random random-valued vector, keeping the edge cases */
            unsigned k = SO_NV / 2 + rnd(x, SO_NV / 2);
            float in[2] = {cex[0], cex[1]}, w;
            if (fmag_superopt_target_eval(t, in, &w)) {
                x->vec.in[0][k] = in[0];
                x->vec.in[1][k] = in[1];
                x->vec.want[k] = w;
            }
        }
        cur_cost = eval_error(x, &cur) + chain_len(&cur);
    }
    r->nodes = iters;
    r->search_seconds = so_now() - t0;
    free(x);
    return true;
}
