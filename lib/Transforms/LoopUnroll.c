/* Full loop unrolling: every natural loop whose trip count is a constant is
 * replaced by one copy of its body per iteration, inner loops first.
 *
 * Matches a natural loop: a back edge L -> H where H dominates L; the body is H
 * and every block that reaches a latch without passing H. A cycle that is not a
 * natural loop (irreducible control flow) is a diagnostic. The trip count is
 * found by simulation, not by pattern matching an induction variable: the
 * iterations are evaluated one after another on a known/unknown lattice (a value
 * is known when it is a literal or an fmag whose relevant operands are known,
 * computed with fmag_eval, lib/IR's copy of the machine instruction; values
 * defined outside the loop are unknown unless literal, parameters and call
 * results are unknown). A branch
 * with a known guard follows one edge, one with an unknown guard both. The
 * header's phis take the values of the feasible back edges (known when they all
 * agree), and the simulation stops when no back edge is feasible: the loop runs
 * at most that many iterations, whatever the inputs. A data-dependent way out (an
 * unknown guard with one arm leaving the loop) is kept as a branch in every copy,
 * so `for` loops with an early exit unroll too, up to their constant bound.
 * Nested loops that the simulation meets while simulating an outer loop (only
 * when the inner loop could not be unrolled first, e.g. a triangular loop whose
 * bound is the outer counter) are a black box: everything in them is unknown and
 * every edge feasible; the copies of the outer body then give each inner copy
 * constant bounds, and the next round unrolls them.
 *
 * Before unrolling, values of the loop used after it are routed through phis in
 * the exit blocks (loop-closed SSA), so each copy's value reaches them. A loop
 * whose state repeats unchanged while a back edge stays feasible, or that would
 * make the function larger than the budget, is a diagnostic naming the function
 * and the header (a repeating state with every exit decided is a loop that never
 * ends, and says so):
 *     error: loop at ^loop in @f: trip count is not a constant
 *     error: loop at ^loop in @f: the loop never ends: its state repeats (...)
 *     error: loop at ^loop in @f: unrolling would exceed the budget of 100000 instructions
 * In a function that has loops the pass folds constants first (-constfold), so
 * bounds computed from literals are literals, and again after each unrolled loop
 * (a count computed by one loop becomes the literal bound of the next; an
 * enclosing loop whose latch became unreachable is no loop any more).
 *
 * Legal (strict, bit for bit, on every input): each copy is the loop body with
 * the values the simulation proved constant replaced by those constants (the
 * simulation only calls a value known when its exact float32 value is the same
 * on every execution of that iteration) and the edges it proved never taken
 * removed; the copies run in the order of the iterations, so the program
 * computes the same values along the same path.
 *
 *   ^entry: jmp ^h                              ^entry: jmp ^bb1
 *   ^h: %i = phi [0.0, ^entry], [%i1, ^h]       ^bb1:   %s0 = mul %x, %x   (i = 0)
 *       %s = phi [%x, ^entry], [%s1, ^h]   ->           %s1 = mul %s0, %s0  (i = 1)
 *       %s1 = mul %s, %s                                ret %s1
 *       %i1 = add %i, 1.0
 *       %c = sub 2.0, %i1
 *       br %c, ^h, ^exit
 *   ^exit: ret %s1
 * (after the pass's final CFG cleanup joins the straight-line copies).
 *
 * Requires: a verified function. Preserves: the values; not the CFG.
 */
#include "CFG.h"
#include "OptUtil.h"
#include "fmag/Bits.h"
#include "fmag/Transforms.h"

#include <stdint.h>
#include <stdlib.h>

/* ------------------------------------------------------------- loops */

typedef struct loop {
    fmag_block *header;
    unsigned char *in; /* by block id: 1 when the block is in the body */
    unsigned nblocks;
    unsigned order; /* the header's reverse-postorder index: ties sort by it */
} loop;

typedef struct loopinfo {
    fmag_func *f;
    fmag_domtree dt;
    unsigned nb;
    fmag_preds preds; /* from reachable blocks only, in reverse postorder */
    loop *loops;
    unsigned nloops;
    fmag_block *irreducible; /* target of a retreating edge that is no back edge */
} loopinfo;

static void loopinfo_free(loopinfo *li)
{
    for (unsigned k = 0; k < li->nloops; k++)
        fmag_tmp_free(li->loops[k].in);
    fmag_tmp_free(li->loops);
    fmag_preds_free(&li->preds);
    fmag_domtree_free(&li->dt);
    li->loops = NULL;
    li->nloops = 0;
}

static bool reachable(const loopinfo *li, const fmag_block *b)
{
    return li->dt.rpo_index[b->id] != FMAG_DOM_UNREACHABLE;
}

/* Succ k of b as an edge of its own (a br with two equal arms is one edge). */
static unsigned edges(const fmag_block *b, fmag_block *s[2])
{
    unsigned n = fmag_block_succs(b, s);
    return n == 2 && s[0] == s[1] ? 1 : n;
}

static int cmp_loop_size(const void *a, const void *b)
{
    const loop *x = a, *y = b;
    if (x->nblocks != y->nblocks) return (x->nblocks > y->nblocks) - (x->nblocks < y->nblocks);
    return (x->order > y->order) - (x->order < y->order);
}

/* Finds the natural loops of f (renumbers it). Returns false when out of memory. */
static bool loops_find(fmag_func *f, loopinfo *li)
{
    memset(li, 0, sizeof *li);
    li->f = f;
    fmag_func_renumber(f);
    if (!fmag_domtree_build(f, &li->dt)) return false;
    unsigned nb = li->nb = f->nblocks;
    if (!fmag_preds_build(f, li->dt.rpo, li->dt.n, &li->preds)) return false;

    fmag_block **stack = fmag_tmp_malloc((nb + 1) * sizeof *stack);
    if (!stack) return false;
    for (unsigned i = 0; i < li->dt.n; i++) {
        fmag_block *b = li->dt.rpo[i];
        fmag_block *s[2];
        unsigned ns = edges(b, s);
        for (unsigned k = 0; k < ns; k++) {
            unsigned j = li->dt.rpo_index[s[k]->id];
            if (j > i) continue;
            if (!fmag_domtree_dominates(&li->dt, s[k], b)) {
                if (!li->irreducible) li->irreducible = s[k];
                continue;
            }
            loop *l = NULL;
            for (unsigned q = 0; q < li->nloops; q++)
                if (li->loops[q].header == s[k]) l = &li->loops[q];
            if (!l) {
                loop *nl = fmag_tmp_realloc(li->loops, (li->nloops + 1) * sizeof *nl);
                if (!nl) {
                    fmag_tmp_free(stack);
                    return false;
                }
                li->loops = nl;
                l = &li->loops[li->nloops++];
                l->header = s[k];
                l->nblocks = 1;
                l->order = j;
                l->in = fmag_tmp_calloc(nb + 1, 1);
                if (!l->in) {
                    fmag_tmp_free(stack);
                    return false;
                }
                l->in[s[k]->id] = 1;
            }
            /* Walk backwards from the latch; the header stops the walk. */
            unsigned top = 0;
            if (!l->in[b->id]) {
                l->in[b->id] = 1;
                l->nblocks++;
                stack[top++] = b;
            }
            while (top) {
                fmag_block *x = stack[--top];
                fmag_block *const *px = fmag_preds_of(&li->preds, x);
                for (unsigned p = 0; p < fmag_preds_count(&li->preds, x); p++) {
                    fmag_block *y = px[p];
                    if (l->in[y->id]) continue;
                    l->in[y->id] = 1;
                    l->nblocks++;
                    stack[top++] = y;
                }
            }
        }
    }
    fmag_tmp_free(stack);
    /* Innermost first: a nested loop's body is a strict subset of its parent's. */
    if (li->nloops > 1) qsort(li->loops, li->nloops, sizeof *li->loops, cmp_loop_size);
    return true;
}

/* --------------------------------------------------------- simulation */

/* The state of one loop's simulation: known values by value id (those of the
 * loop's blocks only), feasible blocks and edges of the current iteration. */
typedef struct sim {
    fmag_func *f;
    const loopinfo *li;
    const loop *l;
    fmag_block **body; /* in reverse postorder, the header first */
    unsigned nbody;
    unsigned char *inner; /* by block id: inside a nested loop (a black box) */
    unsigned char *known; /* by value id */
    uint32_t *val;        /* the 32 bits of an f32 or an i32 */
    unsigned char *feas;  /* by block id: runs in this iteration */
    unsigned char *edge;  /* by block id: bit k = successor k's edge is feasible */
    fmag_instr **phis;    /* the header's phis */
    unsigned nphis;
    unsigned char *hknown; /* the header phis' values entering this iteration */
    uint32_t *hval;
    unsigned char *nknown; /* ... entering the next one */
    uint32_t *nval;
    bool backedge;     /* some back edge feasible in this iteration */
    bool unknown_exit; /* a branch with an unknown guard had one arm leaving the loop:
                        * when the budget runs out, the trip count depends on the
                        * inputs rather than being too large */
    size_t cost;       /* instructions one copy of this iteration adds */
} sim;

static bool in_loop(const sim *s, const fmag_block *b)
{
    return b->id < s->li->nb && s->l->in[b->id] && b->func == s->f;
}

static bool loop_value(const sim *s, const fmag_value *v)
{
    return v->kind == FMAG_VALUE_RESULT && v->def->block && in_loop(s, v->def->block);
}

static bool get(const sim *s, const fmag_value *v, uint32_t *out)
{
    if (v->kind == FMAG_VALUE_CONST) {
        *out = v->ibits;
        return true;
    }
    if (!loop_value(s, v) || !s->known[v->id]) return false;
    *out = s->val[v->id];
    return true;
}

static void set(sim *s, fmag_value *v, bool known, uint32_t x)
{
    s->known[v->id] = known;
    s->val[v->id] = known ? x : 0u;
}

static bool getf(const sim *s, const fmag_value *v, float *out)
{
    uint32_t x;
    if (!get(s, v, &x)) return false;
    *out = fmag_float_of(x);
    return true;
}

/* An integer operation on the lattice: known when every operand is (an iselect also
 * when its guard is and the chosen arm is). */
static bool eval_int(const sim *s, const fmag_instr *i, uint32_t *out)
{
    uint32_t o[3] = {0, 0, 0};
    bool k[3] = {true, true, true};
    for (unsigned q = 0; q < i->nops && q < 3; q++)
        k[q] = get(s, i->ops[q].value, &o[q]);
    if (i->iop == FMAG_IOP_SELECT && k[2]) {
        unsigned arm = fmag_float_of(o[2]) > 0.0f ? 0 : 1;
        *out = o[arm];
        return k[arm];
    }
    if (!(k[0] && k[1] && k[2])) return false;
    *out = fmag_eval_int(i->iop, o[0], o[1], o[2]);
    return fmag_int_op_result_type(i->iop) == FMAG_TYPE_I32 || fmag_ou_finite(fmag_float_of(*out));
}

/* The machine instruction on the known/unknown lattice, exactly. */
static bool eval_fmag(const sim *s, const fmag_instr *i, uint32_t *out)
{
    float a = 0.0f, b = 0.0f, c = 0.0f, d = 0.0f, e = 0.0f; /* get() may leave them unset */
    bool ka = getf(s, i->ops[FMAG_A].value, &a), kb = getf(s, i->ops[FMAG_B].value, &b),
         kc = getf(s, i->ops[FMAG_C].value, &c), kd = getf(s, i->ops[FMAG_D].value, &d),
         ke = getf(s, i->ops[FMAG_E].value, &e);
    if (ke && !(e > 0.0f)) {
        *out = fmag_bits_of(d);
        return kd;
    }
    if (!(ka && kb && kc)) return false;
    float r = fmag_eval(a, b, c, 0.0f, 1.0f);
    if (!fmag_ou_finite(r)) return false;
    if (ke) {
        *out = fmag_bits_of(r);
        return true;
    }
    /* An unknown guard choosing between two equal values. */
    if (kd && fmag_bits_of(r) == fmag_bits_of(d)) {
        *out = fmag_bits_of(r);
        return true;
    }
    return false;
}

/* Is the edge from p (in the loop) to b feasible in this iteration? */
static bool edge_feasible(const sim *s, const fmag_block *p, const fmag_block *b)
{
    if (!in_loop(s, p) || !s->feas[p->id]) return false;
    fmag_block *succ[2];
    unsigned ns = edges(p, succ);
    for (unsigned k = 0; k < ns; k++)
        if (succ[k] == b && (s->edge[p->id] >> k & 1)) return true;
    return false;
}

/* Merge of a phi's incoming values over the feasible edges into its block. */
static bool merge_phi(const sim *s, const fmag_instr *phi, uint32_t *out)
{
    bool any = false;
    uint32_t v = 0;
    for (unsigned k = 0; k < phi->nops; k++) {
        if (!edge_feasible(s, phi->phi_blocks[k], phi->block)) continue;
        uint32_t x;
        if (!get(s, phi->ops[k].value, &x)) return false;
        if (any && x != v) return false;
        v = x;
        any = true;
    }
    *out = v;
    return any;
}

static void mark_succs(sim *s, fmag_block *b, unsigned bits)
{
    fmag_block *succ[2];
    unsigned ns = edges(b, succ);
    s->edge[b->id] = (unsigned char)bits;
    for (unsigned k = 0; k < ns; k++) {
        if (!(bits >> k & 1)) continue;
        if (succ[k] == s->l->header)
            s->backedge = true;
        else if (in_loop(s, succ[k]))
            s->feas[succ[k]->id] = 1;
    }
}

/* One iteration from the header state hknown/hval; fills nknown/nval. */
static void sim_iter(sim *s)
{
    for (unsigned k = 0; k < s->nbody; k++) {
        s->feas[s->body[k]->id] = 0;
        s->edge[s->body[k]->id] = 0;
    }
    s->feas[s->l->header->id] = 1;
    s->backedge = s->unknown_exit = false;
    s->cost = 0;
    for (unsigned k = 0; k < s->nphis; k++) {
        set(s, &s->phis[k]->results[0], s->hknown[k], s->hval[k]);
        s->cost += !s->hknown[k];
    }
    for (unsigned k = 0; k < s->nbody; k++) {
        fmag_block *b = s->body[k];
        if (!s->feas[b->id]) continue;
        if (s->inner[b->id]) {
            fmag_foreach_instr (i, b) {
                for (unsigned r = 0; r < i->nresults; r++)
                    set(s, &i->results[r], false, 0u);
                s->cost++;
            }
            mark_succs(s, b, 3);
            continue;
        }
        fmag_foreach_instr (i, b) {
            uint32_t x = 0;
            bool kn = false;
            switch (i->op) {
            case FMAG_OP_PHI:
                if (b == s->l->header) continue;
                kn = merge_phi(s, i, &x);
                set(s, &i->results[0], kn, x);
                break;
            case FMAG_OP_FMAG:
                kn = eval_fmag(s, i, &x);
                set(s, &i->results[0], kn, x);
                break;
            case FMAG_OP_INT:
                kn = eval_int(s, i, &x);
                set(s, &i->results[0], kn, x);
                break;
            case FMAG_OP_CALL:
                for (unsigned r = 0; r < i->nresults; r++)
                    set(s, &i->results[r], false, 0u);
                break;
            case FMAG_OP_BR: {
                fmag_block *succ[2];
                unsigned ns = edges(b, succ);
                if (ns == 1) {
                    mark_succs(s, b, 1);
                } else if (get(s, i->ops[0].value, &x)) {
                    kn = true;
                    mark_succs(s, b, fmag_float_of(x) > 0.0f ? 1 : 2);
                } else {
                    if (in_loop(s, succ[0]) != in_loop(s, succ[1])) s->unknown_exit = true;
                    mark_succs(s, b, 3);
                }
                break;
            }
            case FMAG_OP_JMP:
                mark_succs(s, b, 1);
                break;
            case FMAG_OP_RET:
                break;
            }
            /* A terminator always stays (a jmp when its guard is known). */
            s->cost += !kn || fmag_instr_is_terminator(i);
        }
    }
    for (unsigned k = 0; k < s->nphis; k++) {
        uint32_t x = 0;
        bool any = false, kn = true;
        fmag_instr *phi = s->phis[k];
        for (unsigned q = 0; q < phi->nops && kn; q++) {
            if (!edge_feasible(s, phi->phi_blocks[q], phi->block)) continue;
            uint32_t y = 0; /* get() leaves it unset when it fails */
            if (!get(s, phi->ops[q].value, &y) || (any && x != y)) kn = false;
            x = y;
            any = true;
        }
        s->nknown[k] = kn && any;
        s->nval[k] = s->nknown[k] ? x : 0u;
    }
}

static bool state_repeats(const sim *s)
{
    for (unsigned k = 0; k < s->nphis; k++) {
        if (s->hknown[k] != s->nknown[k]) return false;
        if (s->hknown[k] && s->hval[k] != s->nval[k]) return false;
    }
    return true;
}

static void state_advance(sim *s)
{
    memcpy(s->hknown, s->nknown, s->nphis);
    memcpy(s->hval, s->nval, s->nphis * sizeof *s->hval);
}

/* The header state on entry from outside the loop. */
static void state_init(sim *s)
{
    for (unsigned k = 0; k < s->nphis; k++) {
        fmag_instr *phi = s->phis[k];
        bool any = false, kn = true;
        uint32_t x = 0;
        for (unsigned q = 0; q < phi->nops && kn; q++) {
            if (in_loop(s, phi->phi_blocks[q])) continue;
            uint32_t y = 0; /* get() leaves it unset when it fails */
            if (!get(s, phi->ops[q].value, &y) || (any && x != y)) kn = false;
            x = y;
            any = true;
        }
        s->hknown[k] = kn && any;
        s->hval[k] = s->hknown[k] ? x : 0u;
    }
}

static void sim_free(sim *s)
{
    fmag_tmp_free(s->body);
    fmag_tmp_free(s->inner);
    fmag_tmp_free(s->known);
    fmag_tmp_free(s->val);
    fmag_tmp_free(s->feas);
    fmag_tmp_free(s->edge);
    fmag_tmp_free(s->phis);
    fmag_tmp_free(s->hknown);
    fmag_tmp_free(s->hval);
    fmag_tmp_free(s->nknown);
    fmag_tmp_free(s->nval);
}

static bool sim_init(sim *s, const loopinfo *li, const loop *l)
{
    memset(s, 0, sizeof *s);
    fmag_func *f = li->f;
    s->f = f;
    s->li = li;
    s->l = l;
    fmag_func_assert_valid(f, FMAG_VALID_BLOCK_IDS | FMAG_VALID_VALUE_IDS);
    unsigned nb = li->nb, nv = f->nvalues;
    s->body = fmag_tmp_malloc((l->nblocks + 1) * sizeof *s->body);
    s->inner = fmag_tmp_calloc(nb + 1, 1);
    s->known = fmag_tmp_calloc(nv + 1, 1);
    s->val = fmag_tmp_calloc(nv + 1, sizeof *s->val);
    s->feas = fmag_tmp_calloc(nb + 1, 1);
    s->edge = fmag_tmp_calloc(nb + 1, 1);
    unsigned np = 0;
    fmag_foreach_instr (i, l->header) {
        if (i->op == FMAG_OP_PHI) np++;
    }
    s->phis = fmag_tmp_malloc((np + 1) * sizeof *s->phis);
    s->hknown = fmag_tmp_calloc(np + 1, 1);
    s->hval = fmag_tmp_calloc(np + 1, sizeof *s->hval);
    s->nknown = fmag_tmp_calloc(np + 1, 1);
    s->nval = fmag_tmp_calloc(np + 1, sizeof *s->nval);
    if (!s->body || !s->inner || !s->known || !s->val || !s->feas || !s->edge || !s->phis ||
        !s->hknown || !s->hval || !s->nknown || !s->nval)
        return false;
    fmag_foreach_instr (i, l->header) {
        if (i->op == FMAG_OP_PHI) s->phis[s->nphis++] = i;
    }
    for (unsigned k = 0; k < li->dt.n; k++)
        if (l->in[li->dt.rpo[k]->id]) s->body[s->nbody++] = li->dt.rpo[k];
    for (unsigned q = 0; q < li->nloops; q++) {
        const loop *o = &li->loops[q];
        if (o == l || !l->in[o->header->id]) continue;
        for (unsigned b = 0; b < nb; b++)
            if (o->in[b]) s->inner[b] = 1;
    }
    return true;
}

/* ------------------------------------------------------- loop-closed SSA */

static fmag_block *idom_block(const loopinfo *li, fmag_block *b)
{
    unsigned i = li->dt.rpo_index[b->id];
    return i == 0 ? NULL : li->dt.rpo[li->dt.idom[i]];
}

/* Loop-closed SSA for one value v of the loop: the phis made so far, by block. */
typedef struct lcssa {
    sim *s;
    fmag_value *v;
    fmag_block **xb;
    fmag_value **xp;
    unsigned nx, cap;
    bool ok;
} lcssa;

static fmag_value *phi_at(lcssa *c, fmag_block *x);

/* v's value at the end of block p: v itself inside the loop; after it, the phi of
 * the first block on p's dominator-tree path whose immediate dominator is in the
 * loop (that block is dominated by v's definition, as is everything between). */
static fmag_value *value_at_end(lcssa *c, fmag_block *p)
{
    if (in_loop(c->s, p)) return c->v;
    fmag_block *x = p, *d;
    for (d = idom_block(c->s->li, x); d && !in_loop(c->s, d); d = idom_block(c->s->li, x))
        x = d;
    if (!d) {
        c->ok = false; /* not dominated by the loop: the verifier forbids it */
        return c->v;
    }
    return phi_at(c, x);
}

/* A phi for v at x merging its value over x's predecessors (memoized first, so a
 * cycle after the loop closes on the phi itself). */
static fmag_value *phi_at(lcssa *c, fmag_block *x)
{
    for (unsigned q = 0; q < c->nx; q++)
        if (c->xb[q] == x) return c->xp[q];
    const loopinfo *li = c->s->li;
    fmag_block *const *px = fmag_preds_of(&li->preds, x);
    unsigned npx = fmag_preds_count(&li->preds, x);
    if (npx == 0) {
        c->ok = false;
        return c->v;
    }
    if (c->nx == c->cap) {
        unsigned ncap = c->cap ? 2 * c->cap : 8;
        fmag_block **nb = fmag_tmp_realloc(c->xb, ncap * sizeof *nb);
        if (nb) c->xb = nb;
        fmag_value **np = fmag_tmp_realloc(c->xp, ncap * sizeof *np);
        if (np) c->xp = np;
        if (!nb || !np) {
            c->ok = false;
            return c->v;
        }
        c->cap = ncap;
    }
    fmag_instr *phi = fmag_instr_create(c->s->f, FMAG_OP_PHI, 0, 1);
    phi->results[0].type = c->v->type;
    if (x->first)
        fmag_instr_insert_before(x->first, phi);
    else
        fmag_block_append(x, phi);
    c->xb[c->nx] = x;
    c->xp[c->nx++] = &phi->results[0];
    for (unsigned p = 0; p < npx; p++)
        fmag_phi_add_incoming(phi, value_at_end(c, px[p]), px[p]);
    return &phi->results[0];
}

/* Routes every use after the loop of a value defined in it through phis at the
 * loop's exits (and where exits merge), so that unrolling only has to give the
 * exit blocks' phis one incoming value per copy. */
static bool make_lcssa(sim *s)
{
    lcssa c = {.s = s, .ok = true};
    for (unsigned k = 0; k < s->nbody && c.ok; k++) {
        fmag_foreach_instr (i, s->body[k]) {
            for (unsigned r = 0; r < i->nresults; r++) {
                c.v = &i->results[r];
                c.nx = 0;
                fmag_foreach_use (u, c.v) {
                    fmag_instr *user = u->user;
                    fmag_block *ub =
                        user->op == FMAG_OP_PHI ? user->phi_blocks[u->index] : user->block;
                    if (in_loop(s, ub) || !reachable(s->li, ub)) continue;
                    /* A phi just made here names v from inside the loop: skipped above. */
                    fmag_instr_set_op(user, u->index, value_at_end(&c, ub));
                }
            }
        }
    }
    fmag_tmp_free(c.xb);
    fmag_tmp_free(c.xp);
    return c.ok;
}

/* ------------------------------------------------------------- cloning */

typedef struct fixup {
    fmag_instr *term;
    unsigned slot;
} fixup;

typedef struct cloner {
    sim *s;
    fmag_value **map, **pmap; /* by value id: this copy's / the previous copy's value */
    fmag_block **bmap, **pbmap;
    fmag_block *after; /* where the next block goes */
    fixup *fix;        /* back edges of the previous copy, to this copy's header */
    unsigned nfix, capfix;
    fmag_block **latches; /* the previous copy's feasible latches (original blocks) */
    unsigned nlatch;
    fmag_value **inv; /* scratch: a header phi's incoming values and blocks */
    fmag_block **inb;
} cloner;

static fmag_value *map_in(const sim *s, fmag_value **map, fmag_value *v)
{
    return loop_value(s, v) ? map[v->id] : v;
}

static fmag_block *new_block(cloner *c)
{
    c->after = fmag_block_create_after(c->s->f, c->after, NULL);
    return c->after;
}

static bool add_fix(cloner *c, fmag_instr *t, unsigned slot)
{
    if (c->nfix == c->capfix) {
        unsigned ncap = c->capfix ? 2 * c->capfix : 8;
        fixup *nf = fmag_tmp_realloc(c->fix, ncap * sizeof *nf);
        if (!nf) return false;
        c->fix = nf;
        c->capfix = ncap;
    }
    c->fix[c->nfix++] = (fixup){t, slot};
    return true;
}

/* Makes the copy of the iteration just simulated. */
static bool clone_iteration(cloner *c, unsigned iter)
{
    sim *s = c->s;
    fmag_func *f = s->f;
    fmag_module *m = f->module;
    fmag_block *h = s->l->header;
    for (unsigned k = 0; k < s->nbody; k++)
        c->bmap[s->body[k]->id] = s->feas[s->body[k]->id] ? new_block(c) : NULL;
    fmag_block *nh = c->bmap[h->id];

    /* Entry edges into this copy's header. */
    if (iter == 0) {
        fmag_block *const *ph = fmag_preds_of(&s->li->preds, h);
        for (unsigned p = 0; p < fmag_preds_count(&s->li->preds, h); p++) {
            fmag_block *pred = ph[p];
            if (in_loop(s, pred)) continue;
            fmag_instr *t = fmag_block_terminator(pred);
            for (unsigned q = 0; q < 2; q++)
                if (t->targets[q] == h) t->targets[q] = nh;
        }
        fmag_func_invalidate(f, FMAG_VALID_CFG);
    } else {
        for (unsigned q = 0; q < c->nfix; q++)
            c->fix[q].term->targets[c->fix[q].slot] = nh;
    }
    c->nfix = 0;

    /* The header's phis: a literal when known, else the one incoming value, else a
     * phi over this copy's predecessors. */
    fmag_builder bld;
    fmag_builder_at_end(&bld, nh);
    for (unsigned k = 0; k < s->nphis; k++) {
        fmag_instr *phi = s->phis[k];
        fmag_value *res = &phi->results[0];
        if (s->hknown[k]) {
            c->map[res->id] = fmag_module_const_bits(m, res->type, s->hval[k]);
            continue;
        }
        /* The incoming (value, block) pairs of this copy's header. */
        unsigned nin = 0;
        for (unsigned q = 0; q < phi->nops; q++) {
            fmag_block *pb = phi->phi_blocks[q];
            if (iter == 0) {
                if (in_loop(s, pb)) continue;
                c->inv[nin] = phi->ops[q].value;
                c->inb[nin++] = pb;
            } else {
                for (unsigned j = 0; j < c->nlatch; j++)
                    if (c->latches[j] == pb) {
                        c->inv[nin] = map_in(s, c->pmap, phi->ops[q].value);
                        c->inb[nin++] = c->pbmap[pb->id];
                        break;
                    }
            }
        }
        if (nin == 0) return false; /* a copy without an entry: a bug */
        fmag_value *v = c->inv[0];
        if (nin > 1) {
            fmag_instr *np = fmag_build_phi_typed(&bld, res->type);
            for (unsigned q = 0; q < nin; q++)
                fmag_phi_add_incoming(np, c->inv[q], c->inb[q]);
            v = &np->results[0];
        }
        c->map[res->id] = v;
    }

    /* Instructions: create first (phis of nested loops name later values), then
     * set operands. */
    for (unsigned k = 0; k < s->nbody; k++) {
        fmag_block *b = s->body[k];
        if (!s->feas[b->id]) continue;
        fmag_foreach_instr (i, b) {
            i->aux = NULL;
            if (i->op == FMAG_OP_PHI && b == h) continue;
            if (i->nresults == 1 && i->op != FMAG_OP_CALL && s->known[i->results[0].id]) {
                c->map[i->results[0].id] =
                    fmag_module_const_bits(m, i->results[0].type, s->val[i->results[0].id]);
                continue;
            }
            if (fmag_instr_is_terminator(i)) continue;
            fmag_instr *ni =
                fmag_instr_create(f, i->op, i->op == FMAG_OP_PHI ? 0 : i->nops, i->nresults);
            ni->callee = i->callee;
            ni->iop = i->iop;
            for (unsigned r = 0; r < i->nresults; r++)
                ni->results[r].type = i->results[r].type;
            fmag_block_append(c->bmap[b->id], ni);
            i->aux = ni;
            for (unsigned r = 0; r < i->nresults; r++)
                c->map[i->results[r].id] = &ni->results[r];
        }
    }
    c->nlatch = 0;
    for (unsigned k = 0; k < s->nbody; k++) {
        fmag_block *b = s->body[k];
        if (!s->feas[b->id]) continue;
        fmag_block *nb = c->bmap[b->id];
        fmag_foreach_instr (i, b) {
            fmag_instr *ni = i->aux;
            if (ni && i->op == FMAG_OP_PHI) {
                for (unsigned q = 0; q < i->nops; q++) {
                    fmag_block *pb = i->phi_blocks[q];
                    if (!edge_feasible(s, pb, b)) continue;
                    fmag_phi_add_incoming(ni, map_in(s, c->map, i->ops[q].value), c->bmap[pb->id]);
                }
            } else if (ni) {
                for (unsigned q = 0; q < i->nops; q++)
                    fmag_instr_set_op(ni, q, map_in(s, c->map, i->ops[q].value));
            }
            if (!fmag_instr_is_terminator(i) || i->op == FMAG_OP_RET) continue;
            fmag_block *succ[2];
            unsigned ns = edges(b, succ), bits = s->edge[b->id];
            fmag_block *tg[2];
            unsigned nt = 0;
            for (unsigned q = 0; q < ns; q++)
                if (bits >> q & 1) tg[nt++] = succ[q];
            fmag_instr *t;
            if (nt == 1) {
                t = fmag_instr_create(f, FMAG_OP_JMP, 0, 0);
            } else {
                t = fmag_instr_create(f, FMAG_OP_BR, 1, 0);
                fmag_instr_set_op(t, 0, map_in(s, c->map, i->ops[0].value));
            }
            fmag_block_append(nb, t);
            for (unsigned q = 0; q < nt; q++) {
                fmag_block *x = tg[q];
                if (x == h) {
                    t->targets[q] = NULL;
                    if (!add_fix(c, t, q)) return false;
                    c->latches[c->nlatch++] = b;
                } else if (in_loop(s, x)) {
                    t->targets[q] = c->bmap[x->id];
                } else {
                    t->targets[q] = x;
                    fmag_foreach_instr (p, x) {
                        if (p->op != FMAG_OP_PHI) break;
                        fmag_value *v = fmag_phi_value_for(p, b);
                        if (v) fmag_phi_add_incoming(p, map_in(s, c->map, v), nb);
                    }
                }
            }
        }
    }
    for (unsigned k = 0; k < s->nbody; k++)
        fmag_foreach_instr (i, s->body[k])
            i->aux = NULL;
    return true;
}

/* ------------------------------------------------------------- driver */

typedef enum unroll_result {
    UNROLLED,
    NOT_CONSTANT,
    NEVER_ENDS, /* the state repeats and no exit depends on an unknown value */
    TOO_BIG,
    UNSUPPORTED,
    NO_MEMORY
} unroll_result;

static size_t loop_instrs(const sim *s)
{
    size_t n = 0;
    for (unsigned k = 0; k < s->nbody; k++)
        for (fmag_instr *i = s->body[k]->first; i; i = i->next)
            n++;
    return n;
}

static unroll_result unroll_loop(loopinfo *li, const loop *l, size_t budget)
{
    fmag_func *f = li->f;
    sim s;
    unroll_result res = NO_MEMORY;
    cloner c = {0};
    if (!sim_init(&s, li, l)) goto out;

    /* Pass 1: count the iterations and the size without changing anything. */
    size_t base = fmag_func_num_instrs(f) - loop_instrs(&s), total = 0;
    unsigned iters = 0;
    state_init(&s);
    for (;;) {
        sim_iter(&s);
        iters++;
        total += s.cost;
        if (!s.backedge) break;
        if (state_repeats(&s)) {
            res = s.unknown_exit ? NOT_CONSTANT : NEVER_ENDS;
            goto out;
        }
        if (base + total > budget) {
            res = s.unknown_exit ? NOT_CONSTANT : TOO_BIG;
            goto out;
        }
        state_advance(&s);
    }
    if (base + total > budget) {
        res = TOO_BIG;
        goto out;
    }

    /* Pass 2: the same iterations again, one copy each. */
    res = UNSUPPORTED;
    if (!make_lcssa(&s)) goto out;
    res = NO_MEMORY;
    unsigned nv = f->nvalues, nb = li->nb;
    c.s = &s;
    c.map = fmag_tmp_calloc(nv + 1, sizeof *c.map);
    c.pmap = fmag_tmp_calloc(nv + 1, sizeof *c.pmap);
    c.bmap = fmag_tmp_calloc(nb + 1, sizeof *c.bmap);
    c.pbmap = fmag_tmp_calloc(nb + 1, sizeof *c.pbmap);
    c.latches = fmag_tmp_malloc((2 * (size_t)nb + 1) * sizeof *c.latches);
    c.inv = fmag_tmp_malloc((2 * (size_t)nb + 1) * sizeof *c.inv);
    c.inb = fmag_tmp_malloc((2 * (size_t)nb + 1) * sizeof *c.inb);
    if (!c.map || !c.pmap || !c.bmap || !c.pbmap || !c.latches || !c.inv || !c.inb) goto out;
    c.after = l->header->prev;
    state_init(&s);
    for (unsigned it = 0; it < iters; it++) {
        sim_iter(&s);
        if (!clone_iteration(&c, it)) goto out;
        fmag_value **tm = c.map;
        c.map = c.pmap;
        c.pmap = tm;
        fmag_block **tb = c.bmap;
        c.bmap = c.pbmap;
        c.pbmap = tb;
        state_advance(&s);
    }
    /* The original loop goes: exit phis forget it, then its blocks. */
    for (unsigned k = 0; k < s.nbody; k++) {
        fmag_block *succ[2];
        unsigned ns = edges(s.body[k], succ);
        for (unsigned q = 0; q < ns; q++)
            if (!in_loop(&s, succ[q])) fmag_cfg_phi_drop_block(succ[q], s.body[k]);
    }
    for (unsigned k = 0; k < s.nbody; k++)
        fmag_foreach_instr (i, s.body[k])
            for (unsigned r = 0; r < i->nresults; r++)
                fmag_value_replace_all_uses(
                    &i->results[r], fmag_module_const_bits(f->module, i->results[r].type, 0));
    for (unsigned k = 0; k < s.nbody; k++)
        fmag_block_erase(s.body[k]);
    res = UNROLLED;
out:
    fmag_tmp_free(c.map);
    fmag_tmp_free(c.pmap);
    fmag_tmp_free(c.bmap);
    fmag_tmp_free(c.pbmap);
    fmag_tmp_free(c.latches);
    fmag_tmp_free(c.inv);
    fmag_tmp_free(c.inb);
    fmag_tmp_free(c.fix);
    sim_free(&s);
    return res;
}

static void loop_error(fmag_func *f, fmag_block *h, const char *what, size_t budget)
{
    char name[80];
    fmag_func_name_values(f);
    fmag_cfg_block_name(h, name, sizeof name);
    const fmag_module *m = f->module;
    const char *file = h->src ? h->src->file : m->src_file;
    const char *text = h->src ? h->src->text : m->src_text;
    size_t len = h->src ? h->src->len : m->src_len;
    if (file && h->src_line) { /* the loop's own source position, as the frontends' */
        char msg[256];
        if (budget)
            snprintf(msg, sizeof msg,
                     "unrolling this loop (in %s) would exceed the budget of %zu instructions",
                     f->name, budget);
        else
            snprintf(msg, sizeof msg, "loop in %s: %s", f->name, what);
        fmag_context_error_at(m->ctx, file, text, len, h->src_line, h->src_col, "%s", msg);
        return;
    }
    if (budget)
        fmag_context_error(f->module->ctx,
                           "error: loop at %s in @%s: unrolling would exceed the budget of %zu "
                           "instructions",
                           name, f->name, budget);
    else
        fmag_context_error(f->module->ctx, "error: loop at %s in @%s: %s", name, f->name, what);
}

fmag_pass_status fmag_opt_loop_unroll(fmag_func *f)
{
    if (!f->first) return FMAG_PASS_UNCHANGED;
    fmag_block *from, *to;
    if (!fmag_cfg_find_back_edge(f, &from, &to)) return FMAG_PASS_UNCHANGED;
    size_t budget = f->module->max_unroll_instrs ? f->module->max_unroll_instrs
                                                 : fmag_context_unroll_budget(f->module->ctx);
    fmag_opt_constfold(f);
    fmag_cfg_remove_unreachable(f);
    for (;;) {
        loopinfo li;
        if (!loops_find(f, &li)) {
            loopinfo_free(&li);
            fmag_context_error(f->module->ctx, "error: in function @%s: out of memory", f->name);
            return FMAG_PASS_FAILED;
        }
        if (li.irreducible) {
            loop_error(f, li.irreducible,
                       "irreducible control flow (a cycle entered other "
                       "than through one header) cannot be unrolled",
                       0);
            loopinfo_free(&li);
            return FMAG_PASS_FAILED;
        }
        if (li.nloops == 0) {
            loopinfo_free(&li);
            break;
        }
        unroll_result first_fail = UNROLLED;
        fmag_block *fail_header = NULL;
        bool progress = false;
        for (unsigned k = 0; k < li.nloops && !progress; k++) {
            unroll_result r = unroll_loop(&li, &li.loops[k], budget);
            if (r == UNROLLED) {
                progress = true;
            } else if (r == NOT_CONSTANT) {
                /* An enclosing loop may still give it constant bounds. */
                if (first_fail == UNROLLED) {
                    first_fail = r;
                    fail_header = li.loops[k].header;
                }
            } else {
                first_fail = r;
                fail_header = li.loops[k].header;
                break;
            }
        }
        loopinfo_free(&li);
        if (progress) {
            /* What the copies made literal may end other loops or fix their
             * bounds: an enclosing loop whose latch became unreachable, a count
             * computed by an earlier loop. */
            fmag_cfg_remove_unreachable(f);
            fmag_opt_constfold(f);
            continue;
        }
        switch (first_fail) {
        case TOO_BIG:
            loop_error(f, fail_header, NULL, budget);
            break;
        case UNSUPPORTED:
            loop_error(f, fail_header,
                       "a value of the loop is used after it outside the exit blocks' "
                       "dominance; cannot unroll",
                       0);
            break;
        case NO_MEMORY:
            loop_error(f, fail_header, "out of memory", 0);
            break;
        case NEVER_ENDS:
            loop_error(f, fail_header,
                       "the loop never ends: its state repeats (a counter that does not "
                       "change, or stops changing in float32)",
                       0);
            break;
        default:
            loop_error(f, fail_header, "trip count is not a constant", 0);
            break;
        }
        return FMAG_PASS_FAILED;
    }
    fmag_opt_simplifycfg(f);
    return FMAG_PASS_CHANGED;
}
