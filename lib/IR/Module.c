/* IR containers: modules, functions, blocks, instructions, values and the use
 * lists that tie them together. */
#include "IRInternal.h"

#include <assert.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ uses */

static void use_link(fmag_use *u, fmag_value *v)
{
    u->value = v;
    u->prev_use = NULL;
    u->next_use = v->uses;
    if (v->uses) v->uses->prev_use = u;
    v->uses = u;
}

static void use_unlink(fmag_use *u)
{
    if (!u->value) return;
    if (u->prev_use)
        u->prev_use->next_use = u->next_use;
    else
        u->value->uses = u->next_use;
    if (u->next_use) u->next_use->prev_use = u->prev_use;
    u->value = NULL;
    u->prev_use = u->next_use = NULL;
}

void fmag_instr_set_op(fmag_instr *i, unsigned k, fmag_value *v)
{
    fmag_use *u = &i->ops[k];
    if (u->value == v) return;
    use_unlink(u);
    if (v) use_link(u, v);
}

size_t fmag_value_num_uses(const fmag_value *v)
{
    size_t n = 0;
    for (fmag_use *u = v->uses; u; u = u->next_use)
        n++;
    return n;
}

bool fmag_value_num_uses_is(const fmag_value *v, size_t n)
{
    size_t k = 0;
    for (fmag_use *u = v->uses; u && k <= n; u = u->next_use)
        k++;
    return k == n;
}

/* Each use leaves from's list at its head and joins to's, without the general
 * unlink (the passes replace thousands of uses per compile). */
void fmag_value_replace_all_uses(fmag_value *from, fmag_value *to)
{
    if (from == to) return;
    while (from->uses) {
        fmag_use *u = from->uses;
        from->uses = u->next_use;
        if (u->next_use) u->next_use->prev_use = NULL;
        use_link(u, to);
    }
}

bool fmag_value_is_imm(const fmag_value *v, float f)
{
    return v->kind == FMAG_VALUE_CONST && v->type == FMAG_TYPE_F32 &&
           fmag_bits_of(v->imm) == fmag_bits_of(f);
}

/* ---------------------------------------------------------- instructions */

const char *fmag_opcode_name(fmag_opcode op)
{
    switch (op) {
    case FMAG_OP_FMAG:
        return "fmag";
    case FMAG_OP_PHI:
        return "phi";
    case FMAG_OP_CALL:
        return "call";
    case FMAG_OP_BR:
        return "br";
    case FMAG_OP_JMP:
        return "jmp";
    case FMAG_OP_RET:
        return "ret";
    case FMAG_OP_INT:
        return "int";
    }
    return "<bad opcode>";
}

fmag_instr *fmag_instr_create(fmag_func *f, fmag_opcode op, unsigned nops, unsigned nresults)
{
    fmag_context *ctx = f->module->ctx;
    /* the instruction, its operands and its results in one arena block: instructions
     * are made by the thousand on every compile (docs/PERFORMANCE.md, MaterialX).
     * Every field is written here (the compound literals zero what they do not
     * name), so the block needs no zeroing first. */
    size_t ops_at = (sizeof(fmag_instr) + 15) & ~(size_t)15;
    size_t results_at = (ops_at + nops * sizeof(fmag_use) + 15) & ~(size_t)15;
    char *block = fmag_arena_alloc_dirty(ctx, results_at + nresults * sizeof(fmag_value));
    if (!block) return NULL;
    fmag_instr *i = (fmag_instr *)block;
    *i = (fmag_instr){
        .op = op,
        .nops = nops,
        .ops = nops ? (fmag_use *)(block + ops_at) : NULL,
        .nresults = nresults,
        .results = nresults ? (fmag_value *)(block + results_at) : NULL,
    };
    for (unsigned k = 0; k < nops; k++)
        i->ops[k] = (fmag_use){.user = i, .index = k};
    for (unsigned k = 0; k < nresults; k++)
        i->results[k] = (fmag_value){.kind = FMAG_VALUE_RESULT, .def = i, .index = k, .func = f};
    if (op == FMAG_OP_PHI && nops)
        i->phi_blocks = fmag_context_alloc(ctx, nops * sizeof(fmag_block *));
    return i;
}

/* What an instruction's insertion or removal makes stale. */
static unsigned instr_stales(const fmag_instr *i)
{
    return FMAG_VALID_VALUE_IDS | (fmag_instr_is_terminator(i) ? FMAG_VALID_CFG : 0u);
}

static void instr_link(fmag_block *b, fmag_instr *prev, fmag_instr *i)
{
    b->func->valid &= ~instr_stales(i);
    i->block = b;
    i->prev = prev;
    i->next = prev ? prev->next : b->first;
    if (i->next)
        i->next->prev = i;
    else
        b->last = i;
    if (prev)
        prev->next = i;
    else
        b->first = i;
}

fmag_instr *fmag_ir_build_fmag(fmag_block *at, fmag_instr *before, fmag_value *const ops[5])
{
    fmag_func *f = at->func;
    enum {
        OPS_AT = (sizeof(fmag_instr) + 15) & ~(size_t)15,
        RESULT_AT = (OPS_AT + 5 * sizeof(fmag_use) + 15) & ~(size_t)15
    };
    char *block = fmag_arena_alloc_dirty(f->module->ctx, RESULT_AT + sizeof(fmag_value));
    if (!block) return NULL;
    fmag_instr *i = (fmag_instr *)block;
    fmag_use *u = (fmag_use *)(block + OPS_AT);
    fmag_value *r = (fmag_value *)(block + RESULT_AT);
    *i = (fmag_instr){.op = FMAG_OP_FMAG, .nops = 5, .ops = u, .nresults = 1, .results = r};
    *r = (fmag_value){.kind = FMAG_VALUE_RESULT, .def = i, .func = f};
    for (unsigned k = 0; k < 5; k++) {
        fmag_value *v = ops[k];
        u[k] = (fmag_use){.value = v, .user = i, .index = k, .next_use = v ? v->uses : NULL};
        if (!v) continue;
        if (v->uses) v->uses->prev_use = &u[k];
        v->uses = &u[k];
    }
    instr_link(at, before ? before->prev : at->last, i);
    return i;
}

void fmag_block_append(fmag_block *b, fmag_instr *i)
{
    instr_link(b, b->last, i);
}

void fmag_instr_insert_before(fmag_instr *pos, fmag_instr *i)
{
    instr_link(pos->block, pos->prev, i);
}

void fmag_instr_insert_after(fmag_instr *pos, fmag_instr *i)
{
    instr_link(pos->block, pos, i);
}

static void instr_unlink(fmag_instr *i)
{
    fmag_block *b = i->block;
    if (!b) return;
    b->func->valid &= ~instr_stales(i);
    if (i->prev)
        i->prev->next = i->next;
    else
        b->first = i->next;
    if (i->next)
        i->next->prev = i->prev;
    else
        b->last = i->prev;
    i->prev = i->next = NULL;
    i->block = NULL;
}

void fmag_instr_remove(fmag_instr *i)
{
    instr_unlink(i);
}

void fmag_instr_erase(fmag_instr *i)
{
    instr_unlink(i);
    for (unsigned k = 0; k < i->nops; k++)
        use_unlink(&i->ops[k]);
}

/* Phi operand arrays grow by reallocation in the arena; phis are few. */
void fmag_phi_add_incoming(fmag_instr *phi, fmag_value *v, fmag_block *from)
{
    fmag_context *ctx = phi->results[0].func->module->ctx;
    unsigned n = phi->nops;
    fmag_use *ops = fmag_context_alloc(ctx, (n + 1) * sizeof(fmag_use));
    fmag_block **blocks = fmag_context_alloc(ctx, (n + 1) * sizeof(fmag_block *));
    for (unsigned k = 0; k < n; k++) {
        fmag_value *old = phi->ops[k].value;
        use_unlink(&phi->ops[k]);
        ops[k].user = phi;
        ops[k].index = k;
        if (old) use_link(&ops[k], old);
        blocks[k] = phi->phi_blocks[k];
    }
    ops[n].user = phi;
    ops[n].index = n;
    if (v) use_link(&ops[n], v);
    blocks[n] = from;
    phi->ops = ops;
    phi->phi_blocks = blocks;
    phi->nops = n + 1;
}

void fmag_phi_remove_incoming(fmag_instr *phi, unsigned k)
{
    unsigned n = phi->nops;
    for (unsigned j = k; j + 1 < n; j++) {
        fmag_value *v = phi->ops[j + 1].value;
        fmag_instr_set_op(phi, j, v);
        phi->phi_blocks[j] = phi->phi_blocks[j + 1];
    }
    use_unlink(&phi->ops[n - 1]);
    phi->nops = n - 1;
}

fmag_value *fmag_phi_value_for(const fmag_instr *phi, const fmag_block *from)
{
    for (unsigned k = 0; k < phi->nops; k++)
        if (phi->phi_blocks[k] == from) return phi->ops[k].value;
    return NULL;
}

/* ---------------------------------------------------------------- blocks */

fmag_instr *fmag_block_terminator(const fmag_block *b)
{
    return b->last && fmag_instr_is_terminator(b->last) ? b->last : NULL;
}

unsigned fmag_block_succs(const fmag_block *b, fmag_block *succ[2])
{
    fmag_instr *t = fmag_block_terminator(b);
    if (!t) return 0;
    if (t->op == FMAG_OP_BR) {
        succ[0] = t->targets[0];
        succ[1] = t->targets[1];
        return 2;
    }
    if (t->op == FMAG_OP_JMP) {
        succ[0] = t->targets[0];
        return 1;
    }
    return 0;
}

static fmag_block *block_new(fmag_func *f, const char *name)
{
    f->valid = 0;
    fmag_block *b = fmag_context_alloc(f->module->ctx, sizeof(*b));
    b->func = f;
    b->name = name ? fmag_context_strdup(f->module->ctx, name, strlen(name)) : NULL;
    return b;
}

fmag_block *fmag_block_create(fmag_func *f, const char *name)
{
    fmag_block *b = block_new(f, name);
    b->prev = f->last;
    if (f->last)
        f->last->next = b;
    else
        f->first = b;
    f->last = b;
    return b;
}

fmag_block *fmag_block_create_after(fmag_func *f, fmag_block *after, const char *name)
{
    if (!after || after == f->last) return fmag_block_create(f, name);
    fmag_block *b = block_new(f, name);
    b->prev = after;
    b->next = after->next;
    after->next->prev = b;
    after->next = b;
    return b;
}

fmag_block *fmag_block_create_like(fmag_func *f, fmag_block *after, const fmag_block *like)
{
    fmag_block *b = fmag_block_create_after(f, after, like->name);
    if (b) {
        b->src_line = like->src_line;
        b->src_col = like->src_col;
        b->src = like->src;
    }
    return b;
}

void fmag_block_erase(fmag_block *b)
{
    fmag_func *f = b->func;
    f->valid = 0;
    fmag_foreach_instr (i, b)
        fmag_instr_erase(i);
    if (b->prev)
        b->prev->next = b->next;
    else
        f->first = b->next;
    if (b->next)
        b->next->prev = b->prev;
    else
        f->last = b->prev;
    b->prev = b->next = NULL;
}

/* ------------------------------------------------------------- functions */

fmag_func *fmag_func_create(fmag_module *m, const char *name, unsigned nparams, unsigned nresults,
                            bool is_export)
{
    fmag_func *f = fmag_context_alloc(m->ctx, sizeof(*f));
    f->name = fmag_context_strdup(m->ctx, name, strlen(name));
    f->module = m;
    f->is_export = is_export;
    f->nparams = nparams;
    f->nresults = nresults;
    f->params = nparams ? fmag_context_alloc(m->ctx, nparams * sizeof(fmag_value)) : NULL;
    for (unsigned k = 0; k < nparams; k++) {
        f->params[k].kind = FMAG_VALUE_PARAM;
        f->params[k].func = f;
        f->params[k].index = k;
    }
    f->prev = m->last;
    if (m->last)
        m->last->next = f;
    else
        m->first = f;
    m->last = f;
    return f;
}

void fmag_func_renumber(fmag_func *f)
{
    unsigned id = 0, bid = 0;
    for (unsigned k = 0; k < f->nparams; k++)
        f->params[k].id = id++;
    fmag_foreach_block (b, f) {
        b->id = bid++;
        fmag_foreach_instr (i, b)
            for (unsigned k = 0; k < i->nresults; k++)
                i->results[k].id = id++;
    }
    f->nvalues = id;
    f->nblocks = bid;
    f->valid |= FMAG_VALID_BLOCK_IDS | FMAG_VALID_VALUE_IDS;
}

void fmag_func_invalidate(fmag_func *f, unsigned bits)
{
    f->valid &= ~bits;
}

void fmag_func_assert_valid(const fmag_func *f, unsigned bits)
{
    assert((f->valid & bits) == bits && "stale ids or analysis: recompute it first");
    (void)f, (void)bits;
}

void fmag_func_clear_aux(fmag_func *f)
{
    f->aux = NULL;
    for (unsigned k = 0; k < f->nparams; k++)
        f->params[k].aux = NULL;
    fmag_foreach_block (b, f) {
        b->aux = NULL;
        fmag_foreach_instr (i, b) {
            i->aux = NULL;
            for (unsigned k = 0; k < i->nresults; k++)
                i->results[k].aux = NULL;
        }
    }
}

bool fmag_func_aux_clear(const fmag_func *f)
{
    if (f->aux) return false;
    for (unsigned k = 0; k < f->nparams; k++)
        if (f->params[k].aux) return false;
    /* the pass manager asks after every pass: one test per instruction (aux and a
     * single result's aux, the common case) */
    for (const fmag_block *b = f->first; b; b = b->next) {
        if (b->aux) return false;
        for (const fmag_instr *i = b->first; i; i = i->next) {
            unsigned n = i->nresults;
            const fmag_value *r = i->results;
            if (i->aux || (n && r[0].aux)) return false;
            for (unsigned k = 1; k < n; k++)
                if (r[k].aux) return false;
        }
    }
    return true;
}

size_t fmag_func_num_instrs(const fmag_func *f)
{
    size_t n = 0;
    for (fmag_block *b = f->first; b; b = b->next)
        for (fmag_instr *i = b->first; i; i = i->next)
            n++;
    return n;
}

void fmag_func_set_result_type(fmag_func *f, unsigned k, fmag_type t)
{
    assert(k < f->nresults);
    if (!f->result_types) {
        if (t == FMAG_TYPE_F32) return;
        f->result_types = fmag_context_alloc(f->module->ctx, f->nresults * sizeof(fmag_type));
    }
    f->result_types[k] = t;
}

bool fmag_func_has_int(const fmag_func *f)
{
    for (unsigned k = 0; k < f->nparams; k++)
        if (f->params[k].type == FMAG_TYPE_I32) return true;
    for (unsigned k = 0; k < f->nresults; k++)
        if (fmag_func_result_type(f, k) == FMAG_TYPE_I32) return true;
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b) {
            if (i->op == FMAG_OP_INT) return true;
            for (unsigned k = 0; k < i->nresults; k++)
                if (i->results[k].type == FMAG_TYPE_I32) return true;
        }
    return false;
}

void fmag_func_erase(fmag_func *f)
{
    fmag_module *m = f->module;
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b)
            fmag_instr_erase(i);
    if (f->prev)
        f->prev->next = f->next;
    else
        m->first = f->next;
    if (f->next)
        f->next->prev = f->prev;
    else
        m->last = f->prev;
    f->prev = f->next = NULL;
}

/* --------------------------------------------------------------- modules */

fmag_module *fmag_module_create(fmag_context *ctx)
{
    fmag_module *m = fmag_context_alloc(ctx, sizeof(*m));
    m->ctx = ctx;
    m->consts = fmag_context_alloc(ctx, sizeof(fmag_const_pool));
    return m;
}

fmag_func *fmag_module_get_func(const fmag_module *m, const char *name)
{
    for (fmag_func *f = m->first; f; f = f->next)
        if (strcmp(f->name, name) == 0) return f;
    return NULL;
}

/* Fibonacci hashing: the product's top bits, which every bit of the key reaches. The
 * low bits of a product depend only on the key's low bits, which most literals (0.5,
 * 2.0, -1.0) have all zero: they clustered in one run of slots. */
static size_t const_hash(fmag_type t, uint32_t bits, size_t cap)
{
    uint64_t key = (uint64_t)t << 32 | bits;
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - __builtin_ctzll(cap)));
}

/* The pool's slot for (t, bits): the literal's, or the empty one where it goes. */
static inline fmag_value **const_slot(const fmag_const_pool *pool, fmag_type t, uint32_t bits)
{
    size_t h = const_hash(t, bits, pool->cap);
    while (pool->slots[h] && (pool->slots[h]->ibits != bits || pool->slots[h]->type != t))
        h = (h + 1) & (pool->cap - 1);
    return &pool->slots[h];
}

/* A literal not yet in the pool. Apart from the lookup, so that the lookup (thousands
 * per compile: the frontends' sugar, constfold) stays a leaf without the spills that
 * growing the table needs. */
__attribute__((noinline)) static fmag_value *const_insert(fmag_module *m, fmag_type t,
                                                          uint32_t bits)
{
    fmag_const_pool *pool = m->consts;
    if (pool->count * 2 >= pool->cap) {
        size_t ncap = pool->cap ? pool->cap * 2 : 64;
        fmag_value **slots = fmag_context_alloc(m->ctx, ncap * sizeof(*slots));
        for (size_t k = 0; k < pool->cap; k++) {
            fmag_value *v = pool->slots[k];
            if (!v) continue;
            size_t h = const_hash(v->type, v->ibits, ncap);
            while (slots[h])
                h = (h + 1) & (ncap - 1);
            slots[h] = v;
        }
        pool->slots = slots;
        pool->cap = ncap;
    }
    fmag_value **slot = const_slot(pool, t, bits);
    fmag_value *v = fmag_context_alloc(m->ctx, sizeof(*v));
    v->kind = FMAG_VALUE_CONST;
    v->type = t;
    v->ibits = bits;
    *slot = v;
    pool->count++;
    return v;
}

/* One pool for both types, keyed on (type, bits): an i32 7 and the f32 whose bits
 * are 7 are two literals. */
static inline fmag_value *const_get(fmag_module *m, fmag_type t, uint32_t bits)
{
    const fmag_const_pool *pool = m->consts;
    fmag_value *v = pool->cap ? *const_slot(pool, t, bits) : NULL;
    return v ? v : const_insert(m, t, bits);
}

fmag_value *fmag_module_const_bits(fmag_module *m, fmag_type t, uint32_t bits)
{
    return const_get(m, t, bits);
}

fmag_value *fmag_module_const(fmag_module *m, float f)
{
    return const_get(m, FMAG_TYPE_F32, fmag_bits_of(f));
}

fmag_value *fmag_module_const_i32(fmag_module *m, uint32_t bits)
{
    return const_get(m, FMAG_TYPE_I32, bits);
}

size_t fmag_module_num_instrs(const fmag_module *m)
{
    size_t n = 0;
    for (fmag_func *f = m->first; f; f = f->next)
        n += fmag_func_num_instrs(f);
    return n;
}

/* Structural equality: functions, blocks and instructions in the same order, values
 * matched by their position (renumbered ids), literals by their bits. */
static bool value_equal(const fmag_value *a, const fmag_value *b)
{
    if (!a || !b) return a == b;
    if (a->kind != b->kind || a->type != b->type) return false;
    if (a->kind == FMAG_VALUE_CONST) return a->ibits == b->ibits;
    return a->id == b->id;
}

static bool func_equal(fmag_func *a, fmag_func *b)
{
    if (strcmp(a->name, b->name) || a->is_export != b->is_export || a->nparams != b->nparams ||
        a->nresults != b->nresults)
        return false;
    for (unsigned k = 0; k < a->nparams; k++)
        if (a->params[k].type != b->params[k].type) return false;
    for (unsigned k = 0; k < a->nresults; k++)
        if (fmag_func_result_type(a, k) != fmag_func_result_type(b, k)) return false;
    fmag_func_renumber(a);
    fmag_func_renumber(b);
    if (a->nblocks != b->nblocks || a->nvalues != b->nvalues) return false;
    fmag_block *ba = a->first, *bb = b->first;
    for (; ba && bb; ba = ba->next, bb = bb->next) {
        fmag_instr *ia = ba->first, *ib = bb->first;
        for (; ia && ib; ia = ia->next, ib = ib->next) {
            if (ia->op != ib->op || ia->nops != ib->nops || ia->nresults != ib->nresults)
                return false;
            if (ia->op == FMAG_OP_INT && ia->iop != ib->iop) return false;
            for (unsigned k = 0; k < ia->nresults; k++)
                if (ia->results[k].type != ib->results[k].type) return false;
            for (unsigned k = 0; k < ia->nops; k++) {
                if (!value_equal(ia->ops[k].value, ib->ops[k].value)) return false;
                if (ia->op == FMAG_OP_PHI && ia->phi_blocks[k]->id != ib->phi_blocks[k]->id)
                    return false;
            }
            if (ia->op == FMAG_OP_CALL && strcmp(ia->callee->name, ib->callee->name)) return false;
            for (unsigned k = 0; k < 2; k++) {
                if (!ia->targets[k] != !ib->targets[k]) return false;
                if (ia->targets[k] && ia->targets[k]->id != ib->targets[k]->id) return false;
            }
        }
        if (ia || ib) return false;
    }
    return !ba && !bb;
}

bool fmag_module_equal(const fmag_module *a, const fmag_module *b)
{
    if (a->fastmath != b->fastmath) return false;
    fmag_func *fa = a->first, *fb = b->first;
    for (; fa && fb; fa = fa->next, fb = fb->next)
        if (fa->nderiv != fb->nderiv || !func_equal(fa, fb)) return false;
    return !fa && !fb;
}

/* Functions first (calls may name any function of the module), then each body
 * through fmag_clone_body with callees mapped through the functions' aux. */
static fmag_module *fmag_module_clone_unguarded(const fmag_module *src)
{
    fmag_module *dst = fmag_module_create(src->ctx);
    dst->fastmath = src->fastmath;
    dst->max_unroll_instrs = src->max_unroll_instrs;
    dst->src_file = src->src_file;
    dst->src_text = src->src_text;
    dst->src_len = src->src_len;
    dst->math_calls = src->math_calls;
    dst->deriv_inputs = src->deriv_inputs;
    for (fmag_func *f = src->first; f; f = f->next) {
        fmag_func *nf = fmag_func_create(dst, f->name, f->nparams, f->nresults, f->is_export);
        nf->nderiv = f->nderiv;
        f->aux = nf;
        for (unsigned k = 0; k < f->nparams; k++) {
            nf->params[k].name = f->params[k].name;
            nf->params[k].type = f->params[k].type;
        }
        for (unsigned k = 0; k < f->nresults; k++)
            if (fmag_func_result_type(f, k) != FMAG_TYPE_F32)
                fmag_func_set_result_type(nf, k, fmag_func_result_type(f, k));
    }
    bool ok = true;
    for (fmag_func *f = src->first; f && ok; f = f->next) {
        fmag_func *nf = f->aux;
        fmag_value **params = fmag_tmp_malloc((f->nparams + 1) * sizeof(*params));
        if (!params) {
            fmag_context_out_of_memory(src->ctx, "fmag_module_clone");
            ok = false;
            break;
        }
        for (unsigned k = 0; k < f->nparams; k++)
            params[k] = &nf->params[k];
        fmag_clone_opts o = {params, NULL, true, true};
        fmag_clone_body(nf, NULL, f, &o);
        fmag_tmp_free(params);
    }
    for (fmag_func *f = src->first; f; f = f->next)
        fmag_func_clear_aux(f);
    return ok ? dst : NULL;
}

/* The guarded entry point: an allocation failure inside ends in NULL with a
 * diagnostic (fmag_context_guard). */
struct fmag_module_clone_args {
    const fmag_module *src;
    fmag_module *result;
};

static void fmag_module_clone_thunk(void *arg)
{
    struct fmag_module_clone_args *a = arg;
    a->result = fmag_module_clone_unguarded(a->src);
}

fmag_module *fmag_module_clone(const fmag_module *src)
{
    struct fmag_module_clone_args a = {src, NULL};
    return fmag_context_guard(src->ctx, fmag_module_clone_thunk, &a) ? a.result : NULL;
}
