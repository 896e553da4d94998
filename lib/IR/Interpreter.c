/* The IR interpreter: the semantic oracle every pass and the code generator are
 * checked against. It runs a function of a verified module on one element, exactly
 * in float32 (every arithmetic instruction is fmag_eval, one fmaf rounding). */
#include "fmag/Bits.h"
#include "fmag/IR.h"

#include <assert.h>
#include <stdlib.h>

/* A program that runs this many instructions (phis included) in one
 * fmag_interp_func call is taken to loop forever. FMAG programs have no loops after
 * -O2; IR loops in tests run a few thousand iterations at most. */
#define FMAG_INTERP_STEP_BUDGET 10000000ul
/* Calls nested deeper than this are taken as unbounded recursion. Each level costs
 * a small C stack frame plus a heap frame of nvalues floats. */
#define FMAG_INTERP_MAX_DEPTH 512u

typedef struct interp {
    fmag_context *ctx;
    unsigned long steps;
    unsigned depth;
    bool nonfinite; /* fmag_interp_report.nonfinite */
} interp;

/* An f32 infinity or NaN: all exponent bits set. */
static inline bool bits_nonfinite(uint32_t bits)
{
    return (bits & 0x7f800000u) == 0x7f800000u;
}

static const char *func_name(const fmag_func *f)
{
    return f->name ? f->name : "<null>";
}

static void block_name(char *buf, size_t n, const fmag_block *b)
{
    if (b->name)
        snprintf(buf, n, "^%s", b->name);
    else
        snprintf(buf, n, "^bb%u", b->id);
}

/* A frame holds the 32 bits of each value id of the function (fmag_func_renumber
 * makes them dense), so a value's slot is its id: an f32's bit pattern or an i32;
 * constants carry their own bits. */
static inline uint32_t get(const uint32_t *frame, unsigned nvalues, const fmag_value *v)
{
    if (v->kind == FMAG_VALUE_CONST) return v->ibits;
    assert(v->id < nvalues && "operand not numbered in this function: verify first");
    (void)nvalues;
    return frame[v->id];
}

static inline float getf(const uint32_t *frame, unsigned nvalues, const fmag_value *v)
{
    return fmag_float_of(get(frame, nvalues, v));
}

static fmag_value *phi_incoming(const fmag_instr *phi, const fmag_block *from)
{
    for (unsigned k = 0; k < phi->nops; k++)
        if (phi->phi_blocks[k] == from) return phi->ops[k].value;
    return NULL;
}

static bool run(interp *st, fmag_func *f, const uint32_t *in, uint32_t *out)
{
    if (st->depth >= FMAG_INTERP_MAX_DEPTH) {
        fmag_context_error(st->ctx,
                           "error: in function @%s: calls nested deeper than %u (unbounded "
                           "recursion?)",
                           func_name(f), FMAG_INTERP_MAX_DEPTH);
        return false;
    }
    fmag_func_assert_valid(f, FMAG_VALID_VALUE_IDS);
    unsigned nv = f->nvalues;
    /* Second half: phi values read before any phi of the block is written, since
     * the phis of a block take their values simultaneously on entry. */
    uint32_t *frame = fmag_tmp_calloc(2 * (size_t)nv + 1, sizeof *frame);
    if (!frame) {
        fmag_context_error(st->ctx, "error: in function @%s: out of memory", func_name(f));
        return false;
    }
    uint32_t *phi_tmp = frame + nv;
    for (unsigned p = 0; p < f->nparams; p++) {
        frame[f->params[p].id] = in[p];
        if (f->params[p].type == FMAG_TYPE_F32) st->nonfinite |= bits_nonfinite(in[p]);
    }

    bool ok = false;
    char bname[64];
    st->depth++;
    fmag_block *b = f->first, *from = NULL;
    while (b) {
        fmag_instr *i = b->first;
        if (i && i->op == FMAG_OP_PHI) {
            if (!from) {
                fmag_context_error(st->ctx, "error: in function @%s: phi in the entry block",
                                   func_name(f));
                goto done;
            }
            unsigned n = 0;
            for (fmag_instr *p = i; p && p->op == FMAG_OP_PHI; p = p->next) {
                fmag_value *v = phi_incoming(p, from);
                if (!v) {
                    char fname[64];
                    block_name(bname, sizeof bname, b);
                    block_name(fname, sizeof fname, from);
                    fmag_context_error(st->ctx,
                                       "error: in function @%s, block %s: a phi has no "
                                       "incoming value for %s",
                                       func_name(f), bname, fname);
                    goto done;
                }
                phi_tmp[n++] = get(frame, nv, v);
            }
            st->steps += n;
            n = 0;
            for (; i && i->op == FMAG_OP_PHI; i = i->next)
                frame[i->results[0].id] = phi_tmp[n++];
        }
        fmag_block *next = NULL;
        for (; i; i = i->next) {
            if (++st->steps > FMAG_INTERP_STEP_BUDGET) {
                block_name(bname, sizeof bname, b);
                fmag_context_error(st->ctx,
                                   "error: in function @%s, block %s: more than %lu instructions "
                                   "executed (a loop that does not end?)",
                                   func_name(f), bname, FMAG_INTERP_STEP_BUDGET);
                goto done;
            }
            switch (i->op) {
            case FMAG_OP_FMAG: {
                uint32_t r = fmag_bits_of(fmag_eval(
                    getf(frame, nv, i->ops[FMAG_A].value), getf(frame, nv, i->ops[FMAG_B].value),
                    getf(frame, nv, i->ops[FMAG_C].value), getf(frame, nv, i->ops[FMAG_D].value),
                    getf(frame, nv, i->ops[FMAG_E].value)));
                st->nonfinite |= bits_nonfinite(r);
                frame[i->results[0].id] = r;
                break;
            }
            case FMAG_OP_INT: {
                uint32_t o[3] = {0, 0, 0};
                for (unsigned k = 0; k < i->nops && k < 3; k++)
                    o[k] = get(frame, nv, i->ops[k].value);
                uint32_t r = fmag_eval_int(i->iop, o[0], o[1], o[2]);
                if (i->results[0].type == FMAG_TYPE_F32) st->nonfinite |= bits_nonfinite(r);
                frame[i->results[0].id] = r;
                break;
            }
            case FMAG_OP_PHI: {
                block_name(bname, sizeof bname, b);
                fmag_context_error(st->ctx,
                                   "error: in function @%s, block %s: phi after a non-phi "
                                   "instruction",
                                   func_name(f), bname);
                goto done;
            }
            case FMAG_OP_CALL: {
                fmag_func *g = i->callee;
                uint32_t *io = fmag_tmp_malloc(((size_t)g->nparams + g->nresults + 1) * sizeof *io);
                if (!io) {
                    fmag_context_error(st->ctx, "error: in function @%s: out of memory",
                                       func_name(f));
                    goto done;
                }
                for (unsigned k = 0; k < g->nparams; k++)
                    io[k] = get(frame, nv, i->ops[k].value);
                bool called = run(st, g, io, io + g->nparams);
                if (called)
                    for (unsigned k = 0; k < i->nresults; k++)
                        frame[i->results[k].id] = io[g->nparams + k];
                fmag_tmp_free(io);
                if (!called) goto done;
                break;
            }
            case FMAG_OP_BR:
                next = getf(frame, nv, i->ops[0].value) > 0.0f ? i->targets[0] : i->targets[1];
                break;
            case FMAG_OP_JMP:
                next = i->targets[0];
                break;
            case FMAG_OP_RET:
                for (unsigned k = 0; k < i->nops; k++)
                    out[k] = get(frame, nv, i->ops[k].value);
                ok = true;
                goto done;
            }
            if (next) break;
        }
        if (!next) {
            block_name(bname, sizeof bname, b);
            fmag_context_error(st->ctx,
                               "error: in function @%s, block %s: control reaches the end of "
                               "the block without a terminator",
                               func_name(f), bname);
            goto done;
        }
        from = b;
        b = next;
    }
    fmag_context_error(st->ctx, "error: in function @%s: function has no blocks", func_name(f));
done:
    st->depth--;
    fmag_tmp_free(frame);
    return ok;
}

static bool fmag_interp_func_unguarded(fmag_func *f, const float *in, float *out,
                                       fmag_interp_report *report)
{
    /* Dense ids for every function that may be called; passes may have left gaps. */
    fmag_foreach_func (g, f->module)
        fmag_func_renumber(g);
    interp st = {.ctx = f->module->ctx};
    uint32_t *io = fmag_tmp_malloc(((size_t)f->nparams + f->nresults + 1) * sizeof *io);
    if (!io) {
        fmag_context_error(st.ctx, "error: in function @%s: out of memory", func_name(f));
        return false;
    }
    /* An i32 parameter takes a float holding the integer (SPEC §2b), truncated;
     * an i32 result gives the float nearest the integer, read as signed. */
    for (unsigned k = 0; k < f->nparams; k++)
        io[k] = f->params[k].type == FMAG_TYPE_I32
                    ? fmag_eval_int(in[k] < 0.0f ? FMAG_IOP_FPTOSI : FMAG_IOP_FPTOUI,
                                    fmag_bits_of(in[k]), 0, 0)
                    : fmag_bits_of(in[k]);
    bool ok = run(&st, f, io, io + f->nparams);
    if (report) {
        report->nonfinite = st.nonfinite;
        report->steps = st.steps;
    }
    if (ok)
        for (unsigned k = 0; k < f->nresults; k++) {
            uint32_t r = io[f->nparams + k];
            if (fmag_func_result_type(f, k) == FMAG_TYPE_I32)
                r = fmag_eval_int(FMAG_IOP_SITOFP, r, 0, 0);
            out[k] = fmag_float_of(r);
        }
    fmag_tmp_free(io);
    return ok;
}

/* The guarded entry point: an allocation failure inside ends in false with a
 * diagnostic (fmag_context_guard). */
struct fmag_interp_func_args {
    fmag_func *f;
    const float *in;
    float *out;
    fmag_interp_report *report;
    bool result;
};

static void fmag_interp_func_thunk(void *arg)
{
    struct fmag_interp_func_args *a = arg;
    a->result = fmag_interp_func_unguarded(a->f, a->in, a->out, a->report);
}

bool fmag_interp_func_ex(fmag_func *f, const float *in, float *out, fmag_interp_report *report)
{
    if (report) *report = (fmag_interp_report){false, 0};
    struct fmag_interp_func_args a = {f, in, out, report, false};
    return fmag_context_guard(f->module->ctx, fmag_interp_func_thunk, &a) ? a.result : false;
}

bool fmag_interp_func(fmag_func *f, const float *in, float *out)
{
    return fmag_interp_func_ex(f, in, out, NULL);
}
