/* Lowering, second phase: the order of the DAG's nodes. Three candidates; the
 * driver keeps whichever allocates to the fewest instructions, then registers.
 *  0 program order (what -O2 left);
 *  1 greedy list scheduling: among ready nodes, first one whose fallback has no
 *    other pending reader (so no copy is needed), then the one that frees the most
 *    registers, then program order;
 *  2 depth first from the outputs, the operand with the larger subtree first
 *    (Sethi-Ullman style), which keeps short-lived temporaries short.
 */
#include "CGInternal.h"

#include <stdlib.h>
#include <string.h>

/* Beyond this the list scheduler (quadratic when the DAG is wide) is not worth
 * its time. */
#define CG_LIST_SCHED_MAX 4000u
/* The list scheduler scores only the newest this-many ready nodes. */
#define CG_LIST_WINDOW 64u
/* The depth-first scheduler recurses once per node on a chain. */
#define CG_DFS_SCHED_MAX 20000u

static int sched_program(const cg_dag *g, unsigned *order)
{
    int n = 0;
    for (unsigned i = 0; i < g->nnodes; i++)
        if (!g->nodes[i].dead) order[n++] = i;
    return n;
}

/* A node's value operands as the list scheduler reads them: each distinct value
 * once, in the order of its first slot, with the number of slots reading it, and
 * which of them is a select's fallback in its first slot (the one a copy may be
 * needed for; -1: none). Made once per node, so that scoring and updates do not go
 * over the five slots (most of them literals) and their repeats each time. */
typedef struct list_ops {
    int val[5];
    uint8_t reads[5];
    uint8_t n;
    int8_t fallback;
} list_ops;

static void list_ops_of(const cg_node *nd, list_ops *o)
{
    o->n = 0;
    o->fallback = -1;
    for (unsigned k = 0; k < 5; k++) {
        int v = nd->op[k].v;
        if (v < 0) continue;
        unsigned a = 0;
        while (a < o->n && o->val[a] != v)
            a++;
        if (a < o->n) {
            o->reads[a]++;
            continue;
        }
        if (k == FMAG_D && !nd->uncond) o->fallback = (int8_t)a;
        o->val[a] = v;
        o->reads[a] = 1;
        o->n++;
    }
}

/* The list scheduler's order of ready node i, lower first, packed in one word: does
 * it need a fallback copy (bit 31), how the number of live registers changes when
 * it runs (1 minus its distinct dying operands, -4..1, biased by LIST_DELTA_BIAS,
 * bits 27-30), then program order (the index, below 2^27: CG_LIST_SCHED_MAX). An
 * operand dies when its pending reads are this node's own (`left` of an output
 * never gets that low: LIST_OUT_READS). */
enum { LIST_DELTA_BIAS = 8, LIST_DELTA_SHIFT = 27, LIST_COPY_SHIFT = 31 };
#define CG_LIST_STALE UINT32_MAX /* a key to compute again */
#define LIST_OUT_READS (1u << 30)
static uint32_t list_key(const list_ops *o, const unsigned *left, unsigned i)
{
    int delta = 1;
    uint32_t copy = 0;
    for (unsigned a = 0; a < o->n; a++) {
        bool dies = left[o->val[a]] == o->reads[a];
        delta -= dies;
        if ((int)a == o->fallback && !dies) copy = 1;
    }
    return copy << LIST_COPY_SHIFT | (uint32_t)(delta + LIST_DELTA_BIAS) << LIST_DELTA_SHIFT | i;
}
_Static_assert(CG_LIST_SCHED_MAX < (1u << LIST_DELTA_SHIFT), "a node index fits list_key");
_Static_assert(5 * CG_LIST_SCHED_MAX < LIST_OUT_READS, "an output's reads stay above a node's");

/* A ready node's score depends on its operands' pending reader counts only through
 * `left[v] == reads` with reads <= 5 (list_key), so a decrement to above 5 cannot
 * change it: only lower ones make the readers' cached scores stale. */
#define CG_LIST_SCORE_MAX_READS 5u

static int sched_list(const cg_dag *g, unsigned *order)
{
    unsigned nv = g->nin + g->nnodes, nn = g->nnodes;
    /* pending reads per value by the nodes, plus LIST_OUT_READS for an output */
    unsigned *left = fmag_tmp_calloc(nv + 1, sizeof *left);
    /* per node: its distinct value operands not yet computed */
    unsigned *pending = fmag_tmp_calloc(nn + 1, sizeof *pending);
    list_ops *ops = fmag_tmp_malloc(sizeof *ops * (nn + 1));
    /* the nodes reading value v, each once, in node order: ulist[ustart[v]..] */
    unsigned *ustart = fmag_tmp_malloc(sizeof *ustart * (nv + 2));
    unsigned *ulist = fmag_tmp_malloc(sizeof *ulist * (5 * (size_t)nn + 1));
    unsigned *ready = fmag_tmp_malloc(sizeof *ready * (nn + 1));
    /* per node: its list_key as last computed, or CG_LIST_STALE */
    uint32_t *key = fmag_tmp_malloc(sizeof *key * (nn + 1));
    /* readers per value, each once (sizes ulist) */
    unsigned *nreaders = fmag_tmp_calloc(nv + 1, sizeof *nreaders);
    int n = -1;
    if (!left || !pending || !ops || !ustart || !ulist || !ready || !key || !nreaders) goto out;
    memset(key, 0xFF, sizeof *key * (nn + 1));
    for (unsigned j = 0; j < g->nout; j++)
        if (cg_is_val(g->outs[j])) left[g->outs[j].v] = LIST_OUT_READS;
    for (unsigned i = 0; i < nn; i++) {
        if (g->nodes[i].dead) continue;
        list_ops *o = &ops[i];
        list_ops_of(&g->nodes[i], o);
        for (unsigned a = 0; a < o->n; a++) {
            int v = o->val[a];
            pending[i] += v >= (int)g->nin;
            left[v] += o->reads[a];
            nreaders[v]++;
        }
    }
    /* ustart[v] at the end of v's readers, then filled backwards down to their start
     * (so each list is in node order) */
    unsigned total = 0;
    for (unsigned v = 0; v < nv; v++)
        ustart[v] = total += nreaders[v];
    ustart[nv] = total;
    for (unsigned i = nn; i-- > 0;) {
        if (g->nodes[i].dead) continue;
        for (unsigned a = 0; a < ops[i].n; a++)
            ulist[--ustart[ops[i].val[a]]] = i;
    }
    unsigned nready = 0;
    for (unsigned i = 0; i < nn; i++)
        if (!g->nodes[i].dead && !pending[i]) ready[nready++] = i;
    n = 0;
    while (nready) {
        /* Only the newest CG_LIST_WINDOW ready nodes are scored (the ones reading
         * values just computed), so a wide DAG costs O(n x window), not O(n^2). */
        unsigned lo = nready > CG_LIST_WINDOW ? nready - CG_LIST_WINDOW : 0;
        unsigned bi = lo;
        uint32_t best_key = CG_LIST_STALE;
        for (unsigned r = lo; r < nready; r++) {
            unsigned i = ready[r];
            uint32_t k = key[i];
            if (k == CG_LIST_STALE) k = key[i] = list_key(&ops[i], left, i);
            if (k < best_key) {
                bi = r;
                best_key = k;
            }
        }
        unsigned best = ready[bi];
        ready[bi] = ready[--nready];
        order[n++] = best;
        const list_ops *o = &ops[best];
        for (unsigned a = 0; a < o->n; a++) {
            int v = o->val[a];
            if ((left[v] -= o->reads[a]) <= CG_LIST_SCORE_MAX_READS)
                for (unsigned u = ustart[v]; u < ustart[v + 1]; u++)
                    key[ulist[u]] = CG_LIST_STALE;
        }
        unsigned x = g->nin + best;
        for (unsigned u = ustart[x]; u < ustart[x + 1]; u++)
            if (--pending[ulist[u]] == 0) ready[nready++] = ulist[u];
    }
out:
    fmag_tmp_free(left);
    fmag_tmp_free(pending);
    fmag_tmp_free(ops);
    fmag_tmp_free(ustart);
    fmag_tmp_free(ulist);
    fmag_tmp_free(ready);
    fmag_tmp_free(key);
    fmag_tmp_free(nreaders);
    return n;
}

typedef struct dfs_state {
    const cg_dag *g;
    unsigned *size;
    bool *done;
    unsigned *order;
    int n;
    /* With a stop (cg_schedule_until, NULL: none): per value, the reads still to come
     * (outputs count as reads that never come), the values live after the nodes so
     * far, the zero fallbacks still to come, the instructions and registers every
     * allocation of the order needs as far as known, and whether it can no longer
     * beat the stop's stream. */
    const cg_sched_stop *stop;
    unsigned *left;
    unsigned live, zeros, least, need;
    bool stopped;
} dfs_state;

/* Registers needed at a point of the order: the most so far is a floor of all. Then
 * whether no allocation of the order can beat the stop's stream: at least `least`
 * instructions, and, when that is no fewer, `need` registers. */
static void dfs_need(dfs_state *s, unsigned need)
{
    if (need > s->need) s->need = need;
    s->stopped =
        s->least > s->stop->ncode || (s->least == s->stop->ncode && s->need >= s->stop->regs);
}

/* Node i is next in the order: what cg_regalloc's bound (can_beat, before the first
 * node) and regs_floor count of the final order, as far as this point tells. Before
 * node i: the values live there, the zero fallbacks still to come (each on a
 * register of its own), and one register for i's nonzero literal fallback. Then i's
 * value fallback is copied when it is read after i; the operands i reads for the
 * last time are no longer live, its value is when read later. These are the final
 * order's counts because the nodes not marked dead are all read by the outputs, so
 * the order holds them all. */
static void dfs_count(dfs_state *s, unsigned i)
{
    const cg_node *nd = &s->g->nodes[i];
    bool lit = !nd->uncond && cg_is_const(nd->op[FMAG_D]) && !cg_is_zero(nd->op[FMAG_D]);
    dfs_need(s, s->live + s->zeros + lit);
    for (unsigned k = 0; k < 5; k++) {
        int v = nd->op[k].v;
        if (v >= 0 && --s->left[v] == 0) s->live--;
    }
    if (!nd->uncond && cg_is_val(nd->op[FMAG_D]) && s->left[nd->op[FMAG_D].v]) s->least++;
    if (s->left[s->g->nin + i]) s->live++;
    if (s->zeros && !nd->uncond && cg_is_zero(nd->op[FMAG_D])) s->zeros--;
    dfs_need(s, s->live + s->zeros);
}

static void dfs_visit(dfs_state *s, int v)
{
    const cg_dag *g = s->g;
    if (v < (int)g->nin) return;
    unsigned i = (unsigned)v - g->nin;
    if (s->done[i]) return;
    s->done[i] = true;
    const cg_node *nd = &g->nodes[i];
    int ops[5];
    unsigned nops = 0;
    for (unsigned k = 0; k < 5; k++)
        if (nd->op[k].v >= (int)g->nin) ops[nops++] = nd->op[k].v;
    /* Larger subtrees first: their result is held while the small ones run. */
    for (unsigned a = 1; a < nops; a++)
        for (unsigned b = a; b > 0 && s->size[ops[b] - g->nin] > s->size[ops[b - 1] - g->nin];
             b--) {
            int t = ops[b];
            ops[b] = ops[b - 1];
            ops[b - 1] = t;
        }
    for (unsigned k = 0; k < nops && !s->stopped; k++)
        dfs_visit(s, ops[k]);
    if (s->stopped) return;
    s->order[s->n++] = i;
    if (s->stop) dfs_count(s, i);
}

static int sched_dfs(const cg_dag *g, unsigned *order, const cg_sched_stop *stop)
{
    dfs_state s;
    memset(&s, 0, sizeof s);
    s.g = g;
    s.size = fmag_tmp_calloc(g->nnodes + 1, sizeof(unsigned));
    s.done = fmag_tmp_calloc(g->nnodes + 1, 1);
    s.order = order;
    s.stop = stop;
    if (stop) s.left = fmag_tmp_malloc(sizeof *s.left * (g->nin + g->nnodes + 1));
    if (!s.size || !s.done || (stop && !s.left)) {
        fmag_tmp_free(s.size);
        fmag_tmp_free(s.done);
        fmag_tmp_free(s.left);
        return -1;
    }
    /* Subtree sizes (counting shared nodes more than once; only a tie breaker). */
    for (unsigned i = 0; i < g->nnodes; i++) {
        unsigned sz = 1;
        for (unsigned k = 0; k < 5; k++) {
            int v = g->nodes[i].op[k].v;
            if (v >= (int)g->nin) {
                sz += s.size[v - g->nin];
                if (sz > 1000000u) sz = 1000000u;
            }
        }
        s.size[i] = sz;
    }
    if (stop) {
        memcpy(s.left, stop->uses, sizeof *s.left * (g->nin + g->nnodes));
        for (unsigned v = 0; v < g->nin; v++)
            s.live += s.left[v] > 0;
        s.zeros = stop->zeros;
        s.least = stop->least;
        dfs_need(&s, s.live + s.zeros);
    }
    for (unsigned j = 0; j < g->nout && !s.stopped; j++)
        dfs_visit(&s, g->outs[j].v);
    fmag_tmp_free(s.size);
    fmag_tmp_free(s.done);
    fmag_tmp_free(s.left);
    return s.stopped ? CG_SCHED_STOPPED : s.n;
}

int cg_schedule_until(const cg_dag *g, cg_schedule_kind kind, unsigned *order,
                      const cg_sched_stop *stop)
{
    if (kind == CG_SCHED_LIST && g->nnodes <= CG_LIST_SCHED_MAX) return sched_list(g, order);
    if (kind == CG_SCHED_DEPTH_FIRST && g->nnodes <= CG_DFS_SCHED_MAX)
        return sched_dfs(g, order, stop);
    return sched_program(g, order);
}

int cg_schedule(const cg_dag *g, cg_schedule_kind kind, unsigned *order)
{
    return cg_schedule_until(g, kind, order, NULL);
}
