/* -legalize-int: turns every 32-bit integer of a function into float arithmetic, so
 * that codegen sees f32 only (SPEC §2b; docs/Integers.md has the cost of every
 * operation).
 *
 * Matches: every integer operation (FMAG_OP_INT) and every i32 phi. An i32 value is
 * held, while the pass runs, in up to three float forms (LegalizeInt.h): one float
 * holding its signed value where a range analysis (LegalizeIntRange.c) proves
 * |v| <= 2^24, two 16-bit limbs, or 32 bits of 0.0/1.0. Each operation is expanded
 * into exact fmag sequences on the form that suits it (LegalizeIntSmall.c for
 * in-range values, LegalizeIntWide.c for limbs, LegalizeIntBits.c for and/or/xor and
 * shifts, LegalizeIntDiv.c, LegalizeIntCast.c), and a form an operation needs is
 * made from another right after the operand's definition, once. This is LLVM's type
 * legalization (ExpandIntegerResult) with the machine's one instruction as the legal
 * type's only operation.
 *
 * Why it is legal: every expansion computes, for every finite input, the exact
 * result fmag_eval_int defines (the IR's semantics), bit for bit; every one was
 * checked exhaustively where the domain allows and by differential tests otherwise
 * (docs/Integers.md). Integer operations cannot produce an infinity or a NaN, so the
 * strict contract is kept exactly; intermediate floats stay finite for finite inputs.
 *
 *   %x = fptosi %a                 (range of %a unknown: full width)
 *   %y = iadd %x, 1           ->   ... limbs of %x, carry, wrap ...
 *   %f = sitofp %y                 %f = fma %hs, 65536.0, %lo
 *
 *   %i = fptosi %t   (%t in [0, 255])   ->   %i is one float: trunc(%t)
 *   %j = imul %i, 3                          %j = mul %i, 3.0
 *
 * Requires: integer parameters, results and calls already inlined (-inline; an
 * export's interface is f32); a diagnostic otherwise. Any CFG: i32 phis become phis
 * of the two limbs. Leaves: no FMAG_OP_INT and no i32 value; a function without
 * integers is not touched at all (UNCHANGED). The float code it makes is left for
 * -constfold, -cse and -dce to clean. -O2 runs it right after -ifconvert: loops are
 * unrolled (a counter is a literal; run before -loop-unroll, a 4-iteration sum of
 * squares took 150 instructions instead of 15), calls are inlined, and phis are
 * iselects whose range is the union of their arms; -O1 runs it after -ternary
 * (docs/Passes.md has the measurement).
 */
#include "LegalizeInt.h"

#include "OptUtil.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------ emission */

fmag_value *li_k(li *st, float f)
{
    return fmag_module_const(st->m, f);
}

static bool kval(fmag_value *v, float *f)
{
    if (!fmag_value_is_const(v) || v->type != FMAG_TYPE_F32) return false;
    *f = v->imm;
    return true;
}

/* fmag with the folds that are exact for every input: literal guards, literal
 * arithmetic that stays finite, and x*1+0. */
fmag_value *li_fm(li *st, fmag_value *a, fmag_value *b, fmag_value *c, fmag_value *d, fmag_value *e)
{
    float ka, kb, kc, ke;
    bool uncond = false;
    if (kval(e, &ke)) {
        if (!(ke > 0.0f)) return d;
        uncond = true;
        e = li_k(st, 1.0f);
        d = li_k(st, 0.0f);
    }
    if (uncond && kval(a, &ka) && kval(b, &kb) && ka * kb == 0.0f && isfinite(ka) && isfinite(kb) &&
        !kval(c, &kc))
        return c;
    if (uncond && kval(a, &ka) && kval(b, &kb) && kval(c, &kc)) {
        float r = fmaf(ka, kb, kc);
        if (isfinite(r)) return li_k(st, r + 0.0f);
    }
    if (uncond && kval(a, &ka) && !kval(b, &kb)) {
        fmag_value *t = a;
        a = b;
        b = t;
    }
    if (uncond && fmag_value_is_imm(b, 1.0f) && kval(c, &kc) && kc == 0.0f) return a;
    if (!uncond && a == d && fmag_value_is_imm(b, 1.0f) && kval(c, &kc) && kc == 0.0f) return d;
    return fmag_build_fmag(&st->b, a, b, c, d, e);
}

fmag_value *li_fma(li *st, fmag_value *x, fmag_value *y, fmag_value *z)
{
    return li_fm(st, x, y, z, li_k(st, 0.0f), li_k(st, 1.0f));
}
fmag_value *li_fmak(li *st, fmag_value *x, float y, float z)
{
    return li_fma(st, x, li_k(st, y), li_k(st, z));
}
fmag_value *li_add(li *st, fmag_value *x, fmag_value *y)
{
    return li_fma(st, x, li_k(st, 1.0f), y);
}
fmag_value *li_addk(li *st, fmag_value *x, float k)
{
    return li_fmak(st, x, 1.0f, k);
}
fmag_value *li_sub(li *st, fmag_value *x, fmag_value *y)
{
    return li_fma(st, y, li_k(st, -1.0f), x);
}
fmag_value *li_mul(li *st, fmag_value *x, fmag_value *y)
{
    return li_fma(st, x, y, li_k(st, 0.0f));
}
fmag_value *li_sel(li *st, fmag_value *t, fmag_value *f, fmag_value *g)
{
    if (t == f) return t;
    return li_fm(st, t, li_k(st, 1.0f), li_k(st, 0.0f), f, g);
}
fmag_value *li_bool(li *st, fmag_value *g)
{
    return li_fm(st, g, li_k(st, 0.0f), li_k(st, 1.0f), li_k(st, 0.0f), g);
}

void li_floor_pow2(li *st, fmag_value *x, int k, fmag_value **q, fmag_value **r)
{
    if (k == 0) {
        if (q) *q = x;
        if (r) *r = li_k(st, 0.0f);
        return;
    }
    float p = ldexpf(1.0f, k);
    /* x/2^k - 1/2 + 2^-(k+1) is never a tie, so rounding it is the floor. */
    fmag_value *t = li_addk(st, x, 0.5f - p / 2);
    fmag_value *y = li_fmak(st, t, 1.0f / p, LI_MAGIC);
    fmag_value *qq = li_addk(st, y, -LI_MAGIC);
    if (q) *q = qq;
    if (r) *r = li_fma(st, qq, li_k(st, -p), x);
}

/* ------------------------------------------------------------ forms */

bool li_is_small(const li_range r)
{
    return r.lo >= -LI_SMALL_MAX && r.hi <= LI_SMALL_MAX;
}

bool li_is_const(fmag_value *v, uint32_t *bits)
{
    if (!fmag_value_is_const(v) || v->type != FMAG_TYPE_I32) return false;
    if (bits) *bits = v->ibits;
    return true;
}

li_val *li_info(li *st, fmag_value *v)
{
    if (!fmag_value_is_const(v)) {
        assert(v->aux);
        return v->aux;
    }
    uint32_t bits = v->ibits;
    for (size_t k = 0; k < st->nconsts; k++)
        if (st->const_bits[k] == bits) return st->consts[k];
    if (st->nconsts == st->cap_consts) {
        size_t cap = st->cap_consts ? 2 * st->cap_consts : 16;
        li_val **nc = fmag_tmp_realloc(st->consts, cap * sizeof *nc);
        if (nc) st->consts = nc;
        uint32_t *nb = fmag_tmp_realloc(st->const_bits, cap * sizeof *nb);
        if (nb) st->const_bits = nb;
        if (!nc || !nb) {
            fmag_context_out_of_memory(st->m->ctx, "legalize-int");
            return NULL;
        }
        st->cap_consts = cap;
    }
    li_val *iv = fmag_context_alloc(st->m->ctx, sizeof *iv);
    st->consts[st->nconsts] = iv;
    st->const_bits[st->nconsts++] = bits;
    iv->r = li_range_const(bits);
    if (li_is_small(iv->r)) iv->s = li_k(st, (float)(int32_t)bits);
    iv->l[0] = li_k(st, (float)(bits & 0xFFFFu));
    iv->l[1] = li_k(st, (float)(bits >> 16));
    iv->done = true;
    return iv;
}

/* Conversions of a value go right after what defines it so far. */
typedef struct conv_pos {
    fmag_builder saved;
    fmag_instr *next;
} conv_pos;

static void conv_begin(li *st, li_val *iv, conv_pos *p)
{
    p->saved = st->b;
    p->next = NULL;
    if (!iv->after) return; /* a literal: its forms are literals */
    p->next = iv->after->next;
    fmag_builder_before(&st->b, p->next);
}

static void conv_end(li *st, li_val *iv, conv_pos *p)
{
    if (p->next) iv->after = p->next->prev;
    st->b = p->saved;
}

static int bitlen(int64_t v)
{
    int n = 0;
    while (n < 32 && (v >> n) != 0)
        n++;
    return n;
}

static void s_to_l(li *st, li_val *iv)
{
    fmag_value *s = iv->s, *q, *r;
    li_range rg = iv->r;
    if (rg.lo >= 0 && rg.hi <= 65535) {
        iv->l[0] = s;
        iv->l[1] = li_k(st, 0.0f);
        return;
    }
    if (rg.lo >= -65536 && rg.hi <= -1) {
        iv->l[0] = li_addk(st, s, 65536.0f);
        iv->l[1] = li_k(st, 65535.0f);
        return;
    }
    if (rg.lo > -(1 << 22) && rg.hi < (1 << 22)) {
        li_floor_pow2(st, s, 16, &q, &r);
    } else {
        /* |s| up to 2^24: round s/65536 to nearest, then step down where the
         * remainder came out negative. */
        fmag_value *y = li_fmak(st, s, 1.0f / 65536.0f, LI_MAGIC);
        fmag_value *q0 = li_addk(st, y, -LI_MAGIC);
        fmag_value *r0 = li_fma(st, q0, li_k(st, -65536.0f), s);
        fmag_value *ng = li_fmak(st, r0, -1.0f, -0.5f);
        r = li_fm(st, r0, li_k(st, 1.0f), li_k(st, 65536.0f), r0, ng);
        q = li_fm(st, q0, li_k(st, 1.0f), li_k(st, -1.0f), q0, ng);
    }
    iv->l[0] = r;
    if (rg.lo >= 0) {
        iv->l[1] = q;
    } else {
        fmag_value *gq = li_fmak(st, q, -1.0f, -0.5f);
        iv->l[1] = li_fm(st, q, li_k(st, 1.0f), li_k(st, 65536.0f), q, gq);
    }
}

static li_origin *origin(li *st, fmag_value *f)
{
    if (fmag_value_is_const(f)) return NULL;
    if (!f->aux) f->aux = fmag_context_alloc(st->m->ctx, sizeof(li_origin));
    return f->aux;
}

void li_note_forms(li *st, fmag_value *v)
{
    if (fmag_value_is_const(v)) return;
    li_val *iv = li_info(st, v);
    for (int k = 0; k < 2; k++) {
        li_origin *o = iv->l[k] ? origin(st, iv->l[k]) : NULL;
        if (o && !o->limb_of) o->limb_of = v, o->limb_half = k;
    }
    for (int k = 0; iv->bits && k < 32; k++) {
        li_origin *o = origin(st, iv->bits[k]);
        if (o && !o->bit_of) o->bit_of = v, o->bit_index = k;
    }
}

void li_bits_reuse_l(li *st, fmag_value *self, fmag_value *const *bits, fmag_value *out[2])
{
    for (int k = 0; k < 2; k++) {
        out[k] = NULL;
        li_origin *o = fmag_value_is_const(bits[16 * k]) ? NULL : bits[16 * k]->aux;
        if (!o || !o->bit_of || o->bit_of == self || o->bit_index % 16) continue;
        fmag_value *const *ob = li_info(st, o->bit_of)->bits + o->bit_index;
        bool same = true;
        for (int t = 0; t < 16; t++)
            same &= ob[t] == bits[16 * k + t];
        if (!same) continue;
        fmag_value *l[2];
        li_get_l(st, o->bit_of, l);
        out[k] = l[o->bit_index / 16];
    }
}

fmag_value *li_get_neg(li *st, fmag_value *v)
{
    li_val *iv = li_info(st, v);
    /* fptosi(x) < 0 exactly when x <= -1, NaN excluded: -x - pred(1) > 0 */
    if (iv->fptosi_of) return li_fmak(st, iv->fptosi_of, -1.0f, -0x1.fffffep-1f);
    fmag_value *l[2];
    li_get_l(st, v, l);
    return li_sign_guard(st, l[1]);
}

fmag_value *li_get_s(li *st, fmag_value *v)
{
    li_val *iv = li_info(st, v);
    if (iv->s) return iv->s;
    assert(li_is_small(iv->r));
    fmag_value *l[2];
    li_get_l(st, v, l);
    conv_pos p;
    conv_begin(st, iv, &p);
    fmag_value *h = iv->l[1];
    if (iv->r.lo >= 0)
        ;
    else if (iv->r.hi < 0)
        h = li_addk(st, h, -65536.0f);
    else
        h = li_signed_hi(st, h);
    iv->s = li_fma(st, h, li_k(st, 65536.0f), iv->l[0]);
    conv_end(st, iv, &p);
    return iv->s;
}

void li_get_l(li *st, fmag_value *v, fmag_value *out[2])
{
    li_val *iv = li_info(st, v);
    if (!iv->l[0]) {
        fmag_value *reuse[2] = {NULL, NULL};
        if (!iv->s) li_bits_reuse_l(st, v, iv->bits, reuse);
        conv_pos p;
        conv_begin(st, iv, &p);
        if (iv->s) {
            s_to_l(st, iv);
        } else {
            for (int k = 0; k < 2; k++)
                iv->l[k] = reuse[k] ? reuse[k] : li_bits_to_limb(st, iv->bits + 16 * k);
        }
        conv_end(st, iv, &p);
        li_note_forms(st, v);
    }
    out[0] = iv->l[0];
    out[1] = iv->l[1];
}

fmag_value **li_new_bits(li *st)
{
    return fmag_context_alloc(st->m->ctx, 32 * sizeof(fmag_value *));
}

fmag_value **li_get_bits(li *st, fmag_value *v)
{
    li_val *iv = li_info(st, v);
    if (iv->bits) return iv->bits;
    fmag_value **bits = li_new_bits(st);
    uint32_t c;
    if (li_is_const(v, &c)) {
        for (int k = 0; k < 32; k++)
            bits[k] = li_k(st, (float)((c >> k) & 1));
        iv->bits = bits;
        return bits;
    }
    /* a limb that is another value's limb takes that value's bits */
    bool have[2] = {false, false};
    for (int k = 0; k < 2 && iv->l[0]; k++) {
        li_origin *o = fmag_value_is_const(iv->l[k]) ? NULL : iv->l[k]->aux;
        if (!o || !o->limb_of || o->limb_of == v) continue;
        fmag_value **ob = li_get_bits(st, o->limb_of) + 16 * o->limb_half;
        for (int t = 0; t < 16; t++)
            bits[16 * k + t] = ob[t];
        have[k] = true;
    }
    if (!have[0] || !have[1]) {
        conv_pos p;
        conv_begin(st, iv, &p);
        if (iv->s && iv->r.lo >= 0 && !have[0] && !have[1]) {
            li_s_to_bits(st, iv->s, bitlen(iv->r.hi), bits);
        } else {
            if (!iv->l[0]) s_to_l(st, iv);
            int nb = iv->r.lo >= 0 ? bitlen(iv->r.hi) : 32;
            int nlo = nb < 16 ? nb : 16, nhi = nb > 16 ? nb - 16 : 0;
            fmag_value *part[32];
            li_l_to_bits(st, iv->l, have[0] ? 0 : nlo, have[1] ? 0 : nhi, part);
            for (int k = 0; k < 32; k++)
                if (!have[k / 16]) bits[k] = part[k];
        }
        conv_end(st, iv, &p);
    }
    iv->bits = bits;
    li_note_forms(st, v);
    return bits;
}

fmag_value **li_get_guards(li *st, fmag_value *v)
{
    li_val *iv = li_info(st, v);
    if (iv->bits) return iv->bits;
    if (iv->guards) return iv->guards;
    bool shared = iv->l[0] != NULL;
    for (int k = 0; k < 2 && shared; k++) { /* another value's limbs with bits, or literals */
        if (fmag_value_is_const(iv->l[k])) continue;
        li_origin *o = iv->l[k]->aux;
        shared = o && o->limb_of && o->limb_of != v && li_info(st, o->limb_of)->bits;
    }
    if (shared || li_is_const(v, NULL)) return li_get_bits(st, v);
    int nb = iv->r.lo >= 0 ? bitlen(iv->r.hi) : 32;
    fmag_value *l[2] = {iv->s, li_k(st, 0.0f)};
    if (!(iv->s && nb <= 16)) li_get_l(st, v, l);
    fmag_value **g = li_new_bits(st);
    conv_pos p;
    conv_begin(st, iv, &p);
    li_l_to_guards(st, l, nb < 16 ? nb : 16, nb > 16 ? nb - 16 : 0, g);
    conv_end(st, iv, &p);
    iv->guards = g;
    return g;
}

/* ------------------------------------------------------------ the pass */

static bool lower_one(li *st, fmag_instr *i)
{
    li_val *res = fmag_int_op_result_type(i->iop) == FMAG_TYPE_I32 ? i->results[0].aux : NULL;
    fmag_value *ops[3] = {NULL, NULL, NULL};
    li_range r[3];
    for (unsigned k = 0; k < i->nops; k++) {
        ops[k] = fmag_instr_op(i, k);
        r[k] = ops[k]->type == FMAG_TYPE_I32 ? li_info(st, ops[k])->r : li_range_full();
    }
    if (res) {
        res->r = li_range_of(i->iop, r, ops);
        res->after = i;
    }
    fmag_builder_before(&st->b, i);
    fmag_value *fres = NULL;
    bool ok = li_lower_small(st, i, res, &fres);
    if (!ok) ok = li_lower_bits(st, i, res);
    if (!ok) ok = li_lower_div(st, i, res);
    if (!ok) ok = li_lower_cast(st, i, res, &fres);
    if (!ok) ok = li_lower_wide(st, i, res, &fres);
    assert(ok);
    if (res) {
        res->done = true;
        /* An expansion may have finished with code after the definition point. */
        res->after = i;
        li_note_forms(st, &i->results[0]);
    } else if (fres) {
        fmag_value_replace_all_uses(&i->results[0], fres);
    }
    return ok;
}

static bool reject(fmag_func *f)
{
    bool bad = false;
    for (unsigned k = 0; k < f->nparams; k++)
        bad |= f->params[k].type == FMAG_TYPE_I32;
    for (unsigned k = 0; k < f->nresults; k++)
        bad |= fmag_func_result_type(f, k) == FMAG_TYPE_I32;
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b)
            if (i->op == FMAG_OP_CALL)
                for (unsigned k = 0; k < i->nops; k++)
                    bad |= fmag_instr_op(i, k)->type == FMAG_TYPE_I32;
    if (bad)
        fmag_context_error(f->module->ctx,
                           "error: in function @%s: -legalize-int needs integer parameters, "
                           "results and calls inlined first (run -inline)",
                           f->name);
    return bad;
}

typedef struct run_args {
    li *st;
    fmag_instr **todo;
    size_t ntodo;
    fmag_block **order;
    unsigned norder;
} run_args;

static void placeholder(li *st, li_val *iv)
{
    /* A value of unreachable code used before its definition: never runs. */
    iv->l[0] = iv->l[1] = li_k(st, 0.0f);
    iv->r = li_range_full();
}

static void run_body(void *arg)
{
    run_args *a = arg;
    li *st = a->st;
    for (unsigned bi = 0; bi < a->norder; bi++) {
        fmag_block *b = a->order[bi];
        fmag_instr *last_phi = NULL;
        fmag_foreach_instr (i, b)
            if (i->op == FMAG_OP_PHI) last_phi = i;
        fmag_foreach_instr (i, b) {
            if (i->op == FMAG_OP_PHI && i->results[0].type == FMAG_TYPE_I32) {
                li_val *iv = i->results[0].aux;
                fmag_builder_before(&st->b, i);
                iv->l[0] = &fmag_build_phi(&st->b)->results[0];
                iv->l[1] = &fmag_build_phi(&st->b)->results[0];
                iv->r = li_range_full();
                iv->after = last_phi;
                iv->done = true;
                li_note_forms(st, &i->results[0]);
                a->todo[a->ntodo++] = i;
            } else if (i->op == FMAG_OP_INT) {
                for (unsigned k = 0; k < i->nops; k++) {
                    fmag_value *v = fmag_instr_op(i, k);
                    if (v->type == FMAG_TYPE_I32 && !fmag_value_is_const(v)) {
                        li_val *ov = v->aux;
                        if (!ov->done) {
                            placeholder(st, ov);
                            ov->done = true;
                            ov->after = NULL;
                        }
                    }
                }
                lower_one(st, i);
                a->todo[a->ntodo++] = i;
            }
        }
    }
    /* The limb phis' incoming values, made where each value is defined. */
    for (size_t t = 0; t < a->ntodo; t++) {
        fmag_instr *phi = a->todo[t];
        if (phi->op != FMAG_OP_PHI) continue;
        li_val *iv = phi->results[0].aux;
        for (unsigned k = 0; k < phi->nops; k++) {
            fmag_value *l[2];
            li_get_l(st, fmag_instr_op(phi, k), l);
            fmag_phi_add_incoming(iv->l[0]->def, l[0], phi->phi_blocks[k]);
            fmag_phi_add_incoming(iv->l[1]->def, l[1], phi->phi_blocks[k]);
        }
    }
    /* Nothing but the originals uses an i32 now: cut them loose and erase them. */
    fmag_value *zero = fmag_module_const_i32(st->m, 0);
    fmag_value *fzero = li_k(st, 0.0f);
    for (size_t t = 0; t < a->ntodo; t++) {
        fmag_instr *i = a->todo[t];
        for (unsigned k = 0; k < i->nops; k++) {
            fmag_value *v = fmag_instr_op(i, k);
            fmag_instr_set_op(i, k, v->type == FMAG_TYPE_I32 ? zero : fzero);
        }
    }
    for (size_t t = 0; t < a->ntodo; t++)
        fmag_instr_erase(a->todo[t]);
}

fmag_pass_status fmag_opt_legalize_int(fmag_func *f)
{
    if (!fmag_func_has_int(f)) return FMAG_PASS_UNCHANGED;
    if (reject(f)) return FMAG_PASS_FAILED;
    f->exact_float = true;
    fmag_context *ctx = f->module->ctx;
    li st;
    memset(&st, 0, sizeof st);
    st.f = f;
    st.m = f->module;
    size_t nvals = 0, ninstr = 0;
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b) {
            ninstr++;
            if (i->nresults == 1 && i->results[0].type == FMAG_TYPE_I32) nvals++;
        }
    run_args a;
    memset(&a, 0, sizeof a);
    a.st = &st;
    st.vals = fmag_tmp_calloc(nvals ? nvals : 1, sizeof *st.vals);
    a.todo = fmag_tmp_malloc((ninstr ? ninstr : 1) * sizeof *a.todo);
    fmag_domtree dt;
    bool have_dt = fmag_domtree_build(f, &dt);
    a.order = fmag_tmp_malloc((f->nblocks ? f->nblocks : 1) * sizeof *a.order);
    if (!st.vals || !a.todo || !have_dt || !a.order) {
        fmag_tmp_free(st.vals);
        fmag_tmp_free(a.todo);
        fmag_tmp_free(a.order);
        if (have_dt) fmag_domtree_free(&dt);
        fmag_context_out_of_memory(ctx, "legalize-int");
        return FMAG_PASS_FAILED;
    }
    size_t k = 0;
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b)
            if (i->nresults == 1 && i->results[0].type == FMAG_TYPE_I32)
                i->results[0].aux = &st.vals[k++];
    /* Definitions before uses: reverse postorder, then unreachable blocks. */
    for (unsigned r = 0; r < dt.n; r++)
        a.order[a.norder++] = dt.rpo[r];
    fmag_foreach_block (b, f)
        if (!fmag_domtree_reachable(&dt, b)) a.order[a.norder++] = b;
    fmag_domtree_free(&dt);
    bool ok = fmag_context_guard(ctx, run_body, &a);
    fmag_func_clear_aux(f);
    fmag_tmp_free(st.vals);
    fmag_tmp_free(a.todo);
    fmag_tmp_free(a.order);
    fmag_tmp_free(st.consts);
    fmag_tmp_free(st.const_bits);
    return ok ? FMAG_PASS_CHANGED : FMAG_PASS_FAILED;
}
