/* fmag-e2e: end-to-end differential tester. Random modules (calls, branches,
 * every sugar form) are run by the IR interpreter unoptimized (fmag_interp_func_ex,
 * which also says whether the run met an infinity or a NaN), then through -O2
 * and lowering on the reference VM, and must agree under the strict contract of
 * SPEC §2; straight-line exports are also lowered without -O2 (codegen alone).
 * The lowered programs are then run side by side through the per-lane engine,
 * each lane a different program, and must give each program's own results. */
#include "fmag/Asm.h"
#include "fmag/Bits.h"
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"
#include "Options.h"

static const fmag_tool e2e_tool;
#include "../common/Rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define E2E_VECTORS 8
#define E2E_MAX_IO 8
#define E2E_LANE_BATCH 48

static bool chance(rng *r, unsigned percent)
{
    return rndn(r, 100) < percent;
}

static const float k_literals[] = {0.0f,  -0.0f, 1.0f,   -1.0f, 0.5f,  2.0f,  -2.0f,  3.0f,
                                   0.25f, 1.5f,  -0.75f, 10.0f, 1e-3f, -5.0f, 0.125f, 7.0f};

static float rnd_literal(rng *r)
{
    if (chance(r, 80)) return k_literals[rndn(r, sizeof k_literals / sizeof k_literals[0])];
    return (float)((int)rndn(r, 2001) - 1000) / 64.0f;
}

static float rnd_input(rng *r)
{
    switch (rndn(r, 10)) {
    case 0:
        return chance(r, 50) ? 0.0f : -0.0f;
    case 1:
        return (float)((int)rndn(r, 9) - 4);
    case 2:
        return ldexpf((float)((int)rndn(r, 2001) - 1000), -(int)rndn(r, 140)); /* tiny, denormal */
    case 3:
        return ldexpf((float)((int)rndn(r, 2001) - 1000), (int)rndn(r, 40)); /* large */
    default: {
        uint32_t bits = (uint32_t)rnd64(r);
        float f = (float)(int32_t)bits / 268435456.0f; /* about [-8, 8] */
        return f;
    }
    }
}

/* ------------------------------------------------------------- generator */

typedef struct gen {
    rng *r;
    fmag_module *m;
    fmag_func *helpers[3];
    unsigned nhelpers;
    bool control_flow;
    unsigned size; /* instructions per straight-line region, at most */
} gen;

typedef struct pool {
    fmag_value *v[256];
    unsigned n;
} pool;

static void pool_add(pool *p, fmag_value *v)
{
    if (p->n == 256) {
        memmove(p->v, p->v + 1, sizeof p->v[0] * 255);
        p->n--;
    }
    p->v[p->n++] = v;
}

static fmag_value *pick_value(gen *g, const pool *p, fmag_builder *b)
{
    if (p->n == 0 || chance(g->r, 15)) return fmag_build_const(b, rnd_literal(g->r));
    /* Favour recent values so chains get deep. */
    if (chance(g->r, 60) && p->n > 3) return p->v[p->n - 1 - rndn(g->r, 3)];
    return p->v[rndn(g->r, p->n)];
}

static fmag_value *pick_reg_value(gen *g, const pool *p, fmag_builder *b)
{
    if (p->n == 0) return fmag_build_const(b, rnd_literal(g->r));
    return p->v[rndn(g->r, p->n)];
}

static void gen_instr(gen *g, fmag_builder *b, pool *p)
{
    rng *r = g->r;
    fmag_value *x = pick_reg_value(g, p, b), *y = pick_value(g, p, b);
    fmag_value *res = NULL;
    switch (rndn(r, 17)) {
    case 0:
    case 1: {
        fmag_value *e = chance(r, 50) ? fmag_build_const(b, 1.0f) : pick_value(g, p, b);
        res =
            fmag_build_fmag(b, x, pick_value(g, p, b), pick_value(g, p, b), pick_value(g, p, b), e);
        break;
    }
    case 2:
        res = fmag_build_add(b, x, y);
        break;
    case 3:
        res = fmag_build_sub(b, x, y);
        break;
    case 4:
        res = fmag_build_mul(b, x, y);
        break;
    case 5:
        res = fmag_build_neg(b, x);
        break;
    case 6:
        res = fmag_build_fma(b, x, y, pick_value(g, p, b));
        break;
    case 7:
        res = fmag_build_select(b, x, y, pick_reg_value(g, p, b));
        break;
    case 8:
        res = fmag_build_relu(b, x);
        break;
    case 9:
        res = fmag_build_max(b, x, y);
        break;
    case 10:
        res = fmag_build_min(b, x, y);
        break;
    case 11:
        res = fmag_build_abs(b, x);
        break;
    case 12:
        res = fmag_build_gt(b, x, y);
        break;
    case 13:
        res = fmag_build_lt(b, x, y);
        break;
    case 14:
        res = chance(r, 50) ? fmag_build_ge(b, x, y) : fmag_build_le(b, x, y);
        break;
    case 15:
        res = fmag_build_select(b, x, fmag_build_const(b, 0.0f), pick_reg_value(g, p, b));
        break;
    default:
        if (g->nhelpers) {
            fmag_func *h = g->helpers[rndn(r, g->nhelpers)];
            fmag_value *args[4];
            for (unsigned i = 0; i < h->nparams; i++)
                args[i] = pick_value(g, p, b);
            fmag_instr *call = fmag_build_call(b, h, args, h->nparams);
            for (unsigned i = 0; i < call->nresults; i++)
                pool_add(p, &call->results[i]);
            return;
        }
        res = fmag_build_fma(b, x, fmag_build_const(b, rnd_literal(r)), y);
        break;
    }
    pool_add(p, res);
}

static void gen_straight(gen *g, fmag_builder *b, pool *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        gen_instr(g, b, p);
}

/* Emits the ret of f from pool p. */
static void gen_ret(gen *g, fmag_builder *b, fmag_func *f, pool *p)
{
    fmag_value *vals[E2E_MAX_IO];
    for (unsigned i = 0; i < f->nresults; i++)
        vals[i] =
            chance(g->r, 8) ? fmag_build_const(b, rnd_literal(g->r)) : pick_reg_value(g, p, b);
    fmag_build_ret(b, vals, f->nresults);
}

static void gen_body(gen *g, fmag_func *f, unsigned size)
{
    rng *r = g->r;
    pool p = {.n = 0};
    for (unsigned i = 0; i < f->nparams; i++)
        pool_add(&p, &f->params[i]);
    fmag_block *cur = fmag_block_create(f, "entry");
    fmag_builder b;
    fmag_builder_at_end(&b, cur);
    unsigned regions = g->control_flow ? 1 + rndn(r, 3) : 1;
    for (unsigned reg = 0; reg < regions; reg++) {
        gen_straight(g, &b, &p, 1 + rndn(r, size));
        if (!g->control_flow || reg + 1 == regions) break;
        /* A diamond (or triangle, or an early return) with phis at the join. */
        fmag_value *guard = pick_reg_value(g, &p, &b);
        fmag_block *th = fmag_block_create(f, NULL), *el = fmag_block_create(f, NULL);
        fmag_block *join = fmag_block_create(f, NULL);
        fmag_build_br(&b, guard, th, el);
        pool pt = p, pe = p;
        fmag_builder_at_end(&b, th);
        gen_straight(g, &b, &pt, rndn(r, 4));
        bool early = chance(r, 15);
        if (early)
            gen_ret(g, &b, f, &pt);
        else
            fmag_build_jmp(&b, join);
        fmag_builder_at_end(&b, el);
        if (chance(r, 70)) gen_straight(g, &b, &pe, rndn(r, 4));
        fmag_build_jmp(&b, join);
        fmag_builder_at_end(&b, join);
        unsigned nphi = early ? 0 : 1 + rndn(r, 3);
        for (unsigned k = 0; k < nphi; k++) {
            fmag_instr *phi = fmag_build_phi(&b);
            fmag_phi_add_incoming(phi, pick_reg_value(g, &pt, &b), th);
            fmag_phi_add_incoming(phi, pick_reg_value(g, &pe, &b), el);
            pool_add(&p, &phi->results[0]);
        }
        cur = join;
    }
    gen_ret(g, &b, f, &p);
}

static fmag_module *gen_module(fmag_context *ctx, rng *r, bool control_flow, unsigned size)
{
    gen g = {.r = r, .control_flow = control_flow, .size = size};
    g.m = fmag_module_create(ctx);
    unsigned nh = rndn(r, 3);
    char name[32];
    for (unsigned i = 0; i < nh; i++) {
        snprintf(name, sizeof name, "h%u", i);
        fmag_func *h = fmag_func_create(g.m, name, 1 + rndn(r, 3), 1 + rndn(r, 2), false);
        gen_body(&g, h, g.size / 2 > 1 ? g.size / 2 : 1);
        g.helpers[g.nhelpers++] = h;
    }
    unsigned nexp = 1 + rndn(r, 2);
    for (unsigned i = 0; i < nexp; i++) {
        snprintf(name, sizeof name, "main%u", i);
        fmag_func *f = fmag_func_create(g.m, name, 1 + rndn(r, 4), 1 + rndn(r, 3), true);
        gen_body(&g, f, g.size);
    }
    return g.m;
}

/* ------------------------------------------------------------------ driver */

typedef struct counts {
    unsigned long modules, exports, lowered_o2, lowered_direct, vectors, skipped_nonfinite,
        skipped_cfg, mismatches, bound_violations, lane_runs, lanes, lane_mismatches, total_instrs,
        total_regs, bound_zero;
    bool show_bound;
    fmag_codegen_effort effort; /* --fast-lowering */
} counts;

typedef struct lane_set {
    fmag_vm_image img;
    float in[E2E_LANE_BATCH][E2E_VECTORS][E2E_MAX_IO];
    float out[E2E_LANE_BATCH][E2E_VECTORS][E2E_MAX_IO];
} lane_set;

static bool same_result(float a, float b)
{
    if (a == 0.0f && b == 0.0f) return true;
    return fmag_bits_of(a) == fmag_bits_of(b);
}

static bool run_lanes(lane_set *ls, rng *r, counts *c, bool verbose)
{
    size_t np = ls->img.nprograms;
    if (!np) return true;
    const fmag_vm_program *progs[E2E_LANE_BATCH];
    for (size_t i = 0; i < np; i++)
        progs[i] = &ls->img.programs[i];
    size_t n = np * 24;
    uint32_t *idx = malloc(sizeof *idx * n);
    unsigned *vec = malloc(sizeof *vec * n);
    float *in = calloc(n * E2E_MAX_IO, sizeof *in), *out = calloc(n * E2E_MAX_IO, sizeof *out);
    bool ok = idx && vec && in && out;
    for (size_t k = 0; ok && k < n; k++) {
        idx[k] = (uint32_t)rndn(r, (unsigned)np);
        vec[k] = rndn(r, E2E_VECTORS);
        memcpy(&in[k * E2E_MAX_IO], ls->in[idx[k]][vec[k]], sizeof(float) * E2E_MAX_IO);
    }
    char err[256] = "out of memory";
    if (ok && !fmag_vm_run_per_lane(progs, np, idx, in, E2E_MAX_IO, out, E2E_MAX_IO, n, err,
                                    sizeof err)) {
        fprintf(stderr, "fmag-e2e: per-lane engine failed: %s\n", err);
        c->lane_mismatches++;
        ok = false;
    }
    for (size_t k = 0; ok && k < n; k++) {
        const fmag_vm_program *p = progs[idx[k]];
        for (unsigned j = 0; j < p->nout; j++) {
            float want = ls->out[idx[k]][vec[k]][j], got = out[k * E2E_MAX_IO + j];
            if (memcmp(&want, &got, 4)) {
                c->lane_mismatches++;
                if (verbose || c->lane_mismatches < 5)
                    fprintf(stderr,
                            "fmag-e2e: per-lane mismatch: lane %zu program '%s' output %u: "
                            "reference %.9g, per-lane %.9g\n",
                            k, p->name, j, (double)want, (double)got);
                ok = false;
            }
        }
    }
    c->lane_runs++;
    c->lanes += n;
    free(idx);
    free(vec);
    free(in);
    free(out);
    fmag_vm_image_free(&ls->img);
    fmag_vm_image_init(&ls->img);
    return ok;
}

static void report_mismatch(const char *what, uint64_t seed, fmag_module *m, fmag_func *f,
                            const fmag_vm_program *p, const float *in, const float *want,
                            const float *got)
{
    fprintf(stderr,
            "fmag-e2e: MISMATCH (%s) in @%s, module seed %llu (rerun: --seed %llu --count 1)\n",
            what, f->name, (unsigned long long)seed, (unsigned long long)seed);
    fprintf(stderr, "  input:");
    for (unsigned i = 0; i < f->nparams; i++)
        fprintf(stderr, " %.9g", (double)in[i]);
    fprintf(stderr, "\n  expected:");
    for (unsigned i = 0; i < f->nresults; i++)
        fprintf(stderr, " %.9g", (double)want[i]);
    fprintf(stderr, "\n  got:     ");
    for (unsigned i = 0; i < f->nresults; i++)
        fprintf(stderr, " %.9g", (double)got[i]);
    fprintf(stderr, "\n--- module (unoptimized)\n");
    fmag_module_print(m, stderr, FMAG_PRINT_RAW);
    if (p) {
        fprintf(stderr, "--- lowered\n");
        fmag_asm_print_program(p, stderr);
        fprintf(stderr, "\n");
    }
}

/* True when register r is read before anything writes it (it is then the +0.0
 * every non-input register starts with). */
static bool reads_pristine(const fmag_vm_program *p, uint16_t r)
{
    if (r < p->nin) return false;
    for (uint32_t i = 0; i < p->ninstr; i++) {
        fmag_vm_decoded d;
        fmag_vm_decode(p->code[i], &d);
        bool always = !d.g.is_reg && d.g.imm > 0.0f;
        if (d.a == r || (d.b.is_reg && d.b.reg == r) || (d.c.is_reg && d.c.reg == r) ||
            (d.g.is_reg && d.g.reg == r) || (d.d == r && !always))
            return true;
        if (d.d == r) return false;
    }
    return false;
}

/* Lowers f into a fresh image and checks it against the oracle on the vectors;
 * returns false on a mismatch. */
static bool check_lowered(const char *what, uint64_t seed, fmag_module *m0, fmag_func *f0,
                          fmag_func *fl, float in[][E2E_MAX_IO], float want[][E2E_MAX_IO],
                          const bool *valid, counts *c, lane_set *ls, bool keep_lanes)
{
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    fmag_codegen_stats st;
    memset(&st, 0, sizeof st);
    fmag_context *ctx = fl->module->ctx;
    size_t ndiag = fmag_context_diag_count(ctx);
    bool single = fl->first && fl->first == fl->last;
    fmag_codegen_options co = {c->effort};
    if (!fmag_codegen_func_with(fl, &img, &st, &co)) {
        fmag_vm_image_free(&img);
        if (!single) {
            c->skipped_cfg++;
            return true;
        }
        fprintf(stderr, "fmag-e2e: lowering failed (%s) for @%s, module seed %llu:\n", what,
                fl->name, (unsigned long long)seed);
        for (size_t i = ndiag; i < fmag_context_diag_count(ctx); i++)
            fprintf(stderr, "  %s\n", fmag_context_diag(ctx, i));
        c->mismatches++;
        return false;
    }
    const fmag_vm_program *p = &img.programs[0];
    char err[256];
    if (!fmag_vm_program_validate(p, err, sizeof err)) {
        fprintf(stderr, "fmag-e2e: invalid program (%s) for @%s, seed %llu: %s\n", what, fl->name,
                (unsigned long long)seed, err);
        c->mismatches++;
        fmag_vm_image_free(&img);
        return false;
    }
    unsigned base = p->nin > p->nout ? p->nin : p->nout;
    if (p->regs > base && p->regs > st.max_live + 1) {
        /* Registers below nin hold inputs, never +0.0: a free zero (or a finite
         * source for a literal) must come from above them, whatever the liveness. */
        bool zero = reads_pristine(p, (uint16_t)(p->regs - 1));
        if (zero)
            c->bound_zero++;
        else
            c->bound_violations++;
        if (c->show_bound && !zero) {
            fprintf(stderr, "fmag-e2e: %u regs > max-live %u + 1 (%s, seed %llu):\n", p->regs,
                    st.max_live, what, (unsigned long long)seed);
            fmag_func_print(fl, stderr, FMAG_PRINT_RAW);
            fmag_asm_print_program(p, stderr);
            fprintf(stderr, "\n");
        }
    }
    c->total_instrs += p->ninstr;
    c->total_regs += p->regs;
    float *regs = malloc(sizeof(float) * (p->regs + 1u));
    bool ok = regs != NULL;
    float got[E2E_VECTORS][E2E_MAX_IO];
    for (unsigned v = 0; ok && v < E2E_VECTORS; v++) {
        fmag_vm_run(p, in[v], got[v], regs);
        if (!valid[v]) continue;
        c->vectors++;
        for (unsigned j = 0; j < f0->nresults; j++) {
            if (!same_result(want[v][j], got[v][j])) {
                c->mismatches++;
                report_mismatch(what, seed, m0, f0, p, in[v], want[v], got[v]);
                ok = false;
                break;
            }
        }
    }
    free(regs);
    if (ok && keep_lanes && ls->img.nprograms < E2E_LANE_BATCH) {
        size_t k = ls->img.nprograms;
        if (fmag_vm_image_add(&ls->img, p->name, p->flags, p->regs, p->nin, p->nout, p->code,
                              p->ninstr)) {
            ls->img.programs[k].nderiv = p->nderiv;
            for (unsigned v = 0; v < E2E_VECTORS; v++) {
                memcpy(ls->in[k][v], in[v], sizeof ls->in[k][v]);
                memcpy(ls->out[k][v], got[v], sizeof ls->out[k][v]);
            }
        }
    }
    fmag_vm_image_free(&img);
    return ok;
}

static bool run_module(uint64_t seed, bool control_flow, unsigned size, counts *c, lane_set *ls,
                       bool verbose)
{
    rng r = {seed * 0x2545F4914F6CDD1Dull + 1};
    fmag_context *ctx = fmag_context_create();
    if (!ctx) return false;
    bool ok = true;
    fmag_module *m = gen_module(ctx, &r, control_flow, size);
    if (!fmag_verify_module(m)) {
        fprintf(stderr, "fmag-e2e: generator made an invalid module (seed %llu):\n",
                (unsigned long long)seed);
        fmag_tool_print_diags(&e2e_tool, ctx);
        fmag_module_print(m, stderr, 0);
        fmag_context_destroy(ctx);
        c->mismatches++;
        return false;
    }
    if (verbose) fmag_module_print(m, stderr, 0);
    fmag_module *opt = fmag_module_clone(m);
    fmag_pass_options po;
    memset(&po, 0, sizeof po);
    bool opt_ok = opt && fmag_run_passes(opt, "O2", &po) && fmag_verify_module(opt);
    if (!opt_ok) {
        fprintf(stderr, "fmag-e2e: -O2 failed or broke the IR (seed %llu):\n",
                (unsigned long long)seed);
        fmag_tool_print_diags(&e2e_tool, ctx);
        fmag_module_print(m, stderr, 0);
        c->mismatches++;
        ok = false;
    }
    c->modules++;
    fmag_foreach_func (f, m) {
        if (!ok || !f->is_export) continue;
        c->exports++;
        float in[E2E_VECTORS][E2E_MAX_IO], want[E2E_VECTORS][E2E_MAX_IO];
        bool valid[E2E_VECTORS];
        memset(in, 0, sizeof in);
        for (unsigned v = 0; v < E2E_VECTORS; v++) {
            for (unsigned i = 0; i < f->nparams; i++)
                in[v][i] = rnd_input(&r);
            fmag_interp_report rep;
            valid[v] = fmag_interp_func_ex(f, in[v], want[v], &rep);
            if (valid[v] && rep.nonfinite) {
                valid[v] = false;
                c->skipped_nonfinite++;
            }
        }
        if (f->first == f->last) {
            bool has_call = false;
            fmag_foreach_instr (i, f->first)
                has_call |= i->op == FMAG_OP_CALL;
            if (!has_call) {
                c->lowered_direct++;
                ok &= check_lowered("lowered without -O2", seed, m, f, f, in, want, valid, c, ls,
                                    false);
            }
        }
        fmag_func *fo = fmag_module_get_func(opt, f->name);
        if (fo) {
            size_t before = c->skipped_cfg;
            ok &= check_lowered("-O2 + lowering", seed, m, f, fo, in, want, valid, c, ls, true);
            if (c->skipped_cfg == before) c->lowered_o2++;
        }
    }
    fmag_context_destroy(ctx);
    return ok;
}

static const fmag_tool e2e_tool = {
    "fmag-e2e",
    "usage: fmag-e2e [--count N] [--seed S] [--size K] [--no-control-flow] [--keep-going] "
    "[--show-bound] [--fast-lowering] [-v]\n"
    "\n"
    "End-to-end differential test: N random modules (seeds S..S+N-1) are run by the\n"
    "IR interpreter unoptimized and, after -O2 and lowering, by the reference VM;\n"
    "outputs must agree under the strict contract (SPEC 2). Straight-line exports are\n"
    "also lowered without -O2. Lowered programs then run side by side through the\n"
    "per-lane engine and must match the reference VM bit for bit.\n"
    "Exit 0 when nothing mismatched, 1 otherwise.\n"
    "\n"
    "options:\n",
    NULL, NULL};

int main(int argc, char **argv)
{
    unsigned long long count = 200, size = 12, seed = 1;
    bool no_control_flow = false, keep_going = false, verbose = false, show_bound = false;
    bool fast_lowering = false;
    enum { EQN = FMAG_OPT_EQ_OR_NEXT };
    const fmag_option table[] = {
        {"--count", EQN, FMAG_OPT_UINT, &count, NULL, "N", "modules (default 200)"},
        {"--seed", EQN, FMAG_OPT_UINT, &seed, NULL, "S", "first module seed (default 1)"},
        {"--size", EQN, FMAG_OPT_UINT, &size, NULL, "K",
         "up to K instructions per straight-line region (default 12;\n"
         "1 to 5000)"},
        {"--no-control-flow", 0, FMAG_OPT_FLAG, &no_control_flow, NULL, NULL,
         "straight-line modules only"},
        {"--keep-going", 0, FMAG_OPT_FLAG, &keep_going, NULL, NULL, "go on after a mismatch"},
        {"--show-bound", 0, FMAG_OPT_FLAG, &show_bound, NULL, NULL,
         "print every program whose regs exceed max(max-live + 1,\n"
         "nin, nout) (other than by a free +0.0 register above the\n"
         "inputs)"},
        {"--fast-lowering", 0, FMAG_OPT_FLAG, &fast_lowering, NULL, NULL,
         "lower with FMAG_CODEGEN_FAST (the JIT path) instead of the\n"
         "full search"},
        {"-v", 0, FMAG_OPT_FLAG, &verbose, NULL, NULL, "print progress"},
    };
    const fmag_opt_parser parser = {&e2e_tool, table, sizeof table / sizeof *table,
                                    NULL,      NULL,  NULL};
    int prc = fmag_opt_parse(&parser, argc, argv);
    if (prc != FMAG_OPT_RUN) return prc;
    size = size < 1 ? 1 : size > 5000 ? 5000 : size;
    bool control_flow = !no_control_flow;
    counts c;
    memset(&c, 0, sizeof c);
    c.show_bound = show_bound;
    c.effort = fast_lowering ? FMAG_CODEGEN_FAST : FMAG_CODEGEN_FULL;
    lane_set *ls = calloc(1, sizeof *ls);
    if (!ls) {
        return fmag_tool_error(&e2e_tool, "out of memory");
    }
    fmag_vm_image_init(&ls->img);
    rng lane_rng = {seed ^ 0xA5A5A5A5ull};
    bool ok = true;
    for (unsigned long k = 0; k < count; k++) {
        if (!run_module(seed + k, control_flow, (unsigned)size, &c, ls, verbose)) {
            ok = false;
            if (!keep_going) break;
        }
        if (ls->img.nprograms >= E2E_LANE_BATCH && !run_lanes(ls, &lane_rng, &c, verbose)) {
            ok = false;
            if (!keep_going) break;
        }
    }
    if (!run_lanes(ls, &lane_rng, &c, verbose)) ok = false;
    fmag_vm_image_free(&ls->img);
    free(ls);
    printf("fmag-e2e: %lu modules (seeds %llu..%llu), %lu exports: %lu lowered after -O2, %lu "
           "also lowered directly, %lu not one block after -O2\n",
           c.modules, (unsigned long long)seed, (unsigned long long)(seed + count - 1), c.exports,
           c.lowered_o2, c.lowered_direct, c.skipped_cfg);
    printf("fmag-e2e: %lu vectors compared, %lu skipped (inf/NaN in the unoptimized run), %lu "
           "mismatches\n",
           c.vectors, c.skipped_nonfinite, c.mismatches);
    printf("fmag-e2e: per-lane: %lu runs, %lu lanes, %lu mismatches\n", c.lane_runs, c.lanes,
           c.lane_mismatches);
    printf("fmag-e2e: regs over max(max-live+1, nin, nout): %lu (plus %lu whose top register is "
           "a free +0.0 above the inputs); avg %.2f instrs, %.2f regs per program\n",
           c.bound_violations, c.bound_zero,
           c.lowered_o2 + c.lowered_direct
               ? (double)c.total_instrs / (double)(c.lowered_o2 + c.lowered_direct)
               : 0.0,
           c.lowered_o2 + c.lowered_direct
               ? (double)c.total_regs / (double)(c.lowered_o2 + c.lowered_direct)
               : 0.0);
    ok = ok && !c.mismatches && !c.lane_mismatches;
    printf("fmag-e2e: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
