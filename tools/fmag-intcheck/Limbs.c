/* fmag-intcheck's exhaustive sweeps of the two-operand expansions: every pair of
 * 16-bit limbs in one limb position of each operand (--pairs: add and sub with their
 * carries, each partial product of the multiply, the compares), and every dividend
 * of a division by a literal (--exhaustive OP --literal C: the long division by limbs
 * and bytes). The compiled -O2 program runs on the batch engine, every 64th case on
 * the reference VM too, against fmag_eval_int. */
#include "IntCheck.h"

#include "fmag/Transforms.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find_op(const char *name)
{
    for (int o = 0; o < FMAG_IOP_COUNT; o++) {
        fmag_int_op op = (fmag_int_op)o;
        if (!strcmp(fmag_int_op_name(op), name) && fmag_int_op_nops(op) == 2 &&
            fmag_int_op_operand_type(op, 0) == FMAG_TYPE_I32 &&
            fmag_int_op_operand_type(op, 1) == FMAG_TYPE_I32)
            return o;
    }
    fprintf(stderr, "fmag-intcheck: error: '%s' is not a two-operand integer operation\n", name);
    return -1;
}

/* An i32 operand from two inputs that are its 16-bit halves, each clamped to
 * [0, 65535] so that the range analysis keeps it one float: the operand's limbs then
 * cost a few instructions and the operation's own full-width expansion is most of
 * the program. */
static fmag_value *operand(fmag_builder *b, fmag_func *f, unsigned k)
{
    fmag_value *h[2];
    for (unsigned j = 0; j < 2; j++) {
        fmag_value *c =
            fmag_build_min(b, fmag_build_max(b, &f->params[k + j], fmag_build_const(b, 0.0f)),
                           fmag_build_const(b, 65535.0f));
        h[j] = fmag_build_int(b, FMAG_IOP_FPTOUI, c, NULL, NULL);
    }
    fmag_value *s = fmag_build_int(b, FMAG_IOP_SHL, h[0], fmag_build_const_i32(b, 16), NULL);
    return fmag_build_int(b, FMAG_IOP_ADD, s, h[1], NULL);
}

/* OP(x, y) with y from inputs 2 and 3, or OP(x, literal) when lit is not NULL. */
static fmag_module *module(fmag_context *ctx, fmag_int_op op, const uint32_t *lit)
{
    fmag_module *m = fmag_module_create(ctx);
    bool i32 = fmag_int_op_result_type(op) == FMAG_TYPE_I32;
    fmag_func *f = fmag_func_create(m, "limbs", lit ? 2 : 4, i32 ? 2 : 1, true);
    fmag_builder b;
    fmag_builder_at_end(&b, fmag_block_create(f, "entry"));
    fmag_value *x = operand(&b, f, 0);
    fmag_value *y = lit ? fmag_build_const_i32(&b, *lit) : operand(&b, f, 2);
    fmag_value *r = fmag_build_int(&b, op, x, y, NULL), *out[2] = {r, NULL};
    if (i32) {
        fmag_value *hi = fmag_build_int(&b, FMAG_IOP_LSHR, r, fmag_build_const_i32(&b, 16), NULL);
        fmag_value *lo =
            fmag_build_int(&b, FMAG_IOP_AND, r, fmag_build_const_i32(&b, 0xFFFF), NULL);
        out[0] = fmag_build_int(&b, FMAG_IOP_UITOFP, hi, NULL, NULL);
        out[1] = fmag_build_int(&b, FMAG_IOP_UITOFP, lo, NULL, NULL);
    }
    fmag_build_ret(&b, out, i32 ? 2 : 1);
    return m;
}

typedef struct sweep {
    fmag_int_op op;
    bool literal;
    uint32_t c;       /* the literal */
    int xhalf, yhalf; /* pairs: where a and b go */
    uint32_t ox, oy;  /* pairs: the other limbs */
} sweep;

static void operands(const sweep *s, uint64_t n, uint32_t *x, uint32_t *y)
{
    if (s->literal) {
        *x = (uint32_t)n;
        *y = s->c;
        return;
    }
    uint32_t a = (uint32_t)(n >> 16), b = (uint32_t)(n & 0xFFFF);
    *x = s->xhalf ? a << 16 | (s->ox & 0xFFFF) : (s->ox << 16) | a;
    *y = s->yhalf ? b << 16 | (s->oy & 0xFFFF) : (s->oy << 16) | b;
}

static float f_of(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static bool run(const sweep *s, uint64_t from, uint64_t to)
{
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = module(ctx, s->op, s->literal ? &s->c : NULL);
    compiled c;
    if (!intcheck_compile(m, &c, ctx)) {
        fmag_context_diag_print(ctx, stderr);
        fmag_context_destroy(ctx);
        return false;
    }
    unsigned nin = s->literal ? 2 : 4, nout = c.p->nout;
    enum { CHUNK = 1 << 20 };
    float *in = malloc((size_t)CHUNK * nin * sizeof *in), *want = malloc(CHUNK * 2 * sizeof *want);
    float *got = malloc(CHUNK * 2 * sizeof *got), *regs = malloc((c.p->regs + 1) * sizeof *regs);
    uint32_t *xs = malloc(CHUNK * 2 * sizeof *xs);
    bool ok = in && want && got && regs && xs;
    if (!ok) fprintf(stderr, "fmag-intcheck: error: out of memory\n");
    unsigned long long cases = 0, failures = 0;
    for (uint64_t n0 = from; n0 < to && ok; n0 += CHUNK) {
        size_t n = to - n0 < CHUNK ? (size_t)(to - n0) : CHUNK;
        for (size_t t = 0; t < n; t++) {
            uint32_t x, y;
            operands(s, n0 + t, &x, &y);
            xs[2 * t] = x, xs[2 * t + 1] = y;
            float *v = in + t * nin;
            v[0] = (float)(x >> 16), v[1] = (float)(x & 0xFFFF);
            if (!s->literal) v[2] = (float)(y >> 16), v[3] = (float)(y & 0xFFFF);
            uint32_t r = fmag_eval_int(s->op, x, y, 0);
            if (nout == 2)
                want[2 * t] = (float)(r >> 16), want[2 * t + 1] = (float)(r & 0xFFFF);
            else
                want[t] = f_of(r);
        }
        char err[256];
        if (!fmag_vm_run_batch(c.p, in, got, n, err, sizeof err)) {
            fprintf(stderr, "fmag-intcheck: error: %s\n", err);
            ok = false;
            break;
        }
        for (size_t t = 0; t < n; t++) {
            float ref[2];
            bool use_ref = t % 64 == 0;
            if (use_ref) fmag_vm_run(c.p, in + t * nin, ref, regs);
            for (unsigned k = 0; k < nout; k++) {
                float w = want[t * nout + k], g = got[t * nout + k];
                if (intcheck_same(w, g) && (!use_ref || intcheck_same(w, ref[k]))) continue;
                if (failures++ < 10)
                    printf("FAIL: %s(0x%08" PRIx32 ", 0x%08" PRIx32 "): output %u want %.9g got "
                           "%.9g%s\n",
                           fmag_int_op_name(s->op), xs[2 * t], xs[2 * t + 1], k, w, g,
                           intcheck_same(w, g) ? " (reference VM)" : "");
            }
        }
        cases += n;
    }
    if (s->literal)
        printf("%s by %" PRIu32 ": x 0x%08" PRIx64 "..0x%08" PRIx64 ": %u instructions, %llu "
               "cases, %llu failures\n",
               fmag_int_op_name(s->op), s->c, from, to - 1, c.ninstr, cases, failures);
    else
        printf("%s pairs (x %s limb, y %s limb, others 0x%04" PRIx32 " 0x%04" PRIx32
               "): 0x%08" PRIx64 "..0x%08" PRIx64 ": %u instructions, %llu cases, %llu failures\n",
               fmag_int_op_name(s->op), s->xhalf ? "hi" : "lo", s->yhalf ? "hi" : "lo",
               s->ox & 0xFFFF, s->oy & 0xFFFF, from, to - 1, c.ninstr, cases, failures);
    free(in);
    free(want);
    free(got);
    free(regs);
    free(xs);
    fmag_vm_image_free(&c.img);
    fmag_context_destroy(ctx);
    return ok && !failures;
}

bool intcheck_pairs(const char *op, int xhalf, int yhalf, uint32_t ox, uint32_t oy, uint64_t from,
                    uint64_t to)
{
    int o = find_op(op);
    if (o < 0) return false;
    sweep s = {(fmag_int_op)o, false, 0, xhalf, yhalf, ox, oy};
    return run(&s, from, to);
}

bool intcheck_literal(const char *op, uint32_t c, uint64_t from, uint64_t to)
{
    int o = find_op(op);
    if (o < 0) return false;
    sweep s = {(fmag_int_op)o, true, c, 0, 0, 0, 0};
    return run(&s, from, to);
}
