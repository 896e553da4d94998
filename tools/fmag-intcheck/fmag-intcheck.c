/* fmag-intcheck: checks -legalize-int against fmag_eval_int, the IR's definition of
 * every integer operation. Three modes:
 *   --ops            every operation of IntOps.def, alone, on the edge values of each
 *                    operand kind (all pairs) plus random ones;
 *   --exhaustive OP  every 32-bit input of a one-operand operation (every float for
 *                    fptosi, fptoui, bitcast.i32; every integer for the others), or a
 *                    slice of them with --from/--to (scripts/intcheck-exhaustive.sh
 *                    runs the slices on many cores);
 *   --random N       N random integer programs (straight line and diamonds with i32
 *                    phis), the IR interpreter on the unoptimized module against the
 *                    -O2 (legalized) program lowered and run on the reference VM and
 *                    the batch engine.
 * Each program goes through -O2 and codegen exactly as slc and fmag-opt do. Results
 * must agree bit for bit (+0 and -0 equal; any NaN equals any NaN). */
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"
#include "IntCheck.h"
#include "Options.h"
#include "../common/Rng.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXIO 16

static unsigned rint_(rng *r, unsigned n)
{
    return n ? rndn(r, n) : 0;
}

static float f_of(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}
static uint32_t b_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

bool intcheck_same(float a, float b)
{
    if (isnan(a) && isnan(b)) return true;
    return a == b && (a != 0.0f || b == 0.0f) ? true : b_of(a) == b_of(b) || (a == 0 && b == 0);
}

/* ------------------------------------------------------------ compiled programs */

bool intcheck_compile(fmag_module *m, compiled *c, fmag_context *ctx)
{
    fmag_vm_image_init(&c->img);
    if (!fmag_run_passes(m, "O2", NULL)) return false;
    fmag_foreach_func (f, m) {
        if (fmag_func_has_int(f)) {
            fmag_context_error(ctx, "error: an integer survived -O2 in @%s", f->name);
            return false;
        }
        if (!fmag_codegen_func(f, &c->img, NULL)) return false;
        break;
    }
    c->p = &c->img.programs[0];
    c->ninstr = c->p->ninstr;
    return true;
}

/* ------------------------------------------------------------ one operation */

/* An i32 operand is two inputs (its 16-bit halves); an f32 one is one input. Joined
 * by iadd the operand arrives as limbs, by or in bit form: each operation is checked
 * both ways (the two forms take different expansions). */
static fmag_value *int_input(fmag_builder *b, fmag_func *f, unsigned *k, bool bits)
{
    fmag_value *h = fmag_build_int(b, FMAG_IOP_FPTOUI, &f->params[(*k)++], NULL, NULL);
    fmag_value *l = fmag_build_int(b, FMAG_IOP_FPTOUI, &f->params[(*k)++], NULL, NULL);
    fmag_value *s = fmag_build_int(b, FMAG_IOP_SHL, h, fmag_build_const_i32(b, 16), NULL);
    return fmag_build_int(b, bits ? FMAG_IOP_OR : FMAG_IOP_ADD, s, l, NULL);
}

static unsigned op_nin(fmag_int_op op)
{
    unsigned n = 0;
    for (unsigned k = 0; k < fmag_int_op_nops(op); k++)
        n += fmag_int_op_operand_type(op, k) == FMAG_TYPE_I32 ? 2 : 1;
    return n;
}

static unsigned op_nout(fmag_int_op op)
{
    return fmag_int_op_result_type(op) == FMAG_TYPE_I32 ? 2 : 1;
}

static fmag_module *op_module(fmag_context *ctx, fmag_int_op op, bool bits)
{
    fmag_module *m = fmag_module_create(ctx);
    fmag_func *f = fmag_func_create(m, "op", op_nin(op), op_nout(op), true);
    fmag_builder b;
    fmag_builder_at_end(&b, fmag_block_create(f, "entry"));
    fmag_value *ops[3] = {NULL, NULL, NULL};
    unsigned k = 0;
    for (unsigned j = 0; j < fmag_int_op_nops(op); j++)
        ops[j] = fmag_int_op_operand_type(op, j) == FMAG_TYPE_I32 ? int_input(&b, f, &k, bits)
                                                                  : &f->params[k++];
    fmag_value *r = fmag_build_int(&b, op, ops[0], ops[1], ops[2]);
    fmag_value *out[2];
    if (r->type == FMAG_TYPE_I32) {
        fmag_value *hi = fmag_build_int(&b, FMAG_IOP_LSHR, r, fmag_build_const_i32(&b, 16), NULL);
        fmag_value *lo =
            fmag_build_int(&b, FMAG_IOP_AND, r, fmag_build_const_i32(&b, 0xFFFF), NULL);
        out[0] = fmag_build_int(&b, FMAG_IOP_UITOFP, hi, NULL, NULL);
        out[1] = fmag_build_int(&b, FMAG_IOP_UITOFP, lo, NULL, NULL);
    } else {
        out[0] = r;
    }
    fmag_build_ret(&b, out, op_nout(op));
    return m;
}

/* The inputs of one evaluation from the operands' 32 bits, and the expected outputs. */
static void op_case(fmag_int_op op, const uint32_t *v, float *in, float *want)
{
    unsigned k = 0;
    for (unsigned j = 0; j < fmag_int_op_nops(op); j++) {
        if (fmag_int_op_operand_type(op, j) == FMAG_TYPE_I32) {
            in[k++] = (float)(v[j] >> 16);
            in[k++] = (float)(v[j] & 0xFFFF);
        } else {
            in[k++] = f_of(v[j]);
        }
    }
    uint32_t r = fmag_eval_int(op, v[0], v[1], v[2]);
    if (fmag_int_op_result_type(op) == FMAG_TYPE_I32) {
        want[0] = (float)(r >> 16);
        want[1] = (float)(r & 0xFFFF);
    } else {
        want[0] = f_of(r);
    }
}

static const uint32_t int_edges[] = {
    0,          1,          2,          3,          5,          7,          0xF,        0x10,
    0x1F,       0x20,       0x21,       0xFF,       0x100,      0x7FFF,     0x8000,     0xFFFF,
    0x10000,    0x10001,    0xFFFFFF,   0x1000000,  0x1000001,  0x7FFFFFFF, 0x80000000, 0x80000001,
    0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFF0, 0xFFFF0000, 0xFFFF8000, 0xFF000000, 0xFEFFFFFF, 0xFFFFFFE0,
    0xAAAAAAAA, 0x55555555, 0x9E3779B9, 0x85EBCA6B, 0xC2B2AE35, 0x12345678, 10,         100,
    0xFFFFFFF6, 0xFFFFFF9C, 0x7FFF0000, 0x00FF00FF};
static const float float_edges[] = {0.0f,
                                    -0.0f,
                                    0.5f,
                                    -0.5f,
                                    0.99999994f,
                                    1.0f,
                                    -1.0f,
                                    1.5f,
                                    -1.5f,
                                    2.5f,
                                    -2.5f,
                                    8388607.5f,
                                    8388608.0f,
                                    16777216.0f,
                                    16777218.0f,
                                    2147483520.0f,
                                    2147483648.0f,
                                    -2147483648.0f,
                                    -2147483904.0f,
                                    4294967040.0f,
                                    4294967296.0f,
                                    -4294967296.0f,
                                    3e38f,
                                    -3e38f,
                                    1e-45f,
                                    -1e-45f,
                                    1.1754942e-38f,
                                    1.17549435e-38f,
                                    INFINITY,
                                    -INFINITY,
                                    NAN,
                                    65535.5f,
                                    -65536.0f,
                                    123456.789f,
                                    -98765.4321f,
                                    1e10f};

static uint32_t rand_operand(rng *r, fmag_type t)
{
    unsigned c = rint_(r, 8);
    if (t == FMAG_TYPE_F32) {
        if (c == 0) return b_of(float_edges[rint_(r, sizeof float_edges / sizeof *float_edges)]);
        if (c < 4)
            return b_of(
                       ldexpf((float)(rnd64(r) & 0xFFFFFF) / 16777216.0f, (int)rint_(r, 70) - 20)) ^
                   (uint32_t)(rint_(r, 2) << 31);
        return (uint32_t)rnd64(r);
    }
    if (c == 0) return int_edges[rint_(r, sizeof int_edges / sizeof *int_edges)];
    if (c == 1) return (uint32_t)rint_(r, 64);
    if (c == 2) return (uint32_t)(int32_t)((int)rint_(r, 2001) - 1000);
    return (uint32_t)rnd64(r);
}

typedef struct counts {
    unsigned long long cases, failures;
} counts;

static bool finite_inputs(fmag_int_op op, const uint32_t *v)
{
    for (unsigned j = 0; j < fmag_int_op_nops(op); j++)
        if (fmag_int_op_operand_type(op, j) == FMAG_TYPE_F32 && !isfinite(f_of(v[j]))) return false;
    return true;
}

/* The legalized IR (-legalize-int alone) on the IR interpreter: exact for every
 * input, infinities and NaNs included (the strict contract of the later passes and
 * of codegen covers finite inputs only, SPEC §2). */
static void run_ir(fmag_func *f, fmag_int_op op, const uint32_t *vals, size_t n, counts *cnt)
{
    unsigned nin = op_nin(op), nout = op_nout(op);
    for (size_t t = 0; t < n; t++) {
        float in[MAXIO], want[MAXIO], got[MAXIO];
        op_case(op, vals + 3 * t, in, want);
        fmag_interp_func(f, in, got);
        (void)nin;
        for (unsigned k = 0; k < nout; k++) {
            if (intcheck_same(want[k], got[k])) continue;
            if (cnt->failures++ < 10)
                printf("FAIL: %s(0x%08" PRIx32 ", 0x%08" PRIx32 ", 0x%08" PRIx32
                       "): output %u want %.9g got %.9g (legalized IR, interpreter)\n",
                       fmag_int_op_name(op), vals[3 * t], vals[3 * t + 1], vals[3 * t + 2], k,
                       want[k], got[k]);
        }
    }
    cnt->cases += n;
}

/* Runs n cases through the program on the batch engine (and every 64th on the
 * reference VM); reports the first mismatches. */
static bool run_cases(const compiled *c, fmag_int_op op, const uint32_t *vals, size_t n,
                      counts *cnt, bool ref_all)
{
    unsigned nin = op_nin(op), nout = op_nout(op);
    float *in = malloc(n * nin * sizeof *in), *want = malloc(n * nout * sizeof *want);
    float *got = malloc(n * nout * sizeof *got);
    float *regs = malloc((c->p->regs + 1) * sizeof *regs);
    if (!in || !want || !got || !regs) {
        fprintf(stderr, "fmag-intcheck: error: out of memory\n");
        exit(1);
    }
    for (size_t t = 0; t < n; t++)
        op_case(op, vals + 3 * t, in + t * nin, want + t * nout);
    char err[256];
    bool ok = fmag_vm_run_batch(c->p, in, got, n, err, sizeof err);
    if (!ok) fprintf(stderr, "fmag-intcheck: error: %s\n", err);
    for (size_t t = 0; t < n && ok; t++) {
        float ref[MAXIO];
        bool use_ref = ref_all || t % 64 == 0;
        if (use_ref) fmag_vm_run(c->p, in + t * nin, ref, regs);
        for (unsigned k = 0; k < nout; k++) {
            float w = want[t * nout + k], g = got[t * nout + k];
            if (intcheck_same(w, g) && (!use_ref || intcheck_same(w, ref[k]))) continue;
            if (!finite_inputs(op, vals + 3 * t)) continue; /* outside the contract */
            if (cnt->failures++ < 10)
                printf("FAIL: %s(0x%08" PRIx32 ", 0x%08" PRIx32 ", 0x%08" PRIx32
                       "): output %u want %.9g (0x%08" PRIx32 ") got %.9g (0x%08" PRIx32 ")%s\n",
                       fmag_int_op_name(op), vals[3 * t], vals[3 * t + 1], vals[3 * t + 2], k, w,
                       b_of(w), g, b_of(g),
                       use_ref && !intcheck_same(w, ref[k]) ? " (reference VM)" : "");
        }
    }
    cnt->cases += n;
    free(in);
    free(want);
    free(got);
    free(regs);
    return ok;
}

static bool check_ops(unsigned long nrandom, uint64_t seed, bool verbose)
{
    bool all_ok = true;
    for (int o = 0; o < 2 * FMAG_IOP_COUNT; o++) {
        fmag_int_op op = (fmag_int_op)(o / 2);
        bool bits = o % 2;
        if (bits && fmag_int_op_operand_type(op, 0) == FMAG_TYPE_F32) continue;
        fmag_context *ctx = fmag_context_create();
        fmag_module *m = op_module(ctx, op, bits);
        fmag_module *ir = fmag_module_clone(m);
        compiled c;
        bool ir_ok = fmag_run_passes(ir, "legalize-int", NULL) && !fmag_func_has_int(ir->first);
        if (!ir_ok || !intcheck_compile(m, &c, ctx)) {
            printf("FAIL: %s: compiling failed\n", fmag_int_op_name(op));
            fmag_context_diag_print(ctx, stdout);
            fmag_context_destroy(ctx);
            all_ok = false;
            continue;
        }
        /* all pairs of edges (a select's guard: an edge float), then random */
        size_t ne = sizeof int_edges / sizeof *int_edges,
               nf = sizeof float_edges / sizeof *float_edges;
        size_t cap = ne * ne * 2 + nf * 2 + ne * 64 + nrandom;
        uint32_t *vals = calloc(cap * 3, sizeof *vals);
        size_t n = 0;
        unsigned nops = fmag_int_op_nops(op);
        if (fmag_int_op_operand_type(op, 0) == FMAG_TYPE_F32) {
            for (size_t i = 0; i < nf; i++)
                vals[3 * n++] = b_of(float_edges[i]);
        } else if (nops == 1) {
            for (size_t i = 0; i < ne; i++)
                vals[3 * n++] = int_edges[i];
        } else {
            for (size_t i = 0; i < ne; i++)
                for (size_t j = 0; j < ne; j++) {
                    vals[3 * n] = int_edges[i];
                    vals[3 * n + 1] = int_edges[j];
                    vals[3 * n + 2] = b_of((i + j) % 3 == 0   ? 1.0f
                                           : (i + j) % 3 == 1 ? -0.0f
                                                              : NAN);
                    n++;
                }
        }
        if (op == FMAG_IOP_SHL || op == FMAG_IOP_LSHR || op == FMAG_IOP_ASHR)
            for (size_t i = 0; i < ne; i++) /* every amount, and amounts past 31 */
                for (uint32_t a = 0; a < 64; a++, n++) {
                    vals[3 * n] = int_edges[i];
                    vals[3 * n + 1] = a;
                }
        rng r = {seed * 0x9E3779B97F4A7C15ull + (uint64_t)o};
        for (unsigned long t = 0; t < nrandom; t++, n++)
            for (unsigned j = 0; j < nops; j++)
                vals[3 * n + j] = rand_operand(&r, fmag_int_op_operand_type(op, j));
        counts cnt = {0, 0}, icnt = {0, 0};
        bool ok = run_cases(&c, op, vals, n, &cnt, true);
        fmag_func_renumber(ir->first);
        run_ir(ir->first, op, vals, n, &icnt);
        printf("%-12s %-5s %5u instructions (-O2, operand/result plumbing included), %llu cases "
               "on the VMs, %llu on the legalized IR, %llu failures\n",
               fmag_int_op_name(op), bits ? "bits" : "limbs", c.ninstr, cnt.cases, icnt.cases,
               cnt.failures + icnt.failures);
        cnt.failures += icnt.failures;
        (void)verbose;
        all_ok &= ok && !cnt.failures;
        free(vals);
        fmag_vm_image_free(&c.img);
        fmag_context_destroy(ctx);
    }
    return all_ok;
}

static bool check_exhaustive(const char *name, uint64_t from, uint64_t to)
{
    int op = -1;
    for (int o = 0; o < FMAG_IOP_COUNT; o++)
        if (!strcmp(fmag_int_op_name((fmag_int_op)o), name)) op = o;
    if (op < 0 || fmag_int_op_nops((fmag_int_op)op) != 1) {
        fprintf(stderr, "fmag-intcheck: error: '%s' is not a one-operand integer operation\n",
                name);
        return false;
    }
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = op_module(ctx, (fmag_int_op)op, false);
    fmag_module *ir = fmag_module_clone(m);
    compiled c;
    if (!fmag_run_passes(ir, "legalize-int", NULL) || !intcheck_compile(m, &c, ctx)) {
        fmag_context_diag_print(ctx, stderr);
        return false;
    }
    fmag_func_renumber(ir->first);
    bool float_op = fmag_int_op_operand_type((fmag_int_op)op, 0) == FMAG_TYPE_F32;
    unsigned long long nonfinite = 0;
    enum { CHUNK = 1 << 20 };
    uint32_t *vals = calloc(3 * CHUNK, sizeof *vals);
    counts cnt = {0, 0};
    bool ok = true;
    for (uint64_t x = from; x < to && ok; x += CHUNK) {
        size_t n = to - x < CHUNK ? (size_t)(to - x) : CHUNK;
        for (size_t t = 0; t < n; t++)
            vals[3 * t] = (uint32_t)(x + t);
        ok = run_cases(&c, (fmag_int_op)op, vals, n, &cnt, false);
        /* infinities and NaNs: outside codegen's contract, exact on the legalized IR */
        for (size_t t = 0; float_op && t < n; t++)
            if (!isfinite(f_of(vals[3 * t]))) {
                counts ic = {0, 0};
                run_ir(ir->first, (fmag_int_op)op, vals + 3 * t, 1, &ic);
                cnt.failures += ic.failures;
                nonfinite++;
            }
    }
    printf("%s: inputs 0x%08" PRIx64 "..0x%08" PRIx64
           ": %u instructions, %llu non-finite on the legalized IR, %llu cases, %llu failures\n",
           name, from, to - 1, c.ninstr, nonfinite, cnt.cases, cnt.failures);
    free(vals);
    fmag_vm_image_free(&c.img);
    fmag_context_destroy(ctx);
    return ok && !cnt.failures;
}

/* ------------------------------------------------------------ random programs */

typedef struct gen {
    rng *r;
    fmag_builder b;
    fmag_func *f;
    fmag_value *ints[256];
    unsigned nints;
    fmag_value *floats[64];
    unsigned nfloats;
} gen;

static fmag_value *pick_int(gen *g)
{
    if (!g->nints || rint_(g->r, 10) == 0) {
        uint32_t v = rint_(g->r, 2)   ? int_edges[rint_(g->r, sizeof int_edges / sizeof *int_edges)]
                     : rint_(g->r, 2) ? (uint32_t)rint_(g->r, 40)
                                      : (uint32_t)rnd64(g->r);
        return fmag_build_const_i32(&g->b, v);
    }
    return g->ints[g->nints - 1 - rint_(g->r, g->nints < 12 ? g->nints : 12)];
}

static void push_int(gen *g, fmag_value *v)
{
    if (g->nints < 256) g->ints[g->nints++] = v;
}

static fmag_value *pick_float(gen *g)
{
    return g->floats[rint_(g->r, g->nfloats)];
}

static void gen_int(gen *g)
{
    static const fmag_int_op binops[] = {FMAG_IOP_ADD,  FMAG_IOP_SUB,  FMAG_IOP_MUL,  FMAG_IOP_SDIV,
                                         FMAG_IOP_UDIV, FMAG_IOP_SREM, FMAG_IOP_UREM, FMAG_IOP_SMOD,
                                         FMAG_IOP_AND,  FMAG_IOP_OR,   FMAG_IOP_XOR,  FMAG_IOP_SHL,
                                         FMAG_IOP_LSHR, FMAG_IOP_ASHR, FMAG_IOP_ADD,  FMAG_IOP_MUL,
                                         FMAG_IOP_XOR,  FMAG_IOP_AND,  FMAG_IOP_LSHR, FMAG_IOP_SUB};
    unsigned c = rint_(g->r, 20);
    fmag_value *v;
    if (c < 11) {
        fmag_int_op op = binops[rint_(g->r, sizeof binops / sizeof *binops)];
        fmag_value *x = pick_int(g), *y = pick_int(g);
        /* small amounts and masks now and then: the in-range paths */
        if ((op == FMAG_IOP_SHL || op == FMAG_IOP_LSHR || op == FMAG_IOP_ASHR) && rint_(g->r, 2))
            y = fmag_build_const_i32(&g->b, rint_(g->r, 40));
        if (op == FMAG_IOP_AND && rint_(g->r, 2))
            y = fmag_build_const_i32(&g->b, (1u << rint_(g->r, 20)) - 1);
        v = fmag_build_int(&g->b, op, x, y, NULL);
    } else if (c < 13) {
        static const fmag_int_op un[] = {FMAG_IOP_NOT, FMAG_IOP_NEG};
        v = fmag_build_int(&g->b, un[rint_(g->r, 2)], pick_int(g), NULL, NULL);
    } else if (c < 15) {
        static const fmag_int_op conv[] = {FMAG_IOP_FPTOSI, FMAG_IOP_FPTOUI, FMAG_IOP_F2I};
        v = fmag_build_int(&g->b, conv[rint_(g->r, 3)], pick_float(g), NULL, NULL);
    } else if (c < 17) {
        fmag_value *cmp = fmag_build_int(&g->b, (fmag_int_op)(FMAG_IOP_EQ + rint_(g->r, 10)),
                                         pick_int(g), pick_int(g), NULL);
        v = fmag_build_int(&g->b, FMAG_IOP_SELECT, pick_int(g), pick_int(g), cmp);
    } else if (c < 18) {
        /* a float made from integers, fed back */
        static const fmag_int_op tof[] = {FMAG_IOP_SITOFP, FMAG_IOP_UITOFP, FMAG_IOP_I2F};
        fmag_value *f = fmag_build_int(&g->b, tof[rint_(g->r, 3)], pick_int(g), NULL, NULL);
        if (g->nfloats < 64) g->floats[g->nfloats++] = f;
        v = fmag_build_int(&g->b, rint_(g->r, 2) ? FMAG_IOP_FPTOSI : FMAG_IOP_F2I, f, NULL, NULL);
    } else {
        /* a bounded float: the range analysis keeps it one float (a select of
         * literals, or a clamp of a scaled input as shaders index with) */
        fmag_value *x = pick_float(g), *cl;
        if (rint_(g->r, 2)) {
            cl = fmag_build_select(&g->b, fmag_build_const(&g->b, (float)rint_(g->r, 300)),
                                   fmag_build_const(&g->b, -(float)rint_(g->r, 300)), x);
        } else {
            float lo = (float)((int)rint_(g->r, 2000) - 1000) * 0.75f;
            float hi = lo + (float)rint_(g->r, 1u << (rint_(g->r, 24) + 1));
            /* clamp an input, then scale: no float arithmetic on an inf or NaN the
             * original could make (outside SPEC §2's contract, where -O2 may differ) */
            fmag_value *k = fmag_build_const(&g->b, (float)rint_(g->r, 64) + 0.5f);
            x = g->floats[rint_(g->r, g->f->nparams)];
            fmag_value *cx =
                fmag_build_min(&g->b, fmag_build_max(&g->b, x, fmag_build_const(&g->b, lo)),
                               fmag_build_const(&g->b, hi));
            cl = fmag_build_mul(&g->b, cx, k);
        }
        v = fmag_build_int(&g->b, FMAG_IOP_FPTOSI, cl, NULL, NULL);
    }
    push_int(g, v);
}

static fmag_value *int_out(gen *g, fmag_value *v, unsigned kind)
{
    switch (kind % 4) {
    case 0:
        return fmag_build_int(
            &g->b, FMAG_IOP_UITOFP,
            fmag_build_int(&g->b, FMAG_IOP_LSHR, v, fmag_build_const_i32(&g->b, 16), NULL), NULL,
            NULL);
    case 1:
        return fmag_build_int(
            &g->b, FMAG_IOP_UITOFP,
            fmag_build_int(&g->b, FMAG_IOP_AND, v, fmag_build_const_i32(&g->b, 0xFFFF), NULL), NULL,
            NULL);
    case 2:
        return fmag_build_int(&g->b, FMAG_IOP_SITOFP, v, NULL, NULL);
    default:
        return fmag_build_int(&g->b, FMAG_IOP_I2F, v, NULL, NULL);
    }
}

/* One arm of a diamond: n operations in blk, then a jump to join. What it made is
 * out of scope afterwards (the join sees it through the phi only). */
static fmag_value *gen_arm(gen *g, fmag_block *blk, fmag_block *join, unsigned n)
{
    unsigned base = g->nints, fbase = g->nfloats;
    fmag_builder_at_end(&g->b, blk);
    for (unsigned k = 0; k < n; k++)
        gen_int(g);
    fmag_value *v = g->ints[g->nints - 1];
    fmag_build_jmp(&g->b, join);
    g->nints = base;
    g->nfloats = fbase;
    return v;
}

static fmag_module *gen_module(fmag_context *ctx, rng *r, unsigned nin, unsigned *nout)
{
    fmag_module *m = fmag_module_create(ctx);
    *nout = 2 + rint_(r, 3);
    fmag_func *f = fmag_func_create(m, "main", nin, *nout, true);
    gen g;
    memset(&g, 0, sizeof g);
    g.r = r;
    g.f = f;
    fmag_block *entry = fmag_block_create(f, "entry");
    fmag_builder_at_end(&g.b, entry);
    for (unsigned k = 0; k < nin; k++)
        g.floats[g.nfloats++] = &f->params[k];
    static const fmag_int_op from_float[] = {FMAG_IOP_FPTOSI, FMAG_IOP_FPTOUI, FMAG_IOP_F2I};
    for (unsigned k = 0; k < nin; k++)
        push_int(&g, fmag_build_int(&g.b, from_float[rint_(r, 3)], &f->params[k], NULL, NULL));
    unsigned n = 3 + rint_(r, 14);
    for (unsigned k = 0; k < n; k++)
        gen_int(&g);
    if (rint_(r, 3) == 0) {
        /* a diamond: each arm computes, the join has i32 phis */
        fmag_value *cmp = fmag_build_int(&g.b, (fmag_int_op)(FMAG_IOP_EQ + rint_(r, 10)),
                                         pick_int(&g), pick_int(&g), NULL);
        fmag_block *t = fmag_block_create(f, "then"), *e = fmag_block_create(f, "else");
        fmag_block *j = fmag_block_create(f, "join");
        fmag_build_br(&g.b, cmp, t, e);
        fmag_value *tv = gen_arm(&g, t, j, 2), *ev = gen_arm(&g, e, j, 1);
        fmag_builder_at_end(&g.b, j);
        fmag_instr *phi = fmag_build_phi_typed(&g.b, FMAG_TYPE_I32);
        fmag_phi_add_incoming(phi, tv, t);
        fmag_phi_add_incoming(phi, ev, e);
        push_int(&g, &phi->results[0]);
        gen_int(&g);
    }
    fmag_value *outs[8];
    for (unsigned k = 0; k < *nout; k++) {
        unsigned c = rint_(r, 10);
        if (c == 0)
            outs[k] = fmag_build_int(&g.b, (fmag_int_op)(FMAG_IOP_EQ + rint_(r, 10)), pick_int(&g),
                                     pick_int(&g), NULL);
        else
            outs[k] = int_out(&g, g.ints[g.nints - 1 - rint_(r, g.nints < 4 ? g.nints : 4)], c);
    }
    fmag_build_ret(&g.b, outs, *nout);
    return m;
}

static float rand_input(rng *r)
{
    unsigned c = rint_(r, 8);
    if (c == 0) {
        float f = float_edges[rint_(r, sizeof float_edges / sizeof *float_edges)];
        return isfinite(f) ? f : 1.0f;
    }
    if (c < 3) return (float)((int)rint_(r, 2001) - 1000);
    if (c < 6)
        return ldexpf((float)(rnd64(r) & 0xFFFFFF) / 16777216.0f, (int)rint_(r, 40)) *
               (rint_(r, 2) ? 1.0f : -1.0f);
    for (;;) { /* finite: the strict contract covers runs without inf or NaN inputs */
        float f = f_of((uint32_t)rnd64(r));
        if (isfinite(f)) return f;
    }
}

static bool check_random(unsigned long count, uint64_t seed, unsigned ninputs, bool verbose)
{
    unsigned long fails = 0, runs = 0;
    size_t instrs = 0;
    for (unsigned long it = 0; it < count && fails < 5; it++) {
        rng r = {seed * 0x100000001b3ull + it};
        fmag_context *ctx = fmag_context_create();
        unsigned nin = 1 + rint_(&r, 3), nout;
        fmag_module *m = gen_module(ctx, &r, nin, &nout);
        if (!fmag_verify_module(m)) {
            printf("internal error: generated module %lu is invalid\n", it);
            fmag_context_diag_print(ctx, stdout);
            fmag_module_print(m, stdout, 0);
            return false;
        }
        fmag_module *orig = fmag_module_clone(m);
        compiled c;
        if (!intcheck_compile(m, &c, ctx)) {
            printf("FAIL: program %lu (seed %" PRIu64 "): compiling failed\n", it, seed);
            fmag_context_diag_print(ctx, stdout);
            fmag_module_print(orig, stdout, 0);
            fails++;
            fmag_context_destroy(ctx);
            continue;
        }
        instrs += c.ninstr;
        float in[64][MAXIO], want[64][MAXIO], got[64 * MAXIO], ref[MAXIO];
        float *regs = malloc((c.p->regs + 1) * sizeof *regs);
        for (unsigned t = 0; t < ninputs; t++) {
            for (unsigned k = 0; k < nin; k++)
                in[t][k] = rand_input(&r);
            fmag_interp_func(orig->first, in[t], want[t]);
        }
        float flat[64 * MAXIO];
        for (unsigned t = 0; t < ninputs; t++)
            for (unsigned k = 0; k < nin; k++)
                flat[t * nin + k] = in[t][k];
        char err[256];
        if (!fmag_vm_run_batch(c.p, flat, got, ninputs, err, sizeof err)) {
            printf("FAIL: batch engine: %s\n", err);
            fails++;
        }
        for (unsigned t = 0; t < ninputs; t++) {
            fmag_vm_run(c.p, in[t], ref, regs);
            runs++;
            bool bad = false;
            for (unsigned k = 0; k < nout; k++)
                bad |= !intcheck_same(want[t][k], ref[k]) ||
                       !intcheck_same(want[t][k], got[t * nout + k]);
            if (!bad) continue;
            fails++;
            printf("FAIL: program %lu (seed %" PRIu64 "), input", it, seed);
            for (unsigned k = 0; k < nin; k++)
                printf(" %.9g", in[t][k]);
            printf("\n  interpreter:");
            for (unsigned k = 0; k < nout; k++)
                printf(" %.9g", want[t][k]);
            printf("\n  reference VM:");
            for (unsigned k = 0; k < nout; k++)
                printf(" %.9g", ref[k]);
            printf("\n  batch engine:");
            for (unsigned k = 0; k < nout; k++)
                printf(" %.9g", got[t * nout + k]);
            printf("\n");
            fmag_module_print(orig, stdout, 0);
            break;
        }
        free(regs);
        fmag_vm_image_free(&c.img);
        fmag_context_destroy(ctx);
        if (verbose && (it + 1) % 10000 == 0) fprintf(stderr, "... %lu programs\n", it + 1);
    }
    printf("fmag-intcheck: seed %" PRIu64 ", %lu random integer programs, %lu input runs "
           "(interpreter vs reference VM vs batch engine), %.1f instructions per program, "
           "%lu failures\n",
           seed, count, runs, count ? (double)instrs / (double)count : 0.0, fails);
    return fails == 0;
}

static const fmag_tool intcheck_tool = {
    "fmag-intcheck",
    "usage: fmag-intcheck --ops [--count N]\n"
    "       fmag-intcheck --exhaustive OP [--from X] [--to Y]\n"
    "       fmag-intcheck --random N [--seed S] [--inputs K]\n"
    "       fmag-intcheck --pairs OP [--xhalf lo|hi] [--yhalf lo|hi] [--other P,Q] [--from X] "
    "[--to Y]\n"
    "       fmag-intcheck --exhaustive OP --literal C [--from X] [--to Y]\n\n"
    "Checks -legalize-int against fmag_eval_int (the IR's definition of every integer\n"
    "operation): each operation alone on edge values and N random ones (--ops); every\n"
    "input of a one-operand operation, or the slice [X, Y) of the 2^32 (--exhaustive);\n"
    "or N random integer programs, the IR interpreter against the -O2 program on the\n"
    "reference VM and the batch engine (--random); every pair of 16-bit limbs (a, b) of a\n"
    "two-operand OP, a in x's --xhalf limb and b in y's --yhalf limb, the other limbs P\n"
    "and Q (--pairs; pairs [X, Y) of the 2^32, index a * 65536 + b); or every x of\n"
    "OP(x, C) for a literal C (--exhaustive --literal). Exit 1 on any mismatch.\n\noptions:\n",
    NULL, NULL};

int main(int argc, char **argv)
{
    bool ops = false, verbose = false;
    const char *exh = NULL, *pairs = NULL, *xhalf = "lo", *yhalf = "lo", *other = "0,0";
    unsigned long long literal = ULLONG_MAX;
    unsigned long long random_n = 0, count = 20000, seed = 1, ninputs = 16, from = 0,
                       to = 1ull << 32;
    enum { EQN = FMAG_OPT_EQ_OR_NEXT };
    const fmag_option table[] = {
        {"--ops", 0, FMAG_OPT_FLAG, &ops, NULL, NULL, "check each operation alone"},
        {"--count", EQN, FMAG_OPT_UINT, &count, NULL, "N",
         "--ops: random cases per operation (20000)"},
        {"--exhaustive", EQN, FMAG_OPT_STRING, &exh, NULL, "OP", "every input of OP (e.g. fptosi)"},
        {"--from", EQN, FMAG_OPT_UINT, &from, NULL, "X", "--exhaustive: first input (0)"},
        {"--to", EQN, FMAG_OPT_UINT, &to, NULL, "Y", "--exhaustive: end of inputs (2^32)"},
        {"--random", EQN, FMAG_OPT_UINT, &random_n, NULL, "N", "check N random integer programs"},
        {"--seed", EQN, FMAG_OPT_UINT, &seed, NULL, "S", "random seed (1)"},
        {"--inputs", EQN, FMAG_OPT_UINT, &ninputs, NULL, "K",
         "--random: inputs per program (16, at most 64)"},
        {"--literal", EQN, FMAG_OPT_UINT, &literal, NULL, "C",
         "--exhaustive: OP(x, C), C a 32-bit literal"},
        {"--pairs", EQN, FMAG_OPT_STRING, &pairs, NULL, "OP", "every pair of limbs of OP"},
        {"--xhalf", EQN, FMAG_OPT_STRING, &xhalf, NULL, "lo|hi", "--pairs: x's swept limb (lo)"},
        {"--yhalf", EQN, FMAG_OPT_STRING, &yhalf, NULL, "lo|hi", "--pairs: y's swept limb (lo)"},
        {"--other", EQN, FMAG_OPT_STRING, &other, NULL, "P,Q",
         "--pairs: x's and y's other limbs (0,0)"},
        {"-v", 0, FMAG_OPT_FLAG, &verbose, NULL, NULL, "progress"},
    };
    const fmag_opt_parser parser = {&intcheck_tool, table, sizeof table / sizeof *table,
                                    NULL,           NULL,  NULL};
    int prc = fmag_opt_parse(&parser, argc, argv);
    if (prc != FMAG_OPT_RUN) return prc;
    char v[24];
    if (ninputs < 1 || ninputs > 64) {
        snprintf(v, sizeof v, "%llu", ninputs);
        return !fmag_opt_invalid_value(&intcheck_tool, "--inputs", v, "1 to 64");
    }
    if (to > (1ull << 32) || from > to) {
        snprintf(v, sizeof v, "%llu", to);
        return !fmag_opt_invalid_value(&intcheck_tool, "--to", v, "--from to 4294967296");
    }
    if (literal != ULLONG_MAX && (literal > UINT32_MAX || !exh)) {
        snprintf(v, sizeof v, "%llu", literal);
        return !fmag_opt_invalid_value(&intcheck_tool, "--literal", v,
                                       "0 to 4294967295, with --exhaustive OP");
    }
    int halves[2];
    const char *half_opt[2] = {xhalf, yhalf}, *half_name[2] = {"--xhalf", "--yhalf"};
    for (int k = 0; k < 2; k++) {
        halves[k] = !strcmp(half_opt[k], "hi");
        if (!halves[k] && strcmp(half_opt[k], "lo"))
            return !fmag_opt_invalid_value(&intcheck_tool, half_name[k], half_opt[k], "lo or hi");
    }
    char *end;
    unsigned long ox = strtoul(other, &end, 0), oy = *end == ',' ? strtoul(end + 1, &end, 0) : 0;
    if (*end || !strchr(other, ',') || ox > 0xFFFF || oy > 0xFFFF)
        return !fmag_opt_invalid_value(&intcheck_tool, "--other", other, "two 16-bit limbs P,Q");
    bool ok = true;
    if (ops) ok &= check_ops((unsigned long)count, seed, verbose);
    if (exh && literal != ULLONG_MAX)
        ok &= intcheck_literal(exh, (uint32_t)literal, from, to);
    else if (exh)
        ok &= check_exhaustive(exh, from, to);
    if (pairs)
        ok &= intcheck_pairs(pairs, halves[0], halves[1], (uint32_t)ox, (uint32_t)oy, from, to);
    if (random_n) ok &= check_random((unsigned long)random_n, seed, (unsigned)ninputs, verbose);
    if (!ops && !exh && !random_n && !pairs)
        return fmag_tool_error(&intcheck_tool,
                               "nothing to do: --ops, --exhaustive, --pairs or --random");
    return ok ? 0 : 1;
}
