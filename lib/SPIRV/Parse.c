/* Reading the SPIR-V binary: the header, the instruction stream, result ids,
 * names, decorations, debug lines, types, module-level constants and variables,
 * and the function/block structure. Everything is checked against the word
 * count before it is read. */
#define SPV_ENABLE_UTILITY_CODE
#include <math.h>
#include <string.h>
#include "SPIRVInternal.h"
#include "fmag/Bits.h"

/* The headers define this one as a C99 inline function; this declaration makes
 * the definition external here (and only here). */
extern void SpvHasResultAndType(SpvOp opcode, bool *hasResult, bool *hasResultType);

static void *alloc(spv_reader *r, size_t n)
{
    return fmag_context_alloc(r->ctx, n ? n : 1);
}

/* A literal string starting at word k of in: NUL-terminated inside the
 * instruction, or NULL. *next = the word after it. */
static const char *lit_string(spv_reader *r, const spv_inst *in, uint32_t k, uint32_t *next)
{
    if (k >= in->nw) return NULL;
    const char *s = (const char *)(in->w + k);
    size_t maxlen = (size_t)(in->nw - k) * 4;
    size_t n = strnlen(s, maxlen);
    if (n == maxlen) return NULL;
    if (next) *next = k + (uint32_t)(n / 4) + 1;
    return fmag_context_strdup(r->ctx, s, n);
}

spv_type *spv_type_get(spv_reader *r, uint32_t id)
{
    if (id == 0 || id >= r->bound || r->ids[id].kind != ID_TYPE) return NULL;
    return r->ids[id].ty;
}

uint32_t spv_type_leaves(spv_reader *r, uint32_t id)
{
    spv_type *t = spv_type_get(r, id);
    return t ? t->nleaves : 0;
}

uint32_t spv_scalar_type(spv_reader *r, uint32_t id)
{
    for (int depth = 0; depth < 3; depth++) {
        spv_type *t = spv_type_get(r, id);
        if (!t) return 0;
        if (t->kind == TY_BOOL || t->kind == TY_INT || t->kind == TY_FLOAT) return id;
        if (t->kind != TY_VECTOR && t->kind != TY_MATRIX) return 0;
        id = t->elem;
    }
    return 0;
}

static spv_type_kind scalar_kind(spv_reader *r, uint32_t id)
{
    spv_type *t = spv_type_get(r, spv_scalar_type(r, id));
    return t ? t->kind : TY_NONE;
}

bool spv_type_is_int(spv_reader *r, uint32_t id)
{
    return scalar_kind(r, id) == TY_INT;
}
bool spv_type_is_bool(spv_reader *r, uint32_t id)
{
    return scalar_kind(r, id) == TY_BOOL;
}
bool spv_type_is_float(spv_reader *r, uint32_t id)
{
    return scalar_kind(r, id) == TY_FLOAT;
}

bool spv_int_of(const fmag_value *v, int64_t *out)
{
    if (!v || !fmag_value_is_const(v) || !fmag_value_is_int(v)) return false;
    *out = (int32_t)v->ibits;
    return true;
}

spv_type *spv_leaf_scalar(spv_reader *r, uint32_t id, uint32_t j)
{
    /* Types are declared before use, so the walk ends; each step goes one level in. */
    for (;;) {
        spv_type *t = spv_type_get(r, id);
        if (!t || j >= t->nleaves) return NULL;
        switch (t->kind) {
        case TY_BOOL:
        case TY_INT:
        case TY_FLOAT:
            return t;
        case TY_VECTOR:
        case TY_MATRIX:
        case TY_ARRAY: {
            uint32_t n = spv_type_leaves(r, t->elem);
            if (!n) return NULL;
            j %= n;
            id = t->elem;
            break;
        }
        case TY_STRUCT: {
            /* The last member starting at or before leaf j (offs never decrease). */
            if (!t->count) return NULL;
            uint32_t lo = 0, hi = t->count;
            while (hi - lo > 1) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (t->offs[mid] <= j)
                    lo = mid;
                else
                    hi = mid;
            }
            j -= t->offs[lo];
            id = t->members[lo];
            break;
        }
        default:
            return NULL;
        }
    }
}

fmag_type spv_leaf_type(spv_reader *r, uint32_t id, uint32_t j)
{
    spv_type *t = spv_type_get(r, id);
    if (!t || !t->has_int) return FMAG_TYPE_F32;
    spv_type *s = spv_leaf_scalar(r, id, j);
    return s && s->kind == TY_INT ? FMAG_TYPE_I32 : FMAG_TYPE_F32;
}

fmag_value *spv_zero(spv_reader *r, fmag_type t)
{
    return t == FMAG_TYPE_I32 ? fmag_module_const_i32(r->m, 0) : r->zero;
}

/* ------------------------------------------------------------------ types */

static bool add_leaves(uint32_t *acc, uint64_t n)
{
    uint64_t s = (uint64_t)*acc + n;
    if (s > SPV_MAX_LEAVES) return false;
    *acc = (uint32_t)s;
    return true;
}

static bool need_type(spv_reader *r, uint32_t i, uint32_t id, spv_type **t)
{
    *t = spv_type_get(r, id);
    if (!*t) return spv_error(r, i, "id %u is not a type declared before its use", (unsigned)id);
    return true;
}

static bool parse_type(spv_reader *r, uint32_t i)
{
    const spv_inst *in = &r->insts[i];
    uint32_t id = in->w[1];
    spv_type *t = alloc(r, sizeof *t);
    spv_type *e = NULL;
    r->ids[id].kind = ID_TYPE;
    r->ids[id].ty = t;
    switch (in->op) {
    case SpvOpTypeVoid:
        t->kind = TY_VOID;
        break;
    case SpvOpTypeBool:
        t->kind = TY_BOOL;
        t->nleaves = 1;
        break;
    case SpvOpTypeInt:
    case SpvOpTypeFloat:
        if (in->nw < (in->op == SpvOpTypeInt ? 4u : 3u))
            return spv_error(r, i, "truncated type declaration");
        t->kind = in->op == SpvOpTypeInt ? TY_INT : TY_FLOAT;
        t->width = in->w[2];
        t->is_signed = in->op == SpvOpTypeInt && in->w[3] != 0;
        t->nleaves = 1;
        t->has_int = t->kind == TY_INT;
        if (t->width != 32)
            t->bad = in->op == SpvOpTypeInt ? "only 32-bit integers are supported"
                                            : "only 32-bit floats are supported";
        break;
    case SpvOpTypeVector:
    case SpvOpTypeMatrix:
    case SpvOpTypeArray: {
        if (in->nw < 4) return spv_error(r, i, "truncated type declaration");
        if (!need_type(r, i, in->w[2], &e)) return false;
        t->kind = in->op == SpvOpTypeVector   ? TY_VECTOR
                  : in->op == SpvOpTypeMatrix ? TY_MATRIX
                                              : TY_ARRAY;
        t->elem = in->w[2];
        uint32_t count = in->w[3];
        if (in->op == SpvOpTypeArray) {
            spv_id *c = in->w[3] < r->bound ? &r->ids[in->w[3]] : NULL;
            int64_t n;
            if (!c || c->kind != ID_CONST || !c->val || !spv_type_is_int(r, c->type) ||
                !spv_int_of(c->val[0], &n) || n < 1)
                return spv_error(r, i, "array length is not a positive integer constant");
            count = n > (int64_t)SPV_MAX_LEAVES ? SPV_MAX_LEAVES + 1 : (uint32_t)n;
        } else if (count < 2 || count > 4) {
            return spv_error(r, i, "a vector or matrix has 2 to 4 components, not %u",
                             (unsigned)count);
        }
        if (in->op == SpvOpTypeVector && e->kind != TY_BOOL && e->kind != TY_INT &&
            e->kind != TY_FLOAT)
            return spv_error(r, i, "vector of a non-scalar type");
        if (in->op == SpvOpTypeMatrix && (e->kind != TY_VECTOR || !spv_type_is_float(r, t->elem)))
            return spv_error(r, i, "matrix columns must be float vectors");
        t->count = count;
        t->bad = e->bad;
        t->has_int = e->has_int;
        if (e->kind == TY_VOID || e->kind == TY_FUNCTION || e->kind == TY_POINTER ||
            e->kind == TY_OPAQUE) {
            t->kind = TY_OPAQUE;
            t->bad = "an array of opaque objects";
        } else if (!add_leaves(&t->nleaves, (uint64_t)e->nleaves * count)) {
            t->nleaves = 0;
            t->bad = "a type with more than 65536 scalars";
        }
        break;
    }
    case SpvOpTypeStruct: {
        t->kind = TY_STRUCT;
        t->count = in->nw - 2;
        t->members = in->w + 2;
        t->offs = alloc(r, sizeof(uint32_t) * t->count);
        for (uint32_t k = 0; k < t->count; k++) {
            if (!need_type(r, i, t->members[k], &e)) return false;
            t->offs[k] = t->nleaves;
            t->has_int |= e->has_int;
            if (!t->bad) t->bad = e->bad;
            if (e->kind == TY_VOID || e->kind == TY_FUNCTION || e->kind == TY_POINTER ||
                e->kind == TY_OPAQUE) {
                t->bad = "a struct holding opaque objects";
            } else if (!add_leaves(&t->nleaves, e->nleaves)) {
                t->bad = "a type with more than 65536 scalars";
            }
        }
        if (t->bad) t->nleaves = t->nleaves > SPV_MAX_LEAVES ? 0 : t->nleaves;
        break;
    }
    case SpvOpTypePointer:
        if (in->nw < 4) return spv_error(r, i, "truncated type declaration");
        t->kind = TY_POINTER;
        t->storage = in->w[2];
        t->elem = in->w[3];
        /* The pointee may be a forward-declared (OpTypeForwardPointer) struct. */
        break;
    case SpvOpTypeFunction:
        if (in->nw < 3) return spv_error(r, i, "truncated type declaration");
        if (!need_type(r, i, in->w[2], &e)) return false;
        t->kind = TY_FUNCTION;
        t->elem = in->w[2];
        t->count = in->nw - 3;
        t->members = in->w + 3;
        for (uint32_t k = 0; k < t->count; k++)
            if (!need_type(r, i, t->members[k], &e)) return false;
        break;
    default:
        t->kind = TY_OPAQUE;
        t->bad = "an opaque type (image, sampler, ...)";
        break;
    }
    return true;
}

/* -------------------------------------------------------------- constants */

static bool const_scalar(spv_reader *r, uint32_t i, spv_type *t, const uint32_t *lit, uint32_t n,
                         fmag_value **out, const char **bad)
{
    if (t->kind == TY_FLOAT) {
        if (t->width != 32 || n < 1) {
            *bad = t->bad ? t->bad : "a float constant without its value";
            *out = r->zero;
            return true;
        }
        float f = fmag_float_of(lit[0]);
        if (isnan(f) || isinf(f)) {
            /* FMAG literals are finite (SPEC §1): an error where it is used. */
            *bad = "a NaN or infinite constant (FMAG literals are finite numbers)";
            f = 0.0f;
        }
        *out = fmag_module_const(r->m, f);
        return true;
    }
    if (t->kind == TY_INT) {
        if (t->width != 32 || n < 1) {
            *bad = t->bad ? t->bad : "an integer constant without its value";
            *out = spv_zero(r, FMAG_TYPE_I32);
            return true;
        }
        *out = fmag_module_const_i32(r->m, lit[0]); /* every 32-bit value, exactly */
        return true;
    }
    return spv_error(r, i, "OpConstant of a type that is not a 32-bit scalar");
}

static bool parse_spec_op(spv_reader *r, uint32_t i, spv_id *id, spv_type *t);

static bool parse_const(spv_reader *r, uint32_t i)
{
    const spv_inst *in = &r->insts[i];
    uint32_t rid = in->w[2];
    spv_id *id = &r->ids[rid];
    spv_type *t = spv_type_get(r, in->w[1]);
    if (!t) return spv_error(r, i, "constant of an undeclared type");
    if (t->kind == TY_OPAQUE || t->kind == TY_POINTER || t->kind == TY_VOID ||
        t->kind == TY_FUNCTION) {
        id->kind = ID_OTHER;
        return true;
    }
    id->kind = ID_CONST;
    id->val = alloc(r, sizeof(fmag_value *) * (t->nleaves ? t->nleaves : 1));
    for (uint32_t k = 0; k < t->nleaves; k++)
        id->val[k] = spv_zero(r, spv_leaf_type(r, in->w[1], k));
    id->bad = t->bad;
    id->is_spec = in->op >= SpvOpSpecConstantTrue && in->op <= SpvOpSpecConstantOp;
    switch (in->op) {
    case SpvOpConstantTrue:
    case SpvOpSpecConstantTrue:
    case SpvOpConstantFalse:
    case SpvOpSpecConstantFalse:
        if (t->kind != TY_BOOL) return spv_error(r, i, "a bool constant of a non-bool type");
        id->val[0] =
            in->op == SpvOpConstantTrue || in->op == SpvOpSpecConstantTrue ? r->one : r->zero;
        return true;
    case SpvOpConstant:
    case SpvOpSpecConstant:
        if (in->nw == 4) {
            id->has_lit = true;
            id->lit = in->w[3];
        }
        return const_scalar(r, i, t, in->w + 3, in->nw - 3, &id->val[0], &id->bad);
    case SpvOpConstantNull:
        return true;
    case SpvOpConstantComposite:
    case SpvOpSpecConstantComposite: {
        if (t->kind != TY_VECTOR && t->kind != TY_MATRIX && t->kind != TY_ARRAY &&
            t->kind != TY_STRUCT)
            return spv_error(r, i, "a composite constant of a non-composite type");
        uint32_t at = 0;
        for (uint32_t k = 3; k < in->nw; k++) {
            uint32_t c = in->w[k];
            if (c >= r->bound || r->ids[c].kind != ID_CONST)
                return spv_error(r, i, "constituent %u is not a constant defined before",
                                 (unsigned)c);
            uint32_t n = spv_type_leaves(r, r->ids[c].type);
            if ((uint64_t)at + n > t->nleaves)
                return spv_error(r, i, "constituents do not match the composite type");
            memcpy(id->val + at, r->ids[c].val, n * sizeof(fmag_value *));
            at += n;
            if (!id->bad) id->bad = r->ids[c].bad;
        }
        if (at != t->nleaves)
            return spv_error(r, i, "constituents do not match the composite type");
        return true;
    }
    case SpvOpSpecConstantOp:
        return parse_spec_op(r, i, id, t);
    default:
        id->kind = ID_OTHER;
        return true;
    }
}

/* OpSpecConstantOp with the default values of the spec constants: the integer
 * and composite operations that array sizes and the like are made of. */
static bool parse_spec_op(spv_reader *r, uint32_t i, spv_id *id, spv_type *t)
{
    const spv_inst *in = &r->insts[i];
    char nb[32];
    if (in->nw < 5) return spv_error(r, i, "truncated OpSpecConstantOp");
    uint32_t op = in->w[3];
    fmag_value **a = NULL, **b = NULL;
    uint32_t na = 0, nb2 = 0;
    for (uint32_t k = 4; k < in->nw && k < 6; k++) {
        uint32_t c = in->w[k];
        if (op == SpvOpCompositeExtract && k == 5) break;
        if (c >= r->bound || r->ids[c].kind != ID_CONST)
            return spv_error(r, i, "OpSpecConstantOp operand %u is not a constant", (unsigned)c);
        if (!id->bad) id->bad = r->ids[c].bad;
        if (k == 4) {
            a = r->ids[c].val;
            na = spv_type_leaves(r, r->ids[c].type);
        } else {
            b = r->ids[c].val;
            nb2 = spv_type_leaves(r, r->ids[c].type);
        }
    }
    if (op == SpvOpCompositeExtract) {
        if (in->nw < 6) return spv_error(r, i, "truncated OpSpecConstantOp");
        /* Only a vector or array of scalars: index = leaf. */
        if (in->w[5] >= na || t->nleaves != 1)
            return spv_error(r, i, "OpSpecConstantOp OpCompositeExtract index out of range");
        id->val[0] = a[in->w[5]];
        return true;
    }
    fmag_int_op iop;
    bool is_cmp = spv_int_iop(op, &iop) && fmag_int_op_is_compare(iop);
    if (t->nleaves != na || (b && nb2 != na) || !spv_int_iop(op, &iop) ||
        fmag_int_op_nops(iop) != (b ? 2u : 1u) ||
        !(is_cmp ? spv_type_is_bool(r, in->w[1]) : spv_type_is_int(r, in->w[1])))
        return spv_error(r, i, "OpSpecConstantOp %s is not supported",
                         spv_op_name(op, nb, sizeof nb));
    for (uint32_t k = 0; k < na; k++) {
        if (!fmag_value_is_int(a[k]) || (b && !fmag_value_is_int(b[k])))
            return spv_error(r, i, "OpSpecConstantOp on a non-integer value");
        id->val[k] = spv_int_fold(r, iop, a[k], b ? b[k] : NULL, NULL);
        if (!id->val[k]) return spv_error(r, i, "internal: OpSpecConstantOp did not fold");
    }
    return true;
}

/* -------------------------------------------------------------- variables */

static bool parse_global_var(spv_reader *r, uint32_t i)
{
    const spv_inst *in = &r->insts[i];
    if (in->nw < 4) return spv_error(r, i, "truncated OpVariable");
    spv_type *pt = spv_type_get(r, in->w[1]);
    if (!pt || pt->kind != TY_POINTER) return spv_error(r, i, "OpVariable of a non-pointer type");
    spv_var *v = alloc(r, sizeof *v);
    v->id = in->w[2];
    v->type = pt->elem;
    v->storage = in->w[3];
    v->global = true;
    v->slot = UINT32_MAX;
    v->index = r->ngvars;
    v->nleaves = spv_type_leaves(r, v->type);
    v->readonly = v->storage == SpvStorageClassInput || v->storage == SpvStorageClassUniform ||
                  v->storage == SpvStorageClassUniformConstant ||
                  v->storage == SpvStorageClassPushConstant;
    if (in->nw > 4) {
        uint32_t c = in->w[4];
        if (c >= r->bound || r->ids[c].kind != ID_CONST ||
            spv_type_leaves(r, r->ids[c].type) != v->nleaves)
            return spv_error(r, i, "the initializer is not a constant of the variable's type");
        v->init = c;
    }
    spv_id *id = &r->ids[v->id];
    id->kind = ID_VAR;
    id->ptr = alloc(r, sizeof(spv_ptr));
    id->ptr->var = v;
    id->ptr->type = v->type;
    r->gvars[r->ngvars++] = v;
    return true;
}

/* ------------------------------------------------------------- decorations */

static void parse_decoration(spv_reader *r, uint32_t i)
{
    const spv_inst *in = &r->insts[i];
    if (in->nw < 3 || in->w[1] >= r->bound) return;
    spv_id *id = &r->ids[in->w[1]];
    uint32_t d = in->w[2], val = in->nw > 3 ? in->w[3] : 0;
    switch (d) {
    case SpvDecorationLocation:
        id->has_location = true;
        id->location = val;
        break;
    case SpvDecorationComponent:
        id->component = val;
        break;
    case SpvDecorationBinding:
        id->has_binding = true;
        id->binding = val;
        break;
    case SpvDecorationDescriptorSet:
        id->set = val;
        break;
    case SpvDecorationBuiltIn:
        id->is_builtin = true;
        break;
    case SpvDecorationBufferBlock: /* a storage buffer before SPIR-V 1.3 */
        id->is_buffer_block = true;
        id->is_block = true;
        break;
    case SpvDecorationBlock:
        id->is_block = true;
        break;
    default:
        break;
    }
}

/* OpSource / OpSourceContinued: the source text of a file, for diagnostics that
 * show the line (glslang -g embeds it). */
static void parse_source(spv_reader *r, uint32_t i, uint32_t *last_file)
{
    const spv_inst *in = &r->insts[i];
    uint32_t file = *last_file, k;
    if (in->op == SpvOpSource) {
        *last_file = 0;
        if (in->nw < 5 || in->w[3] >= r->bound || r->ids[in->w[3]].kind != ID_STRING) return;
        file = *last_file = in->w[3];
        k = 4;
    } else {
        k = 1;
    }
    if (!file || k >= in->nw) return;
    const char *s = (const char *)(in->w + k);
    size_t n = strnlen(s, (size_t)(in->nw - k) * 4);
    spv_id *f = &r->ids[file];
    char *t = fmag_context_alloc(r->ctx, f->srclen + n + 1);
    if (f->srclen) memcpy(t, f->src, f->srclen);
    memcpy(t + f->srclen, s, n);
    f->src = t;
    f->srclen += n;
}

/* ---------------------------------------------------------- the whole module */

static bool split_instructions(spv_reader *r)
{
    size_t n = 0;
    for (size_t p = 5; p < r->nwords;) {
        uint32_t wc = r->words[p] >> 16;
        if (wc == 0)
            return spv_error(r, UINT32_MAX, "instruction at word %zu has a zero word count", p);
        if (wc > r->nwords - p)
            return spv_error(r, UINT32_MAX,
                             "instruction at word %zu runs past the end of the module", p);
        p += wc;
        n++;
    }
    r->insts = alloc(r, n * sizeof(spv_inst));
    r->ninsts = (uint32_t)n;
    uint32_t file = 0, line = 0, col = 0;
    size_t p = 5;
    for (uint32_t i = 0; i < n; i++) {
        spv_inst *in = &r->insts[i];
        in->w = r->words + p;
        in->nw = r->words[p] >> 16;
        in->op = r->words[p] & 0xFFFF;
        in->word = (uint32_t)p;
        p += in->nw;
        if (in->op == SpvOpLine && in->nw >= 4) {
            file = in->w[1];
            line = in->w[2];
            col = in->w[3];
        } else if (in->op == SpvOpNoLine || in->op == SpvOpFunctionEnd) {
            file = 0;
        }
        in->file = file;
        in->line = line;
        in->col = col;
        /* A block terminator ends the scope of an OpLine. */
        switch (in->op) {
        case SpvOpBranch:
        case SpvOpBranchConditional:
        case SpvOpSwitch:
        case SpvOpReturn:
        case SpvOpReturnValue:
        case SpvOpKill:
        case SpvOpUnreachable:
        case SpvOpTerminateInvocation:
            file = 0;
            break;
        default:
            break;
        }
    }
    return true;
}

/* Result ids: each defined once, inside the bound. */
static bool define_ids(spv_reader *r)
{
    for (uint32_t i = 0; i < r->ninsts; i++) {
        const spv_inst *in = &r->insts[i];
        bool has_result, has_type;
        SpvHasResultAndType((SpvOp)in->op, &has_result, &has_type);
        if (!has_result) continue;
        uint32_t k = has_type ? 2 : 1;
        if (in->nw <= k) return spv_error(r, i, "instruction too short for its result id");
        uint32_t id = in->w[k];
        if (id == 0 || id >= r->bound)
            return spv_error(r, i, "result id %u is outside the id bound %u", (unsigned)id,
                             (unsigned)r->bound);
        if (r->ids[id].def) return spv_error(r, i, "id %u is defined twice", (unsigned)id);
        r->ids[id].def = i + 1;
        r->ids[id].kind = ID_OTHER;
        if (has_type) {
            r->ids[id].type = in->w[1];
            if (in->w[1] >= r->bound) return spv_error(r, i, "type id out of bound");
        }
    }
    return true;
}

static bool is_terminator(uint32_t op)
{
    switch (op) {
    case SpvOpBranch:
    case SpvOpBranchConditional:
    case SpvOpSwitch:
    case SpvOpReturn:
    case SpvOpReturnValue:
    case SpvOpKill:
    case SpvOpUnreachable:
    case SpvOpTerminateInvocation:
        return true;
    default:
        return false;
    }
}

static bool parse_function(spv_reader *r, uint32_t *pi)
{
    uint32_t i = *pi;
    const spv_inst *in = &r->insts[i];
    if (in->nw < 5) return spv_error(r, i, "truncated OpFunction");
    spv_func *f = &r->funcs[r->nfuncs++];
    f->id = in->w[2];
    f->ret = in->w[1];
    f->type = in->w[4];
    f->begin = i;
    spv_type *ft = spv_type_get(r, f->type);
    if (!ft || ft->kind != TY_FUNCTION || ft->elem != f->ret)
        return spv_error(r, i,
                         "OpFunction's type is not a function type returning its result type");
    r->ids[f->id].kind = ID_FUNC;
    r->ids[f->id].fn = f;
    /* Count parameters and blocks first. */
    uint32_t np = 0, nb = 0, j;
    for (j = i + 1; j < r->ninsts && r->insts[j].op != SpvOpFunctionEnd; j++) {
        if (r->insts[j].op == SpvOpFunctionParameter) np++;
        if (r->insts[j].op == SpvOpLabel) nb++;
        if (r->insts[j].op == SpvOpFunction) break;
    }
    if (j >= r->ninsts || r->insts[j].op != SpvOpFunctionEnd)
        return spv_error(r, i, "OpFunction without its OpFunctionEnd");
    f->end = j;
    if (np != ft->count)
        return spv_error(r, i, "the function has %u parameters, its type %u", (unsigned)np,
                         (unsigned)ft->count);
    f->params = alloc(r, sizeof(uint32_t) * np);
    f->blocks = alloc(r, sizeof(spv_block) * nb);
    spv_block *cur = NULL;
    for (j = i + 1; j < f->end; j++) {
        const spv_inst *x = &r->insts[j];
        if (x->op == SpvOpFunctionParameter) {
            if (f->nblocks) return spv_error(r, j, "OpFunctionParameter after the first block");
            if (x->nw < 3) return spv_error(r, j, "truncated OpFunctionParameter");
            if (x->w[1] != ft->members[f->nparams])
                return spv_error(r, j, "parameter type differs from the function type");
            f->params[f->nparams++] = x->w[2];
            spv_type *pt = spv_type_get(r, x->w[1]);
            r->ids[x->w[2]].kind = pt && pt->kind == TY_POINTER ? ID_VAR : ID_VALUE;
        } else if (x->op == SpvOpLabel) {
            if (cur) return spv_error(r, j, "a block without a terminator");
            cur = &f->blocks[f->nblocks++];
            cur->label = x->w[1];
            cur->first = j + 1;
            r->ids[cur->label].kind = ID_LABEL;
            r->ids[cur->label].blk = cur;
        } else if (is_terminator(x->op)) {
            if (!cur) return spv_error(r, j, "a terminator outside a block");
            cur->term = j;
            cur = NULL;
        } else if (!cur && x->op != SpvOpLine && x->op != SpvOpNoLine && x->op != SpvOpExtInst) {
            return spv_error(r, j, "an instruction outside a block");
        } else {
            bool has_result, has_type;
            SpvHasResultAndType((SpvOp)x->op, &has_result, &has_type);
            if (has_result && has_type) {
                spv_type *t = spv_type_get(r, x->w[1]);
                r->ids[x->w[2]].kind = t && t->kind == TY_POINTER ? ID_VAR : ID_VALUE;
            }
        }
    }
    if (cur) return spv_error(r, f->end, "a block without a terminator");
    *pi = f->end;
    return true;
}

bool spv_parse(spv_reader *r)
{
    if (r->nwords < 5)
        return spv_error(r, UINT32_MAX, "not a SPIR-V module (shorter than its header)");
    if (r->words[0] != SpvMagicNumber)
        return spv_error(r, UINT32_MAX, "not a SPIR-V module (bad magic number 0x%08x)",
                         (unsigned)r->words[0]);
    r->bound = r->words[3];
    /* The table is bound entries: a bound out of proportion to the module would let a
     * few bytes allocate gigabytes. An optimized module uses ids sparsely (spirv-opt's
     * folding leaves thousands unused: 6,462 for a few hundred words), hence the
     * slack. */
    if (r->bound == 0 || r->bound > (1u << 22) || r->bound > 64 * (uint64_t)r->nwords + 65536)
        return spv_error(r, UINT32_MAX, "implausible id bound %u", (unsigned)r->bound);
    r->ids = alloc(r, sizeof(spv_id) * r->bound);
    if (!split_instructions(r) || !define_ids(r)) return false;
    unsigned nf = 0, nv = 0;
    for (uint32_t i = 0; i < r->ninsts; i++) {
        nf += r->insts[i].op == SpvOpFunction;
        nv += r->insts[i].op == SpvOpVariable;
    }
    r->funcs = alloc(r, sizeof(spv_func) * nf);
    r->gvars = alloc(r, sizeof(spv_var *) * nv);
    uint32_t last_file = 0;
    for (uint32_t i = 0; i < r->ninsts && !r->failed; i++) {
        const spv_inst *in = &r->insts[i];
        r->cur_inst = i;
        switch (in->op) {
        case SpvOpName:
            if (in->nw >= 3 && in->w[1] < r->bound)
                r->ids[in->w[1]].name = lit_string(r, in, 2, NULL);
            break;
        case SpvOpString:
            if (in->nw >= 3)
                r->ids[in->w[1]].kind = ID_STRING,
                r->ids[in->w[1]].text = lit_string(r, in, 2, NULL);
            break;
        case SpvOpExtInstImport: {
            const char *s = lit_string(r, in, 2, NULL);
            r->ids[in->w[1]].kind = ID_EXTIMPORT;
            r->ids[in->w[1]].ext = !s                                ? 0
                                   : !strcmp(s, "GLSL.std.450")      ? 1
                                   : !strncmp(s, "NonSemantic.", 12) ? 2
                                                                     : 0;
            break;
        }
        case SpvOpSource:
        case SpvOpSourceContinued:
            parse_source(r, i, &last_file);
            break;
        case SpvOpDecorate:
            parse_decoration(r, i);
            break;
        case SpvOpMemberDecorate:
            /* A struct with a BuiltIn member is a block of built-ins (gl_PerVertex). */
            if (in->nw >= 4 && in->w[1] < r->bound && in->w[3] == SpvDecorationBuiltIn)
                r->ids[in->w[1]].is_builtin = true;
            break;
        case SpvOpTypeVoid:
        case SpvOpTypeBool:
        case SpvOpTypeInt:
        case SpvOpTypeFloat:
        case SpvOpTypeVector:
        case SpvOpTypeMatrix:
        case SpvOpTypeImage:
        case SpvOpTypeSampler:
        case SpvOpTypeSampledImage:
        case SpvOpTypeArray:
        case SpvOpTypeRuntimeArray:
        case SpvOpTypeStruct:
        case SpvOpTypeOpaque:
        case SpvOpTypePointer:
        case SpvOpTypeFunction:
        case SpvOpTypeEvent:
        case SpvOpTypeDeviceEvent:
        case SpvOpTypeReserveId:
        case SpvOpTypeQueue:
        case SpvOpTypePipe:
        case SpvOpTypeAccelerationStructureKHR:
        case SpvOpTypeRayQueryKHR:
            if (in->nw < 2) return spv_error(r, i, "truncated type declaration");
            if (!parse_type(r, i)) return false;
            break;
        case SpvOpConstantTrue:
        case SpvOpConstantFalse:
        case SpvOpConstant:
        case SpvOpConstantComposite:
        case SpvOpConstantNull:
        case SpvOpSpecConstantTrue:
        case SpvOpSpecConstantFalse:
        case SpvOpSpecConstant:
        case SpvOpSpecConstantComposite:
        case SpvOpSpecConstantOp:
        case SpvOpUndef:
            if (in->op == SpvOpUndef) {
                /* Inside a function OpUndef is a value like any other. */
                spv_type *t = spv_type_get(r, in->w[1]);
                spv_id *id = &r->ids[in->w[2]];
                if (!t) return spv_error(r, i, "OpUndef of an undeclared type");
                if (t->kind == TY_POINTER || t->kind == TY_OPAQUE || t->kind == TY_VOID) break;
                id->kind = ID_CONST;
                id->val = alloc(r, sizeof(fmag_value *) * (t->nleaves ? t->nleaves : 1));
                for (uint32_t k = 0; k < t->nleaves; k++)
                    id->val[k] = spv_zero(r, spv_leaf_type(r, in->w[1], k));
                id->bad = t->bad;
                break;
            }
            if (!parse_const(r, i)) return false;
            break;
        case SpvOpVariable:
            if (!parse_global_var(r, i)) return false;
            break;
        case SpvOpFunction:
            if (!parse_function(r, &i)) return false;
            break;
        case SpvOpFunctionEnd:
        case SpvOpFunctionParameter:
        case SpvOpLabel:
            return spv_error(r, i, "an instruction outside a function that belongs in one");
        default:
            break;
        }
    }
    return !r->failed;
}
