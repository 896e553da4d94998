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

/* Beyond this the quadratic list scheduler is not worth its time. */
#define CG_LIST_SCHED_MAX 4000u
/* The depth-first scheduler recurses once per node on a chain. */
#define CG_DFS_SCHED_MAX 20000u

static int sched_program(const cg_dag *g, unsigned *order)
{
    int n = 0;
    for (unsigned i = 0; i < g->nnodes; i++)
        if (!g->nodes[i].dead) order[n++] = i;
    return n;
}

static int sched_list(const cg_dag *g, unsigned *order)
{
    unsigned nv = g->nin + g->nnodes;
    unsigned *left = cg_dag_use_counts(g); /* pending readers per value */
    bool *is_out = calloc(nv + 1, 1);
    bool *done = calloc(g->nnodes + 1, 1);
    if (!left || !is_out || !done) {
        free(left);
        free(is_out);
        free(done);
        return -1;
    }
    for (unsigned j = 0; j < g->nout; j++)
        if (cg_is_val(g->outs[j])) {
            is_out[g->outs[j].v] = true;
            left[g->outs[j].v]--;
        }
    unsigned total = 0;
    for (unsigned i = 0; i < g->nnodes; i++)
        total += !g->nodes[i].dead;
    int n = 0;
    while ((unsigned)n < total) {
        int best = -1;
        int best_copy = 0, best_delta = 0;
        for (unsigned i = 0; i < g->nnodes; i++) {
            const cg_node *nd = &g->nodes[i];
            if (nd->dead || done[i]) continue;
            bool ready = true;
            for (unsigned k = 0; k < 5 && ready; k++) {
                int v = nd->op[k].v;
                if (v >= (int)g->nin && !done[v - g->nin]) ready = false;
            }
            if (!ready) continue;
            /* Count how many readers this node accounts for per operand value. */
            int delta = 1, copy = 0;
            for (unsigned k = 0; k < 5; k++) {
                int v = nd->op[k].v;
                if (v < 0) continue;
                bool first = true;
                unsigned mine = 0;
                for (unsigned m = 0; m < 5; m++) {
                    if (nd->op[m].v == v) {
                        if (m < k) first = false;
                        mine++;
                    }
                }
                if (!first) continue;
                bool dies = left[v] == mine && !is_out[v];
                if (dies) delta--;
                if (k == FMAG_D && !nd->uncond && !dies) copy = 1;
            }
            if (best < 0 || copy < best_copy || (copy == best_copy && delta < best_delta)) {
                best = (int)i;
                best_copy = copy;
                best_delta = delta;
            }
        }
        if (best < 0)
            break; /* cannot happen for a DAG; leave the rest out and let the caller fail */
        done[best] = true;
        order[n++] = (unsigned)best;
        for (unsigned k = 0; k < 5; k++)
            if (g->nodes[best].op[k].v >= 0) left[g->nodes[best].op[k].v]--;
    }
    free(left);
    free(is_out);
    free(done);
    return n;
}

typedef struct dfs_state {
    const cg_dag *g;
    unsigned *size;
    bool *done;
    unsigned *order;
    int n;
} dfs_state;

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
    for (unsigned k = 0; k < nops; k++)
        dfs_visit(s, ops[k]);
    s->order[s->n++] = i;
}

static int sched_dfs(const cg_dag *g, unsigned *order)
{
    dfs_state s = {g, calloc(g->nnodes + 1, sizeof(unsigned)), calloc(g->nnodes + 1, 1), order, 0};
    if (!s.size || !s.done) {
        free(s.size);
        free(s.done);
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
    for (unsigned j = 0; j < g->nout; j++)
        dfs_visit(&s, g->outs[j].v);
    free(s.size);
    free(s.done);
    return s.n;
}

int cg_schedule(const cg_dag *g, int kind, unsigned *order)
{
    if (kind == 1 && g->nnodes <= CG_LIST_SCHED_MAX) return sched_list(g, order);
    if (kind == 2 && g->nnodes <= CG_DFS_SCHED_MAX) return sched_dfs(g, order);
    return sched_program(g, order);
}
