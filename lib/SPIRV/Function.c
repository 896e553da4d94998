/* Translating one SPIR-V function into an IR function: blocks and their edges,
 * variables through SSA construction (SSA.c), loads, stores and access chains,
 * OpPhi, calls and terminators. Arithmetic is in Ops.c.
 *
 * The IR function's signature: params = each SPIR-V parameter scalarized (a
 * pointer parameter passes its pointee's value in) followed by the leaves of
 * every module variable the function or a callee uses; results = the return
 * value scalarized, each pointer parameter's pointee on return, then every
 * writable module variable it uses (docs/SPIRV.md). */
#include <stdio.h>
#include <string.h>
#include "SPIRVInternal.h"

static spv_id *id_at(spv_reader *r, uint32_t id)
{
    return id < r->bound ? &r->ids[id] : NULL;
}

/* Whether block a dominates block b (NULL: the function's parameters, which
 * dominate everything). */
static bool dominates(const spv_block *a, const spv_block *b)
{
    return !a || !b || (a->pre <= b->pre && b->post <= a->post);
}

static bool check_dominance(spv_reader *r, uint32_t id, const spv_id *x)
{
    char nb[64];
    if (dominates(x->dblk, r->cur_blk)) return true;
    return spv_error_op(r, "operand %s is used where its definition does not dominate it",
                        spv_id_str(r, id, nb, sizeof nb));
}

fmag_value **spv_get_value(spv_reader *r, uint32_t id, uint32_t *n)
{
    spv_id *x = id_at(r, id);
    char nb[64];
    if (!x || (x->kind != ID_CONST && x->kind != ID_VALUE)) {
        spv_error_op(r, "operand %s is not a value", spv_id_str(r, id, nb, sizeof nb));
        return NULL;
    }
    if (!x->val || (x->kind == ID_VALUE && x->fn != r->fn)) {
        spv_error_op(r, "operand %s is used before its definition",
                     spv_id_str(r, id, nb, sizeof nb));
        return NULL;
    }
    if (x->bad) {
        spv_error_op(r, "operand %s: %s", spv_id_str(r, id, nb, sizeof nb), x->bad);
        return NULL;
    }
    if (x->kind == ID_VALUE && !check_dominance(r, id, x)) return NULL;
    *n = spv_type_leaves(r, x->type);
    return x->val;
}

fmag_value **spv_new_value(spv_reader *r, uint32_t id, uint32_t type, uint32_t *n)
{
    spv_id *x = id_at(r, id);
    spv_type *t = spv_type_get(r, type);
    if (!x || !t) {
        spv_error_op(r, "result of an undeclared type");
        return NULL;
    }
    if (t->bad) {
        spv_error_op(r, "the result is %s", t->bad);
        return NULL;
    }
    if (!t->nleaves) {
        spv_error_op(r, "the result type holds no value FMAG can compute");
        return NULL;
    }
    r->work += t->nleaves;
    if (r->work > (1u << 24)) {
        spv_error_op(r, "the module computes more than 2^24 scalar values: too large to import");
        return NULL;
    }
    x->kind = ID_VALUE;
    x->fn = r->fn;
    x->dblk = r->cur_blk;
    x->type = type;
    x->val = fmag_context_alloc(r->ctx, t->nleaves * sizeof(fmag_value *));
    *n = t->nleaves;
    return x->val;
}

/* ------------------------------------------------------------- pointers */

static bool v_global(const spv_id *x)
{
    return x->ptr->var && x->ptr->var->global;
}

static spv_ptr *get_ptr(spv_reader *r, uint32_t id)
{
    spv_id *x = id_at(r, id);
    char nb[64];
    if (!x || x->kind != ID_VAR || !x->ptr ||
        (x->ptr->var && !x->ptr->var->global && x->fn != r->fn)) {
        spv_error_op(r, "operand %s is not a pointer defined before",
                     spv_id_str(r, id, nb, sizeof nb));
        return NULL;
    }
    if (!v_global(x) && !check_dominance(r, id, x)) return NULL;
    spv_var *v = x->ptr->var;
    if (v->slot == UINT32_MAX) {
        spv_id *vid = id_at(r, v->id);
        const char *what = spv_is_storage_buffer(r, v) ? "storage buffers are not supported"
                           : v->storage == SpvStorageClassWorkgroup
                               ? "workgroup memory is not supported"
                           : v->storage == SpvStorageClassUniformConstant
                               ? "opaque uniforms (textures, samplers) are not supported"
                           : vid && spv_type_get(r, v->type) && spv_type_get(r, v->type)->bad
                               ? spv_type_get(r, v->type)->bad
                               : "this variable's storage class is not supported";
        spv_error_op(r, "variable %s: %s", spv_id_str(r, v->id, nb, sizeof nb), what);
        return NULL;
    }
    return x->ptr;
}

static spv_ptr *new_ptr(spv_reader *r, uint32_t id)
{
    spv_id *x = id_at(r, id);
    x->kind = ID_VAR;
    x->fn = r->fn;
    x->dblk = r->cur_blk;
    x->ptr = fmag_context_alloc(r->ctx, sizeof(spv_ptr));
    return x->ptr;
}

static fmag_value *read_slot(spv_reader *r, spv_var *v, uint32_t leaf)
{
    return ssa_read(r, r->b.block, v->slot + leaf);
}

/* An interface variable (Input, Output, a uniform) is what the program's inputs and
 * outputs are made of, and those are floats: an integer leaf of one is held as a float
 * holding its value (SPEC §5b). Every other variable holds its leaves' own types. */
static bool is_interface(const spv_var *v)
{
    uint32_t s = v->storage;
    return v->global && (s == SpvStorageClassInput || s == SpvStorageClassOutput ||
                         s == SpvStorageClassUniform || s == SpvStorageClassUniformConstant ||
                         s == SpvStorageClassPushConstant);
}

fmag_type spv_var_leaf_type(spv_reader *r, const spv_var *v, uint32_t j)
{
    return is_interface(v) ? FMAG_TYPE_F32 : spv_leaf_type(r, v->type, j);
}

/* v as type `want`: an integer read from a float-held leaf is converted as int(x) or
 * uint(x) are (truncating; saturating out of range), an integer stored into one
 * becomes the float nearest it. */
static fmag_value *coerce(spv_reader *r, fmag_value *v, fmag_type want, uint32_t type, uint32_t j)
{
    if (v->type == want) return v;
    const spv_type *scalar = spv_leaf_scalar(r, type, j); /* leaf j of `type` */
    bool s = scalar && scalar->is_signed;
    fmag_int_op op = want == FMAG_TYPE_I32 ? (s ? FMAG_IOP_FPTOSI : FMAG_IOP_FPTOUI)
                                           : (s ? FMAG_IOP_SITOFP : FMAG_IOP_UITOFP);
    return spv_int(r, op, v, NULL, NULL);
}

/* Leaf j of the pointee. With a dynamic index the element is chosen by a chain
 * of selects (element k wins when idx > k - 0.5), which constant folding removes
 * once unrolling has made the index a constant. */
static fmag_value *ptr_read(spv_reader *r, const spv_ptr *p, uint32_t j)
{
    fmag_value *acc = read_slot(r, p->var, p->off + j);
    for (uint32_t k = 1; p->dyn && k < p->count; k++) {
        fmag_value *g = fmag_build_sub(&r->b, p->dyn, fmag_module_const(r->m, (float)k - 0.5f));
        acc = fmag_build_select_typed(&r->b, read_slot(r, p->var, p->off + k * p->stride + j), acc,
                                      g);
    }
    return coerce(r, acc, spv_leaf_type(r, p->type, j), p->type, j);
}

static void ptr_write(spv_reader *r, const spv_ptr *p, uint32_t j, fmag_value *v)
{
    v = coerce(r, v, r->slot_types[p->var->slot + p->off + j], p->type, j);
    if (!p->dyn) {
        ssa_write(r, r->b.block, p->var->slot + p->off + j, v);
        return;
    }
    for (uint32_t k = 0; k < p->count; k++) {
        uint32_t s = p->off + k * p->stride + j;
        fmag_value *old = read_slot(r, p->var, s), *nv = v;
        if (k > 0) {
            fmag_value *g = fmag_build_sub(&r->b, p->dyn, fmag_module_const(r->m, (float)k - 0.5f));
            nv = fmag_build_select_typed(&r->b, nv, old, g);
        }
        if (k + 1 < p->count) {
            fmag_value *g = fmag_build_sub(&r->b, p->dyn, fmag_module_const(r->m, (float)k + 0.5f));
            nv = fmag_build_select_typed(&r->b, old, nv, g);
        }
        ssa_write(r, r->b.block, p->var->slot + s, nv);
    }
}

/* An index operand: a constant (*k) or, for the select chains, the index converted to
 * a float (*dyn; exact for every index in range, and folded once unrolling has made
 * the index a literal). */
static bool index_of(spv_reader *r, uint32_t id, int64_t *k, fmag_value **dyn)
{
    uint32_t n;
    *dyn = NULL;
    fmag_value **v = spv_get_value(r, id, &n);
    if (!v) return false;
    if (n != 1 || !spv_type_is_int(r, r->ids[id].type))
        return spv_error_op(r, "an index must be an integer scalar");
    if (spv_int_of(v[0], k)) return true;
    *dyn = spv_int(r, FMAG_IOP_SITOFP, v[0], NULL, NULL);
    return true;
}

static bool access_chain(spv_reader *r, const spv_inst *in)
{
    if (in->nw < 4) return spv_error_op(r, "truncated instruction");
    spv_ptr *base = get_ptr(r, in->w[3]);
    if (!base) return false;
    spv_ptr p = *base;
    for (uint32_t k = 4; k < in->nw; k++) {
        spv_type *t = spv_type_get(r, p.type);
        if (!t) return spv_error_op(r, "indexing into an undeclared type");
        int64_t idx;
        fmag_value *dyn;
        if (!index_of(r, in->w[k], &idx, &dyn)) return false;
        if (t->kind == TY_STRUCT) {
            if (dyn || idx < 0 || idx >= t->count)
                return spv_error_op(r, "struct member index out of range");
            p.off += t->offs[idx];
            p.type = t->members[idx];
            continue;
        }
        if (t->kind != TY_VECTOR && t->kind != TY_MATRIX && t->kind != TY_ARRAY)
            return spv_error_op(r, "indexing into a type that is not a composite");
        uint32_t stride = spv_type_leaves(r, t->elem);
        if (dyn) {
            if (p.dyn)
                return spv_error_op(r, "more than one index that is not a compile-time constant");
            p.dyn = dyn;
            p.stride = stride;
            p.count = t->count;
        } else {
            if (idx < 0 || idx >= t->count)
                return spv_error_op(r, "index %lld out of range (%u elements)", (long long)idx,
                                    (unsigned)t->count);
            p.off += (uint32_t)idx * stride;
        }
        p.type = t->elem;
    }
    spv_type *rt = spv_type_get(r, in->w[1]);
    if (!rt || rt->kind != TY_POINTER || spv_type_leaves(r, rt->elem) != spv_type_leaves(r, p.type))
        return spv_error_op(r, "the result type does not match the indexed type");
    *new_ptr(r, in->w[2]) = p;
    return true;
}

static void mark_use(spv_reader *r, spv_ptr *p, bool load, bool store)
{
    (void)r;
    p->var->loaded |= load;
    p->var->stored |= store;
}

/* Select chains cost elements x leaves instructions per access: a budget keeps a
 * small hostile module from asking for gigabytes of IR. */
static bool dyn_budget(spv_reader *r, const spv_ptr *p, uint32_t n)
{
    if (!p->dyn) return true;
    r->dyn_cost += (uint64_t)p->count * n;
    if (r->dyn_cost > (1u << 22))
        return spv_error_op(r, "too much indexing by values that are not compile-time "
                               "constants (each access selects among every element)");
    return true;
}

/* Whether types a and b have n leaves of the same IR types (a float where an integer
 * belongs is how a tampered module's load or store goes wrong). */
static bool same_leaf_types(spv_reader *r, uint32_t a, uint32_t b, uint32_t n)
{
    if (n != spv_type_leaves(r, b)) return false;
    for (uint32_t j = 0; j < n; j++)
        if (spv_leaf_type(r, a, j) != spv_leaf_type(r, b, j)) return false;
    return true;
}

static bool load(spv_reader *r, const spv_inst *in)
{
    if (in->nw < 4) return spv_error_op(r, "truncated instruction");
    spv_id *src = id_at(r, in->w[3]);
    spv_type *rt = spv_type_get(r, in->w[1]);
    if (rt && rt->kind == TY_OPAQUE && src && src->kind == ID_VAR) {
        /* A texture or sampler handle: no value; what uses it is the error, by name. */
        r->ids[in->w[2]].kind = ID_OTHER;
        return true;
    }
    spv_ptr *p = get_ptr(r, in->w[3]);
    if (!p) return false;
    uint32_t n;
    fmag_value **out = spv_new_value(r, in->w[2], in->w[1], &n);
    if (!out) return false;
    if (!same_leaf_types(r, in->w[1], p->type, n))
        return spv_error_op(r, "the result type differs from the pointee");
    if (p->var->global && p->var->storage == SpvStorageClassInput && is_builtin(r, p->var)) {
        char nb[64];
        return spv_error_op(r,
                            "reads the built-in %s: built-in inputs are not FMAG data (pass "
                            "the value as an input instead)",
                            spv_id_str(r, p->var->id, nb, sizeof nb));
    }
    if (!dyn_budget(r, p, n)) return false;
    mark_use(r, p, true, false);
    for (uint32_t j = 0; j < n; j++)
        out[j] = ptr_read(r, p, j);
    return true;
}

static bool store_values(spv_reader *r, spv_ptr *p, fmag_value **v, uint32_t n)
{
    char nb[64];
    if (p->var->readonly)
        return spv_error_op(r, "stores to the read-only variable %s",
                            spv_id_str(r, p->var->id, nb, sizeof nb));
    if (n != spv_type_leaves(r, p->type))
        return spv_error_op(r, "the value's type differs from the pointee");
    for (uint32_t j = 0; j < n; j++)
        if (v[j]->type != spv_leaf_type(r, p->type, j))
            return spv_error_op(r, "the value's type differs from the pointee");
    if (!dyn_budget(r, p, n)) return false;
    r->work += n;
    if (r->work > (1u << 24))
        return spv_error_op(r, "the module computes more than 2^24 scalar values: too large to "
                               "import");
    mark_use(r, p, false, true);
    for (uint32_t j = 0; j < n; j++)
        ptr_write(r, p, j, v[j]);
    return true;
}

bool spv_store_to(spv_reader *r, uint32_t ptr_id, fmag_value **v, uint32_t n)
{
    spv_ptr *p = get_ptr(r, ptr_id);
    return p && store_values(r, p, v, n);
}

static bool store(spv_reader *r, const spv_inst *in)
{
    if (in->nw < 3) return spv_error_op(r, "truncated instruction");
    spv_ptr *p = get_ptr(r, in->w[1]);
    if (!p) return false;
    uint32_t n;
    fmag_value **v = spv_get_value(r, in->w[2], &n);
    return v && store_values(r, p, v, n);
}

static bool copy_memory(spv_reader *r, const spv_inst *in)
{
    if (in->nw < 3) return spv_error_op(r, "truncated instruction");
    spv_ptr *dst = get_ptr(r, in->w[1]), *src = dst ? get_ptr(r, in->w[2]) : NULL;
    if (!src) return false;
    uint32_t n = spv_type_leaves(r, src->type);
    fmag_value **v = fmag_context_alloc(r->ctx, (n ? n : 1) * sizeof *v);
    if (!dyn_budget(r, src, n)) return false;
    mark_use(r, src, true, false);
    for (uint32_t j = 0; j < n; j++)
        v[j] = ptr_read(r, src, j);
    return store_values(r, dst, v, n);
}

static bool alloc_slots(spv_reader *r, spv_var *v)
{
    if ((uint64_t)r->nslots + v->nleaves > SPV_MAX_SLOTS)
        return spv_error_op(r, "the function's variables hold more than %u scalars", SPV_MAX_SLOTS);
    v->slot = r->nslots;
    r->nslots += v->nleaves;
    if (r->nslots > r->slot_cap) {
        uint32_t cap = r->slot_cap ? r->slot_cap : 64;
        while (cap < r->nslots)
            cap *= 2;
        fmag_type *t = fmag_context_alloc(r->ctx, cap * sizeof *t);
        if (r->slot_cap) memcpy(t, r->slot_types, r->slot_cap * sizeof *t);
        r->slot_types = t;
        r->slot_cap = cap;
    }
    for (uint32_t j = 0; j < v->nleaves; j++)
        r->slot_types[v->slot + j] = spv_var_leaf_type(r, v, j);
    return true;
}

static bool local_var(spv_reader *r, const spv_inst *in)
{
    if (in->nw < 4) return spv_error_op(r, "truncated instruction");
    spv_type *pt = spv_type_get(r, in->w[1]);
    if (!pt || pt->kind != TY_POINTER) return spv_error_op(r, "a variable of a non-pointer type");
    if (in->w[3] != SpvStorageClassFunction)
        return spv_error_op(r, "a variable inside a function must have Function storage");
    spv_type *t = spv_type_get(r, pt->elem);
    if (!t) return spv_error_op(r, "a variable of an undeclared type");
    if (t->bad) return spv_error_op(r, "a variable of %s", t->bad);
    spv_var *v = fmag_context_alloc(r->ctx, sizeof *v);
    v->id = in->w[2];
    v->type = pt->elem;
    v->storage = SpvStorageClassFunction;
    v->nleaves = t->nleaves;
    if (!alloc_slots(r, v)) return false;
    spv_ptr *p = new_ptr(r, v->id);
    p->var = v;
    p->type = v->type;
    if (in->nw > 4) {
        uint32_t n;
        fmag_value **init = spv_get_value(r, in->w[4], &n);
        if (!init) return false;
        if (n != v->nleaves) return spv_error_op(r, "the initializer's type differs");
        for (uint32_t j = 0; j < n; j++)
            ssa_write(r, r->b.block, v->slot + j, init[j]);
    }
    return true;
}

/* ------------------------------------------------------------------ calls */

/* The signature's types, in the order of the file comment: an integer leaf is an i32,
 * except in an interface variable (spv_var_leaf_type). */
void spv_func_set_types(spv_reader *r, spv_func *f)
{
    unsigned a = 0, o = 0;
    for (uint32_t j = 0; j < spv_type_leaves(r, f->ret); j++, o++)
        if (spv_leaf_type(r, f->ret, j) == FMAG_TYPE_I32)
            fmag_func_set_result_type(f->ir, o, FMAG_TYPE_I32);
    for (unsigned p = 0; p < f->nparams; p++) {
        spv_var *v = f->pvars[p];
        uint32_t type = v ? v->type : r->ids[f->params[p]].type;
        for (uint32_t j = 0; j < spv_type_leaves(r, type); j++) {
            fmag_type t = spv_leaf_type(r, type, j);
            f->ir->params[a++].type = t;
            if (v && t == FMAG_TYPE_I32) fmag_func_set_result_type(f->ir, o, t);
            o += v != NULL;
        }
    }
    for (unsigned g = 0; g < f->nglobals; g++) {
        spv_var *v = f->globals[g];
        for (uint32_t j = 0; j < v->nleaves; j++) {
            fmag_type t = spv_var_leaf_type(r, v, j);
            f->ir->params[a++].type = t;
            if (v->readonly) continue;
            if (t == FMAG_TYPE_I32) fmag_func_set_result_type(f->ir, o, t);
            o++;
        }
    }
}

static unsigned ret_leaves(spv_reader *r, spv_func *f)
{
    return spv_type_leaves(r, f->ret);
}

static bool call(spv_reader *r, const spv_inst *in)
{
    char nb[64];
    if (in->nw < 4) return spv_error_op(r, "truncated instruction");
    spv_id *cid = id_at(r, in->w[3]);
    if (!cid || cid->kind != ID_FUNC)
        return spv_error_op(r, "calls something that is not a function");
    spv_func *g = cid->fn;
    if (!g->ir)
        return spv_error_op(r, "calls %s, which has no body", spv_id_str(r, g->id, nb, sizeof nb));
    if (in->nw - 4 != g->nparams) return spv_error_op(r, "wrong number of arguments");
    fmag_value **args = fmag_context_alloc(r->ctx, (g->nin ? g->nin : 1) * sizeof *args);
    unsigned a = 0;
    spv_ptr **pargs = fmag_context_alloc(r->ctx, (g->nparams ? g->nparams : 1) * sizeof *pargs);
    for (unsigned k = 0; k < g->nparams; k++) {
        uint32_t arg = in->w[4 + k];
        uint32_t ptype = r->ids[g->params[k]].type;
        spv_type *pt = spv_type_get(r, ptype);
        if (pt && pt->kind == TY_POINTER) {
            spv_ptr *p = get_ptr(r, arg);
            if (!p) return false;
            uint32_t n = spv_type_leaves(r, p->type);
            if (n != g->pvars[k]->nleaves)
                return spv_error_op(r, "argument %u has the wrong type", k + 1);
            if (!dyn_budget(r, p, 2 * n)) return false;
            mark_use(r, p, true, true);
            pargs[k] = p;
            for (uint32_t j = 0; j < n; j++)
                args[a++] = ptr_read(r, p, j);
        } else {
            uint32_t n;
            fmag_value **v = spv_get_value(r, arg, &n);
            if (!v) return false;
            if (n != spv_type_leaves(r, ptype))
                return spv_error_op(r, "argument %u has the wrong type", k + 1);
            for (uint32_t j = 0; j < n; j++)
                args[a++] = v[j];
        }
    }
    for (unsigned k = 0; k < g->nglobals; k++) {
        spv_var *v = g->globals[k];
        for (uint32_t j = 0; j < v->nleaves; j++)
            args[a++] = read_slot(r, v, j);
    }
    if (a != g->nin) return spv_error_op(r, "internal: argument count mismatch");
    fmag_instr *c = fmag_build_call(&r->b, g->ir, args, a);
    unsigned res = 0;
    uint32_t nret = ret_leaves(r, g);
    if (nret) {
        uint32_t n;
        fmag_value **out = spv_new_value(r, in->w[2], in->w[1], &n);
        if (!out) return false;
        if (n != nret) return spv_error_op(r, "the result type differs from the callee's");
        for (uint32_t j = 0; j < n; j++)
            out[j] = &c->results[res++];
    }
    for (unsigned k = 0; k < g->nparams; k++) {
        if (!g->pvars[k]) continue;
        uint32_t n = g->pvars[k]->nleaves;
        if (pargs[k]->var->readonly) {
            res += n;
            continue;
        }
        for (uint32_t j = 0; j < n; j++)
            ptr_write(r, pargs[k], j, &c->results[res++]);
    }
    for (unsigned k = 0; k < g->nglobals; k++) {
        spv_var *v = g->globals[k];
        if (v->readonly) continue;
        for (uint32_t j = 0; j < v->nleaves; j++)
            ssa_write(r, r->b.block, v->slot + j, &c->results[res++]);
    }
    return true;
}

/* --------------------------------------------------------------- returns */

static bool build_return(spv_reader *r, spv_func *f, uint32_t value)
{
    fmag_value **vals = fmag_context_alloc(r->ctx, (f->nout ? f->nout : 1) * sizeof *vals);
    unsigned k = 0;
    uint32_t nret = ret_leaves(r, f);
    if (value) {
        uint32_t n;
        fmag_value **v = spv_get_value(r, value, &n);
        if (!v) return false;
        if (n != nret || r->ids[value].type != f->ret)
            return spv_error_op(r, "the value's type differs from the function's return type");
        for (uint32_t j = 0; j < n; j++)
            vals[k++] = v[j];
    } else if (nret) {
        return spv_error_op(r, "OpReturn in a function that returns a value");
    }
    for (unsigned p = 0; p < f->nparams; p++) {
        spv_var *v = f->pvars[p];
        if (!v) continue;
        for (uint32_t j = 0; j < v->nleaves; j++)
            vals[k++] = read_slot(r, v, j);
    }
    for (unsigned g = 0; g < f->nglobals; g++) {
        spv_var *v = f->globals[g];
        if (v->readonly) continue;
        for (uint32_t j = 0; j < v->nleaves; j++)
            vals[k++] = read_slot(r, v, j);
    }
    if (!k) vals[k++] = r->zero; /* an IR function has at least one result */
    if (k != f->nout) return spv_error_op(r, "internal: result count mismatch");
    fmag_build_ret(&r->b, vals, k);
    return true;
}

/* ------------------------------------------------------------ control flow */

static spv_block *target(spv_reader *r, spv_func *f, uint32_t label, uint32_t inst)
{
    spv_id *x = id_at(r, label);
    if (!x || x->kind != ID_LABEL || !x->blk || x->blk < f->blocks ||
        x->blk >= f->blocks + f->nblocks) {
        spv_error(r, inst, "branch target %u is not a block of this function", (unsigned)label);
        return NULL;
    }
    if (x->blk == f->blocks) {
        spv_error(r, inst, "a branch to the function's entry block");
        return NULL;
    }
    return x->blk;
}

/* Successor labels of a terminator (switch cases included). */
static unsigned succ_labels(spv_reader *r, const spv_inst *t, uint32_t *out, unsigned max)
{
    unsigned n = 0;
    (void)r;
    switch (t->op) {
    case SpvOpBranch:
        if (t->nw >= 2) out[n++] = t->w[1];
        break;
    case SpvOpBranchConditional:
        if (t->nw >= 4) {
            out[n++] = t->w[2];
            out[n++] = t->w[3];
        }
        break;
    case SpvOpSwitch:
        if (t->nw >= 3) out[n++] = t->w[2];
        for (uint32_t k = 4; k < t->nw && n < max; k += 2)
            out[n++] = t->w[k];
        break;
    default:
        break;
    }
    return n;
}

/* Marks reachable blocks (iteratively, from the entry block). */
static bool mark_reachable(spv_reader *r, spv_func *f)
{
    spv_block **stack = fmag_context_alloc(r->ctx, (f->nblocks + 1) * sizeof *stack);
    unsigned sp = 0;
    f->blocks[0].reachable = true;
    stack[sp++] = &f->blocks[0];
    while (sp) {
        spv_block *b = stack[--sp];
        const spv_inst *t = &r->insts[b->term];
        uint32_t *labels = fmag_context_alloc(r->ctx, (t->nw + 2) * sizeof(uint32_t));
        unsigned n = succ_labels(r, t, labels, t->nw + 2);
        for (unsigned k = 0; k < n; k++) {
            spv_block *s = target(r, f, labels[k], b->term);
            if (!s) return false;
            if (!s->reachable) {
                s->reachable = true;
                stack[sp++] = s;
            }
        }
    }
    return true;
}

/* The dominator tree of the reachable blocks, as DFS intervals so that a dominance
 * query is O(1). Uses of values are checked against it: SPIR-V that uses a value where
 * its definition does not dominate is malformed. The blocks have their edges by now
 * (make_edges, switch test blocks included) but not yet their terminators, so lib/IR's
 * tree (fmag_domtree, the one the verifier and the passes use) is built over the SSA
 * successor lists and its intervals copied to the SPIR-V blocks: dominance among the
 * blocks is the same in both graphs, since a switch's test blocks form a chain that
 * only the switch's block enters. Copied at once because the translation goes on to
 * change the function. */
static unsigned ssa_succs(void *user, const fmag_block *b, fmag_block *s[2])
{
    (void)user;
    const ssa_block *sb = b->aux;
    s[0] = sb->succs[0];
    s[1] = sb->succs[1];
    return sb->nsuccs;
}

static bool dominators(spv_func *f)
{
    fmag_domtree dt;
    if (!fmag_domtree_build_edges(f->ir, ssa_succs, NULL, &dt)) return false; /* out of memory */
    for (unsigned k = 0; k < f->nblocks; k++) {
        spv_block *b = &f->blocks[k];
        if (!b->reachable) continue;
        if (!fmag_domtree_reachable(&dt, b->ir)) {
            /* Reachable in SPIR-V, not over the edges make_edges made (the two walks
             * agree today; kept so a disagreement cannot read past the tree): dominated
             * by the entry (interval 0), dominating only itself and such blocks. */
            b->pre = b->post = 0;
            continue;
        }
        unsigned i = dt.rpo_index[b->ir->id];
        b->pre = dt.tin[i];
        b->post = dt.tout[i];
    }
    fmag_domtree_free(&dt);
    return true;
}

/* Creates the IR edges of block b's terminator (switch test blocks included),
 * before any code is translated, so that SSA construction knows every block's
 * predecessors. */
static bool make_edges(spv_reader *r, spv_func *f, spv_block *b)
{
    const spv_inst *t = &r->insts[b->term];
    if (t->op == SpvOpBranch) {
        spv_block *s = target(r, f, t->w[1], b->term);
        if (!s) return false;
        ssa_add_pred(r, s->ir->aux, b->ir);
    } else if (t->op == SpvOpBranchConditional) {
        if (t->nw < 4) return spv_error(r, b->term, "truncated OpBranchConditional");
        spv_block *s1 = target(r, f, t->w[2], b->term),
                  *s2 = s1 ? target(r, f, t->w[3], b->term) : NULL;
        if (!s2) return false;
        ssa_add_pred(r, s1->ir->aux, b->ir);
        if (s2 != s1) ssa_add_pred(r, s2->ir->aux, b->ir);
    } else if (t->op == SpvOpSwitch) {
        if (t->nw < 3) return spv_error(r, b->term, "truncated OpSwitch");
        spv_block *def = target(r, f, t->w[2], b->term);
        if (!def) return false;
        if ((t->nw - 3) % 2)
            return spv_error(r, b->term, "OpSwitch with a 64-bit selector is not supported");
        unsigned ncases = (t->nw - 3) / 2, nt = 0;
        b->tests = fmag_context_alloc(r->ctx, (ncases ? ncases : 1) * sizeof *b->tests);
        fmag_block *prev = b->ir, *after = b->ir;
        for (unsigned k = 0; k < ncases; k++) {
            spv_block *s = target(r, f, t->w[4 + 2 * k], b->term);
            if (!s) return false;
            if (s == def) continue;
            fmag_block *tb = fmag_block_create_after(f->ir, after, NULL);
            after = tb;
            ssa_block *sb = ssa_block_new(r, tb, b->label);
            ssa_add_pred(r, sb, prev);
            ssa_add_pred(r, s->ir->aux, tb);
            b->tests[nt++] = tb;
            prev = tb;
        }
        b->ntests = nt;
        ssa_add_pred(r, def->ir->aux, prev);
    }
    return true;
}

static bool terminator(spv_reader *r, spv_func *f, spv_block *b)
{
    const spv_inst *t = &r->insts[b->term];
    r->cur_inst = b->term;
    switch (t->op) {
    case SpvOpBranch:
        fmag_build_jmp(&r->b, r->ids[t->w[1]].blk->ir);
        ssa_filled(r, b->ir);
        return true;
    case SpvOpBranchConditional: {
        uint32_t n;
        fmag_value **c = spv_get_value(r, t->w[1], &n);
        if (!c) return false;
        if (n != 1 || !spv_type_is_bool(r, r->ids[t->w[1]].type))
            return spv_error_op(r, "the condition is not a bool");
        fmag_block *s1 = r->ids[t->w[2]].blk->ir, *s2 = r->ids[t->w[3]].blk->ir;
        if (s1 == s2)
            fmag_build_jmp(&r->b, s1);
        else
            fmag_build_br(&r->b, c[0], s1, s2);
        ssa_filled(r, b->ir);
        return true;
    }
    case SpvOpSwitch: {
        uint32_t n;
        fmag_value **sel = spv_get_value(r, t->w[1], &n);
        if (!sel) return false;
        if (n != 1 || !spv_type_is_int(r, r->ids[t->w[1]].type))
            return spv_error_op(r, "the selector is not an integer scalar");
        fmag_block *def = r->ids[t->w[2]].blk->ir;
        if (!b->ntests) {
            fmag_build_jmp(&r->b, def);
            ssa_filled(r, b->ir);
            return true;
        }
        fmag_build_jmp(&r->b, b->tests[0]);
        ssa_filled(r, b->ir);
        unsigned nt = 0;
        for (uint32_t k = 4; k < t->nw; k += 2) {
            fmag_block *s = r->ids[t->w[k]].blk->ir;
            if (s == def) continue;
            fmag_block *tb = b->tests[nt++];
            fmag_builder_at_end(&r->b, tb);
            fmag_value *g =
                spv_int(r, FMAG_IOP_EQ, sel[0], fmag_module_const_i32(r->m, t->w[k - 1]), NULL);
            fmag_build_br(&r->b, g, s, nt < b->ntests ? b->tests[nt] : def);
            ssa_filled(r, tb);
        }
        return true;
    }
    case SpvOpReturn:
        if (!build_return(r, f, 0)) return false;
        ssa_filled(r, b->ir);
        return true;
    case SpvOpReturnValue:
        if (t->nw < 2) return spv_error_op(r, "truncated instruction");
        if (!build_return(r, f, t->w[1])) return false;
        ssa_filled(r, b->ir);
        return true;
    case SpvOpKill:
    case SpvOpTerminateInvocation:
        return spv_error_op(r, "discarding a fragment is not supported: an FMAG program always "
                               "writes its outputs");
    case SpvOpUnreachable:
        return spv_error_op(r, "reached: the program would be undefined here");
    default:
        return spv_error_op(r, "is not a block terminator FMAG supports");
    }
}

/* OpPhi: one IR phi per leaf now; incoming values once every block exists. */
static bool phi_create(spv_reader *r, const spv_inst *in)
{
    uint32_t n;
    if (in->nw < 3 || (in->nw - 3) % 2) return spv_error_op(r, "malformed OpPhi");
    spv_type *t = spv_type_get(r, in->w[1]);
    if (t && t->kind == TY_POINTER) return spv_error_op(r, "a phi of pointers is not supported");
    fmag_value **out = spv_new_value(r, in->w[2], in->w[1], &n);
    if (!out) return false;
    for (uint32_t j = 0; j < n; j++)
        out[j] = fmag_instr_result(fmag_build_phi_typed(&r->b, spv_leaf_type(r, in->w[1], j)));
    return true;
}

static bool phi_fill(spv_reader *r, uint32_t i, fmag_block *blk)
{
    const spv_inst *in = &r->insts[i];
    r->cur_inst = i;
    ssa_block *sb = blk->aux;
    spv_id *res = &r->ids[in->w[2]];
    uint32_t n = spv_type_leaves(r, res->type);
    for (unsigned p = 0; p < sb->npreds; p++) {
        fmag_block *pred = sb->preds[p];
        uint32_t label = ((ssa_block *)pred->aux)->spv_label;
        uint32_t k;
        for (k = 3; k + 1 < in->nw; k += 2)
            if (in->w[k + 1] == label) break;
        if (k + 1 >= in->nw) return spv_error_op(r, "no incoming value for a predecessor");
        r->cur_blk = r->ids[label].blk; /* the value must dominate the predecessor */
        uint32_t nv;
        fmag_value **v = spv_get_value(r, in->w[k], &nv);
        if (!v) return false;
        if (nv != n) return spv_error_op(r, "an incoming value of the wrong type");
        for (uint32_t j = 0; j < n; j++)
            fmag_phi_add_incoming(res->val[j]->def, v[j], pred);
    }
    return true;
}

/* A malformed module can build a value whose leaves are not of its type (a float
 * constituent of an integer vector): a diagnostic here, not invalid IR later. */
static bool check_result(spv_reader *r, const spv_inst *in)
{
    if (in->nw < 3 || in->w[2] >= r->bound) return true;
    spv_id *x = &r->ids[in->w[2]];
    if (x->kind != ID_VALUE || x->type != in->w[1] || x->fn != r->fn || !x->val) return true;
    uint32_t n = spv_type_leaves(r, x->type);
    for (uint32_t j = 0; j < n; j++)
        if (x->val[j]->type != spv_leaf_type(r, x->type, j))
            return spv_error_op(r, "an operand's type differs from the result type");
    return true;
}

/* A module whose types were tampered with (an integer where OpFSub wants a float) reaches
 * the builder with operands of the wrong IR type: a diagnostic at the SPIR-V instruction,
 * not invalid IR. Checks the instructions built after `last` in blk. */
static bool check_operand_types(spv_reader *r, spv_func *f, fmag_block *blk, fmag_instr *last)
{
    if (!blk || blk != r->b.block) return true;
    for (fmag_instr *i = last ? last->next : blk->first; i; i = i->next)
        if (!fmag_instr_operand_types_ok(f->ir, i))
            return spv_error_op(r, "an operand of the wrong type (an integer where a float "
                                   "belongs, or the reverse)");
    return true;
}

static bool translate_one(spv_reader *r, const spv_inst *in)
{
    switch (in->op) {
    case SpvOpNop:
    case SpvOpLine:
    case SpvOpNoLine:
    case SpvOpSelectionMerge:
    case SpvOpLoopMerge:
        return true;
    case SpvOpVariable:
        return local_var(r, in);
    case SpvOpLoad:
        return load(r, in);
    case SpvOpStore:
        return store(r, in);
    case SpvOpCopyMemory:
        return copy_memory(r, in);
    case SpvOpAccessChain:
    case SpvOpInBoundsAccessChain:
        return access_chain(r, in);
    case SpvOpFunctionCall:
        return call(r, in);
    case SpvOpPhi:
        return phi_create(r, in);
    case SpvOpCopyObject: {
        spv_type *t = in->nw >= 4 ? spv_type_get(r, in->w[1]) : NULL;
        if (t && t->kind == TY_POINTER) {
            spv_ptr *p = get_ptr(r, in->w[3]);
            if (!p) return false;
            *new_ptr(r, in->w[2]) = *p;
            return true;
        }
        return spv_translate_op(r, in);
    }
    default:
        return spv_translate_op(r, in) && check_result(r, in);
    }
}

static bool translate_inst(spv_reader *r, spv_func *f, const spv_inst *in)
{
    fmag_block *blk = r->b.block;
    fmag_instr *last = blk ? blk->last : NULL;
    return translate_one(r, in) && check_operand_types(r, f, blk, last);
}

/* A loop header's IR block is named after its source line ("loop.line12"), so that
 * the IR passes' diagnostics (a trip count -loop-unroll cannot find) point at it. */
static const char *loop_name(spv_reader *r, const spv_block *b)
{
    for (uint32_t i = b->first; i < b->term; i++) {
        const spv_inst *in = &r->insts[i];
        if (in->op != SpvOpLoopMerge) continue;
        if (!in->file) return "loop";
        char buf[32];
        int n = snprintf(buf, sizeof buf, "loop.line%u", (unsigned)in->line);
        return fmag_context_strdup(r->ctx, buf, (size_t)n);
    }
    return NULL;
}

/* A loop header's source position (OpLine of its OpLoopMerge) and file on its IR block,
 * for -loop-unroll's diagnostics. Each OpString file is its own (a loop in a file
 * #include brought in names that file); its text is OpSource's (through slc, the
 * user's file and the included ones as read). */
static void loop_position(spv_reader *r, const spv_block *b, fmag_block *ir)
{
    for (uint32_t i = b->first; ir && i < b->term; i++) {
        const spv_inst *in = &r->insts[i];
        if (in->op != SpvOpLoopMerge || !in->file || in->file >= r->bound ||
            r->ids[in->file].kind != ID_STRING || !r->ids[in->file].text)
            continue;
        spv_id *file = &r->ids[in->file];
        if (!file->source) {
            fmag_source *s = fmag_context_alloc(r->ctx, sizeof *s);
            if (!s) return; /* the position is an aid: without memory, none */
            size_t skip = file->src ? spv_source_preamble(file->src, file->srclen) : 0;
            s->file = file->text;
            s->text = file->src ? file->src + skip : NULL;
            s->len = file->src ? file->srclen - skip : 0;
            file->source = s;
        }
        ir->src = file->source;
        ir->src_line = (unsigned)in->line;
        ir->src_col = (unsigned)in->col;
        return;
    }
}

bool spv_translate_func(spv_reader *r, spv_func *f)
{
    r->fn = f;
    r->nslots = 0;
    r->cur_inst = f->begin;
    if (!f->nblocks) return spv_error(r, f->begin, "the function has no body");
    /* Slots: pointer parameters, then the module variables it uses. */
    for (unsigned p = 0; p < f->nparams; p++)
        if (f->pvars[p] && !alloc_slots(r, f->pvars[p])) return false;
    for (unsigned g = 0; g < f->nglobals; g++)
        if (!alloc_slots(r, f->globals[g])) return false;
    if (!mark_reachable(r, f)) return false;
    for (unsigned k = 0; k < f->nblocks; k++) {
        spv_block *b = &f->blocks[k];
        if (!b->reachable) continue;
        b->ir = fmag_block_create(f->ir, loop_name(r, b));
        loop_position(r, b, b->ir);
        ssa_block_new(r, b->ir, b->label);
    }
    for (unsigned k = 0; k < f->nblocks; k++)
        if (f->blocks[k].reachable && !make_edges(r, f, &f->blocks[k])) return false;
    if (!dominators(f)) return spv_error(r, UINT32_MAX, "out of memory");
    fmag_block *entry = f->blocks[0].ir;
    ssa_seal(r, entry);
    /* The incoming values. */
    unsigned a = 0;
    for (unsigned p = 0; p < f->nparams; p++) {
        spv_id *pid = &r->ids[f->params[p]];
        if (f->pvars[p]) {
            for (uint32_t j = 0; j < f->pvars[p]->nleaves; j++)
                ssa_write(r, entry, f->pvars[p]->slot + j, &f->ir->params[a++]);
            continue;
        }
        uint32_t n = spv_type_leaves(r, pid->type);
        pid->kind = ID_VALUE;
        pid->fn = f;
        pid->val = fmag_context_alloc(r->ctx, (n ? n : 1) * sizeof(fmag_value *));
        for (uint32_t j = 0; j < n; j++)
            pid->val[j] = &f->ir->params[a++];
    }
    for (unsigned g = 0; g < f->nglobals; g++)
        for (uint32_t j = 0; j < f->globals[g]->nleaves; j++)
            ssa_write(r, entry, f->globals[g]->slot + j, &f->ir->params[a++]);
    /* The code. */
    for (unsigned k = 0; k < f->nblocks; k++) {
        spv_block *b = &f->blocks[k];
        if (!b->reachable) continue;
        fmag_builder_at_end(&r->b, b->ir);
        r->cur_blk = b;
        for (uint32_t i = b->first; i < b->term; i++) {
            r->cur_inst = i;
            if (!translate_inst(r, f, &r->insts[i])) return false;
        }
        if (!terminator(r, f, b)) return false;
    }
    for (unsigned k = 0; k < f->nblocks; k++) {
        spv_block *b = &f->blocks[k];
        if (!b->reachable) continue;
        for (uint32_t i = b->first; i < b->term; i++)
            if (r->insts[i].op == SpvOpPhi && !phi_fill(r, i, b->ir)) return false;
    }
    r->cur_blk = NULL;
    ssa_remove_trivial_phis(f->ir);
    f->translated = true;
    return true;
}
