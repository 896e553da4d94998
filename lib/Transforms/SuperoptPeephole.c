/* superopt-peephole: rewrites IR cones into the shorter sequences the superoptimizer
 * found and proved (tools/superopt, docs/Superopt.md).
 *
 * Matches: an fmag instruction whose operand cone is, slot for slot, the pattern of a
 * rule in the table below (the IR the SL frontend and the math library make for the
 * rule's expression, as `superopt --emit-rule` printed it), with x and y bound to any
 * values and the product's two factors allowed in either order. Every intermediate
 * of the cone must be used only inside the cone.
 *
 * Rewrites: the cone becomes the IR form of the rule's machine program: machine
 * instruction r[d] = g > 0 ? r[a]*B + C : r[d] is fmag(A, B, C, D, G) with D the
 * value register d held before it (x, y, an earlier result, or the +0.0 every fresh
 * register starts with).
 *
 * Why it is legal under the strict contract: superopt proved each program equal to
 * its pattern, +0 and -0 counted equal, on every input where the pattern's own
 * operations are all finite: exhaustively over all finite float32 for one input;
 * for the two-input rules by sampling plus the hand argument in the rule's comment.
 * Inside a bigger program a finite trace makes x, y and the cone finite, so the
 * rule applies. Zero signs only ever reach other zeros (the machine has no
 * division), so a -0 that became +0 cannot change a later non-zero value.
 *
 *   before:  %n = fmag %x, -1.0, 0.0, 0.0, 1.0      ; -x
 *            %a = fmag %x, 1.0, 0.0, %n, %x         ; abs x
 *            %r = fmag %a, -1.0, 0.0, 0.0, 1.0      ; -abs x
 *   after:   %r = fmag %x, -1.0, 0.0, %x, %x        ; x > 0 ? -x : x  (1 instruction)
 *
 * Requires: nothing (any block). Preserves: the CFG; drops the cone's dead
 * instructions itself. Runs to a fixed point, so a second run reports no change.
 */
#include "fmag/Bits.h"
#include "fmag/IR.h"
#include "fmag/PeepholeRules.h"
#include "fmag/Transforms.h"

#include <assert.h>
#include <string.h>

/* ------------------------------------------------------------ rule table */

/* clang-format off */
#define X {FMAG_SO_REF_INPUT, 0, 0.0f}
#define Y {FMAG_SO_REF_INPUT, 1, 0.0f}
#define V(k) {FMAG_SO_REF_OP, k, 0.0f}
#define K(f) {FMAG_SO_REF_CONST, 0, f}
#define OP(a, b, c, d, e) {{a, b, c, d, e}}
#define R(n) {true, n, 0.0f}
#define L(f) {false, 0, f}
#define I(d, a, b, c, g) {d, a, b, c, g}
#define RULE(name, expr, nin, pat, code, regs, exh)                                                \
    {name, expr, nin, sizeof pat / sizeof pat[0], pat, sizeof code / sizeof code[0], regs, code,   \
     exh}
/* clang-format on */

#include "SuperoptRules.inc"

#undef X
#undef Y
#undef V
#undef K
#undef OP
#undef R
#undef L
#undef I

size_t fmag_superopt_rule_count(void)
{
    return sizeof superopt_rules / sizeof superopt_rules[0];
}

const fmag_superopt_rule *fmag_superopt_rule_get(size_t i)
{
    return i < fmag_superopt_rule_count() ? &superopt_rules[i] : NULL;
}

/* ---------------------------------------------------------------- matcher */

#define MAXPAT 16

typedef struct match_state {
    fmag_value *bind[2];
    fmag_instr *m[MAXPAT];
    uint32_t set; /* bit k: m[k] is set (what a failed attempt undoes) */
} match_state;
_Static_assert(MAXPAT <= 32, "match_state.set has a bit per pattern op");

/* The cheap test that rejects almost every (instruction, rule) pair before the
 * binding search starts: what the instruction's operand slots hold, reduced to what a
 * pattern slot can ask without binding, as bits of one word, made once per
 * instruction and tested against every rule's root. Per slot j, bit FEAT_FMAG + j: an
 * fmag instruction's result; bit j * NLIT + i: literal i of the roots' literals. A
 * root's filter is the bits it needs (an input slot needs none); it can match only an
 * instruction with all of them, in the slots as they are or with the product's two
 * factors exchanged. The filter only skips searches that match_slot would fail: a
 * literal beyond the table is not in it and is checked there. */
enum { NLIT = 11, FEAT_FMAG = 5 * NLIT, LIT_HASH = 32 };
_Static_assert(FEAT_FMAG + 5 <= 64, "the features fit one word");
_Static_assert(NLIT < LIT_HASH, "the literal hash always has an empty place");
_Static_assert(sizeof superopt_rules / sizeof superopt_rules[0] <= 256, "a rule index fits a byte");

typedef uint64_t features;

typedef struct op_filter {
    features need, need_swapped;
} op_filter;

enum { NRULES = sizeof superopt_rules / sizeof superopt_rules[0] };
/* What an instruction's last slot (e, which the product's order leaves in place)
 * holds: nothing a root asks for, literal i (1 + i), an fmag result (NLIT + 1). */
enum { NSLOT_E = NLIT + 2 };

/* The rules in the order they are tried, their roots' filters, per kind of last slot
 * the rules whose root accepts it (in order), and the literal table, made once per
 * pass run. */
typedef struct rule_set {
    const fmag_superopt_rule *order[NRULES];
    op_filter root[NRULES];
    uint8_t by_slot_e[NSLOT_E][NRULES];
    unsigned nby_slot_e[NSLOT_E];
    size_t n;
    unsigned nlits;
    /* the roots' literals by hash (open addressing), to index + 1; 0: an empty place */
    uint32_t hash_bits[LIT_HASH];
    uint8_t hash_index[LIT_HASH];
} rule_set;

static bool is_fmag_result(const fmag_value *v)
{
    return v->kind == FMAG_VALUE_RESULT && v->def && v->def->op == FMAG_OP_FMAG;
}

static unsigned lit_hash(uint32_t bits)
{
    return (bits * 2654435761u) >> 27; /* Knuth's multiplicative hash, 5 bits */
}

/* Index of literal bits in the table, or NLIT. */
static unsigned lit_index(const rule_set *rs, uint32_t bits)
{
    for (unsigned h = lit_hash(bits); rs->hash_index[h]; h = (h + 1) % LIT_HASH)
        if (rs->hash_bits[h] == bits) return rs->hash_index[h] - 1u;
    return NLIT;
}

static features features_of(const rule_set *rs, const fmag_instr *in)
{
    features f = 0;
    for (unsigned j = 0; j < 5; j++) {
        const fmag_value *v = fmag_instr_op(in, j);
        if (fmag_value_is_const(v)) {
            unsigned i = lit_index(rs, fmag_bits_of(v->imm));
            if (i < NLIT) f |= (features)1 << (j * NLIT + i);
        } else if (is_fmag_result(v)) {
            f |= (features)1 << (FEAT_FMAG + j);
        }
    }
    return f;
}

/* The slot-j requirement of ref, as its bit (0: none). */
static features need_of(const rule_set *rs, const fmag_so_ref *ref, unsigned j)
{
    if (ref->kind == FMAG_SO_REF_OP) return (features)1 << (FEAT_FMAG + j);
    if (ref->kind != FMAG_SO_REF_CONST) return 0;
    unsigned i = lit_index(rs, fmag_bits_of(ref->imm));
    return i < NLIT ? (features)1 << (j * NLIT + i) : 0;
}

static void add_lits(rule_set *rs, const fmag_so_op *p)
{
    for (unsigned j = 0; j < 5; j++) {
        if (p->s[j].kind != FMAG_SO_REF_CONST) continue;
        uint32_t bits = fmag_bits_of(p->s[j].imm);
        if (lit_index(rs, bits) < NLIT || rs->nlits == NLIT) continue;
        unsigned h = lit_hash(bits);
        while (rs->hash_index[h])
            h = (h + 1) % LIT_HASH;
        rs->hash_bits[h] = bits;
        rs->hash_index[h] = (uint8_t)(++rs->nlits);
    }
}

static op_filter op_filter_of(const rule_set *rs, const fmag_so_op *p)
{
    op_filter f = {0, 0};
    for (unsigned j = 0; j < 5; j++) {
        f.need |= need_of(rs, &p->s[j], j);
        f.need_swapped |= need_of(rs, &p->s[j], j < 2 ? 1 - j : j);
    }
    return f;
}

/* The features of slot e alone (at most one bit) as an index of rule_set.by_slot_e. */
static unsigned slot_e_kind(features have)
{
    features lits = have >> (4 * NLIT) & ((1u << NLIT) - 1);
    if (lits) return 1 + (unsigned)__builtin_ctzll(lits);
    return have >> (FEAT_FMAG + 4) & 1 ? NLIT + 1 : 0;
}

/* The product's two factors may come in either order. */
static bool op_plausible(const op_filter *f, features have)
{
    return !(f->need & ~have) || !(f->need_swapped & ~have);
}

static bool match_op(const fmag_superopt_rule *r, unsigned k, fmag_value *v, match_state *s);

static bool match_slot(const fmag_superopt_rule *r, const fmag_so_ref *ref, fmag_value *v,
                       match_state *s)
{
    switch (ref->kind) {
    case FMAG_SO_REF_INPUT:
        if (!s->bind[ref->index]) {
            s->bind[ref->index] = v;
            return true;
        }
        return s->bind[ref->index] == v;
    case FMAG_SO_REF_CONST:
        return fmag_value_is_const(v) && fmag_bits_of(v->imm) == fmag_bits_of(ref->imm);
    case FMAG_SO_REF_OP:
        return match_op(r, ref->index, v, s);
    }
    return false;
}

/* The slots the product's order leaves in place (c, d, e) can hold what op p asks:
 * the exact test of those slots before any binding is tried. */
static bool fixed_slots_fit(const fmag_so_op *p, const fmag_instr *in)
{
    for (unsigned j = 2; j < 5; j++) {
        const fmag_so_ref *ref = &p->s[j];
        const fmag_value *v = fmag_instr_op(in, j);
        if (ref->kind == FMAG_SO_REF_OP && !is_fmag_result(v)) return false;
        if (ref->kind == FMAG_SO_REF_CONST &&
            !(fmag_value_is_const(v) && fmag_bits_of(v->imm) == fmag_bits_of(ref->imm)))
            return false;
    }
    return true;
}

static bool match_op(const fmag_superopt_rule *r, unsigned k, fmag_value *v, match_state *s)
{
    if (k >= r->npattern || !is_fmag_result(v)) return false;
    fmag_instr *in = v->def;
    if (s->m[k]) return s->m[k] == in;
    const fmag_so_op *p = &r->pattern[k];
    if (!fixed_slots_fit(p, in)) return false;
    for (int swap = 0; swap < 2; swap++) {
        fmag_value *bind[2] = {s->bind[0], s->bind[1]};
        uint32_t set = s->set;
        s->m[k] = in;
        s->set |= 1u << k;
        bool ok = true;
        for (unsigned j = 0; j < 5 && ok; j++) {
            unsigned slot = swap && j < 2 ? 1 - j : j;
            ok = match_slot(r, &p->s[j], fmag_instr_op(in, slot), s);
        }
        if (ok) return true;
        /* undo the attempt: the ops it matched, the inputs it bound */
        for (uint32_t undo = s->set & ~set; undo; undo &= undo - 1)
            s->m[__builtin_ctz(undo)] = NULL;
        s->set = set;
        s->bind[0] = bind[0];
        s->bind[1] = bind[1];
    }
    return false;
}

/* Every intermediate's uses all come from inside the cone. */
static bool cone_is_private(const fmag_superopt_rule *r, const match_state *s)
{
    unsigned refs[MAXPAT] = {0};
    for (unsigned k = 0; k < r->npattern; k++)
        for (unsigned j = 0; j < 5; j++)
            if (r->pattern[k].s[j].kind == FMAG_SO_REF_OP) refs[r->pattern[k].s[j].index]++;
    for (unsigned k = 0; k + 1 < r->npattern; k++) {
        if (!s->m[k]) return false;
        for (unsigned q = k + 1; q < r->npattern; q++)
            if (s->m[q] == s->m[k])
                return false; /* two pattern ops on one instruction: counts would lie */
        if (!fmag_value_num_uses_is(fmag_instr_result(s->m[k]), refs[k])) return false;
    }
    return true;
}

/* ------------------------------------------------------------ dirty roots
 *
 * Whether a root matches depends only on its view: the instructions within
 * rule_set.reach operand edges of it, their operands, and the use counts of those
 * below it. A root whose try failed stays failed until a rewrite changes its view,
 * so the sweeps after the first try only the roots a rewrite marked (the first
 * tries all): the same tries that match as trying every root, without the full
 * sweep that only confirms the fixed point. The mark is the instruction's aux: the
 * rewrite that set it (a generation) and the edges it still spreads over, so one
 * rewrite's marking visits an instruction again only to spread further. */
enum { MARK_LEFT_BITS = 5 };
_Static_assert(MAXPAT + 2 < 1u << MARK_LEFT_BITS, "a mark's edges left fit its low bits");

typedef struct marker {
    uintptr_t gen;
    unsigned reach;
} marker;

/* Marks `in` and its users up to `left` use edges away. */
static void mark(const marker *mk, fmag_instr *in, unsigned left)
{
    uintptr_t had = (uintptr_t)in->aux;
    if (had >> MARK_LEFT_BITS == mk->gen && (had & ((1u << MARK_LEFT_BITS) - 1)) > left) return;
    in->aux = (void *)(mk->gen << MARK_LEFT_BITS | (left + 1));
    if (!left || !in->nresults) return;
    fmag_foreach_use (u, fmag_instr_result(in))
        mark(mk, u->user, left - 1);
}

static void mark_value(const marker *mk, fmag_value *v, unsigned left)
{
    if (v && v->kind == FMAG_VALUE_RESULT && v->def) mark(mk, v->def, left);
}

/* The view's depth of the rules: the most operand edges from a root to a pattern op. */
static unsigned rules_reach(const rule_set *rs)
{
    unsigned reach = 0;
    for (size_t i = 0; i < rs->n; i++) {
        const fmag_superopt_rule *r = rs->order[i];
        unsigned dist[MAXPAT] = {0};
        for (unsigned k = r->npattern; k-- > 0;)
            for (unsigned j = 0; j < 5; j++) {
                const fmag_so_ref *ref = &r->pattern[k].s[j];
                if (ref->kind != FMAG_SO_REF_OP) continue;
                /* ops name earlier ops; otherwise no better bound than the op count */
                unsigned d = ref->index < k ? dist[k] + 1 : r->npattern;
                if (ref->index < k && d > dist[ref->index]) dist[ref->index] = d;
                if (d > reach) reach = d;
            }
    }
    return reach;
}

/* Marks what a rewrite of the cone of `root` changes the view of: the root's users
 * (their operand becomes the new result) and what is within reach of them; within
 * reach of the inputs (their use counts change) and of the new instructions. Before
 * the rewrite: the root's uses are still there. */
static void mark_before_rewrite(const marker *mk, fmag_instr *root)
{
    mark(mk, root, mk->reach + 1);
}

static void rewrite(fmag_func *f, const fmag_superopt_rule *r, match_state *s, const marker *mk)
{
    fmag_instr *root = s->m[r->npattern - 1];
    mark_before_rewrite(mk, root);
    fmag_builder b;
    fmag_builder_before(&b, root);
    fmag_value *zero = fmag_module_const(f->module, 0.0f);
    fmag_value *regs[FMAG_SUPEROPT_MAX_REGS];
    for (unsigned i = 0; i < FMAG_SUPEROPT_MAX_REGS; i++)
        regs[i] = i < r->nin && i < sizeof s->bind / sizeof s->bind[0] ? s->bind[i] : zero;
    for (unsigned i = 0; i < r->length; i++) {
        const fmag_rule_instr *c = &r->code[i];
        fmag_value *ops[3];
        const fmag_rule_operand *o[3] = {&c->b, &c->c, &c->g};
        for (int k = 0; k < 3; k++)
            ops[k] = o[k]->is_reg ? regs[o[k]->reg] : fmag_module_const(f->module, o[k]->imm);
        regs[c->d] = fmag_build_fmag(&b, regs[c->a], ops[0], ops[1], regs[c->d], ops[2]);
        mark_value(mk, regs[c->d], mk->reach);
    }
    fmag_value_replace_all_uses(fmag_instr_result(root), regs[0]);
    /* the root first, then the cone from its newest op down: each is unused by then */
    for (unsigned k = r->npattern; k-- > 0;) {
        fmag_instr *in = s->m[k];
        bool dup = false;
        for (unsigned q = k + 1; q < r->npattern; q++)
            dup |= s->m[q] == in;
        if (!dup && in && !fmag_instr_result(in)->uses) fmag_instr_erase(in);
    }
    for (unsigned i = 0; i < r->nin && i < sizeof s->bind / sizeof s->bind[0]; i++)
        mark_value(mk, s->bind[i], mk->reach);
}

/* The rules, largest pattern first (stable), so a rule whose pattern contains
 * another rule's (halve_ge2 contains step's select) gets the whole cone. */
static void rule_set_init(rule_set *rs)
{
    rs->n = rs->nlits = 0;
    memset(rs->hash_index, 0, sizeof rs->hash_index);
    for (unsigned size = MAXPAT; size > 0; size--)
        for (size_t i = 0; i < fmag_superopt_rule_count(); i++)
            if (superopt_rules[i].npattern == size) rs->order[rs->n++] = &superopt_rules[i];
    for (size_t i = 0; i < rs->n; i++)
        add_lits(rs, &rs->order[i]->pattern[rs->order[i]->npattern - 1]);
    for (size_t i = 0; i < rs->n; i++)
        rs->root[i] = op_filter_of(rs, &rs->order[i]->pattern[rs->order[i]->npattern - 1]);
    /* slot e is not swapped, so need and need_swapped ask the same of it */
    for (unsigned e = 0; e < NSLOT_E; e++) {
        rs->nby_slot_e[e] = 0;
        features have_e = e == 0          ? 0
                          : e == NLIT + 1 ? (features)1 << (FEAT_FMAG + 4)
                                          : (features)1 << (4 * NLIT + e - 1);
        for (size_t i = 0; i < rs->n; i++) {
            features need_e = rs->root[i].need & ((features)((1u << NLIT) - 1) << (4 * NLIT) |
                                                  (features)1 << (FEAT_FMAG + 4));
            if (!(need_e & ~have_e)) rs->by_slot_e[e][rs->nby_slot_e[e]++] = (uint8_t)i;
        }
    }
}

static bool try_root(fmag_func *f, fmag_instr *in, const rule_set *rs, const marker *mk)
{
    features have = features_of(rs, in);
    unsigned e = slot_e_kind(have);
    for (unsigned k = 0; k < rs->nby_slot_e[e]; k++) {
        unsigned i = rs->by_slot_e[e][k];
        if (!op_plausible(&rs->root[i], have)) continue;
        const fmag_superopt_rule *r = rs->order[i];
        match_state s;
        memset(&s, 0, sizeof s);
        if (!match_op(r, r->npattern - 1, fmag_instr_result(in), &s) || !cone_is_private(r, &s) ||
            (r->nin > 1 && !s.bind[1]))
            continue;
        rewrite(f, r, &s, mk);
        return true;
    }
    return false;
}

/* One backward sweep, latest root first. A rewrite erases the root and its cone (all
 * before the root) and inserts the new instructions just before the root's place, so
 * the sweep goes on from the newest of those: they may be roots themselves. A rewrite
 * can also make a later root match, hence the caller's sweeps to a fixed point; each
 * sweep is linear in the block, where restarting from the end after every rewrite
 * was quadratic; after the first, a sweep tries only the marked roots (above). */
static bool sweep(fmag_func *f, const rule_set *rs, marker *mk, bool first)
{
    bool changed = false;
    fmag_foreach_block (bb, f) {
        for (fmag_instr *in = bb->last; in;) {
            bool marked = in->aux != NULL;
            in->aux = NULL;
            if (in->op != FMAG_OP_FMAG || (!first && !marked)) {
                in = in->prev;
                continue;
            }
            fmag_instr *after = in->next;
            mk->gen++;
            if (!try_root(f, in, rs, mk)) {
                in = in->prev;
                continue;
            }
            changed = true;
            in = after ? after->prev : bb->last;
        }
    }
    return changed;
}

fmag_pass_status fmag_opt_superopt_peephole(fmag_func *f)
{
    rule_set rs;
    rule_set_init(&rs);
    marker mk = {0, rules_reach(&rs)};
    bool changed = false;
    for (bool first = true; sweep(f, &rs, &mk, first); first = false)
        changed = true;
#ifndef NDEBUG
    /* The marks are an argument, not a search: where asserts are on, a full sweep
     * checks that they reached the fixed point (nothing left to rewrite). */
    bool missed = sweep(f, &rs, &mk, true);
    assert(!missed && "superopt-peephole: a root the marks skipped still matches");
    (void)missed;
#endif
    fmag_func_clear_aux(f);
    return changed ? FMAG_PASS_CHANGED : FMAG_PASS_UNCHANGED;
}
