/* fmag-derivtest: differential testing of -derivatives. Generates random programs that
 * ask for the x and y derivatives of some of their values (arithmetic, selects on
 * computed guards, the math builtins, if/else diamonds with phis, counted loops),
 * differentiates them, and compares the derivative outputs with central finite
 * differences, in double precision, of the values the IR interpreter computes for
 * the program as written. The -O2 result, lowered and run on the reference VM, must
 * give the interpreter's derivatives bit for bit (SPEC 2's strict contract). */
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/Math.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"
#include "Options.h"
#include "Rng.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IN 3
#define NVALS 2 /* values whose derivatives a program returns */
#define NOUT (3 * NVALS)
#define POOL 256

static float runi(rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)((rnd64(r) >> 40) * (1.0 / 16777216.0));
}

/* ------------------------------------------------------------ generator */

typedef struct gen {
    rng *r;
    fmag_module *m;
    fmag_func *f;
    fmag_builder b;
    fmag_value *pool[POOL];
    unsigned n;
} gen;

static fmag_value *K(gen *g, float x)
{
    return fmag_module_const(g->m, x);
}
static void push(gen *g, fmag_value *v)
{
    if (g->n < POOL)
        g->pool[g->n++] = v;
    else
        g->pool[rndn(g->r, POOL)] = v;
}
/* A recent value more often than an old one. */
static fmag_value *pick(gen *g)
{
    unsigned k = rndn(g->r, 3) ? g->n - 1 - rndn(g->r, g->n < 4 ? g->n : 4) : rndn(g->r, g->n);
    return g->pool[k];
}
static fmag_value *sq1(gen *g, fmag_value *a) /* 1 + a^2 > 0 */
{
    return fmag_build_fma(&g->b, a, a, K(g, 1.0f));
}

/* One new value from the pool. */
static void gen_op(gen *g)
{
    fmag_builder *b = &g->b;
    fmag_value *a = pick(g), *c = pick(g), *v;
    bool fm = false;
    /* one builtin a line, as a table */
    // clang-format off
    switch (rndn(g->r, 40)) {
    case 0: v = fmag_build_add(b, a, c); break;
    case 1: v = fmag_build_sub(b, a, c); break;
    case 2: v = fmag_build_mul(b, a, c); break;
    case 3: v = fmag_build_fma(b, a, c, pick(g)); break;
    case 4: v = fmag_build_mul(b, a, K(g, runi(g->r, -2, 2))); break;
    case 5: v = fmag_build_select(b, a, c, pick(g)); break;
    case 6: v = fmag_build_fmag(b, a, c, pick(g), pick(g), pick(g)); break;
    case 7: v = fmag_build_sin(b, a, fm); break;
    case 8: v = fmag_build_cos(b, a, fm); break;
    case 9: v = fmag_build_exp(b, fmag_build_mul(b, fmag_build_sin(b, a, fm), K(g, 2)), fm); break;
    case 10: v = fmag_build_log(b, sq1(g, a), fm); break;
    case 11: v = fmag_build_sqrt(b, sq1(g, a), fm); break;
    case 12: v = fmag_build_rcp(b, sq1(g, a), fm); break;
    case 13: v = fmag_build_div(b, a, sq1(g, c), fm); break;
    case 14: v = fmag_build_inversesqrt(b, sq1(g, a), fm); break;
    case 15: v = fmag_build_atan(b, a, fm); break;
    case 16: v = fmag_build_atan2(b, a, c, fm); break;
    case 17: v = fmag_build_tanh(b, a, fm); break;
    case 18: v = fmag_build_pow(b, sq1(g, a), K(g, runi(g->r, -2, 3)), fm); break;
    case 19: v = fmag_build_pow(b, sq1(g, a), fmag_build_sin(b, c, fm), fm); break;
    case 20: v = fmag_build_floor(b, a, fm); break;
    case 21: v = fmag_build_fract(b, a, fm); break;
    case 22: v = fmag_build_mod(b, a, K(g, 1.5f), fm); break;
    case 23: v = fmag_build_smoothstep(b, K(g, -1), K(g, 1.5f), a, fm); break;
    case 24: v = fmag_build_mix(b, a, c, pick(g), fm); break;
    case 25: v = fmag_build_clamp(b, a, K(g, -1), K(g, 1), fm); break;
    case 26: v = fmag_build_max(b, a, c); break;
    case 27: v = fmag_build_abs(b, a); break;
    case 28: v = fmag_build_exp2(b, fmag_build_sin(b, a, fm), fm); break;
    case 29: v = fmag_build_log2(b, sq1(g, a), fm); break;
    case 30: v = fmag_build_tan(b, fmag_build_mul(b, fmag_build_sin(b, a, fm), K(g, 1.2f)), fm); break;
    case 31: v = fmag_build_asin(b, fmag_build_mul(b, fmag_build_sin(b, a, fm), K(g, 0.9f)), fm); break;
    case 32: v = fmag_build_acos(b, fmag_build_mul(b, fmag_build_cos(b, a, fm), K(g, 0.9f)), fm); break;
    case 33: v = fmag_build_sinh(b, fmag_build_sin(b, a, fm), fm); break;
    case 34: v = fmag_build_asinh(b, a, fm); break;
    case 35: v = fmag_build_acosh(b, fmag_build_fma(b, a, a, K(g, 1.5f)), fm); break;
    case 36: v = fmag_build_atanh(b, fmag_build_mul(b, fmag_build_sin(b, a, fm), K(g, 0.9f)), fm); break;
    case 37: v = fmag_build_step(b, a, c, fm); break;
    case 38: {
        fmag_value *x[2] = {a, c}, *o[2];
        fmag_build_normalize(b, x, 2, o, fm);
        v = o[rndn(g->r, 2)];
        break;
    }
    default: v = fmag_build_sign(b, a, fm); break;
    }
    // clang-format on
    push(g, v);
}

static void gen_ops(gen *g, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        gen_op(g);
}

/* if (guard > 0) { ... } else { ... }: one phi joins a value of each arm. */
static void gen_diamond(gen *g)
{
    fmag_func *f = g->f;
    fmag_value *guard = pick(g);
    fmag_block *t = fmag_block_create(f, NULL), *e = fmag_block_create(f, NULL);
    fmag_block *j = fmag_block_create(f, NULL);
    fmag_build_br(&g->b, guard, t, e);
    unsigned base = g->n;
    fmag_builder_at_end(&g->b, t);
    gen_ops(g, 1 + rndn(g->r, 4));
    fmag_value *vt = pick(g);
    fmag_build_jmp(&g->b, j);
    g->n = base;
    fmag_builder_at_end(&g->b, e);
    gen_ops(g, 1 + rndn(g->r, 4));
    fmag_value *ve = pick(g);
    fmag_build_jmp(&g->b, j);
    g->n = base;
    fmag_builder_at_end(&g->b, j);
    fmag_instr *phi = fmag_build_phi(&g->b);
    fmag_phi_add_incoming(phi, vt, t);
    fmag_phi_add_incoming(phi, ve, e);
    push(g, &phi->results[0]);
}

/* for (i = 0; i < n; i++) acc = body(acc): a loop-carried value through phis. */
static void gen_loop(gen *g)
{
    fmag_func *f = g->f;
    fmag_block *pre = g->b.block;
    fmag_block *h = fmag_block_create(f, NULL), *body = fmag_block_create(f, NULL);
    fmag_block *exit = fmag_block_create(f, NULL);
    fmag_value *init = pick(g);
    fmag_build_jmp(&g->b, h);
    fmag_builder_at_end(&g->b, h);
    fmag_instr *pi = fmag_build_phi(&g->b), *pa = fmag_build_phi(&g->b);
    fmag_value *i = &pi->results[0], *acc = &pa->results[0];
    fmag_value *left = fmag_build_sub(&g->b, K(g, (float)(1 + rndn(g->r, 3))), i);
    fmag_build_br(&g->b, left, body, exit);
    unsigned base = g->n;
    fmag_builder_at_end(&g->b, body);
    push(g, acc);
    gen_ops(g, 1 + rndn(g->r, 3));
    fmag_value *next = fmag_build_mul(&g->b, pick(g), K(g, 0.75f));
    fmag_value *inext = fmag_build_add(&g->b, i, K(g, 1.0f));
    fmag_build_jmp(&g->b, h);
    g->n = base;
    fmag_phi_add_incoming(pi, K(g, 0.0f), pre);
    fmag_phi_add_incoming(pi, inext, body);
    fmag_phi_add_incoming(pa, init, pre);
    fmag_phi_add_incoming(pa, next, body);
    fmag_builder_at_end(&g->b, exit);
    push(g, acc);
}

static fmag_module *gen_module(fmag_context *ctx, rng *r, unsigned *nin)
{
    gen g;
    memset(&g, 0, sizeof g);
    g.r = r;
    g.m = fmag_module_create(ctx);
    g.m->math_calls = true; /* as a frontend that saw a derivative */
    *nin = 1 + rndn(r, MAX_IN);
    g.f = fmag_func_create(g.m, "t", *nin, NOUT, true);
    g.b.module = g.m;
    fmag_builder_at_end(&g.b, fmag_block_create(g.f, "entry"));
    for (unsigned k = 0; k < *nin; k++)
        push(&g, &g.f->params[k]);
    unsigned parts = 1 + rndn(r, 3);
    for (unsigned p = 0; p < parts; p++) {
        gen_ops(&g, 1 + rndn(r, 6));
        unsigned c = rndn(r, 5);
        if (c == 0) gen_diamond(&g);
        if (c == 1) gen_loop(&g);
    }
    fmag_value *outs[NOUT];
    for (unsigned k = 0; k < NVALS; k++) {
        fmag_value *v = pick(&g);
        outs[3 * k] = v;
        outs[3 * k + 1] = fmag_build_dfdx(&g.b, v);
        outs[3 * k + 2] = fmag_build_dfdy(&g.b, v);
    }
    fmag_build_ret(&g.b, outs, NOUT);
    return g.m;
}

/* ---------------------------------------------------------------- checking */

typedef struct options {
    unsigned long count;
    uint64_t seed;
    unsigned points;
    double h;
    bool print, verbose, lower, wrong;
} options;

typedef struct stats {
    unsigned long modules, compared, kinks, huge, failures, vm_compared, branches;
} stats;

/* The oracle: the program as written evaluated in double precision, each builtin
 * call by the C library's double function (independent of lib/Math's sequences),
 * each fmag as (e > 0) ? fma(a, b, c) : d in double. */
static double intrinsic_double(const char *name, const double *a)
{
    static const struct {
        const char *name;
        double (*f1)(double);
        double (*f2)(double, double);
    } fns[] = {
        {"floor", floor, NULL}, {"ceil", ceil, NULL},   {"round", nearbyint, NULL},
        {"trunc", trunc, NULL}, {"sqrt", sqrt, NULL},   {"exp", exp, NULL},
        {"exp2", exp2, NULL},   {"log", log, NULL},     {"log2", log2, NULL},
        {"sin", sin, NULL},     {"cos", cos, NULL},     {"tan", tan, NULL},
        {"atan", atan, NULL},   {"asin", asin, NULL},   {"acos", acos, NULL},
        {"sinh", sinh, NULL},   {"cosh", cosh, NULL},   {"tanh", tanh, NULL},
        {"asinh", asinh, NULL}, {"acosh", acosh, NULL}, {"atanh", atanh, NULL},
        {"pow", NULL, pow},     {"atan2", NULL, atan2},
    };
    if (!strcmp(name, "rcp")) return 1.0 / a[0];
    if (!strcmp(name, "inversesqrt")) return 1.0 / sqrt(a[0]);
    if (!strcmp(name, "div")) return a[0] / a[1];
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++)
        if (!strcmp(fns[k].name, name)) return fns[k].f1 ? fns[k].f1(a[0]) : fns[k].f2(a[0], a[1]);
    /* a builtin without an oracle would only be skipped as "not finite": stop instead */
    fprintf(stderr, "fmag-derivtest: internal error: no double oracle for @fmag.%s\n", name);
    exit(2);
}

static double dval(const double *vals, const fmag_value *v)
{
    return v->kind == FMAG_VALUE_CONST ? (double)v->imm : vals[v->id];
}

/* The guard decisions of one run, in order (br conditions and fmag guards), so that
 * a point where float32 and double take different branches is not compared. */
typedef struct trace {
    unsigned n;
    unsigned char bits[4096];
} trace;

static void decide(trace *t, bool taken)
{
    if (t && t->n < sizeof t->bits) t->bits[t->n++] = taken;
}

/* Rounds to float32 in the float run (each fmag rounds once, as fmaf does). */
static double rnd(bool single, double x)
{
    return single ? (double)(float)x : x;
}

/* single: the float32 run (fmaf, and each builtin call through the IR interpreter on
 * its lib/Math body); else the double oracle. */
static bool eval_prog(fmag_func *f, const double *in, double *out, bool single, trace *tr)
{
    double *vals = calloc(f->nvalues + 1, sizeof(double)), tmp[64];
    for (unsigned k = 0; k < f->nparams; k++)
        vals[f->params[k].id] = rnd(single, in[k]);
    if (tr) tr->n = 0;
    fmag_block *b = f->first, *prev = NULL;
    unsigned steps = 0;
    bool ok = true;
    while (b && ok) {
        /* phis read their incoming values all at once */
        unsigned np = 0;
        fmag_foreach_instr (i, b)
            if (i->op == FMAG_OP_PHI && np < 64) {
                fmag_value *v = fmag_phi_value_for(i, prev);
                tmp[np++] = v ? dval(vals, v) : NAN;
            }
        np = 0;
        fmag_block *next = NULL;
        fmag_foreach_instr (i, b) {
            if (++steps > 100000) ok = false;
            switch (i->op) {
            case FMAG_OP_PHI:
                vals[i->results[0].id] = tmp[np++];
                break;
            case FMAG_OP_FMAG: {
                double a = dval(vals, fmag_instr_op(i, 0)), bb = dval(vals, fmag_instr_op(i, 1));
                double c = dval(vals, fmag_instr_op(i, 2)), d = dval(vals, fmag_instr_op(i, 3));
                double e = dval(vals, fmag_instr_op(i, 4));
                decide(tr, e > 0);
                vals[i->results[0].id] =
                    e > 0 ? (single ? (double)fmaf((float)a, (float)bb, (float)c) : fma(a, bb, c))
                          : d;
                break;
            }
            case FMAG_OP_CALL: {
                double a[2] = {0, 0};
                for (unsigned k = 0; k < i->nops && k < 2; k++)
                    a[k] = dval(vals, fmag_instr_op(i, k));
                /* "fmag.pow.lit1_40000000": the builtin's name after "fmag.", up to
                 * a ".fast" or a baked-in operand's suffix (the call still passes the
                 * operand) */
                char n[32];
                snprintf(n, sizeof n, "%.*s", (int)strcspn(i->callee->name + 5, "."),
                         i->callee->name + 5);
                bool deriv = !strcmp(i->callee->name, FMAG_DFDX_NAME) ||
                             !strcmp(i->callee->name, FMAG_DFDY_NAME);
                float fa[2] = {(float)a[0], (float)a[1]}, fr = 0;
                if (single && !deriv && !fmag_interp_func(i->callee, fa, &fr)) ok = false;
                vals[i->results[0].id] = deriv ? 0.0 : single ? (double)fr : intrinsic_double(n, a);
                break;
            }
            case FMAG_OP_BR:
                decide(tr, dval(vals, fmag_instr_op(i, 0)) > 0);
                next = dval(vals, fmag_instr_op(i, 0)) > 0 ? i->targets[0] : i->targets[1];
                break;
            case FMAG_OP_JMP:
                next = i->targets[0];
                break;
            case FMAG_OP_RET:
                for (unsigned k = 0; k < i->nops; k++)
                    out[k] = dval(vals, fmag_instr_op(i, k));
                free(vals);
                return ok;
            default:
                ok = false;
                break;
            }
        }
        prev = b;
        b = next;
    }
    free(vals);
    return false;
}

/* The values at x + t*s (s the direction). */
static bool value_at(fmag_func *f, const float *x, const float *s, unsigned nin, double t,
                     double *out)
{
    double in[MAX_IN], o[NOUT];
    for (unsigned k = 0; k < nin; k++)
        in[k] = (double)x[k] + t * (double)s[k];
    if (!eval_prog(f, in, o, false, NULL)) return false;
    for (unsigned k = 0; k < NVALS; k++)
        out[k] = o[3 * k];
    return true;
}

static bool near_zero_equal(float a, float b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* One module: 0 ok, 1 a failure (printed). */
static int check_module(fmag_module *m, unsigned nin, rng *r, const options *o, stats *st,
                        unsigned long it)
{
    fmag_func *orig = fmag_module_get_func(m, "t");
    fmag_func_renumber(orig);
    fmag_module *dm = fmag_module_clone(m);
    fmag_pass_options po;
    memset(&po, 0, sizeof po);
    if (!dm || !fmag_run_passes(dm, "derivatives", &po) || !fmag_verify_module(dm)) {
        printf("FAIL: module %lu: -derivatives failed or left invalid IR\n", it);
        fmag_context_diag_print(m->ctx, stdout);
        return 1;
    }
    fmag_func *df = fmag_module_get_func(dm, "t");
    fmag_func_renumber(df);
    if (df->nparams != 3 * nin || df->nderiv != nin) {
        printf("FAIL: module %lu: @t takes %u inputs (nderiv %u), expected %u\n", it, df->nparams,
               df->nderiv, 3 * nin);
        return 1;
    }
    /* Lowered -O2 on the VM: the same derivatives, bit for bit. */
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    const fmag_vm_program *prog = NULL;
    if (o->lower) {
        fmag_module *lm = fmag_module_clone(m);
        if (!lm || !fmag_run_passes(lm, "O2", &po) || !fmag_prepare_codegen(lm, &po) ||
            !fmag_codegen_module(lm, &img)) {
            printf("FAIL: module %lu: -O2 and lowering failed\n", it);
            fmag_context_diag_print(m->ctx, stdout);
            return 1;
        }
        prog = &img.programs[0];
        if (prog->nderiv != nin || prog->nin != 3 * nin) {
            printf("FAIL: module %lu: the program record says %u inputs, %u with derivatives\n", it,
                   prog->nin, prog->nderiv);
            fmag_vm_image_free(&img);
            return 1;
        }
    }
    int bad = 0;
    float *regs = prog ? malloc(sizeof(float) * (prog->regs + 1)) : NULL;
    for (unsigned p = 0; p < o->points && !bad; p++) {
        float x[MAX_IN], s[2][MAX_IN], in[3 * MAX_IN], ad[NOUT];
        for (unsigned k = 0; k < nin; k++) {
            x[k] = runi(r, -3, 3);
            s[0][k] = runi(r, -1, 1);
            s[1][k] = runi(r, -1, 1);
            in[k] = x[k];
            in[nin + k] = s[0][k];
            in[2 * nin + k] = s[1][k];
        }
        if (!fmag_interp_func(df, in, ad)) continue;
        /* The same branches in float32 and in double at the point, or no comparison. */
        static trace t32, t64;
        double xin[MAX_IN], o32[NOUT], o64[NOUT];
        for (unsigned k = 0; k < nin; k++)
            xin[k] = x[k];
        if (!eval_prog(orig, xin, o32, true, &t32) || !eval_prog(orig, xin, o64, false, &t64))
            continue;
        if (t32.n != t64.n || memcmp(t32.bits, t64.bits, t32.n)) {
            st->branches++;
            continue;
        }
        /* The derivatives the pass builds, evaluated in double like the oracle (its
         * rules call the builtins as intrinsics too); in float32 they are the
         * interpreter's and the VM's, checked against each other above. */
        double din[3 * MAX_IN], ad64[NOUT];
        for (unsigned k = 0; k < 3 * nin; k++)
            din[k] = in[k];
        if (!eval_prog(df, din, ad64, false, NULL)) continue;
        if (o->wrong) /* the self-test: a derivative off by 0.1% must be caught */
            for (unsigned k = 0; k < NOUT; k++)
                ad64[k] *= 1.001;
        if (prog) {
            float vm[NOUT];
            fmag_vm_run(prog, in, vm, regs);
            bool finite = true;
            for (unsigned k = 0; k < NOUT; k++)
                finite &= isfinite(ad[k]) != 0;
            for (unsigned k = 0; k < NOUT && finite; k++)
                if (!near_zero_equal(ad[k], vm[k])) {
                    printf("FAIL: module %lu: output %u is %.9g on the VM after -O2, %.9g in "
                           "the interpreter\n",
                           it, k, vm[k], ad[k]);
                    bad = 1;
                }
            st->vm_compared += finite;
        }
        for (int dir = 0; dir < 2 && !bad; dir++) {
            /* Central differences at h and h/2, and their Richardson extrapolation. */
            /* Steps h and h/2 for the estimate, and h/3 against aliasing: a sawtooth
             * (fract, mod) that wraps several times within the step gives equal
             * differences at h and h/2, never at h/3 as well. */
            double h = o->h, f[6][NVALS], mag[NVALS] = {0};
            const double ts[6] = {-h, h, -h / 2, h / 2, -h / 3, h / 3};
            bool ok = true;
            for (int q = 0; q < 6 && ok; q++)
                ok = value_at(orig, x, s[dir], nin, ts[q], f[q]);
            if (!ok) continue;
            for (unsigned k = 0; k < NVALS; k++) {
                for (int q = 0; q < 6; q++)
                    if (fabs(f[q][k]) > mag[k]) mag[k] = fabs(f[q][k]);
                double d1 = (f[1][k] - f[0][k]) / (2 * h), d2 = (f[3][k] - f[2][k]) / h;
                double d3 = (f[5][k] - f[4][k]) / (2 * h / 3);
                double dr = (4 * d2 - d1) / 3, a = ad64[3 * k + 1 + dir];
                if (!isfinite(d1) || !isfinite(d2) || !isfinite(a) || mag[k] > 1e6 ||
                    fabs(a) > 1e6) {
                    st->huge++;
                    continue;
                }
                /* Both in double: the values' rounding over the step (64 ulp of the
                 * largest value, over h/2) and the extrapolated difference's truncation
                 * error, O(h^4): 1e-6 relative covers it for the default step, and a
                 * quarter of |d(h) - d(h/2)| (the O(h^2) term) where the curvature is
                 * large. */
                double noise = 64 * ldexp(mag[k] + 1e-300, -52) / (h / 2);
                double tol = 2 * noise + 1e-6 * fabs(dr) + 0.25 * fabs(d1 - d2) + 1e-9;
                if (fabs(d1 - d2) > 4 * noise + 0.01 * fabs(d2) + 1e-6 ||
                    fabs(d3 - d2) > 6 * noise + 0.01 * fabs(d2) + 1e-6) {
                    st->kinks++; /* a branch flips within the step: no derivative to compare */
                    continue;
                }
                st->compared++;
                if (fabs(a - dr) > tol) {
                    printf("FAIL: module %lu: d(value %u)/d%c = %.9g by -derivatives (in double), "
                           "%.9g by "
                           "finite differences (h %g: %.9g, h/2: %.9g; tolerance %.3g)\n",
                           it, k, dir ? 'y' : 'x', a, dr, h, d1, d2, tol);
                    printf("input:");
                    for (unsigned j = 0; j < 3 * nin; j++)
                        printf(" %.9g", in[j]);
                    printf("\n");
                    bad = 1;
                    break;
                }
            }
        }
    }
    free(regs);
    fmag_vm_image_free(&img);
    if (bad) fmag_module_print(m, stdout, 0);
    return bad;
}

static const fmag_tool derivtest_tool = {
    "fmag-derivtest",
    "usage: fmag-derivtest [--count N] [--seed S] [--points P] [--step H] [--lower]\n"
    "                      [--self-test-wrong] [--print-modules] [-v]\n\n"
    "Generates N random programs that return two values and their dfdx and dfdy\n"
    "(arithmetic, selects on computed guards, every differentiable math builtin,\n"
    "if/else diamonds, counted loops), runs -derivatives, and at P random points\n"
    "compares each derivative with central finite differences of the IR\n"
    "interpreter's values of the program as written, in double precision, along\n"
    "random directions: steps H and H/2, extrapolated (Richardson; H/3 checks\n"
    "against aliasing), in double with\n"
    "each builtin by the C library; the derivative program is evaluated the same\n"
    "way (its rules call the builtins too). Tolerance: 128 ulp of the largest value\n"
    "over H/2, 1e-6 relative, and a quarter of the two differences' gap. Points where\n"
    "the differences disagree by over 1% (a branch flips within the step), or where\n"
    "float32 and double take different branches, are counted and skipped. --lower\n"
    "also runs the -O2 program on the VM and requires the float32 interpreter's\n"
    "derivatives bit for bit. A failure prints the module; exit 1.\n\n"
    "options:\n",
    NULL, NULL};

int main(int argc, char **argv)
{
    options opt = {.count = 200, .seed = 1, .points = 8, .h = 1.0 / 65536};
    unsigned long long count = opt.count, seed = opt.seed, points = opt.points;
    enum { EQN = FMAG_OPT_EQ_OR_NEXT };
    const fmag_option table[] = {
        {"--count", EQN, FMAG_OPT_UINT, &count, NULL, "N", "programs to generate (default 200)"},
        {"--seed", EQN, FMAG_OPT_UINT, &seed, NULL, "S", "random seed (default 1)"},
        {"--points", EQN, FMAG_OPT_UINT, &points, NULL, "P", "points per program (default 8)"},
        {"--step", EQN, FMAG_OPT_DOUBLE, &opt.h, NULL, "H",
         "finite-difference step (default 2^-16)"},
        {"--lower", 0, FMAG_OPT_FLAG, &opt.lower, NULL, NULL, "also -O2, lower and run on the VM"},
        {"--self-test-wrong", 0, FMAG_OPT_FLAG, &opt.wrong, NULL, NULL,
         "scale every derivative by 1.001 (the tester must fail)"},
        {"--print-modules", 0, FMAG_OPT_FLAG, &opt.print, NULL, NULL, "print each module"},
        {"-v", 0, FMAG_OPT_FLAG, &opt.verbose, NULL, NULL, "progress every 1000 programs"},
    };
    const fmag_opt_parser parser = {
        &derivtest_tool, table, sizeof table / sizeof *table, NULL, NULL, NULL};
    int prc = fmag_opt_parse(&parser, argc, argv);
    if (prc != FMAG_OPT_RUN) return prc;
    opt.count = (unsigned long)count;
    opt.seed = seed;
    opt.points = points > 1000 ? 1000 : (unsigned)points;
    if (!(opt.h > 0 && opt.h < 1)) {
        fmag_tool_error(&derivtest_tool, "--step wants a value between 0 and 1");
        return 1;
    }
    stats st = {0};
    int status = 0;
    for (unsigned long it = 0; it < opt.count && !status; it++) {
        rng r = {opt.seed * 0x100000001b3ull + it};
        fmag_context *ctx = fmag_context_create();
        unsigned nin;
        fmag_module *m = gen_module(ctx, &r, &nin);
        if (!fmag_verify_module(m)) {
            printf("fmag-derivtest: internal error: generated module %lu is invalid\n", it);
            fmag_context_diag_print(ctx, stdout);
            fmag_module_print(m, stdout, 0);
            status = 2;
        } else {
            if (opt.print) {
                printf("; module %lu\n", it);
                fmag_module_print(m, stdout, 0);
            }
            st.modules++;
            if (check_module(m, nin, &r, &opt, &st, it)) {
                st.failures++;
                status = 1;
            }
        }
        fmag_context_destroy(ctx);
        if (opt.verbose && (it + 1) % 1000 == 0) fprintf(stderr, "... %lu programs\n", it + 1);
    }
    printf("fmag-derivtest: seed %" PRIu64 ", %lu programs, %lu derivatives compared, %lu kinks "
           "skipped, %lu points where float32 and double branch differently, %lu too large or "
           "not finite, %lu VM runs compared, %lu failures\n",
           opt.seed, st.modules, st.compared, st.kinks, st.branches, st.huge, st.vm_compared,
           st.failures);
    return status;
}
