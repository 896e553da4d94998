/* Targets from IR functions (a .fir file, or what the SL frontend makes) and back
 * to IR (so the compiler can lower a target for comparison). */
#include "fmag/IR.h"
#include "fmag/Superopt.h"

#include <stdlib.h>

static bool ref_of(fmag_value *v, fmag_so_ref *out, char *err, size_t errlen)
{
    switch (v->kind) {
    case FMAG_VALUE_CONST:
        *out = fmag_so_const(v->imm);
        return true;
    case FMAG_VALUE_PARAM:
        *out = fmag_so_input(v->index);
        return true;
    case FMAG_VALUE_RESULT:
        if (!v->def || v->def->op != FMAG_OP_FMAG || !v->def->aux) {
            snprintf(err, errlen,
                     "target uses a value that is not an fmag instruction of its "
                     "block");
            return false;
        }
        out->kind = FMAG_SO_REF_OP;
        out->index = (unsigned)((uintptr_t)v->def->aux - 1);
        out->imm = 0.0f;
        return true;
    }
    return false;
}

fmag_superopt_target *fmag_superopt_target_from_ir(struct fmag_func *f, char *err, size_t errlen)
{
    if (f->nparams < 1 || f->nparams > FMAG_SUPEROPT_MAX_INPUTS || f->nresults != 1) {
        snprintf(err, errlen,
                 "target function @%s must take one or two inputs and return one value "
                 "(it takes %u and returns %u)",
                 f->name, f->nparams, f->nresults);
        return NULL;
    }
    if (!f->first || f->first != f->last) {
        snprintf(err, errlen,
                 "target function @%s must be a single block (run -O2 to if-convert it)", f->name);
        return NULL;
    }
    fmag_superopt_target *t = fmag_superopt_target_create(f->nparams);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    bool ok = true, returned = false;
    fmag_foreach_instr (i, f->first) {
        i->aux = NULL;
    }
    fmag_foreach_instr (i, f->first) {
        if (!ok) break;
        if (i->op == FMAG_OP_FMAG) {
            if (t->nops >= FMAG_SUPEROPT_MAX_TAPE) {
                snprintf(err, errlen, "target has more than %d instructions",
                         FMAG_SUPEROPT_MAX_TAPE);
                ok = false;
                break;
            }
            fmag_so_ref s[5];
            for (unsigned k = 0; k < 5 && ok; k++)
                ok = ref_of(fmag_instr_op(i, k), &s[k], err, errlen);
            if (!ok) break;
            fmag_so_ref r = fmag_superopt_target_add(t, s[0], s[1], s[2], s[3], s[4]);
            i->aux = (void *)(uintptr_t)(r.index + 1);
        } else if (i->op == FMAG_OP_RET) {
            ok = ref_of(fmag_instr_op(i, 0), &t->result, err, errlen);
            returned = true;
        } else {
            snprintf(err, errlen,
                     "target function @%s must be straight-line fmag code (found a %s; run "
                     "-O2 first)",
                     f->name,
                     i->op == FMAG_OP_CALL  ? "call"
                     : i->op == FMAG_OP_PHI ? "phi"
                                            : "branch");
            ok = false;
        }
    }
    fmag_foreach_instr (i, f->first) {
        i->aux = NULL;
    }
    if (ok && !returned) {
        snprintf(err, errlen, "target function @%s does not return", f->name);
        ok = false;
    }
    if (!ok) {
        fmag_superopt_target_free(t);
        return NULL;
    }
    fmag_superopt_target_collect_consts(t);
    return t;
}

/* Builds the function inside a guard (fmag_context_guard): the IR builders do not
 * check for a failed allocation, the guard turns one into a diagnostic and NULL. */
struct to_ir_args {
    const fmag_superopt_target *t;
    fmag_module *m;
    const char *name;
    fmag_func *result;
};

static fmag_func *to_ir_unguarded(const fmag_superopt_target *t, fmag_module *m, const char *name)
{
    fmag_func *f = fmag_func_create(m, name, t->nin, 1, true);
    fmag_block *bb = fmag_block_create(f, "entry");
    fmag_builder b;
    fmag_builder_at_end(&b, bb);
    fmag_value **vals = fmag_tmp_calloc(t->nops ? t->nops : 1, sizeof(fmag_value *));
    if (!vals) return NULL;
#define V(r)                                                                                       \
    ((r).kind == FMAG_SO_REF_CONST   ? fmag_module_const(m, (r).imm)                               \
     : (r).kind == FMAG_SO_REF_INPUT ? &f->params[(r).index]                                       \
                                     : vals[(r).index])
    for (unsigned i = 0; i < t->nops; i++) {
        const fmag_so_op *op = &t->ops[i];
        vals[i] =
            fmag_build_fmag(&b, V(op->s[0]), V(op->s[1]), V(op->s[2]), V(op->s[3]), V(op->s[4]));
    }
    fmag_value *res = V(t->result);
#undef V
    fmag_build_ret(&b, &res, 1);
    fmag_tmp_free(vals);
    return f;
}

static void to_ir_thunk(void *arg)
{
    struct to_ir_args *a = arg;
    a->result = to_ir_unguarded(a->t, a->m, a->name);
}

struct fmag_func *fmag_superopt_target_to_ir(const fmag_superopt_target *t, struct fmag_module *m,
                                             const char *name)
{
    struct to_ir_args a = {t, m, name, NULL};
    return fmag_context_guard(m->ctx, to_ir_thunk, &a) ? a.result : NULL;
}
