/* superopt: the shortest FMAG program for a target of one or two inputs (SPEC §8). A
 * thin driver over lib/Superopt: target from -e or -f, a search, the proof, .fmas out. */
#include "fmag/Asm.h"
#include "fmag/FloatText.h"
#include "fmag/IR.h"
#include "Options.h"
#include "fmag/Superopt.h"
#include "fmag/SuperoptRules.h"
#include "RuleCheck.h"
#ifdef FMAG_SUPEROPT_HAVE_SL
#include "fmag/SL.h"
#endif
#ifdef FMAG_SUPEROPT_HAVE_CODEGEN
#include "fmag/CodeGen.h"
#include "fmag/Transforms.h"
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const fmag_tool so_tool = {
    "superopt",
    "usage: superopt (-e EXPR | -f TARGET.fir) [options]\n"
    "\n"
    "Finds the shortest FMAG program computing the target under the calling\n"
    "convention (inputs in r0 and r1, other registers +0.0, result in r0), proves it\n"
    "(exhaustively for one input, by dense sampling for two) and prints it as .fmas.\n",
    NULL, NULL};

/* A count option's value, 1..max; prints the one-line error itself. */
static bool parse_count(const char *opt, const char *v, unsigned long long max,
                        unsigned long long *out)
{
    return fmag_opt_uint_value(&so_tool, opt, v, 1, max, out);
}

static bool parse_pool(const char *s, float *pool, unsigned *n)
{
    *n = 0;
    while (*s) {
        float f;
        size_t used = fmag_parse_float(s, strlen(s), &f);
        if (!used || !isfinite(f) || fmag_float_literal_underflows(s, used, f) ||
            *n >= FMAG_SUPEROPT_MAX_POOL)
            return false;
        pool[(*n)++] = f;
        s += used;
        if (*s == ',')
            s++;
        else if (*s)
            return false;
    }
    return *n > 0;
}

static void diag_print(fmag_context *ctx)
{
    fmag_tool_print_diags(&so_tool, ctx);
}

/* The target's IR function from a module: the named one or the first export. */
static fmag_func *pick_func(fmag_module *m, const char *name)
{
    if (name) return fmag_module_get_func(m, name);
    fmag_foreach_func (f, m) {
        if (f->is_export) return f;
    }
    return m->first;
}

/* The passes O2 runs before superopt-peephole: a target from the frontend is taken
 * at that point, so a rule's pattern is the IR the peephole will see. */
#define FMAG_SUPEROPT_PATTERN_PASSES "inline,ternary,ifconvert"

/* From IR: as written when it is one straight-line block; else after the passes
 * that come before the peephole in -O2 (inlining, if-conversion); else after all of
 * -O2. Each keeps the strict contract. */
static fmag_superopt_target *target_from_module(fmag_module *m, const char *fname, char *err,
                                                size_t errlen)
{
    fmag_func *f = pick_func(m, fname);
    if (!f) {
        if (fname)
            snprintf(err, errlen, "no function @%s in the target module", fname);
        else
            snprintf(err, errlen, "the target module has no function");
        return NULL;
    }
    fmag_superopt_target *t = fmag_superopt_target_from_ir(f, err, errlen);
#ifdef FMAG_SUPEROPT_HAVE_CODEGEN
    static const char *const pipelines[] = {FMAG_SUPEROPT_PATTERN_PASSES, "O2"};
    for (int k = 0; k < 2 && !t; k++) {
        const char *name = f->name;
        fmag_module *c = fmag_module_clone(m);
        if (c && fmag_run_passes(c, pipelines[k], NULL)) {
            fmag_func *g = fmag_module_get_func(c, name);
            if (g) t = fmag_superopt_target_from_ir(g, err, errlen);
        }
    }
#endif
    return t;
}

#ifdef FMAG_SUPEROPT_HAVE_CODEGEN
/* What the compiler emits for the target today: -O2 then lowering. */
static bool compile_target_with(fmag_context *ctx, const fmag_superopt_target *t,
                                const char *pipeline, fmag_superopt_program *out)
{
    fmag_module *m = fmag_module_create(ctx);
    fmag_func *f = fmag_superopt_target_to_ir(t, m, "target");
    if (!f || !fmag_run_passes(m, pipeline, NULL)) return false;
    f = fmag_module_get_func(m, "target");
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    bool ok = f && fmag_codegen_func(f, &img, NULL) && img.nprograms == 1 &&
              fmag_superopt_program_from_vm(&img.programs[0], out);
    fmag_vm_image_free(&img);
    return ok;
}

static bool compile_target(fmag_context *ctx, const fmag_superopt_target *t,
                           fmag_superopt_program *out)
{
    return compile_target_with(ctx, t, "O2", out);
}

/* -O2 as it was before the superoptimizer's rules joined it: what they gain. */
static bool compile_target_without_rules(fmag_context *ctx, const fmag_superopt_target *t,
                                         fmag_superopt_program *out)
{
    const fmag_pipeline_info *o2 = fmag_pipeline_lookup("O2");
    if (!o2 || !strstr(o2->passes, "superopt-peephole")) return false;
    char buf[1024] = "";
    const char *s = o2->passes;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (!(n == strlen("superopt-peephole") && !strncmp(s, "superopt-peephole", n)) &&
            strlen(buf) + n + 2 < sizeof buf) {
            if (buf[0]) strcat(buf, ",");
            strncat(buf, s, n);
        }
        s += n + (e ? 1 : 0);
    }
    return compile_target_with(ctx, t, buf, out);
}
#endif

/* Shortest decimal that reads back to the same float, as a C float literal. */
static void print_c_float(FILE *out, float f)
{
    char buf[64];
    fmag_format_float(buf, f);
    if (!strpbrk(buf, ".eEpxn")) strcat(buf, ".0");
    fprintf(out, "%sf", buf);
}

static void print_c_ref(FILE *out, const fmag_so_ref *r)
{
    switch (r->kind) {
    case FMAG_SO_REF_INPUT:
        fputs(r->index ? "Y" : "X", out);
        break;
    case FMAG_SO_REF_OP:
        fprintf(out, "V(%u)", r->index);
        break;
    case FMAG_SO_REF_CONST:
        fputs("K(", out);
        print_c_float(out, r->imm);
        fputs(")", out);
        break;
    }
}

static void print_c_operand(FILE *out, const fmag_vm_operand *o)
{
    if (o->is_reg) {
        fprintf(out, "R(%u)", (unsigned)o->reg);
    } else {
        fputs("L(", out);
        print_c_float(out, o->imm);
        fputs(")", out);
    }
}

/* The rule as C for SuperoptRules.inc: pattern (the target's tape) and program. */
static void emit_rule(FILE *out, const char *name, const char *expr, const fmag_superopt_target *t,
                      const fmag_superopt_result *r, unsigned compiler_len)
{
    fprintf(out, "/* %s: %s -- ", name, expr);
    if (compiler_len) fprintf(out, "compiler %u, ", compiler_len);
    fprintf(out, "superopt %u; %s */\n", r->prog.len,
            fmag_superopt_proof_status_name(r->proof.status));
    fprintf(out, "static const fmag_so_op %s_pattern[] = {\n", name);
    for (unsigned i = 0; i < t->nops; i++) {
        fputs("    OP(", out);
        for (int k = 0; k < 5; k++) {
            if (k) fputs(", ", out);
            print_c_ref(out, &t->ops[i].s[k]);
        }
        fputs("),\n", out);
    }
    fprintf(out, "};\nstatic const fmag_rule_instr %s_code[] = {\n", name);
    for (unsigned i = 0; i < r->prog.len; i++) {
        const fmag_vm_decoded *c = &r->prog.code[i];
        fprintf(out, "    I(%u, %u, ", (unsigned)c->d, (unsigned)c->a);
        print_c_operand(out, &c->b);
        fputs(", ", out);
        print_c_operand(out, &c->c);
        fputs(", ", out);
        print_c_operand(out, &c->g);
        fputs("),\n", out);
    }
    fprintf(out, "};\n/* RULE(\"%s\", \"%s\", %u, %s_pattern, %s_code, %u, %s), */\n", name, expr,
            t->nin, name, name, r->prog.regs, t->nin == 1 ? "true" : "false");
}

static void print_pool(FILE *out, const float *pool, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        char buf[48];
        fprintf(out, "%s%s", i ? ", " : "", fmag_format_float(buf, pool[i]));
    }
}

#ifdef FMAG_SUPEROPT_HAVE_SL
static bool is_ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* `export f32 target(f32 x[, f32 y]) { return EXPR; }` through the SL frontend. */
static fmag_module *sl_compile_expr(fmag_context *ctx, const char *expr)
{
    bool uses_y = false;
    for (const char *s = expr; *s; s++)
        if (*s == 'y' && (s == expr || !is_ident_char(s[-1])) && !is_ident_char(s[1]))
            uses_y = true;
    size_t cap = strlen(expr) + 128;
    char *src = malloc(cap);
    if (!src) return NULL;
    snprintf(src, cap, "export f32 target(f32 x%s) { return %s; }\n", uses_y ? ", f32 y" : "",
             expr);
    fmag_sl_options so = {false, "target"};
    fmag_module *m = fmag_sl_compile(ctx, "<expr>", src, strlen(src), &so);
    free(src);
    return m;
}
#endif

#ifdef FMAG_SUPEROPT_HAVE_CODEGEN
/* Every rule: the program is proved against the pattern itself (the obligation the
 * pass relies on), and -O2 + lowering of the pattern is no longer than the program. */
static int run_verify_rules(const fmag_superopt_options *o, bool prove, unsigned long long spot)
{
    int rc = 0;
    for (size_t i = 0; i < fmag_superopt_rule_count(); i++) {
        const fmag_superopt_rule *rule = fmag_superopt_rule_get(i);
        fmag_superopt_target *t = fmag_superopt_target_create(rule->nin);
        if (!t) return 1;
        for (unsigned k = 0; k < rule->npattern; k++) {
            const fmag_so_op *op = &rule->pattern[k];
            t->result =
                fmag_superopt_target_add(t, op->s[0], op->s[1], op->s[2], op->s[3], op->s[4]);
        }
        fmag_superopt_target_collect_consts(t);
        fmag_superopt_program p;
        fmag_superopt_rule_program(rule, &p);
        fmag_superopt_proof pr;
        memset(&pr, 0, sizeof pr);
        /* --spot-check: the recorded proof stands for the full one (rules.test checks
         * the record against the fingerprint printed below); this re-runs the program on
         * the reference VM on a sample, an independent check that still fails. */
        spot_result spr;
        char spot_text[160] = "";
        bool proved = true;
        if (prove && spot) {
            if (!rule_spot_check(rule, t, spot, &spr))
                snprintf(spot_text, sizeof spot_text, "SPOT CHECK FAILED: not a valid program");
            else if (spr.failed)
                snprintf(spot_text, sizeof spot_text,
                         "SPOT CHECK FAILED at x = %.9g, y = %.9g: pattern %.9g, program %.9g",
                         (double)spr.cex[0], (double)spr.cex[1], (double)spr.want, (double)spr.got);
            else
                snprintf(spot_text, sizeof spot_text,
                         "spot-checked %llu inputs on the reference VM (%llu outside the "
                         "contract)",
                         (unsigned long long)spr.checked, (unsigned long long)spr.skipped);
            proved = spot_text[0] == 's';
        } else if (prove) {
            proved = fmag_superopt_prove(t, &p, o->threads, o->prove_samples, &pr);
        }
        fmag_context *ctx = fmag_context_create();
        fmag_superopt_program compiled;
        bool have = compile_target(ctx, t, &compiled);
        bool short_enough = have && compiled.len <= rule->length;
        char sl[64] = "";
#ifdef FMAG_SUPEROPT_HAVE_SL
        /* end to end: the expression through SL, -O2 and lowering, as a user gets it */
        fmag_module *m = sl_compile_expr(ctx, rule->expr);
        fmag_vm_image img;
        fmag_vm_image_init(&img);
        if (m && fmag_run_passes(m, "O2", NULL) && fmag_codegen_module(m, &img) &&
            img.nprograms == 1) {
            snprintf(sl, sizeof sl, ", SL -O2 %u", img.programs[0].ninstr);
            short_enough &= img.programs[0].ninstr <= rule->length;
        } else {
            snprintf(sl, sizeof sl, ", SL FAILED");
            short_enough = false;
        }
        fmag_vm_image_free(&img);
#endif
        printf("%-12s %-26s pattern %u, rule %u, -O2 %s%u%s: %s, %s #%08x\n", rule->name,
               rule->expr, rule->npattern, rule->length, have ? "" : "FAILED ",
               have ? compiled.len : 0, sl,
               !prove   ? "proof skipped"
               : spot   ? spot_text
               : proved ? fmag_superopt_proof_status_name(pr.status)
                        : "PROOF FAILED",
               short_enough ? "ok" : "COMPILER LONGER THAN THE RULE", rule_fingerprint(rule));
        if (!proved || !short_enough) rc = 1;
        fmag_context_destroy(ctx);
        fmag_superopt_target_free(t);
    }
    return rc;
}
#else
static int run_verify_rules(const fmag_superopt_options *o, bool prove, unsigned long long spot)
{
    (void)o;
    (void)prove;
    (void)spot;
    return fmag_tool_error(&so_tool, "--verify-rules needs the compiler (built without it)");
}
#endif

/* What the command line asks for. */
typedef struct so_args {
    const char *expr, *file, *fname, *outpath, *check, *rule_name;
    bool verify_rules, no_proof, seed_without_rules, stochastic, builtin, no_compare;
    unsigned long long spot_check;
    fmag_superopt_options o;
    float pool[FMAG_SUPEROPT_MAX_POOL];
} so_args;

/* A single-valued option given twice is an error, as in LLVM's tools: silently keeping
 * the last -e would search one target while the user expects several. */
static bool opt_once(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    const char **slot = dest;
    if (*slot) {
        fmag_tool_error(tool, "%s may be given only once%s", spelling,
                        spelling[1] == 'e' || spelling[1] == 'f' ? " (one target per run)" : "");
        return false;
    }
    *slot = value;
    return true;
}

static bool opt_count(unsigned long long max, const char *spelling, const char *value,
                      unsigned *out)
{
    unsigned long long n;
    if (!parse_count(spelling, value, max, &n)) return false;
    *out = (unsigned)n;
    return true;
}

static bool opt_max_len(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    (void)tool;
    return opt_count(FMAG_SUPEROPT_MAX_LEN, spelling, value, &((so_args *)dest)->o.max_len);
}

static bool opt_regs(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    (void)tool;
    return opt_count(FMAG_SUPEROPT_MAX_REGS, spelling, value, &((so_args *)dest)->o.regs);
}

static bool opt_threads(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    (void)tool;
    return opt_count(64, spelling, value, &((so_args *)dest)->o.threads);
}

static bool opt_samples(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    (void)tool;
    unsigned long long n;
    if (!parse_count(spelling, value, 1ull << 40, &n)) return false;
    ((so_args *)dest)->o.prove_samples = n;
    return true;
}

static bool opt_consts(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    (void)spelling;
    so_args *a = dest;
    if (!parse_pool(value, a->pool, &a->o.npool)) {
        fmag_tool_error(tool,
                        "--consts wants a comma-separated list of at most %d finite floats "
                        "(none rounding to zero from non-zero), not '%s'",
                        FMAG_SUPEROPT_MAX_POOL, value);
        return false;
    }
    a->o.pool = a->pool;
    return true;
}

static bool opt_seed(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    unsigned long long n;
    if (!fmag_opt_uint_value(tool, spelling, value, 0, ~0ull, &n)) return false;
    ((so_args *)dest)->o.seed = n;
    return true;
}

static bool opt_time_limit(const fmag_tool *tool, void *dest, const char *spelling,
                           const char *value)
{
    char *end;
    double s = strtod(value, &end);
    if (*end || !(s > 0) || s > 86400)
        return fmag_opt_invalid_value(tool, spelling, value, "seconds, 0 < S <= 86400");
    ((so_args *)dest)->o.time_limit = s;
    return true;
}

/* --bfs and --stochastic: the last one given wins. */
static bool opt_search(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    (void)tool, (void)value;
    ((so_args *)dest)->stochastic = !strcmp(spelling, "--stochastic");
    return true;
}

#ifdef FMAG_SUPEROPT_HAVE_CODEGEN
#define CODEGEN_HELP(text) text
#else
#define CODEGEN_HELP(text) NULL
#endif

int main(int argc, char **argv)
{
    so_args a;
    memset(&a, 0, sizeof a);
    a.o.seed = 1;
    enum { NEXT = FMAG_OPT_NEXT };
    const fmag_option opts[] = {
        {NULL, 0, FMAG_OPT_SECTION, NULL, NULL, NULL,
         "target (exactly one per run; -e or -f given twice is an error):"},
        {"-e", NEXT, FMAG_OPT_CALL, &a.expr, opt_once, "EXPR",
         "an expression of x (and y), as in SL; it is compiled as\n"
         "`export f32 target(f32 x[, f32 y]) { return EXPR; }`"},
        {"-f", NEXT, FMAG_OPT_CALL, &a.file, opt_once, "FILE.fir",
         "the first export function of a .fir module (one or two\n"
         "params, one result); --func NAME picks another"},
        {"--func", NEXT, FMAG_OPT_CALL, &a.fname, opt_once, "NAME", NULL},
        {"--builtin", 0, FMAG_OPT_FLAG, &a.builtin, NULL, NULL,
         "parse -e with the built-in expression language even when\n"
         "the SL frontend is available"},
        {NULL, 0, FMAG_OPT_SECTION, NULL, NULL, NULL, "search:"},
        {"--bfs", 0, FMAG_OPT_CALL, &a, opt_search, NULL,
         "exact iterative-deepening search (the default)"},
        {"--stochastic", 0, FMAG_OPT_CALL, &a, opt_search, NULL,
         "STOKE-style search seeded from the compiler's output"},
        {"--seed-without-rules", 0, FMAG_OPT_FLAG, &a.seed_without_rules, NULL, NULL,
         "stochastic: seed from -O2 without superopt-peephole"},
        {"--max-len", NEXT, FMAG_OPT_CALL, &a, opt_max_len, "N",
         "longest program the exact search tries (default 3)"},
        {"--regs", NEXT, FMAG_OPT_CALL, &a, opt_regs, "N",
         "registers (default: all a program of that length can use)"},
        {"--consts", NEXT, FMAG_OPT_CALL, &a, opt_consts, "a,b,...",
         "the literal pool (default 0,1,-1,0.5,2 plus the target's\n"
         "constants and their negations)"},
        {"--seed", NEXT, FMAG_OPT_CALL, &a, opt_seed, "N", "random seed (default 1)"},
        {"--time-limit", NEXT, FMAG_OPT_CALL, &a, opt_time_limit, "S",
         "seconds for the search (default 60)"},
        {"--threads", NEXT, FMAG_OPT_CALL, &a, opt_threads, "N",
         "threads for the proof (default: all CPUs)"},
        {"--samples", NEXT, FMAG_OPT_CALL, &a, opt_samples, "N",
         "random pairs for a two-input proof (default 16777216)"},
        {NULL, 0, FMAG_OPT_SECTION, NULL, NULL, NULL, "other:"},
        {"--check", NEXT, FMAG_OPT_CALL, &a.check, opt_once, "FILE.fmas",
         "do not search: prove the first program of FILE against the\n"
         "target (exit 1 on a counterexample)"},
        {"--no-compare", 0, FMAG_OPT_FLAG, &a.no_compare, NULL, NULL,
         "do not lower the target with the compiler for comparison"},
        {"--emit-rule", NEXT, FMAG_OPT_CALL, &a.rule_name, opt_once, "NAME",
         "also print the result as a peephole rule (C, for\n"
         "lib/Transforms/SuperoptRules.inc)"},
        {"--verify-rules", 0, FMAG_OPT_FLAG, &a.verify_rules, NULL, NULL,
         CODEGEN_HELP("re-prove every superopt-peephole rule against its pattern\n"
                      "and check that -O2 is no longer than each rule's program")},
        {"--no-proof", 0, FMAG_OPT_FLAG, &a.no_proof, NULL, NULL,
         CODEGEN_HELP("with --verify-rules: check the lengths only")},
        {"--spot-check", NEXT, FMAG_OPT_UINT, &a.spot_check, NULL, "N",
         CODEGEN_HELP("with --verify-rules: instead of the proof, run each rule on the\n"
                      "reference VM against its pattern on edge cases and N random\n"
                      "inputs (rules.test; the proof is recorded, scripts/superopt-\n"
                      "reprove.sh re-runs it)")},
        {"-o", NEXT, FMAG_OPT_CALL, &a.outpath, opt_once, "FILE",
         "write the .fmas to FILE instead of standard output"},
    };
    const fmag_opt_parser parser = {&so_tool, opts, sizeof opts / sizeof *opts, NULL, NULL, NULL};
    int prc = fmag_opt_parse(&parser, argc, argv);
    if (prc != FMAG_OPT_RUN) return prc;
    const char *expr = a.expr, *file = a.file, *fname = a.fname, *outpath = a.outpath;
    const char *check = a.check, *rule_name = a.rule_name;
    bool verify_rules = a.verify_rules, no_proof = a.no_proof;
    bool seed_without_rules = a.seed_without_rules, stochastic = a.stochastic;
    bool builtin = a.builtin, compare = !a.no_compare;
    fmag_superopt_options o = a.o;
    (void)builtin;            /* only meaningful with the SL frontend */
    (void)seed_without_rules; /* only meaningful with the compiler */
    if (verify_rules) return run_verify_rules(&o, !no_proof, a.spot_check);
    if (fmag_tool_output_is_input(&so_tool, file, outpath)) return 1;
    if (!!expr == !!file) {
        return fmag_tool_error(&so_tool, "give exactly one target, -e EXPR or -f FILE.fir");
    }

    char err[2048];
    err[0] = 0;
    fmag_context *ctx = fmag_context_create();
    fmag_superopt_target *t = NULL;
    const char *how = "built-in expression language";
    if (expr) {
#ifdef FMAG_SUPEROPT_HAVE_SL
        if (!builtin) {
            how = "SL frontend";
            fmag_module *m = sl_compile_expr(ctx, expr);
            if (!m) {
                diag_print(ctx);
                fmag_context_destroy(ctx);
                return 1;
            }
            t = target_from_module(m, "target", err, sizeof err);
        }
#endif
        if (!t && !err[0]) t = fmag_superopt_parse_expr("<expr>", expr, err, sizeof err);
    } else {
        how = "IR function";
        size_t len;
        char *text = fmag_tool_read_file(&so_tool, file, &len);
        if (!text) {
            fmag_context_destroy(ctx);
            return 1;
        }
        fmag_module *m = fmag_parse_module(ctx, file, text, len);
        if (!m || !fmag_verify_module(m)) {
            diag_print(ctx);
            free(text);
            fmag_context_destroy(ctx);
            return 1;
        }
        t = target_from_module(m, fname, err, sizeof err);
        free(text);
    }
    if (!t) {
        fprintf(stderr, "%s%s\n", strncmp(err, "<expr>", 6) ? "superopt: error: " : "", err);
        fmag_context_destroy(ctx);
        return 1;
    }

    FILE *out = stdout;
    if (outpath && !(out = fopen(outpath, "w"))) {
        fmag_tool_error(&so_tool, "cannot write '%s': %s", outpath, strerror(errno));
        fmag_superopt_target_free(t);
        fmag_context_destroy(ctx);
        return 1;
    }
    int rc = 0;
    const char *label = expr ? expr : file;

    if (check) {
        size_t len;
        char *text = fmag_tool_read_file(&so_tool, check, &len);
        fmag_vm_image img;
        fmag_vm_image_init(&img);
        fmag_superopt_program p;
        if (!text) {
            rc = 1;
        } else if (!fmag_asm_parse(ctx, check, text, len, &img)) {
            diag_print(ctx);
            rc = 1;
        } else if (img.nprograms == 0 || !fmag_superopt_program_from_vm(&img.programs[0], &p) ||
                   p.nin != t->nin) {
            fmag_tool_error(&so_tool,
                            "'%s' must hold a program with %u input(s), one output, at most %d "
                            "instructions and %d registers",
                            check, t->nin, FMAG_SUPEROPT_MAX_LEN, FMAG_SUPEROPT_MAX_REGS);
            rc = 1;
        } else {
            fmag_superopt_proof pr;
            bool ok = fmag_superopt_prove(t, &p, o.threads, o.prove_samples, &pr);
            fprintf(out, "; target: %s\n; candidate: %s (%u instructions, %u registers)\n", label,
                    check, p.len, p.regs);
            fprintf(out,
                    "; proof: %s\n; proof-checked: %llu inputs (%llu outside the contract) in "
                    "%.2f s on %u thread%s\n",
                    fmag_superopt_proof_status_name(pr.status), (unsigned long long)pr.checked,
                    (unsigned long long)pr.skipped, pr.seconds, pr.threads,
                    pr.threads == 1 ? "" : "s");
            if (!ok) {
                fprintf(out, "; counterexample: x = %.9g", (double)pr.cex[0]);
                if (t->nin > 1) fprintf(out, ", y = %.9g", (double)pr.cex[1]);
                fprintf(out, ": target %.9g, candidate %.9g\n", (double)pr.cex_want,
                        (double)pr.cex_got);
                rc = 1;
            }
        }
        free(text);
        fmag_vm_image_free(&img);
        goto done;
    }

    /* The compiler's output: the comparison column and the stochastic seed. */
    fmag_superopt_program compiled, before;
    fmag_superopt_program *compiled_seed = &compiled;
    bool have_compiled = false, have_before = false;
    fmag_superopt_proof compiled_proof;
    memset(&compiled_proof, 0, sizeof compiled_proof);
#ifdef FMAG_SUPEROPT_HAVE_CODEGEN
    if (compare || stochastic) {
        have_compiled = compile_target(ctx, t, &compiled);
        have_before = compile_target_without_rules(ctx, t, &before);
        /* only a seed must be known correct; a comparison needs just its length */
        if (have_compiled && stochastic) {
            /* --seed-without-rules: start where the compiler was before the peephole
             * rules, so a rule the stochastic search found can be found again */
            if (seed_without_rules && have_before) compiled_seed = &before;
            fmag_superopt_prove(t, compiled_seed, o.threads, o.prove_samples, &compiled_proof);
        }
        fmag_context_diag_clear(ctx);
    }
#endif

    fmag_superopt_result r;
    bool ok;
    if (stochastic) {
        fmag_superopt_program naive;
        if (have_compiled && compiled_proof.status != FMAG_PROOF_FAILED)
            o.start = compiled_seed;
        else if (fmag_superopt_naive_lower(t, &naive))
            o.start = &naive;
        ok = fmag_superopt_stochastic(t, &o, &r, err, sizeof err);
    } else {
        ok = fmag_superopt_bfs(t, &o, &r, err, sizeof err);
    }
    if (!ok) {
        rc = fmag_tool_error(&so_tool, "%s", err);
        goto done;
    }

    fprintf(out, "; target: %s (%s, %u input%s, %u operations)\n", label, how, t->nin,
            t->nin > 1 ? "s" : "", t->nops);
    fprintf(out, "; search: %s, %.3f s, %llu nodes, %u counterexample round%s\n",
            stochastic ? "stochastic" : "bfs", r.search_seconds, (unsigned long long)r.nodes,
            r.cegis_rounds, r.cegis_rounds == 1 ? "" : "s");
    fprintf(out, "; pool: ");
    print_pool(out, r.pool, r.npool);
    fprintf(out, "\n");
    if (have_compiled)
        fprintf(out, "; compiler: %u instructions, %u registers (%s)\n", compiled.len,
                compiled.regs,
                compiled_proof.status == FMAG_PROOF_FAILED ? "its output FAILS the proof"
                : compiled_proof.status == FMAG_PROOF_NONE ? "not proved"
                                                           : "proved like the result");
    if (have_before && have_compiled && before.len != compiled.len)
        fprintf(out, "; compiler-without-superopt-rules: %u instructions, %u registers\n",
                before.len, before.regs);
    if (!r.found) {
        if (stochastic)
            fprintf(out, "; result: nothing shorter than the seed (%u instructions) found%s\n",
                    o.start ? o.start->len : 0, r.timed_out ? " within the time limit" : "");
        else
            fprintf(out,
                    "; result: none up to length %u%s (no program shorter than %u exists "
                    "over this pool and register count)\n",
                    r.timed_out ? r.lower_bound : (o.max_len ? o.max_len : 3),
                    r.timed_out ? " before the time limit" : "", r.lower_bound);
        rc = r.timed_out ? 0 : 0;
        goto done;
    }
    fprintf(out, "; length: %u\n; registers: %u\n", r.prog.len, r.prog.regs);
    if (!stochastic)
        fprintf(out, "; minimal: %s\n",
                r.minimal ? "yes (every shorter length exhausted over this pool and register "
                            "count)"
                          : "no");
    fprintf(out,
            "; proof: %s\n; proof-checked: %llu inputs (%llu outside the contract) in %.2f s "
            "on %u thread%s\n",
            fmag_superopt_proof_status_name(r.proof.status), (unsigned long long)r.proof.checked,
            (unsigned long long)r.proof.skipped, r.proof.seconds, r.proof.threads,
            r.proof.threads == 1 ? "" : "s");
    fmag_superopt_program_print(&r.prog, "target", NULL, out);
    if (rule_name)
        emit_rule(out, rule_name, label, t, &r,
                  have_before     ? before.len
                  : have_compiled ? compiled.len
                                  : 0);

done:
    if (out != stdout) fclose(out);
    fmag_superopt_target_free(t);
    fmag_context_destroy(ctx);
    return rc;
}
