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
#include <stdlib.h>
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
 * binding search starts. Each operand slot's value reduces to a kind: an fmag
 * result, literal i of the patterns' literals, or anything else. Per slot j and kind,
 * accept[j][kind] is the set of pattern ops (of every rule) whose slot j can hold a
 * value of that kind (an input slot holds anything), so an instruction's view, the
 * ops it could be one level deep, is five table reads and-ed together, once with the
 * product's factors as they are and once exchanged. A rule is tried at a root only
 * when its root op is in the root's view and, in the same orientation, the op each
 * of the root's op slots names is in the view of that slot's instruction: two levels
 * of the search, where one level let through 18 times the matches (the color3 graph
 * of bench/mtlx). The filter only skips searches that match_op would fail: a
 * pattern literal beyond the table, or an op beyond the set's bits, asks nothing. */
typedef uint64_t op_set; /* bit i < n: the root of order[i]; then the other ops */
enum { MAXLITS = 32, LIT_HASH = 64, KIND_OTHER = 0, KIND_FMAG = 1, NKIND = 2 + MAXLITS };
enum { KIND_CACHE = 64 };
_Static_assert(MAXLITS < LIT_HASH, "the literal hash always has an empty place");
_Static_assert(NKIND <= 255, "a kind fits a byte");
enum { NRULES = sizeof superopt_rules / sizeof superopt_rules[0] };
_Static_assert(NRULES <= 64, "every rule's root has a bit of op_set");

/* The rules in the order they are tried, the views' tables and, per rule, the root's
 * op slots and the bit of the op each names; made once per pass run. */
typedef struct rule_set {
    const fmag_superopt_rule *order[NRULES];
    size_t n;
    op_set accept[5][NKIND];
    uint8_t nchild[NRULES];
    uint8_t child_slot[NRULES][5];
    op_set child_op[NRULES][5];
    unsigned nlits;
    /* the patterns' literals by hash (open addressing), to index + 1; 0: an empty place */
    uint32_t hash_bits[LIT_HASH];
    uint8_t hash_index[LIT_HASH];
    unsigned reach, max_refs; /* rules_reach, rules_max_refs */
    /* The kinds of the literal values met last, by their address: a run meets the
     * same few interned literals in nearly every instruction. Per run: the next
     * module's literals may sit at the same addresses. */
    const fmag_value *cached[KIND_CACHE];
    uint8_t cached_kind[KIND_CACHE];
} rule_set;

static bool is_fmag_result(const fmag_value *v)
{
    return v->kind == FMAG_VALUE_RESULT && v->def && v->def->op == FMAG_OP_FMAG;
}

static unsigned lit_hash(uint32_t bits)
{
    return (bits * 2654435761u) >> 26; /* Knuth's multiplicative hash, 6 bits */
}
_Static_assert(LIT_HASH == 64, "lit_hash makes 6 bits");

/* Index of literal bits in the table, or MAXLITS. */
static unsigned lit_index(const rule_set *rs, uint32_t bits)
{
    for (unsigned h = lit_hash(bits); rs->hash_index[h]; h = (h + 1) % LIT_HASH)
        if (rs->hash_bits[h] == bits) return rs->hash_index[h] - 1u;
    return MAXLITS;
}

static void add_lit(rule_set *rs, uint32_t bits)
{
    if (lit_index(rs, bits) < MAXLITS || rs->nlits == MAXLITS) return;
    unsigned h = lit_hash(bits);
    while (rs->hash_index[h])
        h = (h + 1) % LIT_HASH;
    rs->hash_bits[h] = bits;
    rs->hash_index[h] = (uint8_t)(++rs->nlits);
}

/* A literal's kind, on a miss of the cache. */
__attribute__((noinline)) static unsigned lit_kind(rule_set *rs, const fmag_value *v, unsigned h)
{
    unsigned i = lit_index(rs, fmag_bits_of(v->imm));
    rs->cached[h] = v;
    rs->cached_kind[h] = (uint8_t)(i < MAXLITS ? 2 + i : KIND_OTHER);
    return rs->cached_kind[h];
}

/* Five per view: inline, with the cache's miss apart. */
static inline __attribute__((always_inline)) unsigned kind_of(rule_set *rs, const fmag_value *v)
{
    if (fmag_value_is_const(v)) {
        unsigned h = (unsigned)((uintptr_t)v >> 4) % KIND_CACHE; /* arena blocks: 16-aligned */
        return rs->cached[h] == v ? rs->cached_kind[h] : lit_kind(rs, v, h);
    }
    return is_fmag_result(v) ? KIND_FMAG : KIND_OTHER;
}

/* The ops `in` could be, one level deep: view[0] with the slots as they are, view[1]
 * with the product's two factors exchanged. */
static void view_of(rule_set *rs, const fmag_instr *in, op_set view[2])
{
    const fmag_use *op = in->ops;
    op_set fixed = rs->accept[FMAG_E][kind_of(rs, op[FMAG_E].value)] &
                   rs->accept[FMAG_D][kind_of(rs, op[FMAG_D].value)] &
                   rs->accept[FMAG_C][kind_of(rs, op[FMAG_C].value)];
    if (!fixed) { /* no op takes this c, d and e (a third of the views): skip a and b */
        view[0] = view[1] = 0;
        return;
    }
    unsigned a = kind_of(rs, op[FMAG_A].value), b = kind_of(rs, op[FMAG_B].value);
    view[0] = fixed & rs->accept[FMAG_A][a] & rs->accept[FMAG_B][b];
    view[1] = fixed & rs->accept[FMAG_A][b] & rs->accept[FMAG_B][a];
}

/* Where a pattern slot puts its op's bit: in accept[j][] of the one kind it takes,
 * or in any[j] (an input, or a literal beyond the table), which every kind gets. */
static void accept_ref(rule_set *rs, op_set any[5], const fmag_so_ref *ref, unsigned j, op_set bit)
{
    unsigned lit = ref->kind == FMAG_SO_REF_CONST ? lit_index(rs, fmag_bits_of(ref->imm)) : MAXLITS;
    if (ref->kind == FMAG_SO_REF_OP)
        rs->accept[j][KIND_FMAG] |= bit;
    else if (lit < MAXLITS)
        rs->accept[j][2 + lit] |= bit;
    else
        any[j] |= bit;
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
    unsigned max_refs; /* the most uses a pattern's intermediate op may have */
} marker;

/* Marks `in` and its users up to `left` use edges away. A root above `in` sees a
 * change at or below `in` only through a cone that holds `in` as an intermediate
 * op: an fmag whose every use is in the cone (cone_is_private), so no more uses than
 * a pattern gives one op. Past an instruction with more (a value many nodes read,
 * which an edit's marks otherwise flooded) no mark spreads: the roots above can bind
 * it only as an input, whose definition they do not look into. */
static void mark(const marker *mk, fmag_instr *in, unsigned left)
{
    uintptr_t had = (uintptr_t)in->aux;
    if (had >> MARK_LEFT_BITS == mk->gen && (had & ((1u << MARK_LEFT_BITS) - 1)) > left) return;
    in->aux = (void *)(mk->gen << MARK_LEFT_BITS | (left + 1));
    if (!left || in->op != FMAG_OP_FMAG) return;
    unsigned n = 0;
    fmag_foreach_use (u, fmag_instr_result(in))
        if (++n > mk->max_refs) return;
    fmag_foreach_use (u, fmag_instr_result(in))
        mark(mk, u->user, left - 1);
}

static bool is_result(const fmag_value *v)
{
    return v && v->kind == FMAG_VALUE_RESULT && v->def;
}

static void mark_value(const marker *mk, fmag_value *v, unsigned left)
{
    if (is_result(v)) mark(mk, v->def, left);
}

/* The most references a pattern makes to one of its intermediate (non-root) ops. */
static unsigned rules_max_refs(const rule_set *rs)
{
    unsigned most = 0;
    for (size_t i = 0; i < rs->n; i++) {
        const fmag_superopt_rule *r = rs->order[i];
        unsigned refs[MAXPAT] = {0};
        for (unsigned k = 0; k < r->npattern; k++)
            for (unsigned j = 0; j < 5; j++) {
                const fmag_so_ref *ref = &r->pattern[k].s[j];
                if (ref->kind == FMAG_SO_REF_OP && ref->index < MAXPAT && ++refs[ref->index] > most)
                    most = refs[ref->index];
            }
    }
    return most;
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
 * reach of the new instructions and of an input left with fewer uses (mark_inputs).
 * Before the rewrite: the root's uses are still there. */
static void mark_before_rewrite(const marker *mk, fmag_instr *root)
{
    fmag_foreach_use (u, fmag_instr_result(root))
        mark(mk, u->user, mk->reach);
}

/* An input's use count matters to the roots above it only through cone_is_private,
 * where a cone asks an intermediate for exactly its own uses: more uses than before
 * can make no such cone private, so only an input the rewrite left with fewer uses
 * is marked (one it only feeds more, the common case, spreads no marks). */
static void mark_inputs(const marker *mk, fmag_value *const bind[2], const size_t before[2],
                        unsigned nin)
{
    for (unsigned k = 0; k < nin && k < 2; k++)
        if (is_result(bind[k]) && fmag_value_num_uses(bind[k]) < before[k])
            mark_value(mk, bind[k], mk->reach);
}

static void rewrite(fmag_func *f, const fmag_superopt_rule *r, match_state *s, const marker *mk)
{
    fmag_instr *root = s->m[r->npattern - 1];
    size_t uses_before[2] = {0, 0};
    for (unsigned i = 0; i < r->nin && i < 2; i++)
        if (is_result(s->bind[i])) uses_before[i] = fmag_value_num_uses(s->bind[i]);
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
    mark_inputs(mk, s->bind, uses_before, r->nin);
}

/* The rules, largest pattern first (stable), so a rule whose pattern contains
 * another rule's (halve_ge2 contains step's select) gets the whole cone; then the
 * bits of their ops (roots first, in that order) and the tables of view_of. */
static void rule_set_init(rule_set *rs)
{
    memset(rs, 0, sizeof *rs);
    for (unsigned size = MAXPAT; size > 0; size--)
        for (size_t i = 0; i < fmag_superopt_rule_count(); i++)
            if (superopt_rules[i].npattern == size) rs->order[rs->n++] = &superopt_rules[i];
    op_set bits[NRULES][MAXPAT] = {{0}};
    unsigned next = (unsigned)rs->n;
    for (size_t i = 0; i < rs->n; i++) {
        const fmag_superopt_rule *r = rs->order[i];
        bits[i][r->npattern - 1] = (op_set)1 << i;
        for (unsigned k = 0; k + 1 < r->npattern && next < 64; k++)
            bits[i][k] = (op_set)1 << next++;
        for (unsigned k = 0; k < r->npattern; k++)
            for (unsigned j = 0; j < 5; j++)
                if (r->pattern[k].s[j].kind == FMAG_SO_REF_CONST)
                    add_lit(rs, fmag_bits_of(r->pattern[k].s[j].imm));
    }
    op_set any[5] = {0};
    for (size_t i = 0; i < rs->n; i++) {
        const fmag_superopt_rule *r = rs->order[i];
        for (unsigned k = 0; k < r->npattern; k++)
            for (unsigned j = 0; j < 5; j++)
                if (bits[i][k]) accept_ref(rs, any, &r->pattern[k].s[j], j, bits[i][k]);
        const fmag_so_op *root = &r->pattern[r->npattern - 1];
        for (unsigned j = 0; j < 5; j++) {
            const fmag_so_ref *ref = &root->s[j];
            if (ref->kind != FMAG_SO_REF_OP || ref->index >= r->npattern || !bits[i][ref->index])
                continue;
            rs->child_slot[i][rs->nchild[i]] = (uint8_t)j;
            rs->child_op[i][rs->nchild[i]++] = bits[i][ref->index];
        }
    }
    for (unsigned j = 0; j < 5; j++)
        for (unsigned k = 0; k < NKIND; k++)
            rs->accept[j][k] |= any[j];
}

/* The second level of the filter: in an orientation whose view has rule i's root,
 * every op slot of the root holds an instruction whose view has the op it names.
 * sub[] caches the views of the instructions in the root's slots (bit j of *made). */
static bool children_plausible(rule_set *rs, size_t i, const fmag_instr *in, const op_set view[2],
                               op_set sub[5], unsigned *made)
{
    for (unsigned o = 0; o < 2; o++) {
        if (!(view[o] >> i & 1)) continue;
        bool ok = true;
        for (unsigned c = 0; c < rs->nchild[i] && ok; c++) {
            unsigned j = rs->child_slot[i][c], slot = o && j < 2 ? 1 - j : j;
            if (!(*made >> slot & 1)) {
                op_set v[2];
                view_of(rs, fmag_instr_op(in, slot)->def, v);
                sub[slot] = v[0] | v[1];
                *made |= 1u << slot;
            }
            ok = (sub[slot] & rs->child_op[i][c]) != 0;
        }
        if (ok) return true;
    }
    return false;
}

static bool try_root(fmag_func *f, fmag_instr *in, rule_set *rs, const marker *mk)
{
    op_set view[2], sub[5];
    unsigned made = 0;
    view_of(rs, in, view);
    op_set cands = (view[0] | view[1]) & (rs->n < 64 ? ((op_set)1 << rs->n) - 1 : ~(op_set)0);
    for (; cands; cands &= cands - 1) {
        size_t i = (size_t)__builtin_ctzll(cands);
        if (!children_plausible(rs, i, in, view, sub, &made)) continue;
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
static bool sweep(fmag_func *f, rule_set *rs, marker *mk, bool first)
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

/* The context slot that keeps the tables from run to run: they depend on the rule
 * table alone, and making them was a tenth of the pass on the SL graphs. */
#define SUPEROPT_RULES_SLOT "fmag.transforms.superopt-rules"

static void rule_set_make(rule_set *rs)
{
    rule_set_init(rs);
    rs->reach = rules_reach(rs);
    rs->max_refs = rules_max_refs(rs);
}

static void rule_set_destroy(void *rs)
{
    free(rs);
}

/* The context's tables with an empty literal cache; `local`'s, made now, where the
 * context has no room for them (no memory, or every slot taken). */
static rule_set *rule_set_of(fmag_context *ctx, rule_set *local)
{
    rule_set *rs = fmag_context_slot_get(ctx, SUPEROPT_RULES_SLOT);
    if (!rs && (rs = malloc(sizeof *rs)) != NULL) {
        rule_set_make(rs);
        if (!fmag_context_slot_set(ctx, SUPEROPT_RULES_SLOT, rs, rule_set_destroy)) {
            free(rs);
            rs = NULL;
        }
    }
    if (!rs) {
        rule_set_make(local);
        return local;
    }
    memset(rs->cached, 0, sizeof rs->cached);
    return rs;
}

fmag_pass_status fmag_opt_superopt_peephole(fmag_func *f)
{
    rule_set local;
    rule_set *rs = rule_set_of(f->module->ctx, &local);
    marker mk = {0, rs->reach, rs->max_refs};
    bool changed = false;
    for (bool first = true; sweep(f, rs, &mk, first); first = false)
        changed = true;
#ifndef NDEBUG
    /* The marks are an argument, not a search: where asserts are on, a full sweep
     * checks that they reached the fixed point (nothing left to rewrite). */
    bool missed = sweep(f, rs, &mk, true);
    assert(!missed && "superopt-peephole: a root the marks skipped still matches");
    (void)missed;
#endif
    /* Every sweep clears the mark of each instruction it passes, and marks come only
     * from rewrites, of which the last sweep made none: no aux is left set. */
    return changed ? FMAG_PASS_CHANGED : FMAG_PASS_UNCHANGED;
}
