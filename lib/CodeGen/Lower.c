/* Lowering, first phase: the single block of an export function becomes a DAG of
 * machine-shaped fmag nodes, simplified with rewrites that are exact under the
 * strict contract of SPEC §2 (bit-identical results, +0 and -0 counted equal).
 *
 * Every rewrite here either removes an instruction or changes no count:
 *  - a guard known true drops the fallback; a guard known false is the fallback;
 *  - a constant factor in `a` swaps into `b` (fmaf is commutative in a*b);
 *  - x*1 + ±0 is x (only -0 may become +0) and a select with equal arms is the arm;
 *  - a select whose true arm is a single-use unconditional fma evaluates that fma
 *    itself: select(fma(u,b,c), f, g) = fmag(u, b, c, f, g);
 *  - max/min/abs shaped selects may swap their arms (cg_dag_orient), which decides
 *    which value is the fallback and so where the result lands;
 *  - relu(t) may become (-t > 0) ? z*0 + 0 : t (cg_dag_relu_flip): one more
 *    instruction than a select on a pristine zero, but the result lands on t's own
 *    register, which saves the move (and the zero register) when that is where it
 *    is wanted. The driver tries both;
 *  - a select of two literals g > 0 ? K1 : K0 (K0 != 0) becomes t*(K1 - K0) + K0
 *    with t = g > 0 ? 1 : 0 on a free zero, when K1 - K0 is exact
 *    (split as the DAG is built): two instructions, and the second can write
 *    any register, where materializing K0 and selecting over it lands on K0's.
 */
#include "CGInternal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ref_of's diagnostics, out of its way: it runs on every operand. */
static bool ref_error(fmag_func *f, const fmag_value *v)
{
    if (fmag_value_is_const(v))
        fmag_context_error(f->module->ctx,
                           "error: in function @%s: codegen: literal %g cannot be encoded "
                           "(NaN and infinity are not FMAG literals)",
                           f->name, (double)v->imm);
    else
        fmag_context_error(f->module->ctx,
                           "error: in function @%s: codegen: operand used before it is defined",
                           f->name);
    return false;
}

static inline bool ref_of(fmag_func *f, fmag_value *v, const cg_ref *map, cg_ref *out)
{
    if (fmag_value_is_const(v)) {
        if (!isfinite(v->imm)) return ref_error(f, v);
        *out = cg_const(v->imm);
        return true;
    }
    *out = map[v->id];
    return out->v != CG_NONE || ref_error(f, v);
}

/* Simplifies one node in place; returns true and sets *alias when the node
 * reduces to an existing value or literal. */
static bool simplify(cg_node *n, cg_ref *alias)
{
    cg_ref *op = n->op;
    if (!n->uncond) {
        if (cg_is_const(op[FMAG_E])) {
            if (op[FMAG_E].imm > 0.0f) {
                n->uncond = true;
            } else {
                *alias = op[FMAG_D];
                return true;
            }
        }
    }
    if (n->uncond) op[FMAG_D].v = CG_NONE, op[FMAG_E] = cg_const(1.0f);
    if (cg_is_const(op[FMAG_A]) && !cg_is_const(op[FMAG_B])) {
        cg_ref t = op[FMAG_A];
        op[FMAG_A] = op[FMAG_B];
        op[FMAG_B] = t;
    }
    bool all_const = cg_is_const(op[FMAG_A]) && cg_is_const(op[FMAG_B]) && cg_is_const(op[FMAG_C]);
    float k = all_const ? fmaf(op[FMAG_A].imm, op[FMAG_B].imm, op[FMAG_C].imm) : 0.0f;
    bool is_move = cg_is_val(op[FMAG_A]) && cg_is_imm(op[FMAG_B], 1.0f) && cg_is_zero(op[FMAG_C]);
    if (n->uncond) {
        if (all_const && isfinite(k)) {
            *alias = cg_const(k);
            return true;
        }
        if (is_move) {
            *alias = op[FMAG_A];
            return true;
        }
        return false;
    }
    /* Equal arms: the guard does not matter. */
    if (is_move && cg_ref_eq(op[FMAG_A], op[FMAG_D])) {
        *alias = op[FMAG_D];
        return true;
    }
    if (all_const && cg_is_const(op[FMAG_D]) && k == op[FMAG_D].imm) {
        *alias = op[FMAG_D];
        return true;
    }
    return false;
}

/* The literal step K0 -> K1 of a select of two literals, when exact: d with
 * fmaf(1, d, K0) == K1 (d itself a finite float). */
static bool const_select_step(const cg_node *n, float *step)
{
    if (n->dead || n->uncond || !cg_is_const(n->op[FMAG_A]) || !cg_is_const(n->op[FMAG_B]) ||
        !cg_is_const(n->op[FMAG_C]) || !cg_is_const(n->op[FMAG_D]) || cg_is_zero(n->op[FMAG_D]) ||
        !cg_is_val(n->op[FMAG_E]))
        return false;
    float k1 = fmaf(n->op[FMAG_A].imm, n->op[FMAG_B].imm, n->op[FMAG_C].imm);
    float k0 = n->op[FMAG_D].imm;
    double diff = (double)k1 - (double)k0;
    float d = (float)diff;
    if (!isfinite(k1) || !isfinite(d) || (double)d != diff) return false;
    float back = fmaf(1.0f, d, k0);
    if (!(back == k1 && (back != 0.0f || k1 == 0.0f))) return false;
    *step = d;
    return true;
}

static bool is_const_select(const cg_node *n)
{
    float step;
    return const_select_step(n, &step);
}

/* g > 0 ? K1 : K0  ==  t*(K1 - K0) + K0 with t = g > 0 ? 1 : 0 (t lands on a free
 * zero): t is exactly 0 or 1, so the fma gives K0 or, checked in
 * const_select_step, exactly K1; and the fma may write any register. */
static void split_const_select(cg_node *n, cg_node *t, int t_v)
{
    float step = 0.0f;
    const_select_step(n, &step);
    t->op[FMAG_A] = cg_const(1.0f);
    t->op[FMAG_B] = cg_const(1.0f);
    t->op[FMAG_C] = cg_const(0.0f);
    t->op[FMAG_D] = cg_const(0.0f);
    t->op[FMAG_E] = n->op[FMAG_E];
    float k0 = n->op[FMAG_D].imm;
    memset(n, 0, sizeof *n);
    n->op[FMAG_A] = cg_val(t_v);
    n->op[FMAG_B] = cg_const(step);
    n->op[FMAG_C] = cg_const(k0);
    n->op[FMAG_D].v = CG_NONE;
    n->op[FMAG_E] = cg_const(1.0f);
    n->uncond = true;
}

/* After DCE: the nodes of the splits whose select is dead go, so that the DAG is
 * numbered as if only live selects had been split (the node count decides how hard
 * the driver searches, and ties in the schedules follow the numbering). `pre`: the
 * first node of each split, increasing. When out of memory the dead nodes stay: only
 * the numbering differs. */
static void drop_dead_splits(cg_dag *g, const unsigned *pre, unsigned npre)
{
    unsigned ndead = 0;
    for (unsigned j = 0; j < npre; j++)
        ndead += g->nodes[pre[j] + 1].dead;
    if (!ndead) return;
    int *map = fmag_tmp_malloc(sizeof *map * (g->nin + g->nnodes + 1));
    if (!map) return;
    for (unsigned v = 0; v < g->nin; v++)
        map[v] = (int)v;
    unsigned w = 0, j = 0;
    for (unsigned i = 0; i < g->nnodes; i++) {
        bool split = j < npre && pre[j] == i;
        j += split;
        if (split && g->nodes[i + 1].dead) {
            map[g->nin + i] = CG_NONE; /* read only by its dead select */
            continue;
        }
        cg_node n = g->nodes[i];
        for (unsigned k = 0; k < 5; k++)
            if (cg_is_val(n.op[k])) n.op[k].v = map[n.op[k].v];
        g->nodes[w] = n;
        map[g->nin + i] = (int)(g->nin + w);
        w++;
    }
    for (unsigned k = 0; k < g->nout; k++)
        if (cg_is_val(g->outs[k])) g->outs[k].v = map[g->outs[k].v];
    fmag_tmp_free(map);
    g->nnodes = w;
}

static void count_uses(const cg_node *n, unsigned *uses)
{
    for (unsigned k = 0; k < 5; k++)
        if (n->op[k].v >= 0) uses[n->op[k].v]++;
}

bool cg_dag_build(fmag_func *f, cg_dag *g, unsigned **uses_out)
{
    fmag_context *ctx = f->module->ctx;
    memset(g, 0, sizeof *g);
    if (!f->first || f->first != f->last) {
        unsigned nb = 0;
        fmag_foreach_block (b, f)
            nb++;
        fmag_context_error(ctx,
                           "error: in function @%s: codegen: %u blocks; lowering needs a single "
                           "block (run -O2 first)",
                           f->name, nb);
        return false;
    }
    if (f->nparams > FMAG_VM_MAX_REGS || f->nresults > FMAG_VM_MAX_REGS) {
        fmag_context_error(ctx, "error: in function @%s: codegen: too many parameters or results",
                           f->name);
        return false;
    }
    fmag_func_renumber(f);
    fmag_block *blk = f->first;
    unsigned ninstr = 0;
    fmag_foreach_instr (i, blk)
        ninstr++;
    cg_ref *map = fmag_tmp_malloc(sizeof *map * (f->nvalues + 1));
    /* not zeroed: each node is, as it is built, and none past nnodes is read; two
     * per instruction at most (a literal select is split as it is built) */
    g->nodes = fmag_tmp_malloc(sizeof *g->nodes * (2 * (size_t)ninstr + 1));
    g->outs = fmag_tmp_calloc(f->nresults + 1, sizeof *g->outs);
    /* the first node of each split, in increasing order (drop_dead_splits's `pre`) */
    unsigned *pre = fmag_tmp_malloc(sizeof *pre * (ninstr + 1));
    unsigned npre = 0;
    /* cg_dag_use_counts, counted as the nodes are built */
    unsigned *uses = fmag_tmp_calloc(f->nparams + 2 * (size_t)ninstr + 1, sizeof *uses);
    if (!map || !g->nodes || !g->outs || !pre || !uses) {
        fmag_tmp_free(map);
        fmag_tmp_free(pre);
        fmag_tmp_free(uses);
        cg_dag_free(g);
        fmag_context_error(ctx, "error: in function @%s: codegen: out of memory", f->name);
        return false;
    }
    for (unsigned i = 0; i < f->nvalues; i++)
        map[i].v = CG_NONE;
    g->nin = f->nparams;
    g->nout = f->nresults;
    for (unsigned i = 0; i < f->nparams; i++)
        map[f->params[i].id] = cg_val((int)i);
    bool ok = true, have_ret = false;
    fmag_foreach_instr (i, blk) {
        if (have_ret) {
            fmag_context_error(ctx, "error: in function @%s: codegen: instruction after ret",
                               f->name);
            ok = false;
            break;
        }
        if (i->op == FMAG_OP_RET) {
            if (i->nops != f->nresults) {
                fmag_context_error(
                    ctx, "error: in function @%s: codegen: ret has %u values, %u expected", f->name,
                    i->nops, f->nresults);
                ok = false;
                break;
            }
            for (unsigned k = 0; k < i->nops && ok; k++) {
                ok = ref_of(f, fmag_instr_op(i, k), map, &g->outs[k]);
                if (ok && g->outs[k].v >= 0) uses[g->outs[k].v]++;
            }
            have_ret = true;
            continue;
        }
        if (i->op == FMAG_OP_INT) {
            fmag_context_error(ctx,
                               "error: in function @%s: codegen: cannot lower the integer "
                               "operation '%s' (run -legalize-int, or -O1/-O2, first)",
                               f->name, fmag_int_op_name(i->iop));
            ok = false;
            break;
        }
        if (i->op != FMAG_OP_FMAG || i->nops != 5) {
            fmag_context_error(ctx,
                               "error: in function @%s: codegen: cannot lower a '%s' instruction "
                               "(run -O2 first)",
                               f->name, fmag_opcode_name(i->op));
            ok = false;
            break;
        }
        cg_node *n = &g->nodes[g->nnodes];
        memset(n, 0, sizeof *n);
        for (unsigned k = 0; k < 5 && ok; k++)
            ok = ref_of(f, fmag_instr_op(i, k), map, &n->op[k]);
        if (!ok) break;
        cg_ref alias;
        if (simplify(n, &alias)) {
            map[i->results[0].id] = alias;
            continue;
        }
        if (is_const_select(n)) {
            /* cg_dag_split_const_select's rewrite, here instead of renumbering
             * every node after the DAG is built */
            cg_node *sel = n + 1;
            *sel = *n;
            memset(n, 0, sizeof *n);
            split_const_select(sel, n, (int)(g->nin + g->nnodes));
            count_uses(n, uses);
            n = sel;
            pre[npre++] = g->nnodes++;
        }
        count_uses(n, uses);
        map[i->results[0].id] = cg_val((int)(g->nin + g->nnodes));
        g->nnodes++;
    }
    if (ok && !have_ret) {
        fmag_context_error(ctx, "error: in function @%s: codegen: block does not end in ret",
                           f->name);
        ok = false;
    }
    fmag_tmp_free(map);
    /* Every node read by another or an output: all are read by the outputs (the
     * last node is an output's, and so on backwards), nothing for DCE to find. */
    bool all_read = true;
    for (unsigned v = g->nin; ok && v < g->nin + g->nnodes && all_read; v++)
        all_read = uses[v] != 0;
    if (ok && !all_read) {
        cg_dag_dce(g);
        drop_dead_splits(g, pre, npre);
        fmag_tmp_free(uses);
        uses = uses_out ? cg_dag_use_counts(g) : NULL;
        if (uses_out && !uses) {
            fmag_context_error(ctx, "error: in function @%s: codegen: out of memory", f->name);
            ok = false;
        }
    }
    fmag_tmp_free(pre);
    if (!ok) {
        fmag_tmp_free(uses);
        cg_dag_free(g);
        return false;
    }
    if (uses_out)
        *uses_out = uses;
    else
        fmag_tmp_free(uses);
    return true;
}

void cg_dag_free(cg_dag *g)
{
    fmag_tmp_free(g->nodes);
    fmag_tmp_free(g->outs);
    memset(g, 0, sizeof *g);
}

bool cg_dag_copy(const cg_dag *src, cg_dag *dst)
{
    *dst = *src;
    dst->nodes = fmag_tmp_malloc(sizeof *dst->nodes * (src->nnodes + 1));
    dst->outs = fmag_tmp_malloc(sizeof *dst->outs * (src->nout + 1));
    if (!dst->nodes || !dst->outs) {
        cg_dag_free(dst);
        return false;
    }
    memcpy(dst->nodes, src->nodes, sizeof *dst->nodes * src->nnodes);
    memcpy(dst->outs, src->outs, sizeof *dst->outs * src->nout);
    return true;
}

void cg_dag_dce(cg_dag *g)
{
    bool *live = fmag_tmp_calloc(g->nnodes + 1, 1);
    if (!live) return; /* keeping dead nodes is only slower code, never wrong */
    for (unsigned j = 0; j < g->nout; j++)
        if (g->outs[j].v >= (int)g->nin) live[g->outs[j].v - g->nin] = true;
    for (unsigned i = g->nnodes; i-- > 0;) {
        if (!live[i] || g->nodes[i].dead) {
            g->nodes[i].dead = true;
            continue;
        }
        for (unsigned k = 0; k < 5; k++) {
            int v = g->nodes[i].op[k].v;
            if (v >= (int)g->nin) live[v - g->nin] = true;
        }
    }
    fmag_tmp_free(live);
}

unsigned *cg_dag_use_counts(const cg_dag *g)
{
    unsigned *uses = fmag_tmp_calloc(g->nin + g->nnodes + 1, sizeof *uses);
    if (!uses) return NULL;
    for (unsigned i = 0; i < g->nnodes; i++) {
        if (g->nodes[i].dead) continue;
        for (unsigned k = 0; k < 5; k++)
            if (cg_is_val(g->nodes[i].op[k])) uses[g->nodes[i].op[k].v]++;
    }
    for (unsigned j = 0; j < g->nout; j++)
        if (cg_is_val(g->outs[j])) uses[g->outs[j].v]++;
    return uses;
}

static bool is_select_shape(const cg_node *n)
{
    return !n->dead && !n->uncond && cg_is_val(n->op[FMAG_A]) && cg_is_imm(n->op[FMAG_B], 1.0f) &&
           cg_is_zero(n->op[FMAG_C]);
}

unsigned cg_dag_fuse_select_arm(cg_dag *g, unsigned *given_uses)
{
    unsigned *uses = given_uses ? given_uses : cg_dag_use_counts(g);
    if (!uses) return 0;
    unsigned folds = 0;
    for (unsigned i = 0; i < g->nnodes; i++) {
        cg_node *n = &g->nodes[i];
        if (!is_select_shape(n) || n->op[FMAG_A].v < (int)g->nin) continue;
        int t = n->op[FMAG_A].v;
        cg_node *tn = &g->nodes[t - g->nin];
        if (!tn->uncond || uses[t] != 1) continue;
        n->op[FMAG_A] = tn->op[FMAG_A];
        n->op[FMAG_B] = tn->op[FMAG_B];
        n->op[FMAG_C] = tn->op[FMAG_C];
        tn->dead = true;
        uses[t] = 0; /* tn's operands are n's now */
        folds++;
    }
    if (!given_uses) fmag_tmp_free(uses);
    return folds;
}

/* The negation of node v when v is an unconditional x*-1 + 0 (a neg) of w. */
static bool is_neg_of(const cg_dag *g, int v, int w)
{
    if (v < (int)g->nin) return false;
    const cg_node *n = &g->nodes[v - g->nin];
    return !n->dead && n->uncond && n->op[FMAG_A].v == w && cg_is_imm(n->op[FMAG_B], -1.0f) &&
           cg_is_zero(n->op[FMAG_C]);
}

/* How select node n can swap its arms: 1 = its guard is t-f or f-t computed by a
 * single-use sub we may rewrite; 2 = guard is t and one arm is the other negated;
 * 0 = not exactly. Both keep results equal: they differ only where t == f. */
static int flip_kind(const cg_dag *g, const cg_node *n, const unsigned *uses)
{
    if (!is_select_shape(n) || !cg_is_val(n->op[FMAG_D]) || !cg_is_val(n->op[FMAG_E])) return 0;
    int t = n->op[FMAG_A].v, f = n->op[FMAG_D].v, gv = n->op[FMAG_E].v;
    if (t == f) return 0;
    if (gv == t && (is_neg_of(g, f, t) || is_neg_of(g, t, f))) return 2;
    if (gv < (int)g->nin || uses[gv] != 1) return 0;
    const cg_node *s = &g->nodes[gv - g->nin];
    if (s->dead || !s->uncond || !cg_is_imm(s->op[FMAG_B], -1.0f) || !cg_is_val(s->op[FMAG_C]))
        return 0;
    int p = s->op[FMAG_A].v, q = s->op[FMAG_C].v;
    if ((p == t && q == f) || (p == f && q == t)) return 1;
    return 0;
}

unsigned cg_dag_orient(cg_dag *g, cg_arms mode)
{
    if (mode == CG_ARMS_AS_BUILT) return 0;
    unsigned nv = g->nin + g->nnodes;
    unsigned *uses = cg_dag_use_counts(g);
    int *want = fmag_tmp_malloc(sizeof *want * (nv + 1));
    if (!uses || !want) {
        fmag_tmp_free(uses);
        fmag_tmp_free(want);
        return 0;
    }
    for (unsigned v = 0; v < nv; v++)
        want[v] = v < g->nin ? (int)v : -1;
    for (unsigned j = 0; j < g->nout; j++)
        if (g->outs[j].v >= (int)g->nin && want[g->outs[j].v] < 0) want[g->outs[j].v] = (int)j;
    unsigned flips = 0;
    for (unsigned i = g->nnodes; i-- > 0;) {
        cg_node *n = &g->nodes[i];
        int x = (int)(g->nin + i);
        int kind = flip_kind(g, n, uses);
        if (kind) {
            int t = n->op[FMAG_A].v, f = n->op[FMAG_D].v;
            bool flip = mode == CG_ARMS_FLIP_ALL ||
                        (want[x] >= 0 && want[t] == want[x] && want[f] != want[x]);
            if (flip) {
                n->op[FMAG_A] = cg_val(f);
                n->op[FMAG_D] = cg_val(t);
                if (kind == 2) {
                    uses[t]--;
                    uses[f]++;
                    n->op[FMAG_E] = cg_val(f);
                } else {
                    cg_node *s = &g->nodes[n->op[FMAG_E].v - g->nin];
                    cg_ref p = s->op[FMAG_A];
                    s->op[FMAG_A] = s->op[FMAG_C];
                    s->op[FMAG_C] = p;
                }
                flips++;
            }
        }
        if (!n->dead && !n->uncond && want[x] >= 0 && cg_is_val(n->op[FMAG_D]) &&
            n->op[FMAG_D].v >= (int)g->nin && want[n->op[FMAG_D].v] < 0)
            want[n->op[FMAG_D].v] = want[x];
    }
    fmag_tmp_free(uses);
    fmag_tmp_free(want);
    return flips;
}

static bool is_relu(const cg_node *n)
{
    return !n->dead && !n->uncond && cg_is_val(n->op[FMAG_A]) && cg_is_imm(n->op[FMAG_B], 1.0f) &&
           cg_is_zero(n->op[FMAG_C]) && cg_is_zero(n->op[FMAG_D]) &&
           n->op[FMAG_E].v == n->op[FMAG_A].v;
}

/* Rebuilds g's node array with one new node inserted before every node that
 * `match` accepts; `split` then fills the new node `pre` (value number pre_v) and
 * rewrites the matched node, whose operands already use the new numbering.
 * Returns the number of insertions (0 also when out of memory: g unchanged). */
static unsigned insert_before_each(cg_dag *g, bool (*match)(const cg_node *n),
                                   void (*split)(cg_node *n, cg_node *pre, int pre_v))
{
    unsigned count = 0;
    for (unsigned i = 0; i < g->nnodes; i++)
        count += match(&g->nodes[i]);
    if (!count) return 0;
    cg_node *nn = fmag_tmp_calloc(g->nnodes + count + 1, sizeof *nn);
    int *map = fmag_tmp_malloc(sizeof *map * (g->nin + g->nnodes + 1));
    if (!nn || !map) {
        fmag_tmp_free(nn);
        fmag_tmp_free(map);
        return 0;
    }
    for (unsigned v = 0; v < g->nin; v++)
        map[v] = (int)v;
    unsigned w = 0;
    for (unsigned i = 0; i < g->nnodes; i++) {
        cg_node n = g->nodes[i];
        bool hit = match(&n);
        for (unsigned k = 0; k < 5; k++)
            if (cg_is_val(n.op[k])) n.op[k].v = map[n.op[k].v];
        if (hit) {
            split(&n, &nn[w], (int)(g->nin + w));
            w++;
        }
        nn[w] = n;
        map[g->nin + i] = (int)(g->nin + w);
        w++;
    }
    for (unsigned j = 0; j < g->nout; j++)
        if (cg_is_val(g->outs[j])) g->outs[j].v = map[g->outs[j].v];
    fmag_tmp_free(map);
    fmag_tmp_free(g->nodes);
    g->nodes = nn;
    g->nnodes = w;
    return count;
}

/* t > 0 ? t : 0  ==  (-t > 0) ? z*0 + 0 : t, both zeros counted equal; exact for
 * infinite t too since z is a known-finite register, not t. */
static void split_relu(cg_node *n, cg_node *neg, int neg_v)
{
    int t = n->op[FMAG_A].v;
    neg->op[FMAG_A] = cg_val(t);
    neg->op[FMAG_B] = cg_const(-1.0f);
    neg->op[FMAG_C] = cg_const(0.0f);
    neg->op[FMAG_D].v = CG_NONE;
    neg->op[FMAG_E] = cg_const(1.0f);
    neg->uncond = true;
    n->op[FMAG_A] = cg_const(0.0f);
    n->op[FMAG_B] = cg_const(0.0f);
    n->op[FMAG_C] = cg_const(0.0f);
    n->op[FMAG_D] = cg_val(t);
    n->op[FMAG_E] = cg_val(neg_v);
}

unsigned cg_dag_relu_flip(cg_dag *g)
{
    return insert_before_each(g, is_relu, split_relu);
}
