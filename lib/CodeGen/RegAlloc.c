/* Lowering, third phase: register allocation over one schedule, and emission.
 *
 * Straight-line code, so this is a single forward scan (a linear scan over exact
 * live ranges). Each register is in one of five states: holding a live value,
 * pristine (a non-input register never written: it still holds the +0.0 the
 * calling convention guarantees), a known literal, a dead input (still holding
 * the input), or stale (other dead content).
 *
 * Per node x = (g > 0) ? fmaf(a, b, c) : d:
 *  - unconditional: any register may take x, including one of an operand that
 *    dies here (operands are read before the write);
 *  - value fallback dying here: x is written over it, no copy;
 *  - value fallback still live: copy it first (1 instruction); x takes the copy,
 *    or takes the original when that register is where x wants to end up, and the
 *    fallback's later readers use the copy;
 *  - fallback ±0: a pristine register is a free zero (never an instruction);
 *  - other literal fallback: materialize it, r = z*0 + k with z known finite;
 *  - both factors literal (folding could not remove them): the literal a is
 *    materialized once into a register and reused while that register keeps it.
 * Registers are chosen by: the output register the value is headed for (hints
 * propagate from ret back through dying fallbacks), not stepping on an output
 * register before its own value is written there nor making a two-cycle for the
 * final shuffle, not opening a new register, then (policy) stale before literal
 * before pristine, then lowest index. The policy bits are in CGInternal.h (cg_policy_bit).
 * At the end the outputs are a parallel copy into r[0..nout-1], sequentialized
 * with one scratch register for cycles; literal outputs are written last.
 */
#include "CGInternal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Under AddressSanitizer the arrays carved from one block (ra_alloc) are kept apart by
 * poisoned gaps, so that a read past one array is caught, not taken from the next. */
#if defined(__SANITIZE_ADDRESS__)
#define RA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RA_ASAN 1
#endif
#endif
#ifdef RA_ASAN
#include <sanitizer/asan_interface.h>
enum { RA_GAP = 16 };
#else
enum { RA_GAP = 0 };
#endif

enum { R_PRISTINE, R_STALE, R_INPUT, R_CONST, R_VALUE };
/* Classes of the free registers, so that pick() looks at a few candidates instead
 * of scanning every register (which made lowering quadratic on programs with
 * hundreds of live values). Literal registers are split by zero or not because a
 * zero fallback wants exactly those. */
enum { C_PRISTINE, C_STALE, C_INPUT, C_CONST0, C_CONSTK, NCLASS, C_NONE = NCLASS };

typedef struct ra {
    const cg_dag *g;
    const unsigned *order;
    unsigned norder;
    cg_policy policy;
    cg_policy track;     /* policy bits (clear in `policy`) whose influence is watched */
    cg_policy sensitive; /* of those, the ones that would have changed a decision */
    unsigned nv, maxregs, used;
    int *vreg;      /* per value: its register or -1 */
    unsigned *left; /* per value: operand reads still to come */
    bool *is_out;
    unsigned *last;             /* per value: position of the last read; UINT32_MAX for outputs */
    int *hint;                  /* per value: the output register it should land in, or -1 */
    uint8_t *rkind;             /* per register: R_* */
    int *rval;                  /* per register: the value held (R_VALUE) */
    float *rconst;              /* per register: the literal held (R_CONST) */
    uint64_t *free_set[NCLASS]; /* per class: bitset of the registers in it */
    unsigned nfree[NCLASS];     /* per class: how many registers are in it */
    unsigned nwords;
    unsigned ready; /* the per-register state is valid below this (ready_regs()) */
    /* per class: class_key_bound(), the same for every pick (pick()'s nout is the
     * DAG's: `used` is at least nout) */
    uint64_t class_bound[NCLASS];
    /* Of the nodes still to lower, for can_beat's bound (counted only when `bounded`): */
    bool bounded;
    unsigned copies_left; /* those whose value fallback is still read later (a copy each) */
    unsigned lits_left;   /* those with a nonzero literal fallback (a literal register each) */
    unsigned zeros_left;  /* those with a zero fallback (a free zero register each) */
    bool zeros_exact;     /* no literal `a` is a zero: only pristine registers are zeros */
    unsigned regs_floor;  /* registers any allocation of the order needs (regs_floor()) */
    unsigned *res_start;  /* per output register: position from which its value chain owns it */
    cg_result *res;
    unsigned cap;
    /* the final shuffle has begun: from here on a register may hold a copy of an
     * input that vreg does not point to (find_finite) */
    bool shuffling;
    bool fail;
} ra;

static fmag_vm_operand reg_op(unsigned r)
{
    fmag_vm_operand o = {true, (uint16_t)r, 0.0f};
    return o;
}

static fmag_vm_operand imm_op(float f)
{
    fmag_vm_operand o = {false, 0, f};
    return o;
}

/* Makes the per-register state of registers below `upto` (and maxregs) valid: they
 * start pristine, those below nin as inputs; filled 64 registers (one class-set
 * word) at a time. Only registers up to `used` are ever looked at, and programs
 * use far fewer than maxregs, so the state is not filled for all of them upfront. */
static void ready_regs(ra *s, unsigned upto)
{
    unsigned nin = s->g->nin < s->maxregs ? s->g->nin : s->maxregs;
    while (s->ready < upto && s->ready < s->maxregs) {
        unsigned w = s->ready / 64, lo = w * 64;
        unsigned hi = lo + 64 < s->maxregs ? lo + 64 : s->maxregs;
        for (unsigned r = lo; r < hi; r++) {
            s->rkind[r] = r < nin ? R_INPUT : R_PRISTINE;
            s->rval[r] = -1;
            s->rconst[r] = 0.0f;
        }
        uint64_t below_hi = hi - lo == 64 ? ~0ull : (1ull << (hi - lo)) - 1;
        uint64_t below_nin = nin <= lo ? 0 : nin - lo >= 64 ? ~0ull : (1ull << (nin - lo)) - 1;
        for (unsigned c = 0; c < NCLASS; c++)
            s->free_set[c][w] = 0;
        s->free_set[C_INPUT][w] = below_hi & below_nin;
        s->free_set[C_PRISTINE][w] = below_hi & ~below_nin;
        s->ready = hi;
    }
}

static void touch(ra *s, unsigned r)
{
    if (r + 1 <= s->used) return;
    s->used = r + 1;
    /* pick() looks at register `used` too */
    if (s->used >= s->ready) ready_regs(s, s->used + 1);
}

static unsigned class_of(const ra *s, unsigned r)
{
    switch (s->rkind[r]) {
    case R_PRISTINE:
        return C_PRISTINE;
    case R_STALE:
        return C_STALE;
    case R_INPUT:
        return C_INPUT;
    case R_CONST:
        return s->rconst[r] == 0.0f ? C_CONST0 : C_CONSTK;
    default:
        return C_NONE;
    }
}

static void class_remove(ra *s, unsigned r)
{
    unsigned c = class_of(s, r);
    if (c == C_NONE) return;
    s->free_set[c][r / 64] &= ~(1ull << (r % 64));
    s->nfree[c]--;
}

static void class_add(ra *s, unsigned r)
{
    unsigned c = class_of(s, r);
    if (c == C_NONE) return;
    s->free_set[c][r / 64] |= 1ull << (r % 64);
    s->nfree[c]++;
}

static void set_kind(ra *s, unsigned r, uint8_t kind)
{
    /* the class follows from the kind alone but for literals */
    if (kind == s->rkind[r] && kind != R_CONST) return;
    class_remove(s, r);
    s->rkind[r] = kind;
    class_add(s, r);
}

static void set_const(ra *s, unsigned r, float k)
{
    class_remove(s, r);
    s->rkind[r] = R_CONST;
    s->rconst[r] = k;
    class_add(s, r);
}

/* The lowest register >= from and < limit in class c, or -1. */
static int class_first(const ra *s, unsigned c, unsigned from, unsigned limit)
{
    for (unsigned w = from / 64; w * 64 < limit; w++) {
        uint64_t bits = s->free_set[c][w];
        if (w == from / 64) bits &= ~0ull << (from % 64);
        if (!bits) continue;
        unsigned r = w * 64 + (unsigned)__builtin_ctzll(bits);
        return r < limit ? (int)r : -1;
    }
    return -1;
}

static void emit(ra *s, unsigned d, unsigned a, fmag_vm_operand b, fmag_vm_operand c,
                 fmag_vm_operand g)
{
    if (s->fail) return;
    if (s->res->ncode == s->cap) {
        unsigned ncap = s->cap ? s->cap * 2 : 64;
        fmag_vm_decoded *nc = fmag_tmp_realloc(s->res->code, sizeof *nc * ncap);
        if (!nc) {
            s->fail = true;
            return;
        }
        s->res->code = nc;
        s->cap = ncap;
    }
    touch(s, d);
    touch(s, a);
    if (b.is_reg) touch(s, b.reg);
    if (c.is_reg) touch(s, c.reg);
    if (g.is_reg) touch(s, g.reg);
    fmag_vm_decoded *i = &s->res->code[s->res->ncode++];
    i->d = (uint16_t)d;
    i->a = (uint16_t)a;
    i->b = b;
    i->c = c;
    i->g = g;
}

static void emit_move(ra *s, unsigned to, unsigned from)
{
    emit(s, to, from, imm_op(1.0f), imm_op(-0.0f), imm_op(1.0f));
    s->res->moves++;
}

static fmag_vm_operand opnd_of(ra *s, cg_ref r)
{
    if (cg_is_val(r)) return reg_op((unsigned)s->vreg[r.v]);
    return imm_op(r.imm);
}

/* Registers z for which z*0 + k == k. Pristine zeros and literals always are;
 * an input is too wherever the strict contract applies (it covers only runs in
 * which no value, inputs included, is an infinity or a NaN; -O2 itself relies on
 * this when it folds x*0 to 0). Intermediate values are not: if-conversion may
 * compute an arm the unoptimized program never ran. */
static bool known_finite(const ra *s, unsigned r)
{
    return s->rkind[r] == R_PRISTINE || s->rkind[r] == R_CONST || s->rkind[r] == R_INPUT ||
           (s->rkind[r] == R_VALUE && s->rval[r] >= 0 && s->rval[r] < (int)s->g->nin);
}

/* How good taking a free register is (pick_key's fourth field), lower better. */
typedef enum pick_reuse {
    REUSE_DYING,   /* an operand register this very instruction frees */
    REUSE_STALE,   /* stale content or a dead input; any free register under
                      CG_POLICY_LOWEST_INDEX */
    REUSE_CONST,   /* a literal that a later materialization may still want */
    REUSE_PRISTINE /* a never-written +0.0, the free zero that zero fallbacks want */
} pick_reuse;

/* pick_key's fields, most significant first: the hint (0: r is where x is headed),
 * a conflict (1: r is reserved for another output, or closes a shuffle cycle), a
 * new register (1: r >= used), the reuse rank, then the index r. Packing them into
 * one integer compares them lexicographically because no field reaches into the
 * next: r < FMAG_VM_MAX_REGS + 1 <= 2^PICK_REG_BITS (checked below), the reuse rank
 * is at most REUSE_PRISTINE = 3 < 2^PICK_REUSE_BITS, the others are 0 or 1; and the
 * top field ends at bit PICK_HINT_SHIFT < 63, so every packed key is below the
 * UINT64_MAX that marks an ineligible register. */
enum {
    PICK_REG_BITS = 34,
    PICK_REUSE_BITS = 4,
    PICK_REUSE_SHIFT = PICK_REG_BITS,
    PICK_NEW_SHIFT = PICK_REUSE_SHIFT + PICK_REUSE_BITS,
    PICK_CONFLICT_SHIFT = PICK_NEW_SHIFT + 1,
    PICK_HINT_SHIFT = PICK_CONFLICT_SHIFT + 1,
};
_Static_assert((uint64_t)FMAG_VM_MAX_REGS < (UINT64_C(1) << PICK_REG_BITS),
               "a register index fits pick_key's low field");
_Static_assert(REUSE_PRISTINE < (1u << PICK_REUSE_BITS), "the reuse rank fits its field");
_Static_assert(PICK_HINT_SHIFT < 63, "a packed key stays below UINT64_MAX");

/* What pick() knows of candidate register r for value x, whatever the policy. */
typedef struct pick_cand {
    bool eligible;     /* free, or an operand register this instruction frees */
    bool dies;         /* the latter */
    bool reserved;     /* output register of another value x would still be live at */
    bool shuffle_only; /* ... which wants it only for the final shuffle */
    pick_reuse reuse;  /* the reuse rank by content (without CG_POLICY_LOWEST_INDEX) */
} pick_cand;

static pick_cand pick_cand_of(const ra *s, int x, unsigned r, const int *dying, unsigned ndying,
                              bool zero_only)
{
    pick_cand c = {false, false, false, false, REUSE_STALE};
    if (s->rkind[r] == R_VALUE) {
        /* only a register holding a value can be a dying operand's */
        for (unsigned k = 0; k < ndying; k++)
            c.dies |= dying[k] == (int)r;
        if (!c.dies) return c;
    }
    if (zero_only && (c.dies || !(s->rkind[r] == R_PRISTINE ||
                                  (s->rkind[r] == R_CONST && s->rconst[r] == 0.0f))))
        return c;
    c.eligible = true;
    c.reserved = x >= 0 && r < s->g->nout && s->hint[x] != (int)r && s->last[x] > s->res_start[r];
    /* res_start has an entry per output register only (nout + 1); the flag matters
     * only for a reserved register, one of those. */
    c.shuffle_only = r < s->g->nout && s->res_start[r] >= s->norder;
    c.reuse = c.dies                                             ? REUSE_DYING
              : s->rkind[r] == R_STALE || s->rkind[r] == R_INPUT ? REUSE_STALE
              : s->rkind[r] == R_CONST                           ? REUSE_CONST
                                                                 : REUSE_PRISTINE;
    return c;
}

/* pick()'s order for candidate c = register r under `policy` (lower is better;
 * UINT64_MAX: not eligible). */
static uint64_t pick_key(const ra *s, cg_policy policy, int x, unsigned r, pick_cand c, int cycle)
{
    if (!c.eligible) return UINT64_MAX;
    uint64_t off_hint = (x >= 0 && s->hint[x] == (int)r) ? 0 : 1;
    /* A register wanted only by the final shuffle is not reserved under
     * CG_POLICY_SHUFFLE_UNRESERVED (the parallel copy sorts it out, at worst through
     * the scratch). */
    bool conflicts = c.reserved && !(policy & CG_POLICY_NO_RESERVE) &&
                     !((policy & CG_POLICY_SHUFFLE_UNRESERVED) && c.shuffle_only);
    uint64_t conflict = conflicts || (int)r == cycle ? 1 : 0;
    uint64_t is_new = r >= s->used ? 1 : 0;
    pick_reuse reuse = !c.dies && (policy & CG_POLICY_LOWEST_INDEX) ? REUSE_STALE : c.reuse;
    return off_hint << PICK_HINT_SHIFT | conflict << PICK_CONFLICT_SHIFT |
           is_new << PICK_NEW_SHIFT | (uint64_t)reuse << PICK_REUSE_SHIFT | r;
}

/* pick()'s search: the candidate with the least key so far, and per watched policy
 * bit the one that bit would have chosen. */
typedef struct pick_search {
    int x, cycle;
    const int *dying;
    unsigned ndying, limit;
    bool zero_only;
    cg_policy watch;
    uint64_t best_key;
    int best;
    uint64_t alt_key[CG_POLICY_BITS];
    int alt[CG_POLICY_BITS];
} pick_search;

static void pick_consider(const ra *s, pick_search *ps, int r)
{
    if (r < 0 || (unsigned)r >= ps->limit) return;
    pick_cand pc = pick_cand_of(s, ps->x, (unsigned)r, ps->dying, ps->ndying, ps->zero_only);
    uint64_t key = pick_key(s, s->policy, ps->x, (unsigned)r, pc, ps->cycle);
    if (key < ps->best_key) {
        ps->best_key = key;
        ps->best = r;
    }
    for (unsigned b = 0; ps->watch >> b; b++) {
        if (!(ps->watch & 1u << b)) continue;
        uint64_t k = pick_key(s, s->policy | 1u << b, ps->x, (unsigned)r, pc, ps->cycle);
        if (k < ps->alt_key[b]) {
            ps->alt_key[b] = k;
            ps->alt[b] = r;
        }
    }
}

/* The least key any free register of class c at or above nout can have: off its hint
 * (the hint is a candidate of its own), no conflict, not new, the class's reuse rank,
 * index nout. */
static uint64_t class_key_bound(const ra *s, unsigned c, unsigned nout)
{
    pick_reuse reuse = (s->policy & CG_POLICY_LOWEST_INDEX) || c == C_STALE || c == C_INPUT
                           ? REUSE_STALE
                       : c == C_PRISTINE ? REUSE_PRISTINE
                                         : REUSE_CONST;
    return UINT64_C(1) << PICK_HINT_SHIFT | (uint64_t)reuse << PICK_REUSE_SHIFT | nout;
}

/* The best register for value x (-1: a transient literal). `dying` are registers
 * of operands read by this very instruction that may be overwritten by it.
 * The order is pick_key's over every register below `used` + 1; only these can be
 * the minimum: the hint, the dying registers, the cycle register, the output
 * registers (the only ones a reservation can mark), register `used`, and per class
 * of free registers the lowest two at or above nout (one of them is not `cycle`).
 * A class, or register `used`, is not looked at when no register of it can beat the
 * best key so far (keys of different registers differ, so this changes no choice);
 * with policy bits watched every one is, for their choices. An output register that
 * holds a value is skipped: it is not eligible unless dying, and the dying ones are
 * looked at already. */
static int pick(ra *s, int x, const int *dying, unsigned ndying, bool zero_only)
{
    pick_search ps;
    ps.x = x;
    ps.dying = dying;
    ps.ndying = ndying < 8 ? ndying : 8;
    ps.zero_only = zero_only;
    ps.limit = s->used + 1 < s->maxregs ? s->used + 1 : s->maxregs;
    /* x headed for register h held by w, which is headed for register k: x in k
     * would make a cycle for the final shuffle (a scratch and a move more). */
    ps.cycle = -1;
    if (x >= 0 && s->hint[x] >= 0 && s->rkind[s->hint[x]] == R_VALUE && s->rval[s->hint[x]] >= 0)
        ps.cycle = s->hint[s->rval[s->hint[x]]];
    /* The choice each watched policy bit would have made, set. */
    ps.watch = s->track & ~s->sensitive & CG_POLICY_PICK_BITS;
    ps.best_key = UINT64_MAX;
    ps.best = -1;
    for (unsigned b = 0; b < CG_POLICY_BITS; b++) {
        ps.alt_key[b] = UINT64_MAX;
        ps.alt[b] = -1;
    }
    pick_consider(s, &ps, x >= 0 ? s->hint[x] : -1);
    pick_consider(s, &ps, ps.cycle);
    for (unsigned k = 0; k < ps.ndying; k++)
        pick_consider(s, &ps, dying[k]);
    unsigned nout = s->g->nout < ps.limit ? s->g->nout : ps.limit;
    /* a register holding a value is either not eligible or a dying one, just seen */
    for (unsigned r = 0; r < nout; r++)
        if (s->rkind[r] != R_VALUE) pick_consider(s, &ps, (int)r);
    /* the classes by reuse rank, the likeliest winners first (the zeros alone for a
     * zero fallback); an empty class has no register to look for */
    static const uint8_t class_order[NCLASS] = {C_STALE, C_INPUT, C_CONST0, C_CONSTK, C_PRISTINE};
    static const uint8_t zero_order[2] = {C_CONST0, C_PRISTINE};
    const uint8_t *classes = zero_only ? zero_order : class_order;
    unsigned nclasses = zero_only ? 2 : NCLASS;
    for (unsigned i = 0; i < nclasses; i++) {
        unsigned c = classes[i];
        if (!s->nfree[c] || (!ps.watch && s->class_bound[c] >= ps.best_key)) continue;
        int r1 = class_first(s, c, nout, ps.limit);
        pick_consider(s, &ps, r1);
        if (r1 >= 0) pick_consider(s, &ps, class_first(s, c, (unsigned)r1 + 1, ps.limit));
    }
    /* A new register (never a hint or the cycle register: both are below nout) is
     * off its hint and new at least. */
    if (ps.watch || ps.best_key > (UINT64_C(1) << PICK_HINT_SHIFT | UINT64_C(1) << PICK_NEW_SHIFT))
        pick_consider(s, &ps, (int)s->used);
    for (unsigned b = 0; ps.watch >> b; b++)
        if ((ps.watch & 1u << b) && ps.alt[b] != ps.best) s->sensitive |= 1u << b;
    if (ps.best < 0) s->fail = true;
    return ps.best;
}

/* Some register whose content is a known finite literal (for z*0 + k): the lowest
 * known_finite one below `used`, else a new one. */
static int find_finite(ra *s)
{
    /* The lowest free register that is pristine, a dead input or a literal... */
    unsigned lowest = s->used;
    for (unsigned w = 0; w * 64 < s->used; w++) {
        uint64_t bits = s->free_set[C_PRISTINE][w] | s->free_set[C_INPUT][w] |
                        s->free_set[C_CONST0][w] | s->free_set[C_CONSTK][w];
        if (!bits) continue;
        unsigned r = w * 64 + (unsigned)__builtin_ctzll(bits);
        if (r < lowest) lowest = r;
        break;
    }
    /* ... unless one below holds a live input: before the final shuffle only the
     * register vreg names holds an input, so the inputs are looked up when fewer than
     * the registers below. */
    if (!s->shuffling && s->g->nin < lowest) {
        for (unsigned p = 0; p < s->g->nin; p++)
            if (s->vreg[p] >= 0 && (unsigned)s->vreg[p] < lowest) lowest = (unsigned)s->vreg[p];
    } else {
        for (unsigned r = 0; r < lowest; r++)
            if (known_finite(s, r)) {
                lowest = r;
                break;
            }
    }
    if (lowest < s->used) return (int)lowest;
    if (s->used < s->maxregs) {
        unsigned r = s->used;
        touch(s, r);
        return (int)r;
    }
    s->fail = true;
    return -1;
}

/* Writes literal k into register t (which must not hold a live value). */
static void materialize(ra *s, unsigned t, float k)
{
    int z = known_finite(s, t) ? (int)t : find_finite(s);
    if (z < 0) return;
    emit(s, t, (unsigned)z, imm_op(0.0f), imm_op(k), imm_op(1.0f));
    s->res->consts++;
    set_const(s, t, k);
    s->rval[t] = -1;
}

static bool same_bits(float a, float b)
{
    return fmag_bits_of(a) == fmag_bits_of(b);
}

/* A register holding literal k for reading as `a`, materialized if needed. */
static int const_reg(ra *s, float k)
{
    for (unsigned r = 0; r < s->used; r++)
        if (s->rkind[r] == R_CONST && same_bits(s->rconst[r], k)) return (int)r;
    int t = pick(s, -1, NULL, 0, false);
    if (t >= 0) materialize(s, (unsigned)t, k);
    return t;
}

static void release_if_dead(ra *s, int v, unsigned keep)
{
    if (v < 0 || s->left[v] || s->is_out[v] || s->vreg[v] < 0) return;
    unsigned r = (unsigned)s->vreg[v];
    s->vreg[v] = -1;
    if (r != keep) {
        set_kind(s, r, v < (int)s->g->nin ? R_INPUT : R_STALE);
        s->rval[r] = -1;
    }
}

/* The count of can_beat's bound that node n, at position pos, is one of (NULL: none).
 * A value fallback still read later is copied (lower_node's test, left or is_out,
 * is last > pos: outputs have last UINT32_MAX). */
static unsigned *fallback_count(ra *s, const cg_node *n, unsigned pos)
{
    if (n->uncond) return NULL;
    cg_ref f = n->op[FMAG_D];
    if (cg_is_val(f)) return s->last[f.v] > pos ? &s->copies_left : NULL;
    return cg_is_zero(f) ? &s->zeros_left : &s->lits_left;
}

static void lower_node(ra *s, unsigned pos)
{
    const cg_dag *g = s->g;
    const cg_node *n = &g->nodes[s->order[pos]];
    int x = (int)(g->nin + s->order[pos]);
    const cg_ref *op = n->op;
    for (unsigned k = 0; k < 5; k++)
        if (cg_is_val(op[k])) s->left[op[k].v]--;
    if (s->bounded) {
        unsigned *count = fallback_count(s, n, pos);
        if (count) (*count)--;
    }

    fmag_vm_operand b = opnd_of(s, op[FMAG_B]), c = opnd_of(s, op[FMAG_C]);
    fmag_vm_operand gd = n->uncond ? imm_op(1.0f) : opnd_of(s, op[FMAG_E]);
    int a;
    bool z_late = false;
    if (cg_is_val(op[FMAG_A])) {
        a = s->vreg[op[FMAG_A].v];
    } else {
        /* Both factors are literals (swapping put any register factor in a). */
        float k =
            cg_is_const(op[FMAG_C]) ? fmaf(op[FMAG_A].imm, op[FMAG_B].imm, op[FMAG_C].imm) : 0.0f;
        if (cg_is_const(op[FMAG_C]) && isfinite(k)) {
            /* z*0 + k: z is chosen once the destination is known (it may be z). */
            z_late = true;
            a = 0;
            b = imm_op(0.0f);
            c = imm_op(k);
        } else {
            a = const_reg(s, op[FMAG_A].imm);
        }
    }
    if (s->fail || a < 0) return;
    /* A literal `a` register must survive until this instruction reads it. */
    int shield = cg_is_val(op[FMAG_A]) || z_late ? -1 : a;
    uint8_t shield_kind = shield >= 0 ? s->rkind[shield] : 0;
    if (shield >= 0) set_kind(s, shield, R_VALUE);

    int d;
    if (n->uncond) {
        int dying[3];
        unsigned nd = 0;
        for (unsigned k = FMAG_A; k <= FMAG_C; k++) {
            int v = op[k].v;
            if (v >= 0 && !s->left[v] && !s->is_out[v]) dying[nd++] = s->vreg[v];
        }
        d = pick(s, x, dying, nd, false);
    } else if (cg_is_val(op[FMAG_D])) {
        int fv = op[FMAG_D].v;
        int rd = s->vreg[fv];
        if (!s->left[fv] && !s->is_out[fv]) {
            d = rd;
        } else if (s->hint[x] == rd) {
            /* x belongs in rd: the still-live fallback moves out of its way. */
            int t = pick(s, fv, NULL, 0, false);
            if (t < 0) return;
            emit_move(s, (unsigned)t, (unsigned)rd);
            s->vreg[fv] = t;
            set_kind(s, t, R_VALUE);
            s->rval[t] = fv;
            s->rval[rd] = -1;
            d = rd;
        } else {
            d = pick(s, x, NULL, 0, false);
            if (d < 0) return;
            emit_move(s, (unsigned)d, (unsigned)rd);
            set_kind(s, d, R_VALUE); /* holds the copy now: not a finite source */
        }
    } else if (cg_is_zero(op[FMAG_D])) {
        d = pick(s, x, NULL, 0, true);
    } else {
        float k = op[FMAG_D].imm;
        d = -1;
        for (unsigned r = 0; r < s->used && d < 0; r++)
            if (s->rkind[r] == R_CONST && same_bits(s->rconst[r], k)) d = (int)r;
        if (d < 0) {
            d = pick(s, x, NULL, 0, false);
            if (d >= 0) materialize(s, (unsigned)d, k);
        }
    }
    if (shield >= 0) set_kind(s, shield, shield_kind);
    if (z_late && d >= 0) {
        /* d itself when its content is a known finite literal or input (a pristine
         * zero fallback, a materialized one, or a free register when unconditional). */
        bool d_ok = (n->uncond || cg_is_const(op[FMAG_D])) && known_finite(s, (unsigned)d);
        a = d_ok ? d : find_finite(s);
        if (a < 0) return;
    }
    if (s->fail || d < 0) {
        s->fail = true;
        return;
    }
    emit(s, (unsigned)d, (unsigned)a, b, c, gd);
    for (unsigned k = 0; k < 5; k++)
        release_if_dead(s, op[k].v, (unsigned)d);
    if (s->rkind[d] == R_VALUE && s->rval[d] >= 0 && s->rval[d] != x) s->vreg[s->rval[d]] = -1;
    set_kind(s, d, R_VALUE);
    s->rval[d] = x;
    s->vreg[x] = d;
    if (!s->left[x] && !s->is_out[x]) {
        s->vreg[x] = -1;
        set_kind(s, d, R_STALE);
        s->rval[d] = -1;
    }
    /* Policy bit 2: an output that missed its register moves there as soon as the
     * register is free, instead of at the end (same count, shorter life). */
    int h = s->hint[x];
    bool early = s->is_out[x] && h >= 0 && h != d && s->rkind[h] != R_VALUE;
    if (early && !(s->policy & CG_POLICY_EARLY_OUTPUT)) s->sensitive |= CG_POLICY_EARLY_OUTPUT;
    if ((s->policy & CG_POLICY_EARLY_OUTPUT) && early) {
        emit_move(s, (unsigned)h, (unsigned)d);
        set_kind(s, d, R_STALE);
        s->rval[d] = -1;
        set_kind(s, h, R_VALUE);
        s->rval[h] = x;
        s->vreg[x] = h;
    }
}

/* The outputs as a parallel copy into r[0..nout-1]. */
static void shuffle_outputs(ra *s)
{
    const cg_dag *g = s->g;
    unsigned nout = g->nout;
    s->shuffling = true;
    int *src =
        fmag_tmp_malloc(sizeof *src * (nout + 1)); /* pending source register per target, or -1 */
    if (!src) {
        s->fail = true;
        return;
    }
    unsigned pending = 0;
    for (unsigned j = 0; j < nout; j++) {
        src[j] = -1;
        if (cg_is_val(g->outs[j]) && s->vreg[g->outs[j].v] != (int)j) {
            src[j] = s->vreg[g->outs[j].v];
            pending++;
        }
    }
    while (pending && !s->fail) {
        bool progress = false;
        for (unsigned j = 0; j < nout; j++) {
            if (src[j] < 0) continue;
            bool needed = false;
            for (unsigned k = 0; k < nout && !needed; k++)
                needed = k != j && src[k] == (int)j;
            if (needed) continue;
            emit_move(s, j, (unsigned)src[j]);
            set_kind(s, j, R_VALUE);
            s->rval[j] = s->rval[src[j]];
            src[j] = -1;
            pending--;
            progress = true;
        }
        if (progress) continue;
        /* Only cycles remain: park one target's content in a scratch register. */
        unsigned j = 0;
        while (src[j] < 0)
            j++;
        unsigned scratch = nout;
        for (;; scratch++) {
            bool busy = scratch >= s->maxregs;
            for (unsigned k = 0; k < nout && !busy; k++)
                busy = src[k] == (int)scratch;
            if (scratch >= s->maxregs) {
                s->fail = true;
                break;
            }
            if (!busy) break;
        }
        if (s->fail) break;
        emit_move(s, scratch, j);
        set_kind(s, scratch, R_VALUE);
        s->rval[scratch] = s->rval[j];
        for (unsigned k = 0; k < nout; k++)
            if (src[k] == (int)j) src[k] = (int)scratch;
    }
    fmag_tmp_free(src);
    for (unsigned j = 0; j < nout && !s->fail; j++) {
        if (!cg_is_const(g->outs[j])) continue;
        float k = g->outs[j].imm;
        if (k == 0.0f && s->rkind[j] == R_PRISTINE) continue;
        if (s->rkind[j] == R_CONST &&
            (same_bits(s->rconst[j], k) || (k == 0.0f && s->rconst[j] == 0.0f)))
            continue;
        materialize(s, j, k);
        set_kind(s, j, R_VALUE);
        s->rval[j] = -1;
    }
}

/* The next n elements of `size` bytes from *p (then a poisoned gap under ASan). */
static void *carve(char **p, size_t n, size_t size)
{
    void *at = *p;
    *p += n * size;
#ifdef RA_ASAN
    ASAN_POISON_MEMORY_REGION(*p, RA_GAP);
#endif
    *p += RA_GAP;
    return at;
}

/* Every per-value and per-register array of one allocation in one block (the search
 * calls this hundreds of times per function: one allocation instead of ten), the
 * per-value arrays initialized (the per-register ones are by ready_regs()). Returns
 * the block, NULL when out of memory. */
static void *ra_alloc(ra *s, unsigned nout)
{
    size_t nv = (size_t)s->nv + 1, nr = (size_t)s->maxregs + 1;
    s->nwords = (s->maxregs + 64) / 64;
    /* 8-byte words first, then the 4-byte arrays, then the bytes: all aligned */
    size_t words = (size_t)NCLASS * s->nwords;
    size_t bytes = words * sizeof(uint64_t) + 4 * nv * sizeof(int) + nr * sizeof(int) +
                   nr * sizeof(float) + (nout + 1u) * sizeof(unsigned) + nv + nr +
                   (NCLASS + 9) * (size_t)RA_GAP;
    char *b = fmag_tmp_malloc(bytes), *p = b;
    if (!b) return NULL;
    for (unsigned c = 0; c < NCLASS; c++)
        s->free_set[c] = carve(&p, s->nwords, sizeof(uint64_t));
    s->vreg = carve(&p, nv, sizeof *s->vreg);
    s->left = carve(&p, nv, sizeof *s->left);
    s->last = carve(&p, nv, sizeof *s->last);
    s->hint = carve(&p, nv, sizeof *s->hint);
    s->rval = carve(&p, nr, sizeof *s->rval);
    s->rconst = carve(&p, nr, sizeof *s->rconst);
    s->res_start = carve(&p, nout + 1u, sizeof *s->res_start);
    s->is_out = carve(&p, nv, sizeof *s->is_out);
    s->rkind = carve(&p, nr, sizeof *s->rkind);
    memset(s->vreg, 0xFF, sizeof *s->vreg * nv); /* -1: no register, no hint */
    memset(s->hint, 0xFF, sizeof *s->hint * nv);
    memset(s->left, 0, sizeof *s->left * nv);
    memset(s->last, 0, sizeof *s->last * nv);
    memset(s->is_out, 0, sizeof *s->is_out * nv);
    memset(s->res_start, 0, sizeof *s->res_start * (nout + 1u));
    return b;
}

/* Registers every allocation of the order needs, whatever its choices: the most, over
 * the points between nodes, of the values live there (each in a register of its own),
 * plus one when the next node has a nonzero literal fallback (its literal sits in a
 * register that holds no value), plus, when zeros_exact, the zero fallbacks still to
 * come (each writes over a register pristine until then, so holding no value). Called
 * before the first node; `live` (norder + 2 entries) is scratch. */
static unsigned regs_floor(const ra *s, int *live)
{
    const cg_dag *g = s->g;
    unsigned norder = s->norder;
    memset(live, 0, sizeof *live * (norder + 2));
    /* live[i]: change of the count at point i (point 0 before the first node, point
     * p + 1 after node p); a value read last by node p is live up to point p */
    for (unsigned v = 0; v < g->nin; v++) {
        if (!s->left[v] && !s->is_out[v]) continue;
        live[0]++;
        if (!s->is_out[v]) live[s->last[v] + 1]--;
    }
    unsigned zeros = s->zeros_left;
    for (unsigned p = 0; p < norder; p++) {
        int x = (int)(g->nin + s->order[p]);
        if (!s->left[x] && !s->is_out[x]) continue;
        live[p + 1]++;
        if (!s->is_out[x]) live[s->last[x] + 1]--;
    }
    unsigned best = 0;
    int count = 0;
    for (unsigned i = 0; i <= norder; i++) {
        count += live[i];
        if (i > 0 && s->zeros_exact) {
            const cg_node *n = &g->nodes[s->order[i - 1]];
            if (!n->uncond && cg_is_zero(n->op[FMAG_D])) zeros--;
        }
        unsigned need = (unsigned)count + (s->zeros_exact ? zeros : 0);
        if (i < norder) {
            const cg_node *n = &g->nodes[s->order[i]];
            if (!n->uncond && cg_is_const(n->op[FMAG_D]) && !cg_is_zero(n->op[FMAG_D])) need++;
        }
        if (need > best) best = need;
    }
    return best;
}

/* After `done` nodes: can the stream still beat *bound? Lower bounds of the final
 * counts, both of which only grow:
 *  - instructions: those emitted, one per remaining node, one more per remaining
 *    node whose value fallback is copied, and one per remaining nonzero literal
 *    fallback beyond the free literal registers there are now (such a node writes
 *    over the register holding its literal, and only a materialization, one
 *    instruction, makes one);
 *  - registers: `used`, plus the remaining zero fallbacks beyond the free zeros
 *    below `used` (each writes over a zero of its own, and when no literal `a` is a
 *    zero the only zeros to come are pristine registers at or above `used`). */
static bool can_beat(const ra *s, unsigned done, const cg_result *bound)
{
    unsigned long least = (unsigned long)s->res->ncode + (s->norder - done) + s->copies_left;
    if (s->lits_left > s->nfree[C_CONSTK]) least += s->lits_left - s->nfree[C_CONSTK];
    if (least != bound->ncode) return least < bound->ncode;
    unsigned long regs = s->used;
    if (s->zeros_exact) {
        /* every register at or above `used` is pristine */
        unsigned zeros = s->nfree[C_CONST0] + s->nfree[C_PRISTINE] - (s->maxregs - s->used);
        if (s->zeros_left > zeros) regs += s->zeros_left - zeros;
    }
    return regs < bound->regs && s->regs_floor < bound->regs;
}

/* can_beat's counts of the nodes to lower and regs_floor. False when out of memory. */
static bool count_for_bound(ra *s)
{
    s->zeros_exact = true;
    for (unsigned p = 0; p < s->norder; p++) {
        const cg_node *n = &s->g->nodes[s->order[p]];
        unsigned *count = fallback_count(s, n, p);
        if (count) (*count)++;
        if (cg_is_imm(n->op[FMAG_A], 0.0f)) s->zeros_exact = false;
    }
    int *live = fmag_tmp_malloc(sizeof *live * (s->norder + 2));
    if (!live) return false;
    s->regs_floor = regs_floor(s, live);
    fmag_tmp_free(live);
    return true;
}

/* Where the outputs are headed: the hints (from ret back through dying fallbacks),
 * the output registers' reservations, and the live inputs in their registers.
 * False when out of memory. */
static bool plan_outputs(ra *s)
{
    const cg_dag *g = s->g;
    const unsigned *order = s->order;
    unsigned norder = s->norder;
    for (unsigned p = norder; p-- > 0;) {
        const cg_node *n = &g->nodes[order[p]];
        int x = (int)(g->nin + order[p]);
        int fv = n->op[FMAG_D].v;
        if (s->hint[x] >= 0 && !n->uncond && fv >= (int)g->nin && s->hint[fv] < 0 &&
            s->last[fv] == p)
            s->hint[fv] = s->hint[x];
    }
    /* Position of each node in the order, for the output-chain starts. */
    unsigned *pos_of = fmag_tmp_malloc(sizeof *pos_of * (g->nnodes + 1));
    if (!pos_of) return false;
    for (unsigned p = 0; p < norder; p++)
        pos_of[order[p]] = p;
    for (unsigned j = 0; j < g->nout; j++) {
        int v = g->outs[j].v;
        s->res_start[j] = norder;
        if (v >= 0 && v < (int)g->nin) {
            if (v == (int)j) s->res_start[j] = 0;
            continue;
        }
        if (v < 0 || s->hint[v] != (int)j) continue;
        for (;;) {
            const cg_node *n = &g->nodes[v - g->nin];
            s->res_start[j] = pos_of[v - g->nin];
            int fv = n->op[FMAG_D].v;
            if (n->uncond || fv < (int)g->nin || s->hint[fv] != (int)j) break;
            v = fv;
        }
    }
    fmag_tmp_free(pos_of);
    for (unsigned p = 0; p < g->nin; p++) {
        if (s->left[p] || s->is_out[p]) {
            set_kind(s, p, R_VALUE);
            s->rval[p] = (int)p;
            s->vreg[p] = (int)p;
        }
    }
    return true;
}

cg_ra_status cg_regalloc(const cg_dag *g, const unsigned *order, unsigned norder, cg_policy policy,
                         cg_policy track, const cg_result *bound, cg_result *res)
{
    memset(res, 0, sizeof *res);
    ra s;
    memset(&s, 0, sizeof s);
    s.g = g;
    s.order = order;
    s.norder = norder;
    s.policy = policy;
    s.track = track & ~policy;
    s.res = res;
    s.nv = g->nin + g->nnodes;
    unsigned base = g->nin > g->nout ? g->nin : g->nout;
    unsigned long maxregs = (unsigned long)base + 3ul * norder + g->nout + 4;
    s.maxregs = maxregs > FMAG_VM_MAX_REGS ? FMAG_VM_MAX_REGS : (unsigned)maxregs;
    s.used = base;
    void *block = ra_alloc(&s, g->nout);
    bool ok = block && base <= FMAG_VM_MAX_REGS, pruned = false;
    if (ok) {
        ready_regs(&s, s.used + 1);
        for (unsigned c = 0; c < NCLASS; c++)
            s.class_bound[c] = class_key_bound(&s, c, g->nout);
        /* counted for every register below maxregs, ready or not */
        unsigned nin = g->nin < s.maxregs ? g->nin : s.maxregs;
        s.nfree[C_INPUT] = nin;
        s.nfree[C_PRISTINE] = s.maxregs - nin;
        for (unsigned p = 0; p < norder; p++) {
            const cg_node *n = &g->nodes[order[p]];
            for (unsigned k = 0; k < 5; k++)
                if (cg_is_val(n->op[k])) {
                    s.left[n->op[k].v]++;
                    s.last[n->op[k].v] = p;
                }
        }
        for (unsigned j = 0; j < g->nout; j++) {
            int v = g->outs[j].v;
            if (v < 0) continue;
            s.is_out[v] = true;
            s.last[v] = UINT32_MAX;
            if (s.hint[v] < 0) s.hint[v] = (int)j;
        }
        s.bounded = bound != NULL;
        if (s.bounded) ok = count_for_bound(&s);
        /* The order alone may already rule the try out. */
        pruned = ok && bound && !can_beat(&s, 0, bound);
        if (ok && !pruned) ok = plan_outputs(&s);
        for (unsigned p = 0; ok && p < norder && !s.fail && !pruned; p++) {
            lower_node(&s, p);
            pruned = bound && !s.fail && !can_beat(&s, p + 1, bound);
        }
        if (ok && !s.fail && !pruned) shuffle_outputs(&s);
        pruned = pruned || (bound && !s.fail && !can_beat(&s, norder, bound));
        ok = ok && !s.fail;
    }
    cg_ra_status st = !ok ? CG_RA_FAILED : pruned ? CG_RA_PRUNED : CG_RA_DONE;
    if (st == CG_RA_DONE) res->regs = s.used;
    fmag_tmp_free(block);
    if (st != CG_RA_DONE) cg_result_free(res);
    res->sensitive = s.sensitive;
    return st;
}

cg_result cg_least(const cg_dag *g, unsigned *zeros_out)
{
    cg_result least;
    memset(&least, 0, sizeof least);
    unsigned zeros = 0;
    bool zeros_exact = true;
    for (unsigned i = 0; i < g->nnodes; i++) {
        const cg_node *n = &g->nodes[i];
        if (n->dead) continue;
        least.ncode++;
        if (!n->uncond && cg_is_const(n->op[FMAG_D])) {
            if (cg_is_zero(n->op[FMAG_D]))
                zeros++;
            else
                least.ncode++;
        }
        if (cg_is_imm(n->op[FMAG_A], 0.0f)) zeros_exact = false;
    }
    least.regs = g->nin > g->nout ? g->nin : g->nout;
    if (zeros_exact && g->nin + zeros > least.regs) least.regs = g->nin + zeros;
    *zeros_out = zeros_exact ? zeros : 0;
    return least;
}

void cg_result_free(cg_result *res)
{
    fmag_tmp_free(res->code);
    memset(res, 0, sizeof *res);
}

unsigned cg_stream_max_live(const fmag_vm_decoded *code, unsigned n, unsigned nout)
{
    unsigned nregs = nout;
    for (unsigned i = 0; i < n; i++) {
        const fmag_vm_decoded *in = &code[i];
        unsigned m = in->d > in->a ? in->d : in->a;
        if (in->b.is_reg && in->b.reg > m) m = in->b.reg;
        if (in->c.is_reg && in->c.reg > m) m = in->c.reg;
        if (in->g.is_reg && in->g.reg > m) m = in->g.reg;
        if (m + 1 > nregs) nregs = m + 1;
    }
    bool *live = fmag_tmp_calloc(nregs + 1, 1);
    if (!live) return 0;
    unsigned count = nout, best = nout;
    for (unsigned r = 0; r < nout; r++)
        live[r] = true;
#define CG_GEN(r)                                                                                  \
    do {                                                                                           \
        if (!live[r]) {                                                                            \
            live[r] = true;                                                                        \
            count++;                                                                               \
        }                                                                                          \
    } while (0)
    for (unsigned i = n; i-- > 0;) {
        const fmag_vm_decoded *in = &code[i];
        bool always = !in->g.is_reg && in->g.imm > 0.0f;
        bool never = !in->g.is_reg && !(in->g.imm > 0.0f);
        if (never) continue;
        if (always && live[in->d]) {
            live[in->d] = false;
            count--;
        }
        if (!always) CG_GEN(in->d);
        CG_GEN(in->a);
        if (in->b.is_reg) CG_GEN(in->b.reg);
        if (in->c.is_reg) CG_GEN(in->c.reg);
        if (in->g.is_reg) CG_GEN(in->g.reg);
        if (count > best) best = count;
    }
#undef CG_GEN
    fmag_tmp_free(live);
    return best;
}
