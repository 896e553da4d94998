/* SL IR generation: walks the checked AST and builds IR through the public builder
 * and math-library API only (this file is also an example for embedders).
 *
 * Vectors are scalarized: every variable is a run of scalar slots in an
 * environment array holding the current SSA value of each slot. SSA construction
 * is structural: an if/else copies the environment into each arm and places phis
 * at the join for slots whose values differ; a `for` loop puts a phi for every
 * live slot in its header (entry value, then the value at the end of the step)
 * and drops the ones the body never changes. Every `return` jumps to one exit
 * block whose phis merge the results; -loop-unroll removes the loops, and the
 * optimizer's ternary and ifconvert passes turn the rest into selects.
 * File-scope constants are evaluated at the entry of each function that reads
 * them (folding makes them literals).
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "fmag/Math.h"
#include "SLInternal.h"

typedef struct sval {
    fmag_value *c[4];
    int n;
    bool is_bool; /* known to be exactly 0.0 or 1.0 (scalar) */
} sval;

typedef struct retsite {
    fmag_block *from;
    fmag_value **vals;
    struct retsite *next;
} retsite;

typedef struct gen {
    sl_session *s;
    fmag_module *m;
    fmag_builder b;
    sl_func *fn;
    fmag_func *ir;
    fmag_value **env;
    bool reachable;
    bool fast;
    fmag_block *exit;
    retsite *rets;
    unsigned nres;
    const fmag_math_builtin *math[64]; /* sl_builtins index -> math table, on first use */
    fmag_value **genv;                 /* the file-scope constants' slots */
} gen;

static fmag_value *cst(gen *g, float f)
{
    return fmag_module_const(g->m, f);
}

static fmag_value *icst(gen *g, uint32_t bits)
{
    return fmag_module_const_i32(g->m, bits);
}

/* The kind of a checked type; a literal expression the checker left to its default
 * (it settles every one it can reach) is an f32, or an i32 after an integer-only
 * operator. */
static int kind_of(int t)
{
    int k = t > 0 ? SL_KIND(t) : SL_KF32;
    return k == SL_KLIT ? SL_KF32 : k == SL_KLITI ? SL_KI32 : k;
}

static int width_of(int t)
{
    return t > 0 ? SL_WIDTH(t) : 0;
}

/* A value of kind `from` as kind `to` (SL's conversions): f32 -> i32/u32 truncate
 * toward zero (saturating, NaN 0: the IR's fptosi/fptoui), integers -> f32 round to
 * nearest, i32 <-> u32 keep the bits. */
static fmag_value *convert(gen *g, fmag_value *v, int from, int to)
{
    if (from == to || (from != SL_KF32 && to != SL_KF32)) return v;
    fmag_int_op op = to == SL_KI32     ? FMAG_IOP_FPTOSI
                     : to == SL_KU32   ? FMAG_IOP_FPTOUI
                     : from == SL_KU32 ? FMAG_IOP_UITOFP
                                       : FMAG_IOP_SITOFP;
    return fmag_build_int(&g->b, op, v, NULL, NULL);
}

/* An integer operation of two operands. */
static fmag_value *iop(gen *g, fmag_int_op op, fmag_value *x, fmag_value *y)
{
    return fmag_build_int(&g->b, op, x, y, NULL);
}

/* A phi of v's type (the f32 one is the plain phi). */
static fmag_instr *phi_like(gen *g, const fmag_value *v)
{
    return v->type == FMAG_TYPE_I32 ? fmag_build_phi_typed(&g->b, FMAG_TYPE_I32)
                                    : fmag_build_phi(&g->b);
}

/* (g > 0) ? t : f for two values of one type. */
static fmag_value *select_of(gen *g, fmag_value *t, fmag_value *f, fmag_value *guard)
{
    return t->type == FMAG_TYPE_I32 ? fmag_build_select_typed(&g->b, t, f, guard)
                                    : fmag_build_select(&g->b, t, f, guard);
}

static fmag_value **env_copy(gen *g, fmag_value **env)
{
    size_t n = g->fn->nslots ? g->fn->nslots : 1;
    fmag_value **c = fmag_context_alloc(g->s->ctx, n * sizeof *c);
    memcpy(c, env, g->fn->nslots * sizeof *c);
    return c;
}

static fmag_value *splat(const sval *v, int i)
{
    return v->c[v->n == 1 ? 0 : i];
}

/* A guard that is > 0 exactly when v is true (!= 0). */
static fmag_value *as_guard(gen *g, const sval *v)
{
    if (v->c[0]->type == FMAG_TYPE_I32) return iop(g, FMAG_IOP_NE, v->c[0], icst(g, 0));
    return v->is_bool ? v->c[0] : fmag_build_truth(&g->b, v->c[0]);
}

static sval gen_expr(gen *g, sl_expr *e);

/* Maps an lvalue to its variable and the variable component of each written lane. */
static sl_var *lvalue_map(sl_expr *e, unsigned char *map, unsigned *n)
{
    if (e->kind == EX_VAR) {
        int w = width_of(e->var->type);
        for (int i = 0; i < w; i++)
            map[i] = (unsigned char)i;
        *n = (unsigned)w;
        return e->var;
    }
    unsigned char inner[4];
    unsigned ninner;
    sl_var *v = lvalue_map(e->a, inner, &ninner);
    unsigned nc = e->ncomp > 4 ? 4 : e->ncomp;
    for (unsigned i = 0; i < nc; i++)
        map[i] = inner[e->comp[i] & 3];
    *n = nc;
    return v;
}

static void store(gen *g, sl_expr *lhs, const sval *v)
{
    unsigned char map[4];
    unsigned n;
    sl_var *var = lvalue_map(lhs, map, &n);
    for (unsigned i = 0; i < n; i++)
        g->env[var->slot + map[i]] = splat(v, (int)i);
}

/* Each integer operator (and its compound assignment): the IR operation on i32 and
 * on u32. */
static const struct {
    sl_tok_kind op, assign;
    fmag_int_op s, u;
} int_ops[] = {
    {TK_PLUS, TK_PLUS_ASSIGN, FMAG_IOP_ADD, FMAG_IOP_ADD},
    {TK_MINUS, TK_MINUS_ASSIGN, FMAG_IOP_SUB, FMAG_IOP_SUB},
    {TK_STAR, TK_STAR_ASSIGN, FMAG_IOP_MUL, FMAG_IOP_MUL},
    {TK_SLASH, TK_SLASH_ASSIGN, FMAG_IOP_SDIV, FMAG_IOP_UDIV},
    {TK_PERCENT, TK_PERCENT_ASSIGN, FMAG_IOP_SREM, FMAG_IOP_UREM},
    {TK_AMP, TK_AMP_ASSIGN, FMAG_IOP_AND, FMAG_IOP_AND},
    {TK_PIPE, TK_PIPE_ASSIGN, FMAG_IOP_OR, FMAG_IOP_OR},
    {TK_CARET, TK_CARET_ASSIGN, FMAG_IOP_XOR, FMAG_IOP_XOR},
    {TK_SHL, TK_SHL_ASSIGN, FMAG_IOP_SHL, FMAG_IOP_SHL},
    {TK_SHR, TK_SHR_ASSIGN, FMAG_IOP_ASHR, FMAG_IOP_LSHR}, /* sign-filling on i32 */
};

/* x op y on integers of kind k (i32 or u32): wrap-around, truncating division. */
static fmag_value *int_arith(gen *g, sl_tok_kind op, int k, fmag_value *x, fmag_value *y)
{
    size_t i = 0, n = sizeof int_ops / sizeof int_ops[0];
    while (i < n && int_ops[i].op != op && int_ops[i].assign != op)
        i++;
    assert(i < n && "the checker admits only the table's operators on integers");
    return iop(g, k == SL_KU32 ? int_ops[i].u : int_ops[i].s, x, y);
}

/* x op y on values of kind k. */
static fmag_value *arith(gen *g, sl_tok_kind op, int k, fmag_value *x, fmag_value *y)
{
    if (k != SL_KF32) return int_arith(g, op, k, x, y);
    switch (op) {
    case TK_PLUS:
    case TK_PLUS_ASSIGN:
        return fmag_build_add(&g->b, x, y);
    case TK_MINUS:
    case TK_MINUS_ASSIGN:
        return fmag_build_sub(&g->b, x, y);
    case TK_STAR:
    case TK_STAR_ASSIGN:
        return fmag_build_mul(&g->b, x, y);
    default:
        return fmag_build_div(&g->b, x, y, g->fast);
    }
}

/* An export's IR parameters and results are f32 (a program's inputs and outputs are
 * floats): an integer crosses that boundary converted, as it does for a program. */
static fmag_value *to_boundary(gen *g, const fmag_func *ir, int type, fmag_value *v)
{
    return ir->is_export ? convert(g, v, kind_of(type), SL_KF32) : v;
}

static fmag_value *from_boundary(gen *g, const fmag_func *ir, int type, fmag_value *v)
{
    return ir->is_export ? convert(g, v, SL_KF32, kind_of(type)) : v;
}

static sval gen_call_user(gen *g, sl_expr *e)
{
    sl_func *f = e->callee;
    fmag_value *args[256];
    unsigned nargs = 0;
    unsigned i = 0;
    for (sl_var *p = f->params; p; p = p->next, i++) {
        if (p->is_out) continue;
        sval a = gen_expr(g, e->args[i]);
        for (int k = 0; k < a.n && nargs < 256; k++)
            args[nargs++] = to_boundary(g, f->ir, p->type, a.c[k]);
    }
    fmag_instr *call = fmag_build_call(&g->b, f->ir, args, nargs);
    sval r = {{0}, width_of(f->ret_type), false};
    unsigned ri = 0;
    for (int k = 0; k < r.n; k++)
        r.c[k] = from_boundary(g, f->ir, f->ret_type, &call->results[ri++]);
    i = 0;
    for (sl_var *p = f->params; p; p = p->next, i++) {
        if (!p->is_out) continue;
        sval o = {{0}, width_of(p->type), false};
        for (int k = 0; k < o.n; k++)
            o.c[k] = from_boundary(g, f->ir, p->type, &call->results[ri++]);
        store(g, e->args[i], &o);
    }
    return r;
}

/* abs min max clamp on integers of kind k, lane k of the arguments: compare and
 * select, exact. */
static fmag_value *int_builtin(gen *g, const char *name, int k, fmag_value *const *x)
{
    bool u = k == SL_KU32;
    fmag_int_op lt = u ? FMAG_IOP_ULT : FMAG_IOP_SLT;
    if (!strcmp(name, "abs"))
        return u ? x[0]
                 : fmag_build_select_typed(&g->b, iop(g, FMAG_IOP_NEG, x[0], NULL), x[0],
                                           iop(g, lt, x[0], icst(g, 0)));
    if (!strcmp(name, "min"))
        return fmag_build_select_typed(&g->b, x[0], x[1], iop(g, lt, x[0], x[1]));
    if (!strcmp(name, "max"))
        return fmag_build_select_typed(&g->b, x[1], x[0], iop(g, lt, x[0], x[1]));
    /* clamp(x, lo, hi) = min(max(x, lo), hi), as GLSL defines it */
    fmag_value *m = fmag_build_select_typed(&g->b, x[1], x[0], iop(g, lt, x[0], x[1]));
    return fmag_build_select_typed(&g->b, m, x[2], iop(g, lt, m, x[2]));
}

static sval gen_builtin(gen *g, sl_expr *e)
{
    const sl_builtin *bi = &sl_builtins[e->builtin];
    fmag_builder *b = &g->b;
    bool fm = g->fast;
    sval a[3];
    for (unsigned i = 0; i < e->nargs && i < 3; i++)
        a[i] = gen_expr(g, e->args[i]);
    sval r = {{0}, width_of(e->type), false};
    int kind = kind_of(e->type);
    if (kind != SL_KF32 && strcmp(bi->name, "select") && bi->shape != BS_BITS) {
        for (int k = 0; k < r.n; k++) {
            fmag_value *x[3];
            for (unsigned i = 0; i < e->nargs && i < 3; i++)
                x[i] = splat(&a[i], k);
            r.c[k] = int_builtin(g, bi->name, kind, x);
        }
        return r;
    }
    if (bi->shape == BS_BITS) {
        fmag_int_op op = kind == SL_KF32 ? FMAG_IOP_I2F : FMAG_IOP_F2I;
        for (int k = 0; k < r.n; k++)
            r.c[k] = fmag_build_int(b, op, a[0].c[k], NULL, NULL);
        return r;
    }
    const fmag_math_builtin *mb = g->math[e->builtin];
    if (!mb) mb = g->math[e->builtin] = fmag_math_builtin_lookup(bi->name);
    switch (bi->shape) {
    case BS_MAP1:
    case BS_MAP2:
    case BS_MAP3: {
        bool is_select = !mb->fn1 && !mb->fn2 && !strcmp(bi->name, "select");
        /* One truth test of a scalar select condition serves every lane. */
        fmag_value *guard = is_select && a[0].n == 1 ? as_guard(g, &a[0]) : NULL;
        for (int k = 0; k < r.n; k++) {
            if (bi->shape == BS_MAP1) {
                r.c[k] = mb->fn1(b, splat(&a[0], k), fm);
            } else if (bi->shape == BS_MAP2) {
                r.c[k] = mb->fn2(b, splat(&a[0], k), splat(&a[1], k), fm);
            } else if (is_select) {
                sval lane = {{a[0].c[k]}, 1, a[0].is_bool};
                fmag_value *gk = guard ? guard : as_guard(g, &lane);
                r.c[k] = select_of(g, splat(&a[1], k), splat(&a[2], k), gk);
            } else {
                r.c[k] = mb->fn3(b, splat(&a[0], k), splat(&a[1], k), splat(&a[2], k), fm);
            }
        }
        break;
    }
    case BS_DOT:
        r.c[0] = fmag_build_dot(b, a[0].c, a[1].c, (unsigned)a[0].n, fm);
        break;
    case BS_LENGTH:
        r.c[0] = fmag_build_length(b, a[0].c, (unsigned)a[0].n, fm);
        break;
    case BS_DISTANCE:
        r.c[0] = fmag_build_distance(b, a[0].c, a[1].c, (unsigned)a[0].n, fm);
        break;
    case BS_NORMALIZE:
        fmag_build_normalize(b, a[0].c, (unsigned)a[0].n, r.c, fm);
        break;
    case BS_CROSS:
        fmag_build_cross(b, a[0].c, a[1].c, r.c, fm);
        break;
    case BS_REFLECT:
        fmag_build_reflect(b, a[0].c, a[1].c, (unsigned)a[0].n, r.c, fm);
        break;
    case BS_REFRACT:
        fmag_build_refract(b, a[0].c, a[1].c, a[2].c[0], (unsigned)a[0].n, r.c, fm);
        break;
    case BS_FACEFORWARD:
        fmag_build_faceforward(b, a[0].c, a[1].c, a[2].c, (unsigned)a[0].n, r.c, fm);
        break;
    case BS_ANYALL: {
        fmag_value *t[4];
        for (int k = 0; k < a[0].n; k++)
            t[k] = a[0].is_bool ? a[0].c[k] : fmag_build_truth(b, a[0].c[k]);
        bool any = !strcmp(bi->name, "any");
        r.c[0] =
            any ? fmag_build_any(b, t, (unsigned)a[0].n) : fmag_build_all(b, t, (unsigned)a[0].n);
        r.is_bool = true;
        break;
    }
    case BS_BITS:
        break; /* above */
    case BS_OUTARG: {
        sval o = {{0}, r.n, false};
        bool modf = !strcmp(bi->name, "modf");
        for (int k = 0; k < r.n; k++)
            r.c[k] = modf ? fmag_build_modf(b, a[0].c[k], &o.c[k], fm)
                          : fmag_build_frexp(b, a[0].c[k], &o.c[k], fm);
        store(g, e->args[1], &o);
        break;
    }
    }
    if (bi->shape == BS_MAP1 && r.n == 1 &&
        (!strcmp(bi->name, "isnan") || !strcmp(bi->name, "isinf")))
        r.is_bool = true;
    return r;
}

static sval gen_expr(gen *g, sl_expr *e)
{
    fmag_builder *b = &g->b;
    sval r = {{0}, width_of(e->type), false};
    int kind = kind_of(e->type);
    switch (e->kind) {
    case EX_NUM:
        if (kind != SL_KF32) {
            r.c[0] = icst(g, (uint32_t)e->ival);
            return r;
        }
        r.c[0] = cst(g, e->num);
        r.is_bool = e->num == 0.0f || e->num == 1.0f;
        return r;
    case EX_VAR:
        for (int i = 0; i < r.n; i++)
            r.c[i] = (e->var->is_global ? g->genv : g->env)[e->var->slot + (unsigned)i];
        return r;
    case EX_SWIZZLE: {
        sval base = gen_expr(g, e->a);
        for (unsigned i = 0; i < e->ncomp; i++)
            r.c[i] = base.c[e->comp[i]];
        return r;
    }
    case EX_CALL:
        if (e->call_kind == CALL_USER) return gen_call_user(g, e);
        if (e->call_kind == CALL_BUILTIN) return gen_builtin(g, e);
        {
            int k = 0;
            for (unsigned i = 0; i < e->nargs; i++) {
                sval a = gen_expr(g, e->args[i]);
                int from = kind_of(e->args[i]->type);
                for (int j = 0; j < a.n && k < 4; j++)
                    r.c[k++] = convert(g, a.c[j], from, kind);
            }
            for (; k < r.n; k++)
                r.c[k] = r.c[0];
        }
        return r;
    case EX_UNARY: {
        sval a = gen_expr(g, e->a);
        if (e->op == TK_PLUS) return a;
        if (e->op == TK_MINUS || e->op == TK_TILDE) {
            for (int i = 0; i < r.n; i++)
                r.c[i] = kind == SL_KF32     ? fmag_build_neg(b, a.c[i])
                         : e->op == TK_MINUS ? iop(g, FMAG_IOP_NEG, a.c[i], NULL)
                                             : iop(g, FMAG_IOP_NOT, a.c[i], NULL);
            return r;
        }
        /* !x: a boolean complements with one instruction, anything else tests != 0. */
        if (a.c[0]->type == FMAG_TYPE_I32)
            r.c[0] = iop(g, FMAG_IOP_EQ, a.c[0], icst(g, 0));
        else
            r.c[0] =
                a.is_bool ? fmag_build_sub(b, cst(g, 1.0f), a.c[0]) : fmag_build_not(b, a.c[0]);
        r.is_bool = true;
        return r;
    }
    case EX_BINARY: {
        sval x = gen_expr(g, e->a), y = gen_expr(g, e->b);
        int ok = kind_of(e->a->type); /* the operands' kind */
        if (ok != SL_KF32 && e->op >= TK_LT && e->op <= TK_NE) {
            bool u = ok == SL_KU32;
            static const fmag_int_op sop[] = {FMAG_IOP_SLT, FMAG_IOP_SGT, FMAG_IOP_SLE,
                                              FMAG_IOP_SGE, FMAG_IOP_EQ,  FMAG_IOP_NE};
            static const fmag_int_op uop[] = {FMAG_IOP_ULT, FMAG_IOP_UGT, FMAG_IOP_ULE,
                                              FMAG_IOP_UGE, FMAG_IOP_EQ,  FMAG_IOP_NE};
            unsigned i = (unsigned)(e->op - TK_LT);
            r.c[0] = iop(g, u ? uop[i] : sop[i], x.c[0], y.c[0]);
            r.is_bool = true;
            return r;
        }
        switch (e->op) {
        case TK_LT:
            r.c[0] = fmag_build_lt(b, x.c[0], y.c[0]);
            break;
        case TK_GT:
            r.c[0] = fmag_build_gt(b, x.c[0], y.c[0]);
            break;
        case TK_LE:
            r.c[0] = fmag_build_le(b, x.c[0], y.c[0]);
            break;
        case TK_GE:
            r.c[0] = fmag_build_ge(b, x.c[0], y.c[0]);
            break;
        case TK_EQ:
            r.c[0] = fmag_build_eq(b, x.c[0], y.c[0]);
            break;
        case TK_NE:
            r.c[0] = fmag_build_ne(b, x.c[0], y.c[0]);
            break;
        case TK_ANDAND: {
            /* a && b: b's truth when a is true, else 0 (no side effects, so evaluating
             * b is unobservable: short-circuit semantics as a select). */
            fmag_value *ga = as_guard(g, &x), *gb = as_guard(g, &y);
            r.c[0] = fmag_build_select(b, gb, cst(g, 0.0f), ga);
            break;
        }
        case TK_OROR: {
            fmag_value *ga = as_guard(g, &x), *gb = as_guard(g, &y);
            r.c[0] = fmag_build_select(b, cst(g, 1.0f), gb, ga);
            break;
        }
        default:
            for (int i = 0; i < r.n; i++)
                r.c[i] = arith(g, e->op, kind, splat(&x, i), splat(&y, i));
            return r;
        }
        r.is_bool = true;
        return r;
    }
    case EX_TERNARY: {
        sval c = gen_expr(g, e->a);
        sval x = gen_expr(g, e->b), y = gen_expr(g, e->c);
        fmag_value *guard = as_guard(g, &c);
        for (int i = 0; i < r.n; i++)
            r.c[i] = select_of(g, splat(&x, i), splat(&y, i), guard);
        r.is_bool = x.is_bool && y.is_bool;
        return r;
    }
    }
    return r;
}

static void gen_stmt(gen *g, sl_stmt *st);

static void gen_return(gen *g, sl_stmt *st)
{
    fmag_value **vals = fmag_context_alloc(g->s->ctx, (g->nres ? g->nres : 1) * sizeof *vals);
    unsigned k = 0;
    if (st && st->e) {
        sval v = gen_expr(g, st->e);
        for (int i = 0; i < width_of(g->fn->ret_type); i++)
            vals[k++] = to_boundary(g, g->ir, g->fn->ret_type, splat(&v, i));
    }
    for (sl_var *p = g->fn->params; p; p = p->next)
        if (p->is_out)
            for (int i = 0; i < width_of(p->type); i++)
                vals[k++] = to_boundary(g, g->ir, p->type, g->env[p->slot + (unsigned)i]);
    while (k < g->nres)
        vals[k++] = cst(g, 0.0f); /* a void function without outputs returns a dummy 0 */
    retsite *rs = fmag_context_alloc(g->s->ctx, sizeof *rs);
    rs->from = g->b.block;
    rs->vals = vals;
    rs->next = g->rets;
    g->rets = rs;
    /* The jump to the exit block is added once that block exists (last in the
     * function); nothing else is emitted into this block meanwhile. */
    g->reachable = false;
}

static void gen_if(gen *g, sl_stmt *st)
{
    sval c = gen_expr(g, st->e);
    fmag_value *guard = as_guard(g, &c);
    fmag_block *cond_bb = g->b.block;
    fmag_block *then_bb = fmag_block_create(g->ir, "then");
    fmag_block *else_bb = fmag_block_create(g->ir, st->else_s ? "else" : "endif");
    fmag_build_br(&g->b, guard, then_bb, else_bb);
    fmag_value **env0 = env_copy(g, g->env);

    fmag_builder_at_end(&g->b, then_bb);
    gen_stmt(g, st->then_s);
    bool then_falls = g->reachable;
    fmag_block *then_end = g->b.block;
    fmag_value **then_env = g->env;

    if (!st->else_s) {
        /* The false edge lands in else_bb, which serves as the join. */
        fmag_block *join = else_bb;
        g->env = env0;
        g->reachable = true;
        if (then_falls) {
            fmag_builder_at_end(&g->b, then_end);
            fmag_build_jmp(&g->b, join);
            fmag_builder_at_end(&g->b, join);
            for (unsigned i = 0; i < g->fn->nslots; i++)
                if (!then_env[i] || !env0[i])
                    g->env[i] = NULL; /* declared inside the arm: out of scope here */
                else if (then_env[i] != env0[i]) {
                    fmag_instr *phi = phi_like(g, env0[i]);
                    fmag_phi_add_incoming(phi, then_env[i], then_end);
                    /* The false edge comes straight from the branch's block. */
                    fmag_phi_add_incoming(phi, env0[i], cond_bb);
                    g->env[i] = fmag_instr_result(phi);
                }
            return;
        }
        fmag_builder_at_end(&g->b, join);
        return;
    }

    g->env = env_copy(g, env0);
    g->reachable = true;
    fmag_builder_at_end(&g->b, else_bb);
    gen_stmt(g, st->else_s);
    bool else_falls = g->reachable;
    fmag_block *else_end = g->b.block;
    fmag_value **else_env = g->env;

    if (!then_falls && !else_falls) {
        g->reachable = false;
        return;
    }
    if (then_falls != else_falls) {
        g->env = then_falls ? then_env : else_env;
        fmag_builder_at_end(&g->b, then_falls ? then_end : else_end);
        g->reachable = true;
        return;
    }
    fmag_block *join = fmag_block_create(g->ir, "endif");
    fmag_builder_at_end(&g->b, then_end);
    fmag_build_jmp(&g->b, join);
    fmag_builder_at_end(&g->b, else_end);
    fmag_build_jmp(&g->b, join);
    fmag_builder_at_end(&g->b, join);
    g->env = env_copy(g, then_env);
    for (unsigned i = 0; i < g->fn->nslots; i++)
        if (!then_env[i] || !else_env[i])
            g->env[i] = NULL; /* declared inside one arm: out of scope here */
        else if (then_env[i] != else_env[i]) {
            fmag_instr *phi = phi_like(g, then_env[i]);
            fmag_phi_add_incoming(phi, then_env[i], then_end);
            fmag_phi_add_incoming(phi, else_env[i], else_end);
            g->env[i] = fmag_instr_result(phi);
        }
    g->reachable = true;
}

/* Phis of a loop header that the loop never changes (the back edge brings the
 * phi itself or its entry value, or there is no back edge) go; repeated, since
 * one phi may carry another. */
static void drop_loop_phis(gen *g, fmag_instr **phis, unsigned n, fmag_value **entry,
                           fmag_value **env)
{
    bool changed = true;
    while (changed) {
        changed = false;
        for (unsigned i = 0; i < n; i++) {
            fmag_instr *phi = phis[i];
            if (!phi) continue;
            bool trivial = true;
            for (unsigned k = 1; k < phi->nops; k++) {
                fmag_value *v = phi->ops[k].value;
                if (v != &phi->results[0] && v != entry[i]) trivial = false;
            }
            if (!trivial) continue;
            fmag_value_replace_all_uses(&phi->results[0], entry[i]);
            for (unsigned j = 0; j < n; j++)
                if (env[j] == &phi->results[0]) env[j] = entry[i];
            /* Returns inside the loop saved their values for the exit's phis. */
            for (retsite *rs = g->rets; rs; rs = rs->next)
                for (unsigned k = 0; k < g->nres; k++)
                    if (rs->vals[k] == &phi->results[0]) rs->vals[k] = entry[i];
            fmag_instr_erase(phi);
            phis[i] = NULL;
            changed = true;
        }
    }
}

static unsigned source_line(const sl_session *s, unsigned pos)
{
    unsigned line = 1;
    for (unsigned i = 0; i < pos && i < s->len; i++)
        line += s->src[i] == '\n';
    return line;
}

static unsigned source_col(const sl_session *s, unsigned pos)
{
    unsigned col = 1;
    for (unsigned i = 0; i < pos && i < s->len; i++)
        col = s->src[i] == '\n' ? 1 : col + 1;
    return col;
}

/*   init; jmp ^for.lineN
 *   ^for.lineN: phis; br cond, ^for.body, ^for.end
 *   ^for.body: body; step; jmp ^for.lineN
 *   ^for.end:   (the values the header saw when the condition failed)
 * The header carries the source line so -loop-unroll's diagnostics point at it. */
static void gen_for(gen *g, sl_stmt *st)
{
    gen_stmt(g, st->init);
    if (!g->reachable) return;
    unsigned n = g->fn->nslots;
    char name[32];
    snprintf(name, sizeof name, "for.line%u", source_line(g->s, st->pos));
    fmag_block *pre = g->b.block;
    fmag_block *head = fmag_block_create(g->ir, name);
    head->src_line = source_line(g->s, st->pos);
    head->src_col = source_col(g->s, st->pos);
    fmag_block *body = fmag_block_create(g->ir, "for.body");
    fmag_block *end = fmag_block_create(g->ir, "for.end");
    fmag_build_jmp(&g->b, head);
    fmag_builder_at_end(&g->b, head);
    fmag_value **entry = env_copy(g, g->env);
    fmag_instr **phis = fmag_context_alloc(g->s->ctx, (n ? n : 1) * sizeof *phis);
    for (unsigned i = 0; i < n; i++) {
        if (!g->env[i]) continue;
        phis[i] = phi_like(g, g->env[i]);
        fmag_phi_add_incoming(phis[i], g->env[i], pre);
        g->env[i] = fmag_instr_result(phis[i]);
    }
    if (st->e) {
        sval c = gen_expr(g, st->e);
        fmag_build_br(&g->b, as_guard(g, &c), body, end);
    } else {
        fmag_build_jmp(&g->b, body);
    }
    fmag_value **head_env = env_copy(g, g->env);
    fmag_builder_at_end(&g->b, body);
    gen_stmt(g, st->then_s);
    if (g->reachable) gen_stmt(g, st->step);
    if (g->reachable) {
        fmag_block *latch = g->b.block;
        fmag_build_jmp(&g->b, head);
        for (unsigned i = 0; i < n; i++)
            if (phis[i]) fmag_phi_add_incoming(phis[i], g->env[i] ? g->env[i] : entry[i], latch);
    }
    drop_loop_phis(g, phis, n, entry, head_env);
    g->env = head_env;
    g->reachable = true;
    fmag_builder_at_end(&g->b, end);
}

static void gen_stmt(gen *g, sl_stmt *st)
{
    for (; st; st = st->next) {
        if (!g->reachable) return; /* checked, but never executed: no code */
        switch (st->kind) {
        case ST_DECL: {
            sl_var *v = st->var;
            sval init = {{kind_of(v->type) != SL_KF32 ? icst(g, 0) : cst(g, 0.0f)}, 1, true};
            if (st->e) init = gen_expr(g, st->e);
            for (int i = 0; i < width_of(v->type); i++)
                g->env[v->slot + (unsigned)i] = splat(&init, i);
            break;
        }
        case ST_ASSIGN: {
            sval rhs = gen_expr(g, st->e);
            if (st->op != TK_ASSIGN) {
                sval cur = gen_expr(g, st->lhs);
                sval r = {{0}, cur.n, false};
                int k = kind_of(st->lhs->type);
                for (int i = 0; i < cur.n; i++)
                    r.c[i] = arith(g, st->op, k, cur.c[i], splat(&rhs, i));
                rhs = r;
            }
            store(g, st->lhs, &rhs);
            break;
        }
        case ST_EXPR:
            gen_expr(g, st->e);
            break;
        case ST_IF:
            gen_if(g, st);
            break;
        case ST_RETURN:
            gen_return(g, st);
            break;
        case ST_BLOCK:
            gen_stmt(g, st->body);
            break;
        case ST_FOR:
            gen_for(g, st);
            break;
        }
    }
}

/* Marks the file-scope constants that an expression or statement reads. */
static void mark_expr(sl_expr *e)
{
    if (!e) return;
    if (e->kind == EX_VAR && e->var && e->var->is_global) e->var->needed = true;
    mark_expr(e->a);
    mark_expr(e->b);
    mark_expr(e->c);
    for (unsigned i = 0; i < e->nargs; i++)
        mark_expr(e->args[i]);
}

static void mark_stmt(sl_stmt *st)
{
    for (; st; st = st->next) {
        mark_expr(st->lhs);
        mark_expr(st->e);
        mark_stmt(st->then_s);
        mark_stmt(st->else_s);
        mark_stmt(st->body);
        mark_stmt(st->init);
        mark_stmt(st->step);
    }
}

/* The constants f reads (and those their initializers read), evaluated in
 * declaration order at f's entry. */
static void gen_globals(gen *g, sl_func *f)
{
    sl_session *s = g->s;
    unsigned n = 0;
    for (sl_stmt *st = s->globals; st; st = st->next) {
        st->var->needed = false;
        n++;
    }
    if (!n) return;
    mark_stmt(f->body);
    sl_stmt **order = fmag_context_alloc(s->ctx, n * sizeof *order);
    unsigned k = 0;
    for (sl_stmt *st = s->globals; st; st = st->next)
        order[k++] = st;
    while (k-- > 0)
        if (order[k]->var->needed) mark_expr(order[k]->e);
    for (unsigned i = 0; i < n; i++) {
        sl_var *v = order[i]->var;
        if (!v->needed) continue;
        sval init = gen_expr(g, order[i]->e);
        for (int c = 0; c < width_of(v->type); c++)
            g->genv[v->slot + (unsigned)c] = splat(&init, c);
    }
}

static unsigned num_results(sl_func *f)
{
    unsigned n = (unsigned)width_of(f->ret_type);
    for (sl_var *p = f->params; p; p = p->next)
        if (p->is_out) n += (unsigned)width_of(p->type);
    return n ? n : 1;
}

static void gen_func(gen *g, sl_func *f)
{
    g->fn = f;
    g->ir = f->ir;
    g->nres = num_results(f);
    g->exit = NULL;
    g->rets = NULL;
    g->reachable = true;
    g->env = fmag_context_alloc(g->s->ctx, (f->nslots ? f->nslots : 1) * sizeof *g->env);
    fmag_block *entry = fmag_block_create(f->ir, "entry");
    fmag_builder_at_end(&g->b, entry);
    unsigned pi = 0;
    for (sl_var *p = f->params; p; p = p->next)
        for (int i = 0; i < width_of(p->type); i++)
            g->env[p->slot + (unsigned)i] =
                p->is_out ? (kind_of(p->type) != SL_KF32 ? icst(g, 0) : cst(g, 0.0f))
                          : from_boundary(g, f->ir, p->type, &f->ir->params[pi++]);
    gen_globals(g, f);
    gen_stmt(g, f->body->body);
    if (g->reachable) gen_return(g, NULL); /* void function falling off its end */
    /* Merge the return sites: a phi per result whose values differ. */
    g->exit = fmag_block_create(g->ir, "exit");
    for (retsite *rs = g->rets; rs; rs = rs->next) {
        fmag_builder_at_end(&g->b, rs->from);
        fmag_build_jmp(&g->b, g->exit);
    }
    fmag_builder_at_end(&g->b, g->exit);
    fmag_value **out = fmag_context_alloc(g->s->ctx, g->nres * sizeof *out);
    for (unsigned k = 0; k < g->nres; k++) {
        bool same = true;
        for (retsite *rs = g->rets; rs; rs = rs->next)
            same = same && rs->vals[k] == g->rets->vals[k];
        if (same) {
            out[k] = g->rets->vals[k];
            continue;
        }
        fmag_instr *phi = phi_like(g, g->rets->vals[k]);
        for (retsite *rs = g->rets; rs; rs = rs->next)
            fmag_phi_add_incoming(phi, rs->vals[k], rs->from);
        out[k] = fmag_instr_result(phi);
    }
    fmag_build_ret(&g->b, out, g->nres);
}

fmag_module *sl_irgen(sl_session *s)
{
    gen g;
    memset(&g, 0, sizeof g);
    g.s = s;
    g.m = fmag_module_create(s->ctx);
    g.fast = s->opts.fastmath;
    g.m->fastmath = g.fast;
    if (s->filename) {
        g.m->src_file = fmag_context_strdup(s->ctx, s->filename, strlen(s->filename));
        g.m->src_text = fmag_context_strdup(s->ctx, s->src, s->len);
        g.m->src_len = s->len;
    }
    g.b.module = g.m;
    g.genv = fmag_context_alloc(s->ctx, (s->nglobal_slots + 1) * sizeof *g.genv);
    for (sl_func *f = s->funcs; f; f = f->next) {
        const char *name = fmag_context_strdup(s->ctx, f->name, f->name_len);
        bool exp = f->is_export && (!s->opts.entry || !strcmp(s->opts.entry, name));
        unsigned nin = 0;
        for (sl_var *p = f->params; p; p = p->next)
            if (!p->is_out) nin += (unsigned)width_of(p->type);
        f->ir = fmag_func_create(g.m, name, nin, num_results(f), exp);
        if (!exp) {
            /* Integers pass as i32 between functions (an export's are floats). */
            unsigned ri = 0;
            for (int i = 0; i < width_of(f->ret_type); i++, ri++)
                if (kind_of(f->ret_type) != SL_KF32)
                    fmag_func_set_result_type(f->ir, ri, FMAG_TYPE_I32);
            for (sl_var *p = f->params; p; p = p->next)
                if (p->is_out)
                    for (int i = 0; i < width_of(p->type); i++, ri++)
                        if (kind_of(p->type) != SL_KF32)
                            fmag_func_set_result_type(f->ir, ri, FMAG_TYPE_I32);
        }
        unsigned pi = 0;
        static const char comps[] = "xyzw";
        for (sl_var *p = f->params; p; p = p->next) {
            if (p->is_out) continue;
            for (int i = 0; i < width_of(p->type); i++) {
                if (!exp && kind_of(p->type) != SL_KF32) f->ir->params[pi].type = FMAG_TYPE_I32;
                char buf[80];
                int len =
                    width_of(p->type) == 1
                        ? snprintf(buf, sizeof buf, "%.*s",
                                   (int)(p->name_len > 60 ? 60 : p->name_len), p->name)
                        : snprintf(buf, sizeof buf, "%.*s.%c",
                                   (int)(p->name_len > 60 ? 60 : p->name_len), p->name, comps[i]);
                f->ir->params[pi++].name = fmag_context_strdup(s->ctx, buf, (size_t)len);
            }
        }
    }
    for (sl_func *f = s->funcs; f; f = f->next)
        gen_func(&g, f);
    return g.m;
}
