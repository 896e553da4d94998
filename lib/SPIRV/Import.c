/* fmag_spirv_import: choose the entry, find the functions it reaches and the
 * module variables each one uses, give each an IR function, translate them, and
 * wrap the entry in the export function whose params and results are the
 * program's inputs and outputs (SPEC §5b, docs/SPIRV.md). */
#include <stdlib.h>
#include <string.h>
#include "Interface.h"
#include "SPIRVInternal.h"

static bool is_interface_storage(uint32_t s)
{
    return s == SpvStorageClassInput || s == SpvStorageClassOutput || s == SpvStorageClassPrivate ||
           s == SpvStorageClassUniform || s == SpvStorageClassUniformConstant ||
           s == SpvStorageClassPushConstant;
}

static bool is_uniform(uint32_t s)
{
    return s == SpvStorageClassUniform || s == SpvStorageClassUniformConstant ||
           s == SpvStorageClassPushConstant;
}

bool is_builtin(spv_reader *r, const spv_var *v)
{
    return r->ids[v->id].is_builtin || (v->type < r->bound && r->ids[v->type].is_builtin);
}

bool spv_is_storage_buffer(spv_reader *r, const spv_var *v)
{
    return v->storage == SpvStorageClassStorageBuffer ||
           (v->storage == SpvStorageClassUniform && v->type < r->bound &&
            r->ids[v->type].is_buffer_block);
}

/* A module variable a function may hold in SSA slots. */
static bool holdable(spv_reader *r, spv_var *v)
{
    spv_type *t = spv_type_get(r, v->type);
    return is_interface_storage(v->storage) && !spv_is_storage_buffer(r, v) && t && !t->bad &&
           t->nleaves;
}

/* ------------------------------------------------------- the call graph */

static bool scan(spv_reader *r, spv_func *f, unsigned depth)
{
    char nb[64];
    if (f->scanned) return true;
    if (f->visiting)
        return spv_error(r, f->begin, "function %s is recursive: FMAG programs have no call stack",
                         spv_id_str(r, f->id, nb, sizeof nb));
    /* The scan recurses; 1000 frames stay well inside a small thread stack. */
    if (depth > 1000)
        return spv_error(r, f->begin,
                         "calls nested more than 1000 deep (a chain of functions each calling "
                         "the next): FMAG reads at most 1000 levels");
    f->visiting = true;
    f->reached = true;
    if (!f->nblocks)
        return spv_error(r, f->begin, "function %s has no body (an import)",
                         spv_id_str(r, f->id, nb, sizeof nb));
    bool *used = fmag_tmp_calloc(r->ngvars ? r->ngvars : 1, 1);
    if (!used) return spv_error(r, f->begin, "out of memory");
    bool ok = true;
    for (uint32_t i = f->begin + 1; i < f->end && ok; i++) {
        const spv_inst *in = &r->insts[i];
        if (in->op == SpvOpFunctionCall && in->nw >= 4) {
            uint32_t c = in->w[3];
            if (c >= r->bound || r->ids[c].kind != ID_FUNC) {
                ok = spv_error(r, i, "OpFunctionCall: %s is not a function",
                               spv_id_str(r, c, nb, sizeof nb));
                break;
            }
            spv_func *g = r->ids[c].fn;
            ok = scan(r, g, depth + 1);
            for (unsigned k = 0; ok && k < g->nglobals; k++)
                used[g->globals[k]->index] = true;
            continue;
        }
        /* Every word that names a module variable (an over-approximation: a
         * literal equal to one only passes one more value through). */
        for (uint32_t k = 1; k < in->nw; k++) {
            uint32_t w = in->w[k];
            if (w < r->bound && r->ids[w].kind == ID_VAR && r->ids[w].ptr && r->ids[w].ptr->var &&
                r->ids[w].ptr->var->global && holdable(r, r->ids[w].ptr->var))
                used[r->ids[w].ptr->var->index] = true;
        }
    }
    if (ok) {
        unsigned n = 0;
        for (unsigned k = 0; k < r->ngvars; k++)
            n += used[k];
        f->globals = fmag_context_alloc(r->ctx, (n ? n : 1) * sizeof(spv_var *));
        for (unsigned k = 0; k < r->ngvars; k++)
            if (used[k]) f->globals[f->nglobals++] = r->gvars[k];
    }
    fmag_tmp_free(used);
    if (!ok) return false;
    /* The signature. */
    f->pvars = fmag_context_alloc(r->ctx, (f->nparams ? f->nparams : 1) * sizeof(spv_var *));
    uint64_t nin = 0, nout = spv_type_leaves(r, f->ret);
    spv_type *rt = spv_type_get(r, f->ret);
    if (!rt || (rt->kind != TY_VOID && (rt->bad || !rt->nleaves)))
        return spv_error(r, f->begin, "the result of function %s: %s",
                         spv_id_str(r, f->id, nb, sizeof nb),
                         rt && rt->bad ? rt->bad : "a type FMAG cannot hold");
    for (unsigned p = 0; p < f->nparams; p++) {
        spv_id *pid = &r->ids[f->params[p]];
        spv_type *pt = spv_type_get(r, pid->type);
        uint32_t vt = pt && pt->kind == TY_POINTER ? pt->elem : pid->type;
        spv_type *t = spv_type_get(r, vt);
        if (!t || t->bad || !t->nleaves)
            return spv_error(r, f->begin, "parameter %s of %s: %s",
                             spv_id_str(r, f->params[p], nb, sizeof nb),
                             r->ids[f->id].name ? r->ids[f->id].name : "a function",
                             t && t->bad ? t->bad : "a type FMAG cannot hold");
        nin += t->nleaves;
        if (pt->kind == TY_POINTER) {
            spv_var *v = fmag_context_alloc(r->ctx, sizeof *v);
            v->id = f->params[p];
            v->type = vt;
            v->storage = pt->storage;
            v->nleaves = t->nleaves;
            v->slot = UINT32_MAX;
            f->pvars[p] = v;
            pid->ptr = fmag_context_alloc(r->ctx, sizeof(spv_ptr));
            pid->ptr->var = v;
            pid->ptr->type = vt;
            pid->fn = f;
            nout += t->nleaves;
        }
    }
    for (unsigned g = 0; g < f->nglobals; g++) {
        nin += f->globals[g]->nleaves;
        if (!f->globals[g]->readonly) nout += f->globals[g]->nleaves;
    }
    if (nin > 60000 || nout > 60000)
        return spv_error(r, f->begin, "function %s passes too many values",
                         spv_id_str(r, f->id, nb, sizeof nb));
    f->nin = (unsigned)nin;
    f->nout = nout ? (unsigned)nout : 1;
    f->visiting = false;
    f->scanned = true;
    return true;
}

/* ------------------------------------------------------------- naming */

static const char *ir_name(spv_reader *r, const char *base, uint32_t id)
{
    char buf[128];
    size_t n = 0;
    if (base)
        for (const char *s = base; *s && *s != '(' && n < 100; s++) {
            char c = *s;
            bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '.';
            buf[n++] = ok ? c : '_';
        }
    if (!n) n = (size_t)snprintf(buf, sizeof buf, "f%u", (unsigned)id);
    buf[n] = 0;
    if (fmag_module_get_func(r->m, buf)) {
        snprintf(buf + n, sizeof buf - n, ".%u", (unsigned)id);
        n = strlen(buf);
    }
    return fmag_context_strdup(r->ctx, buf, n);
}

/* ----------------------------------------------------------- the entry */

typedef struct entry_choice {
    spv_func *fn;
    bool is_entry_point; /* Input/Output interface, not parameters */
    const char *name;
} entry_choice;

static bool name_matches(const char *name, const char *want)
{
    size_t n = strlen(want);
    return name && !strncmp(name, want, n) && (name[n] == 0 || name[n] == '(');
}

static bool choose_entry(spv_reader *r, entry_choice *e)
{
    const char *want = r->opts->entry;
    uint32_t found = 0, count = 0, only = 0;
    const char *only_name = NULL;
    for (uint32_t i = 0; i < r->ninsts; i++) {
        const spv_inst *in = &r->insts[i];
        if (in->op != SpvOpEntryPoint || in->nw < 4) continue;
        const char *s = (const char *)(in->w + 3);
        size_t maxlen = (size_t)(in->nw - 3) * 4;
        size_t len = strnlen(s, maxlen);
        if (len == maxlen) return spv_error(r, i, "OpEntryPoint: unterminated name");
        count++;
        only = in->w[2];
        only_name = fmag_context_strdup(r->ctx, s, len);
        if (!strcmp(only_name, want ? want : "main") && !found) {
            found = in->w[2];
            e->name = only_name;
        }
    }
    if (!found && !want && count == 1) {
        found = only;
        e->name = only_name;
    }
    if (found) {
        if (found >= r->bound || r->ids[found].kind != ID_FUNC)
            return spv_error(r, UINT32_MAX, "OpEntryPoint names something that is not a function");
        e->fn = r->ids[found].fn;
        e->is_entry_point = true;
        return true;
    }
    if (!want)
        return spv_error(r, UINT32_MAX,
                         count ? "no entry point named 'main' (pick one with -entry)"
                               : "the module has no entry point (pick a function "
                                 "with -entry)");
    for (unsigned k = 0; k < r->nfuncs; k++) {
        if (name_matches(r->ids[r->funcs[k].id].name, want)) {
            e->fn = &r->funcs[k];
            e->name = want;
            return true;
        }
    }
    return spv_error(r, UINT32_MAX,
                     "no function named '%s' in the module (is it named: "
                     "compiled with debug names?)",
                     want);
}

/* ------------------------------------------------------------ the wrapper */

/* Leaves of a module variable's starting value: its initializer, or zeros. */
static void initial(spv_reader *r, spv_var *v, fmag_value **out)
{
    for (uint32_t j = 0; j < v->nleaves; j++) {
        fmag_type t = spv_var_leaf_type(r, v, j);
        fmag_value *c = v->init ? r->ids[v->init].val[j] : spv_zero(r, t);
        if (c->type != t) { /* an integer Output's initializer, held as its float */
            spv_type *s = spv_leaf_scalar(r, v->type, j);
            c = spv_int_fold(r, s && s->is_signed ? FMAG_IOP_SITOFP : FMAG_IOP_UITOFP, c, NULL,
                             NULL);
        }
        out[j] = c;
    }
}

static int global_pos(spv_func *f, spv_var *v)
{
    for (unsigned k = 0; k < f->nglobals; k++)
        if (f->globals[k] == v) return (int)k;
    return -1;
}

/* The leaves offset of global k among f's IR params and among its results. */
static void global_offsets(spv_reader *r, spv_func *f, unsigned *in_off, unsigned *out_off)
{
    unsigned a = 0, o = spv_type_leaves(r, f->ret);
    for (unsigned p = 0; p < f->nparams; p++) {
        spv_id *pid = &r->ids[f->params[p]];
        if (f->pvars[p]) {
            a += f->pvars[p]->nleaves;
            o += f->pvars[p]->nleaves;
        } else {
            a += spv_type_leaves(r, pid->type);
        }
    }
    for (unsigned k = 0; k < f->nglobals; k++) {
        in_off[k] = a;
        out_off[k] = o;
        a += f->globals[k]->nleaves;
        if (!f->globals[k]->readonly) o += f->globals[k]->nleaves;
    }
}

/* The export function: an entry block that calls f with the program's inputs
 * and returns the program's outputs. */
static fmag_func *new_wrapper(spv_reader *r, entry_choice *e, uint64_t nin, uint64_t nout)
{
    if (nin > 60000 || nout > 60000) {
        spv_error(r, UINT32_MAX, "too many inputs or outputs");
        return NULL;
    }
    fmag_func *w = fmag_func_create(r->m, e->name, (unsigned)nin, (unsigned)nout, true);
    fmag_builder_at_end(&r->b, fmag_block_create(w, "entry"));
    return w;
}

/* An interface item for module variable v: its Location orders the Input and Output
 * variables (declaration order when glslang assigned them), then those without one;
 * the uniforms come after the Inputs, in module order (group 1, no location). */
static fmag_iface_item var_item(spv_reader *r, const spv_var *v)
{
    const spv_id *id = &r->ids[v->id];
    bool uniform = is_uniform(v->storage);
    fmag_iface_item it = {
        .role = FMAG_IFACE_GLOBAL,
        .dir = v->storage == SpvStorageClassOutput ? FMAG_SPIRV_PARAM_OUT : FMAG_SPIRV_PARAM_IN,
        .nscalars = v->nleaves,
        .group = uniform,
        .has_location = !uniform && id->has_location,
        .location = id->location,
        .component = id->component,
    };
    return it;
}

/* With a declared interface (fmag_spirv_options::declared_interface): one item per
 * location, inputs first (items[0 .. nin-1], then the outputs), which the variables
 * that survived take (item[v->index]); the locations left are placeholders. */
static bool declared_items(spv_reader *r, fmag_iface_item *items, fmag_iface_item **item)
{
    unsigned nin = r->opts->declared_inputs, nout = r->opts->declared_outputs;
    char nb[64];
    bool *taken = fmag_context_alloc(r->ctx, (size_t)nin + nout + 1);
    for (unsigned k = 0; k < nin + nout; k++) {
        fmag_iface_item it = {
            .role = FMAG_IFACE_GLOBAL,
            .dir = k < nin ? FMAG_SPIRV_PARAM_IN : FMAG_SPIRV_PARAM_OUT,
            .nscalars = 1,
            .has_location = true,
            .location = k < nin ? k : k - nin,
        };
        items[k] = it;
    }
    for (unsigned k = 0; k < r->ngvars; k++) {
        spv_var *v = r->gvars[k];
        const spv_id *id = &r->ids[v->id];
        bool input = v->storage == SpvStorageClassInput;
        if (is_builtin(r, v) || (!input && v->storage != SpvStorageClassOutput)) continue;
        unsigned limit = input ? nin : nout;
        fmag_iface_item *it = id->has_location && id->location < limit
                                  ? &items[(input ? 0 : nin) + id->location]
                                  : NULL;
        if (!it || taken[it - items] || v->nleaves != 1)
            return spv_error(r, UINT32_MAX,
                             "%s variable %s is not one of the %u float locations the "
                             "producer declared (declared_interface)",
                             input ? "Input" : "Output", spv_id_str(r, v->id, nb, sizeof nb),
                             limit);
        item[v->index] = it;
        taken[it - items] = true;
    }
    return true;
}

static bool wrap_entry_point(spv_reader *r, entry_choice *e)
{
    spv_func *f = e->fn;
    char nb[64];
    if (f->nparams) return spv_error(r, f->begin, "the entry point function has parameters");
    bool declared = r->opts->declared_interface;
    if (declared && (r->opts->declared_inputs > 60000 || r->opts->declared_outputs > 60000))
        return spv_error(r, UINT32_MAX, "too many inputs or outputs"); /* new_wrapper's bound */
    size_t nplaces = declared ? (size_t)r->opts->declared_inputs + r->opts->declared_outputs : 0;
    /* item[k]: module variable k's place in the interface, or NULL (not part of it). */
    fmag_iface_item *items = fmag_context_alloc(r->ctx, (nplaces + r->ngvars + 1) * sizeof *items);
    fmag_iface_item **item = fmag_context_alloc(r->ctx, (r->ngvars + 1) * sizeof *item);
    size_t nitems = nplaces;
    if (declared && !declared_items(r, items, item)) return false;
    for (unsigned k = 0; k < r->ngvars; k++) {
        spv_var *v = r->gvars[k];
        spv_type *t = spv_type_get(r, v->type);
        bool opaque = !t || t->kind == TY_OPAQUE || (t->bad && !t->nleaves);
        if (is_builtin(r, v)) continue; /* gl_FragCoord, gl_Position: no FMAG data */
        if (v->storage == SpvStorageClassInput || v->storage == SpvStorageClassOutput) {
            if (!t || t->bad)
                return spv_error(r, UINT32_MAX, "interface variable %s is %s",
                                 spv_id_str(r, v->id, nb, sizeof nb),
                                 t && t->bad ? t->bad : "untyped");
            if (declared) continue; /* placed by declared_items */
        } else if (is_uniform(v->storage) && !opaque) {
            if (t->bad)
                return spv_error(r, UINT32_MAX, "uniform %s is %s",
                                 spv_id_str(r, v->id, nb, sizeof nb), t->bad);
        } else {
            continue;
        }
        items[nitems] = var_item(r, v);
        item[v->index] = &items[nitems++];
    }
    uint64_t nin = 0, nout = 0;
    if (!fmag_iface_layout(items, nitems, &nin, &nout))
        return spv_error(r, UINT32_MAX, "out of memory");
    if (!nout)
        return spv_error(r, UINT32_MAX,
                         "the entry point has no Output variables: the program "
                         "would compute nothing");
    fmag_func *w = new_wrapper(r, e, nin, nout);
    if (!w) return false;
    fmag_value **args = fmag_context_alloc(r->ctx, (f->nin + 1) * sizeof *args);
    unsigned a = 0;
    for (unsigned g = 0; g < f->nglobals; g++) {
        spv_var *v = f->globals[g];
        const fmag_iface_item *it = item[v->index];
        if (it && it->in_at != FMAG_IFACE_NONE) {
            for (uint32_t j = 0; j < v->nleaves; j++)
                args[a++] = &w->params[it->in_at + j];
        } else if (v->storage == SpvStorageClassInput || is_uniform(v->storage)) {
            for (uint32_t j = 0; j < v->nleaves; j++) /* a built-in: no FMAG data */
                args[a++] = r->zero;
        } else {
            initial(r, v, args + a);
            a += v->nleaves;
        }
    }
    fmag_instr *c = fmag_build_call(&r->b, f->ir, args, a);
    unsigned *in_off = fmag_context_alloc(r->ctx, (f->nglobals + 1) * sizeof *in_off);
    unsigned *out_off = fmag_context_alloc(r->ctx, (f->nglobals + 1) * sizeof *out_off);
    global_offsets(r, f, in_off, out_off);
    fmag_value **rets = fmag_context_alloc(r->ctx, (nout + 1) * sizeof *rets);
    for (uint64_t k = 0; k < nout; k++)
        rets[k] = r->zero; /* a declared output without a variable: never written */
    for (unsigned k = 0; k < r->ngvars; k++) {
        spv_var *v = r->gvars[k];
        const fmag_iface_item *it = item[v->index];
        if (!it || it->out_at == FMAG_IFACE_NONE) continue;
        int gp = global_pos(f, v);
        if (gp < 0) { /* an Output the entry never touches: its initial value */
            initial(r, v, rets + it->out_at);
            continue;
        }
        for (uint32_t j = 0; j < v->nleaves; j++)
            rets[it->out_at + j] = &c->results[out_off[gp] + j];
    }
    fmag_build_ret(&r->b, rets, (unsigned)nout);
    return true;
}

/* Whether value v (a pointer parameter's incoming leaf) is read: used by
 * anything but the return of the parameter's own leaves [lo, hi), directly or
 * through phis. */
static bool really_read(fmag_value *v, unsigned lo, unsigned hi, fmag_instr **seen, unsigned *nseen,
                        unsigned cap)
{
    fmag_foreach_use (u, v) {
        fmag_instr *i = u->user;
        if (i->op == FMAG_OP_RET) {
            if (u->index < lo || u->index >= hi) return true;
            continue;
        }
        if (i->op != FMAG_OP_PHI) return true;
        bool dup = false;
        for (unsigned k = 0; k < *nseen && !dup; k++)
            dup = seen[k] == i;
        if (dup) continue;
        if (*nseen == cap) return true; /* give up: count it as read */
        seen[(*nseen)++] = i;
        if (really_read(fmag_instr_result(i), lo, hi, seen, nseen, cap)) return true;
    }
    return false;
}

/* in/out of the entry function's pointer parameters: the front end's word when
 * it gives one; otherwise a parameter the body writes before it ever reads it is
 * `out`, every other one `in` (a modified `in` parameter and an `inout` one look
 * the same in SPIR-V, and the first is far more common: docs/SPIRV.md). */
static void param_quals(spv_reader *r, spv_func *f, fmag_spirv_param_qual *q)
{
    fmag_instr *seen[256];
    unsigned a = 0, o = spv_type_leaves(r, f->ret);
    for (unsigned p = 0; p < f->nparams; p++) {
        spv_var *v = f->pvars[p];
        uint32_t n = v ? v->nleaves : spv_type_leaves(r, r->ids[f->params[p]].type);
        q[p] = FMAG_SPIRV_PARAM_IN;
        if (v) {
            if (r->opts->param_quals && p < r->opts->nparam_quals &&
                r->opts->param_quals[p] != FMAG_SPIRV_PARAM_AUTO) {
                q[p] = r->opts->param_quals[p];
            } else if (v->stored) {
                bool read = false;
                for (uint32_t j = 0; j < n && !read; j++) {
                    unsigned nseen = 0;
                    read = really_read(&f->ir->params[a + j], o, o + n, seen, &nseen, 256);
                }
                if (!read) q[p] = FMAG_SPIRV_PARAM_OUT;
            }
            o += n;
        }
        a += n;
    }
}

/* The interface of a function entry: its result, its parameters (the pointer ones
 * with qualifiers q) and, with globals_as_inputs, the Input and uniform variables it
 * reads, as items[0 .. 1 + nparams + nglobals - 1] (a global that is not an input:
 * a zero-sized item). */
static bool function_items(spv_reader *r, spv_func *f, const fmag_spirv_param_qual *q,
                           fmag_iface_item *items)
{
    char nb[64];
    memset(items, 0, (1 + f->nparams + f->nglobals) * sizeof *items);
    items[0].role = FMAG_IFACE_RESULT;
    items[0].dir = FMAG_SPIRV_PARAM_OUT;
    items[0].nscalars = spv_type_leaves(r, f->ret);
    for (unsigned p = 0; p < f->nparams; p++) {
        spv_id *pid = &r->ids[f->params[p]];
        spv_type *t = spv_type_get(r, f->pvars[p] ? f->pvars[p]->type : pid->type);
        if (t && t->has_int)
            return spv_error(r, f->begin,
                             "parameter %s of the entry function holds integers: an "
                             "FMAG program's inputs and outputs are floats",
                             spv_id_str(r, f->params[p], nb, sizeof nb));
        fmag_iface_item *it = &items[1 + p];
        it->role = FMAG_IFACE_PARAM;
        it->dir = q[p];
        it->nscalars = t ? t->nleaves : 0;
    }
    spv_type *rt = spv_type_get(r, f->ret);
    if (rt && rt->has_int)
        return spv_error(r, f->begin,
                         "the entry function returns integers: an FMAG program's "
                         "outputs are floats");
    for (unsigned g = 0; g < f->nglobals; g++) {
        spv_var *v = f->globals[g];
        fmag_iface_item *it = &items[1 + f->nparams + g];
        it->role = FMAG_IFACE_GLOBAL;
        it->dir = FMAG_SPIRV_PARAM_IN;
        if (v->storage != SpvStorageClassInput && !is_uniform(v->storage)) continue;
        if (is_builtin(r, v)) continue; /* reading one is an error already */
        if (!r->opts->globals_as_inputs)
            return spv_error(r, f->begin,
                             "the entry function reads the %s variable %s, but its "
                             "inputs are its parameters",
                             v->storage == SpvStorageClassInput ? "Input" : "uniform",
                             spv_id_str(r, v->id, nb, sizeof nb));
        it->nscalars = v->nleaves;
    }
    return true;
}

static bool wrap_function(spv_reader *r, entry_choice *e)
{
    spv_func *f = e->fn;
    char nb[64];
    fmag_spirv_param_qual *q = fmag_context_alloc(r->ctx, (f->nparams + 1) * sizeof *q);
    param_quals(r, f, q);
    fmag_iface_item *items =
        fmag_context_alloc(r->ctx, (1 + f->nparams + f->nglobals) * sizeof *items);
    uint64_t nin = 0, nout = 0;
    if (!function_items(r, f, q, items)) return false;
    if (!fmag_iface_layout(items, 1 + f->nparams + f->nglobals, &nin, &nout))
        return spv_error(r, f->begin, "out of memory");
    const fmag_iface_item *params = items + 1, *globals = items + 1 + f->nparams;
    /* A Private variable without an initializer gets its value from code: glslang
     * puts global initializers at the top of the entry point, which -entry does not
     * run. Reading it before writing it would read 0: an error instead. */
    unsigned *in_off = fmag_context_alloc(r->ctx, (f->nglobals + 1) * sizeof *in_off);
    unsigned *out_off = fmag_context_alloc(r->ctx, (f->nglobals + 1) * sizeof *out_off);
    global_offsets(r, f, in_off, out_off);
    for (unsigned g = 0; g < f->nglobals; g++) {
        spv_var *v = f->globals[g];
        if (v->storage != SpvStorageClassPrivate || v->init) continue;
        fmag_instr *seen[256];
        for (uint32_t j = 0; j < v->nleaves; j++) {
            unsigned nseen = 0;
            if (really_read(&f->ir->params[in_off[g] + j], out_off[g], out_off[g] + v->nleaves,
                            seen, &nseen, 256))
                return spv_error(r, f->begin,
                                 "the entry function reads the global %s, whose "
                                 "value is set by code in the entry point (glslang "
                                 "puts global initializers there), which -entry "
                                 "does not run; make it const",
                                 spv_id_str(r, v->id, nb, sizeof nb));
        }
    }
    if (!nout)
        return spv_error(r, f->begin,
                         "function %s has no result and no out parameter: the "
                         "program would compute nothing",
                         spv_id_str(r, f->id, nb, sizeof nb));
    fmag_func *w = new_wrapper(r, e, nin, nout);
    if (!w) return false;
    fmag_value **args = fmag_context_alloc(r->ctx, (f->nin + 1) * sizeof *args);
    unsigned a = 0;
    for (unsigned p = 0; p < f->nparams; p++) {
        for (uint32_t j = 0; j < params[p].nscalars; j++)
            args[a++] = q[p] == FMAG_SPIRV_PARAM_OUT ? r->zero : &w->params[params[p].in_at + j];
    }
    for (unsigned g = 0; g < f->nglobals; g++) {
        spv_var *v = f->globals[g];
        if (globals[g].nscalars) {
            for (uint32_t j = 0; j < v->nleaves; j++)
                args[a++] = &w->params[globals[g].in_at + j];
        } else if (v->storage == SpvStorageClassInput || is_uniform(v->storage)) {
            for (uint32_t j = 0; j < v->nleaves; j++)
                args[a++] = r->zero;
        } else {
            initial(r, v, args + a);
            a += v->nleaves;
        }
    }
    fmag_instr *c = fmag_build_call(&r->b, f->ir, args, a);
    fmag_value **rets = fmag_context_alloc(r->ctx, (nout + 1) * sizeof *rets);
    unsigned res = 0;
    for (uint32_t j = 0; j < items[0].nscalars; j++)
        rets[items[0].out_at + j] = &c->results[res++];
    for (unsigned p = 0; p < f->nparams; p++) {
        if (!f->pvars[p]) continue;
        for (uint32_t j = 0; j < f->pvars[p]->nleaves; j++, res++)
            if (q[p] != FMAG_SPIRV_PARAM_IN) rets[params[p].out_at + j] = &c->results[res];
    }
    fmag_build_ret(&r->b, rets, (unsigned)nout);
    return true;
}

/* --------------------------------------------------------------- import */

static uint32_t bswap32(uint32_t x)
{
    return (x >> 24) | ((x >> 8) & 0xFF00u) | ((x << 8) & 0xFF0000u) | (x << 24);
}

static fmag_module *import_unguarded(fmag_context *ctx, const uint32_t *words, size_t nwords,
                                     const fmag_spirv_options *opts, spv_source source)
{
    static const fmag_spirv_options defaults;
    spv_reader rd;
    spv_reader *r = &rd;
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->source = source;
    r->opts = opts ? opts : &defaults;
    r->filename = r->opts->filename ? r->opts->filename : "<spirv>";
    r->cur_inst = UINT32_MAX;
    if (nwords && words && words[0] == bswap32(SpvMagicNumber)) {
        uint32_t *copy = fmag_context_alloc(ctx, nwords * sizeof *copy);
        for (size_t i = 0; i < nwords; i++)
            copy[i] = bswap32(words[i]);
        words = copy;
    }
    r->words = words;
    r->nwords = words ? nwords : 0;
    r->m = fmag_module_create(ctx);
    r->m->fastmath = r->opts->fastmath;
    r->fast = r->opts->fastmath;
    r->m->math_calls = spv_uses_derivatives(r->words, r->nwords);
    r->zero = fmag_module_const(r->m, 0.0f);
    r->one = fmag_module_const(r->m, 1.0f);
    if (!spv_parse(r)) return NULL;
    entry_choice e;
    memset(&e, 0, sizeof e);
    if (!choose_entry(r, &e)) return NULL;
    e.name = ir_name(r, e.name, 0);
    if (!scan(r, e.fn, 0)) return NULL;
    /* IR functions for everything reached; the export wrapper takes e.name. */
    for (unsigned k = 0; k < r->nfuncs; k++) {
        spv_func *f = &r->funcs[k];
        if (!f->reached) continue;
        const char *name = ir_name(r, r->ids[f->id].name, f->id);
        if (!strcmp(name, e.name)) {
            char buf[160];
            snprintf(buf, sizeof buf, "%s.impl", e.name);
            name = ir_name(r, buf, f->id);
        }
        f->ir = fmag_func_create(r->m, name, f->nin, f->nout, false);
        spv_func_set_types(r, f);
    }
    for (unsigned k = 0; k < r->nfuncs; k++)
        if (r->funcs[k].reached && !spv_translate_func(r, &r->funcs[k])) return NULL;
    r->fn = NULL;
    r->cur_inst = UINT32_MAX;
    /* The blocks' aux held the SSA construction's state (SSA.c); the module goes out
     * with every aux clear, as IR.h asks of whoever sets one. */
    fmag_foreach_func (f, r->m)
        fmag_func_clear_aux(f);
    if (!(e.is_entry_point ? wrap_entry_point(r, &e) : wrap_function(r, &e))) return NULL;
    if (!fmag_verify_module(r->m)) {
        fmag_context_report(ctx, FMAG_DIAG_ERROR, r->filename, 0, 0,
                            "internal: the SPIR-V reader built invalid IR "
                            "(please report)");
        return NULL;
    }
    return r->m;
}

/* The guarded entry point: an allocation failure inside ends in NULL with a
 * diagnostic (fmag_context_guard). */
struct fmag_spirv_import_args {
    fmag_context *ctx;
    const uint32_t *words;
    size_t nwords;
    const fmag_spirv_options *opts;
    spv_source source;
    fmag_module *result;
};

static void fmag_spirv_import_thunk(void *arg)
{
    struct fmag_spirv_import_args *a = arg;
    a->result = import_unguarded(a->ctx, a->words, a->nwords, a->opts, a->source);
}

fmag_module *fmag_spirv_import(fmag_context *ctx, const uint32_t *words, size_t nwords,
                               const fmag_spirv_options *opts)
{
    fmag_spirv_origin o = opts ? opts->origin : FMAG_SPIRV_ORIGIN_SPIRV;
    spv_source source = o == FMAG_SPIRV_ORIGIN_GLSL   ? SPV_SOURCE_GLSL
                        : o == FMAG_SPIRV_ORIGIN_HLSL ? SPV_SOURCE_HLSL
                                                      : SPV_SOURCE_SPIRV;
    struct fmag_spirv_import_args a = {ctx, words, nwords, opts, source, NULL};
    return fmag_context_guard(ctx, fmag_spirv_import_thunk, &a) ? a.result : NULL;
}
