/* fmag-difftest: differential testing of the optimizer. Generates random valid
 * modules, runs every pass alone and the -O pipelines on a copy, and checks with the
 * IR interpreter that the results obey SPEC §2; a failure is reduced and printed. */
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"
#include "Options.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IO 8
#define MAX_INPUTS 64

/* ---------------------------------------------------------------- random */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnext(rng *r)
{
    /* splitmix64: every seed, even 0, gives a good stream. */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static unsigned rint_(rng *r, unsigned n)
{
    return n ? (unsigned)(rnext(r) % n) : 0;
}
static bool rchance(rng *r, unsigned pct)
{
    return rint_(r, 100) < pct;
}
static float runiform(rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)((rnext(r) >> 40) / (double)(1ull << 24));
}

typedef struct options {
    unsigned long count;
    uint64_t seed;
    unsigned ninputs;
    bool fastmath;
    bool loops; /* generate counted loops */
    bool lower; /* after -O2, lower and run on the reference VM too */
    bool verbose;
    bool print;         /* print each generated module */
    bool broken;        /* self-test: add a deliberately wrong transformation */
    const char *passes; /* NULL: every registered pass alone, then O1 and O2 */
    double tol;
} options;

/* ------------------------------------------------------------- generator */

typedef struct gen {
    rng *r;
    fmag_module *m;
    fmag_builder b;
    fmag_func *f;
    fmag_value **scope;
    unsigned nscope, cap;
    fmag_func **helpers;
    unsigned nhelpers;
    bool fastmath;
    bool loops;
    unsigned budget;
    fmag_value *counter[4]; /* the counters of the loops around the current point */
    unsigned nloops;
} gen;

static const float strict_consts[] = {0.0f,  -0.0f, 1.0f,   -1.0f,  0.5f,     2.0f,  -2.0f,
                                      3.0f,  0.25f, -0.75f, 1e-40f, -1e-45f,  1e30f, -1e30f,
                                      3e38f, 1.5f,  0.1f,   1e-38f, 65536.0f, -7.0f, 1e10f};
static const float fast_consts[] = {0.0f, -0.0f, 1.0f,   -1.0f, 0.5f, 2.0f,  -2.0f,
                                    3.0f, 0.25f, -0.75f, 1.5f,  0.1f, -3.0f, 1.25f};

static fmag_value *gconst(gen *g)
{
    fmag_module *m = g->m;
    if (g->fastmath) {
        if (rchance(g->r, 30)) return fmag_module_const(m, runiform(g->r, -3.0f, 3.0f));
        return fmag_module_const(m, fast_consts[rint_(g->r, sizeof fast_consts / sizeof(float))]);
    }
    if (rchance(g->r, 25)) return fmag_module_const(m, runiform(g->r, -4.0f, 4.0f));
    return fmag_module_const(m, strict_consts[rint_(g->r, sizeof strict_consts / sizeof(float))]);
}

static void push(gen *g, fmag_value *v)
{
    if (g->nscope == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 64;
        g->scope = realloc(g->scope, g->cap * sizeof(*g->scope));
    }
    g->scope[g->nscope++] = v;
}

/* A value usable here: mostly recent ones (chains), sometimes any, sometimes a literal. */
static fmag_value *pick(gen *g, unsigned lit_pct)
{
    if (!g->nscope || rchance(g->r, lit_pct)) return gconst(g);
    if (rchance(g->r, 70)) {
        unsigned w = g->nscope < 6 ? g->nscope : 6;
        return g->scope[g->nscope - 1 - rint_(g->r, w)];
    }
    return g->scope[rint_(g->r, g->nscope)];
}
static fmag_value *pickv(gen *g)
{
    return pick(g, 8);
}

static void gen_arith(gen *g)
{
    fmag_builder *b = &g->b;
    fmag_module *m = g->m;
    fmag_value *x = pickv(g), *y = pickv(g), *v = NULL;
    switch (rint_(g->r, 26)) {
    case 0:
        v = fmag_build_add(b, x, y);
        break;
    case 1:
        v = fmag_build_sub(b, x, y);
        break;
    case 2:
        v = fmag_build_mul(b, x, y);
        break;
    case 3:
        v = fmag_build_neg(b, x);
        break;
    case 4:
        v = fmag_build_fma(b, x, y, pickv(g));
        break;
    case 5:
        v = fmag_build_select(b, x, y, pickv(g));
        break;
    case 6:
        v = fmag_build_relu(b, x);
        break;
    case 7:
        v = fmag_build_max(b, x, y);
        break;
    case 8:
        v = fmag_build_min(b, x, y);
        break;
    case 9:
        v = fmag_build_abs(b, x);
        break;
    case 10:
        v = fmag_build_gt(b, x, y);
        break;
    case 11:
        v = fmag_build_lt(b, x, y);
        break;
    case 12:
        v = fmag_build_ge(b, x, y);
        break;
    case 13:
        v = fmag_build_le(b, x, y);
        break;
    case 14: { /* 1 - (x > y), used as a guard */
        fmag_value *c = fmag_build_gt(b, x, y);
        fmag_value *n =
            fmag_build_fmag(b, c, fmag_module_const(m, -1.0f), fmag_module_const(m, 1.0f),
                            fmag_module_const(m, 0.0f), fmag_module_const(m, 1.0f));
        v = fmag_build_select(b, pickv(g), pickv(g), n);
        break;
    }
    case 15: /* a move */
        v = fmag_build_fmag(b, x, fmag_module_const(m, 1.0f),
                            fmag_module_const(m, rchance(g->r, 50) ? 0.0f : -0.0f), gconst(g),
                            fmag_module_const(m, rchance(g->r, 80) ? 1.0f : 2.0f));
        break;
    case 16:
        v = fmag_build_mul(b, x, fmag_module_const(m, rchance(g->r, 50) ? 0.0f : 1.0f));
        break;
    case 17:
        v = fmag_build_select(b, x, x, y);
        break;
    case 18: /* a sign boolean used as a guard */
        v = fmag_build_select(
            b, pickv(g), pickv(g),
            fmag_build_select(b, fmag_module_const(m, 1.0f), fmag_module_const(m, 0.0f), x));
        break;
    case 19:
        v = fmag_build_fmag(b, gconst(g), gconst(g), pick(g, 50), pickv(g), pick(g, 20));
        break;
    case 20:
        v = fmag_build_fmag(b, gconst(g), x, gconst(g), y, pick(g, 30));
        break;
    case 21:
        v = fmag_build_add(b, fmag_build_mul(b, x, gconst(g)), gconst(g));
        break;
    case 22: /* (x > y) && (z > w), or ||, as a frontend writes it, used as a guard */
    case 23: {
        fmag_value *p = fmag_build_gt(b, x, y), *q = fmag_build_gt(b, pickv(g), pickv(g));
        fmag_value *c = rchance(g->r, 50) ? fmag_build_select(b, q, fmag_module_const(m, 0.0f), p)
                                          : fmag_build_select(b, fmag_module_const(m, 1.0f), q, p);
        v = fmag_build_select(b, pickv(g), pickv(g), c);
        if (rchance(g->r, 20)) push(g, c);
        break;
    }
    default:
        v = fmag_build_fmag(b, x, pick(g, 40), pick(g, 40), pickv(g), pick(g, 40));
        break;
    }
    push(g, v);
}

static void gen_call(gen *g)
{
    if (!g->nhelpers) {
        gen_arith(g);
        return;
    }
    fmag_func *callee = g->helpers[rint_(g->r, g->nhelpers)];
    fmag_value *args[MAX_IO];
    for (unsigned k = 0; k < callee->nparams; k++)
        args[k] = pick(g, 15);
    fmag_instr *c = fmag_build_call(&g->b, callee, args, callee->nparams);
    for (unsigned k = 0; k < c->nresults; k++)
        push(g, &c->results[k]);
}

static fmag_value *gen_guard(gen *g)
{
    if (rchance(g->r, 40)) return fmag_build_gt(&g->b, pickv(g), pickv(g));
    if (rchance(g->r, 5)) return gconst(g);
    return pick(g, 0);
}

static void gen_ret(gen *g)
{
    fmag_value *vals[MAX_IO];
    for (unsigned k = 0; k < g->f->nresults; k++)
        vals[k] = pick(g, 5);
    fmag_build_ret(&g->b, vals, g->f->nresults);
}

static bool gen_region(gen *g, unsigned depth, unsigned n);

/* A counted loop: i runs from `start` by `step` while the test holds, a trip count
 * of 0 to 5 that the counter's literals fix (the arithmetic on them is exact);
 * the test sits in the header (a while loop) or at the latch (do-while). The
 * header carries 1 to 3 values through phis. Sometimes the body has a
 * data-dependent exit (a break), sometimes the bound is the counter of an
 * enclosing loop (a triangular nest, constant once the outer loop is unrolled).
 * After the loop, the carried values (at the exit) are in scope. */
static void gen_loop(gen *g, unsigned depth)
{
    fmag_module *m = g->m;
    fmag_builder *b = &g->b;
    static const float starts[] = {0.0f, 1.0f, -2.0f, 0.5f, 3.0f};
    static const float steps[] = {1.0f, 1.0f, 0.5f, 2.0f, -1.0f, 0.25f};
    float start = starts[rint_(g->r, 5)], step = steps[rint_(g->r, 6)];
    unsigned trips = rint_(g->r, 6);
    bool up = step > 0.0f, at_latch = rchance(g->r, 35);
    /* The bound sits between the last value that runs and the first that stops. */
    float bound = start + step * (float)trips - step * 0.5f;
    fmag_value *boundv = fmag_module_const(m, bound);
    if (g->nloops && up && !at_latch && rchance(g->r, 30)) boundv = g->counter[g->nloops - 1];

    fmag_block *pre = b->block;
    fmag_block *h = fmag_block_create(g->f, NULL), *body = fmag_block_create(g->f, NULL);
    fmag_block *exit = fmag_block_create(g->f, NULL);
    fmag_build_jmp(b, h);
    fmag_builder_at_end(b, h);
    unsigned base = g->nscope, ncarry = 1 + rint_(g->r, 3);
    fmag_instr *iphi = fmag_build_phi(b), *carry[3];
    fmag_phi_add_incoming(iphi, fmag_module_const(m, start), pre);
    fmag_value *i = &iphi->results[0];
    for (unsigned k = 0; k < ncarry; k++) {
        carry[k] = fmag_build_phi(b);
        fmag_phi_add_incoming(carry[k], pick(g, 20), pre);
    }
    for (unsigned k = 0; k < ncarry; k++)
        push(g, &carry[k]->results[0]);
    push(g, i);
    /* i < bound: bound - i > 0 (exact on these literals); i > bound: i - bound > 0. */
    fmag_value *test = NULL;
    if (!at_latch) {
        test = up ? (rchance(g->r, 50) ? fmag_build_sub(b, boundv, i) : fmag_build_lt(b, i, boundv))
                  : fmag_build_sub(b, i, boundv);
        fmag_build_br(b, test, body, exit);
    } else {
        fmag_build_jmp(b, body);
    }
    fmag_builder_at_end(b, body);
    g->counter[g->nloops++] = i;
    fmag_block *brk = NULL;
    fmag_value *brkv[3];
    if (rchance(g->r, 25)) { /* a data-dependent break */
        fmag_value *c = gen_guard(g);
        fmag_block *cont = fmag_block_create(g->f, NULL);
        brk = b->block;
        for (unsigned k = 0; k < ncarry; k++)
            brkv[k] = pick(g, 10);
        fmag_build_br(b, c, exit, cont);
        fmag_builder_at_end(b, cont);
    }
    gen_region(g, depth + 1, 1 + rint_(g->r, 5));
    g->nloops--;
    fmag_value *next[3];
    for (unsigned k = 0; k < ncarry; k++)
        next[k] = pick(g, 5);
    fmag_value *i1 = fmag_build_add(b, i, fmag_module_const(m, step));
    fmag_block *latch = b->block;
    if (at_latch) {
        /* do-while: runs once more than `trips` counts from start, test on i1. */
        test = up ? fmag_build_sub(b, boundv, i1) : fmag_build_sub(b, i1, boundv);
        fmag_build_br(b, test, h, exit);
    } else {
        fmag_build_jmp(b, h);
    }
    fmag_phi_add_incoming(iphi, i1, latch);
    for (unsigned k = 0; k < ncarry; k++)
        fmag_phi_add_incoming(carry[k], next[k], latch);
    g->nscope = base;
    fmag_builder_at_end(b, exit);
    /* The exit's values: the carried ones, from the header or the latch, or what the
     * break saw. */
    fmag_block *from = at_latch ? latch : h;
    for (unsigned k = 0; k < ncarry; k++) {
        fmag_instr *phi = fmag_build_phi(b);
        fmag_phi_add_incoming(phi, at_latch ? next[k] : &carry[k]->results[0], from);
        if (brk) fmag_phi_add_incoming(phi, brkv[k], brk);
        push(g, &phi->results[0]);
    }
}

/* Emits statements into the current block; returns false when the region ended in
 * a return (no current block). */
static bool gen_region(gen *g, unsigned depth, unsigned n)
{
    for (unsigned s = 0; s < n && g->budget; s++) {
        g->budget--;
        unsigned what = rint_(g->r, 100);
        if (g->loops && depth <= 2 && g->nloops < 3 && rchance(g->r, 12)) {
            gen_loop(g, depth);
        } else if (what < 60 || depth > 3) {
            gen_arith(g);
        } else if (what < 68) {
            gen_call(g);
        } else if (what < 80) { /* if/else diamond with merge phis */
            fmag_value *c = gen_guard(g);
            fmag_block *t = fmag_block_create(g->f, NULL), *e = fmag_block_create(g->f, NULL),
                       *mb = fmag_block_create(g->f, NULL);
            fmag_build_br(&g->b, c, t, e);
            unsigned base = g->nscope;
            fmag_value *tv[3], *ev[3];
            unsigned nphi = 1 + rint_(g->r, 3);
            fmag_builder_at_end(&g->b, t);
            gen_region(g, depth + 1, rint_(g->r, 4));
            fmag_block *tend = g->b.block;
            for (unsigned k = 0; k < nphi; k++)
                tv[k] = pick(g, 10);
            fmag_build_jmp(&g->b, mb);
            g->nscope = base;
            fmag_builder_at_end(&g->b, e);
            gen_region(g, depth + 1, rint_(g->r, 4));
            fmag_block *eend = g->b.block;
            for (unsigned k = 0; k < nphi; k++)
                ev[k] = pick(g, 10);
            fmag_build_jmp(&g->b, mb);
            g->nscope = base;
            fmag_builder_at_end(&g->b, mb);
            for (unsigned k = 0; k < nphi; k++) {
                fmag_instr *phi = fmag_build_phi(&g->b);
                fmag_phi_add_incoming(phi, tv[k], tend);
                fmag_phi_add_incoming(phi, ev[k], eend);
                push(g, &phi->results[0]);
            }
        } else if (what < 88) { /* triangle: if without else */
            fmag_value *c = gen_guard(g);
            fmag_block *a = g->b.block;
            fmag_block *t = fmag_block_create(g->f, NULL), *mb = fmag_block_create(g->f, NULL);
            bool flip = rchance(g->r, 50);
            fmag_build_br(&g->b, c, flip ? mb : t, flip ? t : mb);
            unsigned base = g->nscope;
            fmag_value *av = pick(g, 10);
            fmag_builder_at_end(&g->b, t);
            gen_region(g, depth + 1, 1 + rint_(g->r, 3));
            fmag_block *tend = g->b.block;
            fmag_value *tv = pick(g, 10);
            fmag_build_jmp(&g->b, mb);
            g->nscope = base;
            fmag_builder_at_end(&g->b, mb);
            fmag_instr *phi = fmag_build_phi(&g->b);
            fmag_phi_add_incoming(phi, tv, tend);
            fmag_phi_add_incoming(phi, av, a);
            push(g, &phi->results[0]);
        } else { /* early return */
            fmag_value *c = gen_guard(g);
            fmag_block *r = fmag_block_create(g->f, NULL), *cont = fmag_block_create(g->f, NULL);
            bool flip = rchance(g->r, 50);
            fmag_build_br(&g->b, c, flip ? cont : r, flip ? r : cont);
            unsigned base = g->nscope, nloops = g->nloops;
            fmag_value *counters[4];
            memcpy(counters, g->counter, sizeof counters);
            fmag_builder_at_end(&g->b, r);
            /* This path leaves the enclosing loops: a loop here bounded by their
             * counter would have a trip count that depends on which iteration left. */
            g->nloops = 0;
            gen_region(g, depth + 1, rint_(g->r, 3));
            g->nloops = nloops;
            memcpy(g->counter, counters, sizeof counters);
            gen_ret(g);
            g->nscope = base;
            fmag_builder_at_end(&g->b, cont);
        }
    }
    return true;
}

static fmag_func *gen_func(gen *g, const char *name, bool is_export, unsigned size)
{
    unsigned np = 1 + rint_(g->r, 4), nr = 1 + rint_(g->r, 3);
    fmag_func *f = fmag_func_create(g->m, name, np, nr, is_export);
    g->f = f;
    g->nscope = 0;
    for (unsigned k = 0; k < np; k++)
        push(g, &f->params[k]);
    fmag_builder_at_end(&g->b, fmag_block_create(f, "entry"));
    g->budget = size;
    gen_region(g, 0, size);
    if (rchance(g->r, 15)) { /* both arms return */
        fmag_value *c = gen_guard(g);
        fmag_block *t = fmag_block_create(f, NULL), *e = fmag_block_create(f, NULL);
        fmag_build_br(&g->b, c, t, e);
        unsigned base = g->nscope;
        fmag_builder_at_end(&g->b, t);
        gen_arith(g);
        gen_ret(g);
        g->nscope = base;
        fmag_builder_at_end(&g->b, e);
        gen_arith(g);
        gen_ret(g);
    } else {
        gen_ret(g);
    }
    return f;
}

static fmag_module *gen_module(fmag_context *ctx, rng *r, bool fastmath, bool loops)
{
    gen g;
    memset(&g, 0, sizeof g);
    g.r = r;
    g.loops = loops;
    g.m = fmag_module_create(ctx);
    g.m->fastmath = fastmath;
    g.fastmath = fastmath;
    unsigned nh = rint_(r, 4), ne = 1 + rint_(r, 2);
    fmag_func *helpers[4];
    char name[32];
    for (unsigned k = 0; k < nh; k++) {
        g.helpers = helpers;
        g.nhelpers = k;
        snprintf(name, sizeof name, "h%u", k);
        helpers[k] = gen_func(&g, name, false, 2 + rint_(r, 10));
    }
    g.helpers = helpers;
    g.nhelpers = nh;
    for (unsigned k = 0; k < ne; k++) {
        snprintf(name, sizeof name, "main%u", k);
        gen_func(&g, name, true, 4 + rint_(r, 24));
    }
    free(g.scope);
    return g.m;
}

static float gen_input(rng *r, bool fastmath)
{
    static const float special[] = {0.0f,   -0.0f,   1.0f,  -1.0f,  0.5f, -2.0f,
                                    1e-40f, -3e-39f, 1e20f, -1e20f, 3.0f, 0.1f};
    if (fastmath) return rchance(r, 20) ? special[rint_(r, 6)] : runiform(r, -4.0f, 4.0f);
    unsigned w = rint_(r, 10);
    if (w < 3) return special[rint_(r, sizeof special / sizeof(float))];
    if (w < 7) return runiform(r, -10.0f, 10.0f);
    if (w < 9) return runiform(r, -1000.0f, 1000.0f);
    return (float)((int)rint_(r, 9) - 4);
}

/* ------------------------------------------------- reference evaluator */

/* The reference run: the same semantics as fmag_interp_func, written separately
 * (it is checked against it), which also reports whether any value it produced
 * (inputs included) was an infinity or a NaN, and the largest magnitude and the
 * smallest guard magnitude seen (for the fast-math tolerance). */
typedef struct refrun {
    bool nonfinite;
    double maxabs;
    double minguard;
    unsigned long steps;
} refrun;

static void note(refrun *rr, float v)
{
    if (!isfinite(v))
        rr->nonfinite = true;
    else if (fabs(v) > rr->maxabs)
        rr->maxabs = fabs(v);
}

static float val(const float *fr, const fmag_value *v)
{
    return v->kind == FMAG_VALUE_CONST ? v->imm : fr[v->id];
}

/* comp[id]: the value came out of an fma (so rounding may have moved it), rather
 * than being an input or a fallback passed through. Only such guards can flip under
 * fast-math rewrites. */
static bool computed(const bool *comp, const fmag_value *v)
{
    return v->kind == FMAG_VALUE_RESULT && comp[v->id];
}

static bool ref_eval(fmag_func *f, const float *in, float *out, refrun *rr, unsigned depth)
{
    if (depth > 64 || !f->first) return false;
    float *fr = calloc(f->nvalues + 1, sizeof(float));
    bool *comp = calloc(f->nvalues + 1, sizeof(bool));
    float phitmp[256];
    bool phicomp[256];
    if (!fr || !comp) {
        free(fr);
        free(comp);
        return false;
    }
    for (unsigned k = 0; k < f->nparams; k++) {
        fr[f->params[k].id] = in[k];
        note(rr, in[k]);
    }
    bool ok = false;
    fmag_block *b = f->first, *from = NULL;
    while (b && ++rr->steps < 1000000) {
        fmag_instr *i = b->first;
        unsigned n = 0;
        for (fmag_instr *p = i; p && p->op == FMAG_OP_PHI && n < 256; p = p->next) {
            fmag_value *v = fmag_phi_value_for(p, from);
            if (!v) goto done;
            phicomp[n] = computed(comp, v);
            phitmp[n++] = val(fr, v);
        }
        n = 0;
        for (; i && i->op == FMAG_OP_PHI; i = i->next) {
            comp[i->results[0].id] = phicomp[n];
            fr[i->results[0].id] = phitmp[n++];
            note(rr, fr[i->results[0].id]);
        }
        fmag_block *next = NULL;
        for (; i; i = i->next) {
            if (i->op == FMAG_OP_FMAG) {
                float e = val(fr, i->ops[4].value);
                if (computed(comp, i->ops[4].value) && fabs(e) < rr->minguard)
                    rr->minguard = fabs(e);
                float v = fmag_eval(val(fr, i->ops[0].value), val(fr, i->ops[1].value),
                                    val(fr, i->ops[2].value), val(fr, i->ops[3].value), e);
                fr[i->results[0].id] = v;
                comp[i->results[0].id] = e > 0.0f || computed(comp, i->ops[3].value);
                note(rr, v);
            } else if (i->op == FMAG_OP_CALL) {
                float a[MAX_IO], r[MAX_IO];
                for (unsigned k = 0; k < i->nops && k < MAX_IO; k++)
                    a[k] = val(fr, i->ops[k].value);
                if (!ref_eval(i->callee, a, r, rr, depth + 1)) goto done;
                for (unsigned k = 0; k < i->nresults; k++) {
                    fr[i->results[k].id] = r[k];
                    comp[i->results[k].id] = true;
                }
            } else if (i->op == FMAG_OP_BR) {
                float g = val(fr, i->ops[0].value);
                if (computed(comp, i->ops[0].value) && fabs(g) < rr->minguard)
                    rr->minguard = fabs(g);
                next = g > 0.0f ? i->targets[0] : i->targets[1];
                break;
            } else if (i->op == FMAG_OP_JMP) {
                next = i->targets[0];
                break;
            } else if (i->op == FMAG_OP_RET) {
                for (unsigned k = 0; k < i->nops; k++)
                    out[k] = val(fr, i->ops[k].value);
                ok = true;
                goto done;
            } else {
                goto done;
            }
        }
        from = b;
        b = next;
    }
done:
    free(fr);
    free(comp);
    return ok;
}

/* ------------------------------------------------------------ checking */

typedef struct stats {
    unsigned long modules, compared, skipped, checks, failures;
} stats;

typedef enum verdict { OK, FAIL } verdict;

typedef struct failure {
    char what[256];
    float in[MAX_IO];
    unsigned nin;
} failure;

/* Deliberately wrong, for --self-test-broken: flips the guard of every select whose
 * guard is a parameter. The tester must catch it. */
static bool broken_pass(fmag_module *m)
{
    bool changed = false;
    fmag_foreach_func (f, m)
        fmag_foreach_block (b, f)
            fmag_foreach_instr (i, b)
                if (i->op == FMAG_OP_FMAG && fmag_value_is_imm(i->ops[1].value, 1.0f) &&
                    i->ops[4].value->kind == FMAG_VALUE_PARAM) {
                    fmag_value *t = i->ops[0].value, *d = i->ops[3].value;
                    fmag_instr_set_op(i, 0, d);
                    fmag_instr_set_op(i, 3, t);
                    changed = true;
                }
    return changed;
}

/* A named pipeline, or a list such as "loop-unroll,ifconvert". */
static bool is_pipeline(const char *name)
{
    return fmag_pipeline_lookup(name) != NULL || strchr(name, ',');
}

/* Runs `pass` on a copy of m and compares on the inputs. */
static verdict check(fmag_module *m, const char *pass, float (*inputs)[MAX_IO], unsigned ninputs,
                     const options *opt, stats *st, failure *fail)
{
    fmag_context *ctx = m->ctx;
    fmag_module *o = fmag_module_clone(m);
    size_t diags = fmag_context_diag_count(ctx);
    bool ok_run, changed = false;
    if (!strcmp(pass, "broken"))
        ok_run = (changed = broken_pass(o), true);
    else if (is_pipeline(pass))
        ok_run = fmag_run_passes(o, pass, NULL);
    else {
        const fmag_pass_info *p = fmag_pass_lookup(pass);
        fmag_pass_status status = fmag_pass_run(p, o);
        changed = status == FMAG_PASS_CHANGED;
        ok_run = status != FMAG_PASS_FAILED;
    }
    if (!ok_run || fmag_context_diag_count(ctx) != diags) {
        snprintf(fail->what, sizeof fail->what, "pass reported an error: %s",
                 fmag_context_diag_count(ctx) > diags ? fmag_context_diag(ctx, diags) : "?");
        fail->nin = 0;
        fmag_context_diag_clear(ctx);
        return FAIL;
    }
    if (!fmag_verify_module(o)) {
        snprintf(fail->what, sizeof fail->what, "invalid IR after the pass: %s",
                 fmag_context_diag_count(ctx) > diags ? fmag_context_diag(ctx, diags) : "?");
        fail->nin = 0;
        fmag_context_diag_clear(ctx);
        return FAIL;
    }
    if (!is_pipeline(pass) && strcmp(pass, "broken") && strcmp(pass, "verify")) {
        const fmag_pass_info *p = fmag_pass_lookup(pass);
        if (fmag_pass_run(p, o) != FMAG_PASS_UNCHANGED) {
            snprintf(fail->what, sizeof fail->what,
                     "running the pass a second time reported a change (first: %s)",
                     changed ? "changed" : "unchanged");
            fail->nin = 0;
            return FAIL;
        }
    }
    if (!strcmp(pass, "O2")) {
        fmag_foreach_func (f, o) {
            bool call = false;
            fmag_foreach_block (b, f)
                fmag_foreach_instr (i, b)
                    call |= i->op == FMAG_OP_CALL;
            if (f->is_export && (!f->first || f->first->next || call)) {
                snprintf(fail->what, sizeof fail->what,
                         "-O2 left @%s with more than one block or a call", f->name);
                fail->nin = 0;
                return FAIL;
            }
        }
    }
    fmag_foreach_func (f, m)
        fmag_func_renumber(f);
    fmag_foreach_func (f, m) {
        if (!f->is_export) continue;
        fmag_func *of = fmag_module_get_func(o, f->name);
        if (!of) {
            snprintf(fail->what, sizeof fail->what, "export @%s disappeared", f->name);
            fail->nin = 0;
            return FAIL;
        }
        /* --lower: the -O2 result lowered, run on the reference VM as well. */
        fmag_vm_image img;
        fmag_vm_image_init(&img);
        const fmag_vm_program *prog = NULL;
        if (opt->lower && !strcmp(pass, "O2")) {
            char err[256];
            if (!fmag_codegen_func(of, &img, NULL) ||
                !fmag_vm_program_validate(&img.programs[0], err, sizeof err)) {
                snprintf(fail->what, sizeof fail->what, "lowering @%s failed: %s", f->name,
                         fmag_context_diag_count(ctx) > diags ? fmag_context_diag(ctx, diags)
                                                              : "invalid program");
                fmag_context_diag_clear(ctx);
                fmag_vm_image_free(&img);
                fail->nin = 0;
                return FAIL;
            }
            prog = &img.programs[0];
        }
        for (unsigned t = 0; t < ninputs; t++) {
            float ref[MAX_IO], ref2[MAX_IO], got[MAX_IO];
            refrun rr = {false, 0.0, INFINITY, 0};
            fmag_foreach_func (g, m)
                fmag_func_renumber(g);
            bool rok = ref_eval(f, inputs[t], ref, &rr, 0);
            if (!rok || rr.nonfinite) {
                st->skipped++;
                continue;
            }
            double tol = 0.0;
            if (m->fastmath) {
                tol = opt->tol * (rr.maxabs + 1.0);
                if (rr.minguard <= tol) { /* a tie the rounding may break either way */
                    st->skipped++;
                    continue;
                }
            }
            /* The oracle and this evaluator must agree exactly on the original. */
            if (!fmag_interp_func(f, inputs[t], ref2)) {
                snprintf(fail->what, sizeof fail->what, "interpreter failed on the original");
                fmag_context_diag_clear(ctx);
                goto fail_in;
            }
            for (unsigned k = 0; k < f->nresults; k++)
                if (memcmp(&ref[k], &ref2[k], sizeof(float))) {
                    snprintf(fail->what, sizeof fail->what,
                             "oracle disagreement on the original, result %u: %.9g vs %.9g", k,
                             ref[k], ref2[k]);
                    goto fail_in;
                }
            if (!fmag_interp_func(of, inputs[t], got)) {
                snprintf(fail->what, sizeof fail->what, "interpreter failed after %s: %s", pass,
                         fmag_context_diag_count(ctx) ? fmag_context_diag(ctx, 0) : "?");
                fmag_context_diag_clear(ctx);
                goto fail_in;
            }
            st->compared++;
            for (int run = 0; run < (prog ? 2 : 1); run++) {
                if (run == 1) {
                    float *regs = malloc(((size_t)prog->regs + 1) * sizeof *regs);
                    if (!regs) break;
                    fmag_vm_run(prog, inputs[t], got, regs);
                    free(regs);
                }
                for (unsigned k = 0; k < f->nresults; k++) {
                    bool same = ref[k] == got[k] &&
                                (ref[k] == 0.0f || !memcmp(&ref[k], &got[k], sizeof(float)));
                    if (m->fastmath)
                        same = isfinite(got[k]) && fabs((double)ref[k] - (double)got[k]) <= tol;
                    if (!same) {
                        snprintf(fail->what, sizeof fail->what,
                                 "@%s result %u%s: expected %.9g (%a), got %.9g (%a)%s", f->name, k,
                                 run ? " (lowered, on the VM)" : "", ref[k], ref[k], got[k], got[k],
                                 m->fastmath ? " beyond tolerance" : "");
                        goto fail_in;
                    }
                }
            }
            continue;
        fail_in:
            memcpy(fail->in, inputs[t], sizeof fail->in);
            fail->nin = f->nparams;
            fmag_vm_image_free(&img);
            return FAIL;
        }
        fmag_vm_image_free(&img);
    }
    return OK;
}

/* -------------------------------------------------------------- reducer */

static fmag_instr *nth_instr(fmag_module *m, unsigned n, fmag_opcode op)
{
    fmag_foreach_func (f, m)
        fmag_foreach_block (b, f)
            fmag_foreach_instr (i, b)
                if (i->op == op && n-- == 0) return i;
    return NULL;
}

static void drop_unreachable(fmag_func *f)
{
    fmag_foreach_block (b, f)
        b->aux = NULL;
    bool grew = true;
    f->first->aux = f->first;
    while (grew) {
        grew = false;
        fmag_foreach_block (b, f) {
            if (!b->aux) continue;
            fmag_block *s[2];
            unsigned ns = fmag_block_succs(b, s);
            for (unsigned k = 0; k < ns; k++)
                if (!s[k]->aux) {
                    s[k]->aux = s[k];
                    grew = true;
                }
        }
    }
    fmag_value *zero = fmag_module_const(f->module, 0.0f);
    fmag_foreach_block (b, f) {
        if (b->aux) continue;
        fmag_block *s[2];
        unsigned ns = fmag_block_succs(b, s);
        for (unsigned k = 0; k < ns; k++)
            fmag_foreach_instr (p, s[k]) {
                if (p->op != FMAG_OP_PHI) break;
                for (unsigned j = p->nops; j-- > 0;)
                    if (p->phi_blocks[j] == b) fmag_phi_remove_incoming(p, j);
            }
        fmag_foreach_instr (i, b)
            for (unsigned k = 0; k < i->nresults; k++)
                fmag_value_replace_all_uses(&i->results[k], zero);
    }
    fmag_foreach_block (b, f)
        if (!b->aux) fmag_block_erase(b);
    fmag_foreach_block (b, f)
        b->aux = NULL;
}

/* Applies mutation number `n` to m; false when there is no such mutation. */
static bool mutate(fmag_module *m, unsigned n)
{
    fmag_value *zero = fmag_module_const(m, 0.0f), *one = fmag_module_const(m, 1.0f);
    size_t nf = fmag_module_num_instrs(m);
    /* 1: drop an instruction, its users reading an operand or a literal instead. */
    if (n < 4 * nf) {
        fmag_instr *i = nth_instr(m, n / 4, FMAG_OP_FMAG);
        if (!i) return false;
        fmag_value *by[4] = {i->ops[0].value, i->ops[3].value, zero, one};
        fmag_value *v = by[n % 4];
        if (v->kind == FMAG_VALUE_RESULT && v->def == i) return false;
        fmag_value_replace_all_uses(&i->results[0], v);
        fmag_instr_erase(i);
        return true;
    }
    n -= 4 * nf;
    /* 2: an operand becomes 1.0 or 0.0. */
    if (n < 10 * nf) {
        fmag_instr *i = nth_instr(m, n / 10, FMAG_OP_FMAG);
        if (!i) return false;
        fmag_value *v = (n % 10) & 1 ? one : zero;
        if (i->ops[(n % 10) / 2].value == v || fmag_value_is_const(i->ops[(n % 10) / 2].value))
            return false;
        fmag_instr_set_op(i, (n % 10) / 2, v);
        return true;
    }
    n -= 10 * nf;
    /* 3: a br always goes one way. */
    if (n < 2 * nf) {
        fmag_instr *i = nth_instr(m, n / 2, FMAG_OP_BR);
        if (!i) return false;
        fmag_block *keep = i->targets[n % 2], *drop = i->targets[1 - n % 2];
        fmag_block *b = i->block;
        if (drop != keep)
            fmag_foreach_instr (p, drop) {
                if (p->op != FMAG_OP_PHI) break;
                for (unsigned j = p->nops; j-- > 0;)
                    if (p->phi_blocks[j] == b) fmag_phi_remove_incoming(p, j);
            }
        fmag_instr *j = fmag_instr_create(b->func, FMAG_OP_JMP, 0, 0);
        j->targets[0] = keep;
        fmag_instr_insert_before(i, j);
        fmag_instr_erase(i);
        drop_unreachable(b->func);
        return true;
    }
    n -= 2 * nf;
    /* 4: a call's results become literals. */
    if (n < nf) {
        fmag_instr *i = nth_instr(m, n, FMAG_OP_CALL);
        if (!i) return false;
        for (unsigned k = 0; k < i->nresults; k++)
            fmag_value_replace_all_uses(&i->results[k], zero);
        fmag_instr_erase(i);
        return true;
    }
    n -= nf;
    /* 5: a cleanup that keeps the meaning (kept only if the failure stays). */
    static const char *const cleanups[] = {"dce", "constfold", "ternary", "inline", "fuse"};
    if (n < 5) {
        return fmag_pass_run(fmag_pass_lookup(cleanups[n]), m) == FMAG_PASS_CHANGED;
    }
    n -= 5;
    /* 6: a function nobody calls goes (exports too, while one export stays). */
    unsigned k = 0, nexp = 0;
    fmag_foreach_func (f, m)
        nexp += f->is_export;
    fmag_foreach_func (f, m) {
        if (k++ != n) continue;
        bool called = false;
        fmag_foreach_func (g, m)
            fmag_foreach_block (b, g)
                fmag_foreach_instr (i, b)
                    called |= i->op == FMAG_OP_CALL && i->callee == f;
        if (called || (f->is_export && nexp < 2)) return false;
        fmag_func_erase(f);
        return true;
    }
    return false;
}

/* The kind of a failure: its message without names and numbers, so that reducing
 * keeps the failure it started from rather than drifting to another one. */
static void failure_kind(const char *what, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = what; *p && n + 1 < len; p++) {
        if (*p == '^' || *p == '@' || *p == '%' || (*p >= '0' && *p <= '9')) {
            while (p[1] && (p[1] == '_' || p[1] == '.' || (p[1] >= '0' && p[1] <= '9') ||
                            (p[1] >= 'a' && p[1] <= 'z') || (p[1] >= 'A' && p[1] <= 'Z')))
                p++;
            continue;
        }
        out[n++] = *p;
    }
    out[n] = 0;
}

static fmag_module *reduce(fmag_module *m, const char *pass, float (*inputs)[MAX_IO],
                           unsigned ninputs, const options *opt, failure *fail)
{
    char kind[256], kind2[256];
    failure_kind(fail->what, kind, sizeof kind);
    stats dummy = {0};
    unsigned attempts = 0;
    bool progress = true;
    /* Sweeps over every mutation; after a success the sweep goes on from the same
     * index (the list shifted under it), and sweeps repeat until one finds nothing. */
    while (progress && attempts < 50000) {
        progress = false;
        for (unsigned n = 0; n < 20 * fmag_module_num_instrs(m) + 64 && attempts < 50000; n++) {
            fmag_module *c = fmag_module_clone(m);
            if (!mutate(c, n)) continue;
            attempts++;
            if (!fmag_verify_module(c)) {
                fmag_context_diag_clear(m->ctx);
                continue;
            }
            failure f2;
            verdict vv = check(c, pass, inputs, ninputs, opt, &dummy, &f2);
            if (vv == FAIL) failure_kind(f2.what, kind2, sizeof kind2);
            if (vv == FAIL && !strcmp(kind, kind2)) {
                m = c;
                *fail = f2;
                progress = true;
                n--;
            }
        }
    }
    return m;
}

/* ------------------------------------------------------------------ main */

static const fmag_tool difftest_tool = {
    "fmag-difftest",
    "usage: fmag-difftest [--count N] [--seed S] [--inputs K] [--passes a,b,...]\n"
    "                     [--fastmath] [--loops] [--lower] [--tol T]\n"
    "                     [--self-test-broken] [-v]\n\n"
    "Generates N random valid modules (straight-line code, diamonds, nested if/else,\n"
    "early returns, calls with several results, phis; literals 0, -0, 1, -1,\n"
    "denormals, large values) and checks that each pass alone, -O1 and -O2 keep the\n"
    "results of every export on K random inputs, under SPEC §2: bit-identical up to\n"
    "the sign of zero, skipping inputs on which the original produces an inf or NaN\n"
    "anywhere. --fastmath makes fast-math modules, compared within T * (1 + largest\n"
    "magnitude the original computes) (T defaults to 1e-3; inputs where some guard of\n"
    "the original is within that distance of 0 are skipped). Each pass must also\n"
    "report no change when run a second time. A failure prints the smallest module\n"
    "the reducer finds, the pass and the input; exit 1.\n"
    "--loops adds counted loops (trip counts 0 to 5, tests in the header or at the\n"
    "latch, data-dependent breaks, nested and triangular nests); -ifconvert is then\n"
    "checked after -loop-unroll. --lower also lowers the -O2 result of each export\n"
    "and runs it on the reference VM, held to the same contract.\n"
    "--self-test-broken adds a deliberately wrong pass named `broken` (the tester\n"
    "must catch it).\n\noptions:\n",
    NULL, NULL};

int main(int argc, char **argv)
{
    options opt = {.count = 200, .seed = 1, .ninputs = 12, .tol = 1e-3};
    unsigned long long count = opt.count, seed = opt.seed, ninputs = opt.ninputs;
    enum { EQN = FMAG_OPT_EQ_OR_NEXT };
    const fmag_option table[] = {
        {"--count", EQN, FMAG_OPT_UINT, &count, NULL, "N", "modules to generate (default 200)"},
        {"--seed", EQN, FMAG_OPT_UINT, &seed, NULL, "S", "random seed (default 1)"},
        {"--inputs", EQN, FMAG_OPT_UINT, &ninputs, NULL, "K",
         "random inputs per export (default 12)"},
        {"--passes", EQN, FMAG_OPT_STRING, &opt.passes, NULL, "a,b,...",
         "passes or pipelines to check (default: each pass, O1, O2)"},
        {"--tol", EQN, FMAG_OPT_DOUBLE, &opt.tol, NULL, "T", "fast-math tolerance (default 1e-3)"},
        {"--fastmath", 0, FMAG_OPT_FLAG, &opt.fastmath, NULL, NULL, "fast-math modules"},
        {"--loops", 0, FMAG_OPT_FLAG, &opt.loops, NULL, NULL, "add counted loops"},
        {"--lower", 0, FMAG_OPT_FLAG, &opt.lower, NULL, NULL, "lower -O2 and run it on the VM too"},
        {"--self-test-broken", 0, FMAG_OPT_FLAG, &opt.broken, NULL, NULL,
         "add the wrong pass `broken`"},
        {"--print-modules", 0, FMAG_OPT_FLAG, &opt.print, NULL, NULL, "print each module"},
        {"-v", 0, FMAG_OPT_FLAG, &opt.verbose, NULL, NULL, "progress every 1000 modules"},
    };
    const fmag_opt_parser parser = {&difftest_tool, table, sizeof table / sizeof *table,
                                    NULL,           NULL,  NULL};
    int prc = fmag_opt_parse(&parser, argc, argv);
    if (prc != FMAG_OPT_RUN) return prc;
    opt.count = (unsigned long)count;
    opt.seed = seed;
    opt.ninputs = ninputs > MAX_INPUTS ? 0 : (unsigned)ninputs;
    if (opt.ninputs == 0 || opt.ninputs > MAX_INPUTS) {
        char v[24];
        snprintf(v, sizeof v, "%llu", (unsigned long long)ninputs);
        return !fmag_opt_invalid_value(&difftest_tool, "--inputs", v, "1 to %d", MAX_INPUTS);
    }

    /* The passes to check. */
    const char *names[64];
    unsigned nnames = 0;
    char *list = NULL;
    if (opt.passes) {
        list = strdup(opt.passes);
        for (char *s = strtok(list, ","); s && nnames < 64; s = strtok(NULL, ",")) {
            if (!fmag_pass_lookup(s) && !fmag_pipeline_lookup(s) && strcmp(s, "broken")) {
                fmag_tool_error(&difftest_tool, "unknown pass '%s'", s);
                free(list);
                return 1;
            }
            names[nnames++] = s;
        }
    } else {
        /* With loops, -ifconvert (which rejects them) runs after -loop-unroll. */
        for (size_t k = 0; k < fmag_pass_count() && nnames < 60; k++)
            names[nnames++] = opt.loops && !strcmp(fmag_pass_get(k)->name, "ifconvert")
                                  ? "loop-unroll,ifconvert"
                                  : fmag_pass_get(k)->name;
        names[nnames++] = "O1";
        names[nnames++] = "O2";
    }
    if (opt.broken && nnames < 64) names[nnames++] = "broken";

    stats st = {0};
    int status = 0;
    for (unsigned long it = 0; it < opt.count && !status; it++) {
        rng r = {opt.seed * 0x100000001b3ull + it};
        fmag_context *ctx = fmag_context_create();
        fmag_module *m = gen_module(ctx, &r, opt.fastmath, opt.loops);
        if (!fmag_verify_module(m)) {
            fprintf(stderr, "fmag-difftest: internal error: generated module %lu is invalid:\n",
                    it);
            fmag_tool_print_diags(&difftest_tool, ctx);
            fmag_module_print(m, stderr, 0);
            fmag_context_destroy(ctx);
            status = 2;
            break;
        }
        float inputs[MAX_INPUTS][MAX_IO];
        for (unsigned t = 0; t < opt.ninputs; t++)
            for (unsigned k = 0; k < MAX_IO; k++)
                inputs[t][k] = gen_input(&r, opt.fastmath);
        st.modules++;
        if (opt.print) {
            printf("; module %lu\n", it);
            fmag_module_print(m, stdout, 0);
        }
        for (unsigned p = 0; p < nnames; p++) {
            failure fail;
            st.checks++;
            if (check(m, names[p], inputs, opt.ninputs, &opt, &st, &fail) == OK) continue;
            st.failures++;
            printf("FAIL: module %lu (seed %" PRIu64 "), pass %s: %s\n", it, opt.seed, names[p],
                   fail.what);
            fmag_module *small = reduce(m, names[p], inputs, opt.ninputs, &opt, &fail);
            printf("reduced (%zu instructions): %s\n", fmag_module_num_instrs(small), fail.what);
            if (fail.nin) {
                printf("input:");
                for (unsigned k = 0; k < fail.nin; k++)
                    printf(" %.9g", fail.in[k]);
                printf("\n");
            }
            fmag_module_print(small, stdout, 0);
            status = 1;
            break;
        }
        fmag_context_destroy(ctx);
        if (opt.verbose && (it + 1) % 1000 == 0) fprintf(stderr, "... %lu modules\n", it + 1);
    }
    printf("fmag-difftest: seed %" PRIu64 ", %lu modules, %u passes/pipelines each, %lu checks, "
           "%lu input runs compared, %lu skipped (inf/NaN in the original%s), %lu failures\n",
           opt.seed, st.modules, nnames, st.checks, st.compared, st.skipped,
           opt.fastmath ? " or a guard near 0" : "", st.failures);
    free(list);
    return status ? 1 : 0;
}
