/* -derivatives: dfdx, dfdy and fwidth by forward-mode automatic differentiation, as
 * OSL computes derivatives with its Dual2 values (docs/Derivatives.md).
 *
 * Matches: a module that calls @fmag.dfdx or @fmag.dfdy (what a frontend builds for
 * dfdx/dFdx/ddx and fwidth). Anything else is left alone, byte for byte: the pass
 * returns at once.
 *
 * What it does, per export:
 *  1. The user's functions are inlined first (-inline, with the calls of the
 *     intrinsic builtins @fmag.<name> kept: their chain rules apply at the call).
 *     Differentiating callees instead would need one derivative variant per
 *     combination of arguments that carry derivatives; every export is inlined flat
 *     before lowering anyway.
 *  2. Which values need derivatives: the operands of the dfdx/dfdy calls, and
 *     backwards through every instruction that makes a needed value (its operands
 *     a, b, c, d, never the guard e; every phi incoming; a builtin's arguments), to a
 *     fixed point across loops. OSL's derivative-need analysis: only these values
 *     get companions, so a derivative of one texture coordinate costs only what
 *     depends on it.
 *  3. The export takes 2*k more parameters, the x then the y derivatives of its k
 *     inputs that carry derivatives (every input, or those named by the module's
 *     deriv_inputs, `slc -derivs=`), and f->nderiv = k records it (SPEC 5b).
 *  4. In reverse postorder each needed value v gets two companions dv/dx and dv/dy,
 *     built right after v (NULL stands for a derivative known to be zero):
 *        fmag a,b,c,d,e   ->  e > 0 ? da*b + a*db + dc : dd
 *        phi [v, ^p]...   ->  phi [dv, ^p]...  (incoming filled once all are made)
 *        call @fmag.f(x)  ->  the builtin's chain rule (lib/Math/MathDeriv.c)
 *        integer ops, sitofp, bit casts, literals -> 0 (integers have no derivative)
 *        dfdx / dfdy of a value -> 0 (second derivatives are not carried)
 *     A select is the fmag form with b = 1, c = 0, so it takes the derivative of the
 *     arm it chose; min, max, abs, step, sign and the guards follow: the analytic
 *     derivative of the branch taken, zero almost everywhere for the piecewise
 *     constant ones.
 *  5. Each dfdx(v) becomes dv/dx (a literal 0 when v depends on no input with
 *     derivatives); @fmag.dfdx / @fmag.dfdy are dropped; -dce removes what no
 *     derivative reached.
 *
 *   export func @f(%u) -> 1 {           export func @f(%u, %u.dx, %u.dy) -> 1 {
 *   ^entry:                             ^entry:
 *     %s = mul %u, %u             ->      %s = mul %u, %u
 *     %d = call @fmag.dfdx(%s)            %0 = mul %u.dx, %u
 *     ret %d                              %1 = fma %u, %u.dx, %0
 *   }                                     ret %1
 *                                       }
 *
 * Where it runs: first in -O1 and -O2 (and in fmag_prepare_codegen), before -inline
 * would flatten the builtins' calls into sequences that differentiate wrong, and
 * before -loop-unroll and if-conversion, which it does not need (it handles loops
 * and branches) and whose output would only be larger to differentiate. After it,
 * the module no longer asks for builtin calls (math_calls is cleared) and -inline
 * inlines the intrinsics like any function.
 *
 * Legal: it changes what the program computes on purpose (dfdx had no value before);
 * every other output is computed by the same instructions as before.
 * Requires: a verified module. Preserves: nothing about the CFG of the exports
 * (inlining); the added instructions keep SSA dominance (a companion follows its
 * value, whose operands' companions follow them).
 */
#include "OptUtil.h"
#include "fmag/Math.h"
#include "fmag/Transforms.h"

#include <stdlib.h>
#include <string.h>

typedef struct deriv_state {
    fmag_func *f;
    fmag_module *m;
    fmag_func *dfdx, *dfdy;
    unsigned nvalues; /* ids of the values before the pass */
    unsigned char *need;
    fmag_value **dv[2]; /* by value id: the x / y companion, NULL = zero */
} deriv_state;

static bool is_deriv_call(const deriv_state *s, const fmag_instr *i)
{
    return i->op == FMAG_OP_CALL && i->callee && (i->callee == s->dfdx || i->callee == s->dfdy);
}

static bool keep_intrinsic(const fmag_func *f)
{
    return fmag_math_is_intrinsic(f);
}

/* Whether token tok[0..len) of a -derivs list names input k (called `name`): the
 * input's name, the name of the vector it is a component of ("uv" for "uv.x"), or its
 * number among the inputs ("0", for frontends whose inputs have no names). */
static bool token_selects(const char *tok, size_t len, unsigned k, const char *name)
{
    if (len && strspn(tok, "0123456789") >= len) return strtoul(tok, NULL, 10) == k;
    return len && name && !strncmp(name, tok, len) && (name[len] == 0 || name[len] == '.');
}

/* Whether input k carries derivatives under the list `sel` ("uv,p"; NULL: all). */
static bool selected(const char *sel, unsigned k, const char *name)
{
    if (!sel) return true;
    for (const char *p = sel; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (token_selects(p, len, k, name)) return true;
        if (!e) break;
        p = e + 1;
    }
    return false;
}

/* Instructions of the function before the pass have their aux set (to themselves):
 * the companions and rules it adds are never taken for values of the program. */
static bool original(const fmag_instr *i)
{
    return i->aux == i;
}

static fmag_value *companion(const deriv_state *s, fmag_value *v, int dir)
{
    if (v->kind == FMAG_VALUE_CONST || v->type != FMAG_TYPE_F32) return NULL;
    if (v->id >= s->nvalues || (v->kind == FMAG_VALUE_RESULT && !original(v->def))) return NULL;
    return s->dv[dir][v->id];
}

/* Marks v needed (an f32 value that is not a literal) and pushes its definition. */
static void mark(deriv_state *s, fmag_value *v, fmag_value **work, size_t *top)
{
    if (v->kind == FMAG_VALUE_CONST || v->type != FMAG_TYPE_F32 || s->need[v->id]) return;
    s->need[v->id] = 1;
    work[(*top)++] = v;
}

static void analyze_need(deriv_state *s)
{
    fmag_value **work = fmag_tmp_malloc((s->nvalues + 1) * sizeof(*work));
    size_t top = 0;
    fmag_foreach_block (b, s->f)
        fmag_foreach_instr (i, b)
            if (is_deriv_call(s, i)) mark(s, fmag_instr_op(i, 0), work, &top);
    while (top) {
        fmag_value *v = work[--top];
        if (v->kind != FMAG_VALUE_RESULT) continue;
        fmag_instr *i = v->def;
        switch (i->op) {
        case FMAG_OP_FMAG:
            for (unsigned k = FMAG_A; k <= FMAG_D; k++)
                mark(s, fmag_instr_op(i, k), work, &top);
            break;
        case FMAG_OP_PHI:
            for (unsigned k = 0; k < i->nops; k++)
                mark(s, fmag_instr_op(i, k), work, &top);
            break;
        case FMAG_OP_CALL:
            if (!is_deriv_call(s, i))
                for (unsigned k = 0; k < i->nops; k++)
                    mark(s, fmag_instr_op(i, k), work, &top);
            break;
        default: /* integer operations: no derivative */
            break;
        }
    }
    fmag_tmp_free(work);
}

/* e > 0 ? da*b + a*db + dc : dd, with NULL for zero. */
static fmag_value *d_fmag(fmag_builder *bld, fmag_instr *i, fmag_value *const d[4])
{
    fmag_value *a = fmag_instr_op(i, FMAG_A), *b = fmag_instr_op(i, FMAG_B);
    fmag_value *e = fmag_instr_op(i, FMAG_E);
    bool taken = fmag_ou_const_true(e), never = fmag_ou_const_false(e);
    if (never) return d[FMAG_D];
    fmag_value *sum = d[FMAG_C];
    /* da*b: da itself when b is the literal 1 (a select, an add) */
    if (d[FMAG_A] && !sum && fmag_ou_is_one(b))
        sum = d[FMAG_A];
    else if (d[FMAG_A])
        sum = sum ? fmag_build_fma(bld, d[FMAG_A], b, sum) : fmag_build_mul(bld, d[FMAG_A], b);
    if (d[FMAG_B])
        sum = sum ? fmag_build_fma(bld, a, d[FMAG_B], sum) : fmag_build_mul(bld, a, d[FMAG_B]);
    if (taken) return sum;
    if (!sum && !d[FMAG_D]) return NULL;
    fmag_value *zero = fmag_module_const(bld->module, 0.0f);
    return fmag_build_select(bld, sum ? sum : zero, d[FMAG_D] ? d[FMAG_D] : zero, e);
}

/* Appends 2*k parameters (the x then the y derivatives of the k selected inputs),
 * moving the existing ones into a larger array. */
static void add_deriv_params(deriv_state *s, unsigned *carried, unsigned k)
{
    fmag_func *f = s->f;
    unsigned n = f->nparams;
    fmag_value *np = fmag_context_alloc(s->m->ctx, (n + 2 * k) * sizeof(*np));
    for (unsigned p = 0; p < n + 2 * k; p++) {
        np[p].kind = FMAG_VALUE_PARAM;
        np[p].type = FMAG_TYPE_F32;
        np[p].func = f;
        np[p].index = p;
    }
    for (unsigned p = 0; p < n; p++) {
        np[p].type = f->params[p].type;
        np[p].name = f->params[p].name;
        np[p].id = f->params[p].id;
        fmag_value_replace_all_uses(&f->params[p], &np[p]);
    }
    for (unsigned j = 0; j < k; j++) {
        const char *base = f->params[carried[j]].name;
        for (int dir = 0; dir < 2; dir++) {
            fmag_value *dp = &np[n + dir * k + j];
            dp->id = s->nvalues; /* new: no companion of its own */
            if (base) {
                char buf[96];
                int len = snprintf(buf, sizeof buf, "%.80s.%s", base, dir ? "dy" : "dx");
                dp->name = fmag_context_strdup(s->m->ctx, buf, (size_t)len);
            }
            s->dv[dir][np[carried[j]].id] = dp;
        }
    }
    f->params = np;
    f->nparams = n + 2 * k;
    f->nderiv = k;
    fmag_func_invalidate(f, FMAG_VALID_VALUE_IDS);
}

static void differentiate(deriv_state *s)
{
    fmag_func *f = s->f;
    fmag_func_renumber(f);
    s->nvalues = f->nvalues;
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b)
            i->aux = i;
    s->need = fmag_tmp_calloc(s->nvalues + 1, 1);
    s->dv[0] = fmag_tmp_calloc(s->nvalues + 1, sizeof(fmag_value *));
    s->dv[1] = fmag_tmp_calloc(s->nvalues + 1, sizeof(fmag_value *));
    unsigned *carried = fmag_tmp_calloc(f->nparams + 1, sizeof(unsigned)), k = 0;
    for (unsigned p = 0; p < f->nparams; p++)
        if (f->params[p].type == FMAG_TYPE_F32 &&
            selected(s->m->deriv_inputs, p, f->params[p].name))
            carried[k++] = p;
    add_deriv_params(s, carried, k);
    fmag_tmp_free(carried);
    analyze_need(s);

    fmag_domtree dt;
    fmag_domtree_build(f, &dt);
    fmag_value *zero = fmag_module_const(s->m, 0.0f);
    fmag_builder bld;
    bld.module = s->m;
    /* Companions in reverse postorder: every operand's are made before its user's,
     * except a phi's incoming over a back edge, filled in below. */
    for (unsigned r = 0; r < dt.n; r++) {
        fmag_foreach_instr (i, dt.rpo[r]) {
            if (!original(i) || !i->nresults || !s->need[i->results[0].id] ||
                i->results[0].type != FMAG_TYPE_F32)
                continue;
            unsigned id = i->results[0].id;
            if (i->op == FMAG_OP_PHI) {
                fmag_instr *after = i;
                for (int dir = 0; dir < 2; dir++) {
                    fmag_instr *phi = fmag_instr_create(f, FMAG_OP_PHI, 0, 1);
                    fmag_instr_insert_after(after, phi);
                    after = phi;
                    s->dv[dir][id] = &phi->results[0];
                }
                continue;
            }
            if (i->next)
                fmag_builder_before(&bld, i->next);
            else
                fmag_builder_at_end(&bld, i->block);
            for (int dir = 0; dir < 2; dir++) {
                fmag_value *d[5] = {NULL, NULL, NULL, NULL, NULL};
                for (unsigned k2 = 0; k2 < i->nops && k2 < 5; k2++)
                    d[k2] = companion(s, fmag_instr_op(i, k2), dir);
                if (i->op == FMAG_OP_FMAG) {
                    s->dv[dir][id] = d_fmag(&bld, i, d);
                } else if (i->op == FMAG_OP_CALL && !is_deriv_call(s, i)) {
                    fmag_value *out = NULL;
                    if (!fmag_math_intrinsic_derivative(&bld, i, d, &out)) out = NULL;
                    s->dv[dir][id] = out;
                }
            }
        }
    }
    /* The companion phis' incoming, now that every value has its companions. */
    for (unsigned r = 0; r < dt.n; r++)
        fmag_foreach_instr (i, dt.rpo[r]) {
            if (!original(i) || i->op != FMAG_OP_PHI || !s->need[i->results[0].id] ||
                i->results[0].type != FMAG_TYPE_F32)
                continue;
            for (int dir = 0; dir < 2; dir++) {
                fmag_instr *phi = s->dv[dir][i->results[0].id]->def;
                for (unsigned k2 = 0; k2 < i->nops; k2++) {
                    fmag_value *d = companion(s, fmag_instr_op(i, k2), dir);
                    fmag_phi_add_incoming(phi, d ? d : zero, i->phi_blocks[k2]);
                }
            }
        }
    /* dfdx(v) -> dv/dx */
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b) {
            if (!is_deriv_call(s, i)) continue;
            fmag_value *d = companion(s, fmag_instr_op(i, 0), i->callee == s->dfdy);
            fmag_value_replace_all_uses(&i->results[0], d ? d : zero);
            fmag_instr_erase(i);
        }
    fmag_domtree_free(&dt);
    fmag_tmp_free(s->need);
    fmag_tmp_free(s->dv[0]);
    fmag_tmp_free(s->dv[1]);
    fmag_func_clear_aux(f);
    fmag_func_invalidate(f, FMAG_VALID_VALUE_IDS);
    fmag_opt_dce(f);
}

/* Every name of the -derivs list names an input of f: a misspelt name would
 * otherwise silently leave an input without derivatives. */
static bool check_selection(fmag_module *m, fmag_func *f)
{
    const char *sel = m->deriv_inputs;
    bool ok = true;
    for (const char *p = sel; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        bool found = false;
        for (unsigned k = 0; k < f->nparams && !found; k++)
            found = token_selects(p, len, k, f->params[k].name);
        if (!found) {
            fmag_context_error(m->ctx,
                               "error: -derivs: @%s has no input '%.*s' (a name is a "
                               "parameter's, as -emit-ir prints them, or an input's number "
                               "from 0)",
                               f->name, (int)(len > 200 ? 200 : len), p);
            ok = false;
        }
        if (!e) break;
        p = e + 1;
    }
    return ok;
}

fmag_pass_status fmag_opt_derivatives(fmag_module *m)
{
    deriv_state s;
    memset(&s, 0, sizeof s);
    s.m = m;
    s.dfdx = fmag_module_get_func(m, FMAG_DFDX_NAME);
    s.dfdy = fmag_module_get_func(m, FMAG_DFDY_NAME);
    if (!s.dfdx && !s.dfdy) return FMAG_PASS_UNCHANGED;
    if (fmag_ou_inline_except(m, keep_intrinsic) == FMAG_PASS_FAILED) return FMAG_PASS_FAILED;
    /* The rules' own builtins (cos for sin', ...) are intrinsic calls too while the pass
     * runs, so that the derivatives stay functions of the builtins, and -inline inlines
     * them with the rest; from here on the module asks for plain sequences. */
    bool calls = m->math_calls;
    m->math_calls = true;
    bool has_export = false;
    fmag_foreach_func (f, m)
        has_export |= f->is_export;
    fmag_foreach_func (f, m) {
        if (fmag_math_is_intrinsic(f) || (has_export && !f->is_export)) continue;
        s.f = f;
        /* Only a program that uses derivatives takes them: another export of the
         * module keeps its inputs. */
        bool uses = false;
        fmag_foreach_block (b, f)
            fmag_foreach_instr (i, b)
                uses |= is_deriv_call(&s, i);
        if (!uses) continue;
        if (!check_selection(m, f)) {
            m->math_calls = calls;
            return FMAG_PASS_FAILED;
        }
        differentiate(&s);
    }
    m->math_calls = false;
    if (s.dfdx) fmag_func_erase(s.dfdx);
    if (s.dfdy) fmag_func_erase(s.dfdy);
    return FMAG_PASS_CHANGED;
}
