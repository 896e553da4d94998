/* Common subexpression elimination over the dominator tree.
 *
 * Matches two fmag instructions (or two calls of the same callee, or two integer
 * operations of one kind, commutative ones up to operand order) with the same
 * operands where the first one's block dominates the second's (or precedes it in the
 * same block); the second's uses read the first, and it goes. Operands are compared
 * as SSA values; literals are interned, so two literals match only when their bits
 * do (+0.0 and -0.0 are different literals and never merge). Equality is taken up to
 * the exact symmetries of fma: a*b = b*a, x*1 + y = y*1 + x, and the fallback d
 * does not matter under a literal guard > 0.
 *
 * Legal (strict): fmag is a pure function of its five operands (no memory, no
 * traps), and each symmetry above holds bit for bit in IEEE arithmetic with one
 * rounding. A call is a pure function of its arguments. Dominance makes the first
 * result available wherever the second was used.
 *
 *   %0 = add %x, %y
 *   %1 = add %y, %x                 ->   (gone; users see %0)
 *   %2 = fmag %x, 2.0, 0.0, 0.0, 1.0
 *   %3 = fmag %x, 2.0, -0.0, 0.0, 1.0        ; stays: -0.0 is another literal
 *
 * Requires: nothing. Preserves: the CFG.
 */
#include "OptUtil.h"
#include "fmag/Transforms.h"

#include <stdint.h>
#include <stdlib.h>

enum { KEY_FMA, KEY_ADD, KEY_CALL, KEY_INT /* + the integer op */ };

typedef struct key {
    int tag;
    const void *v[5];
    const fmag_instr *call;
} key;

static void sort2(const void **x, const void **y)
{
    if ((uintptr_t)*x > (uintptr_t)*y) {
        const void *t = *x;
        *x = *y;
        *y = t;
    }
}

/* Fills every field of *k (written in place: a key returned by value was a copy and
 * a memset per instruction). */
static void make_key(const fmag_instr *i, key *k)
{
    k->call = NULL;
    if (i->op == FMAG_OP_CALL) {
        k->tag = KEY_CALL;
        k->call = i;
        k->v[0] = i->callee;
        k->v[1] = k->v[2] = k->v[3] = k->v[4] = NULL;
        return;
    }
    if (i->op == FMAG_OP_INT) {
        k->tag = KEY_INT + (int)i->iop;
        for (unsigned j = 0; j < 5; j++)
            k->v[j] = j < i->nops && j < 3 ? i->ops[j].value : NULL;
        if (fmag_int_op_commutes(i->iop)) sort2(&k->v[0], &k->v[1]);
        return;
    }
    fmag_value *a = i->ops[FMAG_A].value, *b = i->ops[FMAG_B].value, *c = i->ops[FMAG_C].value,
               *d = i->ops[FMAG_D].value, *e = i->ops[FMAG_E].value;
    bool always = fmag_ou_const_true(e);
    k->v[3] = always ? NULL : d;
    k->v[4] = always ? NULL : e;
    if (fmag_ou_is_one(b) || fmag_ou_is_one(a)) {
        k->tag = KEY_ADD;
        k->v[0] = fmag_ou_is_one(b) ? a : b;
        k->v[1] = c;
        k->v[2] = NULL;
        sort2(&k->v[0], &k->v[1]);
    } else {
        k->tag = KEY_FMA;
        k->v[0] = a;
        k->v[1] = b;
        k->v[2] = c;
        sort2(&k->v[0], &k->v[1]);
    }
}

/* A multiply per word and a final fold of the high half into the low bits the table
 * uses (the words are aligned pointers, whose own low bits are zero). Which hash it
 * is changes no result: entries with equal keys share a probe chain in the order
 * they were added, so the first dominating match is the same. */
static uint64_t key_hash(const key *k)
{
    const uint64_t m = 0x9e3779b97f4a7c15ull;
    uint64_t h = (uint64_t)(k->tag + 1) * m;
    for (int j = 0; j < 5; j++)
        h = (h ^ (uint64_t)(uintptr_t)k->v[j]) * m;
    if (k->call)
        for (unsigned j = 0; j < k->call->nops; j++)
            h = (h ^ (uint64_t)(uintptr_t)k->call->ops[j].value) * m;
    return h ^ h >> 32;
}

static bool key_equal(const key *x, const key *y)
{
    if (x->tag != y->tag) return false;
    for (int j = 0; j < 5; j++)
        if (x->v[j] != y->v[j]) return false;
    if (x->tag == KEY_CALL) {
        if (x->call->nops != y->call->nops) return false;
        for (unsigned j = 0; j < x->call->nops; j++)
            if (x->call->ops[j].value != y->call->ops[j].value) return false;
    }
    return true;
}

/* The table holds a key's hash and the index + 1 of its instruction in `seen` (0: an
 * empty place): half the bytes to zero that the hash and a pointer took. */
typedef struct slot {
    uint32_t hash;
    uint32_t seen;
} slot;

/* Whether o, earlier in the walk, dominates b. A function of one block needs no
 * dominator tree: an earlier instruction of the block comes before every later one. */
static bool walk_dominates(const fmag_domtree *dt, const fmag_instr *o, const fmag_block *b)
{
    return !dt || fmag_domtree_dominates(dt, o->block, b);
}

fmag_pass_status fmag_opt_cse(fmag_func *f)
{
    fmag_domtree tree, *dt = NULL;
    if (f->first != f->last) {
        if (!fmag_domtree_build(f, &tree)) {
            fmag_context_out_of_memory(f->module->ctx, "cse");
            return FMAG_PASS_FAILED;
        }
        dt = &tree;
    } else {
        fmag_func_number_blocks(f); /* as the tree's build would: later readers may ask */
    }
    size_t n = fmag_func_num_instrs(f), cap = 16;
    while (cap < 2 * n + 2)
        cap *= 2;
    slot *tab = fmag_tmp_calloc(cap, sizeof(*tab));
    fmag_instr **seen = tab ? fmag_tmp_malloc((n + 1) * sizeof(*seen)) : NULL;
    if (!seen) {
        fmag_tmp_free(tab);
        if (dt) fmag_domtree_free(dt);
        fmag_context_out_of_memory(f->module->ctx, "cse");
        return FMAG_PASS_FAILED;
    }
    bool changed = false;
    uint32_t nseen = 0;
    for (unsigned bi = 0; bi < (dt ? dt->n : 1); bi++) {
        fmag_block *b = dt ? dt->rpo[bi] : f->first;
        if (!b) break;
        fmag_foreach_instr (i, b) {
            if (!i->block ||
                (i->op != FMAG_OP_FMAG && i->op != FMAG_OP_CALL && i->op != FMAG_OP_INT))
                continue;
            key k;
            make_key(i, &k);
            uint32_t h = (uint32_t)key_hash(&k);
            size_t s = h & (cap - 1);
            fmag_instr *found = NULL;
            for (; tab[s].seen; s = (s + 1) & (cap - 1)) {
                if (tab[s].hash != h) continue;
                fmag_instr *o = seen[tab[s].seen - 1];
                if (!o->block || o->op != i->op) continue;
                key ko;
                make_key(o, &ko);
                if (key_equal(&k, &ko) && walk_dominates(dt, o, b)) {
                    found = o;
                    break;
                }
            }
            if (found) {
                for (unsigned r = 0; r < i->nresults; r++)
                    fmag_value_replace_all_uses(&i->results[r], &found->results[r]);
                fmag_instr_erase(i);
                changed = true;
            } else {
                seen[nseen] = i;
                tab[s].hash = h;
                tab[s].seen = ++nseen;
            }
        }
    }
    fmag_tmp_free(seen);
    fmag_tmp_free(tab);
    if (dt) fmag_domtree_free(dt);
    return fmag_ou_status(changed);
}
