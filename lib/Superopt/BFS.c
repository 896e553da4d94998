/* Search 1: the exact search for the shortest program. Iterative deepening over
 * machine states with a transposition table, counterexample-guided.
 *
 * A state is the register file's values on the test vectors. Pruning that keeps
 * the search exact for "programs that match on the test vectors":
 *  - states are deduplicated by value (two prefixes reaching the same values have
 *    the same futures), under canonical register renaming: r0 is the output, every
 *    other register is interchangeable, so a state hashes r0 apart and the rest as
 *    a multiset;
 *  - a write that changes nothing is dropped, and a dead write (overwritten before
 *    it is read) leads to a state already reached by a shorter prefix;
 *  - +0/-0 and NaN payloads are merged: the sign of a zero only ever reaches other
 *    zeros (no division in the machine) and the contract counts zeros equal;
 *  - r[a] * r[b] is generated once for each unordered pair (fmaf is commutative).
 * So "no program of length L matches the vectors" is a true lower bound. A program
 * that matches is then proved; a counterexample joins the vectors and the same
 * length is searched again, so the first proven program is a true minimum over the
 * literal pool and register count.
 */
#include "SearchInternal.h"
#include "fmag/Bits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXR 8
#define TT_BITS 23

typedef struct bfs {
    const fmag_superopt_target *t;
    unsigned nin, R, L, n;
    uint64_t full; /* mask of the n active lanes */
    float want[SO_NV];
    unsigned nopnd; /* R registers then the pool */
    float pool_rows[FMAG_SUPEROPT_MAX_POOL][SO_NV];
    float pool[FMAG_SUPEROPT_MAX_POOL];
    unsigned npool;
    uint64_t *tt; /* key with the depth in the low 4 bits; 0 = empty */
    size_t tt_used;
    uint64_t nodes;
    double deadline;
    bool timed_out, found;
    fmag_vm_decoded path[FMAG_SUPEROPT_MAX_LEN];
    fmag_vm_decoded sol[FMAG_SUPEROPT_MAX_LEN];
    float st[FMAG_SUPEROPT_MAX_LEN + 1][MAXR][SO_NV]; /* state per depth */
    uint64_t rh[FMAG_SUPEROPT_MAX_LEN + 1][MAXR];     /* per-register hashes */
} bfs;

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline __attribute__((always_inline)) uint64_t hash_row(const float *v, unsigned n)
{
    uint32_t acc[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (unsigned i = 0; i < n; i += 8)
        for (unsigned j = 0; j < 8; j++)
            acc[j] = (acc[j] ^ fmag_bits_of(v[i + j])) * 0x9E3779B1u + (acc[j] >> 15);
    uint64_t h = 0;
    for (unsigned j = 0; j < 8; j++)
        h = mix64(h ^ ((uint64_t)acc[j] << (j & 1 ? 32 : 0)) ^ j);
    return h;
}

static inline uint64_t state_key(const bfs *b, const uint64_t *rh)
{
    uint64_t h = mix64(rh[0] ^ 0xA5A5A5A5A5A5A5A5ull);
    for (unsigned r = 1; r < b->R; r++)
        h += mix64(rh[r] + 0x1234567ull); /* a sum: the order of r1..rR-1 is irrelevant */
    return h | 1;                         /* never 0 (empty slot) */
}

/* Returns true when the state should be explored at this depth (new, or only seen
 * deeper before) and records it. */
static bool tt_visit(bfs *b, uint64_t key, unsigned depth)
{
    if (!b->tt) return true;
    uint64_t k = key & ~0xFull;
    size_t mask = ((size_t)1 << TT_BITS) - 1;
    size_t i = (size_t)(key >> 20) & mask;
    for (unsigned probe = 0; probe < 64; probe++, i = (i + 1) & mask) {
        uint64_t e = b->tt[i];
        if (e == 0) {
            if (b->tt_used * 10 > mask * 7)
                return true; /* full: keep searching, just without this memo */
            b->tt[i] = k | depth;
            b->tt_used++;
            return true;
        }
        if ((e & ~0xFull) == k) {
            if ((e & 0xF) <= depth) return false;
            b->tt[i] = k | depth;
            return true;
        }
    }
    return true;
}

static fmag_vm_operand opnd(const bfs *b, unsigned j)
{
    fmag_vm_operand o = {false, 0, 0.0f};
    if (j < b->R) {
        o.is_reg = true;
        o.reg = (uint16_t)j;
    } else {
        o.imm = b->pool[j - b->R];
    }
    return o;
}

/* The instruction r[d] = (g > 0) ? r[a]*B + C : r[d]; guard index R means
 * "always" (literal 1.0). */
static void set_instr(const bfs *b, fmag_vm_decoded *ins, unsigned d, unsigned a, unsigned jb,
                      unsigned jc, unsigned g)
{
    ins->d = (uint16_t)d;
    ins->a = (uint16_t)a;
    ins->b = opnd(b, jb);
    ins->c = opnd(b, jc);
    ins->g.is_reg = g != b->R;
    ins->g.reg = g != b->R ? (uint16_t)g : 0;
    ins->g.imm = g != b->R ? 0.0f : 1.0f;
}

static inline const float *opnd_row(const bfs *b, const float (*st)[SO_NV], unsigned j)
{
    return j < b->R ? st[j] : b->pool_rows[j - b->R];
}

/* The last instruction: r0 must equal the target on every lane. */
static inline __attribute__((always_inline)) bool final_step(bfs *b, unsigned depth)
{
    const float(*st)[SO_NV] = b->st[depth];
    unsigned n = b->n;
    uint64_t m0 = 0, pos[MAXR + 1];
    for (unsigned i = 0; i < n; i++)
        m0 |= (uint64_t)(st[0][i] == b->want[i]) << i;
    for (unsigned r = 0; r < b->R; r++) {
        uint64_t m = 0;
        for (unsigned i = 0; i < n; i++)
            m |= (uint64_t)(st[r][i] > 0.0f) << i;
        pos[r] = m;
    }
    pos[b->R] = b->full;
    bool lane0_ok = (m0 & 1) != 0;
    float v[SO_NV] __attribute__((aligned(32)));
    for (unsigned a = 0; a < b->R; a++) {
        for (unsigned jb = 0; jb < b->nopnd; jb++) {
            if (jb < b->R && jb < a) continue; /* commutative product */
            const float *bv = opnd_row(b, st, jb);
            for (unsigned jc = 0; jc < b->nopnd; jc++) {
                const float *cv = opnd_row(b, st, jc);
                b->nodes++;
                if (!lane0_ok && !(fmaf(st[a][0], bv[0], cv[0]) == b->want[0])) continue;
                uint64_t e = 0;
                for (unsigned i = 0; i < n; i++) {
                    v[i] = fmaf(st[a][i], bv[i], cv[i]);
                    e |= (uint64_t)(v[i] == b->want[i]) << i;
                }
                for (unsigned g = 0; g <= b->R; g++) {
                    uint64_t ok = (pos[g] & e) | (~pos[g] & m0);
                    if ((ok & b->full) != b->full) continue;
                    memcpy(b->sol, b->path, depth * sizeof(fmag_vm_decoded));
                    set_instr(b, &b->sol[depth], 0, a, jb, jc, g);
                    return true;
                }
            }
        }
    }
    return false;
}

static bool dfs(bfs *b, unsigned depth)
{
    if ((b->nodes & 0xFFFF) == 0 && so_now() > b->deadline) {
        b->timed_out = true;
        return false;
    }
    if (b->timed_out) return false;
    if (depth + 1 == b->L) return final_step(b, depth);
    const float(*st)[SO_NV] = b->st[depth];
    float(*nx)[SO_NV] = b->st[depth + 1];
    unsigned n = b->n;
    float v[SO_NV] __attribute__((aligned(32)));
    float w[SO_NV] __attribute__((aligned(32)));
    for (unsigned a = 0; a < b->R; a++) {
        for (unsigned jb = 0; jb < b->nopnd; jb++) {
            if (jb < b->R && jb < a) continue;
            const float *bv = opnd_row(b, st, jb);
            for (unsigned jc = 0; jc < b->nopnd; jc++) {
                const float *cv = opnd_row(b, st, jc);
                for (unsigned i = 0; i < n; i++) {
                    float x = fmaf(st[a][i], bv[i], cv[i]);
                    x = x == 0.0f ? 0.0f : x; /* merge -0 into +0 */
                    v[i] = x != x ? NAN : x;  /* one NaN */
                }
                for (unsigned g = 0; g <= b->R; g++) {
                    for (unsigned d = 0; d < b->R; d++) {
                        const float *gv = g < b->R ? st[g] : NULL;
                        bool changed = false;
                        for (unsigned i = 0; i < n; i++) {
                            w[i] = (!gv || gv[i] > 0.0f) ? v[i] : st[d][i];
                            changed |= fmag_bits_of(w[i]) != fmag_bits_of(st[d][i]);
                        }
                        if (!changed) continue;
                        b->nodes++;
                        uint64_t rh[MAXR];
                        memcpy(rh, b->rh[depth], sizeof rh);
                        rh[d] = hash_row(w, n);
                        if (!tt_visit(b, state_key(b, rh), depth + 1)) continue;
                        memcpy(nx, st, sizeof(float) * SO_NV * b->R);
                        memcpy(nx[d], w, sizeof(float) * n);
                        memcpy(b->rh[depth + 1], rh, sizeof rh);
                        set_instr(b, &b->path[depth], d, a, jb, jc, g);
                        if (dfs(b, depth + 1)) return true;
                        if (b->timed_out) return false;
                    }
                }
            }
        }
    }
    return false;
}

__attribute__((target("avx2,fma"))) static bool dfs_avx2(bfs *b)
{
    return dfs(b, 0);
}
static bool dfs_generic(bfs *b)
{
    return dfs(b, 0);
}

static bool have_avx2(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

/* One length: search, then prove; on a counterexample add it and search again. */
static bool search_length(bfs *b, so_vectors *vec, const fmag_superopt_options *o,
                          fmag_superopt_result *r, bool avx2)
{
    for (;;) {
        /* lanes: round up to 8 by repeating lane 0 (a repeat changes nothing) */
        unsigned n = (vec->n + 7) & ~7u;
        if (n > SO_NV) n = SO_NV;
        b->n = n;
        b->full = n == 64 ? ~0ull : ((1ull << n) - 1);
        for (unsigned i = 0; i < n; i++) {
            unsigned s = i < vec->n ? i : 0;
            b->want[i] = vec->want[s];
            for (unsigned reg = 0; reg < b->R; reg++)
                b->st[0][reg][i] = reg < b->nin ? vec->in[reg][s] : 0.0f;
        }
        for (unsigned reg = 0; reg < b->R; reg++) {
            for (unsigned i = 0; i < n; i++) {
                float x = b->st[0][reg][i];
                b->st[0][reg][i] = x == 0.0f ? 0.0f : x;
            }
            b->rh[0][reg] = hash_row(b->st[0][reg], n);
        }
        for (unsigned j = 0; j < b->npool; j++)
            for (unsigned i = 0; i < n; i++)
                b->pool_rows[j][i] = b->pool[j];
        if (b->tt) {
            memset(b->tt, 0, sizeof(uint64_t) << TT_BITS);
            b->tt_used = 0;
        }
        bool hit;
        if (b->L == 0) {
            hit = true;
            for (unsigned i = 0; i < n; i++)
                hit &= b->st[0][0][i] == b->want[i];
        } else {
            hit = avx2 ? dfs_avx2(b) : dfs_generic(b);
        }
        if (!hit) return false;
        fmag_superopt_program p;
        memset(&p, 0, sizeof p);
        p.len = b->L;
        p.nin = b->nin;
        memcpy(p.code, b->sol, b->L * sizeof(fmag_vm_decoded));
        p.regs = fmag_superopt_program_regs_used(&p);
        fmag_superopt_proof proof;
        if (fmag_superopt_prove(b->t, &p, o->threads, o->prove_samples, &proof)) {
            r->prog = p;
            r->proof = proof;
            r->found = true;
            return true;
        }
        r->cegis_rounds++;
        if (!so_vectors_add(vec, b->t, proof.cex)) {
            /* cannot happen for a real counterexample; stop rather than loop */
            b->timed_out = true;
            return false;
        }
    }
}

bool fmag_superopt_bfs(const fmag_superopt_target *t, const fmag_superopt_options *o,
                       fmag_superopt_result *r, char *err, size_t errlen)
{
    double t0 = so_now();
    memset(r, 0, sizeof *r);
    if (t->nin < 1 || t->nin > 2) {
        snprintf(err, errlen, "targets must have one or two inputs");
        return false;
    }
    unsigned max_len = o->max_len ? o->max_len : 3;
    if (max_len > 8) {
        snprintf(err, errlen,
                 "--max-len %u is beyond what an exact search can finish; use "
                 "the stochastic search",
                 max_len);
        return false;
    }
    if (o->regs > MAXR || (o->regs && o->regs < t->nin)) {
        snprintf(err, errlen, "--regs must be between %u and %u for the exact search", t->nin,
                 MAXR);
        return false;
    }
    bfs *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    b->t = t;
    b->nin = t->nin;
    if (o->pool) {
        if (o->npool > FMAG_SUPEROPT_MAX_POOL) {
            snprintf(err, errlen, "literal pool larger than %d", FMAG_SUPEROPT_MAX_POOL);
            free(b);
            return false;
        }
        memcpy(b->pool, o->pool, o->npool * sizeof(float));
        b->npool = o->npool;
    } else {
        b->npool = fmag_superopt_default_pool(t, b->pool);
    }
    r->npool = b->npool;
    memcpy(r->pool, b->pool, b->npool * sizeof(float));
    b->tt = malloc(sizeof(uint64_t) << TT_BITS);
    b->deadline = t0 + (o->time_limit > 0 ? o->time_limit : 60.0);
    so_vectors vec;
    so_vectors_init(&vec, t, 32, o->seed);
    bool avx2 = have_avx2();
    for (unsigned L = 0; L <= max_len; L++) {
        unsigned R = o->regs ? o->regs : t->nin + (L ? L - 1 : 0);
        if (R < t->nin) R = t->nin;
        if (R > MAXR) R = MAXR;
        b->L = L;
        b->R = R;
        b->nopnd = R + b->npool;
        r->regs_tried = R;
        if (search_length(b, &vec, o, r, avx2)) {
            r->minimal = true;
            r->lower_bound = L;
            break;
        }
        if (b->timed_out) {
            r->timed_out = true;
            break;
        }
        r->lower_bound = L + 1;
    }
    r->nodes = b->nodes;
    r->search_seconds = so_now() - t0 - (r->found ? r->proof.seconds : 0.0);
    free(b->tt);
    free(b);
    return true;
}
